#!/bin/bash
# What ktrace watch costs between spikes, against no tracing, ftrace
# (sched_switch + sched_waking, a warm instance) and perf sched record, in
# one run: a pinned pipe ping-pong (bench/pingpong.c), conditions
# interleaved round by round, each timed in blocks (the 10th percentile
# compared, as bench-sched.sh explains).  The watch records in ring mode
# with its trigger armed at a threshold no wait reaches; its own CPU time
# over the ping-pong is read from /proc.  ktrace record --ring is beside it,
# to show that the watch adds nothing to the recorder.
# usage: bench/bench-watch.sh BUILD_DIR [ROUNDS] [ROUND_TRIPS] [BLOCK]   (as root)
set -u
build=${1:-build}
source "$(dirname "$0")/lib.sh"
needs "$build" ktrace bench/pingpong
rounds=${2:-5}
trips=${3:-100000}
block=${4:-2500}
ktrace=$build/ktrace
pp=$build/bench/pingpong
tmp=$(mktemp -d)
tracing=/sys/kernel/tracing
inst=$tracing/instances/ktrace-bench-watch-$$
cleanup() {
	[ -d "$inst" ] && { echo 0 >"$inst/tracing_on"; rmdir "$inst"; }
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ]; then echo "bench-watch: needs root (BPF and tracefs)"; exit 0; fi
[ -d "$tracing/events" ] || mount -t tracefs nodev "$tracing" 2>/dev/null
cpu=0
other=$(( $(nproc) > 1 ? 1 : 0 ))
ftrace_instance "$inst" sched/sched_switch sched/sched_waking || exit 1

# In the background until it records: the pid in $bg.
start_bg() {	# start_bg LOG PATTERN COMMAND...
	local log=$1 pat=$2 i
	shift 2
	taskset -c $other "$@" >/dev/null 2>"$log" &
	bg=$!
	for i in $(seq 300); do grep -q "$pat" "$log" && return 0; sleep 0.1; done
	return 1
}
cputime() { awk '{print $14 + $15}' "/proc/$1/stat"; }

measure() {	# measure CONDITION -> ns per round trip on stdout, one line per block
	case $1 in
	none)
		"$pp" "$trips" $cpu $block ;;
	ftrace)
		echo >"$inst/trace"
		echo 1 >"$inst/tracing_on"
		"$pp" "$trips" $cpu $block
		echo 0 >"$inst/tracing_on" ;;
	watch)
		rm -rf "$tmp/spikes"
		start_bg "$tmp/werr" 'watching with' "$ktrace" watch --backend bpf --threshold 10s \
			-o "$tmp/spikes" || return
		local t0
		t0=$(cputime $bg)
		"$pp" "$trips" $cpu $block
		echo "$(( $(cputime $bg) - t0 ))" >>"$tmp/watch.ticks"
		kill -TERM $bg; wait $bg ;;
	ring)
		start_bg "$tmp/rerr" 'recording with' "$ktrace" record --backend bpf --ring \
			-o "$tmp/ring.fxt" || return
		"$pp" "$trips" $cpu $block
		kill -INT $bg; wait $bg ;;
	perf-sched)
		perf sched record -o "$tmp/perf.data" -- taskset -c $cpu "$pp" "$trips" $cpu $block \
			2>/dev/null ;;
	esac
}

conds="none ftrace watch ring"
command -v perf >/dev/null && perf sched record -o "$tmp/p.data" -- true >/dev/null 2>&1 &&
	conds="$conds perf-sched"
echo "ping-pong on CPU $cpu: $trips round trips timed in blocks of $block, $rounds rounds, conditions interleaved; ktrace watch --threshold 10s (armed, never fires)"
for r in $(seq "$rounds"); do
	for c in $conds; do
		measure "$c" | sed '$d' | grep -E '^[0-9.]+$' >>"$tmp/$c"
	done
	conds="$(echo $conds | awk '{for (i = 2; i <= NF; i++) printf "%s ", $i; print $1}')"
done

base=$(pct "$tmp/none" 10)
printf '\n%-11s %7s %10s %10s %18s\n' condition blocks "p10 ns" median "added ns/switch"
for c in none ftrace watch ring perf-sched; do
	[ -s "$tmp/$c" ] || continue
	p=$(pct "$tmp/$c" 10)
	printf '%-11s %7d %10.1f %10.1f %18.1f\n' "$c" "$(wc -l <"$tmp/$c")" "$p" "$(pct "$tmp/$c" 50)" \
		"$(awk -v m="$p" -v b="$base" 'BEGIN{print (m-b)/2}')"
done
f=$(pct "$tmp/ftrace" 10); w=$(pct "$tmp/watch" 10); g=$(pct "$tmp/ring" 10)
awk -v f="$f" -v w="$w" -v g="$g" -v b="$base" 'BEGIN {
	printf "\nktrace watch added cost / ftrace added cost: %.2f; / ktrace record --ring: %.2f\n", (w-b)/(f-b), (w-b)/(g-b) }'
if [ -s "$tmp/perf-sched" ]; then
	p=$(pct "$tmp/perf-sched" 10)
	awk -v p="$p" -v w="$w" -v b="$base" 'BEGIN { printf "ktrace watch added cost / perf sched record added cost: %.2f\n", (w-b)/(p-b) }'
fi
hz=$(getconf CLK_TCK)
awk -v hz="$hz" -v t="$trips" -v per="$(pct "$tmp/none" 50)" '{ s += $1; n++ } END {
	if (n) printf "the watch process itself: %.1f ms of CPU time per ping-pong of %d round trips (%.2f s), %.2f%% of one CPU (ticks of 1/%d s)\n",
		1000 * s / n / hz, t, t * per / 1e9, 100 * (s / n / hz) / (t * per / 1e9), hz }' "$tmp/watch.ticks"
