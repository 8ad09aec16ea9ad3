// SPDX-License-Identifier: GPL-2.0
/*
 * A real-time thread woken on a CPU where a fair thread spins in the
 * kernel: "kt_spinner" (SCHED_OTHER, pinned to CPU 1) writes SPIN_US to
 * the test module's spin parameter (tests/kmod-api: a busy-wait in the
 * kernel with no preemption point), ROUNDS times, 2 ms apart;
 * "kt_rt" (SCHED_FIFO 50, pinned to CPU 1) sleeps 1 ms at a time
 * meanwhile.  Without full preemption each of its wakeups during a spin
 * waits until the spin ends: not_preempted, behind kt_spinner.  With full
 * preemption or PREEMPT_RT it runs at once.
 * usage: preempt_workload EXPECT_FILE [ROUNDS [SPIN_US]]
 * EXPECT_FILE gets pid, spinner, rt, rounds and spin_us.  Exits
 * EXIT_CANNOT_RUN_HERE when it cannot run (one CPU, SCHED_FIFO refused, no
 * test module).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/workload.h"

#define SPIN_PARAM	"/sys/module/ktrace_api_test/parameters/spin"

static long rounds, spin_us;
static int stop;
static pid_t spinner_tid, rt_tid;

static void die(const char *what)
{
	fprintf(stderr, "preempt_workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void pin(int cpu)
{
	if (wl_pin(cpu))
		die("pin to CPU 1");
}

static void *rt(void *arg)
{
	struct sched_param sp = { .sched_priority = 50 };

	(void)arg;
	prctl(PR_SET_NAME, "kt_rt");
	pin(1);
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "preempt_workload: SCHED_FIFO refused: %s\n", strerror(errno));
		exit(EXIT_CANNOT_RUN_HERE);
	}
	__atomic_store_n(&rt_tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		wl_sleep_us(1000);
	return NULL;
}

static void *spinner(void *arg)
{
	char val[32];
	int len, fd;

	(void)arg;
	prctl(PR_SET_NAME, "kt_spinner");
	pin(1);
	__atomic_store_n(&spinner_tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	len = snprintf(val, sizeof(val), "%ld", spin_us);
	for (long r = 0; r < rounds; r++) {
		fd = open(SPIN_PARAM, O_WRONLY);
		if (fd < 0 || write(fd, val, len) != len)
			die(SPIN_PARAM);
		close(fd);
		wl_sleep_us(2000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t st, rtt;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: preempt_workload EXPECT_FILE [ROUNDS [SPIN_US]]\n");
		return 2;
	}
	rounds = argc > 2 ? atol(argv[2]) : 5;
	spin_us = argc > 3 ? atol(argv[3]) : 20000;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "preempt_workload: needs two CPUs\n");
		return EXIT_CANNOT_RUN_HERE;
	}
	if (access(SPIN_PARAM, W_OK)) {
		fprintf(stderr, "preempt_workload: %s: %s (load tests/kmod-api's ktrace_api_test.ko)\n",
			SPIN_PARAM, strerror(errno));
		return EXIT_CANNOT_RUN_HERE;
	}
	if (pthread_create(&rtt, NULL, rt, NULL))
		die("pthread_create");
	while (!__atomic_load_n(&rt_tid, __ATOMIC_ACQUIRE))
		wl_sleep_us(1000);
	if (pthread_create(&st, NULL, spinner, NULL))
		die("pthread_create");
	while (!__atomic_load_n(&spinner_tid, __ATOMIC_ACQUIRE))
		wl_sleep_us(1000);
	f = fopen(argv[1], "w");
	if (!f)
		die(argv[1]);
	fprintf(f, "pid=%d\nspinner=%d\nrt=%d\nrounds=%ld\nspin_us=%ld\n", getpid(), spinner_tid,
		rt_tid, rounds, spin_us);
	if (fclose(f))
		die(argv[1]);
	pthread_join(st, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(rtt, NULL);
	return 0;
}
