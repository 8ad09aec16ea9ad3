// SPDX-License-Identifier: GPL-2.0
/*
 * Waits spent on one CPU's queue while another CPU idles: a fair-class
 * thread, "kt_victim", spins on CPU 1, and each round a SCHED_FIFO 10
 * thread, "kt_fifo", pinned to CPU 1, preempts it and spins SPIN_US.  The
 * victim may run on CPUs 0 and 1, so the balancer may move it to CPU 0,
 * which idles meanwhile (the main thread, pinned there, only sleeps); with
 * "pinned" it may run on CPU 1 only and waits out every spin.  Before each
 * round the victim moves itself back to CPU 1, and sleeps a little so that
 * a wakeup carries its allowed CPUs.  With "running" it frees itself while
 * it runs on CPU 1 and does not sleep before the round; with
 * "pinned-running" it sleeps free, then pins itself while it runs on CPU 1,
 * as cyclictest -a, DPDK and most real-time programs pin their threads:
 * either way no wakeup carries the CPUs it waits with, and only the
 * recorders' own affinity records can tell.  (Moving itself off a CPU, it
 * blocks until the kernel's stopper has moved it, and that wakeup tells.)
 * HOME and BUSY (0 and 1 by default) stand for CPUs 0 and 1: on a machine
 * of more than 64 CPUs, 64 and 65 put every mask above CPU 63.
 * usage: placement_workload EXPECT_FILE [ROUNDS [SPIN_US [free|pinned|running|pinned-running
 *        [HOME BUSY]]]]
 * EXPECT_FILE gets pid, main, victim, fifo, rounds, spin_us, pinned,
 * running, home and busy; EXPECT_FILE.affinity each change of the victim's
 * allowed CPUs, a line "BEFORE AFTER CPUS": the CLOCK_MONOTONIC ns just
 * before and after the call, and the CPUs it allowed from then on, as a
 * list ("1" or "0,1").
 * Exits 4 when it cannot run (one CPU, no CPU HOME or BUSY, or SCHED_FIFO
 * refused).
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

#include "lib/workload.h"

static int fifo_pipe[2], done_pipe[2], ready_pipe[2];
static long spin_us;
static int pinned, running;
static int home, busy = 1;	/* CPU 0's part, CPU 1's */

/*
 * The victim's changes of its allowed CPUs, written out at the end.  Two a
 * try to reach CPU BUSY, and a busy or real-time kernel may take thousands
 * of tries in a run (6.12-rt in the VM took over 2048).
 */
#define CHANGES_MAX	(1 << 16)
static struct change {
	uint64_t before, after;
	int first, last;	/* HOME or BUSY, and the same or the other */
} changes[CHANGES_MAX];
static int nchanges;
static int asked, ready, stop;	/* rounds the main thread asked for, the victim is ready for */
static pid_t victim_tid, fifo_tid;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Allows the calling thread CPUs @first and @last (the same CPU for one). */
static int allow(int first, int last)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(first, &set);
	CPU_SET(last, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void die(const char *what);

/* allow() for the victim, logged: when it changed, and to what. */
static int victim_allow(int first, int last)
{
	uint64_t before = now_ns();
	int ret = allow(first, last);

	if (!ret && nchanges < CHANGES_MAX)
		changes[nchanges++] = (struct change){
			.before = before, .after = now_ns(), .first = first, .last = last,
		};
	return ret;
}

static void die(const char *what)
{
	fprintf(stderr, "placement_workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

/* Spins SPIN_US each time the main thread writes to its pipe. */
static void *fifo(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	char c;

	(void)arg;
	prctl(PR_SET_NAME, "kt_fifo");
	fifo_tid = syscall(SYS_gettid);
	if (allow(busy, busy))
		die("pin kt_fifo to CPU BUSY");
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "placement_workload: SCHED_FIFO refused: %s\n", strerror(errno));
		exit(EXIT_CANNOT_RUN_HERE);
	}
	while (read(fifo_pipe[0], &c, 1) == 1) {
		uint64_t end = now_ns() + spin_us * 1000;

		while (now_ns() < end)
			;
		if (write(done_pipe[1], "d", 1) != 1)
			die("write done pipe");
	}
	return NULL;
}

/* Spins; when asked, moves to CPU 1 (BUSY) and says it is ready there. */
static void *victim(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "kt_victim");
	victim_tid = syscall(SYS_gettid);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		int want = __atomic_load_n(&asked, __ATOMIC_ACQUIRE);

		if (want == __atomic_load_n(&ready, __ATOMIC_RELAXED))
			continue;
		/*
		 * To CPU 1, then free again: running there, it stays there.
		 * The recorders give a thread's allowed CPUs at its wakeups
		 * and, changed while it ran, at its next switch-out or move:
		 * unless "running", a short sleep gives them to a wakeup.
		 */
		if (victim_allow(busy, busy) ||
		    ((!pinned || running) && victim_allow(home, busy)))
			die("set kt_victim's allowed CPUs");
		if (!running || pinned)
			sleep_us(100);
		if (sched_getcpu() != busy)
			continue;
		if (running && pinned && victim_allow(busy, busy))
			die("pin kt_victim to CPU BUSY");
		__atomic_store_n(&ready, want, __ATOMIC_RELEASE);
		if (write(ready_pipe[1], "r", 1) != 1)
			die("write ready pipe");
	}
	return NULL;
}

