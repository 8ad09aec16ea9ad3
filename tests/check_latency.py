#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks `ktrace latency` on a recording of tests/latency_workload.c: each
round's victim waits HOG_US behind the SCHED_FIFO hog, once woken by the
main thread and once preempted, and the report must say so.  TAP output.
usage: check_latency.py KTRACE TRACE.fxt EXPECT_FILE [MAX_FACTOR]"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from tap import finish, ok, read_expect, skip  # noqa: E402

ktrace, trace, expect_path = sys.argv[1:4]
max_factor = float(sys.argv[4]) if len(sys.argv) > 4 else 1.5
e = read_expect(expect_path)
hog_ns = e['hog_us'] * 1000


# Every wait of the victim: on a busy machine it has many besides the
# rounds' (woken for the preemption round behind other threads, preempted
# by them), and a cut at the longest few left out waits behind the hog.
out = subprocess.run([ktrace, 'latency', trace, '--json', '--pid', str(e['victim']),
                      '--top', '100000'], capture_output=True, text=True)
ok(out.returncode == 0, 'ktrace latency --json reads the recording', out.stderr.strip())
if out.returncode:
    finish()
r = json.loads(out.stdout)
lo, hi = 0.9 * hog_ns, max_factor * hog_ns
victim = next((g for g in r['groups'] if g['key'] == e['victim']), None)


def hog_share(w):
    return sum(t['ns'] for t in w['blame']['threads'] if t['tid'] == e['hog'])


def accounted(w):
    b = w['blame']
    return sum(t['ns'] for t in b['threads']) + b['other_threads_ns'] + b['idle_ns']


# The waits the hog caused: it held the CPU for most of its spin.  Other
# threads may add to a wait (a busy machine), never take from the hog's.
def hog_waits(kind):
    return [w for w in r['top'] if w['kind'] == kind and hog_share(w) >= 0.9 * hog_ns]


# A wait that ends in a switch the kernel did not trace (an untraced_switch
# record), or across a loss, is not measured, and the report counts it:
# such a round is excused (seen on a busy 6.18 host: the victim switched
# in, untraced, after the hog).
unmeasured = sum(r['not_measured'].values())
for kind in ('wakeup', 'preemption'):
    waits = hog_waits(kind)
    parts = sorted(hog_share(w) for w in waits)
    ok(e['rounds'] - unmeasured <= len(waits) <= e['rounds'],
       f"{kind}: {len(waits)} of {e['rounds']} waits behind the hog (tid {e['hog']}) found"
       + (f" (the report counts {unmeasured} of the victim's waits as not measured)"
          if unmeasured else ""),
       [(w['latency'], hog_share(w)) for w in r['top'] if w['kind'] == kind][:12])
    # The hog's part: other threads lengthen a wait on a busy machine (the
    # blame, checked to add up to each wait below, says by how much).
    ok(waits and lo <= parts[len(parts) // 2] <= hi,
       f"{kind}: the median of the hog's part of them is within {lo / 1e6:.2f}..{hi / 1e6:.2f} ms",
       parts)
    # The waits nothing but the hog (and interrupts) lengthened: their whole.
    alone = sorted(w['latency'] for w in waits if hog_share(w) >= 0.95 * w['latency'])
    if alone:
        ok(lo <= alone[len(alone) // 2] <= hi,
           f"{kind}: the median of the {len(alone)} spent behind the hog alone is within "
           f"{lo / 1e6:.2f}..{hi / 1e6:.2f} ms", alone)
    else:
        skip(f"{kind}: the median of those spent behind the hog alone",
             "other threads lengthened every one (a busy machine)")
    ok(waits and all(t['prio'] == 89 for w in waits for t in w['blame']['threads'] if t['tid'] == e['hog']),
       f"{kind}: the hog is named with its priority, 89 (SCHED_FIFO 10)")
    ok(waits and all(abs(accounted(w) - w['latency']) <= 0.01 * w['latency'] for w in waits),
       f"{kind}: the blame accounts for each wait to 1%",
       [(w['latency'], accounted(w)) for w in waits][:3])
    d = victim and victim[kind]
    ok(d and d['max'] >= lo and d['count'] >= e['rounds'] - unmeasured,
       f"{kind}: the victim's row has max {d and d['max']} ns over {d and d['count']} waits", d)
# Causes: every wait's sum to its latency to the nanosecond; the victim
# is pinned to the hog's CPU, so its waits behind the hog are mostly
# higher_priority (the hog is SCHED_FIFO), spent on that one queue.
ok(all(sum(w['causes'].values()) == w['latency'] for w in r['top']),
   "every listed wait's causes sum to its latency, to the nanosecond",
   [(w['latency'], w['causes']) for w in r['top'] if sum(w['causes'].values()) != w['latency']][:3])
hogged = hog_waits('wakeup') + hog_waits('preemption')
# Interrupt handlers (recorded by default) that ran during the spin are
# their own cause; they were the hog's time before.
ok(hogged and all(w['causes']['higher_priority'] + w['causes']['interrupts'] >= 0.9 * hog_ns
                  for w in hogged),
   'the waits behind the hog are higher_priority (or interrupts) for at least 90% of its spin',
   [w['causes'] for w in hogged][:3])
ok(hogged and all(w['migrations_recorded'] and all(p['cpu'] == w['cpu'] for p in w['pieces'])
                  for w in hogged),
   'migrations are recorded, and the pinned victim waited only on the CPU it ran on',
   [(w['migrations_recorded'], w['pieces']) for w in hogged][:2])
ok(hogged and all(w['idle_allowed_elsewhere'] == 0 and w['cpus_allowed'] == 2 for w in hogged),
   'the victim is pinned to CPU 1: no idle CPU elsewhere is blamed (cpus_allowed 0x2)',
   [(w['idle_allowed_elsewhere'], w['cpus_allowed']) for w in hogged][:3])
wake = hog_waits('wakeup')
ok(wake and all(w['waker'] == e['main'] and w['waker_context'] == 'task' for w in wake),
   f"wakeup: each was woken by the main thread {e['main']}, in task context",
   [(w.get('waker'), w['waker_context']) for w in wake])
ok(victim and victim['blocked']['S']['count'] >= e['rounds'],
   'the victim slept (S) between rounds', victim and victim['blocked'])
finish()
