#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The named checks tests/test_latency.sh makes of a `ktrace latency --json`
report (or `--critical-path --json`) on the traces of tests/gen_trace.c,
whose waits are known there.  Each check is a function of the report that
compares what it holds with what the trace's scenario says; its first
line says what it checks.
usage: check_latency_json.py NAME REPORT.json [ARG...]
Exits 0 when the report passes check NAME, 1 when it does not, printing
what it saw as TAP comments (# ...), 2 on bad usage (--list: the names)."""
import collections
import json
import sys

T0 = 1000000000000  # gen_trace's first timestamp
NAMES = ['higher_priority', 'not_preempted', 'same_class', 'interrupts', 'throttled',
         'timer_late', 'cpu_idle', 'unknown']

CHECKS = {}
_seen = []  # what a failing comparison saw


def check(fn):
    CHECKS[fn.__name__] = fn
    return fn


def eq(what, got, want):
    """Whether @got is @want; if not, what was seen."""
    if got != want:
        _seen.append(f'{what}: {got!r}, expected {want!r}')
    return got == want


def holds(what, cond, seen):
    """Whether @cond holds of @what; if not, @seen is what was seen."""
    if not cond:
        _seen.append(f'{what} does not hold: {seen!r}')
    return bool(cond)


def causes(**parts):
    """The eight causes, those not named 0."""
    return {name: parts.get(name, 0) for name in NAMES}


def group(r, key):
    """The report's row @key."""
    for g in r['groups']:
        if g['key'] == key:
            return g
    raise LookupError(f"no row {key} (rows: {[g['key'] for g in r['groups']]})")


def wait_of(r, tid):
    """The first listed wait of thread @tid."""
    for w in r['top']:
        if w['tid'] == tid:
            return w
    raise LookupError(f"no wait of thread {tid} listed (threads: {sorted({w['tid'] for w in r['top']})})")


def sums_agree(r):
    """Each row's causes are its listed waits' causes summed, and every wait is listed."""
    s = collections.defaultdict(collections.Counter)
    for w in r['top']:
        s[w['tid']].update(w['causes'])
    good = eq('waits listed', len(r['top']), r['waits'])
    for g in r['groups']:
        good &= eq(f"causes of row {g['key']}", g['causes'], {k: s[g['key']][k] for k in g['causes']})
    return good


def p99_rows_agree(r):
    """Each row's waits of p99_from_ns or more: p99_waits of them, their
    causes summed in p99_causes, and fewer than 99% of its waits below."""
    waits = collections.defaultdict(list)
    for w in r['top']:
        waits[w['tid']].append(w)
    good = True
    for g in r['groups']:
        ws = waits[g['key']]
        worse = [w for w in ws if w['latency'] >= g['p99_from_ns']]
        s = collections.Counter()
        for w in worse:
            s.update(w['causes'])
        if ws:
            good &= eq(f"row {g['key']}: waits of p99_from_ns or more", len(worse), g['p99_waits'])
            good &= holds(f"row {g['key']}: fewer than 99% of its waits below p99_from_ns",
                          worse and (len(ws) - len(worse)) * 100 < len(ws) * 99, (len(ws), len(worse)))
            good &= eq(f"row {g['key']}: p99_causes", g['p99_causes'], {k: s[k] for k in g['p99_causes']})
    return eq('waits listed', len(r['top']), r['waits']) and good


# ---- gen_trace latency, --json --top 4 --------------------------------------

@check
def victim_wakeups(r):
    """victim (200): 2 wakeup waits, 900 and 5000 ns, the longest ending at T0+7000."""
    v = group(r, 200)['wakeup']
    return eq('victim wakeup', {k: v[k] for k in ('count', 'max', 'min', 'max_ts')},
              {'count': 2, 'max': 5000, 'min': 900, 'max_ts': T0 + 7000})


@check
def victim_preemption(r):
    """victim: one preemption wait of 3000 ns, p50 exact."""
    v = group(r, 200)['preemption']
    return eq('victim preemption', {k: v[k] for k in ('count', 'max', 'p50')},
              {'count': 1, 'max': 3000, 'p50': 3000})


@check
def victim_blocked(r):
    """victim: blocked 1500 ns in S and 1100 ns in D, kept apart."""
    b = group(r, 200)['blocked']
    return eq('victim blocked S', b['S'], {'count': 1, 'ns': 1500}) & \
        eq('victim blocked D', b['D'], {'count': 1, 'ns': 1100})


@check
def not_measured(r):
    """5 waits begun before the trace, 1 switch-in without a wakeup, 1 wait over lost records."""
    return eq('not_measured', r['not_measured'], {'before_trace': 5, 'no_wakeup': 1, 'overlaps_loss': 1}) & \
        eq('lost_records', r['lost_records'], 7) & eq('loss_ranges', r['loss_ranges'], 1)


@check
def not_measured_per_thread(r):
    """Each unmeasured wait is counted on its own thread, none in a distribution."""
    return eq('204 not_measured', group(r, 204)['not_measured'],
              {'before_trace': 1, 'no_wakeup': 1, 'overlaps_loss': 0}) & \
        eq('205 overlaps_loss', group(r, 205)['not_measured']['overlaps_loss'], 1) & \
        eq('205 wakeup count', group(r, 205)['wakeup']['count'], 0)


@check
def top4_longest_first(r):
    """--top 4 lists the worst waits, longest first."""
    return eq('latencies', [w['latency'] for w in r['top']], [5000, 3000, 900, 100]) & \
        eq('kinds', [w['kind'] for w in r['top']], ['wakeup', 'preemption', 'wakeup', 'wakeup'])


@check
def worst_wait_blame(r):
    """The worst wait: woken by 202 on CPU 0, CPU 1 held by hog (prio 49) 5000 ns, irq 27 eth0 500 ns."""
    w = r['top'][0]
    b = w['blame']
    return eq('waker, CPUs, not migrated', (w['waker'], w['waker_context'], w['wake_cpu'], w['cpu'],
                                            not w['migrated']), (202, 'task', 0, 1, True)) & \
        eq('blame threads', b['threads'], [{'tid': 201, 'comm': 'hog', 'prio': 49, 'ns': 5000}]) & \
        eq('hardirq_ns', b['hardirq_ns'], 500) & eq('irqs', b['irqs'], [{'name': 'irq 27 eth0', 'ns': 500}]) & \
        eq('idle_ns', b['idle_ns'], 0)


@check
def softirq_waker(r):
    """A softirq wakeup names the softirq and the task it interrupted, not a
    waker; it migrated from CPU 1 to 0."""
    w = r['top'][2]
    return eq('waker', (w['waker_context'], w['waker_irq'], w['interrupted']), ('softirq', 'softirq TIMER', 202)) & \
        holds('no waker', 'waker' not in w, w.get('waker')) & \
        eq('migration', (bool(w['migrated']), w['prev_cpu'], w['cpu']), (True, 1, 0)) & \
        eq('blamed thread', w['blame']['threads'][0]['tid'], 202) & eq('softirq_ns', w['blame']['softirq_ns'], 100)


# ---- gen_trace causes, --json --top 10 -------------------------------------

@check
def causes_sum_eight_names(r):
    """Every wait's causes sum to its latency, under exactly the eight names; 7 waits."""
    good = eq('waits', len(r['top']), 7)
    for w in r['top']:
        good &= eq(f"tid {w['tid']}'s causes summed", sum(w['causes'].values()), w['latency'])
        good &= eq(f"tid {w['tid']}'s cause names", list(w['causes']), NAMES)
    return good


@check
def causes_fifo_then_migration(r):
    """A wait behind a FIFO thread before a migration: higher_priority on the
    CPU it was queued on, then cpu_idle on the one it ran on."""
    w = r['top'][0]
    return eq('kind, latency', (w['kind'], w['latency']), ('preemption', 4500)) & \
        eq('causes', w['causes'], causes(higher_priority=3600, interrupts=400, cpu_idle=500)) & \
        eq('migrations', w['migrations'], [{'ts': T0 + 6000, 'from': 1, 'to': 0}]) & \
        eq('queue_cpu', w['queue_cpu'], 1) & \
        eq('first piece', (w['pieces'][0]['cpu'], w['pieces'][0]['behind_tid'], w['pieces'][0]['behind_prio']),
           (1, 401, 49)) & \
        eq('second piece', w['pieces'][1], {'cpu': 0, 'start': T0 + 6000, 'end': T0 + 6500}) & \
        eq('idle allowed elsewhere', (w['idle_allowed_elsewhere'], w['idle_allowed_cpu'], w['cpus_allowed']),
           (4000, 0, None))


@check
def causes_untraced(r):
    """A wait across another thread's untraced switch is measured; the untraced part is unknown, with its reason."""
    w = r['top'][1]
    return eq('kind, latency', (w['kind'], w['latency']), ('wakeup', 2000)) & \
        eq('same_class, unknown', (w['causes']['same_class'], w['causes']['unknown']), (500, 1500)) & \
        eq('unknown_reasons', w['unknown_reasons'], {'untraced': 1500, 'lost': 0, 'no_history': 0}) & \
        eq('migrations', w['migrations'], []) & eq('behind', w['pieces'][0]['behind_tid'], 402)


@check
def causes_pinned_twin(r):
    """A thread pinned to the busy CPU (405) has no idle CPU elsewhere; its unpinned twin (406) had CPU 0 idle all along."""
    p, f = wait_of(r, 405), wait_of(r, 406)
    return eq('pinned', (p['latency'], p['causes']['higher_priority'], p['cpus_allowed'],
                         p['idle_allowed_elsewhere'], p['idle_allowed_cpu']), (1500, 1500, 2, 0, -1)) & \
        eq('free', (f['latency'], f['causes']['higher_priority'], f['causes']['same_class'], f['cpus_allowed'],
                    f['idle_allowed_elsewhere'], f['idle_allowed_cpu']), (1600, 1400, 200, None, 1600, 0))


@check
def causes_top_summed(r):
    """The worst waits' causes summed."""
    return eq('top_causes', r['top_causes'],
              causes(higher_priority=6500, same_class=800, interrupts=400, cpu_idle=600, unknown=3300))


# ---- gen_trace causes, --json --top 100: every wait listed -------------------

@check
def causes_per_thread(r):
    """Each thread's causes over all its waits, and the selection's, p99 and worse too."""
    return sums_agree(r) & \
        eq('causes', r['causes'],
           causes(higher_priority=6500, same_class=800, interrupts=400, cpu_idle=600, unknown=3300)) & \
        eq('p99_waits', r['p99_waits'], 1) & eq('p99 higher_priority', r['p99_causes']['higher_priority'], 3600)


@check
def causes_p99_rows(r):
    """Each thread's p99 and worse: its waits at or above its own p99 bucket, their causes summed."""
    return p99_rows_agree(r) & \
        eq("400's p99_causes", group(r, 400)['p99_causes'],
           causes(higher_priority=3600, interrupts=400, cpu_idle=500))


# ---- gen_trace perf-gap, --comm hackbench --json --top 10 --------------------

@check
def perf_gap_untraced(r):
    """A wait whose switch-in the kernel left untraced is not measured; the
    stranded thread's next wait is measured, or counted."""
    return eq('not_measured', r['not_measured'], {'before_trace': 5, 'no_wakeup': 0, 'overlaps_loss': 2}) & \
        eq('waits of 604 and up', [(w['tid'], w['kind'], w['start'], w['latency']) for w in r['top'] if w['tid'] > 603],
           [(605, 'wakeup', T0 + 9800000, 200000)])


# ---- gen_trace throttle and throttle-task, --json --top 10 ------------------

@check
def throttle_sums(r):
    """Every wait's causes sum to its latency, the running totals agree with the walks; 6 waits."""
    good = True
    for w in r['top']:
        good &= eq(f"tid {w['tid']}'s causes summed", sum(w['causes'].values()), w['latency'])
    return good & sums_agree(r) & eq('waits', len(r['top']), 6)


POD1 = {'id': 77, 'path': '/kubepods/pod1', 'cpu_max': '10000/100000', 'quota_us': 10000, 'period_us': 100000}


@check
def throttle_throttled(r):
    """The throttled thread's (500) and its queued sibling's (501) waits are
    throttled to the refill that unthrottled them."""
    t500, t501 = wait_of(r, 500), wait_of(r, 501)
    return eq('500 causes', t500['causes'], causes(same_class=800, throttled=6200)) & \
        eq('501 causes', t501['causes'], causes(same_class=1300, throttled=5700)) & \
        eq('500 throttled_cgroup', t500['throttled_cgroup'], POD1) & \
        eq('501 throttled_cgroup', t501['throttled_cgroup'], t500['throttled_cgroup'])


@check
def throttle_not_throttled(r):
    """A thread of another cgroup (503), and one of the throttled cgroup on another CPU (504), are not throttled."""
    t503, t504 = wait_of(r, 503), wait_of(r, 504)
    return eq('503', (t503['causes']['same_class'], t503['causes']['throttled'], t503['throttled_cgroup']),
              (2500, 0, None)) & \
        eq('504', (t504['causes']['same_class'], t504['causes']['throttled']), (1000, 0))


@check
def throttle_report(r):
    """The report counts the throttled spans per cgroup."""
    return eq('throttling', r['throttling'],
              {'recorded': True, 'note': 'recorded (whole cfs_rq model)',
               'cgroups': [dict(POD1, cpu_max_end='10000/100000', spans=1, ns=6200)]}) & \
        eq('throttled', r['causes']['throttled'], 11900)


@check
def throttle_critical_path(r):
    """--critical-path --tid 500: the runnable hop is throttled, with its cgroup."""
    h = r['paths'][0]['hops'][0]
    return eq('throttled', h['causes']['throttled'], 6200) & \
        eq('cgroup', h['throttled_cgroup']['path'], '/kubepods/pod1')


@check
def throttle_task_model(r):
    """Task-based model (gen_trace throttle-task): a throttle holds only the thread it switched out."""
    t500, t501 = wait_of(r, 500), wait_of(r, 501)
    return eq('500 throttled', t500['causes']['throttled'], 6200) & \
        eq('501 causes', t501['causes'], causes(same_class=4500, interrupts=400, cpu_idle=2100)) & \
        eq('501 throttled_cgroup', t501['throttled_cgroup'], None)


# ---- gen_trace synthetic 20000, --json --top 100000 -------------------------

@check
def synthetic_sums(r):
    """On synthetic traffic, every thread's causes from the running totals equal the walks' to the nanosecond."""
    return sums_agree(r) & p99_rows_agree(r) & holds('more than 5000 waits', r['waits'] > 5000, r['waits'])


# ---- gen_trace causes: cgroups, work conservation, critical path ------------

@check
def cgroup_kubepods(r):
    """--cgroup /kubepods selects the threads in it and below it, each row names its cgroup."""
    return eq('waits', r['waits'], 4) & \
        eq('rows', sorted((g['key'], g['cgroup']) for g in r['groups']),
           [(400, '/kubepods/pod1'), (405, '/kubepods/pod2'), (406, '/kubepods/pod1')])


@check
def by_cgroup(r):
    """--by cgroup groups the waits by cgroup, a removed cgroup's by its id, those of threads without one apart."""
    return eq('rows', sorted((g['cgroup'], g['wakeup']['count'], g['preemption']['count']) for g in r['groups']),
              [('/', 1, 0), ('/kubepods/pod1', 2, 1), ('/kubepods/pod2', 1, 0), ('?', 0, 0),
               ('cgroup id 9 (removed)', 1, 1)])


@check
def cgroup_root(r):
    """--cgroup / selects every thread with a cgroup path, not one whose cgroup was removed."""
    return eq('rows', sorted(g['key'] for g in r['groups']), [400, 401, 405, 406])


@check
def work_conservation(r):
    """--idle-threshold 1us: CPU 0 idled 5600 ns while a thread that may use it waited, longest 4000 ns."""
    return eq('work_conservation', r['work_conservation'],
              {'threshold_ns': 1000, 'waits': 5, 'cpus': [{'cpu': 0, 'idle_ns': 5600, 'longest_ns': 4000}]})


@check
def critical_path_migration_causes(r):
    """--critical-path: a runnable hop split at its migration has the same causes as the wait."""
    h = next(h for h in r['paths'][0]['hops'] if h['tid'] == 400 and h['state'] == 'runnable')
    return eq('causes', h['causes'], causes(higher_priority=3600, interrupts=400, cpu_idle=500)) & \
        holds('the text names the queue', 'queued on CPU 1 4.0 us behind kt_fifo 401 (rt 50)' in h['text'],
              h['text'])


# ---- gen_trace latency: causes without migrations, grouping, filters --------

@check
def no_migration_records(r):
    """Without migration records the causes still sum, on the CPU the wait ended on."""
    good = True
    for w in r['top']:
        good &= eq(f"tid {w['tid']}'s causes summed", sum(w['causes'].values()), w['latency'])
        good &= eq(f"tid {w['tid']}'s migrations_recorded", bool(w['migrations_recorded']), False)
    return good


@check
def by_process(r):
    """--by process puts victim's and hog's waits in process 200."""
    return eq('rows with wakeups', [x['key'] for x in r['groups'] if x['wakeup']['count']], [200]) & \
        eq('200 wakeups', (group(r, 200)['wakeup']['count'], group(r, 200)['wakeup']['max_tid']), (3, 200)) & \
        eq('top', r['top'], [])


@check
def by_cpu(r):
    """--by cpu groups waits by the CPU they ended on."""
    return eq('CPU 0 wakeups', group(r, 0)['wakeup']['count'], 1) & \
        eq('CPU 1 wakeups', group(r, 1)['wakeup']['count'], 2) & \
        eq('CPU 1 longest preemption', group(r, 1)['preemption']['max'], 3000)


@check
def waits_filtered(r, waits, filtered):
    """ARGS WAITS FILTERED: the report has WAITS waits, FILTERED left out by the filters."""
    return eq('waits', r['waits'], int(waits)) & eq('filtered', r['filtered'], int(filtered))


@check
def waits_shortest(r, waits, shortest):
    """ARGS WAITS SHORTEST: the report has WAITS waits, the shortest listed of SHORTEST ns."""
    return eq('waits', r['waits'], int(waits)) & \
        eq('shortest', min(w['latency'] for w in r['top']), int(shortest))


@check
def waits(r, n):
    """ARG N: the report has N waits."""
    return eq('waits', r['waits'], int(n))


@check
def comm_hog(r):
    """--comm hog keeps only the hog's waits."""
    return eq('rows with wakeups', [x['key'] for x in r['groups'] if x['wakeup']['count']], [201]) & \
        eq('worst', r['top'][0]['tid'], 201)


@check
def pid_200_cpu_0(r):
    """--pid 200 --cpu 0: the one wait of process 200 that ended on CPU 0, of 900 ns."""
    return eq('waits', r['waits'], 1) & eq('latency', r['top'][0]['latency'], 900)


@check
def hist_ms(r):
    """-m counts the histogram in milliseconds."""
    return eq('hist_unit_ns', r['hist_unit_ns'], 1000000) & eq('log2', r['groups'][0]['wakeup']['log2'], [3])


# ---- a truncated trace, and a whole one --------------------------------------

@check
def worst_latency(r, ns):
    """ARG NS: the worst wait is of NS ns."""
    return eq('worst', r['top'][0]['latency'], int(ns))


@check
def cut(r, offset):
    """ARG OFFSET: the report says the trace stops at OFFSET, inside a record, and how much it analysed."""
    c = r['cut']
    return eq('offset', c['offset'], int(offset)) & holds('records > 0', c['records'] > 0, c['records']) & \
        holds("'inside' in msg", 'inside' in c['msg'], c['msg'])


@check
def cut_offset(r, offset):
    """ARG OFFSET: the report says the trace stops at OFFSET."""
    return eq('offset', r['cut']['offset'], int(offset))


@check
def no_cut(r):
    """A whole trace's report has "cut": null."""
    return eq('cut', r['cut'], None)


@check
def stopped_state(r):
    """gen_trace stopped: the critical path calls a suspended thread stopped (T)."""
    return eq("victim's hops", [h['state'] for p in r['paths'] for h in p['hops'] if h['comm'] == 'victim'],
              ['runnable', 'T'])


# ---- gen_trace chain, --critical-path ----------------------------------------

def hops(path):
    return [(h['depth'], h['comm'], h['state'], h['start'] - T0, h['end'] - T0, h.get('blocked_in'),
             h.get('woken_by_comm') or h.get('interrupt'), h.get('note')) for h in path['hops']]


def hops_are(path, want):
    got = hops(path)
    if got != want:
        _seen.extend(['hops:'] + [f'  {h}' for h in got])
    return got == want


@check
def chain_waits(r):
    """The two waits of victim, longest first, off CPU from switch-out to switch-in."""
    return eq('paths', [(p['tid'], p['start'] - T0, p['end'] - T0) for p in r['paths']],
              [(300, 200, 11200), (300, 12000, 20500)])


@check
def chain_pipe_mutex_hog(r):
    """pipe <- mutex <- hog: every hop exact (thread, span, state, blocked-in, waker)."""
    return hops_are(r['paths'][0], [
        (0, 'victim', 'runnable', 11000, 11200, None, None, None),
        (0, 'victim', 'S', 200, 11000, 'pipe_read', 'waiter', None),
        (1, 'waiter', 'running', 10500, 11000, None, None, None),
        (1, 'waiter', 'runnable', 10000, 10500, None, None, None),
        (1, 'waiter', 'S', 400, 10000, 'futex_wait_queue', 'holder', None),
        (2, 'holder', 'running', 9000, 10000, None, None, None),
        (2, 'holder', 'runnable', 1000, 9000, None, None, None),
        (2, 'holder', 'running', 400, 1000, None, None, None),
        (1, 'waiter', 'running', 300, 400, None, None, None),
        (1, 'waiter', 'missing', 200, 300, None, None, 'before its first record'),
    ])


@check
def chain_runnable_blame(r):
    """Runnable hops are blamed as --top does: hog with its priority, idle."""
    h = r['paths'][0]['hops']
    return holds('hop 6 behind the hog', 'behind hog 303 (rt 50) 8.0 us' in h[6]['text'], h[6]['text']) & \
        holds('hop 3 behind idle', 'behind idle 500 ns' in h[3]['text'], h[3]['text'])


@check
def chain_timer(r):
    """The timer chain ends at the interrupt, named, not at the task it interrupted."""
    return hops_are(r['paths'][1], [
        (0, 'victim', 'runnable', 20300, 20500, None, None, None),
        (0, 'victim', 'S', 12000, 20300, 'pipe_read', 'ticker', None),
        (1, 'ticker', 'running', 20100, 20300, None, None, None),
        (1, 'ticker', 'runnable', 20000, 20100, None, None, None),
        (1, 'ticker', 'S', 12500, 20000, 'do_nanosleep', 'timer expiry (hardirq)', None),
        (1, 'ticker', 'running', 12000, 12500, None, None, None),
    ])


@check
def chain_at(r):
    """--at 1000.000015 picks the wait that holds that time."""
    return eq('paths', [(p['start'] - T0, p['end'] - T0) for p in r['paths']], [(12000, 20500)])


@check
def paths_of(r, tid):
    """ARG TID: there are paths, and all are TID's waits."""
    return holds('paths', bool(r['paths']), r['paths']) and \
        eq('tids', [p['tid'] for p in r['paths']], [int(tid)] * len(r['paths']))


# ---- tests/corpus/irq-entries.fxt, --json --top 2 ---------------------------

@check
def irq_waker_named(r):
    """Interrupt entries without exits: waker_irq only where the handler is known."""
    return eq('waker_irq', [w.get('waker_irq') for w in r['top']], [None, 'local_timer 236']) & \
        eq('waker_context', [w['waker_context'] for w in r['top']], ['hardirq'] * len(r['top']))


# ---- gen_trace timer, --json --top 7 ----------------------------------------

@check
def timer_sleeper(r):
    """sleeper (400): 4 timer waits from due to switch-in (200 to 1000 ns), its wakeup by the hog a wakeup wait."""
    v = group(r, 400)
    return eq('timer waits', (v['timer']['count'], v['timer']['max'], v['timer']['min']), (4, 1000, 200)) & \
        eq('wakeup waits', v['wakeup']['count'], 1)


@check
def timer_no_expiry(r):
    """A wakeup without a timer expiry (401's) stays a wakeup wait."""
    return eq('401 wakeup, timer waits', (group(r, 401)['wakeup']['count'], group(r, 401)['timer']['count']), (1, 0))


@check
def timer_parts_sum(r):
    """Each timer wait has due, fired, woken and ran, and parts that sum to its latency; 4 of them."""
    good = True
    for w in r['top']:
        if w['kind'] != 'timer':
            continue
        good &= eq(f"{w['start']}: parts", sorted(w['parts']), ['handler', 'timer_late', 'wait'])
        good &= holds(f"{w['start']}: parts summed == latency == ran - due",
                      sum(w['parts'].values()) == w['latency'] == w['ran'] - w['due'],
                      (w['parts'], w['latency'], w['ran'] - w['due']))
        good &= eq(f"{w['start']}: start", w['start'], w['due'])
        good &= holds(f"{w['start']}: due <= fired <= woken <= ran",
                      w['due'] <= w['fired'] <= w['woken'] <= w['ran'],
                      (w['due'], w['fired'], w['woken'], w['ran']))
    return good & eq('timer waits', sum(w['kind'] == 'timer' for w in r['top']), 4)


@check
def timer_parts_exact(r):
    """The parts are exact: timer_late fired - due, handler woken - fired, wait ran - woken."""
    return eq('parts', [(w['parts']['timer_late'], w['parts']['handler'], w['parts']['wait'], w['largest_part'])
                        for w in r['top'] if w['kind'] == 'timer'],
              [(150, 10, 840, 'wait'), (600, 50, 350, 'timer_late'), (300, 10, 0, 'timer_late'),
               (100, 20, 80, 'timer_late')])


@check
def timer_at_due(r):
    """What the timer's CPU did at the due time: an interrupt handler, a thread with its priority, idle."""
    return eq('at_due', [w['at_due'] for w in r['top'] if w['kind'] == 'timer'],
              [{'what': 'hardirq', 'irq': 'irq 30 nvme'}, {'what': 'thread', 'tid': 401, 'comm': 'hog', 'prio': 120},
               {'what': 'thread', 'tid': 400, 'comm': 'sleeper', 'prio': 120}, {'what': 'idle'}])


@check
def timer_wait_blame(r):
    """The wait part gets a wakeup's blame: what ran from the wakeup to the switch-in."""
    w = r['top'][1]
    return eq('blame', w['blame']['threads'], [{'tid': 401, 'comm': 'hog', 'prio': 120, 'ns': 350}]) & \
        eq('waker_context', w['waker_context'], 'hardirq')


@check
def timer_critical_path(r):
    """--critical-path --json: the timer hop's due and fired times and lateness."""
    return eq('timer hops', [(h['timer_due'], h['timer_fired'], h['timer_late'])
                             for h in r['paths'][0]['hops'] if 'timer_late' in h],
              [(T0 + 5000, T0 + 5150, 150)])


@check
def masks_high_only(r):
    """gen_trace masks: thread 700, allowed CPUs 64-65 only, is not blamed on idle CPU 0."""
    h = wait_of(r, 700)
    return all([eq('latency', h['latency'], 2000),
                eq('higher_priority', h['causes']['higher_priority'], 2000),
                eq('idle_allowed_elsewhere', h['idle_allowed_elsewhere'], 0),
                eq('idle_allowed_cpu', h['idle_allowed_cpu'], -1),
                eq('cpus_allowed', h['cpus_allowed'], 0),
                eq('cpus_allowed_list', h['cpus_allowed_list'], '64-65')])


@check
def masks_split(r):
    """gen_trace masks: thread 701, allowed CPUs 1 and 129, is blamed on idle CPU 129, not 0."""
    s = wait_of(r, 701)
    return all([eq('latency', s['latency'], 1500),
                eq('idle_allowed_elsewhere', s['idle_allowed_elsewhere'], 1500),
                eq('idle_allowed_cpu', s['idle_allowed_cpu'], 129),
                eq('idle_allowed_cpu_ns', s['idle_allowed_cpu_ns'], 1500),
                eq('cpus_allowed', s['cpus_allowed'], 2),
                eq('cpus_allowed_list', s['cpus_allowed_list'], '1,129')])


@check
def masks_cut(r):
    """gen_trace masks: thread 705's mask, cut at CPU 576, allows CPU 600."""
    c = wait_of(r, 705)
    return all([eq('idle_allowed_elsewhere', c['idle_allowed_elsewhere'], 1500),
                eq('idle_allowed_cpu', c['idle_allowed_cpu'], 600),
                eq('cpus_allowed_list', c['cpus_allowed_list'],
                   '64,128,192,256,320,384,448,512,576-')])


@check
def masks_work_conservation(r):
    """gen_trace masks: work conservation counts CPUs 129 and 600, never CPU 0."""
    return eq('work_conservation cpus', r['work_conservation']['cpus'],
              [{'cpu': 129, 'idle_ns': 1500, 'longest_ns': 1500},
               {'cpu': 600, 'idle_ns': 1500, 'longest_ns': 1500}])


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in CHECKS:
        if sys.argv[1:2] == ['--list']:
            print('\n'.join(f'{name}: {fn.__doc__.splitlines()[0]}' for name, fn in CHECKS.items()))
            sys.exit(0)
        print('usage: check_latency_json.py NAME REPORT.json [ARG...] (--list: the names)', file=sys.stderr)
        if len(sys.argv) > 1:
            print(f"check_latency_json.py: no check named '{sys.argv[1]}' (--list shows them)", file=sys.stderr)
        sys.exit(2)
    name, path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    try:
        with open(path) as f:
            r = json.load(f)
        good = CHECKS[name](r, *args)
    except Exception as e:  # a report without what the check looks at fails it
        _seen.append(f'{type(e).__name__}: {e}')
        good = False
    if not good:
        print(f'# {name}: ' + ('\n#   '.join(_seen) if _seen else 'failed'))
    sys.exit(0 if good else 1)


if __name__ == '__main__':
    main()
