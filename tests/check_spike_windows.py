#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the windows `ktrace watch` saved in DIR, whatever made the spikes:
spikes.jsonl parses; every saved .fxt passes `ktrace dump --check`; no wait
inside its window is put down to a CPU without history (a window may start
while a thread runs: its CPU has no record until that thread's switch-out);
and no window hides a stretch that was not recorded: a window that reaches back
past the last re-arm starts at the last window's stop, and marks the
stretch up to the re-arm with one loss record per CPU over the index's
"unrecorded" range (an index with "gap_before_ns" above 0, a window that
started after the stretch instead, fails).  With MERGED, the spikes of the
workload's victim are N (BURSTS of EXPECT_FILE) in all: saved ones plus
those merged into them, and some were merged.  With late, the windows were
to start after the hog was switched in (--before shorter than the
workload's step from the hog's switch-in to the victim's wakeup): in some
of the victim's, the hog's CPU's first switch takes the hog off, and none
reaches back past a re-arm.
TAP output.
usage: check_spike_windows.py KTRACE DIR [EXPECT_FILE merged|late]"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from spikes import dump_check, read_index  # noqa: E402
from tap import finish, ok, read_expect, skip  # noqa: E402

ktrace, d = sys.argv[1:3]
expect = read_expect(sys.argv[3]) if len(sys.argv) > 4 else None
late = len(sys.argv) > 4 and sys.argv[4] == 'late'
lines, spikes, bad = read_index(d)
ok(lines and not bad, f'spikes.jsonl: {len(lines)} lines, each one JSON object', bad[:2])
saved = [s for s in spikes if s['status'] == 'saved']
failed = []
for s in saved:
    rc, said = dump_check(ktrace, os.path.join(d, s['fxt']))
    if rc:
        failed.append((s['fxt'], said[-600:]))
ok(saved and not failed, f"each of the {len(saved)} saved windows passes ktrace dump --check", failed[:3])

# A window may start while a thread runs (a hog switched in before it):
# its CPU has no record until that thread's switch-out, though nothing
# was lost.  A wait inside the window's span is never put down to a CPU
# whose history is unknown ("no CPU history"); only a loss record may
# leave part of it unexplained.
START = re.compile(r'"ktrace:meta":"trace_info" .*start_ts=(\d+)')
nohist = []
for s in saved:
    w = s.get('wait') or {}
    rest = (w.get('unknown_reasons') or {}).get('no_history', 0)
    if not rest:
        continue
    out = subprocess.run([ktrace, 'dump', os.path.join(d, s['fxt'])], capture_output=True, text=True).stdout
    m = START.search(out)
    if m and w.get('start', 0) >= int(m.group(1)):
        nohist.append((s['fxt'], s.get('verdict'), f"no_history={rest} ns, wait from {w['start']}, window from {m.group(1)}"))
ok(saved and not nohist, f"no wait inside its window is put down to a CPU without history "
   f"({len(saved)} windows)", nohist[:3])

LOSS = re.compile(r'"ktrace:meta":"dropped" cpu=(\d+) count=0 first_ts=(\d+) last_ts=(\d+)')
unmarked = [s['fxt'] for s in saved if s.get('gap_before_ns', 0) > 0]
gapped = [s for s in saved if s.get('unrecorded')]
wrong = []
for s in gapped:
    u = s['unrecorded']
    out = subprocess.run([ktrace, 'dump', os.path.join(d, s['fxt'])], capture_output=True, text=True).stdout
    losses = [tuple(map(int, m.groups())) for m in LOSS.finditer(out)]
    cpus = {c for c, first, last in losses if (first, last) == (u['first_ts'], u['last_ts'])}
    m = START.search(out)
    start = int(m.group(1)) if m else None
    if len(cpus) != u['loss_records'] or not cpus or start != u['first_ts'] or \
       s['unrecorded_ns'] != u['last_ts'] - u['first_ts']:
        wrong.append((s['fxt'], u, sorted(cpus), start))
if unmarked:
    ok(False, 'no window starts after an unrecorded stretch it does not mark', unmarked[:3])
elif not gapped and late:
    # A window that reaches back past a re-arm would start before the hog.
    SWITCH = re.compile(r'^@\S+\s+\d+\.\d+ \[(\d+)\] switch: tid=(\d+) ', re.M)
    mine = [s for s in saved if s['tid'] == expect['victim']]
    early = []
    for s in mine:
        out = subprocess.run([ktrace, 'dump', os.path.join(d, s['fxt'])], capture_output=True, text=True).stdout
        first = next((int(t) for c, t in SWITCH.findall(out) if int(c) == s['cpu']), None)
        if first != expect['hog']:
            early.append((s['fxt'], first))
    ok(len(early) < len(mine), f"the victim's windows start while the hog runs: the first switch on its CPU "
       f"takes the hog off in {len(mine) - len(early)} of {len(mine)}", early[:3])
elif not gapped:
    skip('each stretch not recorded between two windows is a loss record on every CPU of the next',
         'no window reached back past a re-arm in this run')
else:
    print(f"# {len(gapped)} windows reach back past the last re-arm: unrecorded "
          + ', '.join(f"{s['unrecorded_ns'] / 1e6:.1f} ms" for s in gapped[:8]))
    ok(not wrong, f'each stretch not recorded between two windows is a loss record on every CPU of the next '
       f'({len(gapped)} windows), where the window starts', wrong[:3])

if expect and not late:
    mine = [s for s in saved if s['tid'] == expect['victim']]
    merged = sum(s.get('merged', 0) for s in mine)
    print(f"# kt_victim: {len(mine)} saved, {merged} merged into them, of {expect['bursts']} bursts")
    ok(mine and merged > 0 and len(mine) + merged == expect['bursts'] and
       all(s.get('main_cause') == 'higher_priority' for s in mine),
       f"bursts inside one window: merged into its spike by main cause, none saved twice "
       f"({len(mine)} saved + {merged} merged = {expect['bursts']} bursts)")
    txt = [s['txt'] for s in mine if s.get('merged') and
           open(os.path.join(d, s['txt'])).read().count('merged into this one') != s['merged']]
    ok(not txt, "each report lists the spikes merged into it", txt[:3])
    r = subprocess.run([ktrace, 'spikes', '--json', d], capture_output=True, text=True)
    try:
        summary = json.loads(r.stdout)
    except ValueError:
        summary = {}
    ok(summary.get('merged') == sum(s.get('merged', 0) for s in spikes),
       'ktrace spikes --json counts the merged spikes', r.stdout[:300] + r.stderr[-300:])
finish()
