// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling latencies of known length, for ktrace latency and the latency
 * trigger.  "victim" (SCHED_OTHER) and "hog" (SCHED_FIFO 10) are pinned on
 * CPU 1, the main thread on CPU 0.  Each round does both:
 *  - wakeup: main wakes the hog, waits until it spins, then wakes the
 *    victim; the hog spins until HOG_US after that, so the victim's
 *    wakeup latency is HOG_US, spent behind the hog, woken by main;
 *  - preemption: main wakes the victim, which spins until the hog is done;
 *    main then wakes the hog, which preempts the victim and spins HOG_US: the
 *    victim's preemption latency is HOG_US.
 * usage: latency_workload EXPECT_FILE [ROUNDS [HOG_US]]
 * EXPECT_FILE gets pid, main, victim, hog, rounds and hog_us, before the
 * rounds start (a latency trigger may end the recording, and this, early).
 * Exits EXIT_CANNOT_RUN_HERE (tests/lib/workload.h) when it cannot run
 * (one CPU, or SCHED_FIFO refused).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/asleep.h"
#include "lib/workload.h"

static int hog_pipe[2], victim_pipe[2], done_pipe[2];
static long hog_us;
static uint64_t spin_until_base;	/* 0: the hog times itself from its own start */
static int hog_spinning, victim_spinning;
static unsigned int hog_spins;	/* spins the hog has finished */
static pid_t victim_tid, hog_tid;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void die(const char *what)
{
	fprintf(stderr, "latency_workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Spins from its wakeup until HOG_US after the base main sets (or its own start). */
static void *hog(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	char c;

	prctl(PR_SET_NAME, "hog");
	hog_tid = syscall(SYS_gettid);
	if (pin(1) || sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "latency_workload: SCHED_FIFO on CPU 1: %s\n", strerror(errno));
		exit(EXIT_CANNOT_RUN_HERE);
	}
	while (read(hog_pipe[0], &c, 1) == 1 && c != 'q') {
		uint64_t start = now_ns(), base;

		__atomic_store_n(&hog_spinning, 1, __ATOMIC_SEQ_CST);
		for (;;) {
			base = __atomic_load_n(&spin_until_base, __ATOMIC_SEQ_CST);
			if (c == 'p')
				base = start;
			if (base && now_ns() >= base + (uint64_t)hog_us * 1000)
				break;
		}
		__atomic_store_n(&hog_spinning, 0, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&hog_spins, 1, __ATOMIC_SEQ_CST);
	}
	return arg;
}

/* 'w': answer at once; 'p': spin long enough to be preempted by the hog, then answer. */
static void *victim(void *arg)
{
	char c;

	prctl(PR_SET_NAME, "victim");
	victim_tid = syscall(SYS_gettid);
	if (pin(1))
		die("pinning the victim");
	while (read(victim_pipe[0], &c, 1) == 1 && c != 'q') {
		if (c == 'p') {
			unsigned int spins = __atomic_load_n(&hog_spins, __ATOMIC_SEQ_CST);

			/*
			 * Until the hog has preempted it and finished: a spin of
			 * fixed length can end before main, on a CPU the host
			 * does not run meanwhile (TCG), sees it, and main then
			 * waits for it forever.
			 */
			__atomic_store_n(&victim_spinning, 1, __ATOMIC_SEQ_CST);
			while (__atomic_load_n(&hog_spins, __ATOMIC_SEQ_CST) == spins)
				;
			__atomic_store_n(&victim_spinning, 0, __ATOMIC_SEQ_CST);
		}
		if (write(done_pipe[1], &c, 1) != 1)
			die("answering");
	}
	return arg;
}

static void put(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		die("writing to a pipe");
}

static void wait_flag(int *flag)
{
	while (!__atomic_load_n(flag, __ATOMIC_SEQ_CST))
		;
}

int main(int argc, char **argv)
{
	long rounds = argc > 2 ? atol(argv[2]) : 10;
	struct timespec gap = { 0, 2000000 };
	pthread_t t[2];
	FILE *f;
	char c;

	hog_us = argc > 3 ? atol(argv[3]) : 5000;
	if (argc < 2 || rounds < 1 || hog_us < 100) {
		fprintf(stderr, "usage: latency_workload EXPECT_FILE [ROUNDS [HOG_US]]\n");
		return 2;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "latency_workload: needs two CPUs\n");
		return EXIT_CANNOT_RUN_HERE;
	}
	if (pin(0))
		die("pinning the main thread");
	if (pipe(hog_pipe) || pipe(victim_pipe) || pipe(done_pipe))
		die("pipe");
	pthread_create(&t[0], NULL, hog, NULL);
	pthread_create(&t[1], NULL, victim, NULL);
	while (!__atomic_load_n(&hog_tid, __ATOMIC_SEQ_CST) ||
	       !__atomic_load_n(&victim_tid, __ATOMIC_SEQ_CST))
		usleep(1000);
	f = fopen(argv[1], "w");
	if (!f)
		die(argv[1]);
	fprintf(f, "pid=%d\nmain=%d\nvictim=%d\nhog=%d\nrounds=%ld\nhog_us=%ld\n", getpid(),
		getpid(), victim_tid, hog_tid, rounds, hog_us);
	if (fclose(f))
		die(argv[1]);
	/*
	 * Both blocked in read() before the first round: the hog's next
	 * switch-in, the first its wait blames, then shows its FIFO priority.
	 */
	wait_asleep(hog_tid);
	wait_asleep(victim_tid);
	for (long i = 0; i < rounds; i++) {
		/*
		 * Wakeup latency: the victim wakes behind a spinning hog.  It
		 * must be asleep in read() first: on a busy machine it may
		 * not be back there yet from the round before, and then the
		 * hog would preempt it instead (no wakeup wait this round).
		 */
		wait_asleep(victim_tid);
		__atomic_store_n(&spin_until_base, 0, __ATOMIC_SEQ_CST);
		put(hog_pipe[1], 'w');
		wait_flag(&hog_spinning);
		put(victim_pipe[1], 'w');
		__atomic_store_n(&spin_until_base, now_ns(), __ATOMIC_SEQ_CST);
		if (read(done_pipe[0], &c, 1) != 1)
			die("waiting for the victim");
		nanosleep(&gap, NULL);

		/* Preemption latency: the hog preempts the spinning victim. */
		put(victim_pipe[1], 'p');
		wait_flag(&victim_spinning);
		put(hog_pipe[1], 'p');
		if (read(done_pipe[0], &c, 1) != 1)
			die("waiting for the victim");
		nanosleep(&gap, NULL);
	}
	put(hog_pipe[1], 'q');
	put(victim_pipe[1], 'q');
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	return 0;
}
