#!/bin/bash
# What recording interrupt handlers costs, with the BPF backend, on an
# interrupt-heavy load: cyclictest's thread (SCHED_FIFO 80) sleeping 100 us
# at a time on CPU 0 (a timer interrupt, its softirqs, a wakeup and two
# switches each cycle), recorded with and without --no-irq, rounds
# interleaved.  Two figures: the interrupt programs' own run time per
# handler run (an entry and an exit), from the kernel's BPF statistics
# (which add two clock reads of their own to each run); and cyclictest's
# average latency in each condition, the whole-system cost a timer-driven
# thread sees.  The cost per context switch with and without them is in
# bench-sched.sh (ktrace-noirq).
# usage: bench/bench-irq.sh BUILD_DIR [ROUNDS] [CYCLES]   (as root)
set -u
build=${1:-build}
rounds=${2:-5}
cycles=${3:-10000}
ktrace=$build/ktrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "$(id -u)" -ne 0 ]; then echo "bench-irq: needs root (BPF)"; exit 0; fi
if ! command -v cyclictest >/dev/null; then
	echo "bench-irq: cyclictest is not installed (apt-get install rt-tests)"; exit 0
fi
other=$(( $(nproc) > 1 ? 1 : 0 ))
cyc="cyclictest -t1 -a 0 -p80 -i100 -l$cycles -q -m"
avg() { sed -n 's/.* Avg: *\([0-9]*\) .*/\1/p'; }

echo "interrupt-heavy load: $cyc, $rounds rounds, ktrace record --backend bpf with and without --no-irq, interleaved"
for r in $(seq "$rounds"); do
	taskset -c $other "$ktrace" record --backend bpf --no-irq -o "$tmp/n.fxt" -- $cyc 2>/dev/null |
		avg >>"$tmp/noirq"
	taskset -c $other "$ktrace" record --backend bpf -o "$tmp/k.fxt" -- $cyc 2>/dev/null |
		avg >>"$tmp/irq"
done
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
n=$(med <"$tmp/noirq"); k=$(med <"$tmp/irq")
runs=$("$ktrace" dump "$tmp/k.fxt" | grep -c '"ktrace:irq":')
echo "cyclictest's average latency (median of $rounds rounds): $n us with --no-irq, $k us with interrupts recorded"
echo "interrupt handler runs recorded in the last round: $runs for $cycles cycles ($(awk -v r="$runs" -v c="$cycles" 'BEGIN {printf "%.1f", r / c}') per cycle)"

if command -v bpftool >/dev/null && command -v python3 >/dev/null; then
	old=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -q kernel.bpf_stats_enabled=1
	taskset -c $other "$ktrace" record --backend bpf -o "$tmp/s.fxt" -- sh -c \
		"$cyc >/dev/null; bpftool prog show -j >'$tmp/progs.json'" 2>/dev/null
	sysctl -q kernel.bpf_stats_enabled="$old"
	python3 - "$tmp/progs.json" <<'PY'
import json, sys
pairs = {"ktrace_irq_ente": "irq_handler", "ktrace_irq_exit": "irq_handler",
         "ktrace_timer_en": "local_timer", "ktrace_timer_ex": "local_timer",
         "ktrace_softirq_": "softirq"}
progs = [p for p in json.load(open(sys.argv[1]))
         if p.get("name", "")[:15] in pairs and p.get("run_cnt")]
by = {}
for p in progs:
    k = pairs[p["name"][:15]]
    t, n = by.get(k, (0, 0))
    by[k] = (t + p["run_time_ns"], n + p["run_cnt"])
print("BPF interrupt programs' run time per handler run, entry and exit (kernel.bpf_stats_enabled): " +
      ", ".join("%s %.1f ns over %d runs" % (k, 2 * t / n, n // 2) for k, (t, n) in sorted(by.items())))
PY
fi
