/* SPDX-License-Identifier: GPL-2.0 */
/* For the workloads: the clock, pinning and sleeping as they all do it. */
#ifndef KTRACE_TESTS_WORKLOAD_H
#define KTRACE_TESTS_WORKLOAD_H

#include <sched.h>
#include <stdint.h>
#include <time.h>

/*
 * The exit status of a workload that cannot run here (one CPU, SCHED_FIFO
 * refused, ...), after it has said why on stderr: the suite that ran it
 * reports a SKIP with that reason.  kselftest's KSFT_SKIP; the same in
 * tests/lib/tap.sh and tests/lib/tap.py.
 */
#define EXIT_CANNOT_RUN_HERE	4

/* CLOCK_MONOTONIC in ns: the recorders' clock. */
static inline uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The calling thread may run on @cpu only: 0, or -1 with errno. */
static inline int wl_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static inline void wl_sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

#endif
