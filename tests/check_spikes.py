#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks what `ktrace watch` wrote of a run of tests/spike_workload.c: the
bursts of the SCHED_FIFO hog are each one saved spike of kt_victim, whose
report's first line names higher_priority behind kt_hog; every line of
spikes.jsonl parses; each saved spike has its .fxt (a whole timeline, with
the trigger's wait in it) and .txt, and nothing half-written is left.
TAP output.
usage: check_spikes.py KTRACE DIR EXPECT_FILE SAVED [OVER_RATE]
SAVED: how many of the bursts must be saved; OVER_RATE: how many counted
over --max-rate (default 0)."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from spikes import dump_check, read_index  # noqa: E402
from tap import finish, ok, read_expect  # noqa: E402

ktrace, d, expect_path = sys.argv[1:4]
want_saved = int(sys.argv[4])
want_over = int(sys.argv[5]) if len(sys.argv) > 5 else 0
e = read_expect(expect_path)
lines, spikes, bad = read_index(d)
ok(lines and not bad, f'spikes.jsonl: {len(lines)} lines, each one JSON object', bad[:2])
# The hog's bursts: waits of kt_victim of about hog_us, behind kt_hog.
mine = [s for s in spikes if s['tid'] == e['victim']]
saved = [s for s in mine if s['status'] == 'saved']
over = [s for s in mine if s['status'] == 'over_rate']
print(f"# {len(spikes)} spikes, {len(mine)} of kt_victim: {len(saved)} saved, {len(over)} over the rate; "
      + ', '.join(f"{s['latency'] / 1e6:.1f} ms {s.get('main_cause')}" for s in mine))
ok(len(saved) == want_saved and len(over) == want_over and len(mine) == e['bursts'],
   f"each of the {e['bursts']} bursts is one spike of kt_victim: {want_saved} saved, {want_over} over --max-rate "
   f"(got {len(saved)} and {len(over)} of {len(mine)})")
wrong = [(s['latency'], s.get('verdict')) for s in saved
         if s.get('main_cause') != 'higher_priority' or 'behind kt_hog' not in (s.get('verdict') or '') or
         s['latency'] < e['hog_us'] * 1000 / 2]
# The victim waits out the hog's spin from its wakeup: under emulation, where
# the host may stop a virtual CPU for milliseconds, the wait can be longer.
ok(saved and not wrong, 'each saved spike: half the hog burst or more, main cause higher_priority, behind kt_hog',
   wrong[:3])
files = []
for s in saved:
    txt, fxt = os.path.join(d, s['txt']), os.path.join(d, s['fxt'])
    first = open(txt).readline().strip() if os.path.exists(txt) else None
    if first != s['verdict']:
        files.append((s['txt'], first, s['verdict']))
    rc, said = dump_check(ktrace, fxt)
    if rc or 'trigger' not in subprocess.run([ktrace, 'dump', fxt], capture_output=True,
                                             text=True).stdout:
        files.append((s['fxt'], said[-300:]))
ok(saved and not files, "each saved spike's .txt starts with its verdict; its .fxt is a whole timeline with the trigger",
   files[:3])
names = sorted(os.listdir(d))
ok(not [n for n in names if n.endswith('.tmp')], 'no temporary file is left', names[:10])
extra = {n for n in names if n.endswith(('.fxt', '.txt'))} - {s[k] for s in spikes if s['status'] == 'saved'
                                                           for k in ('fxt', 'txt')}
ok(not extra, 'every spike file is in the index', sorted(extra)[:5])
r = subprocess.run([ktrace, 'spikes', d, '--json'], capture_output=True, text=True)
try:
    summary = json.loads(r.stdout)
except ValueError:
    summary = None
ok(r.returncode == 0 and summary and summary['spikes'] == len(spikes) and
   any(t['tid'] == e['victim'] and t['spikes'] == len(mine) for t in summary['by_thread']),
   'ktrace spikes --json counts them by thread', r.stdout[-500:] + r.stderr)
r = subprocess.run([ktrace, 'spikes', d], capture_output=True, text=True)
ok(r.returncode == 0 and 'kt_victim' in r.stdout and 'the worst:' in r.stdout, 'ktrace spikes prints the table',
   r.stdout[-500:])
finish()
