#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the interrupt handlers a default recording holds (the recorders'
own records, on by default), made under a timer storm: each CPU's
interrupt track is named and holds handlers named as the ftrace path names
them, `ktrace latency` says interrupts were recorded and blames some wait
on them; and, in a second recording of the same kind made with ftrace's
irq events too (which then stay instants on the same tracks), each
recorded handler run matches one that ftrace saw on the same CPU, of the
same kind and number, to within the clocks' error, and the other way round.
TAP lines (no plan).
usage: check_irq.py KTRACE DEFAULT.fxt WITH_FTRACE.fxt [SLACK_US]"""
import bisect
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from tap import finish, ok  # noqa: E402

IRQ_PID = 1 << 30
# Both records of one run come from probes on the same tracepoint, one
# after the other; a softirq's can be parted by a hardirq (interrupts on).
SLACK_NS = 50000
NAME = re.compile(r'^(irq \d+( .+)?|softirq [A-Z_]+|softirq \d+|local_timer \d+)$')
LINE = re.compile(r'^@\S+\s+(\d+)\.(\d{9}) (duration complete|instant): (\d+)/(\d+) '
                  r'"([^"]*)":"([^"]*)"(.*)$')


def dump(ktrace, trace):
    return subprocess.run([ktrace, 'dump', trace], capture_output=True, text=True,
                          check=True).stdout.splitlines()


def arg(rest, name):
    m = re.search(r'\b' + name + r'=(\d+)', rest)
    return int(m.group(1)) if m else None


def irq_events(lines):
    """Recorded runs (cpu, kind, number, start, end) and ftrace's instants."""
    runs, instants = [], []
    for line in lines:
        m = LINE.match(line)
        if not m or int(m.group(4)) != IRQ_PID:
            continue
        ts = int(m.group(1)) * 1000000000 + int(m.group(2))
        cpu = int(m.group(5)) - IRQ_PID - 1
        cat, name, rest = m.group(6), m.group(7), m.group(8)
        if m.group(3) == 'duration complete' and cat == 'ktrace:irq':
            kind = name.split()[0]
            num = arg(rest, {'irq': 'irq', 'softirq': 'vec', 'local_timer': 'vector'}.get(kind, 'x'))
            runs.append((cpu, kind, num, ts, ts + arg(rest, 'dur'), name))
        elif m.group(3) == 'instant':
            instants.append((cpu, name, rest, ts))
    return runs, instants


def ftrace_runs(instants):
    """ftrace's entries and exits paired per CPU, hardirqs and softirqs apart."""
    kinds = {'irq_handler': ('irq', 'irq', True), 'softirq': ('softirq', 'vec', False),
             'local_timer': ('local_timer', 'vector', True)}
    open_, runs = {}, []
    for cpu, name, rest, ts in instants:
        base, _, end = name.rpartition('_')
        if base not in kinds or end not in ('entry', 'exit'):
            continue
        kind, field, hard = kinds[base]
        key = (cpu, hard)
        if end == 'entry':
            open_[key] = (kind, arg(rest, field), ts)
        elif key in open_:
            k, num, start = open_.pop(key)
            if k == kind and num == arg(rest, field):
                runs.append((cpu, kind, num, start, ts))
    return runs


def matched(a, b):
    """How many runs of @a have one in @b: same CPU, kind, number, both ends close."""
    index = defaultdict(list)
    for r in b:
        index[r[:3]].append(r[3:5])
    for v in index.values():
        v.sort()
    n = 0
    for r in a:
        v = index[r[:3]]
        i = bisect.bisect_left(v, (r[3] - SLACK_NS,))
        while i < len(v) and v[i][0] <= r[3] + SLACK_NS:
            if abs(v[i][1] - r[4]) <= SLACK_NS:
                n += 1
                break
            i += 1
    return n


def main():
    global SLACK_NS
    ktrace, default, both = sys.argv[1:4]
    if len(sys.argv) > 4:
        SLACK_NS = int(sys.argv[4]) * 1000
    lines = dump(ktrace, default)
    runs, _ = irq_events(lines)
    tracks = set(re.findall(r'kernel_object: thread koid=(\d+) name="CPU \d+ irq" '
                            r'process=koid:' + str(IRQ_PID), '\n'.join(lines)))
    cpus = {r[0] for r in runs}
    ok(runs and all(str(IRQ_PID + 1 + c) in tracks for c in cpus) and
       any(f'kernel_object: process koid={IRQ_PID} name="interrupts"' in x for x in lines),
       f'a default recording has interrupt handlers ({len(runs)}) on the named interrupt '
       f'tracks of CPUs {sorted(cpus)}')
    bad = [r[5] for r in runs if not NAME.match(r[5])]
    ok(not bad, 'each is named as the ftrace path names it (irq N NAME, softirq VEC, '
       'local_timer N)', bad[:5])
    kinds = {r[1] for r in runs}
    ok({'softirq'} <= kinds and ({'local_timer', 'irq'} & kinds),
       f'hardirqs and softirqs are there: {sorted(kinds)}')
    p = subprocess.run([ktrace, 'latency', default, '--json', '--top', '100000'],
                       capture_output=True, text=True)
    r = json.loads(p.stdout) if p.returncode == 0 else {}
    blamed = [w for w in r.get('top', []) if w['causes']['interrupts'] > 0]
    ok(r.get('irq_recorded') and blamed,
       f'ktrace latency: interrupts recorded, {len(blamed)} of {len(r.get("top", []))} '
       'waits have an interrupts cause', p.stderr)
    p = subprocess.run([ktrace, 'latency', default, '--top', '3'], capture_output=True, text=True)
    ok(p.returncode == 0 and 'interrupts not recorded' not in p.stdout,
       'ktrace latency --top 3 does not say "interrupts not recorded"')

    runs, instants = irq_events(dump(ktrace, both))
    theirs = ftrace_runs(instants)
    mine = [r[:5] for r in runs]
    # Only where both recorded: ftrace's instance starts and stops apart.
    if theirs:
        lo, hi = min(r[3] for r in theirs), max(r[4] for r in theirs)
        mine = [r for r in mine if lo <= r[3] and r[4] <= hi]
    a, b = matched(mine, theirs), matched(theirs, mine)
    ok(mine and theirs and a >= 0.95 * len(mine) and b >= 0.95 * len(theirs),
       f'with --ftrace irq:* too: {a} of {len(mine)} recorded runs match one of ftrace\'s, '
       f'{b} of its {len(theirs)} match a recorded one (same CPU, kind and number, '
       f'ends within {SLACK_NS // 1000} us)')
    busy = defaultdict(int)
    for r in mine:
        busy[(r[0], 'mine')] += r[4] - r[3]
    for r in theirs:
        busy[(r[0], 'ftrace')] += r[4] - r[3]
    print('# per CPU, recorded / ftrace handler time (ns): ' +
          ', '.join(f'CPU {c}: {busy[(c, "mine")]} / {busy[(c, "ftrace")]}'
                    for c in sorted({k[0] for k in busy})))
    finish()


if __name__ == '__main__':
    main()
