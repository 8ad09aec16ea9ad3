// SPDX-License-Identifier: GPL-2.0
/*
 * KTRACE_IOC_BENCH: the cost of writing one context-switch record through
 * the module, beside ftrace writing its sched_switch event, timed in the
 * kernel in one run.  Under emulation a whole-system figure drowns the
 * tracer's cost in the host's noise; this one keeps only the record path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include "bench_trace.h"

/*
 * The header a record-less write stores (below), of a record encoded once
 * per run (one session at a time, its lock held).
 */
static u64 bench_rec[KTRACE_FXT_CSWITCH_WORDS];

/*
 * A switch record of @prev to @next, preempted, as probe_sched_switch()
 * writes one: clock, reservation, encoding, commit.  Without @encode, the
 * header alone is stored: the rest of the record is whatever the ring held
 * there (this session's earlier records, or zeros).
 */
static __always_inline void bench_write(void *data, struct task_struct *prev,
					struct task_struct *next, bool encode)
{
	struct ktrace_session *s = data;
	struct ktrace_cpu_buf *b = s->bufs[smp_processor_id()];
	const u32 bytes = KTRACE_FXT_CSWITCH_WORDS * 8;
	u64 pos, *rec, ts;

	ts = ktrace_now();
	rec = ktrace_buf_reserve(b, bytes, ts, &pos);
	if (!rec)
		return;
	if (encode)
		ktrace_fxt_put_cswitch(rec, smp_processor_id(), ts, prev->pid, prev->prio,
				       KTRACE_LINUX_RUNNING, next->pid, next->prio, 0);
	else
		WRITE_ONCE(rec[0], bench_rec[0]);
	ktrace_buf_commit(b, pos, bytes);
}

static void bench_probe(void *data, struct task_struct *prev, struct task_struct *next)
{
	bench_write(data, prev, next, true);
}

/* The floor under it, a stage at a time (enum ktrace_bench_stage). */
static void bench_probe_call(void *data, struct task_struct *prev, struct task_struct *next)
{
}

static u64 bench_sink;

static void bench_probe_clock(void *data, struct task_struct *prev, struct task_struct *next)
{
	WRITE_ONCE(bench_sink, ktrace_now());
}

/*
 * The scheduler's clock instead, for comparison: sched_clock() (which
 * ftrace's default "local" trace clock reads) made one across CPUs.
 */
static void bench_probe_local_clock(void *data, struct task_struct *prev, struct task_struct *next)
{
	WRITE_ONCE(bench_sink, local_clock());
}

static void bench_probe_reserve(void *data, struct task_struct *prev, struct task_struct *next)
{
	bench_write(data, prev, next, false);
}

typedef void (*bench_probe_fn)(void *data, struct task_struct *prev, struct task_struct *next);

static const bench_probe_fn bench_probes[KTRACE_BENCH_NR_STAGES] = {
	[KTRACE_BENCH_RECORD] = bench_probe,
	[KTRACE_BENCH_CALL] = bench_probe_call,
	[KTRACE_BENCH_CLOCK] = bench_probe_clock,
	[KTRACE_BENCH_RESERVE] = bench_probe_reserve,
	[KTRACE_BENCH_LOCAL_CLOCK] = bench_probe_local_clock,
};

/*
 * @count switches each way in batches short enough to reschedule between;
 * the time each recorder took in all, and in its fastest whole batch.
 */
static void bench_run(u32 count, bool ftrace, struct ktrace_bench *bench)
{
	unsigned int done, n, i;
	u64 t0, t1, t2;

	bench->ktrace_ns = 0;
	bench->ftrace_ns = 0;
	bench->ktrace_batch_ns = U64_MAX;
	bench->ftrace_batch_ns = U64_MAX;
	for (done = 0; done < count; done += n) {
		n = min_t(unsigned int, count - done, KTRACE_BENCH_BATCH);
		preempt_disable();
		t0 = ktime_get_mono_fast_ns();
		for (i = 0; i < n; i++)
			trace_ktrace_bench_record(current, current);
		t1 = ktime_get_mono_fast_ns();
		for (i = 0; ftrace && i < n; i++)
			trace_ktrace_bench_switch(current, current);
		t2 = ktime_get_mono_fast_ns();
		preempt_enable();
		bench->ktrace_ns += t1 - t0;
		bench->ftrace_ns += t2 - t1;
		if (n == KTRACE_BENCH_BATCH) {
			bench->ktrace_batch_ns = min(bench->ktrace_batch_ns, t1 - t0);
			bench->ftrace_batch_ns = min(bench->ftrace_batch_ns, t2 - t1);
		}
		cond_resched();
	}
	if (bench->ktrace_batch_ns == U64_MAX)
		bench->ktrace_batch_ns = 0;	/* fewer records than a batch */
	if (!ftrace || bench->ftrace_batch_ns == U64_MAX)
		bench->ftrace_batch_ns = 0;
	if (!ftrace)
		bench->ftrace_ns = 0;
}

int ktrace_bench_locked(struct ktrace_session *s, struct ktrace_bench *bench)
{
	bool ftrace = trace_ktrace_bench_switch_enabled();
	bench_probe_fn probe;
	int ret;

	lockdep_assert_held(&s->lock);
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!bench->count || bench->count > KTRACE_BENCH_MAX_COUNT ||
	    bench->stage >= KTRACE_BENCH_NR_STAGES || bench->reserved32 || bench->reserved)
		return -EINVAL;
	/* Stream mode drops once a buffer is full: a cheaper path than writing. */
	if (!s->running || !(s->flags & KTRACE_CFG_RING))
		return -EINVAL;
	/* Enabled in ftrace too, the module's figure would include ftrace's. */
	if (trace_ktrace_bench_record_enabled())
		return -EBUSY;
	probe = bench_probes[bench->stage];
	ktrace_fxt_put_cswitch(bench_rec, raw_smp_processor_id(), ktrace_now(), current->pid,
			       current->prio, KTRACE_LINUX_RUNNING, current->pid, current->prio, 0);
	ret = register_trace_ktrace_bench_record(probe, s);
	if (ret)
		return ret;
	bench_run(bench->count, ftrace && bench->stage == KTRACE_BENCH_RECORD, bench);
	unregister_trace_ktrace_bench_record(probe, s);
	/* No probe may still run on @s once this returns. */
	tracepoint_synchronize_unregister();
	bench->ktrace_bytes = KTRACE_FXT_CSWITCH_WORDS * 8;
	bench->ftrace_bytes = sizeof(struct trace_event_raw_ktrace_bench_class);
	return 0;
}
