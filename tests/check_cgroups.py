#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks a recording of tests/cgroup_workload.sh: the child born and gone
in /ktrace-cgroup-test is named with that cgroup's id and path (dump, the
JSON), and `ktrace latency` groups and selects its waits by that path;
the child of /ktrace-cgroup-gone, removed before the recording ended, is
named by that cgroup's id, "cgroup id N (removed)".  TAP lines (no plan).
usage: check_cgroups.py KTRACE TRACE.fxt"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from tap import finish, ok  # noqa: E402

KEPT, GONE = '/ktrace-cgroup-test', '/ktrace-cgroup-gone'


def ktrace(*args):
    p = subprocess.run([sys.argv[1], *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    trace = sys.argv[2]
    kept = int(open(trace + '.kept').read())
    gone = int(open(trace + '.gone').read())
    kept_id, gone_id = (int(x) for x in open(trace + '.ids').read().split())

    rc, dump, err = ktrace('dump', trace)
    ok(rc == 0, 'ktrace dump reads the trace', err)
    recs = {}
    for m in re.finditer(r'kernel_object: thread koid=(\d+) name="([^"]*)"(.*)', dump):
        recs.setdefault(int(m[1]), []).append((m[2], m[3]))
    want = f' cgroup_id={kept_id} cgroup="{KEPT}"'
    ok(any(a.endswith(want) for _, a in recs.get(kept, [])),
       f'dump: the child of {KEPT} ({kept}) is named with its cgroup:{want}', recs.get(kept))
    ok(any(a.endswith(f' cgroup_id={gone_id}') for _, a in recs.get(gone, [])),
       f'dump: the child of {GONE} ({gone}), removed before the end, keeps its cgroup id {gone_id}',
       recs.get(gone))

    rc, out, err = ktrace('latency', trace, '--by', 'cgroup', '--json', '--top', '0')
    groups = [g['cgroup'] for g in json.loads(out)['groups']] if rc == 0 else err
    ok(rc == 0 and KEPT in groups and f'cgroup id {gone_id} (removed)' in groups,
       f'latency --by cgroup: a row for {KEPT} and one for "cgroup id {gone_id} (removed)"', groups)

    rc, out, err = ktrace('latency', trace, '--cgroup', KEPT, '--json', '--top', '0')
    keys = [g['key'] for g in json.loads(out)['groups']] if rc == 0 else err
    ok(rc == 0 and keys == [kept], f'latency --cgroup {KEPT}: the waits of its child {kept} alone',
       keys)

    rc, out, err = ktrace('convert', trace, '-o', '-')
    names = [e['args'] for e in json.loads(out)['traceEvents']
             if e.get('ph') == 'M' and e.get('name') == 'thread_name' and e.get('tid') == kept] \
        if rc == 0 else err
    ok(rc == 0 and {'name': 'sleep', 'cgroup': KEPT, 'cgroup_id': kept_id} in names,
       f'the JSON: its thread_name metadata gives the cgroup and its id', names)
    finish()


main()
