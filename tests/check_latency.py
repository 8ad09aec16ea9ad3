#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks `ktrace latency` on a recording of tests/latency_workload.c: each
round's victim waits HOG_US behind the SCHED_FIFO hog, once woken by the
main thread and once preempted, and the report must say so.  TAP output.
usage: check_latency.py KTRACE TRACE.fxt EXPECT_FILE [MAX_FACTOR]"""
import json
import subprocess
import sys

ktrace, trace, expect_path = sys.argv[1:4]
max_factor = float(sys.argv[4]) if len(sys.argv) > 4 else 1.5
e = dict(line.strip().split('=') for line in open(expect_path) if '=' in line)
e = {k: int(v) for k, v in e.items()}
hog_ns = e['hog_us'] * 1000
n = failed = 0


def ok(cond, what, detail=None):
    global n, failed
    n += 1
    failed += not cond
    print(f"{'' if cond else 'not '}ok {n} - {what}")
    if not cond and detail is not None:
        print(f"#   got: {detail}")


out = subprocess.run([ktrace, 'latency', trace, '--json', '--pid', str(e['victim']),
                      '--top', str(2 * e['rounds'] + 10)], capture_output=True, text=True)
ok(out.returncode == 0, 'ktrace latency --json reads the recording', out.stderr.strip())
if out.returncode:
    print(f'1..{n}')
    sys.exit(1)
r = json.loads(out.stdout)
lo, hi = 0.9 * hog_ns, max_factor * hog_ns
victim = next((g for g in r['groups'] if g['key'] == e['victim']), None)


def long_waits(kind):
    return [w for w in r['top'] if w['kind'] == kind and w['latency'] >= hog_ns / 2]


def behind_hog(w):
    t = w['blame']['threads']
    return bool(t) and t[0]['tid'] == e['hog'] and t[0]['prio'] == 89 and t[0]['ns'] >= 0.8 * w['latency']


for kind in ('wakeup', 'preemption'):
    waits = long_waits(kind)
    lats = [w['latency'] for w in waits]
    ok(len(waits) == e['rounds'], f"{kind}: {e['rounds']} waits of about {e['hog_us']} us found",
       lats)
    ok(waits and all(lo <= x <= hi for x in lats),
       f"{kind}: each within {lo / 1e6:.2f}..{hi / 1e6:.2f} ms", lats)
    ok(waits and all(behind_hog(w) for w in waits),
       f"{kind}: the CPU was held by the hog (tid {e['hog']}, prio 89) for at least 80% of each",
       [w['blame'] for w in waits if not behind_hog(w)][:2])
    d = victim and victim[kind]
    ok(d and lo <= d['max'] <= hi and d['count'] >= e['rounds'],
       f"{kind}: the victim's row has max {d and d['max']} ns over {d and d['count']} waits", d)
wake = long_waits('wakeup')
ok(wake and all(w['waker'] == e['main'] and w['waker_context'] == 'task' for w in wake),
   f"wakeup: each was woken by the main thread {e['main']}, in task context",
   [(w.get('waker'), w['waker_context']) for w in wake])
ok(victim and victim['blocked']['S']['count'] >= e['rounds'],
   'the victim slept (S) between rounds', victim and victim['blocked'])
print(f'1..{n}')
print(f'# {n - failed} passed, {failed} failed')
sys.exit(1 if failed else 0)
