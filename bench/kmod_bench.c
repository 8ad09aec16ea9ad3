// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace.ko's record path against ftrace's, timed in the kernel
 * (KTRACE_IOC_BENCH): a ring session is set up on /dev/ktrace, then each
 * round writes COUNT context-switch records through the module and COUNT
 * ktrace_bench:ktrace_bench_switch events (sched_switch's fields) through
 * ftrace, which a tracefs instance must have enabled; then the floor under
 * the module's record, cut short a stage at a time (enum
 * ktrace_bench_stage): the tracepoint call to an empty probe, with the
 * clock read, with the reservation and the commit (a header stored); and
 * the call with local_clock(), the scheduler's clock, instead.  One
 * line per round: ns per record for each, and the ratio to ftrace.
 * usage: kmod_bench [ROUNDS] [COUNT] [CPU]   (as root, ktrace.ko loaded)
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/ktrace.h>

int main(int argc, char **argv)
{
	struct ktrace_config cfg = {
		.size = sizeof(cfg), .flags = KTRACE_CFG_RING,
		.buffer_size = 16 << 20,
	};
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	unsigned int count = argc > 2 ? strtoul(argv[2], NULL, 0) : 100000;
	int cpu = argc > 3 ? atoi(argv[3]) : 0;
	cpu_set_t set;
	int fd, ret = 0, stages = 1;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("kmod_bench: sched_setaffinity");
	fd = open("/dev/ktrace", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "kmod_bench: /dev/ktrace: %s (insmod ktrace.ko)\n", strerror(errno));
		return 1;
	}
	if (ioctl(fd, KTRACE_IOC_CONFIGURE, &cfg) || ioctl(fd, KTRACE_IOC_START)) {
		fprintf(stderr, "kmod_bench: setting up a ring session: %s\n", strerror(errno));
		return 1;
	}
	for (int r = 0; r < rounds && !ret; r++) {
		static const char *const stage_names[KTRACE_BENCH_NR_STAGES] = {
			[KTRACE_BENCH_CALL] = "call", [KTRACE_BENCH_CLOCK] = "clock",
			[KTRACE_BENCH_RESERVE] = "reserve", [KTRACE_BENCH_LOCAL_CLOCK] = "local_clock",
		};
		struct ktrace_bench b = { .size = sizeof(b), .count = count };

		if (ioctl(fd, KTRACE_IOC_BENCH, &b)) {
			fprintf(stderr, "kmod_bench: KTRACE_IOC_BENCH: %s\n", strerror(errno));
			ret = 1;
			break;
		}
		if (!b.ftrace_ns) {
			fprintf(stderr, "kmod_bench: enable ktrace_bench:ktrace_bench_switch in a tracefs instance\n");
			ret = 1;
			break;
		}
		/* All records, and the fastest batch each way, which noise only slows. */
		printf("ktrace_ns=%.1f ftrace_ns=%.1f ratio=%.3f ktrace_best=%.1f ftrace_best=%.1f best_ratio=%.3f ktrace_bytes=%u ftrace_bytes=%u",
		       (double)b.ktrace_ns / count, (double)b.ftrace_ns / count,
		       (double)b.ktrace_ns / b.ftrace_ns,
		       (double)b.ktrace_batch_ns / KTRACE_BENCH_BATCH,
		       (double)b.ftrace_batch_ns / KTRACE_BENCH_BATCH,
		       b.ftrace_batch_ns ? (double)b.ktrace_batch_ns / b.ftrace_batch_ns : 0.0,
		       b.ktrace_bytes, b.ftrace_bytes);
		/* The floor, its fastest batches: a module without stages says so once. */
		for (__u32 st = KTRACE_BENCH_CALL; st < KTRACE_BENCH_NR_STAGES && stages; st++) {
			struct ktrace_bench f = { .size = sizeof(f), .count = count, .stage = st };

			if (ioctl(fd, KTRACE_IOC_BENCH, &f)) {
				fprintf(stderr, "kmod_bench: KTRACE_IOC_BENCH, stage %s: %s%s\n",
					stage_names[st], strerror(errno),
					errno == EINVAL ? " (a module without the floor's stages)" : "");
				stages = 0;
				break;
			}
			printf(" %s_best=%.1f %s_ns=%.1f", stage_names[st],
			       (double)f.ktrace_batch_ns / KTRACE_BENCH_BATCH, stage_names[st],
			       (double)f.ktrace_ns / count);
		}
		printf("\n");
		fflush(stdout);
	}
	ioctl(fd, KTRACE_IOC_STOP);
	close(fd);
	return ret;
}
