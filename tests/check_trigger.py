#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks a recording of tests/latency_workload.c made with
`ktrace record --stop-on-latency THRESHOLD --after AFTER --comm victim`:
one trigger, on the victim, at one of its waits behind the hog, which
`ktrace latency` finds too; nothing recorded after the --after window;
every thread that ran is named.  TAP output.
usage: check_trigger.py KTRACE TRACE.fxt EXPECT_FILE THRESHOLD_NS AFTER_NS"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from tap import finish, ok, read_expect  # noqa: E402

ktrace, trace, expect_path = sys.argv[1:4]
threshold, after = int(sys.argv[4]), int(sys.argv[5])
e = read_expect(expect_path)
hog_ns = e['hog_us'] * 1000


def ts_of(line):
    return int(round(float(line.split()[1]) * 1e9))


dump = subprocess.run([ktrace, 'dump', '--strict', trace], capture_output=True, text=True)
ok(dump.returncode == 0, 'the snapshot is valid FXT (dump --strict)', dump.stderr.strip()[:300])
lines = dump.stdout.splitlines()
trig = [l for l in lines if '"ktrace:latency":"trigger"' in l]
ok(len(trig) == 1, 'one trigger record', trig)
if len(trig) != 1:
    finish()
t = trig[0]
tid = int(re.search(r'instant: \d+/(\d+) ', t).group(1))
lat = int(re.search(r' latency=(\d+)', t).group(1))
tts = ts_of(t)
ok(tid == e['victim'], f"it is on the victim ({tid})", t)
ok(threshold <= lat, f"its latency, {lat} ns, is past the threshold ({threshold} ns)", t)

rep = subprocess.run([ktrace, 'latency', trace, '--json', '--pid', str(e['victim']), '--top', '20'],
                     capture_output=True, text=True)
r = json.loads(rep.stdout) if rep.returncode == 0 else {'top': []}
match = [w for w in r['top'] if w['kind'] == 'wakeup' and w['end'] == tts]
sched = [ts_of(l) for l in lines if re.search(r'\] (switch|wakeup):', l)]
wake_ts = int(re.search(r' wake_ts=(\d+)', t).group(1))
if sched and wake_ts < min(sched):
    # On a busy machine the wait can outlast the ring's window (which keeps
    # the newest records): its wakeup is gone, and nothing can measure it.
    ok(True, f'# SKIP the wait began {(min(sched) - wake_ts) / 1e6:.1f} ms before the ring\'s window')
else:
    ok(len(match) == 1 and abs(match[0]['latency'] - lat) <= 2048,
       'ktrace latency finds the wait that ended at the trigger, within 2 us of its latency',
       [(w['kind'], w['end'], w['latency']) for w in r['top']][:5] + [tts])

ok(sched and max(sched) <= tts + after,
   f"nothing recorded past the trigger's --after window ({(max(sched) - tts) / 1e6 if sched else None} ms after it)")

named = {int(m.group(1)) for m in (re.search(r'kernel_object: thread koid=(\d+) ', l) for l in lines) if m}
ran = set()
for l in lines:
    m = re.search(r'switch: tid=(\d+) .* ==> tid=(\d+)', l)
    if m:
        ran.update(int(x) for x in m.groups())
ran.discard(0)
ok(ran and ran <= named, f"every one of the {len(ran)} threads that ran is named", sorted(ran - named)[:10])
finish()
