#!/bin/bash
# Timer waits on this machine's kernel with the BPF backend: a nanosleep
# loop's timer expiries are recorded, and cyclictest's own measurement of
# a run agrees with ktrace's timer latency of its measuring thread in the
# same recording (tests/check_cyclictest.py: max and p99 within 10% or
# 30 us; the user-space part ktrace cannot see is reported).
# usage: tests/suites/timer.sh BUILD_DIR.  TAP output; SKIPs without root,
# BTF or cyclictest (rt-tests).
set -u
build=${1:-build}
ktrace=$build/ktrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/../lib/tap.sh"

echo "TAP version 13"
need_host_bpf "timer waits"

# 100 sleep processes, one nanosleep each: 100 timer expiries, 100 timer
# waits.  Under a name of their own: others on this machine sleep too.
cp "$(command -v sleep)" "$tmp/tsleeper"
run "$ktrace" record --backend bpf -o "$tmp/sleep.fxt" -- \
	sh -c "for i in \$(seq 100); do $tmp/tsleeper 0.001; done"
ok $rc "record --backend bpf -- 100 sleep processes" || diag "$tmp/err"
"$ktrace" dump "$tmp/sleep.fxt" >"$tmp/dump"
expiries=$(grep -c '"ktrace:timer":"timer_expire" due=[0-9]* hard_due=[0-9]* cpu=[0-9]*  \[tsleeper\]' "$tmp/dump")
# Under heavy load one expiry in 100 was once missing, with no loss
# recorded (not understood yet): at most 2 may be, and those that are not
# named tsleeper are shown.
[ "$expiries" -ge 98 ]
ok $? "each sleep's timer expiry is recorded on its thread, with due, hard_due and cpu ($expiries of 100)" ||
	grep timer_expire "$tmp/dump" | head -5 | diag /dev/stdin
[ "$expiries" -lt 100 ] && grep '"timer_expire"' "$tmp/dump" | grep -v '\[tsleeper\]' | tail -5 | diag /dev/stdin
run "$ktrace" latency "$tmp/sleep.fxt" --comm tsleeper --by all --json
# Each recorded expiry is a timer wait (a sleep whose expiry is missing,
# above, is a wakeup wait).  A wait across a switch the kernel did not
# trace, which may hide the sleeper's own, is left out and counted as such
# (this 6.18 kernel leaves one now and then).
python3 -c "import json,sys; r=json.load(open('$tmp/out')); g=r['groups'][0]; sys.exit(0 if g['timer']['count'] + r['not_measured']['overlaps_loss'] >= $expiries and g['timer']['count'] >= 95 and g['timer']['min'] > 0 else 1)"
ok $? "ktrace latency: a timer wait for each of the $expiries expiries, or the few left out counted" || diag "$tmp/out"
[ "$expiries" -lt 100 ] && grep '"ktrace:meta":"dropped"' "$tmp/dump" | diag /dev/stdin

command -v cyclictest >/dev/null ||
	skip_all "cyclictest agrees with ktrace" "cyclictest is not installed (apt-get install rt-tests)"
# cyclictest's measuring thread at SCHED_FIFO 80, 1 ms period, 3000 cycles,
# every cycle printed (-v) and a histogram (-h) for its p99.
run "$ktrace" record --backend bpf -o "$tmp/cyc.fxt" -- \
	cyclictest -t1 -p80 -i1000 -l3000 -q -m -v -h 2000
cp "$tmp/out" "$tmp/cyc.out"
ok $rc "record --backend bpf -- cyclictest -t1 -p80 -i1000 -l3000" || diag "$tmp/err"
grep '^# Max Latencies\|^# Histogram Overflows' "$tmp/cyc.out" | diag /dev/stdin
run "$ktrace" latency "$tmp/cyc.fxt" --comm cyclictest --json --top 20000
cp "$tmp/out" "$tmp/cyc.json"
# A virtual machine (the CPU flags say so) may lose its vCPU to its
# hypervisor after the switch-in, unseen by its kernel: the max is bounded there.
virt=
grep -qw hypervisor /proc/cpuinfo && virt=vm
tap_include < <(tests/check_cyclictest.py "$tmp/cyc.out" "$tmp/cyc.json" "host, bpf" $virt)
# The measuring thread: the one with the most timer waits.
tid=$(python3 -c "import json; r=json.load(open('$tmp/cyc.json')); print(max(r['groups'], key=lambda g: g['timer']['count'])['key'])")
run "$ktrace" latency "$tmp/cyc.fxt" --pid "$tid" --top 3
grep -q "^  [123]\. .* timer latency of cyclictest $tid " "$tmp/out" && grep -q "(the largest part)" "$tmp/out"
ok $? "the text lists the measuring thread's worst timer waits, and names each one's largest part" ||
	diag "$tmp/out"
sed -n '/worst wait/,$p' "$tmp/out" | diag /dev/stdin
check_timeline "$tmp/cyc.fxt" "record -- cyclictest"
finish