static int write_changes(const char *expect)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.affinity", expect);
	f = fopen(path, "w");
	if (!f)
		die(path);
	for (int i = 0; i < nchanges; i++) {
		fprintf(f, "%llu %llu %d", (unsigned long long)changes[i].before,
			(unsigned long long)changes[i].after, changes[i].first);
		if (changes[i].last != changes[i].first)
			fprintf(f, ",%d", changes[i].last);
		fputc('\n', f);
	}
	if (fclose(f))
		die(path);
	if (nchanges == CHANGES_MAX) {
		fprintf(stderr, "placement_workload: more than %d changes of allowed CPUs\n", CHANGES_MAX);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long rounds = argc > 2 ? atol(argv[2]) : 10;
	pthread_t ft, vt;
	FILE *f;
	char c;

	if (argc < 2 || argc == 6) {
		fprintf(stderr, "usage: placement_workload EXPECT_FILE [ROUNDS [SPIN_US "
			"[free|pinned|running|pinned-running [HOME BUSY]]]]\n");
		return 2;
	}
	spin_us = argc > 3 ? atol(argv[3]) : 20000;
	pinned = argc > 4 && !strncmp(argv[4], "pinned", 6);
	running = argc > 4 && strstr(argv[4], "running");
	if (argc > 6) {
		home = atoi(argv[5]);
		busy = atoi(argv[6]);
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "placement_workload: needs two CPUs\n");
		return EXIT_CANNOT_RUN_HERE;
	}
	if (home == busy || home < 0 || busy < 0 || home >= CPU_SETSIZE || busy >= CPU_SETSIZE ||
	    sysconf(_SC_NPROCESSORS_ONLN) <= (home > busy ? home : busy)) {
		fprintf(stderr, "placement_workload: no CPUs %d and %d here (%ld online)\n", home, busy,
			sysconf(_SC_NPROCESSORS_ONLN));
		return EXIT_CANNOT_RUN_HERE;
	}
	if (allow(home, home))
		die("pin the main thread to CPU HOME");
	if (pipe(fifo_pipe) || pipe(done_pipe) || pipe(ready_pipe))
		die("pipe");
	if (pthread_create(&ft, NULL, fifo, NULL) || pthread_create(&vt, NULL, victim, NULL))
		die("pthread_create");
	while (!__atomic_load_n(&victim_tid, __ATOMIC_ACQUIRE) ||
	       !__atomic_load_n(&fifo_tid, __ATOMIC_ACQUIRE))
		sleep_us(1000);
	f = fopen(argv[1], "w");
	if (!f)
		die(argv[1]);
	fprintf(f, "pid=%d\nmain=%d\nvictim=%d\nfifo=%d\nrounds=%ld\nspin_us=%ld\npinned=%d\n"
		"running=%d\nhome=%d\nbusy=%d\n", getpid(), getpid(), victim_tid, fifo_tid, rounds,
		spin_us, pinned, running, home, busy);
	if (fclose(f))
		die(argv[1]);
	for (int r = 1; r <= rounds; r++) {
		/*
		 * Woken when the victim is on CPU 1, the main thread wakes kt_fifo
		 * at once: left alone there, the victim may be moved to the idle
		 * CPU 0 before kt_fifo comes.
		 */
		__atomic_store_n(&asked, r, __ATOMIC_RELEASE);
		if (read(ready_pipe[0], &c, 1) != 1 || write(fifo_pipe[1], "g", 1) != 1 ||
		    read(done_pipe[0], &c, 1) != 1)
			die("round");
		sleep_us(5000);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	close(fifo_pipe[1]);
	pthread_join(vt, NULL);
	pthread_join(ft, NULL);
	return write_changes(argv[1]);
}
