#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What Perfetto's FXT importer would make of an archive, by the rules in
../shared/research/perfetto-fxt-import.md (sections 1 to 5), for a machine
where its trace processor cannot run.

usage: check_perfetto_rules.py A.fxt [B.fxt]

For each file: the importer's errors (the stats it would count, and a
thread reference to an index the table does not hold, which it maps to
tid 0 without a word), then its sched rows (ts, cpu, tid, priority, dur,
end state), its wakeups (ts, tid, waker) and its threads (tid, name,
process).  With two files (a trace as the recorders write it and its
compact rewrite), every row must be the same, but for the wakers of the
compact wakeups that leave theirs out (the thread their CPU runs), which
Perfetto takes for wakeups by the woken thread itself: those are counted.
TAP output.
"""
import struct
import sys

INT32_MIN = -2**31
STATES = {0: 'R', 1: 'R', 2: 'T', 3: 'S', 4: 'Z', 5: 'X'}


def bits(w, lo, hi):
    return (w >> lo) & ((1 << (hi - lo + 1)) - 1)


class Provider:
    def __init__(self):
        self.strings = {}
        self.threads = {}


class Import:
    def __init__(self, path):
        self.errors = {}
        self.sched, self.wakeups = [], []
        self.thread_pid, self.thread_name = {}, {}
        self.open = {}          # tid -> index of its open sched row
        self.providers = {0: Provider()}
        self.cur = self.providers[0]
        data = open(path, 'rb').read()
        self.words = struct.unpack('<%dQ' % (len(data) // 8), data[:len(data) // 8 * 8])
        self.read()

    def error(self, name):
        self.errors[name] = self.errors.get(name, 0) + 1

    def string(self, ref, w, i):
        """The string of @ref, and the index past its inline stream."""
        if ref & 0x8000:
            n = ref & 0x7fff
            raw = struct.pack('<%dQ' % ((n + 7) // 8), *w[i:i + (n + 7) // 8])
            return raw[:n].decode('utf-8', 'replace'), i + (n + 7) // 8
        if ref and ref not in self.cur.strings:
            self.error('fuchsia_invalid_string_ref')
            return None, i
        return self.cur.strings.get(ref, ''), i

    def args(self, w, i, n):
        out = {}
        for _ in range(n):
            h = w[i]
            size = bits(h, 4, 15)
            name, j = self.string(bits(h, 16, 31), w, i + 1)
            t = bits(h, 0, 3)
            if t == 1:
                v = bits(h, 32, 63)
                v = v - 2**32 if v >= 2**31 else v
            elif t in (2, 9):
                v = bits(h, 32, 63)
            elif t in (3, 4, 5, 7, 8):
                v = w[j]
            else:
                v = None
            out[name] = (t, v)
            i += size
        return out

    def thread(self, ref, w, i):
        if ref == 0:
            return w[i], w[i + 1], i + 2
        if ref not in self.cur.threads:
            self.error('thread reference to an undeclared index (tid 0)')
            return 0, 0, i
        pid, tid = self.cur.threads[ref]
        return pid, tid, i

    def switch_from(self, tid, ts, state):
        k = self.open.pop(tid, None)
        if k is not None:
            row = self.sched[k]
            self.sched[k] = row[:4] + (ts - row[0], STATES.get(state))

    def switch_to(self, tid, ts, cpu, prio):
        self.open[tid] = len(self.sched)
        self.sched.append((ts, cpu, tid, prio, -1, None))

    def read(self):
        w, i = self.words, 0
        while i < len(w):
            h = w[i]
            t, n = bits(h, 0, 3), bits(h, 4, 15)
            if t == 15:
                n = bits(h, 4, 35)
            if n == 0:
                self.error('fatal: record of size 0')
                return
            r = w[i:i + n]
            i += n
            if t == 0 and bits(h, 16, 19) == 1:
                self.cur = self.providers[bits(h, 20, 51)] = Provider()
            elif t == 0 and bits(h, 16, 19) == 2:
                self.cur = self.providers.get(bits(h, 20, 51))
                if self.cur is None:
                    self.error('fuchsia_invalid_event')
                    self.cur = Provider()
            elif t == 2 and bits(h, 16, 30):
                self.cur.strings[bits(h, 16, 30)] = self.string(0x8000 | bits(h, 32, 46), r, 1)[0]
            elif t == 3 and bits(h, 16, 23):
                self.cur.threads[bits(h, 16, 23)] = (r[1], r[2])
            elif t == 7 and bits(h, 16, 23) == 2:
                name, j = self.string(bits(h, 24, 39), r, 2)
                a = self.args(r, j, bits(h, 40, 43))
                proc = a.get('process')
                if proc and proc[0] != 8:
                    self.error('fuchsia_invalid_event_arg_type')
                    continue
                self.thread_name[r[1] & 0xffffffff] = name
                self.thread_pid[r[1] & 0xffffffff] = proc[1] if proc else 0
            elif t == 8:
                self.sched_record(h, r)

    def sched_record(self, h, r):
        sub, ts = bits(h, 60, 63), r[1]
        if sub == 0:
            cpu, state = bits(h, 16, 23), bits(h, 24, 27)
            _, out_tid, j = self.thread(bits(h, 28, 35), r, 2)
            _, in_tid, j = self.thread(bits(h, 36, 43), r, j)
            out_prio, in_prio = bits(h, 44, 51), bits(h, 52, 59)
            out_idle = self.thread_pid.get(out_tid, 0) == 0 and out_prio == 0
            in_idle = self.thread_pid.get(in_tid, 0) == 0 and in_prio == 0
        elif sub == 1:
            cpu, state = bits(h, 20, 35), bits(h, 36, 39)
            out_tid, in_tid = r[2], r[3]
            a = self.args(r, 4, bits(h, 16, 19))
            ws = [a.get(k, (1, 0)) for k in ('outgoing_weight', 'incoming_weight')]
            if any(x[0] != 1 for x in ws):
                self.error('fuchsia_invalid_event_arg_type')
                return
            out_prio, in_prio = ws[0][1], ws[1][1]
            out_idle, in_idle = out_prio == INT32_MIN, in_prio == INT32_MIN
        elif sub == 2:
            tid = r[2]
            a = self.args(r, 3, bits(h, 16, 19))
            weight, waker = a.get('weight', (1, 0)), a.get('waker')
            if weight[0] != 1 or (waker and waker[0] != 8):
                self.error('fuchsia_invalid_event_arg_type')
                return
            if weight[1] != INT32_MIN:
                self.wakeups.append((ts, tid & 0xffffffff,
                                     (waker[1] if waker else tid) & 0xffffffff))
            return
        else:
            return
        out_tid &= 0xffffffff
        in_tid &= 0xffffffff
        if not out_idle:
            self.switch_from(out_tid, ts, state)
        if not in_idle:
            self.switch_to(in_tid, ts, cpu, in_prio)


n = failed = 0


def ok(cond, what, diag=None):
    global n, failed
    n += 1
    failed += not cond
    print('%sok %d - %s' % ('' if cond else 'not ', n, what))
    if not cond and diag:
        print('#   ' + diag)
    return cond


imports = [Import(p) for p in sys.argv[1:]]
for p, im in zip(sys.argv[1:], imports):
    ok(not im.errors, '%s: no import errors' % p, str(im.errors))
    ok(im.sched and all(r[3] > 0 for r in im.sched),
       '%s: %d sched rows, every one with a priority' % (p, len(im.sched)))
if len(imports) == 2:
    a, b = imports

    def first_diff(x, y):
        for i, (u, v) in enumerate(zip(x, y)):
            if u != v:
                return 'row %d: %s against %s' % (i, u, v)
        return 'lengths %d and %d' % (len(x), len(y))
    ok(a.sched == b.sched, 'the same %d sched rows (ts, cpu, tid, priority, dur, end state)'
       % len(a.sched), first_diff(a.sched, b.sched))
    ok([x[:2] for x in a.wakeups] == [x[:2] for x in b.wakeups],
       'the same %d wakeups (ts, tid)' % len(a.wakeups),
       first_diff(a.wakeups, b.wakeups))
    lost = [(x, y) for x, y in zip(a.wakeups, b.wakeups) if x[2] != y[2]]
    ok(all(y[2] == y[1] for _, y in lost),
       'the same wakers, but for %d of %d wakeups that leave the thread their CPU runs out '
       '(Perfetto: woken by itself)' % (len(lost), len(a.wakeups)),
       '%s against %s' % lost[0] if lost else None)
    ok(a.thread_name == b.thread_name and a.thread_pid == b.thread_pid,
       'the same %d named threads and their processes' % len(a.thread_name))
print('1..%d' % n)
sys.exit(1 if failed else 0)
