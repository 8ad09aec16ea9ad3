// SPDX-License-Identifier: GPL-2.0
/*
 * Context-switch microbenchmark: two threads pinned to one CPU pass a byte
 * back and forth through pipes; each round trip is two context switches and
 * two wakeups.  Prints nanoseconds per round trip.
 * usage: pingpong [ROUND_TRIPS] [CPU]
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int a[2], b[2], cpu;
static long rounds = 200000;

static void pin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static void *pong(void *arg)
{
	char c;

	(void)arg;
	pin();
	for (long i = 0; i < rounds; i++)
		if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
			exit(1);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t t;
	char c = 'x';

	if (argc > 1)
		rounds = atol(argv[1]);
	if (argc > 2)
		cpu = atoi(argv[2]);
	if (pipe(a) || pipe(b))
		return 1;
	pin();
	pthread_create(&t, NULL, pong, NULL);
	/* The first tenth warms up; the rest is timed. */
	for (long i = 0; i < rounds; i++) {
		if (i == rounds / 10)
			clock_gettime(CLOCK_MONOTONIC, &t0);
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(t, NULL);
	printf("%.1f\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) /
	       (rounds - rounds / 10));
	return 0;
}
