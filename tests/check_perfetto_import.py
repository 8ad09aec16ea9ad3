#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A ktrace archive as Perfetto itself imports it: its trace processor
(../shared/tools/perfetto/trace_processor_shell, or $PERFETTO_TP), the
engine behind the Perfetto UI, against what ktrace dump says the archive
holds.

check_perfetto_import.py KTRACE TRACE: TAP output; exit 0 when the checks
pass, 1 when one fails, EXIT_CANNOT_RUN_HERE (tests/lib/tap.py) when the
trace processor is not here (the caller says SKIP).
 - no import error or data loss in Perfetto's stats;
 - a Waking row per wakeup record;
 - the waker Perfetto shows: the woken thread itself only for a wakeup
   that names none (from an interrupt), never for one a thread made;
 - the threads the archive names, by Perfetto's thread table (one of
   each thread's names: Perfetto shows one).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
import tap  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TP = os.environ.get('PERFETTO_TP') or \
    os.path.join(ROOT, '..', 'shared', 'tools', 'perfetto', 'trace_processor_shell')


def query(trace, sql):
    out = subprocess.run([TP, '-Q', sql, trace], capture_output=True, text=True, timeout=300)
    if out.returncode:
        sys.exit('check_perfetto_import: %s: %s' % (TP, out.stderr.strip()[-400:]))
    lines = [l for l in out.stdout.splitlines() if l.startswith('"') or l[:1].isdigit()]
    return [[c.strip('"') for c in l.split(',')] for l in lines[1:]]


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: check_perfetto_import.py KTRACE TRACE')
    ktrace, trace = sys.argv[1:]
    if not os.access(TP, os.X_OK) or subprocess.run([TP, '--version'], capture_output=True).returncode:
        print('# no runnable Perfetto trace processor at %s' % TP)
        sys.exit(tap.EXIT_CANNOT_RUN_HERE)
    dump = subprocess.run([ktrace, 'dump', trace], capture_output=True, text=True).stdout
    wakeups = re.findall(r' wakeup: tid=(\d+).*  \[.*?( woken by |\])', dump)
    by_thread = sum(1 for _, how in wakeups if how == ' woken by ')
    named = {}
    for tid, name in re.findall(r'kernel_object: thread koid=(\d+) name="((?:[^"\\]|\\.)*)"', dump):
        # dump escapes what is not printable ASCII, quotes and backslashes as \xNN
        name = re.sub(r'\\x([0-9a-f]{2})', lambda m: chr(int(m.group(1), 16)), name)
        named.setdefault(tid, set()).add(name)

    errs = query(trace, "select name, idx, value from stats "
                        "where severity in ('error', 'data_loss') and value > 0")
    tap.ok(not errs, 'Perfetto imports %s with no error or data loss' % os.path.basename(trace), errs)
    w = query(trace, "select count(*), coalesce(sum(waker_utid = utid), 0) from thread_state "
                     "where state = 'W'")
    rows, self_woken = int(w[0][0]), int(w[0][1])
    tap.ok(rows == len(wakeups), 'a Waking row per wakeup record (%d, %d records)' % (rows, len(wakeups)))
    tap.ok(self_woken == len(wakeups) - by_thread,
           'the woken thread shown as its own waker only where no thread made the wakeup '
           '(%d of %d; %d made by a thread)' % (self_woken, rows, by_thread))
    threads = {r[0]: r[1] for r in query(trace, "select tid, name from thread where name is not null")}
    # A thread renamed (exec, prctl) keeps one of its names: Perfetto shows one.
    missing = sorted((tid, names) for tid, names in named.items()
                     if tid != '0' and threads.get(tid) not in names)
    tap.ok(not missing, 'every thread the archive names, by one of its names in Perfetto (%d)'
           % len(named), missing[:5])
    tap.finish()


if __name__ == '__main__':
    main()
