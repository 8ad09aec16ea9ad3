#!/bin/bash
# ftrace import throughput: `ktrace merge` of a text dump against
# `trace-cmd report` producing that text from trace-cmd's binary capture,
# on the same events in the same run (events/s, best of three).
# usage: bench/bench-ftrace.sh BUILD_DIR   (as root, with trace-cmd)
set -u
build=${1:-build}
source "$(dirname "$0")/lib.sh"
needs "$build" ktrace bench/pingpong tests/gen_trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$(id -u)" -ne 0 ] || ! command -v trace-cmd >/dev/null; then
	echo "bench-ftrace: needs root and trace-cmd"; exit 0
fi
# trace-cmd record needs to write /proc/sys/kernel/ftrace_enabled, which
# some machines refuse: capture with tracefs in a private instance and let
# trace-cmd extract it.
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
I=$T/instances/ktrace-bench-ftrace
mkdir "$I" || exit 1
trap 'rmdir "$I" 2>/dev/null; rm -rf "$tmp"' EXIT
echo 16384 >"$I/buffer_size_kb"
for e in sched/sched_switch sched/sched_waking irq timer; do echo 1 >"$I/events/$e/enable"; done
echo 1 >"$I/tracing_on"
"$build/bench/pingpong" 100000 0 >/dev/null
echo 0 >"$I/tracing_on"
(cd "$tmp" && trace-cmd extract -B ktrace-bench-ftrace -o "$tmp/trace.dat" >/dev/null 2>&1)
[ -f "$tmp/trace.dat" ] || ls "$tmp"
# trace-cmd extract removes the instance it read; if not, turn it off here.
[ -d "$I" ] && for e in sched/sched_switch sched/sched_waking irq timer; do echo 0 >"$I/events/$e/enable"; done
"$build/tests/gen_trace" scenario "$tmp/base.fxt"
best() {	# best CMD... -> the fastest of three runs, seconds
	local b=""
	for i in 1 2 3; do
		/usr/bin/time -f %e -o "$tmp/t" "$@" >/dev/null 2>&1
		t=$(tail -n 1 "$tmp/t")
		if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN{exit !(t < b)}'; then b=$t; fi
	done
	echo "$b"
}
trace-cmd report -i "$tmp/trace.dat" 2>/dev/null >"$tmp/report.txt" ||
	trace-cmd report -i "$tmp/trace.dat.ktrace-bench-ftrace" 2>/dev/null >"$tmp/report.txt"
dat=$tmp/trace.dat
[ -s "$tmp/report.txt" ] || dat=$tmp/trace.dat.ktrace-bench-ftrace
events=$(grep -cE '^ *.+-[0-9]+ +\[[0-9]+\]' "$tmp/report.txt")
tc=$(best sh -c "trace-cmd report -i '$dat' > '$tmp/r2.txt'")
km=$(best "$build/ktrace" merge "$tmp/base.fxt" "$tmp/report.txt" -o "$tmp/merged.fxt")
"$build/ktrace" merge "$tmp/base.fxt" "$tmp/report.txt" -o "$tmp/merged.fxt" 2>&1 | sed 's/^/  /'
awk -v n="$events" -v tc="$tc" -v km="$km" 'BEGIN {
	if (tc <= 0) tc = 0.001; if (km <= 0) km = 0.001
	printf "%d ftrace events: trace-cmd report %.2f s (%.0f events/s), ktrace merge of its text %.2f s (%.0f events/s), ratio %.2f\n",
		n, tc, n/tc, km, n/km, (n/km)/(n/tc) }'
