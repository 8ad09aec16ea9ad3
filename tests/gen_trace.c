// SPDX-License-Identifier: GPL-2.0
/*
 * Builds FXT traces with the archive writer and the shared encoders:
 *   gen_trace scenario FILE     a small known trace the JSON and dump tests check
 *   gen_trace sync-stall FILE   two clock-sync markers, one of them stalled
 *   gen_trace unordered FILE    records out of time order, as recorders write them
 *   gen_trace synthetic N FILE  N records of scheduler traffic for benchmarks
 *   gen_trace wide N FILE       a complete event written after the N switches it spans
 *   gen_trace latency FILE      waits of known length and blame, for ktrace latency
 *   gen_trace causes FILE       waits of known causes, across a migration and a gap
 *   gen_trace masks FILE        waits of threads allowed CPUs above 63, on 601 CPUs
 *   gen_trace throttle FILE     waits of a throttled cgroup's threads, and of others
 *   gen_trace throttle-task FILE  the same in the task-based throttle model
 *   gen_trace timer FILE        timer waits whose parts are known
 *   gen_trace perf-gap FILE     waits perf sched timehist measures short or ends ambiguously
 *   gen_trace timeline-ok FILE  timeline breaks, each with the record that explains it
 *   gen_trace timeline-bad FILE one of each violation ktrace dump --check reports
 *   gen_trace irq-entries FILE  interrupt entries with no exits, as --ftrace with
 *                               only local_timer_entry records them
 *   gen_trace ragged FILE       switches that end early and wakeups that begin
 *                               early, as a recorder stopped one program at a time
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fxt/fxt_writer.h"
#include "trace/timeline.h"

static void kobj_thread(struct fxt_writer *w, uint32_t tid, uint32_t pid, const char *name)
{
	__u64 buf[KTRACE_FXT_KOBJ_THREAD_MAX_WORDS];

	fxt_write_words(w, buf, ktrace_fxt_put_kobj_thread(buf, tid, pid, name, strlen(name), 0, 0));
}

/* A thread record as the CLI's state dump writes one with its cgroup. */
static void kobj_thread_cgroup(struct fxt_writer *w, uint32_t tid, uint32_t pid, const char *name,
			       const char *cgroup)
{
	struct fxt_arg args[2] = {
		fxt_arg_int(KTRACE_FXT_ARG_KOID, "process", pid),
		fxt_arg_str("cgroup", cgroup),
	};

	fxt_write_kobj(w, KTRACE_FXT_OBJ_THREAD, tid, name, args, 2);
}

/* A thread record as the recorders write one, with a cgroup id the archive has no path for. */
static void kobj_thread_id(struct fxt_writer *w, uint32_t tid, uint32_t pid, const char *name,
			   uint64_t cgroup_id)
{
	__u64 buf[KTRACE_FXT_KOBJ_THREAD_MAX_WORDS];

	fxt_write_words(w, buf, ktrace_fxt_put_kobj_thread(buf, tid, pid, name, strlen(name), 0,
							   cgroup_id));
}

static void kobj_process(struct fxt_writer *w, uint32_t pid, const char *name)
{
	__u64 buf[KTRACE_FXT_KOBJ_PROCESS_MAX_WORDS];

	fxt_write_words(w, buf, ktrace_fxt_put_kobj_process(buf, pid, name, strlen(name), 0));
}

static void cswitch(struct fxt_writer *w, uint32_t cpu, uint64_t ts, uint32_t out, int out_prio,
		    uint32_t state, uint32_t in, int in_prio)
{
	__u64 buf[KTRACE_FXT_CSWITCH_MAX_WORDS];

	fxt_write_words(w, buf, ktrace_fxt_put_cswitch(buf, cpu, ts, out, out_prio, state, in,
						       in_prio, 0));
}

static void wakeup_ctx(struct fxt_writer *w, uint32_t cpu, uint64_t ts, uint32_t tid, int prio,
		       uint32_t waker, uint32_t irq_ctx)
{
	__u64 buf[KTRACE_FXT_WAKEUP_MAX_WORDS];

	fxt_write_words(w, buf, ktrace_fxt_put_wakeup(buf, cpu, ts, tid, prio, waker, irq_ctx, 0));
}

static void wakeup(struct fxt_writer *w, uint32_t cpu, uint64_t ts, uint32_t tid, int prio,
		   uint32_t waker)
{
	wakeup_ctx(w, cpu, ts, tid, prio, waker, KTRACE_CTX_TASK);
}

#define T0 1000000000000ULL	/* 1000 s of CLOCK_MONOTONIC */

/*
 * Process 100 "demo" with threads 100 "demo", 101 "worker-a", 102 "worker-b";
 * CPUs 0 and 1.  worker-a runs on CPU 0 (prio 120), sleeps (S) and is woken
 * by worker-b on CPU 1; it then runs again and blocks in D; worker-b is
 * preempted by demo (R).  Every event type appears on thread 100/101.
 */
static void scenario(struct fxt_writer *w)
{
	struct fxt_arg args[4];
	__u64 buf[16];

	fxt_write_preamble(w, 1, "ktrace");
	args[0] = fxt_arg_str("host", "testhost");
	args[1] = fxt_arg_str("kernel", "6.1.0-test");
	args[2] = fxt_arg_str("backend", "synthetic");
	args[3] = fxt_arg_str("clock", "CLOCK_MONOTONIC");
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, T0, 0, 0, "ktrace:meta", "trace_info", args, 4, 0);
	kobj_process(w, 100, "demo");
	kobj_thread(w, 100, 100, "demo");
	kobj_thread(w, 101, 100, "worker-a");
	kobj_thread(w, 102, 100, "worker-b");
	kobj_thread(w, 103, 100, "odd \"name\"\\");

	/* CPU 0: idle -> worker-a; CPU 1: idle -> worker-b */
	cswitch(w, 0, T0 + 1000, 0, 120, KTRACE_LINUX_RUNNING, 101, 120);
	cswitch(w, 1, T0 + 1500, 0, 120, KTRACE_LINUX_RUNNING, 102, 110);
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_BEGIN, T0 + 2000, 100, 101, "app", "compute",
			NULL, 0, 0);
	args[0] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "bytes", 4096);
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, T0 + 2500, 100, 101, "app", "checkpoint",
			args, 1, 0);
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_END, T0 + 3000, 100, 101, "app", "compute",
			NULL, 0, 0);
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_COMPLETE, T0 + 3100, 100, 101, "app", "io",
			NULL, 0, T0 + 3900);
	args[0] = fxt_arg_int(KTRACE_FXT_ARG_INT64, "depth", 3);
	fxt_write_event(w, KTRACE_FXT_EV_COUNTER, T0 + 3200, 100, 101, "app", "queue", args, 1, 1);
	fxt_write_event(w, KTRACE_FXT_EV_ASYNC_BEGIN, T0 + 3300, 100, 101, "app", "request",
			NULL, 0, 0x77);
	fxt_write_event(w, KTRACE_FXT_EV_ASYNC_INSTANT, T0 + 3400, 100, 101, "app", "request",
			NULL, 0, 0x77);
	/* worker-a sleeps (S): CPU 0 goes idle */
	cswitch(w, 0, T0 + 4000, 101, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	/* worker-b wakes worker-a, which runs on CPU 0 */
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_COMPLETE, T0 + 5000, 100, 102, "app", "send",
			NULL, 0, T0 + 5400);
	fxt_write_event(w, KTRACE_FXT_EV_FLOW_BEGIN, T0 + 5000, 100, 102, "app", "send", NULL, 0, 9);
	wakeup(w, 0, T0 + 5200, 101, 120, 102);
	cswitch(w, 0, T0 + 6000, 0, 120, KTRACE_LINUX_RUNNING, 101, 120);
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_COMPLETE, T0 + 6100, 100, 101, "app", "receive",
			NULL, 0, T0 + 6500);
	fxt_write_event(w, KTRACE_FXT_EV_FLOW_END, T0 + 6100, 100, 101, "app", "receive", NULL, 0, 9);
	fxt_write_event(w, KTRACE_FXT_EV_ASYNC_END, T0 + 6600, 100, 101, "app", "request",
			NULL, 0, 0x77);
	/* clock sync marker as the recorder writes it */
	args[0] = fxt_arg_str("sync_id", "ktrace-sync-1");
	args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "issue_ts", T0 + 6690);
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, T0 + 6700, 100, 100, "ktrace:clock", "clock_sync",
			args, 2, 0);
	/* demo preempts worker-b (R) on CPU 1 */
	cswitch(w, 1, T0 + 7000, 102, 110, KTRACE_LINUX_RUNNING, 100, 120);
	/* worker-a blocks in D */
	cswitch(w, 0, T0 + 8000, 101, 120, KTRACE_LINUX_UNINTERRUPTIBLE, 0, 120);
	fxt_write_words(w, buf, ktrace_fxt_put_drop(buf, T0 + 8500, 1, 17, T0 + 8100, T0 + 8400));
	wakeup_ctx(w, 0, T0 + 9000, 101, 120, 0, KTRACE_CTX_HARDIRQ);	/* interrupting idle */
	cswitch(w, 0, T0 + 9500, 0, 120, KTRACE_LINUX_RUNNING, 101, 120);
	cswitch(w, 0, T0 + 10000, 101, 120, KTRACE_LINUX_DEAD, 0, 120);
	cswitch(w, 1, T0 + 10000, 100, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	fxt_write_log(w, T0 + 10000, 100, 100, "scenario done", 13);
	cswitch(w, 1, T0 + 10200, 0, 120, KTRACE_LINUX_RUNNING, 103, 139);
	cswitch(w, 1, T0 + 10400, 103, 139, KTRACE_LINUX_STOPPED, 0, 120);
}

