// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace.ko selftests: /dev/ktrace's ioctls (one test per error path), the
 * mmap geometry and read-only mapping, and a recording read back from the
 * mapped buffers.  Needs ktrace.ko loaded and root; SKIPs otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/ktrace.h>
#include <linux/ktrace_fxt.h>

#include "../kselftest_harness.h"

#define DEV "/dev/ktrace"

static int open_dev(struct __test_metadata *_metadata)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		SKIP(return -1, DEV " does not exist: insmod ktrace.ko");
	if (fd < 0 && (errno == EACCES || errno == EPERM))
		SKIP(return -1, DEV " needs root");
	return fd;
}

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = open_dev(_metadata);
	if (self->fd < 0 && !_metadata->skip)
		ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

static int configure(int fd, uint64_t size, uint32_t subbuf, uint32_t flags)
{
	struct ktrace_config cfg = {
		.size = sizeof(cfg), .flags = flags, .buffer_size = size, .subbuf_size = subbuf,
	};

	return ioctl(fd, KTRACE_IOC_CONFIGURE, &cfg);
}

TEST_F(dev, abi_version)
{
	EXPECT_EQ(KTRACE_ABI_VERSION, ioctl(self->fd, KTRACE_IOC_ABI_VERSION));
}

TEST_F(dev, second_open_is_busy)
{
	int fd = open(DEV, O_RDWR);

	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EBUSY, errno);
}

TEST_F(dev, unknown_ioctl)
{
	EXPECT_EQ(-1, ioctl(self->fd, _IO(KTRACE_IOC_MAGIC, 99)));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO('x', 1)));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(dev, configure_bad_pointer)
{
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, (void *)8));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(dev, configure_size_too_small)
{
	struct ktrace_config cfg = { .size = 4 };

	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, configure_larger_struct_with_garbage_tail)
{
	struct {
		struct ktrace_config cfg;
		uint64_t extra;
	} big = { .cfg = { .size = sizeof(big) }, .extra = 1 };

	/* copy_struct_from_user(): unknown non-zero fields are refused. */
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &big));
	EXPECT_EQ(E2BIG, errno);
	big.extra = 0;
	EXPECT_EQ(0, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &big));
}

/*
 * Readers built before the throttling layout pass the struct as it was, on
 * the same command number, which keeps that size whatever the struct's.
 */
TEST_F(dev, configure_struct_before_the_throttling_layout)
{
	struct ktrace_config cfg = { .size = KTRACE_CONFIG_SIZE_VER1, .buffer_size = 1 << 16,
				     .subbuf_size = 4096 };

	_Static_assert(_IOC_SIZE(KTRACE_IOC_CONFIGURE) == KTRACE_CONFIG_SIZE_VER1,
		       "CONFIGURE's number changed");
	_Static_assert(offsetof(struct ktrace_config, throttle) == KTRACE_CONFIG_SIZE_VER1,
		       "ktrace_config changed before its throttling layout");
	EXPECT_EQ(0, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
}

TEST_F(dev, configure_throttle_layout_without_the_flag)
{
	struct ktrace_config cfg = { .size = sizeof(cfg) };

	cfg.throttle.rq_cpu = 8;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * The layout is checked, not trusted: offsets in range and aligned, and
 * the timer functions' addresses kallsyms' (here 0 and a misaligned
 * offset, then addresses no function starts at).  A kernel without CFS
 * bandwidth control refuses the flag itself.
 */
TEST_F(dev, configure_throttle_bad_layout)
{
	struct ktrace_config cfg = { .size = sizeof(cfg), .flags = KTRACE_CFG_THROTTLE };
	struct ktrace_throttle_layout *l = &cfg.throttle;

	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	if (errno == EOPNOTSUPP)
		SKIP(return, "the kernel has no CFS bandwidth control");
	EXPECT_EQ(EINVAL, errno);
	l->cfs_rq_throttle_count = 4;
	l->cfs_rq_throttled_list = 8;
	l->cfs_rq_runtime_remaining = 24;
	l->cfs_rq_rq = 32;
	l->cfs_rq_tg = 40;
	l->rq_cpu = 64;
	l->tg_cfs_bandwidth = 128;
	l->cfs_b_period_timer = 64;
	l->cfs_b_slack_timer = 128;
	l->cfs_b_throttled_cfs_rq = 3;
	l->period_timer_fn = 0xffffffff81000000ULL;
	l->slack_timer_fn = 0xffffffff81000010ULL;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	l->cfs_b_throttled_cfs_rq = KTRACE_THROTTLE_OFFSET_MAX;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	l->cfs_b_throttled_cfs_rq = 192;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	/* Nothing was set up: a good configuration still goes. */
	EXPECT_EQ(0, configure(self->fd, 1 << 16, 4096, 0));
}

TEST_F(dev, configure_unknown_flag)
{
	EXPECT_EQ(-1, configure(self->fd, 0, 0, 1U << 7));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, configure_trigger_fields_without_the_flag)
{
	struct ktrace_config cfg = { .size = sizeof(cfg), .trigger_ns = 1000 };

	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.trigger_pid = 1;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.trigger_comm[3] = 'x';
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, stacks_need_the_flag)
{
	struct ktrace_stacks st = { .size = sizeof(st) };

	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_STACKS, &st));
	EXPECT_EQ(EINVAL, errno);	/* not configured */
	ASSERT_EQ(0, configure(self->fd, 0, 0, 0));
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_STACKS, &st));
	EXPECT_EQ(ENODATA, errno);	/* configured without KTRACE_CFG_BLOCKED_IN */
}

