/* SPDX-License-Identifier: GPL-2.0 */
/* For the workloads: wait until another thread of this process sleeps. */
#ifndef KTRACE_TESTS_ASLEEP_H
#define KTRACE_TESTS_ASLEEP_H

#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/*
 * Waits until thread @tid of this process sleeps (state S), a busy machine
 * or not: a workload whose next step must find the thread blocked cannot
 * rely on a fixed delay.  Returns at once if the thread is gone.
 */
static inline void wait_asleep(pid_t tid)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	for (;;) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = 0;
		p = strrchr(buf, ')');
		if (!p || (p[1] == ' ' && p[2] == 'S'))
			return;
		usleep(1000);
	}
}

#endif
