#!/bin/bash
# ktrace latency: throughput and peak memory on synthetic traces of 1 and
# 10 million records (the report must stay flat in memory); then, as root,
# the same waits seen by ktrace latency, runqlat, runqslower and perf sched
# latency, all recording one run of tests/latency_workload.c (a SCHED_FIFO
# hog holding the victim's CPU for 5 ms, 10 rounds of wakeup and preemption).
# usage: bench/bench-latency.sh BUILD_DIR [RECORDS...]
set -u
build=${1:-build}
source "$(dirname "$0")/lib.sh"
needs "$build" ktrace tests/gen_trace tests/latency_workload
shift || true
sizes=${*:-1000000 10000000}
ktrace=$build/ktrace
tmp=${KTRACE_BENCH_DIR:-$(mktemp -d)}
trap 'rm -rf "$tmp"' EXIT

# Throughput of ktrace latency with MODE's options (best of 3; report to /dev/null).
# The critical path (every thread selected, the 10 worst waits) keeps 32
# segments of history per thread and at most 512 hops per wait kept.
echo "# ktrace latency throughput (best of 3; report to /dev/null); target: at least 2 M records/s"
printf '%-15s %-10s %9s %12s %9s\n' mode records secs records/s rss_MiB
for n in $sizes; do
	"$build/tests/gen_trace" synthetic "$n" "$tmp/in.fxt"
	cat "$tmp/in.fxt" >/dev/null
	for mode in report critical-path; do
		opts="--top 10"
		[ $mode = critical-path ] && opts="--critical-path --top 10"
		best=""
		for rep in 1 2 3; do
			# shellcheck disable=SC2086
			/usr/bin/time -f '%e %M' -o "$tmp/time" "$ktrace" latency "$tmp/in.fxt" $opts >/dev/null
			read -r secs rss <"$tmp/time"
			if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN{exit !(a < b)}'; then
				best=$secs best_rss=$rss
			fi
		done
		awk -v m="$mode" -v n="$n" -v s="$best" -v r="$best_rss" 'BEGIN {
			if (s <= 0) s = 0.001;
			printf "%-15s %-10d %9.2f %12.0f %9.1f\n", m, n, s, n / s, r / 1024 }'
	done
	rm -f "$tmp/in.fxt"
done

if [ "$(id -u)" -ne 0 ] || [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "# side-by-side with runqlat, runqslower and perf sched: SKIP (needs root and BTF)"
	exit 0
fi
missing=""
for t in runqlat runqslower perf; do command -v $t >/dev/null || missing="$missing $t"; done
if [ -n "$missing" ]; then
	echo "# side-by-side: SKIP (not installed:$missing)"
	exit 0
fi

echo
echo "# the same run seen by each tool: latency_workload, 10 rounds, hog 5 ms"
stdbuf -oL runqlat -L 15 1 >"$tmp/runqlat.txt" 2>&1 &
rq=$!
stdbuf -oL runqslower 3000 >"$tmp/runqslower.txt" 2>&1 &
rqs=$!
"$ktrace" record --backend bpf -o "$tmp/k.fxt" -d 14 >"$tmp/k.err" 2>&1 &
k=$!
sleep 3		# every tool attached
perf sched record -a -o "$tmp/perf.data" -- \
	"$build/tests/latency_workload" "$tmp/expect" 10 5000 >/dev/null 2>&1
kill -INT $rqs
wait $k $rqs
wait $rq
victim=$(sed -n 's/^victim=//p' "$tmp/expect")
hog=$(sed -n 's/^hog=//p' "$tmp/expect")
echo "victim tid $victim, hog tid $hog"

"$ktrace" latency "$tmp/k.fxt" --pid "$victim" --json --top 40 >"$tmp/k.json"
python3 - "$tmp/k.json" "$victim" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
g = next(x for x in r['groups'] if x['key'] == int(sys.argv[2]))
long = [w for w in r['top'] if w['latency'] >= 3e6]
for k in ('wakeup', 'preemption'):
    d = g[k]
    print(f"ktrace latency  {k:10s} count {d['count']:4d}  p50 {d['p50'] / 1e3:9.1f} us  max {d['max'] / 1e3:9.1f} us")
print(f"ktrace latency  waits >= 3 ms: {len(long)}, max {max([w['latency'] for w in long] or [0]) / 1e3:.1f} us, "
      f"{sum(1 for w in long if w['blame']['threads'] and w['blame']['threads'][0]['comm'] == 'hog')} blamed on the hog")
EOF
awk -v v="$victim" '$3 == v && $4 + 0 >= 3000 { n++; if ($4 > m) m = $4 }
	END { printf "runqslower      waits >= 3 ms: %d, max %.1f us\n", n, m }' "$tmp/runqslower.txt"
perf sched latency -i "$tmp/perf.data" 2>/dev/null | awk -v v=":$victim " '
	index($0, v) { for (i = 1; i <= NF; i++) if ($i == "max:") m = $(i + 1)
		printf "perf sched latency  max delay %.1f us (%s)\n", m * 1000, $1 }'
echo
echo "ktrace latency --hist (wakeup, then preemption), victim:"
"$ktrace" latency "$tmp/k.fxt" --pid "$victim" --hist --top 0 |
	sed -n '/^ *usecs/,/^$/p'
echo "runqlat -L (wakeup and preemption together), victim:"
awk -v v="tid = $victim" 'index($0, v) == 1 { on = 1; next } on && /^$/ { exit } on' "$tmp/runqlat.txt"
