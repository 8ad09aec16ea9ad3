#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A timer storm: 8 threads sleeping 100 us at a time for SECONDS, so that
every CPU takes timer interrupts and their softirqs many times a second.
usage: timer_storm_workload.py SECONDS"""
import sys
import threading
import time

end = time.monotonic() + float(sys.argv[1])


def sleeper():
    while time.monotonic() < end:
        time.sleep(0.0001)


threads = [threading.Thread(target=sleeper) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
