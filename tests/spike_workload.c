// SPDX-License-Identifier: GPL-2.0
/*
 * Spikes of a known cause at known times, with quiet stretches between
 * them, for ktrace watch.  "kt_victim" (SCHED_FIFO 5, so that no fair
 * thread of a busy machine keeps it waiting) and "kt_hog" (SCHED_FIFO 10)
 * are pinned to CPU 1, the main thread to CPU 0.  Each of
 * BURSTS bursts: main wakes the hog, waits until it spins, then wakes the
 * victim, which waits behind the hog for HOG_US (a wakeup wait whose
 * cause is higher_priority, behind kt_hog): the hog spins until HOG_US
 * after main woke the victim, however late main got there (a busy machine
 * or an emulated CPU may keep it off its CPU longer than a burst); then
 * GAP_MS of quiet, in which the victim sleeps.  The victim wakes for
 * nothing else.
 * usage: spike_workload EXPECT_FILE [BURSTS [HOG_US [GAP_MS]]]
 * EXPECT_FILE gets pid, victim, hog, bursts, hog_us and gap_ms before the
 * first burst.  Exits EXIT_CANNOT_RUN_HERE when it cannot run (one CPU,
 * SCHED_FIFO refused).
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
static int hog_spinning;
static uint64_t spin_base;	/* 0 until main has woken the victim */
static pid_t victim_tid, hog_tid;

static void die(const char *what)
{
	fprintf(stderr, "spike_workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *hog(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	char c;

	(void)arg;
	if (wl_pin(1) || sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "spike_workload: SCHED_FIFO on CPU 1: %s\n", strerror(errno));
		exit(EXIT_CANNOT_RUN_HERE);
	}
	/* Named once real-time on its CPU: no wait of its start, a fair thread's, is under it. */
	prctl(PR_SET_NAME, "kt_hog");
	__atomic_store_n(&hog_tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (read(hog_pipe[0], &c, 1) == 1 && c != 'q') {
		uint64_t base;

		__atomic_store_n(&hog_spinning, 1, __ATOMIC_SEQ_CST);
		for (;;) {
			base = __atomic_load_n(&spin_base, __ATOMIC_SEQ_CST);
			if (base && wl_now_ns() >= base + hog_us * 1000)
				break;
		}
		__atomic_store_n(&spin_base, 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&hog_spinning, 0, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void *victim(void *arg)
{
	struct sched_param sp = { .sched_priority = 5 };
	char c;

	(void)arg;
	if (wl_pin(1) || sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "spike_workload: SCHED_FIFO on CPU 1: %s\n", strerror(errno));
		exit(EXIT_CANNOT_RUN_HERE);
	}
	/* Named once real-time on its CPU: no wait of its start, a fair thread's, is under it. */
	prctl(PR_SET_NAME, "kt_victim");
	__atomic_store_n(&victim_tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (read(victim_pipe[0], &c, 1) == 1 && c != 'q')
		if (write(done_pipe[1], "d", 1) != 1)
			die("write done pipe");
	return NULL;
}

int main(int argc, char **argv)
{
	long bursts = argc > 2 ? atol(argv[2]) : 5, gap_ms;
	struct timespec gap;
	pthread_t ht, vt;
	FILE *f;
	char c;

	if (argc < 2) {
		fprintf(stderr, "usage: spike_workload EXPECT_FILE [BURSTS [HOG_US [GAP_MS]]]\n");
		return 2;
	}
	hog_us = argc > 3 ? atol(argv[3]) : 20000;
	gap_ms = argc > 4 ? atol(argv[4]) : 1000;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "spike_workload: needs two CPUs\n");
		return EXIT_CANNOT_RUN_HERE;
	}
	if (wl_pin(0))
		die("pin the main thread to CPU 0");
	if (pipe(hog_pipe) || pipe(victim_pipe) || pipe(done_pipe))
		die("pipe");
	if (pthread_create(&ht, NULL, hog, NULL) || pthread_create(&vt, NULL, victim, NULL))
		die("pthread_create");
	while (!__atomic_load_n(&hog_tid, __ATOMIC_ACQUIRE) ||
	       !__atomic_load_n(&victim_tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	f = fopen(argv[1], "w");
	if (!f)
		die(argv[1]);
	fprintf(f, "pid=%d\nvictim=%d\nhog=%d\nbursts=%ld\nhog_us=%ld\ngap_ms=%ld\n", getpid(),
		victim_tid, hog_tid, bursts, hog_us, gap_ms);
	if (fclose(f))
		die(argv[1]);
	gap.tv_sec = gap_ms / 1000;
	gap.tv_nsec = gap_ms % 1000 * 1000000;
	for (long b = 0; b < bursts; b++) {
		nanosleep(&gap, NULL);
		wait_asleep(victim_tid);
		if (write(hog_pipe[1], "g", 1) != 1)
			die("write hog pipe");
		while (!__atomic_load_n(&hog_spinning, __ATOMIC_SEQ_CST))
			;
		__atomic_store_n(&spin_base, wl_now_ns(), __ATOMIC_SEQ_CST);
		if (write(victim_pipe[1], "w", 1) != 1 || read(done_pipe[0], &c, 1) != 1)
			die("burst");
		/* The hog is done before the next burst wakes it. */
		while (__atomic_load_n(&hog_spinning, __ATOMIC_SEQ_CST))
			wl_sleep_us(1000);
	}
	nanosleep(&gap, NULL);
	/* The hog gone first: the victim's last wakeup waits behind no exit. */
	if (write(hog_pipe[1], "q", 1) != 1)
		die("quit");
	pthread_join(ht, NULL);
	if (write(victim_pipe[1], "q", 1) != 1)
		die("quit");
	pthread_join(vt, NULL);
	return 0;
}
