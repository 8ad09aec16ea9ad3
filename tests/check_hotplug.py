#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A recording made while CPUs went offline and online, checked.

usage: check_hotplug.py KTRACE TRACE.fxt ROUNDS CPU[,CPU...]

From `ktrace dump` and the JSON of `ktrace convert`:
  1. each CPU in the list has ROUNDS cpu_offline and ROUNDS cpu_online
     records, alternating, offline first;
  2. no context switch is recorded on a CPU while it is offline (the kernel
     traces nothing there; a switch inside would mean records on the wrong
     CPU or the records at the wrong time);
  3. records written on a CPU after it came back are read: it has switches
     after its last cpu_online;
  4. the JSON draws no thread running on a CPU while it is offline, and
     ends the thread running there when it went down as "cpu offline".
Exits 1 when a claim fails.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(__file__), 'lib'))
from tap import ok, finish  # noqa: E402

STATE = re.compile(r'^@\S+\s+(\d+)\.(\d{9}) instant: 0/0 "ktrace:meta":"cpu_(offline|online)" cpu=(\d+)')
SWITCH = re.compile(r'^@\S+\s+(\d+)\.(\d{9}) \[(\d+)\] switch: .* ==> tid=(\d+)')
JSON_CPU_PID = 1000000000


def ns(sec, frac):
    return int(sec) * 1000000000 + int(frac)


def main():
    ktrace, trace, rounds, cpus = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        [int(c) for c in sys.argv[4].split(',')]
    dump = subprocess.run([ktrace, 'dump', trace], capture_output=True, text=True)
    ok(dump.returncode == 0, f'{os.path.basename(trace)}: ktrace dump reads it', dump.stderr.strip())
    events = defaultdict(list)      # cpu -> [(ts, 'offline'|'online')]
    switches = defaultdict(list)    # cpu -> [ts]
    incoming = defaultdict(list)    # cpu -> [(ts, tid switched in)]
    for line in dump.stdout.splitlines():
        m = STATE.match(line)
        if m:
            events[int(m.group(4))].append((ns(m.group(1), m.group(2)), m.group(3)))
            continue
        m = SWITCH.match(line)
        if m:
            switches[int(m.group(3))].append(ns(m.group(1), m.group(2)))
            incoming[int(m.group(3))].append((ns(m.group(1), m.group(2)), int(m.group(4))))

    offline = {}                    # cpu -> [(from, to)]
    for c in cpus:
        ev = sorted(events[c])
        kinds = [k for _, k in ev]
        ok(kinds == ['offline', 'online'] * rounds,
           f'CPU {c}: {rounds} times cpu_offline then cpu_online', ' '.join(kinds) or 'none')
        offline[c] = [(a[0], b[0]) for a, b in zip(ev[0::2], ev[1::2])
                      if a[1] == 'offline' and b[1] == 'online']
        inside = [t for t in switches[c] for a, b in offline[c] if a < t < b]
        ok(not inside, f'CPU {c}: no context switch while it is offline',
           f'{len(inside)} switches, the first at {inside[0] if inside else 0}')
        last_on = ev[-1][0] if ev else None
        after = [t for t in switches[c] if last_on is not None and t > last_on]
        ok(len(after) > 0, f'CPU {c}: switches recorded after it came back online ({len(after)})')

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'trace.json')
        conv = subprocess.run([ktrace, 'convert', trace, '-o', out], capture_output=True, text=True)
        ok(conv.returncode == 0, 'ktrace convert writes its JSON', conv.stderr.strip())
        events_json = json.load(open(out))['traceEvents'] if conv.returncode == 0 else []
    bad, ended = [], 0
    for e in events_json:
        if e.get('ph') != 'X' or e.get('pid') != JSON_CPU_PID:
            continue
        c = e.get('tid', 0) - JSON_CPU_PID
        if c not in offline:
            continue
        start = round(e['ts'] * 1000)
        end = start + round(e.get('dur', 0) * 1000)
        # Microseconds with three decimals: a nanosecond of rounding either side.
        for a, b in offline[c]:
            if start < b - 1 and end > a + 1:
                bad.append((c, e.get('name'), start, end, a, b))
        if e.get('args', {}).get('end_state') == 'cpu offline':
            ended += 1
    ok(not bad, 'the JSON draws no thread on a CPU while it is offline',
       bad[0] if bad else None)
    # A CPU goes down running the thread switched in there last (unless idle).
    want = sum(1 for c in cpus for a, _ in offline[c]
               if [tid for t, tid in incoming[c] if t < a][-1:] not in ([], [0]))
    ok(ended == want, f'the JSON ends the thread running on a CPU that goes down, {want} times',
       ended)
    finish()


if __name__ == '__main__':
    main()
