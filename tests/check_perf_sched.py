#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks ktrace latency against perf sched timehist on one run both
recorded (tests/suites/perf_sched.sh): every scheduling delay perf reports
for a thread of COMM, at least MIN_MS long, is a wait of ktrace latency on
the same thread, ending at the same switch-in, of the same length.

Allowance: perf's delay starts at sched_wakeup (the task queued on its
CPU), ktrace's at sched_waking, before the CPU is chosen, so ktrace's may
be longer by that step (a few microseconds; up to ALLOW_US).  The two
tracers stamp one event at different moments, which a virtual CPU
descheduled between their probes (this machine's) stretches to tens of
microseconds, once to 737: so the switch-in perf script shows for the
delay is found among ktrace's switches (same CPU and threads, within
SAME_MS; of two, the one whose wait is as long), ktrace's wait must end
at its stamp of it, and the lengths are compared net of the two stamps'
distance; so for the wakeup that starts both (perf's sched_waking found
among ktrace's wakeups of the thread on that CPU), else within SLACK_US.  Where ktrace has no such switch, a wait ending within
SLACK_US of perf's switch-in and as long as perf's delay is its match.
A thread preempted on its
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

ALLOW_US, SLACK_US, SAME_MS = 100, 200, 20
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
# ktrace's switches by CPU and threads, and its switch-ins from idle.
k_sw = collections.defaultdict(list)
from_idle = collections.defaultdict(list)
for m in re.finditer(r'^@\S+\s+(\d+)\.(\d+) \[(\d+)\] switch: tid=(\d+) .*? ==> tid=(\d+) ', dump, re.M):
    ts, cpu, prev, nxt = int(m[1]) * 10**9 + int(m[2]), int(m[3]), int(m[4]), int(m[5])
    k_sw[(cpu, prev, nxt)].append(ts)
    if prev == 0:
        from_idle[(cpu, nxt)].append(ts)

# ktrace's wakeups by CPU and thread, and perf's by thread: (time in ns, CPU).
k_wake = collections.defaultdict(list)
for m in re.finditer(r'^@\S+\s+(\d+)\.(\d+) \[(\d+)\] wakeup: tid=(\d+) ', dump, re.M):
    k_wake[(int(m[3]), int(m[4]))].append(int(m[1]) * 10**9 + int(m[2]))
p_wake = collections.defaultdict(list)
for m in re.finditer(r'\[(\d+)\]\s+(\d+)\.(\d+):\s+sched:sched_waking: .*?pid=(\d+) ', open(script).read()):
    p_wake[int(m[4])].append(((int(m[2]) * 10**6 + int(m[3])) * 1000, int(m[1])))

# perf's switches per CPU: (time in us, prev pid, next pid), to see which
# switch-in timehist took for a thread's.
perf_sw = collections.defaultdict(list)
for m in re.finditer(r'\[(\d+)\]\s+(\d+)\.(\d+):\s+sched:sched_switch: .*prev_pid=(-?\d+) .* ==> .*next_pid=(-?\d+) ',
                     open(script).read()):
    perf_sw[int(m[1])].append((int(m[2]) * 10**6 + int(m[3]), int(m[4]), int(m[5])))
for v in perf_sw.values():
    v.sort()


def perf_switch_in(cpu, out_us):
    """perf's last switch on @cpu before @out_us: (time in us, prev, next)."""
    v = perf_sw.get(cpu, [])
    i = bisect.bisect_left(v, (out_us, -1 << 62, 0))
    return v[i - 1] if i else None


def same_switches(cpu, prev, nxt, ts):
    """ktrace's stamps of switches like perf's at @ts (same CPU and threads), nearest first."""
    v = k_sw.get((cpu, prev, nxt), [])
    lo, hi = bisect.bisect_left(v, ts - SAME_MS * 10**6), bisect.bisect_right(v, ts + SAME_MS * 10**6)
    return sorted(v[lo:hi], key=lambda k: abs(k - ts))


def wake_apart(w, tid, ready):
    """ktrace's stamp minus perf's of the wakeup that starts wait @w, if perf's
    delay, from @ready, starts at it too; else 0."""
    pw = min(p_wake.get(tid, []), key=lambda p: abs(p[0] - ready), default=None)
    if pw is None or abs(pw[0] - ready) > 5000 or w['start'] not in k_wake.get((pw[1], tid), []):
        return 0
    return w['start'] - pw[0] if abs(w['start'] - pw[0]) <= SAME_MS * 10**6 else 0


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


found, after_idle, excused, missing, diffs, apart = 0, 0, 0, [], [], []
for tid, tin, d, cpu, out_us in delays:
    sw = perf_switch_in(cpu, out_us)
    same = same_switches(cpu, sw[1], tid, sw[0] * 1000) if sw and sw[2] == tid else []
    if same:
        # ktrace's wait ends at its stamp of that switch, perf's delay at
        # perf's; of two such switches (the thread preempted and back), the
        # one whose wait is as long.
        near = [w for k in same for w in waits.get(tid, []) if w['end'] == k]
        match = [w for w in near if as_long(w, d, w['end'] - sw[0] * 1000 -
                                            wake_apart(w, tid, sw[0] * 1000 - d))]
        same = match[0]['end'] if match else None
    else:
        near = sorted((w for w in waits.get(tid, []) if abs(w['end'] - tin) <= SLACK),
                      key=lambda w: abs(w['end'] - tin))
        match = [w for w in near if as_long(w, d)]
    # perf saw the CPU go idle, not the thread come on: ktrace's wait ends
    # at the thread's switch-in from idle, after perf's and before its switch-out.
    idle = [] if match or not sw or sw[2] != 0 else \
        [w for w in waits.get(tid, []) if tin - SLACK <= w['end'] <= out_us * 1000 + SLACK and
         w['end'] in from_idle.get((cpu, tid), []) and as_long(w, d, max(0, w['end'] - tin))]
    if match:
        found += 1
        diffs.append(match[0]['latency'] - d)
        if same:
            apart.append(abs(same - sw[0] * 1000))
    elif idle:
        after_idle += 1
    elif any(f <= tin + SLACK and l >= tin - d - SLACK for f, l in untraced.get(tid, []) + lost):
        excused += 1
    else:
        missing.append((tid, tin, d, [(w['end'], w['latency']) for w in near]))
diffs.sort()
unmeasured = sum(r['not_measured'].values())
what = (f"each is a wait of ktrace latency on the same thread, ending at the same switch-in, as long "
        f"(ktrace - perf within -{SLACK_US}..{ALLOW_US + SLACK_US} us, net of the two tracers' stamps "
        f"of the same switch-in and wakeup; after an idle stretch perf does not see, longer by it)")
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
if apart:
    print(f"# the two tracers' stamps of one switch-in: {sum(a > SLACK for a in apart)} more than "
          f"{SLACK_US} us apart, at most {max(apart) // 1000} us")

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
