#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks ktrace latency on gen_trace rt-causes, whose waits are known (see
tests/gen_trace.c): a real-time thread's timer wait split into timer_late
(before its wakeup) and not_preempted (a fair thread kept its CPU), with
idle_allowed_elsewhere counted only while it was runnable; a round-robin
turn of two FIFO 80 threads (same_class); a FIFO 90 thread behind a FIFO
80 one (not_preempted); the preemption model in the text and the JSON.
TAP lines.  usage: check_rt_causes.py KTRACE TRACE.fxt"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from tap import finish, ok  # noqa: E402

T0 = 1000000000000
NAMES = ['higher_priority', 'not_preempted', 'same_class', 'interrupts', 'throttled',
         'timer_late', 'cpu_idle', 'unknown']


def causes(**parts):
    return {name: parts.get(name, 0) for name in NAMES}


def main():
    ktrace, trace = sys.argv[1:3]
    p = subprocess.run([ktrace, 'latency', trace, '--json', '--top', '10'], capture_output=True, text=True)
    if not ok(p.returncode == 0, 'ktrace latency --json reads the trace', p.stderr):
        finish()
    r = json.loads(p.stdout)
    waits = {w['tid']: w for w in r['top']}
    ok(r['preemption_model'] == 'voluntary (dynamic)', "the JSON gives trace_info's preemption model",
       r.get('preemption_model'))
    rt = waits[500]
    ok(rt['kind'] == 'timer' and rt['start'] == T0 + 1000 and rt['latency'] == 3000 and
       rt['causes'] == causes(timer_late=510, not_preempted=2490),
       'a FIFO 80 timer wait: timer_late until its wakeup, then not_preempted behind the fair spinner',
       (rt['kind'], rt['start'], rt['latency'], rt['causes']))
    ok(rt['pieces'][0]['behind_tid'] == 501 and rt['pieces'][0]['behind_ns'] == 2490,
       'its queue names the spinner, for the time it was runnable', rt['pieces'])
    ok(rt['idle_allowed_elsewhere'] == 2490 and rt['idle_allowed_cpu'] == 0,
       'idle_allowed_elsewhere counts CPU 0 only while it was runnable',
       (rt['idle_allowed_elsewhere'], rt['idle_allowed_cpu']))
    ok(waits[502]['causes'] == causes(same_class=500), 'a FIFO 80 thread behind another FIFO 80: same_class',
       waits[502]['causes'])
    ok(waits[503]['causes'] == causes(not_preempted=300), 'a FIFO 90 thread behind a FIFO 80 one: not_preempted',
       waits[503]['causes'])
    ok(waits[501]['causes'] == causes(higher_priority=1500), 'the fair spinner behind them: higher_priority',
       waits[501]['causes'])
    ok(all(sum(w['causes'].values()) == w['latency'] for w in r['top']), "every wait's causes sum to its latency")
    p = subprocess.run([ktrace, 'latency', trace, '--top', '1'], capture_output=True, text=True)
    want = 'causes: not_preempted 2.5 us (preemption model voluntary (dynamic)), timer_late 510 ns'
    ok(want in p.stdout and 'queued on CPU 1 2.5 us behind spinner 501 (nice 0) 2.5 us' in p.stdout,
       f'the text: "{want}", queued from the wakeup', p.stdout[-1500:])
    finish()


if __name__ == '__main__':
    main()
