#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the spikes `ktrace watch` saved in DIR beside a workload of one
known cause (a throttled cgroup's spinner, a thread that spins in the
kernel): MIN or more of THREAD's waits were saved, each report names CAUSE
as the main cause (for a timer wait, from its wakeup on) and CULPRIT in its
verdict (its first line) or as the thread it queued behind, each .fxt
passes `ktrace dump --check`, and nothing half-written is left.  THREAD:
a tid, or @FILE to read it from (a pid file), or KEY=FILE for the KEY= line
of a workload's EXPECT file.  TAP output.
usage: check_spike_causes.py KTRACE DIR THREAD CAUSE CULPRIT MIN"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from tap import finish, ok, read_expect  # noqa: E402

ktrace, d, thread, cause, culprit, least = sys.argv[1:7]
if thread.startswith('@'):
    tid = int(open(thread[1:]).read().split()[0])
elif '=' in thread:
    key, path = thread.split('=', 1)
    tid = read_expect(path)[key]
else:
    tid = int(thread)
index = os.path.join(d, 'spikes.jsonl')
lines = open(index).read().splitlines() if os.path.exists(index) else []
spikes = [json.loads(line) for line in lines]
saved = [s for s in spikes if s['tid'] == tid and s['status'] == 'saved']
print(f"# {len(spikes)} spikes, {len(saved)} saved of thread {tid}: "
      + '; '.join(s.get('verdict', '?')[:160] for s in saved[:4]))
ok(len(saved) >= int(least), f'{least} or more waits of thread {tid} saved as spikes (got {len(saved)})')


def main_cause(s):
    """The spike's main cause; a timer wait's run-queue causes count from its wakeup
    (ktrace latency's rule), so a late timer does not hide what held the CPU then."""
    w = s.get('wait') or {}
    if w.get('kind') == 'timer' and s.get('main_cause') == 'timer_late':
        rest = {k: v for k, v in w['causes'].items() if k != 'timer_late'}
        return max(rest, key=rest.get) if any(rest.values()) else 'timer_late'
    return s.get('main_cause')


def names_culprit(s):
    """CULPRIT in the verdict, or the thread the wait queued behind most."""
    pieces = (s.get('wait') or {}).get('pieces') or []
    return culprit in (s.get('verdict') or '') or any(p.get('behind_comm') == culprit for p in pieces)


wrong = [s.get('verdict') for s in saved if main_cause(s) != cause or not names_culprit(s)]
ok(saved and not wrong, f'each names {cause} as the main cause (from the wakeup on, for a timer wait), '
   f'and {culprit!r}', wrong[:3])
bad = []
for s in saved:
    first = open(os.path.join(d, s['txt'])).readline().strip()
    r = subprocess.run([ktrace, 'dump', '--check', os.path.join(d, s['fxt'])], capture_output=True, text=True)
    if first != s['verdict'] or r.returncode:
        bad.append((s['fxt'], first[:80], r.stdout[-200:]))
ok(saved and not bad, "each report starts with its verdict, each window passes ktrace dump --check", bad[:3])
ok(not [n for n in os.listdir(d) if n.endswith('.tmp')] if os.path.isdir(d) else False,
   'no temporary file is left')
finish()