TEST_F(dev, stacks_of_a_sleep)
{
	size_t words = 1 + KTRACE_KSTACK_BLOCKED_DEPTH, bytes = KTRACE_STACK_SLOTS * words * 8;
	struct ktrace_stacks st = { .size = sizeof(st) };
	uint64_t *buf = calloc(1, bytes);
	uint32_t used = 0;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, configure(self->fd, 0, 0, KTRACE_CFG_BLOCKED_IN));
	st.buf = (uintptr_t)buf;
	st.buf_size = bytes - 8;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_STACKS, &st));
	EXPECT_EQ(EINVAL, errno);	/* too small for the table */
	st.buf_size = bytes;
	st.reserved[1] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_STACKS, &st));
	EXPECT_EQ(EINVAL, errno);
	st.reserved[1] = 0;
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_START));
	usleep(20000);			/* this thread blocks in S at least once */
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STOP));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STACKS, &st));
	EXPECT_EQ(KTRACE_KSTACK_BLOCKED_DEPTH, st.depth);
	for (uint32_t i = 0; i < KTRACE_STACK_SLOTS; i++) {
		uint64_t nr = buf[i * words];

		EXPECT_LE(nr, KTRACE_KSTACK_BLOCKED_DEPTH);
		if (nr) {
			used++;
			EXPECT_NE(0, buf[i * words + 1]);	/* an address */
		}
	}
	EXPECT_GT(used, 0);
	free(buf);
}

TEST_F(dev, bench_needs_a_running_ring)
{
	struct ktrace_bench b = { .size = sizeof(b), .count = 1000 };

	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);	/* not configured */
	ASSERT_EQ(0, configure(self->fd, 1 << 20, 0, 0));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_START));
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);	/* stream mode */
	EXPECT_EQ(0, ioctl(self->fd, KTRACE_IOC_STOP));
}

TEST_F(dev, bench_writes_its_records)
{
	struct ktrace_bench b = { .size = sizeof(b), .count = 0 };
	struct ktrace_stats before = { .size = sizeof(before) }, after = { .size = sizeof(after) };

	ASSERT_EQ(0, configure(self->fd, 1 << 20, 0, KTRACE_CFG_RING));
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);	/* not running */
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_START));
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);	/* no records */
	b.count = KTRACE_BENCH_MAX_COUNT + 1;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.count = 1000;
	b.reserved = 1;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.reserved = 0;
	b.reserved32 = 1;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.reserved32 = 0;
	b.stage = KTRACE_BENCH_NR_STAGES;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.stage = KTRACE_BENCH_RECORD;
	b.ftrace_ns = b.ftrace_batch_ns = b.ftrace_bytes = ~0u;	/* outputs: overwritten */
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &before));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_BENCH, &b));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &after));
	EXPECT_EQ(1000, b.count);
	EXPECT_GT(b.ktrace_ns, 0);
	EXPECT_GT(b.ktrace_batch_ns, 0);
	EXPECT_LE(b.ktrace_batch_ns * (1000 / KTRACE_BENCH_BATCH), b.ktrace_ns);
	EXPECT_EQ(0, b.ftrace_ns);	/* no tracefs instance has the event on */
	EXPECT_EQ(0, b.ftrace_batch_ns);
	EXPECT_EQ(KTRACE_FXT_CSWITCH_WORDS * 8, b.ktrace_bytes);
	EXPECT_GE(b.ftrace_bytes, 64);	/* sched_switch's fields and the common ones (more on RT) */
	EXPECT_GE(after.records - before.records, 1000);
	EXPECT_EQ(0, ioctl(self->fd, KTRACE_IOC_STOP));
}

