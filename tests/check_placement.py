#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks `ktrace latency` on a recording of tests/placement_workload.c: a fair
thread preempted on CPU 1 by a SCHED_FIFO thread while CPU 0 may idle,
free to run on both CPUs or pinned to CPU 1.  Each of the victim's waits
is recomputed from the switch and migrate records: its pieces (one per run
queue, split at its migrations), its causes (the queue's CPU idle, running
a higher class, or another thread of its class) and idle_allowed_elsewhere
(the time some other CPU it may use was idle), to the nanosecond, with
the CPUs the workload allowed the victim at the time (its own log of each
change, EXPECT_FILE.affinity), not what the report believes.  The waits
behind the FIFO thread are blamed on CPU 1, where they were queued.
TAP output.
usage: check_placement.py KTRACE TRACE.fxt EXPECT_FILE [MIN_FIFO_WAITS [quiet]]
"quiet": nothing else runs (a test VM), so kt_fifo is what the victim waits
behind longest on CPU 1, and the free victim waits there while CPU 0 idles.
(Whether the balancer moves it then is the kernel's choice: on Debian's 6.12
in a 2-CPU VM it mostly moves the victim while it runs, as CPU 1's capacity
shrinks under the FIFO thread, and not while it waits; a move is checked
where there is one.)  CPUs 0 and 1 are the workload's HOME and BUSY (its
EXPECT_FILE's home and busy): 64 and 65 on a machine of more than 64 CPUs,
where every mask is above CPU 63 and any other idle CPU is one the victim
may not use."""
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
from tap import finish, ok, read_expect, skip  # noqa: E402

ktrace, trace, expect_path = sys.argv[1:4]
min_fifo = int(sys.argv[4]) if len(sys.argv) > 4 else 1
quiet = len(sys.argv) > 5 and sys.argv[5] == 'quiet'
e = read_expect(expect_path)
victim, fifo = e['victim'], e['fifo']
home, busy = e.get('home', 0), e.get('busy', 1)

out = subprocess.run([ktrace, 'latency', trace, '--json', '--pid', str(victim), '--top', '100000'],
                     capture_output=True, text=True)
ok(out.returncode == 0, 'ktrace latency --json reads the recording', out.stderr.strip())
if out.returncode:
    finish()
report = json.loads(out.stdout)
waits = report['top']
irq = report['irq_recorded']
dump = subprocess.run([ktrace, 'dump', trace], capture_output=True, text=True).stdout

# Each CPU's history from the switch records: (start, end, tid, weight).
runs = collections.defaultdict(list)
last = {}
sw = re.compile(r'^@\S+\s+(\d+)\.(\d+) \[(\d+)\] switch: tid=\d+ .*? ==> tid=(\d+) .*?(?:incoming_weight|in_prio)=(-?\d+)', re.M)
for m in sw.finditer(dump):
    ts, cpu, tid, weight = int(m[1]) * 10**9 + int(m[2]), int(m[3]), int(m[4]), int(m[5])
    if cpu in last:
        runs[cpu].append((last[cpu][0], ts, last[cpu][1], last[cpu][2]))
    last[cpu] = (ts, tid, weight)
for cpu, (ts, tid, weight) in last.items():
    runs[cpu].append((ts, 1 << 62, tid, weight))
cpus = sorted(runs)
moves = [(int(m[1]) * 10**9 + int(m[2]), int(m[3]), int(m[4])) for m in re.finditer(
    r'^@\S+\s+(\d+)\.(\d+) instant: \d+/' + str(victim) + r' "ktrace:sched":"migrate" orig_cpu=(\d+) dest_cpu=(\d+)',
    dump, re.M)]


def overlap(a, b, lo, hi):
    return max(0, min(b, hi) - max(a, lo))


def union(spans):
    ns, at = 0, 0
    for a, b in sorted(spans):
        a = max(a, at)
        if b > a:
            ns += b - a
            at = b
    return ns


def mask_of(cpu_list):
    """A mask (a bit per CPU, of any width) from a list: "1", "64,65", "0-3"."""
    mask = 0
    for part in cpu_list.split(','):
        first, _, last = part.partition('-')
        for cpu in range(int(first), int(last or first) + 1):
            mask |= 1 << cpu
    return mask


# The victim's allowed CPUs as the workload set them: (before, after, mask).
changes = []
if os.path.exists(expect_path + '.affinity'):
    with open(expect_path + '.affinity') as f:
        changes = [(int(b), int(a), mask_of(m)) for b, a, m in (line.split() for line in f if line.strip())]
all_cpus = sum(1 << cpu for cpu in cpus)


def masks_at(ts):
    """The masks the victim may have had at ts: one, or the old and the new
    one while a change was under way.  Until its first change, the main
    thread's (HOME), which it inherited."""
    cur = 1 << home
    for before, after, mask in changes:
        if ts >= after:
            cur = mask
        elif ts >= before:
            return [cur, mask]
        else:
            break
    return [cur]


# The victim's runs, from the switch records: (start, end, cpu).
victim_runs = sorted((a, b, cpu) for cpu in cpus for a, b, tid, _ in runs[cpu] if tid == victim)


