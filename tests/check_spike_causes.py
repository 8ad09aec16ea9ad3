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
taken); and only the waits CULPRIT_TID held the CPU for half their
runnable time or more (from the wakeup on: not a timer's lateness nor
interrupts), by the window's switch records, are judged: the others are
the machine's own (a kernel thread that spun there), listed and not
judged.  MIN 0, with CULPRIT_TID: the kernel may take the CPU from the
culprit at once (full or lazy preemption), so no wait need be saved; those
it held are judged all the same.  TAP output.
usage: check_spike_causes.py KTRACE DIR THREAD CAUSE CULPRIT MIN [CULPRIT_TID]"""
import functools
import os
import re
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
none = int(least) == 0 and culprit_tid is not None
if not none:
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


@functools.lru_cache(maxsize=None)
def dump(fxt):
    """A window's `ktrace dump`, once however many checks read it."""
    return subprocess.run([ktrace, 'dump', os.path.join(d, fxt)], capture_output=True,
                          text=True).stdout


THROTTLE = re.compile(r'^@\S+\s+(\d+)\.(\d+) instant: \S+ "ktrace:sched":"throttle" cpu=(\d+)', re.M)


def began_throttled(s):
    """Whether the wait was queued on a CPU before that CPU's first throttle
    record in the window: a window opens with whatever throttling was on,
    which it cannot say, so such a wait cannot be put down to it
    (doc/watch.md).  Each CPU the wait was queued on counts."""
    out = dump(s['fxt'])
    first = {}
    for m in THROTTLE.finditer(out):
        first.setdefault(int(m[3]), int(m[1]) * 10**9 + int(m[2].ljust(9, '0')[:9]))
    w = s['wait']
    spans = [(p['cpu'], p['start']) for p in w.get('pieces') or []] or [(w['cpu'], w['start'])]
    return any(start < first.get(cpu, 1 << 63) for cpu, start in spans)


SWITCH = re.compile(r'^@\S+\s+(\d+)\.(\d+) \[(\d+)\] switch: tid=(\d+) .*?==> tid=(\d+)', re.M)


def runnable_ns(s):
    """The part of the wait the thread was runnable: not the timer's lateness, not interrupts."""
    c = s['wait']['causes']
    return s['wait']['latency'] - c.get('timer_late', 0) - c.get('interrupts', 0)


def held_ns(s, holder):
    """How long thread HOLDER ran, by the window's switch records, on the
    CPU the wait queued on, from the wakeup on (each piece of the wait)."""
    out = dump(s['fxt'])
    runs, since, first = [], {}, None
    for m in SWITCH.finditer(out):
        ts = int(m[1]) * 10**9 + int(m[2].ljust(9, '0')[:9])
        cpu, prev, nxt = int(m[3]), int(m[4]), int(m[5])
        first = ts if first is None else first
        if prev == holder:
            runs.append((cpu, since.pop(cpu, first), ts))
        if nxt == holder:
            since[cpu] = ts
    runs += [(cpu, t, 1 << 63) for cpu, t in since.items()]
    w = s['wait']
    woken = w['start'] + w['causes'].get('timer_late', 0)
    spans = [(p['cpu'], max(p['start'], woken), p['end']) for p in w.get('pieces') or []] or \
        [(w['cpu'], woken, w['end'])]
    return sum(max(0, min(e, re_) - max(b, rb)) for c, b, e in spans for rc, rb, re_ in runs if rc == c)


judged = saved
if culprit_tid is not None:
    held = {id(s): held_ns(s, culprit_tid) for s in saved}
    judged = [s for s in saved if 2 * held[id(s)] >= runnable_ns(s)]
    for s in saved:
        if s not in judged:
            print(f'# not judged, {culprit} held its CPU {held[id(s)] / 1e6:.3f} ms of it: {s.get("verdict")}')
if none and not judged:
    skip(f'each names {cause} as the main cause, and {culprit!r}',
         f'{culprit} held the CPU through none of the {len(saved)} saved waits: the kernel took it from {culprit}')
elif cause == 'throttled':
    judged = [s for s in saved if not began_throttled(s)]
    if len(judged) < len(saved):
        print(f'# {len(saved) - len(judged)} of {len(saved)} waits were queued on a CPU before its '
              f'first throttle record in the window: not judged')
    if saved and not judged:
        skip(f'each names {cause} as the main cause', 'every wait was queued on a CPU before its first throttle record in the window')
# Most of a wait not in its window's records (a loss, as where a window
# reaches back past the last re-arm; no history of the CPU; an untraced
# stretch; each with its reason): the window cannot say what held it, and
# says so.  Listed, not judged; a window that can explain none of them fails.
blind = [s for s in judged if 2 * s['wait']['causes'].get('unknown', 0) >= s['wait']['latency']]
for s in blind:
    print(f'# not judged, mostly unknown to the window ({s["wait"].get("unknown_reasons")}): {s.get("verdict")}')
judged = [s for s in judged if s not in blind]
if judged or (not none and (not saved or cause != 'throttled')):
    wrong = [s.get('verdict') for s in judged if main_cause(s) != cause or not names_culprit(s)]
    ok(judged and not wrong, f'each names {cause} as the main cause (from the wakeup on, for a timer wait), '
       f'and {culprit!r} ({len(judged)} judged)', wrong[:3])
bad = []
for s in saved:
    first = open(os.path.join(d, s['txt'])).readline().strip()
    rc, said = dump_check(ktrace, os.path.join(d, s['fxt']))
    if first != s['verdict'] or rc:
        bad.append((s['fxt'], first[:80], said[-200:]))
ok((saved or none) and not bad, "each report starts with its verdict, each window passes ktrace dump --check", bad[:3])
ok(not [n for n in os.listdir(d) if n.endswith('.tmp')] if os.path.isdir(d) else False,
   'no temporary file is left')
finish()
