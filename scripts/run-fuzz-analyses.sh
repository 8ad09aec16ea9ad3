#!/bin/bash
# Runs the analyses' fuzzer (tests/fuzz_analyses.c: generated FXT archives
# through ktrace latency, dump and convert) for a time or a number of
# traces, in chunks of CHUNK traces with seeds of their own, JOBS chunks at
# a time.  A finding does not stop the run: its input is kept in
# BUILD_DIR/fuzz-analyses/ and the run goes on.  TAP output, and the
# figures: traces, traces/s, findings.  First, every archive in
# tests/corpus/ (the findings' regressions among them) goes through every
# command once.
# A long run lends the machine to other work without losing its place:
# while the file FUZZ_PAUSE names exists, it waits between rounds (a
# fuzzer stopped in the middle of a chunk would take the pause for a hang).
# usage: scripts/run-fuzz-analyses.sh BUILD_DIR --seconds N | --traces N
set -u
build=${1:-build}
mode=${2:---seconds}
amount=${3:-60}
jobs=${FUZZ_JOBS:-1}
chunk=${FUZZ_CHUNK:-200000}
fuzzer=$build/tests/fuzz_analyses
found=$build/fuzz-analyses
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$found" "$work/corpus"

echo "TAP version 13"
echo "1..2"
if [ ! -x "$fuzzer" ]; then
	echo "ok 1 - the corpus through every command # SKIP $fuzzer not built (needs clang)"
	echo "ok 2 - fuzz the analyses with generated traces # SKIP $fuzzer not built (needs clang)"
	exit 0
fi

# The regressions first: every archive in tests/corpus/ through every command.
corpus=$(ls tests/corpus/*.fxt)
if "$fuzzer" $corpus >"$work/replay" 2>&1; then
	echo "ok 1 - the corpus through every command under ASan and UBSan ($(echo "$corpus" | wc -l) archives)"
else
	grep -E 'Running:|fuzz_analyses:|ERROR|SUMMARY|runtime error' "$work/replay" | head -12 | sed 's/^/# /'
	echo "not ok 1 - the corpus through every command under ASan and UBSan"
fi

# One chunk.  Programs of up to FUZZ_MAX_LEN bytes (about 60 records) from the
# start: the interesting sequences (five interrupt entries on a CPU, then a
# wakeup there) need a few dozen records, which libFuzzer's slow growth of
# the length would reach only after minutes.
run_chunk() {	# run_chunk SEED LOG [libFuzzer limit]
	local seed=$1 log=$2
	shift 2
	"$fuzzer" -seed="$seed" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
		-max_len="${FUZZ_MAX_LEN:-512}" -len_control=0 \
		-artifact_prefix="$found/" "$@" "$work/corpus" >"$log" 2>&1
	echo $? >"$log.rc"
}

start=$(date +%s)
total=0 findings=0 seed=${FUZZ_SEED:-1} paused=0
while :; do
	if [ "$mode" = --seconds ]; then
		left=$((amount - ($(date +%s) - start - paused)))
		[ $left -gt 0 ] || break
		limit="-max_total_time=$((left < 5 ? 5 : left))"
		[ "$jobs" -gt 1 ] && limit="$limit -runs=$chunk"
	else
		left=$((amount - total))
		[ $left -gt 0 ] || break
		per=$(( (left + jobs - 1) / jobs ))
		limit="-runs=$((per < chunk ? per : chunk))"
	fi
	if [ -n "${FUZZ_PAUSE:-}" ] && [ -e "$FUZZ_PAUSE" ]; then
		echo "# paused: $FUZZ_PAUSE exists"
		p0=$(date +%s)
		while [ -e "$FUZZ_PAUSE" ]; do sleep 2; done
		paused=$((paused + $(date +%s) - p0))
		echo "# resumed after $(($(date +%s) - p0))s"
	fi
	for j in $(seq 1 "$jobs"); do
		# shellcheck disable=SC2086
		run_chunk $((seed + j)) "$work/log.$j" $limit &
	done
	wait
	seed=$((seed + jobs))
	for j in $(seq 1 "$jobs"); do
		n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log.$j")
		total=$((total + ${n:-0}))
		if [ "$(cat "$work/log.$j.rc")" != 0 ]; then
			findings=$((findings + 1))
			grep -E 'fuzz_analyses:|ERROR|SUMMARY|runtime error|Test unit written' "$work/log.$j" |
				head -8 | sed 's/^/# /'
			cp "$work/log.$j" "$found/log-$(date +%s)-$j"
		fi
	done
	[ "$mode" = --seconds ] && [ "$jobs" -eq 1 ] && [ $findings -eq 0 ] && break
	# A long run says how far it is after each round.
	secs=$(($(date +%s) - start - paused))
	echo "# $total traces in ${secs}s ($((total / (secs > 0 ? secs : 1))) traces/s), $findings findings so far"
done
secs=$(($(date +%s) - start - paused))
rate=$((total / (secs > 0 ? secs : 1)))
echo "# $total traces in ${secs}s ($rate traces/s, $jobs jobs$([ $paused -gt 0 ] && echo ", not counting ${paused}s paused")), $findings findings"
if [ $findings -eq 0 ]; then
	echo "ok 2 - fuzz the analyses with generated traces: $total traces, ${secs}s, no finding"
else
	echo "not ok 2 - fuzz the analyses with generated traces: $findings findings in $total traces (inputs and logs in $found)"
fi
