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
microseconds.  A thread
preempted on its way to sleep (sched_switch's preempt, with prev_state S)
stays on its run queue: ktrace's wait is a preemption from then, while
perf starts at the wakeup that finds it still queued, so ktrace's is the
longer one, by any amount.  A wait of
a thread switched in or out by the kernel without tracing it (an
untraced_switch record names it) cannot be measured and is counted by
ktrace as such; it is the only exception.  TAP output.
usage: check_perf_sched.py KTRACE TRACE.fxt TIMEHIST.txt COMM MIN_MS"""
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from tap import finish, ok  # noqa: E402

ALLOW_US, SLACK_US = 100, 200
ktrace, trace, timehist, comm, min_ms = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])

out = subprocess.run([ktrace, 'latency', trace, '--json', '--top', '100000'], capture_output=True, text=True)
ok(out.returncode == 0, 'ktrace latency --json reads the recording', out.stderr.strip())
if out.returncode:
    finish()
r = json.loads(out.stdout)
ok(r['waits'] < 100000, f"every wait is listed ({r['waits']} waits)")
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

# "   time [cpu] comm[tid/pid]  wait  sch-delay  run" (milliseconds); the time is the switch-out.
line_re = re.compile(r'^\s*(\d+\.\d+)\s+\[(\d+)\]\s+(.*)\[(\d+)(?:/\d+)?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$')
delays = []
for line in open(timehist):
    m = line_re.match(line)
    if m and m[3].strip() == comm and float(m[6]) >= min_ms:
        out_ts, run = float(m[1]), float(m[7])
        delays.append((int(m[4]), round((out_ts - run / 1e3) * 1e9), round(float(m[6]) * 1e6)))
ok(delays, f'perf sched timehist reports delays of {comm} of {min_ms} ms or more ({len(delays)})')

found, excused, missing, diffs = 0, 0, [], []
for tid, tin, d in delays:
    match = sorted((w for w in waits.get(tid, []) if abs(w['end'] - tin) <= SLACK_US * 1000),
                   key=lambda w: abs(w['end'] - tin))
    if match and -SLACK_US * 1000 <= match[0]['latency'] - d and \
            (match[0]['latency'] - d <= (ALLOW_US + SLACK_US) * 1000 or match[0]['kind'] == 'preemption'):
        found += 1
        diffs.append(match[0]['latency'] - d)
    elif any(f <= tin + SLACK_US * 1000 and l >= tin - d - SLACK_US * 1000
             for f, l in untraced.get(tid, [])):
        excused += 1
    else:
        missing.append((tid, tin, d, [(w['end'], w['latency']) for w in match]))
diffs.sort()
# Known gap: now and then (2 of some 10,000 delays in 2 of 5 runs) a long
# delay perf reports is neither a wait of ktrace's nor among the ones it
# counts as not measured; why is not known yet.  The bound catches a
# systematic loss (1.5 to 4% of the long delays, before waits across
# another thread's untraced switch were measured); the misses are shown.
unmeasured = sum(r['not_measured'].values())
ok(len(missing) <= 0.0005 * len(delays),
   f"each is a wait of ktrace latency on the same thread, ending at the same switch-in, as long "
   f"(ktrace - perf within -{SLACK_US}..{ALLOW_US + SLACK_US} us): {found} found, {excused} across "
   f"the thread's own untraced switch, {len(missing)} missing (at most 0.05%; ktrace counts "
   f"{unmeasured} it could not measure: {r['not_measured']})", missing[:5])
if missing:
    print(f"# measured by perf, missing from ktrace latency: {missing[:5]}")
if diffs:
    print(f"# ktrace - perf: min {diffs[0]} ns, median {diffs[len(diffs) // 2]} ns, max {diffs[-1]} ns")
# The known gap above also shows here, now and then, as a delay across the
# thread's own untraced switch that ktrace does not count: within the same
# 0.05%, with the missing ones.
gap = max(0, excused - r['not_measured']['overlaps_loss'])
ok(len(missing) + gap <= 0.0005 * len(delays),
   f"ktrace counts the {excused} it cannot measure ({r['not_measured']['overlaps_loss']} counted; "
   f"{gap} not counted, with the {len(missing)} missing at most 0.05% of {len(delays)})")

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
