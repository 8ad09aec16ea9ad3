#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the spikes `ktrace watch` saved in DIR beside a workload of one
known cause (a throttled cgroup's spinner, a thread that spins in the
kernel): MIN or more of THREAD's waits were saved, each report names CAUSE
as the main cause (for a timer wait, from its wakeup on) and CULPRIT in its
verdict (its first line) or as the thread it queued behind, each .fxt
passes `ktrace dump --check`, and nothing half-written is left.  THREAD:
a tid, or @FILE to read it from (a pid file), or KEY=FILE for the KEY= line
of a workload's EXPECT file.  CULPRIT_TID (the same forms), where given,
is the culprit's thread: a wait queued behind it names the culprit even
where the window holds no name of it (a thread gone before the window was
taken).  TAP output.
usage: check_spike_causes.py KTRACE DIR THREAD CAUSE CULPRIT MIN [CULPRIT_TID]"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from spikes import dump_check, read_index  # noqa: E402
from tap import finish, ok, read_expect, skip  # noqa: E402

ktrace, d, thread, cause, culprit, least = sys.argv[1:7]


def thread_of(spec):
    """A tid, @FILE (a pid file) or KEY=FILE (an EXPECT file's KEY= line)."""
    if spec.startswith('@'):
        return int(open(spec[1:]).read().split()[0])
    if '=' in spec:
        key, path = spec.split('=', 1)
        return read_expect(path)[key]
    return int(spec)


tid = thread_of(thread)
culprit_tid = thread_of(sys.argv[7]) if len(sys.argv) > 7 else None
lines, spikes, bad = read_index(d)
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
    """CULPRIT in the verdict, or the thread the wait queued behind most
    (by name, or by CULPRIT_TID)."""
    pieces = (s.get('wait') or {}).get('pieces') or []
    return culprit in (s.get('verdict') or '') or \
        any(p.get('behind_comm') == culprit for p in pieces) or \
        (culprit_tid is not None and any(p.get('behind_tid') == culprit_tid for p in pieces))


def began_throttled(s):
    """Whether the wait began before its window's first throttle record: a
    window opens with whatever throttling was on, which it cannot say, so
    such a wait cannot be put down to it (doc/watch.md)."""
    out = subprocess.run([ktrace, 'dump', os.path.join(d, s['fxt'])], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        if '"ktrace:sched":"throttle"' in line:
            sec, frac = line.split()[1].split('.')
            return s['wait']['start'] < int(sec) * 10**9 + int(frac.ljust(9, '0')[:9])
    return True


judged = saved
if cause == 'throttled':
    judged = [s for s in saved if not began_throttled(s)]
    if len(judged) < len(saved):
        print(f'# {len(saved) - len(judged)} of {len(saved)} waits began before their window '
              f'held a throttle record: not judged')
wrong = [s.get('verdict') for s in judged if main_cause(s) != cause or not names_culprit(s)]
if saved and not judged:
    skip(f'each names {cause} as the main cause', 'every wait began before its window held a throttle record')
else:
    ok(judged and not wrong, f'each names {cause} as the main cause (from the wakeup on, for a timer wait), '
       f'and {culprit!r} ({len(judged)} judged)', wrong[:3])
bad = []
for s in saved:
    first = open(os.path.join(d, s['txt'])).readline().strip()
    rc, said = dump_check(ktrace, os.path.join(d, s['fxt']))
    if first != s['verdict'] or rc:
        bad.append((s['fxt'], first[:80], said[-200:]))
ok(saved and not bad, "each report starts with its verdict, each window passes ktrace dump --check", bad[:3])
ok(not [n for n in os.listdir(d) if n.endswith('.tmp')] if os.path.isdir(d) else False,
   'no temporary file is left')
finish()
