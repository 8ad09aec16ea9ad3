#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cyclictest's own measurement against ktrace's timer waits of the same run.

usage: check_cyclictest.py CYCLICTEST_OUTPUT LATENCY_JSON [LABEL]

CYCLICTEST_OUTPUT is the stdout of `cyclictest -t1 -v -h N ...` (one
"thread:cycle:latency" line per cycle, then the histogram and its summary);
LATENCY_JSON is `ktrace latency --comm cyclictest --json --top N` of the
recording.  cyclictest measures from its timer's due time until it reads
the clock again in user space; ktrace from the same due time until the
switch-in.  The difference is the user-space part (the return from
clock_nanosleep and the clock read), which this reports per cycle.  Its
max and its histogram's p99 must match ktrace's within 10% or 30 us,
whichever is larger; a mismatch names the cycle.  Prints TAP lines
(numbered from 1; the caller renumbers them).
"""
import json
import re
import sys

TOLERANCE_US = 30.0
TOLERANCE_FRACTION = 0.10


def parse_cyclictest(path):
    """Per-cycle latencies (us), interval (us), max, histogram p99."""
    cycles, hist, overflows, interval, cmax = {}, {}, 0, None, None
    for line in open(path):
        m = re.match(r'^\s*0:\s*(\d+):\s*(\d+)\s*$', line)
        if m:
            cycles[int(m.group(1))] = int(m.group(2))
            continue
        m = re.match(r'^(\d{6}) (\d+)\s*$', line)
        if m:
            hist[int(m.group(1))] = int(m.group(2))
            continue
        m = re.match(r'^Thread 0 Interval: (\d+)', line)
        if m:
            interval = int(m.group(1))
        m = re.match(r'^# Max Latencies: (\d+)', line)
        if m:
            cmax = int(m.group(1))
        m = re.match(r'^# Histogram Overflows: (\d+)', line)
        if m:
            overflows = int(m.group(1))
    total = sum(hist.values()) + overflows
    p99, seen = None, 0
    for us in sorted(hist):
        seen += hist[us]
        if seen >= 0.99 * total:
            p99 = us
            break
    if p99 is None and hist:
        p99 = max(hist) + 1  # in the overflows
    return cycles, interval, cmax, p99, total


def close(a_us, b_us):
    return abs(a_us - b_us) <= max(TOLERANCE_US, TOLERANCE_FRACTION * max(a_us, b_us))


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    label = sys.argv[3] if len(sys.argv) > 3 else 'cyclictest'
    n = failed = 0

    def ok(cond, what, diags=()):
        nonlocal n, failed
        n += 1
        failed += not cond
        print(('ok' if cond else 'not ok') + ' %d - %s: %s' % (n, label, what))
        for d in diags:
            print('# ' + d)

    cycles, interval, cmax, cp99, total = parse_cyclictest(sys.argv[1])
    r = json.load(open(sys.argv[2]))
    ok(bool(cycles) and cmax is not None and interval,
       'cyclictest printed %d cycles, an interval and its max' % len(cycles))
    # The measuring thread: cyclictest's thread (not its process's leader) with most timer waits.
    groups = [g for g in r['groups'] if g['timer']['count']]
    threads = [g for g in groups if g['key'] != g.get('pid')] or groups
    if not threads or not cycles or not interval:
        ok(False, 'ktrace found cyclictest\'s timer waits')
        print('1..%d' % n)
        return 1
    g = max(threads, key=lambda g: g['timer']['count'])
    tid = g['key']
    ok(g['timer']['count'] > 0.9 * len(cycles),
       'ktrace measured %d timer waits of thread %d for %d cycles' %
       (g['timer']['count'], tid, len(cycles)))

    # Pair each timer wait with its cycle by its due time, in intervals from
    # the first.  After a cycle later than the interval cyclictest skips the
    # due times already past, as its loop does (next += interval while
    # now > next), so its cycle k is due that many intervals later.
    waits = sorted((w for w in r['top'] if w['kind'] == 'timer' and w['tid'] == tid),
                   key=lambda w: w['due'])
    slots = {}
    if waits:
        first = waits[0]['due']
        for w in waits:
            slots[round((w['due'] - first) / (interval * 1000.0))] = w
    by_cycle, slot = {}, 0
    for c in sorted(cycles):
        if slot in slots:
            by_cycle[c] = slots[slot]
        slot += cycles[c] // interval + 1
    diffs = sorted(cycles[c] - by_cycle[c]['latency'] / 1000.0
                   for c in cycles if c in by_cycle)
    bad_parts = [w for w in waits
                 if sum(w['parts'].values()) != w['latency'] or w['ran'] - w['due'] != w['latency']]
    ok(not bad_parts and waits, 'the parts of each of %d timer waits sum to its latency' % len(waits),
       ['%r' % w for w in bad_parts[:3]])

    # A cycle whose wakeup or switch-in the kernel did not trace (ktrace
    # writes an untraced_switch record there) has no timer wait: it is left
    # out of the comparison, said, and fails the test past 1% of cycles.
    unmeasured = sorted(c for c in cycles if c not in by_cycle)
    ok(len(unmeasured) <= 0.01 * len(cycles),
       '%d of %d cycles have no timer wait in ktrace (at most 1%%)' % (len(unmeasured), len(cycles)),
       ['cycle %d: cyclictest %d us, no timer wait (not traced, or no sleep)' % (c, cycles[c])
        for c in sorted(unmeasured, key=lambda c: -cycles[c])[:3]])
    kmax = g['timer']['max'] / 1000.0
    worst = max(by_cycle, key=lambda c: cycles[c]) if by_cycle else 0
    if unmeasured and cycles[max(unmeasured, key=lambda c: cycles[c])] > cycles.get(worst, 0):
        cmax = cycles.get(worst, 0)
        print('# %s: the max below is over the %d cycles ktrace measured' % (label, len(by_cycle)))
    diag = ['cycle %d: cyclictest %d us, ktrace %s' %
            (worst, cycles[worst],
             '%.1f us (%s)' % (by_cycle[worst]['latency'] / 1000.0,
                               ', '.join('%s %.1f' % (k, v / 1000.0)
                                         for k, v in by_cycle[worst]['parts'].items()))
             if worst in by_cycle else 'no timer wait')]
    ok(close(cmax, kmax), 'max: cyclictest %d us, ktrace %.1f us' % (cmax, kmax), diag)
    kp99 = g['timer']['p99'] / 1000.0
    ok(cp99 is not None and close(cp99, kp99),
       'p99: cyclictest\'s histogram %s us, ktrace %.1f us' % (cp99, kp99))
    if diffs:
        med, p90 = diffs[len(diffs) // 2], diffs[int(len(diffs) * 0.9)]
        print('# %s: user-space part (cyclictest - ktrace, per cycle, %d cycles): '
              'median %.1f us, p90 %.1f us, min %.1f us, max %.1f us' %
              (label, len(diffs), med, p90, diffs[0], diffs[-1]))
    if worst in by_cycle:
        w = by_cycle[worst]
        print('# %s: worst cycle %d: largest part %s, timer CPU at the due time: %s' %
              (label, worst, w['largest_part'], json.dumps(w.get('at_due'))))
    print('1..%d' % n)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
