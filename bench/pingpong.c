// SPDX-License-Identifier: GPL-2.0
/*
 * Context-switch microbenchmark: two threads pinned to one CPU pass a byte
 * back and forth through pipes; each round trip is two context switches and
 * two wakeups.  Prints nanoseconds per round trip.
 * usage: pingpong [ROUND_TRIPS] [CPU] [BLOCK]
 * With BLOCK, also prints the figure for every BLOCK round trips, one per
 * line, before the overall one: a host that takes the CPU away now and
 * then slows some blocks down, and the fastest blocks show the cost
 * without that interference.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int a[2], b[2], cpu;
static long rounds = 200000, block;

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

static double ns_since(const struct timespec *t0, struct timespec *t1)
{
	clock_gettime(CLOCK_MONOTONIC, t1);
	return (t1->tv_sec - t0->tv_sec) * 1e9 + (t1->tv_nsec - t0->tv_nsec);
}

int main(int argc, char **argv)
{
	struct timespec t0, t1, tb = { 0 };
	pthread_t t;
	char c = 'x';

	if (argc > 1)
		rounds = atol(argv[1]);
	if (argc > 2)
		cpu = atoi(argv[2]);
	if (argc > 3)
		block = atol(argv[3]);
	if (pipe(a) || pipe(b))
		return 1;
	pin();
	pthread_create(&t, NULL, pong, NULL);
	/* The first tenth warms up; the rest is timed. */
	for (long i = 0; i < rounds; i++) {
		if (i == rounds / 10) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			tb = t0;
		} else if (block && i > rounds / 10 && (i - rounds / 10) % block == 0) {
			printf("%.1f\n", ns_since(&tb, &t1) / block);
			tb = t1;
		}
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return 1;
	}
	printf("%.1f\n", ns_since(&t0, &t1) / (rounds - rounds / 10));
	pthread_join(t, NULL);
	return 0;
}
