// SPDX-License-Identifier: GPL-2.0
/*
 * Waits with a known critical path, for ktrace latency --critical-path.
 *
 * Chain 1 (pipe <- mutex <- preempted holder): "victim" reads a pipe that
 * "waiter" fills; "waiter" first takes a mutex that "holder" holds.
 * "holder" (CPU 0) works for WORK_US, and in the middle wakes "hog"
 * (SCHED_FIFO 50, CPU 0), which preempts it and spins HOG_US; then holder
 * works WORK_US more, unlocks, and waiter writes the pipe.  So victim's
 * wait is explained as: blocked in pipe_read, woken by waiter; waiter
 * blocked in a futex, woken by holder; holder runnable behind hog.
 *
 * Chain 2 (a timer): "victim" reads another pipe that "ticker" writes
 * after sleeping SLEEP_US in nanosleep: victim blocked in pipe_read, woken
 * by ticker; ticker blocked in nanosleep, woken by the timer.
 *
 * usage: chain_workload EXPECT_FILE
 * EXPECT_FILE gets the tids: victim, waiter, holder, hog, ticker.
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

#define WORK_US		2000
#define HOG_US		8000
#define SLEEP_US	30000

static int chain_pipe[2], tick_pipe[2], hog_pipe[2], go_pipe[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t started;
static volatile int waiter_waiting;
static int victim_reading;	/* the pipe the victim reads now: 1, 2 */
static pid_t tids[5];

enum { VICTIM, WAITER, HOLDER, HOG, TICKER };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "chain_workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static void spin_us(long us)
{
	uint64_t end = now_ns() + us * 1000ULL;

	while (now_ns() < end)
		;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void start(int who, const char *name)
{
	prctl(PR_SET_NAME, name);
	tids[who] = syscall(SYS_gettid);
	pthread_barrier_wait(&started);
}

static void *victim(void *arg)
{
	char c;

	pin(1);
	start(VICTIM, "victim");
	__atomic_store_n(&victim_reading, 1, __ATOMIC_SEQ_CST);
	if (read(chain_pipe[0], &c, 1) != 1)
		die("victim: read");
	__atomic_store_n(&victim_reading, 2, __ATOMIC_SEQ_CST);
	if (read(tick_pipe[0], &c, 1) != 1)
		die("victim: read");
	return arg;
}

static void *waiter(void *arg)
{
	pin(1);
	start(WAITER, "waiter");
	waiter_waiting = 1;
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	if (write(chain_pipe[1], "x", 1) != 1)
		die("waiter: write");
	return arg;
}

static void *holder(void *arg)
{
	pin(0);
	pthread_mutex_lock(&lock);
	start(HOLDER, "holder");
	/* Until waiter blocks on the lock (it has just been told to). */
	while (!waiter_waiting)
		sched_yield();
	/* A busy machine may take long to get them there: no fixed delay. */
	wait_asleep(tids[WAITER]);
	while (__atomic_load_n(&victim_reading, __ATOMIC_SEQ_CST) != 1)
		sched_yield();
	wait_asleep(tids[VICTIM]);
	sleep_us(5000);
	spin_us(WORK_US / 2);
	if (write(hog_pipe[1], "x", 1) != 1)	/* the hog preempts us here */
		die("holder: write");
	spin_us(WORK_US / 2);
	pthread_mutex_unlock(&lock);
	return arg;
}

static void *hog(void *arg)
{
	struct sched_param sp = { .sched_priority = 50 };
	char c;

	pin(0);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		exit(EXIT_CANNOT_RUN_HERE);
	start(HOG, "hog");
	if (read(hog_pipe[0], &c, 1) != 1)
		die("hog: read");
	spin_us(HOG_US);
	return arg;
}

static void *ticker(void *arg)
{
	char c = 0;

	pin(0);
	start(TICKER, "ticker");
	/* After chain 1: the victim reads this pipe next. */
	if (read(go_pipe[0], &c, 1) != 1)
		die("ticker: read");
	/* The victim, woken by chain 1, may not have reached this pipe yet. */
	while (__atomic_load_n(&victim_reading, __ATOMIC_SEQ_CST) != 2)
		usleep(1000);
	wait_asleep(tids[VICTIM]);
	sleep_us(SLEEP_US);
	if (write(tick_pipe[1], "x", 1) != 1)
		die("ticker: write");
	return arg;
}

int main(int argc, char **argv)
{
	void *(*fns[5])(void *) = { victim, waiter, holder, hog, ticker };
	pthread_t th[5];
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: chain_workload EXPECT_FILE\n");
		return 2;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return EXIT_CANNOT_RUN_HERE;
	if (pipe(chain_pipe) || pipe(tick_pipe) || pipe(hog_pipe) || pipe(go_pipe))
		die("pipe");
	pthread_barrier_init(&started, NULL, 6);
	for (int i = 0; i < 5; i++)
		if (pthread_create(&th[i], NULL, fns[i], NULL))
			die("pthread_create");
	pthread_barrier_wait(&started);
	f = fopen(argv[1], "w");
	if (!f)
		die(argv[1]);
	fprintf(f, "victim=%d\nwaiter=%d\nholder=%d\nhog=%d\nticker=%d\n", tids[VICTIM],
		tids[WAITER], tids[HOLDER], tids[HOG], tids[TICKER]);
	fclose(f);
	pthread_join(th[HOLDER], NULL);
	pthread_join(th[HOG], NULL);
	pthread_join(th[WAITER], NULL);
	/* Chain 2 starts once chain 1 is over. */
	if (write(go_pipe[1], "x", 1) != 1)
		die("write");
	pthread_join(th[TICKER], NULL);
	pthread_join(th[VICTIM], NULL);
	/* Not at the very end of a recording that stops when this exits. */
	sleep_us(100000);
	return 0;
}