def queue_at(ts, first):
    """The run queue the victim is on at ts, from the records alone: the CPU
    it last ran on, or the destination of a move since (@first, what the
    report says, before its first run: a new thread is placed unrecorded).  A sleeping thread
    can be moved: on 6.12 a fair thread that blocks while owing CPU time
    stays queued (delayed dequeue) and the balancer may move it; its
    wakeup then finds it queued and makes it runnable where it is, with no
    move of its own."""
    ran = [r for r in victim_runs if r[0] < ts]
    at, cpu = (ran[-1][1], ran[-1][2]) if ran else (0, first)
    since = [mv for mv in moves if at <= mv[0] <= ts]
    return since[-1][2] if since else cpu


def reported(mask):
    """A mask as the report lists it (cpus_allowed_list): None for every CPU."""
    if mask & all_cpus == all_cpus:
        return None
    runs, cpu = [], 0
    while mask >> cpu:
        if mask >> cpu & 1:
            last = cpu
            while mask >> (last + 1) & 1:
                last += 1
            runs.append(f'{cpu}-{last}' if last > cpu else str(cpu))
            cpu = last
        cpu += 1
    return ','.join(runs)


def expected(w):
    """Pieces, causes and the values idle_allowed_elsewhere may have, from
    the records and the workload's log."""
    # A timer wait starts when its timer was due, while the thread still
    # slept: a move then (seen on 6.12-rt, before the expiry) put it on no
    # queue, and only sets where it would be queued.
    queued = w.get('woken', w['start'])
    within = [mv for mv in moves if queued <= mv[0] < w['end']]
    pieces, at = [], w['start']
    cpu = within[0][1] if within else queue_at(queued, w['pieces'][-1]['cpu'])
    for ts, src, dst in within:
        pieces.append((cpu, at, ts))
        cpu, at = dst, ts
    pieces.append((cpu, at, w['end']))
    causes = collections.Counter()
    # The victim sets its CPUs only while it runs: a wait keeps those of its start.
    masks = masks_at(w['start']) if changes else [mask_of(w['cpus_allowed_list']) if w['cpus_allowed_list'] else -1]
    idle = {m: [] for m in masks}
    # A timer wait is not runnable before its wakeup: timer_late, whatever ran.
    if queued > w['start']:
        causes['timer_late'] = queued - w['start']
    for cpu, a, b in pieces:
        a = max(a, queued)
        for s, t, tid, weight in runs[cpu]:
            ns = overlap(s, t, a, b)
            if not ns:
                continue
            if tid == 0:
                causes['cpu_idle'] += ns
            elif weight > 40:
                causes['higher_priority'] += ns
            else:
                causes['same_class'] += ns
        for m in masks:
            idle[m] += [(max(s, a), min(t, b)) for other in cpus if other != cpu and (m >> other) & 1
                        for s, t, tid, _ in runs[other] if tid == 0 and overlap(s, t, a, b)]
    return pieces, causes, {union(spans) for spans in idle.values()}


# Only waits the records explain whole: no unknown part, no timer wait that
# began late (its start is the timer's due time, which no switch says).  Interrupt
# handlers (recorded by default) take their time from what the CPU ran, so
# with them each cause is at most the switches' figure and the interrupts
# cause is what they lack; an idle CPU elsewhere is idle less of the time.
clear = [w for w in waits if w['causes']['unknown'] == 0 and w['causes']['timer_late'] == 0]


def causes_match(got, want):
    rest = {k: v for k, v in got.items() if k != 'interrupts'}
    if not got.get('interrupts'):
        return got == want
    return (all(v <= want.get(k, 0) for k, v in rest.items()) and
            sum(want.values()) - sum(rest.values()) == got['interrupts'])


def idle_match(got, want):
    return got in want or (irq and any(got <= i for i in want))


ok(len(clear) >= len(waits) // 2 and clear, f"most of the victim's waits are recorded whole ({len(clear)} of {len(waits)}, "
   f"{sum(1 for w in clear if w['causes']['interrupts'])} with interrupt time)")
wrong = []
for w in clear:
    pieces, causes, idle = expected(w)
    got = [(p['cpu'], p['start'], p['end']) for p in w['pieces']]
    gc = {k: v for k, v in w['causes'].items() if v}
    if got != pieces or not causes_match(gc, dict(causes)) or \
       not idle_match(w['idle_allowed_elsewhere'], idle):
        wrong.append((w['start'], w['latency'], got, pieces, gc, dict(causes), w['idle_allowed_elsewhere'], idle))
ok(not wrong, f"each wait's run queues, causes and idle_allowed_elsewhere are what the switch and migrate records say "
   f"({len(clear)} waits, {sum(1 for w in clear if w['idle_allowed_elsewhere'])} with an allowed CPU idle)", wrong[:3])
