#!/bin/bash
# ktrace latency against perf sched: hackbench (-g 4 -l 200) recorded by the
# BPF backend and by perf sched record (on CLOCK_MONOTONIC, ktrace's clock)
# at once; every scheduling delay perf sched timehist reports for hackbench
# must be a wait of ktrace latency with the same thread and length, within
# the sched_waking/sched_wakeup allowance tests/check_perf_sched.py states,
# whether or not the kernel left switches untraced meanwhile (perf script
# shows where perf saw a CPU go idle but not the thread come on); and each
# wait's idle_allowed_elsewhere is the other CPU's idle time recomputed from
# the switch records.
# usage: tests/suites/perf_sched.sh BUILD_DIR.  TAP output; SKIPs without
# root, BTF, perf or hackbench.
set -u
build=${1:-build}
ktrace=$build/ktrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/../lib/tap.sh"

echo "TAP version 13"
need_host_bpf "ktrace latency against perf sched timehist"
why=""
! command -v perf >/dev/null && why="perf is not installed (linux-perf)"
[ -z "$why" ] && ! command -v hackbench >/dev/null && why="hackbench is not installed (rt-tests)"
[ -n "$why" ] && skip_all "ktrace latency against perf sched timehist" "$why"

run "$ktrace" record --backend bpf -o "$tmp/k.fxt" -- \
	perf sched record -k CLOCK_MONOTONIC -o "$tmp/p.data" -- hackbench -g 4 -l 200
ok $rc "record --backend bpf -- perf sched record -- hackbench -g 4 -l 200" || diag "$tmp/err"
grep -o '[0-9]* untraced switches' "$tmp/err" | sed 's/^/# /'
perf sched timehist -i "$tmp/p.data" >"$tmp/timehist" 2>"$tmp/perf.err"
ok $? "perf sched timehist reads perf's recording" || diag "$tmp/perf.err"
perf script -i "$tmp/p.data" -F cpu,time,event,trace >"$tmp/script" 2>>"$tmp/perf.err"
tests/check_perf_sched.py "$ktrace" "$tmp/k.fxt" "$tmp/timehist" "$tmp/script" "$tmp/perf.err" hackbench 0.001 >"$tmp/check"
ok $? "every delay perf sched timehist reports for hackbench is a wait of ktrace latency, same thread and length" ||
	grep -E '^not ok|^#' "$tmp/check" | sed 's/^/#   /'
grep -E '^# ktrace - perf|^ok 5' "$tmp/check" | sed 's/^ok 5 - /# /' | cut -c1-300
finish
