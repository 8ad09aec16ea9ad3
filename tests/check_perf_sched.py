#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks ktrace latency against perf sched timehist on one run both
recorded (tests/suites/perf_sched.sh): every scheduling delay perf reports
for a thread of COMM, at least MIN_MS long, is a wait of ktrace latency on
the same thread, ending at the same switch-in, of the same length.

Allowance: perf's delay starts at sched_wakeup (the task queued on its
CPU), ktrace's at sched_waking, before the CPU is chosen, so ktrace's may
be longer by that step (a few microseconds; up to ALLOW_US).  Each end
may differ by up to SLACK_US: timehist prints microseconds, and the two
tracers stamp one event at different moments, which a virtual CPU
descheduled between them (this machine's) stretches to tens of
microseconds; of a thread's waits ending that close to perf's switch-in,
the one as long as perf's delay is its match.  A thread preempted on its
way to sleep (sched_switch's preempt, with prev_state S) stays on its run
queue: ktrace's wait is a preemption from then, while perf starts at the
wakeup that finds it still queued, so ktrace's is the longer one, by any
amount.

perf misses most of what happens while a CPU's idle task is current
(Linux 6.18 here, with or without ktrace recording: in one run perf had 8
of the 695 switches out of idle ktrace recorded, none of CPU 1's 513, and
no wakeup or migration there), so timehist takes a thread switched in
from idle to have run since the CPU's switch to idle, which perf script
shows as that CPU's last switch before the thread's switch-out: its delay
then ends at the switch to idle, short of ktrace's wait by the idle
stretch.  Such a delay must be a wait of ktrace's that ends at a switch-in
from idle on that CPU between the two, longer than perf's by that much.

A wait of a thread switched in or out by the kernel without tracing it
(an untraced_switch record names it), or across records ktrace lost,
cannot be measured and is counted by ktrace as such.  If perf lost
events, its delays are no reference and the comparison is skipped.  TAP
output.
usage: check_perf_sched.py KTRACE TRACE.fxt TIMEHIST.txt SCRIPT.txt PERF_ERR.txt COMM MIN_MS
(SCRIPT.txt: perf script -F cpu,time,event,trace; PERF_ERR.txt: perf's
warnings, where it says what it lost)"""
import bisect
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from tap import finish, ok, skip  # noqa: E402

ALLOW_US, SLACK_US = 100, 200
ktrace, trace, timehist, script, perf_err, comm, min_ms = sys.argv[1:7] + [float(sys.argv[7])]
SLACK = SLACK_US * 1000

out = subprocess.run([ktrace, 'latency', trace, '--comm', comm, '--json', '--top', '100000'], capture_output=True, text=True)
ok(out.returncode == 0, 'ktrace latency --json reads the recording', out.stderr.strip())
if out.returncode:
    finish()
r = json.loads(out.stdout)
ok(r['waits'] < 100000, f"every wait of {comm} is listed ({r['waits']} waits)")
ok(all(sum(w['causes'].values()) == w['latency'] for w in r['top']),
   "every wait's causes sum to its latency, to the nanosecond")

waits = collections.defaultdict(list)
for w in r['top']:
    waits[w['tid']].append(w)
untraced = collections.defaultdict(list)
dump = subprocess.run([ktrace, 'dump', trace], capture_output=True, text=True).stdout
for m in re.finditer(r'"untraced_switch" cpu=\d+ tid=koid:(\d+) switched_out=koid:(\d+) first_ts=(\d+) last_ts=(\d+)', dump):
    for tid in (int(m[1]), int(m[2])):
        untraced[tid].append((int(m[3]), int(m[4])))
# What ktrace lost (per CPU, or the kernel's skipped BPF runs, over the
# whole recording): ktrace latency measures no wait across it.
lost = [(int(m[1]), int(m[2])) for m in
        re.finditer(r'"ktrace:meta":"dropped" .*?first_ts=(\d+) last_ts=(\d+)', dump)]
# ktrace's switch-ins from idle, per CPU and thread.
from_idle = collections.defaultdict(list)
for m in re.finditer(r'^@\S+\s+(\d+)\.(\d+) \[(\d+)\] switch: tid=0 .*? ==> tid=(\d+) ', dump, re.M):
    from_idle[(int(m[3]), int(m[4]))].append(int(m[1]) * 10**9 + int(m[2]))

# perf's switches per CPU: (time in us, next pid), to see which switch-in
# timehist took for a thread's.
perf_sw = collections.defaultdict(list)
for m in re.finditer(r'\[(\d+)\]\s+(\d+)\.(\d+):\s+sched:sched_switch: .* ==> .*next_pid=(-?\d+) ',
                     open(script).read()):
    perf_sw[int(m[1])].append((int(m[2]) * 10**6 + int(m[3]), int(m[4])))
for v in perf_sw.values():
    v.sort()


def perf_switch_in(cpu, out_us):
    """The thread perf last saw switched in on @cpu before @out_us."""
    v = perf_sw.get(cpu, [])
    i = bisect.bisect_left(v, (out_us, -1 << 62))
    return v[i - 1][1] if i else None


# "   time [cpu] comm[tid/pid]  wait  sch-delay  run" (milliseconds); the time is the switch-out.
line_re = re.compile(r'^\s*(\d+)\.(\d+)\s+\[(\d+)\]\s+(.*)\[(\d+)(?:/\d+)?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$')
delays = []
for line in open(timehist):
    m = line_re.match(line)
    if m and m[4].strip() == comm and float(m[7]) >= min_ms:
        out_us = int(m[1]) * 10**6 + int(m[2])
        tin = out_us * 1000 - round(float(m[8]) * 1e6)
        delays.append((int(m[5]), tin, round(float(m[7]) * 1e6), int(m[3]), out_us))
ok(delays, f'perf sched timehist reports delays of {comm} of {min_ms} ms or more ({len(delays)})')

perf_lost = ', '.join(sorted(set(re.findall(r'lost [^!]*', open(perf_err).read()))))


def as_long(w, d, more=0):
    """Whether ktrace's wait @w is perf's delay @d, perf's @more ns short."""
    diff = w['latency'] - d - more
    return -SLACK <= diff and (diff <= (ALLOW_US + SLACK_US) * 1000 or w['kind'] == 'preemption')


found, after_idle, excused, missing, diffs = 0, 0, 0, [], []
for tid, tin, d, cpu, out_us in delays:
    near = sorted((w for w in waits.get(tid, []) if abs(w['end'] - tin) <= SLACK),
                  key=lambda w: abs(w['end'] - tin))
    match = [w for w in near if as_long(w, d)]
    # perf saw the CPU go idle, not the thread come on: ktrace's wait ends
    # at the thread's switch-in from idle, after perf's and before its switch-out.
    idle = [] if match or perf_switch_in(cpu, out_us) != 0 else \
        [w for w in waits.get(tid, []) if tin - SLACK <= w['end'] <= out_us * 1000 + SLACK and
         any(abs(w['end'] - ts) <= 1000 for ts in from_idle.get((cpu, tid), [])) and
         as_long(w, d, max(0, w['end'] - tin))]
    if match:
        found += 1
        diffs.append(match[0]['latency'] - d)
    elif idle:
        after_idle += 1
    elif any(f <= tin + SLACK and l >= tin - d - SLACK for f, l in untraced.get(tid, []) + lost):
        excused += 1
    else:
        missing.append((tid, tin, d, [(w['end'], w['latency']) for w in near]))
diffs.sort()
unmeasured = sum(r['not_measured'].values())
what = (f"each is a wait of ktrace latency on the same thread, ending at the same switch-in, as long "
        f"(ktrace - perf within -{SLACK_US}..{ALLOW_US + SLACK_US} us; after an idle stretch perf "
        f"does not see, longer by it)")
counted = f"ktrace counts the waits it cannot measure, across the thread's own untraced switch or a loss"
if perf_lost:
    skip(what, f"perf {perf_lost}: its delays are no reference")
    skip(counted, f"perf {perf_lost}")
else:
    ok(not missing, f"{what}: {found} found, {after_idle} after idle, {excused} across the thread's own "
       f"untraced switch or a loss, {len(missing)} missing (ktrace counts {unmeasured} it could not "
       f"measure: {r['not_measured']})", missing[:5])
    if missing:
        print(f"# measured by perf, missing from ktrace latency: {missing[:5]}")
    ok(excused <= r['not_measured']['overlaps_loss'],
       f"{counted} ({excused} delays of perf's; {r['not_measured']['overlaps_loss']} counted)")
if diffs:
    print(f"# ktrace - perf: min {diffs[0]} ns, median {diffs[len(diffs) // 2]} ns, max {diffs[-1]} ns")

# idle_allowed_elsewhere, recomputed from the switch records: for each wait
# of a thread that may run anywhere, spent on one run queue and shorter
# than the analysis's CPU history can hold for sure (1 ms), the time at
# least one other CPU ran its idle task.
idle = collections.defaultdict(list)
last = {}
for m in re.finditer(r'^@\S+\s+(\d+)\.(\d+) \[(\d+)\] switch: tid=\d+ .*? ==> tid=(\d+) ', dump, re.M):
    ts, cpu, tid = int(m[1]) * 10**9 + int(m[2]), int(m[3]), int(m[4])
    if cpu in last and last[cpu][1] == 0:
        idle[cpu].append((last[cpu][0], ts))
    last[cpu] = (ts, tid)
for cpu, (ts, tid) in last.items():
    if tid == 0:
        idle[cpu].append((ts, 1 << 62))


def idle_elsewhere(w):
    spans = sorted((max(a, w['start']), min(b, w['end'])) for cpu, v in idle.items() if cpu != w['pieces'][0]['cpu']
                   for a, b in v if a < w['end'] and b > w['start'])
    ns, at = 0, w['start']
    for a, b in spans:
        a = max(a, at)
        if b > a:
            ns += b - a
            at = b
    return ns


checked = [w for w in r['top'] if w['cpus_allowed'] is None and len(w['pieces']) == 1 and w['pieces'][0]['cpu'] >= 0
           and w['latency'] < 1000000]
wrong = [(w['tid'], w['start'], w['latency'], w['idle_allowed_elsewhere'], idle_elsewhere(w))
         for w in checked if w['idle_allowed_elsewhere'] != idle_elsewhere(w)]
ok(checked and not wrong,
   f"idle_allowed_elsewhere is the other CPUs' idle time during the wait, from the switch records "
   f"({len(checked)} waits, {sum(1 for w in checked if w['idle_allowed_elsewhere'])} with some)", wrong[:5])
finish()