ok(all(sum(w['causes'].values()) == w['latency'] for w in waits), "every wait's causes sum to its latency")
odd = [(w['start'], w['causes']['unknown'], w['unknown_reasons']) for w in waits
       if sum(w['unknown_reasons'].values()) != w['causes']['unknown'] or
       max(w['unknown_reasons'].values()) > w['causes']['unknown']]
ok(not odd, "every wait's unknown part is its reasons' sum (untraced, lost, no history), none larger", odd[:3])
if changes:
    bad = [(w['start'], w['cpus_allowed_list'], masks_at(w['start'])) for w in waits
           if w['cpus_allowed_list'] not in [reported(m) for m in masks_at(w['start'])]]
    ok(not bad, f"each wait's allowed CPUs are those the victim had set when it began "
       f"({len(changes)} changes{', made while it ran' if e.get('running') else ''})", bad[:3])

# The waits behind the FIFO thread: the victim preempted on CPU 1 (BUSY) by
# it, while it is real-time (a weight, 140 - prio, above 40): just started,
# before its sched_setscheduler(), it is a fair thread, and a preemption by
# it then is same_class.
fifo_in = {s for s, t, tid, weight in runs.get(busy, []) if tid == fifo and weight > 40}
behind = [w for w in waits if w['kind'] == 'preemption' and w['start'] in fifo_in]
if not behind and not min_fifo:
    skip("the waits behind kt_fifo", "kt_fifo never found the victim on CPU 1 (a busy machine)")
    finish()
ok(len(behind) >= max(min_fifo, 1), f"the victim is preempted by kt_fifo on CPU {busy} ({len(behind)} times, {max(min_fifo, 1)} or more)")


def longest(w):
    """The threads the records show running longest on the wait's first
    queue while the victim was runnable there: those within the wait's
    interrupt time of the longest (interrupt handlers take their time out
    of the thread they interrupted)."""
    p = w['pieces'][0]
    lo = max(p['start'], w.get('woken', w['start']))
    ran = collections.Counter()
    for s, t, tid, _ in runs[p['cpu']]:
        if tid and overlap(s, t, lo, p['end']):
            ran[tid] += overlap(s, t, lo, p['end'])
    most = max(ran.values(), default=0)
    return {tid for tid, ns in ran.items() if ns >= most - w['causes']['interrupts']}, ran


# Quiet, kt_fifo is what the victim waits behind; on a real-time kernel the
# CPU's timer softirq thread (ktimers/N, FIFO 1) may run longer within the
# wait, after kt_fifo sleeps: the thread the report names is the one the
# records show running longest there, and a real-time one.
def behind_ok(w):
    p = w['pieces'][0]
    if p['cpu'] != busy or w['causes']['higher_priority'] <= 0:
        return False
    if not quiet:
        return True
    top, ran = longest(w)
    return p['behind_tid'] in top and p['behind_prio'] < 100 and p['behind_ns'] <= ran[p['behind_tid']]


others = collections.Counter(w['pieces'][0]['behind_comm'] for w in behind if w['pieces'][0]['behind_tid'] != fifo)
ok(all(behind_ok(w) for w in behind),
   f"each such wait is queued on CPU {busy} first, higher_priority"
   f"{', behind the real-time thread that ran there longest' if quiet else ''}"
   f"{' (kt_fifo' + (', ' + ', '.join(f'{c} {n} times' for c, n in others.items()) if others else '') + ')' if quiet else ''}",
   [(w['start'], w['pieces'][0], dict(longest(w)[1])) for w in behind if not behind_ok(w)][:3])
if e['pinned']:
    ok(all(w['cpus_allowed_list'] == str(busy) and w['idle_allowed_elsewhere'] == 0 and not w['migrations'] for w in behind),
       f"pinned to CPU {busy}: allowed CPUs {busy}, idle_allowed_elsewhere 0, never moved",
       [(w['start'], w['cpus_allowed_list'], w['idle_allowed_elsewhere']) for w in behind][:3])
else:
    moved = [w for w in behind if w['migrations']]
    free = reported(1 << home | 1 << busy)
    ok(all(w['cpus_allowed_list'] == free and (not w['migrations'] or w['migrations'][0]['from'] == busy) for w in behind),
       f"free to run on CPUs {home} and {busy}: allowed CPUs {free or 'all'}, and a move leaves CPU {busy} ({len(moved)} waits moved)",
       [(w['start'], w['cpus_allowed_list'], w['migrations'][:1]) for w in behind][:3])
    if quiet:
        ok(any(w['idle_allowed_elsewhere'] > 0 and w['idle_allowed_cpu'] == home for w in behind),
           f"a wait behind kt_fifo names CPU {home}, idle meanwhile, as idle_allowed_elsewhere",
           [(w['start'], w['idle_allowed_elsewhere'], w['idle_allowed_cpu']) for w in behind][:3])
    print(f"# {len(moved)} of the waits behind kt_fifo moved to another CPU")

text = subprocess.run([ktrace, 'latency', trace, '--pid', str(victim), '--top', '1'], capture_output=True, text=True).stdout
ok('queued on CPU ' in text and 'idle_allowed_elsewhere ' in text, "the text report says where the worst wait was queued and what idled")
finish()
