#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks a recording of tests/preempt_workload.c: a SCHED_FIFO thread
(kt_rt) woken on a CPU where a fair thread (kt_spinner) busy-waits in the
kernel.  With a preemption model short of full (trace_info's "none" or
"voluntary"), its waits behind the spinner, runnable 250 us or more, are, from
their wakeup on, at least 80% not_preempted and blamed on kt_spinner (a
timer that fired late is timer_late before it, and interrupt handlers'
time is theirs); with full preemption, lazy
or PREEMPT_RT the kernel preempts the spinner: no wait of kt_rt holds a
quarter of a spin not_preempted.  (A kernel without full preemption may
still take the CPU from the spinner at a tick: Debian's 6.1 in a VM does
every 4 ms, within the 20 ms spin.)  TAP output.
usage: check_preempt.py KTRACE TRACE.fxt EXPECT_FILE"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from tap import finish, ok, read_expect, skip  # noqa: E402

ktrace, trace, expect_path = sys.argv[1:4]
e = read_expect(expect_path)
spin_ns = e['spin_us'] * 1000
out = subprocess.run([ktrace, 'latency', trace, '--json', '--pid', str(e['rt']), '--top', '100000'],
                     capture_output=True, text=True)
if not ok(out.returncode == 0, 'ktrace latency --json reads the recording', out.stderr.strip()):
    finish()
r = json.loads(out.stdout)
waits = r['top']
model = (r.get('preemption_model') or 'unknown').split(' ')[0]
print(f"# preemption model {r.get('preemption_model')}; {len(waits)} waits of kt_rt, the longest "
      f"{max((w['latency'] for w in waits), default=0) / 1e6:.3f} ms; spins of {spin_ns / 1e6:.3f} ms")
ok(waits and all(sum(w['causes'].values()) == w['latency'] for w in waits),
   "kt_rt waited, and every wait's causes sum to its latency")
def runnable(w):
    """The part of the wait a thread held the CPU: not the timer's lateness, not interrupts."""
    return w['latency'] - w['causes']['timer_late'] - w['causes']['interrupts']


if model in ('none', 'voluntary'):
    # Runnable a quarter of its 1 ms sleep or more, behind the spinner
    # (the tick may take the CPU from it within a millisecond or two).
    held = [w for w in waits if runnable(w) >= 250000 and w['cpu'] == 1 and
            w['pieces'] and w['pieces'][0].get('behind_tid') == e['spinner']]
    ok(held, f'without full preemption, kt_rt waits behind the spins ({len(held)} waits runnable 250 us or more '
       'behind kt_spinner)')
    bad = [(w['start'], w['latency'], w['causes'], w['pieces'][:1]) for w in held
           if w['causes']['not_preempted'] * 5 < runnable(w) * 4]
    ok(held and not bad, 'each is, from its wakeup, at least 80% not_preempted', bad[:3])
    text = subprocess.run([ktrace, 'latency', trace, '--pid', str(e['rt']), '--top', '100'],
                          capture_output=True, text=True).stdout
    ok(f"preemption model {r['preemption_model']}" in text and 'behind kt_spinner' in text,
       'the text names the preemption model and the spinner', text[-1500:])
elif model in ('full', 'lazy', 'rt'):
    long = [(w['start'], w['latency'], w['causes']) for w in waits
            if w['causes']['not_preempted'] >= spin_ns // 4]
    ok(not long, f'with {model} preemption the spinner is preempted: no wait of kt_rt holds a quarter spin '
       'not_preempted', long[:3])
else:
    skip('the waits against the preemption model', f"the recording does not say the model ({r.get('preemption_model')})")
finish()
