#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks ktrace latency --critical-path on a recording of chain_workload:
the pipe <- mutex <- preempted holder chain and the chain that ends in a
timer, hop by hop (threads, who woke whom, where each blocked, blame).
usage: check_critical_path.py KTRACE TRACE EXPECT_FILE"""
import json
import re
import subprocess
import sys

sys.path.insert(0, __import__('os').path.join(__import__('os').path.dirname(__file__), 'lib'))
from tap import ok, finish, read_expect  # noqa: E402

ktrace, trace, expect = sys.argv[1:4]
tid = read_expect(expect)
out = subprocess.run([ktrace, 'latency', trace, '--critical-path', '--comm', 'victim', '--top', '3',
                      '--json'], capture_output=True, text=True)
ok(out.returncode == 0, 'latency --critical-path --json runs', out.stderr)
report = json.loads(out.stdout) if out.returncode == 0 else {'paths': []}
paths = report['paths']
ok(all(p['tid'] == tid['victim'] for p in paths) and paths,
   'every path is one of the victim\'s waits', [p['tid'] for p in paths])


def children(path, hop):
    return [h for h in path['hops'] if h['parent'] == hop['id']]


def blocked(hops, who, fn, waker=None):
    """The hop of @who blocked in a function matching @fn, woken by @waker."""
    for h in hops:
        if h['tid'] == tid[who] and h['state'] in 'SD' and re.search(fn, h.get('blocked_in', '')) \
                and (waker is None or h.get('woken_by') == tid[waker]):
            return h
    return None


# Chain 1: victim <- waiter (pipe) <- holder (futex) <- preempted by hog.
chain = None
for p in paths:
    root = blocked([h for h in p['hops'] if h['depth'] == 0], 'victim', 'pipe_read', 'waiter')
    if root:
        chain = (p, root)
ok(chain is not None, 'a victim wait: blocked in pipe_read, woken by waiter',
   [[(h['comm'], h['state'], h.get('blocked_in'), h.get('woken_by_comm')) for h in p['hops']
     if h['depth'] == 0] for p in paths])
waiter = holder_hops = None
if chain:
    p, root = chain
    waiter = blocked(children(p, root), 'waiter', 'futex', 'holder')
    ok(waiter is not None, 'waiter meanwhile: blocked in a futex, woken by holder',
       [(h['comm'], h['state'], h.get('blocked_in')) for h in children(p, root)])
if waiter:
    holder_hops = children(p, waiter)
    hog = [h for h in holder_hops if h['tid'] == tid['holder'] and h['state'] == 'runnable'
           and re.search(r'\bhog %d \(rt 50\)' % tid['hog'], h['text'])]
    ok(bool(hog), 'holder meanwhile: runnable behind hog (rt 50)',
       [(h['comm'], h['state'], h['text']) for h in holder_hops])
    ok(hog and hog[0]['end'] - hog[0]['start'] >= 7_000_000,
       'holder waited behind the hog for about its 8 ms of spinning',
       hog and hog[0]['end'] - hog[0]['start'])
    running = sum(h['end'] - h['start'] for h in holder_hops if h['state'] == 'running')
    # Its work spins on the clock: on a busy machine others take part of it.
    ok(running > 0, 'holder\'s running spans are on the path', running)
if chain:
    p, root = chain
    covered = sum(h['end'] - h['start'] for h in p['hops'] if h['depth'] == 0)
    ok(covered == p['end'] - p['start'], 'the victim\'s own hops cover the wait exactly',
       (covered, p['end'] - p['start']))

# Chain 2: victim <- ticker (pipe) <- timer.
timer = timer_path = None
for p in paths:
    root = blocked([h for h in p['hops'] if h['depth'] == 0], 'victim', 'pipe_read', 'ticker')
    if root:
        timer = blocked(children(p, root), 'ticker', 'nanosleep')
        timer_path = p
ok(timer is not None, 'a victim wait woken by ticker, which slept in nanosleep',
   [[(h['comm'], h['state'], h.get('blocked_in')) for h in p['hops']] for p in paths])
# The interrupt is its recorded handler (on by default: the local timer, or
# the timer's device irq where it has no vector of its own, or on PREEMPT_RT,
# where a sleeper's timer is a soft one, the HRTIMER softirq), else "timer expiry".
TIMER_IRQ = r'(timer expiry|local_timer \d+ \(hardirq\)|irq \d+[^(]* \(hardirq\)|softirq HRTIMER \(softirq\))'
ok(timer is not None and 'woken_by' not in timer and
   re.match(TIMER_IRQ, timer.get('interrupt', '')),
   'the chain ends at the timer: woken by an interrupt, named by its handler or timer expiry, '
   'not a task', timer)
ok(timer is not None and not children(timer_path, timer), 'nothing is followed past the interrupt')

# The text report names the same.
out = subprocess.run([ktrace, 'latency', trace, '--critical-path', '--comm', 'victim', '--top', '3'],
                     capture_output=True, text=True)
text = out.stdout
ok(out.returncode == 0 and all(re.search(pat, text) for pat in (
    r'victim %d\s+blocked \(S\) in \w*pipe_read, woken by waiter %d' % (tid['victim'], tid['waiter']),
    r'waiter %d\s+blocked \(S\) in futex\w*, woken by holder %d' % (tid['waiter'], tid['holder']),
    r'holder %d\s+runnable on CPU 0 behind hog %d \(rt 50\)' % (tid['holder'], tid['hog']),
    r'ticker %d\s+blocked \(S\) in \w*nanosleep, woken by interrupt: ' % tid['ticker'] + TIMER_IRQ)),
   'the text report names waiter, holder, hog and the timer, and where each blocked', text)
finish()