/*
 * Two clock sync markers as the recorder writes them: the first written in
 * 200 ns, the second stalled for 40 us (its event in the middle of that).
 */
static void sync_stall(struct fxt_writer *w)
{
	static const struct { const char *id; uint64_t issue, ts; } m[] = {
		{ "ktrace-sync-a", T0 + 1000, T0 + 1100 },
		{ "ktrace-sync-b", T0 + 500000, T0 + 520000 },
	};
	struct fxt_arg args[2];

	fxt_write_preamble(w, 1, "ktrace");
	kobj_process(w, 100, "demo");
	for (unsigned int i = 0; i < 2; i++) {
		args[0] = fxt_arg_str("sync_id", m[i].id);
		args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "issue_ts", m[i].issue);
		fxt_write_event(w, KTRACE_FXT_EV_INSTANT, m[i].ts, 100, 100, "ktrace:clock",
				"clock_sync", args, 2, 0);
	}
}

/*
 * Records in the order a recorder writes them, not in time order: a wakeup
 * from an interrupt that came between a switch's clock read and its
 * reservation, and complete events written when they end.  One clock-sync
 * marker at T0 + 1000.
 */
static void unordered(struct fxt_writer *w)
{
	struct fxt_arg args[2];

	fxt_write_preamble(w, 1, "ktrace");
	kobj_process(w, 100, "demo");
	kobj_thread(w, 101, 100, "worker-a");
	args[0] = fxt_arg_str("sync_id", "ktrace-sync-u");
	args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "issue_ts", T0 + 900);
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, T0 + 1000, 100, 100, "ktrace:clock", "clock_sync",
			args, 2, 0);
	cswitch(w, 0, T0 + 2000, 0, 120, 0, 101, 120);
	wakeup(w, 0, T0 + 2600, 100, 120, 101);		/* the interrupt's */
	cswitch(w, 0, T0 + 2500, 101, 120, 1, 100, 120);	/* the interrupted */
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_COMPLETE, T0 + 2100, 100, 100, "kprobe",
			"do_sys_poll", NULL, 0, T0 + 9000);
	cswitch(w, 0, T0 + 9500, 100, 120, 1, 0, 120);
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, T0 + 12000, 100, 100, "ktrace", "end", NULL, 0, 0);
}

/*
 * A complete event that spans @n context switches, written when it ends,
 * as a kretprobe on a function that sleeps would be.
 */
static void wide(struct fxt_writer *w, uint64_t n)
{
	struct fxt_arg args[2];
	uint64_t i;

	fxt_write_preamble(w, 1, "ktrace");
	args[0] = fxt_arg_str("sync_id", "ktrace-sync-u");
	args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "issue_ts", T0 + 900);
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, T0 + 1000, 100, 100, "ktrace:clock", "clock_sync",
			args, 2, 0);
	for (i = 0; i < n; i++)
		cswitch(w, 0, T0 + 3000 + 100 * i, 100 + i % 2, 120, 1, 100 + (i + 1) % 2, 120);
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_COMPLETE, T0 + 2000, 100, 100, "kprobe",
			"do_sys_poll", NULL, 0, T0 + 3000 + 100 * n);
}

/* An interrupt handler's duration on its CPU's track, as the ftrace import writes it. */
static void irq(struct fxt_writer *w, uint32_t cpu, uint64_t begin, uint64_t end,
		const char *name)
{
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_BEGIN, begin, KTRACE_FXT_IRQ_PID,
			KTRACE_FXT_IRQ_TID(cpu), "irq", name, NULL, 0, 0);
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_END, end, KTRACE_FXT_IRQ_PID,
			KTRACE_FXT_IRQ_TID(cpu), "irq", name, NULL, 0, 0);
}

/*
 * Interrupt entries whose exits were not recorded: sleeper 300 on CPU 0 is
 * woken from a hardirq after the first "local_timer 236" entry (the handler
 * is known), then, after eight more entries, from a hardirq whose handler
 * cannot be told any more.
 */
