# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the shell test suites: source it, then ok/skip/run, finish.
n=0 failed=0 skipped=0
ok() {	# ok EXIT-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
	return "$1"
}
# The exit status of a workload or script that cannot run here (one CPU,
# SCHED_FIFO refused, no cgroup v2, ...), after it has said why: the suite
# that ran it reports a SKIP with that reason, never a pass.  kselftest's
# KSFT_SKIP; the same in tests/lib/workload.h and tests/lib/tap.py.
EXIT_CANNOT_RUN_HERE=4
# A test that cannot run here, and why.
skip() {	# skip DESCRIPTION WHY
	n=$((n + 1)) skipped=$((skipped + 1))
	echo "ok $n - $1 # SKIP $2"
}
# The rest of the suite cannot run here: DESCRIPTION is a SKIP that says
# why, and the suite ends (finish: its status is a failure's before it).
skip_all() {	# skip_all DESCRIPTION WHY
	skip "$1" "$2"
	finish
	exit
}
# Whether the BPF backend can record on this machine (root, BTF); if not,
# $why says why.
host_bpf() {
	why=
	[ "$(id -u)" -eq 0 ] || why="not root: loading BPF programs needs root"
	[ -z "$why" ] && [ ! -r /sys/kernel/btf/vmlinux ] && why="the kernel has no BTF (/sys/kernel/btf/vmlinux)"
	[ -z "$why" ]
}
# A suite that records with the BPF backend: unless it can here, the suite
# is a SKIP (DESCRIPTION) that says why.
need_host_bpf() {	# need_host_bpf DESCRIPTION
	host_bpf || skip_all "$1" "$why"
}
# Whether DevTools' trace engine (tests/js) is installed; if not, DESCRIPTION is a SKIP.
need_trace_engine() {	# need_trace_engine DESCRIPTION
	[ -d tests/js/node_modules/@paulirish/trace_engine ] && return 0
	skip "$1" "DevTools' trace engine is not installed (cd tests/js && npm install --no-audit --no-fund --no-package-lock)"
	return 1
}
# Shows FILEs as TAP comments: what a failed check saw.
diag() { sed 's/^/# /' "$@" 2>/dev/null; }
# Runs a command; its exit status, stdout and stderr land in $rc, $tmp/out, $tmp/err.
run() { "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
# A recording as a whole timeline (ktrace dump --check, run as $ktrace): per
# CPU the switches chain, a thread that blocked is woken before it runs
# again, no thread runs on two CPUs; a break only where a loss,
# untraced_switch or cpu_offline record says why.  Its summary becomes
# TAP comments; each violation is shown when it fails.
check_timeline() {	# check_timeline TRACE WHAT
	local out
	out=$(mktemp)
	"$ktrace" dump --check "$1" >"$out" 2>&1
	timeline_ok $? "$out" "$2"
	rm -f "$out"
}
# The TAP line of a `ktrace dump --check` that exited STATUS and wrote OUT.
timeline_ok() {	# timeline_ok STATUS OUT WHAT
	ok "$1" "$3: every timeline checks out ($(sed -n 's/^timeline: \([0-9]*\) unexplained violations.*/\1 unexplained/p' "$2"))" ||
		grep -v '^timeline:' "$2" | head -20 | diag /dev/stdin
	sed -n 's/^timeline: \([0-9]* \(switches on\|untraced_wakeup\) .*\)/#   \1/p' "$2" | grep -v unexplained
}
# Waits until FILE has a line matching PATTERN (at most 60 s): a recorder
# started in the background is recording once it says so.
wait_for() {	# wait_for FILE PATTERN
	local i
	for i in $(seq 600); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
# Another checker's TAP lines on stdin, numbered as this suite's
# (tap_include < <(checker ...): not in a pipe, which would lose the count).
tap_include() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*" # SKIP "*) line=${line#ok * - } && skip "${line% # SKIP *}" "${line##* # SKIP }" ;;
		"ok "*) ok 0 "${line#ok * - }" ;;
		"not ok "*) ok 1 "${line#not ok * - }" ;;
		"#"*) echo "$line" ;;
		esac
	done
}
# The plan and the totals; fails if a check did.
finish() {
	echo "1..$n"
	echo "# $((n - failed - skipped)) passed, $failed failed, $skipped skipped"
	[ $failed -eq 0 ]
}