/* The floor's stages: each is timed; those that reserve write a record per call. */
TEST_F(dev, bench_stages)
{
	static const struct { __u32 stage, records; } stages[] = {
		{ KTRACE_BENCH_CALL, 0 }, { KTRACE_BENCH_CLOCK, 0 },
		{ KTRACE_BENCH_RESERVE, 1000 }, { KTRACE_BENCH_RECORD, 1000 },
		{ KTRACE_BENCH_LOCAL_CLOCK, 0 },
	};

	ASSERT_EQ(0, configure(self->fd, 1 << 20, 0, KTRACE_CFG_RING));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_START));
	for (unsigned int i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
		struct ktrace_bench b = { .size = sizeof(b), .count = 1000, .stage = stages[i].stage };
		struct ktrace_stats before = { .size = sizeof(before) };
		struct ktrace_stats after = { .size = sizeof(after) };

		ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &before));
		ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_BENCH, &b));
		ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &after));
		EXPECT_GT(b.ktrace_ns, 0);
		EXPECT_EQ(0, b.ftrace_ns);
		/* The session's own probes write records meanwhile: at least. */
		EXPECT_GE(after.records - before.records, stages[i].records);
	}
	EXPECT_EQ(0, ioctl(self->fd, KTRACE_IOC_STOP));
}

/*
 * STATS gives the session's span: 0 and 0 before START, its start while
 * running, both after STOP, around the calls; a reader that asks for the
 * struct as it was before the span gets that much, and the same command.
 */
TEST_F(dev, stats_span)
{
	struct ktrace_stats st = { .size = sizeof(st) };
	struct timespec t0, t1, t2;
	__u64 before, start, stopping;

	_Static_assert(_IOC_SIZE(KTRACE_IOC_STATS) == KTRACE_STATS_SIZE_VER1, "STATS number");
	ASSERT_EQ(0, configure(self->fd, 1 << 20, 0, 0));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &st));
	EXPECT_EQ(sizeof(st), st.size);
	EXPECT_EQ(0, st.start_ts);
	EXPECT_EQ(0, st.stop_ts);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_START));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &st));
	before = t0.tv_sec * 1000000000ULL + t0.tv_nsec;
	start = t1.tv_sec * 1000000000ULL + t1.tv_nsec;
	EXPECT_LE(before, st.start_ts);
	EXPECT_GE(start, st.start_ts);
	EXPECT_EQ(0, st.stop_ts);
	usleep(1000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STOP));
	clock_gettime(CLOCK_MONOTONIC, &t2);
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &st));
	stopping = t1.tv_sec * 1000000000ULL + t1.tv_nsec;
	EXPECT_LE(stopping, st.stop_ts);
	EXPECT_GE(t2.tv_sec * 1000000000ULL + t2.tv_nsec, st.stop_ts);
	st.size = KTRACE_STATS_SIZE_VER1;
	st.start_ts = st.stop_ts = 7;
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &st));
	EXPECT_EQ(KTRACE_STATS_SIZE_VER1, st.size);
	EXPECT_EQ(7, st.start_ts);	/* not written: beyond the caller's size */
}

