// SPDX-License-Identifier: GPL-2.0
/*
 * A SCHED_FIFO spinner: pins itself to CPU, takes SCHED_FIFO priority PRIO
 * and spins for MS milliseconds, starving every task of lower priority on
 * that CPU (RT throttling aside): busybox has taskset but no chrt.
 * usage: fifo_hog_workload PRIO CPU MS
 * Exits EXIT_CANNOT_RUN_HERE (tests/lib/workload.h) when it cannot run
 * (no such CPU, or SCHED_FIFO refused).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "lib/workload.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int parse(const char *what, const char *s, long min, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || end == s || *end || *v < min || *v > max) {
		fprintf(stderr, "fifo_hog: %s '%s' is not a number from %ld to %ld\n",
			what, s, min, max);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { 0 };
	unsigned long long end;
	long prio, cpu, ms;
	cpu_set_t set;

	if (argc != 4) {
		fprintf(stderr, "usage: fifo_hog_workload PRIO CPU MS\n");
		return 2;
	}
	if (parse("PRIO", argv[1], 1, 99, &prio) || parse("CPU", argv[2], 0, CPU_SETSIZE - 1, &cpu) ||
	    parse("MS", argv[3], 0, 3600000, &ms))
		return 2;
	prctl(PR_SET_NAME, "fifo_hog");
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "fifo_hog: cannot run on CPU %ld: %s\n", cpu, strerror(errno));
		return EXIT_CANNOT_RUN_HERE;
	}
	sp.sched_priority = prio;
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "fifo_hog: SCHED_FIFO %ld refused: %s\n", prio, strerror(errno));
		return EXIT_CANNOT_RUN_HERE;
	}
	end = now_ns() + ms * 1000000ULL;
	while (now_ns() < end)
		;
	return 0;
}
