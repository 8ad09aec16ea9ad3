// SPDX-License-Identifier: GPL-2.0
/*
 * Short-lived processes, as a flight recorder catches them (a cron job, a
 * compiler, a helper): RATE children a second for SECONDS, the Nth naming
 * itself "cN", sleeping 100 us (so that it blocks and runs again) and
 * exiting, well under a millisecond after its birth.  Line N of PID_FILE
 * is the Nth child's pid (pids may be reused), for tests/check_names.py.
 * usage: churn_workload SECONDS RATE PID_FILE
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void child(long n)
{
	struct timespec nap = { 0, 100000 };
	char name[24];		/* the kernel keeps 15 bytes of it */

	snprintf(name, sizeof(name), "c%ld", n);
	prctl(PR_SET_NAME, name);
	nanosleep(&nap, NULL);
	_exit(0);
}

int main(int argc, char **argv)
{
	uint64_t start, end, period, next;
	double seconds;
	long rate, n = 0;
	FILE *pids;

	if (argc != 4 || (seconds = atof(argv[1])) <= 0 || (rate = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: churn_workload SECONDS RATE PID_FILE\n");
		return 2;
	}
	pids = fopen(argv[3], "w");
	if (!pids) {
		perror(argv[3]);
		return 1;
	}
	/* Killed, it stops forking and reaps every child: none is left to init. */
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	prctl(PR_SET_NAME, "churn");
	period = 1000000000ULL / rate;
	start = next = now_ns();
	end = start + (uint64_t)(seconds * 1e9);
	while (!stop && now_ns() < end) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid) {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			child(n);
		}
		fprintf(pids, "%d\n", pid);
		n++;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		next += period;
		for (uint64_t t = now_ns(); !stop && t < next; t = now_ns()) {
			struct timespec nap = { 0, (long)(next - t) };

			nanosleep(&nap, NULL);
		}
	}
	while (wait(NULL) > 0 || errno == EINTR)
		;
	fclose(pids);
	printf("churn: %ld children in %.1f s\n", n, (now_ns() - start) / 1e9);
	return 0;
}