TEST_F(dev, configure_bad_trigger)
{
	struct ktrace_config cfg = { .size = sizeof(cfg), .flags = KTRACE_CFG_TRIGGER,
				     .buffer_size = 1 << 20, .trigger_ns = 1000 };

	/* A trigger needs a ring, a latency, a pid that can be, a terminated name. */
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	cfg.flags |= KTRACE_CFG_RING;
	cfg.trigger_ns = 0;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	cfg.trigger_ns = 1000;
	cfg.trigger_pid = 4194305;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	cfg.trigger_pid = 0;
	memset(cfg.trigger_comm, 'a', sizeof(cfg.trigger_comm));
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * A trigger for this thread at 1 ns fires at its first wakeup: STATS names
 * it, and the trigger record is in this CPU's buffer.
 */
TEST_F(dev, trigger_fires_on_this_thread)
{
	struct ktrace_config cfg = { .size = sizeof(cfg),
				     .flags = KTRACE_CFG_RING | KTRACE_CFG_TRIGGER,
				     .buffer_size = 1 << 20, .trigger_ns = 1,
				     .after_ns = 1000000 };
	struct ktrace_stats st = { .size = sizeof(st) };
	pid_t tid = gettid();

	cfg.trigger_pid = tid;
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &st));
	EXPECT_EQ(0, st.stop_at);
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_START));
	for (int i = 0; i < 20 && !st.stop_at; i++) {
		usleep(2000);
		ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &st));
	}
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STOP));
	EXPECT_NE(0, st.stop_at);
	EXPECT_EQ(tid, st.trigger_tid);
	EXPECT_LE(st.trigger_latency, 20000000);
	EXPECT_EQ(st.trigger_ts + cfg.after_ns, st.stop_at);
}

/*
 * REARM: refused without a trigger or before its window is over; after
 * it, the span starts again, the trigger fires again, and only on a wait
 * that began after the new start.
 */
TEST_F(dev, trigger_rearms)
{
	struct ktrace_config cfg = { .size = sizeof(cfg),
				     .flags = KTRACE_CFG_RING | KTRACE_CFG_TRIGGER,
				     .buffer_size = 1 << 20, .trigger_ns = 1,
				     .after_ns = 1000000 };
	struct ktrace_stats st = { .size = sizeof(st) }, again = { .size = sizeof(st) };
	int fd;

	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_REARM));	/* not configured */
	EXPECT_EQ(EINVAL, errno);
	cfg.trigger_pid = gettid();
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_REARM));	/* not running */
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_START));
	/* No wakeup of this thread yet: nothing fired. */
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_REARM));
	EXPECT_EQ(EAGAIN, errno);
	for (int i = 0; i < 20 && !st.stop_at; i++) {
		usleep(2000);
		ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &st));
	}
	ASSERT_NE(0, st.stop_at);
	usleep(2000);	/* past the window's 1 ms */
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_FLUSH));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_REARM));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &again));
	EXPECT_EQ(0, again.stop_at);
	EXPECT_LT(st.stop_at, again.start_ts);
	EXPECT_EQ(0, again.stop_ts);
	for (int i = 0; i < 20 && !again.stop_at; i++) {
		usleep(2000);
		ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &again));
	}
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STOP));
	EXPECT_NE(0, again.stop_at);
	EXPECT_EQ(cfg.trigger_pid, again.trigger_tid);
	EXPECT_LE(again.start_ts, again.trigger_ts - again.trigger_latency);
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_REARM));	/* stopped */
	EXPECT_EQ(EINVAL, errno);

	/* A ring without a trigger has no window to re-arm. */
	close(self->fd);
	self->fd = fd = open(DEV, O_RDWR | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, configure(fd, 1 << 20, 0, KTRACE_CFG_RING));
	ASSERT_EQ(0, ioctl(fd, KTRACE_IOC_START));
	EXPECT_EQ(-1, ioctl(fd, KTRACE_IOC_REARM));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ioctl(fd, KTRACE_IOC_STOP));
}

TEST_F(dev, configure_bad_sizes)
{
	EXPECT_EQ(-1, configure(self->fd, 3 << 20, 0, 0));	/* not a power of two */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, configure(self->fd, 1 << 20, 1024, 0));	/* sub-buffer too small */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, configure(self->fd, 1 << 16, 1 << 16, 0));	/* a single sub-buffer */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, configure(self->fd, 1 << 24, 4096, 0));	/* over 256 sub-buffers */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, configure(self->fd, 1ULL << 40, 0, 0));	/* absurd */
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, configure_twice)
{
	ASSERT_EQ(0, configure(self->fd, 1 << 16, 4096, 0));
	EXPECT_EQ(-1, configure(self->fd, 1 << 16, 4096, 0));
	EXPECT_EQ(EBUSY, errno);
}

