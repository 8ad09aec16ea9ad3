#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ftrace as the witness of a recording made with --ftrace 'sched:sched_switch'.

usage: check_witness.py KTRACE TRACE.fxt

Two claims, from `ktrace dump`:
  1. ktrace lost nothing ftrace saw: every sched_switch event of ftrace
     between ktrace's first and last switch has one of ktrace's of the same
     outgoing and incoming threads, unless it falls where ktrace wrote a
     loss record (counted apart).
  2. each untraced_switch record marks a switch the kernel did not trace:
     ftrace has no switch-out of the stranded thread between its switch-in
     and the break (nor before it runs again), and no switch-in of the
     thread switched out instead, since it last left a CPU.  The idle task
     runs on every CPU and ftrace's events name no CPU, so an idle side is
     not checked, and counted.
Prints the figures as TAP comments; exits 1 when a claim fails.
"""
import bisect
import re
import subprocess
import sys
from collections import defaultdict

SWITCH = re.compile(r'^@\S+\s+(\d+)\.(\d{9}) \[(\d+)\] switch: tid=(\d+) .* ==> tid=(\d+)')
FTRACE = re.compile(r'^@\S+\s+(\d+)\.(\d{9}) instant: \S+ "sched":"sched_switch" .*'
                    r'prev_pid=(\d+) .*next_pid=(\d+)')
DROPPED = re.compile(r'^@\S+\s+(\d+)\.(\d{9}) instant: \S+ "ktrace:meta":"dropped" cpu=(\d+) '
                     r'count=(\d+) first_ts=(\d+)')
UNTRACED = re.compile(r'"ktrace:meta":"untraced_switch" cpu=(\d+) tid=koid:(\d+) '
                      r'switched_out=koid:(\d+) first_ts=(\d+) last_ts=(\d+)')


def ns(s, frac):
    return int(s) * 1000000000 + int(frac)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    dump = subprocess.run([sys.argv[1], 'dump', sys.argv[2]], capture_output=True, text=True,
                          check=True).stdout
    kt = []                      # (ts, cpu, out, in)
    ft = []                      # (ts, prev, next)
    breaks = []                  # (cpu, stranded, out, first, last)
    losses = []                  # (cpu, first lost, loss record)
    loss_counts = []             # (cpu, first lost, count)
    for line in dump.splitlines():
        m = SWITCH.match(line)
        if m:
            kt.append((ns(m[1], m[2]), int(m[3]), int(m[4]), int(m[5])))
            continue
        m = FTRACE.match(line)
        if m:
            ft.append((ns(m[1], m[2]), int(m[3]), int(m[4])))
            continue
        m = DROPPED.match(line)
        if m and 'source="ftrace"' not in line:
            losses.append((int(m[3]), int(m[5]), ns(m[1], m[2])))
            loss_counts.append((int(m[3]), int(m[5]), int(m[4])))
            continue
        m = UNTRACED.search(line)
        if m:
            breaks.append(tuple(int(x) for x in m.groups()))
    if not kt or not ft:
        print(f'# {len(kt)} ktrace switches, {len(ft)} ftrace sched_switch events: nothing to compare')
        return 1

    # 1. Per pair of outgoing and incoming threads, ftrace has no more
    # switches than ktrace between ktrace's first and last switch, leaving
    # out where ktrace said it lost records: from just after the last switch
    # it kept on that CPU to its loss record.  (Counts, not times: the two
    # probes of one switch may be tens of microseconds apart.)
    lo, hi = kt[0][0], kt[-1][0]
    kt_cpu = defaultdict(list)
    for ts, cpu, _, _ in kt:
        kt_cpu[cpu].append(ts)
    said_lost = []
    for cpu, first, rec_ts in losses:
        times = kt_cpu[cpu]
        i = bisect.bisect_left(times, first)
        said_lost.append(((times[i - 1] if i > 0 else 0) + 1, rec_ts))
    said_lost.sort()
    starts = [a for a, _ in said_lost]

    def in_loss(ts):
        i = bisect.bisect_right(starts, ts)
        return i > 0 and any(a <= ts <= b for a, b in said_lost[max(0, i - 8):i])

    count = defaultdict(int)
    for ts, _, out, inc in kt:
        if not in_loss(ts):
            count[(out, inc)] += 1
    inside = [e for e in ft if lo <= e[0] <= hi]
    excess, near_loss = defaultdict(int), 0
    for ts, prev, nxt in inside:
        if in_loss(ts):
            near_loss += 1
            continue
        count[(prev, nxt)] -= 1
        if count[(prev, nxt)] < 0:
            excess[(prev, nxt)] += 1
    missing = sum(excess.values())
    print(f'# ktrace: {len(kt)} switches, {sum(n for _, _, n in loss_counts)} records lost and said so; '
          f'ftrace: {len(inside)} sched_switch events in the same span, {near_loss} of them where '
          f'ktrace said it lost records, {missing} more than ktrace has of their threads otherwise')
    for (prev, nxt), k in list(excess.items())[:5]:
        print(f'#   ftrace has {k} more {prev} ==> {nxt} than ktrace')

    # 2. What ktrace did not see, ftrace did not see either.
    ins = defaultdict(list)      # tid -> ktrace switch-in times
    outs = defaultdict(list)     # tid -> ktrace switch-out times
    for ts, _, out, inc in kt:
        ins[inc].append(ts)
        outs[out].append(ts)
    ft_prev = defaultdict(list)
    ft_next = defaultdict(list)
    for ts, prev, nxt in ft:
        ft_prev[prev].append(ts)
        ft_next[nxt].append(ts)

    def any_between(times, a, b):
        i = bisect.bisect_right(times, a)
        return i < len(times) and times[i] < b

    witnessed = unchecked = 0
    seen_by_ftrace = []
    for cpu, stranded, out, first, last in breaks:
        checked = False
        if stranded:
            # Its switch-out happened after its switch-in, before the break and
            # before it next ran anywhere.
            nxt = ins[stranded]
            i = bisect.bisect_right(nxt, first)
            end = min(last, nxt[i]) if i < len(nxt) else last
            if any_between(ft_prev[stranded], first, end):
                seen_by_ftrace.append((cpu, stranded, out, first, last, 'switch-out'))
                continue
            checked = True
        if out:
            # Its switch-in happened after it last left a CPU.
            prev = outs[out]
            i = bisect.bisect_left(prev, last)
            start = max(first, prev[i - 1]) if i > 0 else first
            if any_between(ft_next[out], start, last):
                seen_by_ftrace.append((cpu, stranded, out, first, last, 'switch-in'))
                continue
            checked = True
        if checked:
            witnessed += 1
        else:
            unchecked += 1
    per100k = len(breaks) * 100000 / len(kt)
    print(f'# untraced_switch records: {len(breaks)} ({per100k:.1f} per 100k switches); '
          f'missing from ftrace too: {witnessed}; seen by ftrace: {len(seen_by_ftrace)}; '
          f'idle on both sides, not checkable: {unchecked}')
    for cpu, stranded, out, first, last, what in seen_by_ftrace[:5]:
        print(f'#   CPU {cpu}: ftrace has the {what} ktrace lacks '
              f'({stranded} in at {first / 1e9:.9f}, {out} out at {last / 1e9:.9f})')
    return 0 if not missing and not seen_by_ftrace else 1


if __name__ == '__main__':
    sys.exit(main())
