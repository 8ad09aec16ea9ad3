#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks a recording of tests/throttle_workload.sh: with a backend that
records throttling, the spinner's waits are at least 80% `throttled` and
name its cgroup and limit (by cgroup v1's files where the workload used
v1: TRACE.cgroup says), and no CPU idle while its cgroup was throttled
counts as idle_allowed_elsewhere or in the work-conservation report: it
could not have run anywhere then; with one that does not, the report says
so and claims no throttled time.  TAP lines (no plan).
usage: check_throttle.py KTRACE TRACE.fxt PIDFILE recorded|not-recorded"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from tap import finish, ok  # noqa: E402


def diag(text):
    for line in str(text).rstrip().splitlines():
        print(f'# {line}')


def main():
    ktrace, trace, pidfile, want = sys.argv[1:5]
    pid = int(open(pidfile).read().split()[0])
    v1 = os.path.exists(trace + '.cgroup') and open(trace + '.cgroup').read().startswith('v1')
    limit = 'cpu.cfs_quota_us 10000, cpu.cfs_period_us 100000' if v1 else 'cpu.max 10000/100000'
    p = subprocess.run([ktrace, 'latency', trace, '--pid', str(pid), '--json', '--top', '100000'],
                       capture_output=True, text=True)
    if not ok(p.returncode == 0, f'ktrace latency --pid {pid} --json reads the trace'):
        diag(p.stderr)
        finish()
    r = json.loads(p.stdout)
    causes = {k: sum(g['causes'][k] for g in r['groups']) for k in r['causes']}
    total = sum(causes.values())
    share = causes['throttled'] / total if total else 0
    waits = r['top']
    top = waits[:5]
    diag(f'spinner {pid}: {r["waits"]} waits, {total / 1e6:.1f} ms, causes ' +
           ', '.join(f'{k} {v / 1e6:.1f} ms' for k, v in causes.items() if v))
    diag(f'throttling: {json.dumps(r["throttling"])}')
    if want == 'recorded':
        ok(r['throttling']['recorded'], 'the trace says throttling is recorded')
        ok(r['waits'] >= 3 and share >= 0.8,
             f'the spinner waited {r["waits"]} times, {share:.1%} of it throttled (>= 80%)')
        # On a busy machine a worst wait may be mostly unknown (the kernel
        # switched without tracing it): each one with throttled time names
        # the cgroup, and most of them have some.
        named = [w.get('throttled_cgroup') for w in top if w['causes']['throttled']]
        ok(top and 2 * len(named) >= len(top) and all(c and c['path'] == '/ktrace-throttle-test' and
                                                   c['cpu_max'] == '10000/100000' for c in named),
             f'its worst waits with throttled time ({len(named)} of {len(top)}) name the cgroup '
             f'/ktrace-throttle-test ({limit})',
             [(w['latency'], w['causes'], w.get('throttled_cgroup')) for w in top])
        cg = [c for c in r['throttling']['cgroups'] if c['path'] == '/ktrace-throttle-test']
        ok(len(cg) == 1 and cg[0]['spans'] >= 3, 'the report counts its throttled spans')
        # Idle elsewhere counts only the part of a wait its cgroup was not
        # throttled in (before, idle CPUs showed through every throttled span).
        free = {w['start']: w['latency'] - w['causes']['throttled'] for w in waits}
        over = [(w['start'], w['latency'], w['causes']['throttled'], w['idle_allowed_elsewhere'])
                for w in waits if w['idle_allowed_elsewhere'] > free[w['start']]]
        ok(not over, f"no wait's idle_allowed_elsewhere counts its throttled time ({len(waits)} waits, "
           f"{sum(1 for w in waits if w['idle_allowed_elsewhere'])} with some)", over[:3])
        wc = r['work_conservation']
        longer = sum(free[w['start']] for w in waits if w['latency'] > wc['threshold_ns'])
        idle = sum(c['idle_ns'] for c in wc['cpus'])
        ok(idle <= longer, f"the work-conservation report counts no throttled time as wasted "
           f"({idle / 1e6:.3f} ms idle, {longer / 1e6:.3f} ms of its long waits unthrottled)")
    else:
        ok(not r['throttling']['recorded'] and r['throttling']['note'],
             'the trace says throttling is not recorded, and why')
        ok(causes['throttled'] == 0 and all(w.get('throttled_cgroup') is None for w in top),
             'and claims no throttled time')
    p = subprocess.run([ktrace, 'latency', trace, '--pid', str(pid), '--top', '5'],
                       capture_output=True, text=True)
    text = f'throttled: cgroup /ktrace-throttle-test ({limit})' if want == 'recorded' \
        else 'throttling not recorded on this kernel/backend'
    if not ok(text in p.stdout, f'the text says "{text}"'):
        diag(p.stdout[-2000:])
    finish()


if __name__ == '__main__':
    main()
