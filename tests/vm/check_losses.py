#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks a recording of tests/known_workload.c that may have lost records.

Without loss records, tests/check_trace must pass as it is.  With them,
each of its failures must be one that lost records explain, and no other:
  - "nothing dropped";
  - a break in a CPU's timeline (a switch-out of a thread other than the
    one switched in last) needs a loss record for that CPU whose lost
    records lie between the two switches;
  - ping's and pong's missing switch-ins are at most the records lost;
  - a missing name, sleep, irq wakeup, dying switch-out or switch-in after
    a wakeup: records that were lost.
A failure of any other check (the trace reads to its end, no spec
violation, time order, CPU numbers, wakers named) fails, losses or not.
usage: check_losses.py KTRACE CHECK_TRACE TRACE.fxt EXPECT_FILE
Prints what it found as TAP comments; exits 0 when all is explained."""
import re
import subprocess
import sys

ktrace, check_trace, trace, expect_file = sys.argv[1:5]
expect = dict(l.strip().split("=", 1) for l in open(expect_file) if "=" in l)
watched = {int(expect[k]) for k in ("pid", "ping", "pong", "sleeper", "renamer", "child") if k in expect}
iterations = int(expect.get("iterations", 0))


def ns(ts):
    s, _, frac = ts.partition(".")
    return int(s) * 1000000000 + int((frac + "000000000")[:9])


switch_re = re.compile(r"^@\S+\s+(\d+\.\d+) \[(\d+)\] switch: tid=(\d+) .* ==> tid=(\d+) ")
loss_re = re.compile(r'"ktrace:meta":"dropped" cpu=(\d+) count=(\d+) first_ts=(\d+) last_ts=(\d+)')
switches, losses = [], []
dump = subprocess.run([ktrace, "dump", trace], capture_output=True, text=True)
for line in dump.stdout.splitlines():
    m = switch_re.match(line)
    if m:
        switches.append((ns(m[1]), int(m[2]), int(m[3]), int(m[4])))
        continue
    m = loss_re.search(line)
    if m:
        losses.append(tuple(int(x) for x in m.groups()))
dropped = sum(l[1] for l in losses)

out = subprocess.run([check_trace, trace, expect_file], capture_output=True, text=True).stdout
failures = [l for l in out.splitlines() if l.startswith("not ok")]
print(f"# {len(switches)} switches, {len(losses)} loss records for {dropped} records, "
      f"check_trace: {len(failures)} failures")
if not failures:
    sys.exit(0)
if not dropped:
    for f in failures:
        print(f"# with nothing lost: {f}")
    sys.exit(1)

# The breaks in each CPU's timeline that involve the workload's threads,
# and whether a loss record for that CPU lies between the two switches.
switched_out = {s[2] for s in switches}
silent = {s[3] for s in switches if s[3] and s[3] not in switched_out}
running, unexplained, breaks = {}, [], 0
for ts, cpu, out_tid, in_tid in switches:
    prev = running.get(cpu)
    if prev and prev[1] != out_tid and (prev[1] in watched or out_tid in watched) and prev[1] not in silent:
        breaks += 1
        if not any(c == cpu and prev[0] <= first and last <= ts for c, _, first, last in losses):
            unexplained.append(f"CPU {cpu} at {ts}: switches out {out_tid}, {prev[1]} was switched in at {prev[0]}")
    running[cpu] = (ts, in_tid)

bad = []
for f in failures:
    if "nothing dropped" in f or re.search(r" is named | gets the name | left the CPU sleeping"
                                          r"| the exiting child left the CPU"
                                          r"| every wakeup of a workload thread is followed", f):
        continue
    if "per-CPU timeline" in f:
        if unexplained:
            bad.append(f"{f}: {len(unexplained)} of {breaks} breaks with no loss between, first: {unexplained[0]}")
        continue
    m = re.search(r"switched in at least \d+ times \((\d+), (\d+)\)", f)
    if m:
        missing = 2 * iterations - int(m[1]) - int(m[2])
        if missing > dropped:
            bad.append(f"{f}: {missing} switch-ins missing, only {dropped} records lost")
        continue
    m = re.search(r"timer wakeups come from interrupts.*\((\d+) of (\d+); (\d+) by the workload's own threads", f)
    if m and int(m[1]) + int(m[3]) == int(m[2]):
        continue
    bad.append(f"{f}: not a consequence of lost records")
for b in bad:
    print(f"# {b}")
print(f"# {len(failures) - len(bad)} check_trace failures explained by the {dropped} lost records"
      f" ({breaks} timeline breaks, each after a loss on its CPU)")
sys.exit(1 if bad else 0)
