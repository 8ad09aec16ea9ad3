#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks that a recording names where threads blocked, from `ktrace dump`:
every switch-in that ends a block in S or D that began at least MIN_NS
earlier (the thread's previous switch-out) says where the thread blocked
("(blocked in FUNCTION)"); with --none, no switch-in does.  Prints one
line of counts.
usage: check_blocked_in.py KTRACE TRACE MIN_NS [--none]"""
import re
import subprocess
import sys

ktrace, trace, min_ns = sys.argv[1], sys.argv[2], int(sys.argv[3])
none = '--none' in sys.argv[4:]
dump = subprocess.run([ktrace, 'dump', trace], capture_output=True, text=True)
if dump.returncode:
    sys.exit('ktrace dump %s failed: %s' % (trace, dump.stderr))

line_re = re.compile(r'^@\S+\s+(\d+)\.(\d{9}) \[\d+\] switch: (?:\d+/)?(?:tid=)?(\d+).*? \((\w)\)'
                     r'(?: in \S+)? ==> (?:\d+/)?(?:tid=)?(\d+)(?: prio=\d+)?( \(blocked in ([^)]*)\))?')
off = {}
long_blocks = named_long = named = unnamed_long = 0
bad = []
for line in dump.stdout.splitlines():
    m = line_re.match(line)
    if not m:
        continue
    ts = int(m.group(1)) * 1000000000 + int(m.group(2))
    out_tid, state, in_tid, fn = int(m.group(3)), m.group(4), int(m.group(5)), m.group(7)
    if fn:
        named += 1
    if in_tid in off:
        since, blocked = off.pop(in_tid)
        if blocked and ts - since >= min_ns:
            long_blocks += 1
            if fn and fn != '?':
                named_long += 1
            else:
                unnamed_long += 1
                bad.append(line)
    if out_tid:
        off[out_tid] = (ts, state in 'SD')
print('%d blocks of %d ns or more, %d named; %d switch-ins named in all'
      % (long_blocks, min_ns, named_long, named))
if none:
    sys.exit(1 if named else 0)
for line in bad[:10]:
    print('# not named: ' + line)
sys.exit(1 if unnamed_long or not long_blocks else 0)
