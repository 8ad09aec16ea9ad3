# SPDX-License-Identifier: GPL-2.0
"""TAP helpers for the Python checks: ok(), skip(), finish(), and the KEY=VALUE
files the test workloads write."""
import sys

# The exit status of a workload or script that cannot run here, after it
# has said why: the suite that ran it reports a SKIP with that reason.
# kselftest's KSFT_SKIP; the same in tests/lib/tap.sh and tests/lib/workload.h.
EXIT_CANNOT_RUN_HERE = 4

_n = _failed = _skipped = 0


def ok(cond, what, detail=None):
    """One TAP line; on failure, what was seen as a comment."""
    global _n, _failed
    _n += 1
    _failed += not cond
    print(f"{'' if cond else 'not '}ok {_n} - {what}")
    if not cond and detail is not None:
        print(f"#   got: {detail}")
    return cond


def skip(what, why):
    """One TAP line for a check that cannot be made here, and why."""
    global _n, _skipped
    _n += 1
    _skipped += 1
    print(f"ok {_n} - {what} # SKIP {why}")


def finish():
    print(f'1..{_n}')
    print(f'# {_n - _failed - _skipped} passed, {_failed} failed, {_skipped} skipped')
    sys.exit(1 if _failed else 0)


def read_expect(path):
    """pid=, victim=, ... as integers."""
    return {k: int(v) for k, v in (line.strip().split('=', 1) for line in open(path) if '=' in line)}
