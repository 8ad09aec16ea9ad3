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
 * usage: placement EXPECT_FILE [ROUNDS [SPIN_US [pinned|running|pinned-running]]]
 * EXPECT_FILE gets pid, main, victim, fifo, rounds, spin_us, pinned and
 * running; EXPECT_FILE.affinity each change of the victim's allowed CPUs,
 * a line "BEFORE AFTER MASK": the CLOCK_MONOTONIC ns just before and after
 * the call, and the CPUs (a bit each) it allowed from then on.
 * Exits 4 when it cannot run (one CPU, or SCHED_FIFO refused).
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

static int fifo_pipe[2], done_pipe[2], ready_pipe[2];
static long spin_us;
static int pinned, running;

/* The victim's changes of its allowed CPUs, written out at the end. */
#define CHANGES_MAX	4096
static struct change {
	uint64_t before, after, mask;
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

static int allow(int first, int last)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int cpu = first; cpu <= last; cpu++)
		CPU_SET(cpu, &set);
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
			.before = before, .after = now_ns(),
			.mask = ((1ULL << (last + 1)) - 1) & ~((1ULL << first) - 1),
		};
	return ret;
}

static void die(const char *what)
{
	fprintf(stderr, "placement: %s: %s\n", what, strerror(errno));
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
	if (allow(1, 1))
		die("pin kt_fifo to CPU 1");
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "placement: SCHED_FIFO refused: %s\n", strerror(errno));
		exit(4);
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

/* Spins; when asked, moves to CPU 1 and says it is ready there. */
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
		if (victim_allow(1, 1) || ((!pinned || running) && victim_allow(0, 1)))
			die("set kt_victim's allowed CPUs");
		if (!running || pinned)
			sleep_us(100);
		if (sched_getcpu() != 1)
			continue;
		if (running && pinned && victim_allow(1, 1))
			die("pin kt_victim to CPU 1");
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
	for (int i = 0; i < nchanges; i++)
		fprintf(f, "%llu %llu %llu\n", (unsigned long long)changes[i].before,
			(unsigned long long)changes[i].after, (unsigned long long)changes[i].mask);
	if (fclose(f))
		die(path);
	if (nchanges == CHANGES_MAX) {
		fprintf(stderr, "placement: more than %d changes of allowed CPUs\n", CHANGES_MAX);
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

	if (argc < 2) {
		fprintf(stderr, "usage: placement EXPECT_FILE [ROUNDS [SPIN_US [pinned]]]\n");
		return 2;
	}
	spin_us = argc > 3 ? atol(argv[3]) : 20000;
	pinned = argc > 4 && !strncmp(argv[4], "pinned", 6);
	running = argc > 4 && strstr(argv[4], "running");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "placement: needs two CPUs\n");
		return 4;
	}
	if (allow(0, 0))
		die("pin the main thread to CPU 0");
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
		"running=%d\n", getpid(), getpid(), victim_tid, fifo_tid, rounds, spin_us, pinned,
		running);
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
