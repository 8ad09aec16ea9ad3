#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the edges of a recording made while ping-pong pairs (threads
TIDS, each pair pinned to a CPU) ran through its start and past its end:
trace_info gives the span, no switch or wakeup lies outside it, and every
kind of record starts and stops at its edges on every CPU.  A pair passes
the CPU back and forth, each thread waking the other and then blocking, so
between a CPU's last switch and the end (or the start and its first
switch) the pair makes at most one wakeup; a recorder whose switches stop
or start apart from its wakeups leaves many there.  Counted in records,
not in time: it holds on a busy machine.  The edges are printed as
comments, each relative to the span's end or start.
TAP output.
usage: check_edges.py KTRACE TRACE.fxt TID..."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from tap import finish, ok  # noqa: E402

ktrace, trace = sys.argv[1:3]
pair = {int(t) for t in sys.argv[3:]}

dump = subprocess.run([ktrace, 'dump', trace], capture_output=True, text=True)
ok(dump.returncode == 0, 'ktrace dump reads the trace', dump.stderr.strip()[:300])
info = re.search(r'"trace_info" .*start_ts=(\d+) stop_ts=(\d+)', dump.stdout)
ok(info is not None, "trace_info gives the span (start_ts, stop_ts)")
start, stop = (int(info[1]), int(info[2])) if info else (0, 1 << 64)

rec = re.compile(r'^@\S+\s+(\d+)\.(\d{9}) \[(\d+)\] (switch|wakeup): tid=(\d+)')
cpus = {}
outside = []
for line in dump.stdout.splitlines():
    m = rec.match(line)
    if not m:
        continue
    ts, cpu, kind, tid = int(m[1]) * 10**9 + int(m[2]), int(m[3]), m[4], int(m[5])
    if ts < start or ts > stop:
        outside.append(line)
    c = cpus.setdefault(cpu, {'before': 0, 'after': 0, 'pair': 0})
    c.setdefault(kind + '_first', ts)
    c[kind + '_last'] = ts
    if kind == 'switch':
        c['after'] = 0
    elif tid in pair:
        c['pair'] += 1
        c['after'] += 1
        if 'switch_first' not in c:
            c['before'] += 1
ok(not outside, 'no switch or wakeup outside the span', outside[:3])

ran = {cpu: c for cpu, c in cpus.items() if c['pair'] and 'switch_first' in c}
ok(ran, "the pairs' wakeups are in the trace", cpus)
for cpu, c in sorted(ran.items()):
    print(f"# CPU {cpu}: first switch {(c['switch_first'] - start) / 1e3:.1f} us and first"
          f" wakeup {(c['wakeup_first'] - start) / 1e3:.1f} us after the start; last switch"
          f" {(stop - c['switch_last']) / 1e3:.1f} us and last wakeup"
          f" {(stop - c['wakeup_last']) / 1e3:.1f} us before the stop; {c['pair']} wakeups"
          " of the pair")
late = {cpu: c['after'] for cpu, c in ran.items() if c['after'] > 1}
ok(not late, "on every CPU at most one of the pair's wakeups after the last switch",
   f'wakeups after the last switch, by CPU: {late}')
early = {cpu: c['before'] for cpu, c in ran.items() if c['before'] > 1}
ok(not early, "on every CPU at most one of the pair's wakeups before the first switch",
   f'wakeups before the first switch, by CPU: {early}')
finish()
