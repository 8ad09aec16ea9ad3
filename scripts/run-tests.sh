#!/bin/bash
# Runs every test suite in order (format unit tests first, no root needed),
# echoes their TAP, and ends with the seconds each suite took and the totals
# line "N passed, N failed".  The VM suite runs once per kernel in
# VM_KERNELS (space separated; default: KREL, else scripts/pick-kernel.sh).
# SUITES (space separated names, as tests/README.md lists them) runs only
# those; NO_VM=1 runs every suite but the VM's (make check-host).
# usage: [VM_KERNELS="KREL..."] [SUITES="..."] [NO_VM=1] scripts/run-tests.sh BUILD_DIR
set -u
build=${1:-build}
fuzz_secs=${KTRACE_FUZZ_SECONDS:-30}
passed=0 failed=0 skipped=0
log=$(mktemp)
failures=$(mktemp)
times=$(mktemp)
trap 'rm -f "$log" "$failures" "$times"' EXIT

# Whether suite NAME is to run (SUITES, NO_VM).
wanted() {
	[ "$1" = vm ] && [ -n "${NO_VM:-}" ] && return 1
	[ -z "${SUITES:-}" ] && return 0
	case " $SUITES " in *" $1 "*) return 0 ;; esac
	return 1
}

suite() {	# suite NAME COMMAND...
	local name=$1 p f s start=$(date +%s)
	shift
	echo "# ---- $name: $*"
	"$@" 2>&1 | tee "$log"
	printf '#   %5d s  %s\n' $(($(date +%s) - start)) "$name" >>"$times"
	p=$(grep -cE '^ok [0-9]+' "$log" | head -1)
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$log" | head -1)
	f=$(grep -cE '^not ok [0-9]+' "$log" | head -1)
	# A suite that dies before reporting anything is a failure too.
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok - $name reported no result" | tee -a "$log"; fi
	# The name is data, not a sed expression ("dump/convert" has a slash).
	grep -E '^not ok' "$log" | while IFS= read -r line; do
		printf '# %s: %s\n' "$name" "$line"
	done >>"$failures"
	passed=$((passed + p - s)) skipped=$((skipped + s)) failed=$((failed + f))
}

wanted fxt && suite "FXT format unit tests" "$build/tests/test_fxt"
wanted tables && suite "table unit tests" "$build/tests/test_tables"
wanted layers && suite "source layers" tests/check_layers.py "$build"
wanted cli && suite "ktrace dump/convert" tests/test_cli.sh "$build"
wanted merge && suite "ktrace merge" tests/test_merge.sh "$build"
wanted latency && suite "ktrace latency" tests/test_latency.sh "$build"
wanted docs && suite "manual pages and completion" tests/test_docs.sh "$build"
if ! wanted fuzz; then
	:
elif [ -x "$build/tests/fuzz_reader" ]; then
	suite "FXT reader fuzzing" scripts/run-fuzz.sh "$build" "$fuzz_secs"
else
	echo "ok - # SKIP fuzzer not built (needs clang with libFuzzer)"; skipped=$((skipped + 1))
fi
if ! wanted fuzz-analyses; then
	:
elif [ -x "$build/tests/fuzz_analyses" ]; then
	suite "analyses fuzzing" scripts/run-fuzz-analyses.sh "$build" --seconds \
		"${KTRACE_FUZZ_ANALYSES_SECONDS:-60}"
else
	echo "ok - # SKIP analyses fuzzer not built (needs clang with libFuzzer)"; skipped=$((skipped + 1))
fi
for t in $(ls tests/suites/*.sh 2>/dev/null); do
	wanted "$(basename "$t" .sh)" || continue
	# The VM suite runs watch-vm's boot for each kernel; the ten-minute soak
	# is make vm-watch-soak's.  Either runs alone when SUITES names it.
	case " ${SUITES:-} " in
	*" $(basename "$t" .sh) "*) ;;
	*) case $(basename "$t" .sh) in watch-vm|watch-soak) continue ;; esac ;;
	esac
	if [ "$(basename "$t")" = vm.sh ]; then
		kernels=${VM_KERNELS:-${KREL:-$(scripts/pick-kernel.sh)}}
		[ -n "$kernels" ] || suite "vm" env KREL= "$t" "$build"	# a SKIP: no headers
		# Several kernels' VMs at a time; each one's TAP is then counted as a suite.
		[ -z "$kernels" ] || scripts/vm-parallel.sh "$build" $kernels
		for k in $kernels; do
			suite "vm $k" cat "$build/vm/$k.tap"
			# The time the kernel took, not the time to read its TAP.
			sed -i '$d' "$times"
			printf '#   %5d s  %s\n' "$(cat "$build/vm/$k.secs" 2>/dev/null || echo 0)" "vm $k" >>"$times"
		done
	else
		suite "$(basename "$t" .sh)" "$t" "$build"
	fi
done

echo
echo "# seconds per suite:"
cat "$times"
[ -s "$failures" ] && { echo "# failed:"; cat "$failures"; }
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
