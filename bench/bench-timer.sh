#!/bin/bash
# What recording timer expiries costs, with the BPF backend, on a
# timer-heavy load: cyclictest's thread (SCHED_FIFO 80) sleeping 200 us at
# a time, with and without ktrace recording, rounds interleaved.  Two
# figures: the BPF programs' own run time per run, from the kernel's BPF
# statistics (which add two clock reads of their own to each run), for the
# timer expiry program beside the wakeup and switch programs; and
# cyclictest's average latency in each condition, the whole-system cost a
# timer-driven thread sees.
# usage: bench/bench-timer.sh BUILD_DIR [ROUNDS] [CYCLES]   (as root)
set -u
build=${1:-build}
rounds=${2:-5}
cycles=${3:-5000}
ktrace=$build/ktrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "$(id -u)" -ne 0 ]; then echo "bench-timer: needs root (BPF)"; exit 0; fi
if ! command -v cyclictest >/dev/null; then
	echo "bench-timer: cyclictest is not installed (apt-get install rt-tests)"; exit 0
fi
other=$(( $(nproc) > 1 ? 1 : 0 ))
cyc="cyclictest -t1 -a 0 -p80 -i200 -l$cycles -q -m"

echo "timer-heavy load: $cyc, $rounds rounds, with and without ktrace record --backend bpf, interleaved"
for r in $(seq "$rounds"); do
	$cyc | sed -n 's/.* Avg: *\([0-9]*\) .*Max: *\([0-9]*\).*/\1 \2/p' >>"$tmp/none"
	taskset -c $other "$ktrace" record --backend bpf -o "$tmp/k.fxt" -- $cyc 2>"$tmp/kerr" |
		sed -n 's/.* Avg: *\([0-9]*\) .*Max: *\([0-9]*\).*/\1 \2/p' >>"$tmp/ktrace"
done
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
n_avg=$(awk '{print $1}' "$tmp/none" | med); k_avg=$(awk '{print $1}' "$tmp/ktrace" | med)
printf '%-8s %8s %10s   (median of %d rounds, us)\n' condition "avg lat" "max lat" "$rounds"
printf '%-8s %8s %10s\n' none "$n_avg" "$(awk '{print $2}' "$tmp/none" | med)"
printf '%-8s %8s %10s\n' ktrace "$k_avg" "$(awk '{print $2}' "$tmp/ktrace" | med)"
echo "recording adds $((k_avg - n_avg)) us to cyclictest's average latency (its timer expiry, wakeup and two switches, each recorded)"
expiries=$("$ktrace" dump "$tmp/k.fxt" | grep -c '"ktrace:timer":"timer_expire"')
echo "timer expiries recorded in the last round: $expiries for $cycles cycles"

if command -v bpftool >/dev/null && command -v python3 >/dev/null; then
	old=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -q kernel.bpf_stats_enabled=1
	taskset -c $other "$ktrace" record --backend bpf -o "$tmp/s.fxt" -- sh -c \
		"$cyc >/dev/null; bpftool prog show -j >'$tmp/progs.json'" 2>/dev/null
	sysctl -q kernel.bpf_stats_enabled="$old"
	python3 - "$tmp/progs.json" <<'PY'
import json, sys
names = {"ktrace_hrtimer_expire_entry": "hrtimer_expire_entry", "ktrace_sched_switch": "sched_switch",
         "ktrace_sched_waking": "sched_waking"}
runs = [p for p in json.load(open(sys.argv[1])) if p.get("name") in names and p.get("run_cnt")]
print("BPF program run time (kernel.bpf_stats_enabled): " + ", ".join(
    "%s %.1f ns over %d runs" % (names[p["name"]], p["run_time_ns"] / p["run_cnt"], p["run_cnt"])
    for p in runs))
PY
fi
