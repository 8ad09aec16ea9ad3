#!/bin/bash
# Added cost per context switch of the BPF backend against ftrace's
# sched_switch + sched_waking events and against no tracing, in one run:
# a pinned pipe ping-pong (bench/pingpong.c), conditions interleaved round
# by round, median and spread.  Debian's runqlat runs as a reference.
# Also bytes per context switch (with its wakeup) for ktrace and ftrace.
# usage: bench/bench-sched.sh BUILD_DIR [ROUNDS] [ROUND_TRIPS]   (as root)
set -u
build=${1:-build}
rounds=${2:-7}
trips=${3:-200000}
ktrace=$build/ktrace
pp=$build/bench/pingpong
tmp=$(mktemp -d)
tracing=/sys/kernel/tracing
inst=$tracing/instances/ktrace-bench
cleanup() {
	[ -d "$inst" ] && { echo 0 >"$inst/tracing_on"; rmdir "$inst"; }
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ]; then echo "bench-sched: needs root (BPF and tracefs)"; exit 0; fi
[ -d "$tracing/events" ] || mount -t tracefs nodev "$tracing" 2>/dev/null
ncpu=$(nproc)
cpu=0
# The recorder's reader and runqlat run on another CPU than the ping-pong.
other=$(( ncpu > 1 ? 1 : 0 ))
runqlat=$(command -v runqlat || echo /usr/sbin/runqlat)

mkdir "$inst" || exit 1
echo 0 >"$inst/tracing_on"
echo 1 >"$inst/events/sched/sched_switch/enable"
echo 1 >"$inst/events/sched/sched_waking/enable"
[ -w "$inst/trace_clock" ] && echo mono >"$inst/trace_clock"

measure() {	# measure CONDITION -> ns per round trip on stdout
	case $1 in
	none)
		"$pp" "$trips" $cpu ;;
	ftrace)
		echo >"$inst/trace"
		echo 1 >"$inst/tracing_on"
		"$pp" "$trips" $cpu
		echo 0 >"$inst/tracing_on"
		grep -h '^bytes:' "$inst"/per_cpu/cpu$cpu/stats | awk '{print $2}' >"$tmp/ftrace_bytes"
		grep -h '^entries:' "$inst"/per_cpu/cpu$cpu/stats | awk '{print $2}' >"$tmp/ftrace_entries" ;;
	ftrace-read)
		# As trace-cmd records: a reader drains the CPU's buffer meanwhile.
		echo >"$inst/trace"
		echo 1 >"$inst/tracing_on"
		taskset -c $other dd if="$inst/per_cpu/cpu$cpu/trace_pipe_raw" of=/dev/null bs=4096 2>/dev/null &
		local rd=$!
		"$pp" "$trips" $cpu
		echo 0 >"$inst/tracing_on"
		kill $rd 2>/dev/null; wait $rd 2>/dev/null ;;
	ktrace-bpf)
		taskset -c $other "$ktrace" record --backend bpf -o "$tmp/k.fxt" -- "$pp" "$trips" $cpu \
			2>"$tmp/kerr" ;;
	runqlat)
		taskset -c $other "$runqlat" 60 1 >/dev/null 2>&1 &
		local rq=$!
		sleep 1.5	# let it load and attach
		"$pp" "$trips" $cpu
		kill -INT $rq 2>/dev/null; wait $rq 2>/dev/null ;;
	esac
}

conds="none ftrace ftrace-read ktrace-bpf"
[ -x "$runqlat" ] && conds="$conds runqlat"
echo "ping-pong on CPU $cpu: $trips round trips (2 switches + 2 wakeups each), $rounds rounds, conditions interleaved"
for r in $(seq "$rounds"); do
	for c in $conds; do
		v=$(measure "$c" | tail -1)
		echo "$v" >>"$tmp/$c"
	done
	conds="$(echo $conds | awk '{for (i = 2; i <= NF; i++) printf "%s ", $i; print $1}')"
done

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
base=$(median "$tmp/none")
printf '\n%-11s %14s %10s %10s %22s\n' condition ns/round-trip min max "added ns/switch"
for c in none ftrace ftrace-read ktrace-bpf runqlat; do
	[ -f "$tmp/$c" ] || continue
	m=$(median "$tmp/$c")
	printf '%-11s %14.1f %10.1f %10.1f %22.1f\n' "$c" "$m" "$(sort -n "$tmp/$c" | head -1)" \
		"$(sort -n "$tmp/$c" | tail -1)" "$(awk -v m="$m" -v b="$base" 'BEGIN{print (m-b)/2}')"
done
f=$(median "$tmp/ftrace"); fr=$(median "$tmp/ftrace-read"); k=$(median "$tmp/ktrace-bpf")
awk -v f="$f" -v fr="$fr" -v k="$k" -v b="$base" 'BEGIN {
	printf "\nktrace-bpf added cost / ftrace added cost: %.2f against ftrace with no reader, %.2f against ftrace drained by a reader (target: at most 1)\n", (k-b)/(f-b), (k-b)/(fr-b) }'

# Bytes per context switch with its wakeup, from the last round of each.
fb=$(cat "$tmp/ftrace_bytes"); fe=$(cat "$tmp/ftrace_entries")
"$ktrace" dump --stats --quiet "$tmp/k.fxt" >"$tmp/kstats"
kb=$(awk '/context switch \(args\)/ {s=$NF} /thread wakeup/ {w=$NF} END {print s*56 + w*48}' "$tmp/kstats")
ks=$(awk '/context switch \(args\)/ {print $NF}' "$tmp/kstats")
awk -v fb="$fb" -v fe="$fe" -v kb="$kb" -v ks="$ks" 'BEGIN {
	printf "bytes per switch with its wakeup: ktrace %.1f (56 B switch + 48 B wakeup records), ftrace %.1f (buffer bytes / 2 events per switch, CPU 0)\n",
		kb/ks, fb/(fe/2) }'
