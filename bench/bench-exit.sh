#!/bin/bash
# What naming every exiting thread costs: short-lived processes as fast as
# one CPU forks them (tests/churn_workload.c, each child renames itself, sleeps
# 100 us and exits), with no tracing, with ftrace's scheduler and process
# events (sched_switch, sched_waking, sched_process_fork, sched_process_exit,
# task_rename: what a tracer needs to name them), and with ktrace's BPF
# backend, rounds interleaved.  Figures: children a second in each
# condition and the time added to each child's life; the BPF switch
# program's own run time on this load (it names each exiting task at its
# last switch) beside its run time on a pipe ping-pong, where no task exits.
# usage: bench/bench-exit.sh BUILD_DIR [ROUNDS] [SECONDS]   (as root)
set -u
build=${1:-build}
source "$(dirname "$0")/lib.sh"
needs "$build" ktrace tests/churn_workload bench/pingpong
rounds=${2:-5}
secs=${3:-2}
ktrace=$build/ktrace
churn=$build/tests/churn_workload
tmp=$(mktemp -d)
tracing=/sys/kernel/tracing
inst=$tracing/instances/ktrace-bench-exit
cleanup() {
	[ -d "$inst" ] && { echo 0 >"$inst/tracing_on"; rmdir "$inst"; }
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ]; then echo "bench-exit: needs root (BPF and tracefs)"; exit 0; fi
[ -d "$tracing/events" ] || mount -t tracefs nodev "$tracing" 2>/dev/null
other=$(( $(nproc) > 1 ? 1 : 0 ))
ftrace_instance "$inst" sched/sched_switch sched/sched_waking sched/sched_process_fork \
	sched/sched_process_exit task/task_rename || exit 1

# CONDITION -> children a second, on stdout
measure() {
	local run="taskset -c 0 $churn $secs 1000000 $tmp/pids"
	case $1 in
	none)
		$run ;;
	ftrace)
		echo >"$inst/trace"
		echo 1 >"$inst/tracing_on"
		$run
		echo 0 >"$inst/tracing_on" ;;
	ktrace-bpf)
		taskset -c $other "$ktrace" record --backend bpf -o "$tmp/k.fxt" -- $run 2>"$tmp/kerr" ;;
	esac | sed -n 's/^churn: \([0-9]*\) children in \([0-9.]*\) s$/\1 \2/p' | awk '{ printf "%.0f\n", $1 / $2 }'
}

conds="none ftrace ktrace-bpf"
echo "process churn on CPU 0 for $secs s a round, $rounds rounds, conditions interleaved"
for r in $(seq "$rounds"); do
	for c in $conds; do measure "$c" >>"$tmp/$c"; done
	conds="$(echo $conds | awk '{for (i = 2; i <= NF; i++) printf "%s ", $i; print $1}')"
done
med() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
base=$(med "$tmp/none")
printf '%-11s %14s %22s\n' condition "children/s" "added us per child"
for c in none ftrace ktrace-bpf; do
	m=$(med "$tmp/$c")
	printf '%-11s %14d %22.2f\n' "$c" "$m" "$(awk -v m="$m" -v b="$base" 'BEGIN { print m ? 1e6 / m - 1e6 / b : 0 }')"
done
named=$("$ktrace" dump "$tmp/k.fxt" | grep -cE 'switch: tid=[0-9]+ (dying|dead)')
echo "the last ktrace round: $named exiting tasks, each named at its last switch"

if command -v bpftool >/dev/null && command -v python3 >/dev/null; then
	old=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -q kernel.bpf_stats_enabled=1
	for load in "taskset -c 0 $churn $secs 1000000 $tmp/pids" "$build/bench/pingpong 200000 0"; do
		taskset -c $other "$ktrace" record --backend bpf -o "$tmp/s.fxt" -- sh -c \
			"$load >/dev/null; bpftool prog show -j >'$tmp/progs.json'" 2>/dev/null
		python3 - "$tmp/progs.json" "${load%% *}" "$load" <<'PY'
import json, sys
p = [p for p in json.load(open(sys.argv[1])) if p.get("name") == "ktrace_sched_switch" and p.get("run_cnt")]
what = "process churn" if "churn" in sys.argv[3] else "ping-pong"
if p:
    print("BPF sched_switch program, %s: %.1f ns a run over %d runs" % (what, p[0]["run_time_ns"] / p[0]["run_cnt"], p[0]["run_cnt"]))
PY
	done
	sysctl -q kernel.bpf_stats_enabled="$old"
fi