TEST_F(dev, not_configured)
{
	struct ktrace_geometry geo = { .size = sizeof(geo) };

	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_START));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_GEOMETRY, &geo));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_FLUSH));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, stop_when_not_running)
{
	ASSERT_EQ(0, configure(self->fd, 1 << 16, 4096, 0));
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_STOP));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, start_twice)
{
	ASSERT_EQ(0, configure(self->fd, 1 << 16, 4096, 0));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_START));
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_START));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, ioctl(self->fd, KTRACE_IOC_STOP));
}

TEST_F(dev, consume_bad_arguments)
{
	struct ktrace_consume con = { .size = sizeof(con) };

	ASSERT_EQ(0, configure(self->fd, 1 << 16, 4096, 0));
	con.cpu = 1 << 20;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONSUME, &con));
	EXPECT_EQ(EINVAL, errno);
	con.cpu = 0;
	con.consumed = 100;			/* not sub-buffer aligned */
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONSUME, &con));
	EXPECT_EQ(EINVAL, errno);
	con.consumed = 1 << 20;			/* beyond what was written */
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONSUME, &con));
	EXPECT_EQ(EINVAL, errno);
	con.consumed = 0;
	con.reserved[1] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONSUME, &con));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, KTRACE_IOC_CONSUME, (void *)16));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(dev, geometry_and_readonly_mmap)
{
	struct ktrace_geometry geo = { .size = sizeof(geo) };
	void *p;

	ASSERT_EQ(0, configure(self->fd, 1 << 16, 4096, 0));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_GEOMETRY, &geo));
	EXPECT_EQ(sizeof(geo), geo.size);
	EXPECT_EQ(1 << 16, geo.buffer_size);
	EXPECT_EQ(4096, geo.subbuf_size);
	EXPECT_EQ(16, geo.nr_subbufs);
	EXPECT_GE(geo.meta_size, sizeof(struct ktrace_meta));
	EXPECT_EQ(geo.meta_size + geo.buffer_size, geo.cpu_stride);
	EXPECT_GE(geo.nr_cpus, sysconf(_SC_NPROCESSORS_ONLN));

	p = mmap(NULL, geo.cpu_stride, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, ((struct ktrace_meta *)p)->head);
	/* Read-only: neither writable now nor later. */
	EXPECT_EQ(-1, mprotect(p, geo.cpu_stride, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(p, geo.cpu_stride);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, geo.cpu_stride, PROT_READ | PROT_WRITE, MAP_SHARED,
				   self->fd, 0));
	EXPECT_EQ(EPERM, errno);
	/* Whole CPU regions only, at their offsets. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, geo.cpu_stride, PROT_READ, MAP_SHARED, self->fd, 4096));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, geo.cpu_stride, PROT_READ, MAP_SHARED, self->fd,
				   (off_t)geo.nr_cpus * geo.cpu_stride));
	EXPECT_EQ(EINVAL, errno);
}

/* Records read from one mapped CPU buffer's complete sub-buffers. */
static int count_switches(const struct ktrace_geometry *geo, const uint8_t *map, int *records)
{
	const struct ktrace_meta *m = (const void *)map;
	const uint8_t *data = map + geo->meta_size;
	int switches = 0;

	*records = 0;
	for (uint64_t pos = 0; pos < m->head; pos += geo->subbuf_size) {
		const struct ktrace_subbuf_meta *sm = &m->subbuf[pos / geo->subbuf_size %
								 geo->nr_subbufs];
		uint32_t off = 0;

		if (sm->commit < (pos / geo->buffer_size + 1) * geo->subbuf_size)
			return -1;	/* after STOP every sub-buffer is complete */
		while (off < sm->data_len) {
			uint64_t h;

			memcpy(&h, data + (pos % geo->buffer_size) + off, 8);
			if (!ktrace_fxt_rec_words(h))
				return -1;
			if (ktrace_fxt_rec_type(h) == KTRACE_FXT_REC_SCHED && ktrace_fxt_sched_type(h) ==
			    KTRACE_FXT_SCHED_CSWITCH_ARGS)
				switches++;
			off += ktrace_fxt_rec_words(h) * 8;
			(*records)++;
		}
		if (off != sm->data_len)
			return -1;
	}
	return switches;
}

