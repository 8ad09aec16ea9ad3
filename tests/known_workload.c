// SPDX-License-Identifier: GPL-2.0
/*
 * A known workload for recorder tests, run under `ktrace record -- ...`:
 *   two threads "ping" and "pong" pinned to one CPU pass a byte through
 *   pipes ITERATIONS times; "sleeper" sleeps 10 ms twenty times;
 *   "renamer" moves itself to another CPU while it runs, as a program
 *   that pins itself does, and renames itself to "renamed-ok"; a child
 *   process "child-exit" exits.  The tids, and the CPU the renamer moved
 *   to, go to EXPECT_FILE as key=value lines for check_trace.
 * usage: known_workload EXPECT_FILE [ITERATIONS]
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int iterations = 2000;
static int ping_to_pong[2], pong_to_ping[2];
static pid_t ping_tid, pong_tid, sleeper_tid, renamer_tid;
static int moved_to = -1;	/* the CPU the renamer moved to, -1 if none */

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *ping(void *arg)
{
	char c = 'x';

	(void)arg;
	prctl(PR_SET_NAME, "ping");
	ping_tid = gettid_();
	pin_cpu0();
	for (int i = 0; i < iterations; i++) {
		if (write(ping_to_pong[1], &c, 1) != 1 || read(pong_to_ping[0], &c, 1) != 1)
			exit(1);
	}
	return NULL;
}

static void *pong(void *arg)
{
	char c;

	(void)arg;
	prctl(PR_SET_NAME, "pong");
	pong_tid = gettid_();
	pin_cpu0();
	for (int i = 0; i < iterations; i++) {
		if (read(ping_to_pong[0], &c, 1) != 1 || write(pong_to_ping[1], &c, 1) != 1)
			exit(1);
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	(void)arg;
	prctl(PR_SET_NAME, "sleeper");
	sleeper_tid = gettid_();
	for (int i = 0; i < 20; i++)
		nanosleep(&ts, NULL);
	return NULL;
}

/*
 * Pin the calling thread to the next CPU it may run on after the one it
 * runs on: the kernel's stopper moves it there while it runs.
 */
static void move_away(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0 || sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int i = 1; i < CPU_SETSIZE; i++) {
		int c = (cpu + i) % CPU_SETSIZE;

		if (!CPU_ISSET(c, &set))
			continue;
		CPU_ZERO(&set);
		CPU_SET(c, &set);
		if (!sched_setaffinity(0, sizeof(set), &set))
			moved_to = c;
		return;
	}
}

static void *renamer(void *arg)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };

	(void)arg;
	prctl(PR_SET_NAME, "renamer");
	renamer_tid = gettid_();
	nanosleep(&ts, NULL);
	move_away();
	prctl(PR_SET_NAME, "renamed-ok");
	nanosleep(&ts, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[4];
	pid_t child;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: known_workload EXPECT_FILE [ITERATIONS]\n");
		return 2;
	}
	if (argc > 2)
		iterations = atoi(argv[2]);
	if (pipe(ping_to_pong) || pipe(pong_to_ping))
		return 1;
	pthread_create(&t[0], NULL, pong, NULL);
	pthread_create(&t[1], NULL, ping, NULL);
	pthread_create(&t[2], NULL, sleeper, NULL);
	pthread_create(&t[3], NULL, renamer, NULL);
	child = fork();
	if (child == 0) {
		prctl(PR_SET_NAME, "child-exit");
		usleep(20000);
		_exit(0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	waitpid(child, NULL, 0);
	f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "pid=%d\nping=%d\npong=%d\nsleeper=%d\nrenamer=%d\nchild=%d\niterations=%d\ncpus=%ld\nmoved_to=%d\n",
		getpid(), ping_tid, pong_tid, sleeper_tid, renamer_tid, child, iterations,
		sysconf(_SC_NPROCESSORS_CONF), moved_to);
	fclose(f);
	return 0;
}
