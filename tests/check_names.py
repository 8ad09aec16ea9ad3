#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the thread names of a recording made while tests/churn_workload.c ran
(hundreds of short-lived processes a second): every thread that ran is
named wherever a switch shows it, in `ktrace dump` and in the JSON; the
Nth child of the churn is named "cN", its own name, when it exits, and a
pid that served several children names each by its own (their exits come
in the order they were born); and the children the archive holds are
enough for the check to mean something.
TAP output.
usage: check_names.py KTRACE TRACE.fxt PID_FILE [MIN_CHILDREN]"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from tap import finish, ok  # noqa: E402

ktrace, trace, pid_file = sys.argv[1:4]
min_children = int(sys.argv[4]) if len(sys.argv) > 4 else 10
born = [int(l) for l in open(pid_file) if l.strip()]
children = set(born)
names_of = {}
for n, pid in enumerate(born):
    names_of.setdefault(pid, []).append(f'c{n}')

dump = subprocess.run([ktrace, 'dump', trace], capture_output=True, text=True)
ok(dump.returncode == 0, 'ktrace dump reads the trace', dump.stderr.strip()[:300])
switch = re.compile(r'switch: tid=(\d+) (\S+) \((\w)\).* ==> tid=(\d+) .*  \[(.*) ==> (.*)\]$')
unnamed, wrong, ran, exits, nexits, exit_times = [], [], set(), {}, 0, {}
for line in dump.stdout.splitlines():
    m = switch.search(line)
    if not m:
        continue
    out_tid, state, out_name, in_tid, in_name = int(m[1]), m[3], m[5], int(m[4]), m[6]
    for tid, name in ((out_tid, out_name), (in_tid, in_name)):
        if tid:
            ran.add(tid)
            if name.startswith('<unnamed') or name == '?':
                unnamed.append(tid)
    if out_tid in children and state in 'ZX':
        exit_times.setdefault(out_tid, []).append((float(line.split()[1]), out_name))
        own = names_of[out_tid]
        # This child, or one born later with the same pid.
        at = own.index(out_name) if out_name in own else -1
        if at < exits.get(out_tid, -1) + 1:
            wrong.append((out_tid, out_name, own[:5]))
        exits[out_tid] = at
        nexits += 1
ok(not unnamed, f'every one of the {len(ran)} threads that ran is named at each of its switches',
   sorted(set(unnamed))[:20])
reused = sum(1 for p in exits if len(names_of[p]) > 1)
ok(nexits >= min_children,
   f'{nexits} of the {len(born)} children exit inside the trace (at least {min_children}), {reused} of them with a reused pid')
ok(not wrong, 'each is named by its own name, cN, as it exits', wrong[:20])

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, 'trace.json')
    conv = subprocess.run([ktrace, 'convert', trace, '-o', out], capture_output=True, text=True)
    ok(conv.returncode == 0, 'ktrace convert writes the JSON', conv.stderr.strip()[:300])
    events = json.load(open(out))['traceEvents'] if conv.returncode == 0 else []
names = {}
for e in events:
    if e.get('ph') == 'M' and e.get('name') == 'thread_name':
        names.setdefault(e['tid'], []).append(e['args']['name'])
bad = [t for t in ran if t < (1 << 30) and (t not in names or any(n.startswith('<unnamed') for n in names[t]))]
ok(not bad, 'in the JSON too, every thread that ran has a thread_name, none of them a marker', bad[:20])
slices = [e for e in events if e.get('ph') == 'X' and e.get('cat') == 'sched' and 'tid' in e.get('args', {})]


def child_name_at(tid, end_us):
    """The name the child that had @tid exited with, if one of them ran until end_us."""
    later = [name for t, name in exit_times.get(tid, []) if t * 1e6 >= end_us - 1]
    return later[0] if later else None


bad = []
for e in slices:
    tid = e['args']['tid']
    # Only a child's own run, up to its exit: a pid reused later is another thread.
    name = child_name_at(tid, e['ts'] + e.get('dur', 0)) if tid in exit_times else None
    if name and e['name'] not in ('churn', name):
        bad.append((tid, e['name'], name))
ok(not bad, "the children's CPU slices carry the name each had then (churn before it named itself)", bad[:20])
# The archive names a thread or process again only where its record
# differs from the one the archive last has of it: the recorders name a
# thread at fork, exec and exit, and the archive the threads alive at the end.
last, repeats, kobjs = {}, [], 0
for line in dump.stdout.splitlines():
    m = re.search(r'kernel_object: (thread|process) koid=(\d+) (.*)$', line)
    if not m:
        continue
    kobjs += 1
    if last.get((m[1], m[2])) == m[3]:
        repeats.append(line.strip())
    last[(m[1], m[2])] = m[3]
ok(not repeats, f"no thread or process record repeats the one before it of the same thread or process "
   f"({kobjs} records, {len(last)} threads and processes)", repeats[:3])
finish()