TEST_F(dev, record_read_back_and_poll)
{
	struct ktrace_geometry geo = { .size = sizeof(geo) };
	struct ktrace_stats st = { .size = sizeof(st) };
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	int total = 0, records = 0, sum = 0;

	ASSERT_EQ(0, configure(self->fd, 1 << 20, 4096, 0));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_GEOMETRY, &geo));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_START));
	for (int i = 0; i < 50; i++)
		usleep(1000);	/* fifty sleeps: at least a hundred switches */
	EXPECT_EQ(0, ioctl(self->fd, KTRACE_IOC_FLUSH));
	EXPECT_EQ(1, poll(&pfd, 1, 1000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STOP));
	ASSERT_EQ(0, ioctl(self->fd, KTRACE_IOC_STATS, &st));
	for (unsigned int cpu = 0; cpu < geo.nr_cpus; cpu++) {
		void *p = mmap(NULL, geo.cpu_stride, PROT_READ, MAP_SHARED, self->fd,
			       (off_t)cpu * geo.cpu_stride);
		int n;

		if (p == MAP_FAILED)
			continue;	/* not a possible CPU */
		n = count_switches(&geo, p, &records);
		EXPECT_GE(n, 0);
		total += n;
		sum += records;
		munmap(p, geo.cpu_stride);
	}
	EXPECT_GE(total, 100);
	EXPECT_EQ(st.records, sum);
	EXPECT_EQ(0, st.lost);
}

static ssize_t write_mark(int fd, uint32_t size, uint32_t type, uint32_t cat_len,
			  uint32_t name_len, size_t count)
{
	struct {
		struct ktrace_mark m;
		char text[600];
	} w = { .m = { .size = size, .type = type, .cat_len = cat_len, .name_len = name_len } };

	memset(w.text, 'x', sizeof(w.text));
	return write(fd, &w, count);
}

/* An address the compiler cannot see through. */
static void *bad_address(void)
{
	volatile uintptr_t bad = 8;

	return (void *)bad;
}

TEST(mark_validation)
{
	int fd = open(KTRACE_MARK_DEVICE, O_WRONLY);
	size_t m = sizeof(struct ktrace_mark);

	ASSERT_GE(fd, 0);
	/* No session: accepted and dropped. */
	EXPECT_EQ((ssize_t)(m + 3 + 4), write_mark(fd, m, KTRACE_MARK_INSTANT, 3, 4, m + 7));
	EXPECT_EQ(-1, write_mark(fd, m, KTRACE_MARK_INSTANT, 3, 4, m - 1));	/* short */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write_mark(fd, m, 9, 3, 4, m + 7));			/* unknown type */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write_mark(fd, m, KTRACE_MARK_INSTANT, 3, 4, m + 8));	/* length mismatch */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write_mark(fd, m, KTRACE_MARK_INSTANT, 0, 300, m + 300));	/* name too long */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write_mark(fd, m, KTRACE_MARK_INSTANT, 3, 0, m + 3));	/* no name */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write_mark(fd, m + 8, KTRACE_MARK_INSTANT, 3, 4, m + 7));	/* wrong size */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(fd, bad_address(), m + 7));
	EXPECT_EQ(EFAULT, errno);
	close(fd);
}

/* The module's reference count, or -1 when it cannot be read. */
static int module_refcnt(void)
{
	FILE *f = fopen("/sys/module/ktrace/refcnt", "r");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* An open file holds a module reference (rmmod refuses), close drops it. */
TEST(module_ref_held_while_open)
{
	int before = module_refcnt(), during, after, fd;

	if (before < 0)
		SKIP(return, "/sys/module/ktrace/refcnt unreadable: ktrace built in, or no CONFIG_MODULE_UNLOAD");
	fd = open_dev(_metadata);
	if (fd < 0)
		return;
	during = module_refcnt();
	close(fd);
	after = module_refcnt();
	EXPECT_GE(during, 1);
	EXPECT_GT(during, before);
	EXPECT_EQ(before, after);
}

int main(int argc, char **argv)
{
	/* Without the module or root nothing here can run: say so once. */
	if (access(DEV, F_OK))
		ksft_exit_skip(DEV " does not exist: insmod ktrace.ko\n");
	if (geteuid())
		ksft_exit_skip(DEV " needs root\n");
	return test_harness_run(argc, argv);
}