static void irq_entries(struct fxt_writer *w)
{
	int i;

	fxt_write_preamble(w, 1, "ktrace");
	kobj_process(w, 300, "sleeper");
	kobj_thread(w, 300, 300, "sleeper");
	cswitch(w, 0, T0 + 100, 0, 120, 0, 300, 120);
	cswitch(w, 0, T0 + 200, 300, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_BEGIN, T0 + 1000, KTRACE_FXT_IRQ_PID,
			KTRACE_FXT_IRQ_TID(0), "irq_vectors", "local_timer 236", NULL, 0, 0);
	wakeup_ctx(w, 0, T0 + 1100, 300, 120, 0, KTRACE_CTX_HARDIRQ);
	cswitch(w, 0, T0 + 1500, 0, 120, 0, 300, 120);
	cswitch(w, 0, T0 + 1600, 300, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	for (i = 0; i < 8; i++)
		fxt_write_event(w, KTRACE_FXT_EV_DURATION_BEGIN, T0 + 2000 + 100 * i,
				KTRACE_FXT_IRQ_PID, KTRACE_FXT_IRQ_TID(0), "irq_vectors",
				"local_timer 236", NULL, 0, 0);
	wakeup_ctx(w, 0, T0 + 3000, 300, 120, 0, KTRACE_CTX_HARDIRQ);
	cswitch(w, 0, T0 + 3700, 0, 120, 0, 300, 120);
}

/*
 * Waits whose length, blame and waker are known (times from T0, in ns):
 *  - victim 200 sleeps (S) on CPU 1 at 500, is woken by waker 202 on CPU 0
 *    at 2000 while hog 201 (SCHED_FIFO 50, prio 49) holds CPU 1, which
 *    "irq 27 eth0" interrupts for 500; it runs at 7000: wakeup latency
 *    5000, blocked S 1500;
 *  - the hog preempts it at 8000 until 11000: preemption latency 3000;
 *  - it sleeps in D at 12000; "softirq TIMER" on CPU 0, interrupting the
 *    waker, wakes it at 13100; it runs on CPU 0 at 14000: latency 900,
 *    migrated from CPU 1, blocked D 1100; the hog's wakeup at 7900 by the
 *    victim gives it a 100 ns wait;
 *  - not measured: 202, 200, 201, 203 and 204 first switch in (before
 *    the trace), 204 switches in again without a wakeup, and 205's wait
 *    (20000 to 22000) overlaps records lost on CPU 1 (20500 to 21000).
 */
static void latency(struct fxt_writer *w)
{
	__u64 buf[KTRACE_FXT_DROP_WORDS];

	fxt_write_preamble(w, 1, "ktrace");
	kobj_process(w, 200, "app");
	kobj_thread(w, 200, 200, "victim");
	kobj_thread(w, 201, 200, "hog");
	kobj_process(w, 202, "waker");
	kobj_thread(w, 202, 202, "waker");
	kobj_thread(w, 203, 203, "late");
	kobj_thread(w, 204, 204, "nowake");
	kobj_thread(w, 205, 205, "lossy");
	cswitch(w, 0, T0 + 100, 0, 120, 0, 202, 120);
	cswitch(w, 1, T0 + 200, 0, 120, 0, 200, 120);
	cswitch(w, 1, T0 + 500, 200, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	cswitch(w, 1, T0 + 1000, 0, 120, 0, 201, 49);
	wakeup(w, 0, T0 + 2000, 200, 120, 202);
	irq(w, 1, T0 + 3000, T0 + 3500, "irq 27 eth0");
	cswitch(w, 1, T0 + 7000, 201, 49, KTRACE_LINUX_INTERRUPTIBLE, 200, 120);
	wakeup(w, 1, T0 + 7900, 201, 49, 200);
	cswitch(w, 1, T0 + 8000, 200, 120, KTRACE_LINUX_RUNNING, 201, 49);
	cswitch(w, 1, T0 + 11000, 201, 49, KTRACE_LINUX_INTERRUPTIBLE, 200, 120);
	cswitch(w, 1, T0 + 12000, 200, 120, KTRACE_LINUX_UNINTERRUPTIBLE, 0, 120);
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_BEGIN, T0 + 13000, KTRACE_FXT_IRQ_PID,
			KTRACE_FXT_IRQ_TID(0), "irq", "softirq TIMER", NULL, 0, 0);
	wakeup_ctx(w, 0, T0 + 13100, 200, 120, 202, KTRACE_CTX_SOFTIRQ);
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_END, T0 + 13200, KTRACE_FXT_IRQ_PID,
			KTRACE_FXT_IRQ_TID(0), "irq", "softirq TIMER", NULL, 0, 0);
	cswitch(w, 0, T0 + 14000, 202, 120, KTRACE_LINUX_INTERRUPTIBLE, 200, 120);
	cswitch(w, 0, T0 + 15000, 200, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	cswitch(w, 0, T0 + 16000, 0, 120, 0, 203, 120);
	cswitch(w, 1, T0 + 16500, 0, 120, 0, 204, 120);
	cswitch(w, 1, T0 + 17500, 204, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	cswitch(w, 1, T0 + 18000, 0, 120, 0, 204, 120);
	cswitch(w, 1, T0 + 19000, 204, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	wakeup(w, 0, T0 + 20000, 205, 120, 203);
	fxt_write_words(w, buf, ktrace_fxt_put_drop(buf, T0 + 21500, 1, 7, T0 + 20500, T0 + 21000));
	cswitch(w, 1, T0 + 22000, 0, 120, 0, 205, 120);
	cswitch(w, 1, T0 + 23000, 205, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
}

static void migrate(struct fxt_writer *w, uint64_t ts, uint32_t tid, uint32_t from, uint32_t to)
{
	__u64 buf[KTRACE_FXT_MIGRATE_WORDS];

	fxt_write_words(w, buf, ktrace_fxt_put_migrate(buf, ts, tid, tid, from, to));
}

/*
 * Switches in the spec's layout alone, with no linux_state argument: a
 * foreign trace.  victim 300 is switched out suspended on CPU 1 at 200
 * (stopped: SIGSTOP), and continued by waker 302 at 5000; thread 305 exits
 * at 300 (dead).  Times from T0, in ns.
 */
static void stopped(struct fxt_writer *w)
{
	fxt_write_preamble(w, 1, "ktrace");
	kobj_process(w, 300, "app");
	kobj_thread(w, 300, 300, "victim");
	kobj_thread(w, 302, 300, "waker");
	kobj_thread(w, 305, 300, "exiting");
	fxt_write_cswitch(w, 1, KTRACE_FXT_THREAD_RUNNING, T0 + 100, 0, 0, 120, 300, 300, 120);
	fxt_write_cswitch(w, 1, KTRACE_FXT_THREAD_SUSPENDED, T0 + 200, 300, 300, 120, 300, 305, 120);
	fxt_write_cswitch(w, 1, KTRACE_FXT_THREAD_DEAD, T0 + 300, 300, 305, 120, 0, 0, 120);
	fxt_write_cswitch(w, 0, KTRACE_FXT_THREAD_RUNNING, T0 + 400, 0, 0, 120, 300, 302, 120);
	wakeup(w, 0, T0 + 5000, 300, 120, 302);
	fxt_write_cswitch(w, 1, KTRACE_FXT_THREAD_RUNNING, T0 + 5100, 0, 0, 120, 300, 300, 120);
}

static void untraced(struct fxt_writer *w, uint32_t cpu, uint64_t tid, uint64_t out,
		     uint64_t first, uint64_t last);

/*
 * Waits with known causes (times from T0, in ns), CPUs 0 and 1:
 *  - victim 400 (nice 0) runs on CPU 1 from 1000 and is preempted at 2000
 *    by kt_fifo 401 (SCHED_FIFO 50), which "irq 27 eth0" interrupts from
 *    3000 to 3400; CPU 0 is idle from 500; the balancer moves the victim
 *    to CPU 0 at 6000, where it runs at 6500: preemption latency 4500 =
 *    higher_priority 3600 + interrupts 400 on CPU 1, cpu_idle 500 on CPU 0;
 *  - it sleeps on CPU 0 at 7000, where other 402 (nice 0) comes in; peer
 *    403 preempts other at 7200; the kernel then switches without tracing
 *    it until 9000, where ghost 404 is switched out for other again; the
 *    victim, woken at 7500 by kt_fifo, runs at 9500: wakeup latency 2000 =
 *    unknown 1500 (untraced) + same_class 500 (other);
 *  - CPU 0 is idle from 12000 on.  kt_fifo runs on CPU 1 from 13000 to
 *    15000; pinned 405 (allowed CPU 1 only) and free 406 are woken on
 *    CPU 1 at 13500 and 13600 and run there at 15000 and 15200: pinned's
 *    1500 are higher_priority with no idle CPU it may use; free's 1600 are
 *    higher_priority 1400 + same_class 200 (pinned), while CPU 0, which it
 *    may use, idled throughout: idle_allowed_elsewhere 1600 on CPU 0.
 * victim and free are in cgroup /kubepods/pod1, pinned in /kubepods/pod2,
 * kt_fifo in /, other in cgroup id 9, which has no path (removed before the
 * recording ended); the others' cgroups are not given.
 */
static void causes(struct fxt_writer *w)
{
	__u64 buf[KTRACE_FXT_WAKEUP_MAX_WORDS];

	fxt_write_preamble(w, 1, "ktrace");
	kobj_thread_cgroup(w, 400, 400, "victim", "/kubepods/pod1");
	kobj_thread_cgroup(w, 401, 401, "kt_fifo", "/");
	kobj_thread_id(w, 402, 402, "other", 9);
	kobj_thread(w, 403, 403, "peer");
	kobj_thread(w, 404, 404, "ghost");
	kobj_thread_cgroup(w, 405, 405, "pinned", "/kubepods/pod2");
	kobj_thread_cgroup(w, 406, 406, "free", "/kubepods/pod1");
	cswitch(w, 0, T0 + 100, 0, 120, 0, 402, 120);
	cswitch(w, 1, T0 + 200, 0, 120, 0, 0, 120);
	cswitch(w, 0, T0 + 500, 402, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	cswitch(w, 1, T0 + 1000, 0, 120, 0, 400, 120);
	cswitch(w, 1, T0 + 2000, 400, 120, KTRACE_LINUX_RUNNING, 401, 49);
	irq(w, 1, T0 + 3000, T0 + 3400, "irq 27 eth0");
	migrate(w, T0 + 6000, 400, 1, 0);
	cswitch(w, 0, T0 + 6500, 0, 120, 0, 400, 120);
	wakeup(w, 0, T0 + 6900, 402, 120, 400);
	cswitch(w, 0, T0 + 7000, 400, 120, KTRACE_LINUX_INTERRUPTIBLE, 402, 120);
	cswitch(w, 0, T0 + 7200, 402, 120, KTRACE_LINUX_RUNNING, 403, 120);
	wakeup(w, 1, T0 + 7500, 400, 120, 401);
	untraced(w, 0, 403, 404, T0 + 7200, T0 + 9000);
	cswitch(w, 0, T0 + 9000, 404, 120, KTRACE_LINUX_RUNNING, 402, 120);
	cswitch(w, 0, T0 + 9500, 402, 120, KTRACE_LINUX_INTERRUPTIBLE, 400, 120);
	cswitch(w, 1, T0 + 11000, 401, 49, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	cswitch(w, 0, T0 + 12000, 400, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	wakeup(w, 1, T0 + 12900, 401, 49, 404);
	cswitch(w, 1, T0 + 13000, 0, 120, 0, 401, 49);
	fxt_write_words(w, buf, ktrace_fxt_put_wakeup(buf, 1, T0 + 13500, 405, 120, 401,
						      KTRACE_CTX_TASK, 0x2));
	wakeup(w, 1, T0 + 13600, 406, 120, 401);
	cswitch(w, 1, T0 + 15000, 401, 49, KTRACE_LINUX_INTERRUPTIBLE, 405, 120);
	cswitch(w, 1, T0 + 15200, 405, 120, KTRACE_LINUX_INTERRUPTIBLE, 406, 120);
	cswitch(w, 1, T0 + 16000, 406, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
}

/*
 * Allowed CPUs above 63, as the recorders write them on a machine of 601
 * CPUs (10 mask words), on CPUs 0, 1, 64, 65, 129 and 600 (times from T0):
 *  - FIFO hogs 702, 703, 704 run on CPUs 64, 65, 1 from 1000 to 3000;
 *    CPUs 0, 129 and 600 are idle throughout;
 *  - high 700 runs on CPU 64 from 500; its "affinity" says CPUs 64-65 at
 *    1000, where hog 702 preempts it; it runs again at 3000: 2000 of
 *    higher_priority, and no idle CPU it may use (65 is busy, CPU 0 idle
 *    is not its);
 *  - split 701, allowed CPUs 1 and 129 by its thread record and wakeup, is
 *    woken on CPU 1 at 1500 and runs there at 3000: CPU 129 idled
 *    throughout the 1500, CPU 0 too but it may not use that one;
 *  - cut 705's mask has more words than a record holds: 64, 128, ... 512
 *    (words 1 to 8), cut from CPU 576 on, which it may all use; woken on
 *    CPU 65 at 1500 and run there at 3000: CPU 600 idled throughout.
 */
static void masks(struct fxt_writer *w)
{
	__u64 buf[KTRACE_FXT_KOBJ_THREAD_WIDE_MAX_WORDS];
	const __u64 high[10] = { 0, 0x3 }, split[10] = { 0x2, 0, 0x2 };
	__u64 cut[10] = { 0 };
	const uint32_t cpus[] = { 0, 1, 64, 65, 129, 600 };

	for (int i = 1; i < 10; i++)
		cut[i] = 1;
	fxt_write_preamble(w, 1, "ktrace");
	kobj_thread(w, 700, 700, "high");
	fxt_write_words(w, buf, ktrace_fxt_put_kobj_thread_wide(buf, 701, 701, "split", 5, split,
								 10, 0));
	kobj_thread(w, 702, 702, "hog64");
	kobj_thread(w, 703, 703, "hog65");
	kobj_thread(w, 704, 704, "hog1");
	kobj_thread(w, 705, 705, "cut");
	for (unsigned int i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++)
		cswitch(w, cpus[i], T0 + 100, 0, 120, 0, 0, 120);
	cswitch(w, 64, T0 + 500, 0, 120, 0, 700, 120);
	fxt_write_words(w, buf, ktrace_fxt_put_affinity_wide(buf, T0 + 1000, 700, 700, high, 10));
	cswitch(w, 64, T0 + 1000, 700, 120, KTRACE_LINUX_RUNNING, 702, 49);
	cswitch(w, 65, T0 + 1000, 0, 120, 0, 703, 49);
	cswitch(w, 1, T0 + 1000, 0, 120, 0, 704, 49);
	fxt_write_words(w, buf, ktrace_fxt_put_wakeup_wide(buf, 1, T0 + 1500, 701, 120, 704,
							   KTRACE_CTX_TASK, split, 10));
	fxt_write_words(w, buf, ktrace_fxt_put_wakeup_wide(buf, 65, T0 + 1500, 705, 120, 703,
							   KTRACE_CTX_TASK, cut, 10));
	cswitch(w, 64, T0 + 3000, 702, 49, KTRACE_LINUX_INTERRUPTIBLE, 700, 120);
	cswitch(w, 65, T0 + 3000, 703, 49, KTRACE_LINUX_INTERRUPTIBLE, 705, 120);
	cswitch(w, 1, T0 + 3000, 704, 49, KTRACE_LINUX_INTERRUPTIBLE, 701, 120);
	cswitch(w, 64, T0 + 4000, 700, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	cswitch(w, 65, T0 + 4000, 705, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	cswitch(w, 1, T0 + 4000, 701, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
}

/*
 * Waits as perf sched timehist gets them wrong (times from T0, in us), for
 * tests/check_perf_sched.py; tests/test_latency.sh gives the perf script
 * and timehist text perf makes of the same run:
 *  - 601 is woken at 1000 on CPU 0, behind waker 600; CPU 1 goes idle at
 *    5000, the balancer moves 601 there at 5300 and it runs from idle at
 *    5500: a wait of 4500.  perf records nothing while the idle task is
 *    current, so its delay ends at CPU 1's switch to idle: 4000;
 *  - 602, woken at 2000 on CPU 0, runs at 8000, is preempted at 8040 and
 *    runs again at 8050: waits of 6000 and 10, whose ends are 24 and 26
 *    from the switch-in perf stamps at 8026;
 *  - then what neither records: on CPU 1 the kernel switches from 605 to
 *    604 untraced between 9100 and 9500; 604, woken at 9200, waits until
 *    an unseen switch-in (not measured); 605, woken at 9800, after it,
 *    runs at 10000 (a wait of 200).  On CPU 0, 606 runs from 10200 and is
 *    switched out untraced before 10400; it runs again on CPU 1 at 10600
 *    without a wakeup, preempted or woken unseen (not measured).
 */
static void perf_gap(struct fxt_writer *w)
{
#define US(x) (T0 + (x) * 1000ULL)
	fxt_write_preamble(w, 1, "ktrace");
	kobj_thread(w, 600, 600, "waker");
	kobj_thread(w, 601, 601, "hackbench");
	kobj_thread(w, 602, 602, "hackbench");
	kobj_thread(w, 603, 603, "hog");
	cswitch(w, 0, US(100), 0, 120, 0, 600, 120);
	cswitch(w, 1, US(200), 0, 120, 0, 603, 120);
	cswitch(w, 1, US(300), 603, 120, KTRACE_LINUX_RUNNING, 601, 120);
	cswitch(w, 1, US(400), 601, 120, KTRACE_LINUX_INTERRUPTIBLE, 603, 120);
	wakeup(w, 0, US(1000), 601, 120, 600);
	cswitch(w, 0, US(1500), 600, 120, KTRACE_LINUX_RUNNING, 602, 120);
	cswitch(w, 0, US(1600), 602, 120, KTRACE_LINUX_INTERRUPTIBLE, 600, 120);
	wakeup(w, 0, US(2000), 602, 120, 600);
	cswitch(w, 1, US(5000), 603, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	migrate(w, US(5300), 601, 0, 1);
	cswitch(w, 1, US(5500), 0, 120, 0, 601, 120);
	cswitch(w, 1, US(6000), 601, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	cswitch(w, 0, US(8000), 600, 120, KTRACE_LINUX_RUNNING, 602, 120);
	cswitch(w, 0, US(8040), 602, 120, KTRACE_LINUX_RUNNING, 600, 120);
	cswitch(w, 0, US(8050), 600, 120, KTRACE_LINUX_INTERRUPTIBLE, 602, 120);
	cswitch(w, 0, US(8300), 602, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	kobj_thread(w, 604, 604, "hackbench");
	kobj_thread(w, 605, 605, "hackbench");
	kobj_thread(w, 606, 606, "hackbench");
	cswitch(w, 1, US(9000), 0, 120, 0, 604, 120);
	cswitch(w, 1, US(9100), 604, 120, KTRACE_LINUX_INTERRUPTIBLE, 605, 120);
	wakeup(w, 0, US(9200), 604, 120, 600);
	untraced(w, 1, 605, 604, US(9100), US(9500));
	cswitch(w, 1, US(9500), 604, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	wakeup(w, 0, US(9800), 605, 120, 600);
	cswitch(w, 1, US(10000), 0, 120, 0, 605, 120);
	cswitch(w, 1, US(10100), 605, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	cswitch(w, 0, US(10200), 0, 120, 0, 606, 120);
	wakeup(w, 0, US(10300), 603, 120, 600);
	untraced(w, 0, 606, 0, US(10200), US(10400));
	cswitch(w, 0, US(10400), 0, 120, 0, 603, 120);
	cswitch(w, 1, US(10600), 0, 120, 0, 606, 120);
	cswitch(w, 1, US(10700), 606, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
#undef US
}

/* A trace_info record as ktrace record writes it, saying whether throttling is recorded. */
static void trace_info(struct fxt_writer *w, const char *throttling)
{
	struct fxt_arg args[5] = {
		fxt_arg_str("host", "testhost"), fxt_arg_str("kernel", "6.12.0-test"),
		fxt_arg_str("backend", "bpf"), fxt_arg_str("clock", "CLOCK_MONOTONIC"),
		fxt_arg_str("throttling", throttling),
	};

	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, T0, 0, 0, "ktrace:meta", "trace_info", args, 5, 0);
}

/*
 * CFS bandwidth throttling (times from T0, ns), CPUs 0 and 1; cgroup id 77
 * is /kubepods/pod1 with cpu.max "10000 100000":
 *  - spinner 500 (in /kubepods/pod1/app) runs on CPU 1 from 1000 and is
 *    throttled there at 2000 (a throttle record naming cgroup 77, then its
 *    switch-out, runnable, to idle); "irq 27 eth0" runs on CPU 1 from 3000
 *    to 3400; busy 502 (in /) runs there from 5000; cgroup 77's bandwidth
 *    timer fires at 8000, but leaves CPU 1 throttled (the "after" refill
 *    at 8010 says so), and again at 8200, unthrottling it; at 8500 busy
 *    sleeps for outsider 503 (in /other), which sleeps at 9000 for the
 *    spinner: preemption latency 7000 = throttled 6200 (2000 to 8200: over
 *    the interrupt, the idle CPU and busy alike) + same_class 800;
 *  - sibling 501 (in /kubepods/pod1/app, no throttle record of its own),
 *    woken on CPU 1 at 2500, runs at 9500 when the spinner sleeps:
 *    wakeup latency 7000 = throttled 5700 + same_class 1300;
 *  - outsider, woken on CPU 1 at 6000, runs at 8500: 2500 same_class, as
 *    its cgroup is not throttled;
 *  - cousin 504 (in /kubepods/pod1), woken on CPU 0 at 3000 while hog 505
 *    runs there, runs at 4000: 1000 same_class: the cgroup is throttled on
 *    CPU 1, not on CPU 0.
 * One span, on CPU 1: 6200 ns.  As "throttle-task" the trace says the
 * kernel has the task-based model, where a throttle holds only the thread
 * it switched out: the sibling's wait is then same_class 4500, cpu_idle
 * 2100 and interrupts 400.
 */
static void throttle(struct fxt_writer *w, bool per_task)
{
	__u64 buf[KTRACE_FXT_CFS_REFILL_WORDS];
	struct fxt_arg limit[5] = {
		fxt_arg_int(KTRACE_FXT_ARG_UINT64, "cgroup_id", 77),
		fxt_arg_str("path", "/kubepods/pod1"), fxt_arg_str("cpu_max", "10000 100000"),
		fxt_arg_str("cpu_max_end", "10000 100000"), fxt_arg_str("hierarchy", "v2"),
	};

	fxt_write_preamble(w, 1, "ktrace");
	trace_info(w, per_task ? KTRACE_THROTTLING_TASK : KTRACE_THROTTLING_CFS_RQ);
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, T0, 0, 0, "ktrace:meta", "cgroup_limit", limit, 5,
			0);
	kobj_thread_cgroup(w, 500, 500, "spinner", "/kubepods/pod1/app");
	kobj_thread_cgroup(w, 501, 500, "sibling", "/kubepods/pod1/app");
	kobj_thread_cgroup(w, 502, 502, "busy", "/");
	kobj_thread_cgroup(w, 503, 503, "outsider", "/other");
	kobj_thread_cgroup(w, 504, 504, "cousin", "/kubepods/pod1");
	kobj_thread_cgroup(w, 505, 505, "hog", "/");
	cswitch(w, 0, T0 + 100, 0, 120, 0, 505, 120);
	cswitch(w, 1, T0 + 1000, 0, 120, 0, 500, 120);
	fxt_write_words(w, buf, ktrace_fxt_put_throttle(buf, T0 + 2000, 500, 500, 1, 77));
	cswitch(w, 1, T0 + 2000, 500, 120, KTRACE_LINUX_RUNNING, 0, 120);
	wakeup(w, 1, T0 + 2500, 501, 120, 505);
	wakeup(w, 0, T0 + 3000, 504, 120, 505);
	irq(w, 1, T0 + 3000, T0 + 3400, "irq 27 eth0");
	cswitch(w, 0, T0 + 4000, 505, 120, KTRACE_LINUX_RUNNING, 504, 120);
	cswitch(w, 0, T0 + 4500, 504, 120, KTRACE_LINUX_INTERRUPTIBLE, 505, 120);
	wakeup(w, 1, T0 + 4900, 502, 120, 505);
	cswitch(w, 1, T0 + 5000, 0, 120, 0, 502, 120);
	wakeup(w, 1, T0 + 6000, 503, 120, 502);
	fxt_write_words(w, buf, ktrace_fxt_put_cfs_refill(buf, T0 + 8000, 0, 77, 0, 0));
	fxt_write_words(w, buf, ktrace_fxt_put_cfs_refill(buf, T0 + 8010, 0, 77, 0x2, 1));
	fxt_write_words(w, buf, ktrace_fxt_put_cfs_refill(buf, T0 + 8200, 0, 77, 0, 0));
	cswitch(w, 1, T0 + 8500, 502, 120, KTRACE_LINUX_INTERRUPTIBLE, 503, 120);
	cswitch(w, 1, T0 + 9000, 503, 120, KTRACE_LINUX_INTERRUPTIBLE, 500, 120);
	cswitch(w, 1, T0 + 9500, 500, 120, KTRACE_LINUX_INTERRUPTIBLE, 501, 120);
	cswitch(w, 1, T0 + 10000, 501, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	cswitch(w, 0, T0 + 10000, 505, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
}

static void timer_expire(struct fxt_writer *w, uint32_t cpu, uint64_t ts, uint32_t tid,
			 uint64_t due)
{
	__u64 buf[KTRACE_FXT_TIMER_EXPIRE_WORDS];

	fxt_write_words(w, buf, ktrace_fxt_put_timer_expire(buf, ts, tid, tid, due, due + 50, cpu));
}

/*
 * Three timer waits of sleeper 400 on CPU 0, parts known (from T0, ns):
 *  1. due at 1000 while hog 401 runs; fired 1600, woken 1650, runs 2000:
 *     1000 = timer_late 600 + handler 50 + wait 350;
 *  2. due at 3000 while CPU 0 is idle; fired 3100, woken 3120, runs 3200:
 *     200 = 100 + 20 + 80;
 *  3. due at 5000 inside "irq 30 nvme" (4900 to 5100); fired 5150, woken
 *     5160, runs 6000: 1000 = 150 + 10 + 840.
 *  4. woken by the hog at 7500 (a wakeup wait of 100), it runs from 7600
 *     when its timer, due at 8000, fires at 8300 and wakes it at 8310
 *     before it got off the CPU: 310 = 300 + 10 + 0, and at the due time
 *     CPU 0 was running the sleeper itself.
 * The hog's own wakeup (by the sleeper, at 6500) stays a wakeup wait.
 */
static void timer(struct fxt_writer *w)
{
	fxt_write_preamble(w, 1, "ktrace");
	kobj_thread(w, 400, 400, "sleeper");
	kobj_thread(w, 401, 401, "hog");
	cswitch(w, 0, T0 + 100, 0, 120, 0, 400, 120);
	cswitch(w, 0, T0 + 200, 400, 120, KTRACE_LINUX_INTERRUPTIBLE, 401, 120);
	timer_expire(w, 0, T0 + 1600, 400, T0 + 1000);
	wakeup_ctx(w, 0, T0 + 1650, 400, 120, 401, KTRACE_CTX_HARDIRQ);
	cswitch(w, 0, T0 + 2000, 401, 120, KTRACE_LINUX_RUNNING, 400, 120);
	cswitch(w, 0, T0 + 2100, 400, 120, KTRACE_LINUX_INTERRUPTIBLE, 401, 120);
	cswitch(w, 0, T0 + 2200, 401, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	timer_expire(w, 0, T0 + 3100, 400, T0 + 3000);
	wakeup_ctx(w, 0, T0 + 3120, 400, 120, 0, KTRACE_CTX_HARDIRQ);
	cswitch(w, 0, T0 + 3200, 0, 120, 0, 400, 120);
	cswitch(w, 0, T0 + 3300, 400, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	irq(w, 0, T0 + 4900, T0 + 5100, "irq 30 nvme");
	timer_expire(w, 0, T0 + 5150, 400, T0 + 5000);
	wakeup_ctx(w, 0, T0 + 5160, 400, 120, 0, KTRACE_CTX_HARDIRQ);
	cswitch(w, 0, T0 + 6000, 0, 120, 0, 400, 120);
	wakeup(w, 0, T0 + 6500, 401, 120, 400);
	cswitch(w, 0, T0 + 7000, 400, 120, KTRACE_LINUX_INTERRUPTIBLE, 401, 120);
	wakeup(w, 0, T0 + 7500, 400, 120, 401);
	cswitch(w, 0, T0 + 7600, 401, 120, KTRACE_LINUX_RUNNING, 400, 120);
	timer_expire(w, 0, T0 + 8300, 400, T0 + 8000);
	wakeup_ctx(w, 0, T0 + 8310, 400, 120, 400, KTRACE_CTX_HARDIRQ);
	cswitch(w, 0, T0 + 9000, 400, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
}

/*
 * A real-time thread kept off its CPU (times from T0, ns), on a kernel whose
 * preemption model is voluntary; CPU 0 idles from 50:
 *  - rt 500 (FIFO 80) sleeps on CPU 1 at 200 behind spinner 501 (fair);
 *    its timer, due at 1000, fires at 1500 and wakes it at 1510, but 501
 *    keeps CPU 1 until 4000: a timer wait of 3000, timer_late 510 and
 *    not_preempted 2490, with CPU 0 idle (idle_allowed_elsewhere) only
 *    for the 2490 it was runnable;
 *  - rt2 502 (FIFO 80 too) is woken at 4100 behind 500 and runs at 4600: a
 *    round-robin turn, same_class 500;
 *  - 503 (FIFO 90) is woken at 4700 behind 502 and runs at 5000: the lower
 *    RT priority was not preempted, not_preempted 300.
 */
static void rt_causes(struct fxt_writer *w)
{
	struct fxt_arg args[6] = {
		fxt_arg_str("host", "testhost"), fxt_arg_str("kernel", "6.1.0-test"),
		fxt_arg_str("backend", "kmod"), fxt_arg_str("clock", "CLOCK_MONOTONIC"),
		fxt_arg_str("throttling", "recorded (whole cfs_rq model)"),
		fxt_arg_str("preemption", "voluntary (dynamic)"),
	};

	fxt_write_preamble(w, 1, "ktrace");
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, T0, 0, 0, "ktrace:meta", "trace_info", args, 6, 0);
	kobj_thread(w, 500, 500, "rt");
	kobj_thread(w, 501, 501, "spinner");
	kobj_thread(w, 502, 502, "rt2");
	kobj_thread(w, 503, 503, "rt3");
	cswitch(w, 0, T0 + 50, 0, 120, 0, 0, 120);
	cswitch(w, 1, T0 + 100, 0, 120, 0, 500, 19);
	cswitch(w, 1, T0 + 200, 500, 19, KTRACE_LINUX_INTERRUPTIBLE, 501, 120);
	timer_expire(w, 1, T0 + 1500, 500, T0 + 1000);
	wakeup_ctx(w, 1, T0 + 1510, 500, 19, 501, KTRACE_CTX_HARDIRQ);
	cswitch(w, 1, T0 + 4000, 501, 120, KTRACE_LINUX_RUNNING, 500, 19);
	wakeup(w, 1, T0 + 4100, 502, 19, 500);
	cswitch(w, 1, T0 + 4600, 500, 19, KTRACE_LINUX_INTERRUPTIBLE, 502, 19);
	wakeup(w, 1, T0 + 4700, 503, 9, 502);
	cswitch(w, 1, T0 + 5000, 502, 19, KTRACE_LINUX_INTERRUPTIBLE, 503, 9);
	cswitch(w, 1, T0 + 5500, 503, 9, KTRACE_LINUX_INTERRUPTIBLE, 501, 120);
}

static void cswitch_in(struct fxt_writer *w, uint32_t cpu, uint64_t ts, uint32_t out,
		       int out_prio, uint32_t state, uint32_t in, int in_prio, uint32_t kstack)
{
	__u64 buf[KTRACE_FXT_CSWITCH_MAX_WORDS];

	fxt_write_words(w, buf, ktrace_fxt_put_cswitch(buf, cpu, ts, out, out_prio, state, in,
						       in_prio, kstack));
}

static void kstack(struct fxt_writer *w, uint32_t id, const char *fn, const char *frames)
{
	struct fxt_arg args[3] = {
		fxt_arg_int(KTRACE_FXT_ARG_UINT32, "kstack", id),
		fxt_arg_str("blocked_in", fn),
		fxt_arg_str("frames", frames),
	};

	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, T0, 0, 0, "ktrace:meta", "kstack", args, 3, 0);
}

/*
 * Two waits of victim 300 with a known critical path (times from T0, ns):
 *  1. victim blocks in pipe_read on CPU 1 at 200; waiter 301 blocks in
 *     futex_wait_queue at 400; holder 302 (CPU 0, running since 50) is
 *     preempted by hog 303 (SCHED_FIFO 50) from 1000 to 9000, wakes waiter
 *     at 10000; waiter runs at 10500 (behind idle), wakes victim at 11000,
 *     blocks at 11200, when victim runs: an 11000 ns wait.
 *  2. victim blocks in pipe_read at 12000; ticker 304 (CPU 2, running
 *     since 11500) sleeps in do_nanosleep at 12500; a hardirq wakes it at
 *     20000; it runs at 20100, wakes victim at 20300, blocks at 20400;
 *     victim runs at 20500: an 8500 ns wait that ends in a timer.
 */
static void chain(struct fxt_writer *w)
{
	fxt_write_preamble(w, 1, "ktrace");
	kobj_process(w, 300, "app");
	kobj_thread(w, 300, 300, "victim");
	kobj_thread(w, 301, 300, "waiter");
	kobj_thread(w, 302, 300, "holder");
	kobj_thread(w, 303, 300, "hog");
	kobj_thread(w, 304, 300, "ticker");
	kstack(w, 1, "pipe_read", "entry_SYSCALL_64;ksys_read;vfs_read;pipe_read;schedule;__schedule");
	kstack(w, 2, "futex_wait_queue",
	       "entry_SYSCALL_64;__x64_sys_futex;futex_wait;futex_wait_queue;schedule;__schedule");
	kstack(w, 3, "do_nanosleep",
	       "entry_SYSCALL_64;hrtimer_nanosleep;do_nanosleep;schedule;__schedule");
	cswitch_in(w, 0, T0 + 50, 0, 120, 0, 302, 120, 0);
	cswitch_in(w, 1, T0 + 100, 0, 120, 0, 300, 120, 0);
	cswitch_in(w, 1, T0 + 200, 300, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120, 1);
	cswitch_in(w, 1, T0 + 300, 0, 120, 0, 301, 120, 0);
	cswitch_in(w, 1, T0 + 400, 301, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120, 2);
	cswitch_in(w, 0, T0 + 1000, 302, 120, KTRACE_LINUX_RUNNING, 303, 49, 0);
	cswitch_in(w, 0, T0 + 9000, 303, 49, KTRACE_LINUX_INTERRUPTIBLE, 302, 120, 0);
	wakeup(w, 0, T0 + 10000, 301, 120, 302);
	cswitch_in(w, 1, T0 + 10500, 0, 120, 0, 301, 120, 0);
	wakeup(w, 1, T0 + 11000, 300, 120, 301);
	cswitch_in(w, 1, T0 + 11200, 301, 120, KTRACE_LINUX_INTERRUPTIBLE, 300, 120, 2);
	cswitch_in(w, 2, T0 + 11500, 0, 120, 0, 304, 120, 0);
	cswitch_in(w, 1, T0 + 12000, 300, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120, 1);
	cswitch_in(w, 2, T0 + 12500, 304, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120, 3);
	wakeup_ctx(w, 2, T0 + 20000, 304, 120, 0, KTRACE_CTX_HARDIRQ);
	cswitch_in(w, 2, T0 + 20100, 0, 120, 0, 304, 120, 0);
	wakeup(w, 2, T0 + 20300, 300, 120, 304);
	cswitch_in(w, 2, T0 + 20400, 304, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120, 1);
	cswitch_in(w, 1, T0 + 20500, 0, 120, 0, 300, 120, 0);
}

static void untraced(struct fxt_writer *w, uint32_t cpu, uint64_t tid, uint64_t out,
		     uint64_t first, uint64_t last)
{
	struct fxt_arg args[TL_UNTRACED_NARGS];

	timeline_untraced_args(args, cpu, tid, out, first, last);
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, last, 0, 0, "ktrace:meta", "untraced_switch",
			args, TL_UNTRACED_NARGS, 0);
}

/*
 * Breaks in the timelines, each explained (times from T0, in ns): on CPU 0
 * a loss record before the switch at 1000 that takes off 303, not 301; on
 * CPU 1 an untraced_switch record (302 switched in at 200, 304 switched out
 * at 1100) and a cpu_offline record before the switch at 1400; at 1500 on
 * CPU 0 a break that only a loss on an unknown CPU, written at the end,
 * covers.  301 is woken at 600 before its switch-out at 700, as a wakeup
 * racing a thread on its way off the CPU is; its wait 450-500 is on CPU 0,
 * while 305's (300-1100) ends on CPU 1 across the untraced stretch.
 */
static void timeline_ok(struct fxt_writer *w)
{
	__u64 buf[KTRACE_FXT_DROP_WORDS];
	struct fxt_arg args[3];

	fxt_write_preamble(w, 1, "ktrace");
	kobj_thread(w, 301, 301, "stayer");
	kobj_thread(w, 302, 302, "stranded");
	cswitch(w, 0, T0 + 100, 0, 120, 0, 301, 120);
	cswitch(w, 1, T0 + 200, 0, 120, 0, 302, 120);
	wakeup(w, 0, T0 + 300, 305, 120, 301);
	cswitch(w, 0, T0 + 400, 301, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	wakeup(w, 1, T0 + 450, 301, 120, 302);
	cswitch(w, 0, T0 + 500, 0, 120, 0, 301, 120);
	wakeup(w, 1, T0 + 600, 301, 120, 302);
	cswitch(w, 0, T0 + 700, 301, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	cswitch(w, 0, T0 + 800, 0, 120, 0, 301, 120);
	fxt_write_words(w, buf, ktrace_fxt_put_drop(buf, T0 + 900, 0, 3, T0 + 850, T0 + 880));
	cswitch(w, 0, T0 + 1000, 303, 120, KTRACE_LINUX_RUNNING, 0, 120);
	untraced(w, 1, 302, 304, T0 + 200, T0 + 1100);
	cswitch(w, 1, T0 + 1100, 304, 120, KTRACE_LINUX_RUNNING, 305, 120);
	cswitch(w, 0, T0 + 1200, 0, 120, 0, 302, 120);
	args[0] = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "cpu", 1);
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, T0 + 1300, 0, 0, "ktrace:meta", "cpu_offline",
			args, 1, 0);
	cswitch(w, 1, T0 + 1400, 306, 120, KTRACE_LINUX_RUNNING, 0, 120);
	cswitch(w, 0, T0 + 1500, 307, 120, KTRACE_LINUX_RUNNING, 0, 120);
	args[0] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "count", 1);
	args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "first_ts", T0 + 1450);
	args[2] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "last_ts", T0 + 1550);
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, T0 + 2000, 0, 0, "ktrace:meta", "dropped",
			args, 3, 0);
}

/*
 * One of each violation: at 300 CPU 0 takes off 403, but 401 was switched
 * in; 402 blocks at 400 and runs at 500 unwoken; at 600 it is switched in
 * on CPU 0 while it runs on CPU 1 until 700; an untraced_switch record on
 * CPU 0 at 800 where the chain holds at 900.
 */
static void timeline_bad(struct fxt_writer *w)
{
	fxt_write_preamble(w, 1, "ktrace");
	cswitch(w, 0, T0 + 100, 0, 120, 0, 401, 120);
	cswitch(w, 1, T0 + 200, 0, 120, 0, 402, 120);
	cswitch(w, 0, T0 + 300, 403, 120, KTRACE_LINUX_RUNNING, 0, 120);
	cswitch(w, 1, T0 + 400, 402, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	cswitch(w, 1, T0 + 500, 0, 120, 0, 402, 120);
	cswitch(w, 0, T0 + 600, 0, 120, 0, 402, 120);
	cswitch(w, 1, T0 + 700, 402, 120, KTRACE_LINUX_RUNNING, 0, 120);
	untraced(w, 0, 999, 998, T0 + 600, T0 + 800);
	cswitch(w, 0, T0 + 900, 402, 120, KTRACE_LINUX_RUNNING, 0, 120);
}

/*
 * Wakeups the kernel did not trace (times from T0, in ns): 701 blocks (D)
 * on CPU 0 at 100 and runs again at 300 after the recorder's
 * untraced_wakeup record at that time (the encoder ktrace.ko and the BPF
 * programs write); 702 blocks on CPU 1 at 200 and runs at 400 with no
 * wakeup and no record, the one violation.
 */
static void untraced_wakeup(struct fxt_writer *w)
{
	__u64 buf[KTRACE_FXT_UNTRACED_WAKEUP_WORDS];

	fxt_write_preamble(w, 1, "ktrace");
	kobj_thread(w, 701, 700, "kworker/1:2");
	kobj_thread(w, 702, 700, "unwoken");
	cswitch(w, 0, T0 + 50, 0, 120, 0, 701, 120);
	cswitch(w, 1, T0 + 60, 0, 120, 0, 702, 120);
	cswitch(w, 0, T0 + 100, 701, 120, KTRACE_LINUX_UNINTERRUPTIBLE, 0, 120);
	cswitch(w, 1, T0 + 200, 702, 120, KTRACE_LINUX_INTERRUPTIBLE, 0, 120);
	fxt_write_words(w, buf, ktrace_fxt_put_untraced_wakeup(buf, T0 + 300, 700, 701));
	cswitch(w, 0, T0 + 300, 0, 120, 0, 701, 120);
	cswitch(w, 1, T0 + 400, 0, 120, 0, 702, 120);
}

/*
 * Ragged edges, as a recorder that attaches and detaches its programs one
 * by one writes them, in a span of 0 to 2000 (times from T0, ns).  On
 * CPU 0 the last switch (1000) puts 501 on, and wakeups made by 502 and
 * 503 follow (1200, 1500): its switches ended early.  On CPU 1 wakeups by
 * 504 and 505 (100, 150) come before its first switch (300, to idle): they
 * began late.  A wakeup by the idle thread at 1800, long after CPU 1's last
 * switch to idle, is fine, as is one on CPU 2 by 602 (800) after a loss
 * there (600 to 650); a wakeup at 2500 lies outside the span.
 */
static void ragged(struct fxt_writer *w)
{
	__u64 buf[KTRACE_FXT_DROP_WORDS];
	struct fxt_arg args[3] = {
		fxt_arg_str("backend", "bpf"),
		fxt_arg_int(KTRACE_FXT_ARG_UINT64, "start_ts", T0),
		fxt_arg_int(KTRACE_FXT_ARG_UINT64, "stop_ts", T0 + 2000),
	};

	fxt_write_preamble(w, 1, "ktrace");
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, T0, 0, 0, "ktrace:meta", "trace_info", args, 3, 0);
	cswitch(w, 0, T0 + 50, 0, 120, 0, 500, 120);
	wakeup(w, 1, T0 + 100, 510, 120, 504);
	cswitch(w, 2, T0 + 100, 0, 120, 0, 601, 120);
	wakeup(w, 1, T0 + 150, 511, 120, 505);
	cswitch(w, 1, T0 + 300, 0, 120, 0, 0, 120);
	wakeup(w, 0, T0 + 400, 501, 120, 500);
	fxt_write_words(w, buf, ktrace_fxt_put_drop(buf, T0 + 700, 2, 2, T0 + 600, T0 + 650));
	wakeup(w, 2, T0 + 800, 512, 120, 602);
	cswitch(w, 0, T0 + 1000, 500, 120, KTRACE_LINUX_RUNNING, 501, 120);
	wakeup(w, 0, T0 + 1200, 513, 120, 502);
	wakeup(w, 0, T0 + 1500, 514, 120, 503);
	wakeup(w, 1, T0 + 1800, 515, 120, 0);
	wakeup(w, 1, T0 + 2500, 516, 120, 0);
}

/* A steady mix: 60% switches, 30% wakeups, 10% probe events, 4 CPUs. */
/*
 * N records of scheduler traffic: 256 threads on 4 CPUs, switches, wakeups
 * and probes; a thread switched in on another CPU than it last ran on is
 * moved there first, as the kernel's migrate record says.
 */
static void synthetic(struct fxt_writer *w, uint64_t n)
{
	uint8_t last_cpu[256];
	uint32_t running[4] = { 0 };
	uint64_t ts = T0, i;
	uint32_t seed = 1;
	char name[16];

	memset(last_cpu, 0, sizeof(last_cpu));
	fxt_write_preamble(w, 1, "ktrace");
	for (uint32_t t = 1000; t < 1256; t++) {
		snprintf(name, sizeof(name), "task-%u", t);
		kobj_thread(w, t, 1000 + (t - 1000) / 8 * 8, name);
	}
	for (i = 0; i < n; i++) {
		uint32_t cpu, tid, r;

		seed = seed * 1103515245 + 12345;
		r = seed >> 8;
		cpu = r & 3;
		tid = 1000 + (r >> 2) % 256;
		ts += 100 + (r & 255);
		if (i % 10 < 6) {
			if (last_cpu[tid - 1000] != cpu) {
				migrate(w, ts, tid, last_cpu[tid - 1000], cpu);
				last_cpu[tid - 1000] = cpu;
			}
			cswitch(w, cpu, ts, running[cpu], 120, (r >> 12) % 3, tid, 120);
			running[cpu] = tid;
		} else if (i % 10 < 9) {
			wakeup(w, cpu, ts, tid, 120, running[cpu]);
		} else {
			fxt_write_event(w, KTRACE_FXT_EV_DURATION_COMPLETE, ts, tid, tid, "probe",
					"syscall", NULL, 0, ts + 50);
		}
	}
}

int main(int argc, char **argv)
{
	struct fxt_writer *w = malloc(sizeof(*w));
	const char *path;
	int fd, ret;

	if (argc < 3 || ((!strcmp(argv[1], "synthetic") || !strcmp(argv[1], "wide")) && argc < 4)) {
		fprintf(stderr,
			"usage: gen_trace scenario|sync-stall|unordered|latency|causes|masks|rt-causes|throttle|throttle-task|timer|perf-gap|chain|timeline-ok|timeline-bad|untraced-wakeup|irq-entries|ragged|stopped FILE | gen_trace synthetic|wide N FILE\n");
		return 2;
	}
	path = argv[argc - 1];
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || !w || fxt_writer_init(w, fd)) {
		perror(path);
		return 1;
	}
	if (!strcmp(argv[1], "scenario"))
		scenario(w);
	else if (!strcmp(argv[1], "sync-stall"))
		sync_stall(w);
	else if (!strcmp(argv[1], "unordered"))
		unordered(w);
	else if (!strcmp(argv[1], "latency"))
		latency(w);
	else if (!strcmp(argv[1], "causes"))
		causes(w);
	else if (!strcmp(argv[1], "masks"))
		masks(w);
	else if (!strcmp(argv[1], "throttle") || !strcmp(argv[1], "throttle-task"))
		throttle(w, !strcmp(argv[1], "throttle-task"));
	else if (!strcmp(argv[1], "rt-causes"))
		rt_causes(w);
	else if (!strcmp(argv[1], "timer"))
		timer(w);
	else if (!strcmp(argv[1], "perf-gap"))
		perf_gap(w);
	else if (!strcmp(argv[1], "stopped"))
		stopped(w);
	else if (!strcmp(argv[1], "chain"))
		chain(w);
	else if (!strcmp(argv[1], "timeline-ok"))
		timeline_ok(w);
	else if (!strcmp(argv[1], "timeline-bad"))
		timeline_bad(w);
	else if (!strcmp(argv[1], "untraced-wakeup"))
		untraced_wakeup(w);
	else if (!strcmp(argv[1], "irq-entries"))
		irq_entries(w);
	else if (!strcmp(argv[1], "ragged"))
		ragged(w);
	else if (!strcmp(argv[1], "wide"))
		wide(w, strtoull(argv[2], NULL, 0));
	else
		synthetic(w, strtoull(argv[2], NULL, 0));
	ret = fxt_writer_finish(w);
	if (ret || close(fd)) {
		perror(path);
		return 1;
	}
	free(w);
	return 0;
}
