// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduler tracepoint probes: context switches, wakeups, migrations, timer
 * wakeups and task names, written as FXT records through the shared encoders.
 *
 * Wakeups come from sched_waking, which runs in the waker's context (so
 * current is the waker); sched_wakeup can run later on the target CPU from
 * an IPI, where current is whoever was running there, and has no probe: a
 * wakeup that completes after its thread ran again is written again at the
 * thread's block (ktrace_block_on_block()).  Exit and free need no probe: a
 * dying task's last switch carries its Z or X state, and names the task
 * once more (below).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/cgroup.h>
#include <linux/hrtimer.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include "compat/hrtimer.h"
#include "compat/preempt.h"
#include "compat/sched.h"
#include "internal.h"

struct ktrace_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool throttle;		/* only while recording throttling */
	bool registered;
};

static inline struct ktrace_cpu_buf *this_buf(void)
{
	struct ktrace_session *s = rcu_dereference_sched(ktrace_active);

	return s ? s->bufs[smp_processor_id()] : NULL;
}

/*
 * Whether @p is in the cgroup of kernfs id @id or below it, at most
 * KTRACE_TRIGGER_CGROUP_DEPTH levels: in cgroup v2, or (@v1) in the
 * hierarchy of v1's cpu controller.  CONFIGURE refuses a filter this
 * kernel's configuration cannot match.
 */
static bool task_in_cgroup(struct task_struct *p, u64 id, bool v1)
{
	bool found = false;
#ifdef CONFIG_CGROUPS
	struct cgroup *cgrp = NULL;
	int level;

	rcu_read_lock();
#ifdef CONFIG_CGROUP_SCHED
	if (v1)
		cgrp = task_css(p, cpu_cgrp_id)->cgroup;
#endif
	if (!v1)
		cgrp = task_dfl_cgroup(p);
	for (level = 0; cgrp && level <= KTRACE_TRIGGER_CGROUP_DEPTH && !found; level++) {
		found = cgroup_id(cgrp) == id;
		cgrp = cgroup_parent(cgrp);
	}
	rcu_read_unlock();
#endif
	return found;
}

/* Whether the latency trigger watches @p (its --pid, --rt, --comm and --cgroup). */
static bool trigger_watches(const struct ktrace_session *s, struct task_struct *p)
{
	if (s->trigger_pid && p->pid != s->trigger_pid && p->tgid != s->trigger_pid)
		return false;
	if (s->trigger_rt && !rt_prio(p->prio))
		return false;
	if (s->trigger_comm[0] && strncmp(p->comm, s->trigger_comm, TASK_COMM_LEN))
		return false;
	return !s->trigger_cgroup || task_in_cgroup(p, s->trigger_cgroup, s->trigger_cgroup_v1);
}

/*
 * @prev is preempted at @ts: a wakeup noted for it came as it was about to
 * sleep and set it running again (sched_waking fires only for a task that
 * is not running), so it starts no wait, as ktrace latency counts them: the
 * next switch-in ends a preemption, which with KTRACE_CFG_TRIGGER_PREEMPTED
 * is a wait of its own, from now.  (Switched out asleep instead, the wakeup
 * raced its switch-out, and its wait starts there.)
 */
static void trigger_preempted(struct ktrace_cpu_buf *b, struct task_struct *prev, u64 ts)
{
	struct ktrace_session *s = b->session;
	u64 *slot, v;

	if (!prev->pid)
		return;
	slot = &s->wake_slots[prev->pid & (KTRACE_WAKE_SLOTS - 1)];
	if (s->trigger_preempted && trigger_watches(s, prev)) {
		WRITE_ONCE(*slot, ktrace_wake_slot(prev->pid, ts));
		return;
	}
	v = READ_ONCE(*slot);
	if (v >> KTRACE_WAKE_TS_BITS == prev->pid)
		cmpxchg64(slot, v, 0);
}

/*
 * @next is switched in at @ts: if it waited since a wakeup for the
 * trigger's latency, the first such wait anywhere fires the trigger, is
 * marked in the trace, and sets when recording stops.
 */
static void trigger_check(struct ktrace_cpu_buf *b, struct task_struct *next, u64 ts)
{
	struct ktrace_session *s = b->session;
	u64 rec[KTRACE_FXT_TRIGGER_WORDS], *slot, v, lat;

	if (!next->pid)
		return;
	slot = &s->wake_slots[next->pid & (KTRACE_WAKE_SLOTS - 1)];
	v = READ_ONCE(*slot);
	if (v >> KTRACE_WAKE_TS_BITS != next->pid)
		return;
	/* One wait per wakeup or preemption: a later switch-in is not one. */
	if (cmpxchg64(slot, v, 0) != v)
		return;
	lat = ktrace_wake_latency(v, next->pid, ts);
	/* A wait that began before the span's start (REARM) was not recorded whole. */
	if (lat < s->trigger_ns || ts - lat < READ_ONCE(s->start_ts) || !trigger_watches(s, next) ||
	    atomic_cmpxchg(&s->fired, 0, 1))
		return;
	s->trigger_ts = ts;
	s->trigger_latency = lat;
	s->trigger_tid = next->pid;
	s->trigger_cpu = b->cpu;
	ktrace_buf_write(b, rec, ktrace_fxt_put_trigger(rec, ts, next->tgid, next->pid, lat,
							ts - lat, b->cpu), ts);
	/* Pairs with STATS' load: the trigger's fields are set before it. */
	smp_store_release(&s->stop_at, ts + s->after_ns);
}

/* @p's allowed CPUs 0..63 if it may not run on every CPU, else 0. */
static u64 restricted_cpus(const struct task_struct *p)
{
	if (likely(p->nr_cpus_allowed >= nr_cpu_ids))
		return 0;
	return cpumask_bits(p->cpus_ptr)[0];
}

/*
 * Whether the records give masks of more than one word ("cpus1" ...,
 * ktrace_fxt_put_cpus_extra()): the machine has more than 64 possible CPUs.
 */
static bool wide_masks(void)
{
	return unlikely(nr_cpu_ids > 64);
}

/* Words of an allowed-CPU mask (64 CPUs a word: this module is 64-bit only). */
static u32 mask_words(void)
{
	BUILD_BUG_ON(BITS_PER_LONG != 64);
	return BITS_TO_LONGS(nr_cpu_ids);
}

/* @p's allowed CPUs if it may not run on every CPU, else NULL; for wide_masks(). */
static const u64 *restricted_mask(const struct task_struct *p)
{
	if (p->nr_cpus_allowed >= nr_cpu_ids)
		return NULL;
	return (const u64 *)cpumask_bits(p->cpus_ptr);
}

/*
 * @p's affinity slot word (ktrace_affinity_slot()) for @cpus, its
 * restricted_cpus(), or on a machine of more than 64 CPUs for its mask
 * now.  Taken before the record that gives the mask is written: should
 * the mask change in between, the slot holds the older one, and the next
 * switch-out writes the newer one again (a record too many, never one too
 * few).
 */
static u64 affinity_slot_of(const struct task_struct *p, u64 cpus)
{
	const u64 *mask;

	if (!wide_masks())
		return ktrace_affinity_slot(p->pid, cpus != 0, cpus);
	mask = restricted_mask(p);
	return ktrace_affinity_slot(p->pid, !!mask, mask ? ktrace_affinity_fold(mask,
										 mask_words()) : 0);
}

/*
 * A record now in the trace gives @p's allowed CPUs (a wakeup, a thread
 * record), those of slot word @v: the slot follows it, so that a later
 * change is told against what the trace last said.
 */
static void affinity_said(struct ktrace_cpu_buf *b, const struct task_struct *p, u64 v)
{
	u64 *slot;

	if (!p->pid)
		return;
	slot = &b->session->affinity_slots[p->pid & (KTRACE_AFFINITY_SLOTS - 1)];
	if (READ_ONCE(*slot) != v)
		WRITE_ONCE(*slot, v);
}

/*
 * The "affinity" record of a machine of more than 64 CPUs, built on the
 * stack (the mask may change under a task that is not on a run queue, so
 * its size is known only once written); false if it was not written.
 */
static noinline_for_stack bool write_affinity_wide(struct ktrace_cpu_buf *b,
						   const struct task_struct *p, u64 ts)
{
	u64 rec[KTRACE_FXT_AFFINITY_WIDE_MAX_WORDS];

	return ktrace_buf_write(b, rec, ktrace_fxt_put_affinity_wide(rec, ts, p->tgid, p->pid,
								     restricted_mask(p),
								     mask_words()), ts);
}

/*
 * @p is switched out or moved: if its allowed CPUs are not those last
 * written for it, write them.  sched_setaffinity() on a running thread (a
 * thread pinning itself), a cpuset change and a hotplug move change them
 * with no wakeup to carry them; a switch-out or a move is before any wait
 * that they bear on.  Never called for one task on two CPUs at once: a
 * task is moved only off its CPU, and switched out only on it.
 */
static void note_affinity(struct ktrace_cpu_buf *b, struct task_struct *p, u64 ts)
{
	u64 cpus = wide_masks() ? 0 : restricted_cpus(p), v, *slot, *rec, pos;
	u32 bytes = KTRACE_FXT_AFFINITY_WORDS * 8;

	if (!p->pid)
		return;
	v = affinity_slot_of(p, cpus);
	slot = &b->session->affinity_slots[p->pid & (KTRACE_AFFINITY_SLOTS - 1)];
	if (likely(READ_ONCE(*slot) == v))
		return;
	/* Only once written: a record lost, or outside the span, is tried again. */
	if (wide_masks()) {
		if (write_affinity_wide(b, p, ts))
			WRITE_ONCE(*slot, v);
		return;
	}
	rec = ktrace_buf_reserve(b, bytes, ts, &pos);
	if (!rec)
		return;
	ktrace_fxt_put_affinity(rec, ts, p->tgid, p->pid, cpus);
	ktrace_buf_commit(b, pos, bytes);
	WRITE_ONCE(*slot, v);
}

static void write_wakeup_from(struct ktrace_cpu_buf *b, struct task_struct *p,
			      u32 waker_tid, u32 cpu, u32 ctx, u64 ts);

/* How a try_to_wake_up() of @p is under way, if it is (KTRACE_WAKING_*). */
static int wakeup_in_flight(struct task_struct *p)
{
	if (raw_spin_is_locked(&p->pi_lock))
		return KTRACE_WAKING_HELD;
	return ktrace_task_state(p) == TASK_WAKING ? KTRACE_WAKING_QUEUED : KTRACE_WAKING_NONE;
}

/*
 * @prev is switched out blocked: its block slot says so.  Returns how its
 * wakeup is under way (KTRACE_WAKING_*, its slot's word before in *@v) if
 * the wakeup is to be written again, after the switch record (it was woken
 * before it last ran: ktrace_block_on_block()), else KTRACE_WAKING_NONE.
 * Early in the switch: a sched_waking that stores between its load and
 * store gives an untraced_wakeup record too many.
 */
static int block_note(struct ktrace_session *s, struct task_struct *prev, u64 *v)
{
	u64 *slot = &s->block_slots[prev->pid & (KTRACE_BLOCK_SLOTS - 1)];
	int late, in_flight = KTRACE_WAKING_NONE;

	*v = READ_ONCE(*slot);
	if (ktrace_block_woken_runnable(ktrace_block_state(*v, prev->pid)))
		in_flight = wakeup_in_flight(prev);
	WRITE_ONCE(*slot, ktrace_block_on_block(*v, prev->pid, in_flight, &late));
	return late ? in_flight : KTRACE_WAKING_NONE;
}

/*
 * @next is switched in at @ts: if it blocked and no sched_waking of it
 * fired since, the trace says so, before the switch.  (Nothing else can
 * write its slot now but a sched_waking of a thread preempted in a
 * sleeping state.)
 */
static void block_check(struct ktrace_cpu_buf *b, struct task_struct *next, u64 ts)
{
	u64 *slot = &b->session->block_slots[next->pid & (KTRACE_BLOCK_SLOTS - 1)];
	u64 v = READ_ONCE(*slot), rec[KTRACE_FXT_UNTRACED_WAKEUP_WORDS], nv;
	int untraced;

	nv = ktrace_block_on_switch_in(v, next->pid, &untraced);
	if (nv == v)
		return;
	WRITE_ONCE(*slot, nv);
	if (unlikely(untraced))
		ktrace_buf_write(b, rec, ktrace_fxt_put_untraced_wakeup(rec, ts, next->tgid,
									next->pid), ts);
}

static void probe_sched_switch(void *data, KTRACE_SCHED_SWITCH_PROTO)
{
	struct ktrace_cpu_buf *b = this_buf();
	u32 state, in_kstack = 0, words;
	u64 pos, *rec, ts, woken = 0;
	int late = KTRACE_WAKING_NONE;

	if (!b)
		return;
	ts = ktrace_now();
	/* Still queued, it did not block, whatever state it had set: R. */
	state = ktrace_linux_state(preempt || ktrace_task_queued(prev),
				   ktrace_switch_prev_state(prev), READ_ONCE(prev->exit_state));
	if (prev->pid && ktrace_linux_state_sleeps(state))
		late = block_note(b->session, prev, &woken);
	if (b->session->stack_depth)
		in_kstack = ktrace_blocked_stack_id(b->session, prev, state, next, ts);
	note_affinity(b, prev, ts);
	if (next->pid)
		block_check(b, next, ts);
	words = KTRACE_FXT_CSWITCH_WORDS + !!in_kstack;
	rec = ktrace_buf_reserve(b, words * 8, ts, &pos);
	if (rec) {
		ktrace_fxt_put_cswitch_stacks(rec, smp_processor_id(), ts, prev->pid, prev->prio,
					      state, next->pid, next->prio, 0, in_kstack);
		ktrace_buf_commit(b, pos, words * 8);
	}
	/* After the switch, which the wakeup follows. */
	if (unlikely(late)) {
		u32 waker, wcpu, ctx;

		ktrace_block_late_waker(woken, late, next->pid, smp_processor_id(), &waker, &wcpu,
					&ctx);
		write_wakeup_from(b, prev, waker, wcpu, ctx, ts);
	}
	if (!rec)
		return;
	/* Fair class: a load or two more; an RT or idle task's switch costs a compare. */
	if (b->session->throttle.period_timer_fn && prev->prio >= MAX_RT_PRIO && prev->pid)
		ktrace_throttle_switch_out(b, prev, ts);
	/*
	 * A task's last switch names it again, right after: a ring keeps its
	 * newest records, where its fork, exec or rename may no longer be,
	 * and the task is gone before `ktrace record` could read /proc.  After
	 * the switch, so that a ring that keeps the switch keeps the name.
	 * Once per thread: exits cost nothing measurable beside switches.
	 */
	if (unlikely(ktrace_linux_state_exits(state)))
		ktrace_write_names(b, prev);
	if (unlikely(b->trigger)) {
		if (state == KTRACE_LINUX_RUNNING)
			trigger_preempted(b, prev, ts);
		trigger_check(b, next, ts);
	}
}

/*
 * The kind of interrupt the current code serves, if any.  On PREEMPT_RT
 * most of what is an interrupt elsewhere runs in a task: device handlers in
 * their irq/N-name threads (in_hardirq() is false there, and the waker
 * named is that thread, which is what ran the handler), softirqs in the task
 * that serves them (ksoftirqd, ktimers/N on 6.12-rt, or whoever re-enabled
 * bottom halves), where in_serving_softirq() is true because on RT it reads
 * that task's own softirq count.  Hard interrupts proper (the timer, IPIs,
 * IRQF_NO_THREAD handlers) and NMIs are reported as on other kernels.
 */
static u32 irq_context(void)
{
	if (in_nmi())
		return KTRACE_CTX_NMI;
	if (in_hardirq())
		return KTRACE_CTX_HARDIRQ;
	if (in_serving_softirq())
		return KTRACE_CTX_SOFTIRQ;
	return KTRACE_CTX_TASK;
}

/*
 * The wakeup of a thread that may not run on every CPU of a machine of
 * more than 64 (write_affinity_wide() says why on the stack).
 */
static noinline_for_stack bool write_wakeup_wide(struct ktrace_cpu_buf *b,
						 const struct task_struct *p, u32 waker_tid,
						 u32 cpu, u32 ctx, u64 ts)
{
	u64 rec[KTRACE_FXT_WAKEUP_WIDE_MAX_WORDS];
	const u64 *mask = restricted_mask(p);

	if (!mask)	/* freed meanwhile */
		return ktrace_buf_write(b, rec, ktrace_fxt_put_wakeup(rec, cpu, ts, p->pid,
								      p->prio, waker_tid,
								      ctx, 0), ts);
	return ktrace_buf_write(b, rec, ktrace_fxt_put_wakeup_wide(rec, cpu, ts,
								   p->pid, p->prio, waker_tid,
								   ctx, mask, mask_words()), ts);
}

/* Whether @p is on a CPU now (it may still be on its way off one). */
static bool task_on_a_cpu(const struct task_struct *p)
{
#ifdef CONFIG_SMP
	return READ_ONCE(p->on_cpu);
#else
	return p == current;
#endif
}

/* Whether @p waits on a run queue, not on a CPU. */
static bool task_queued_off_cpu(const struct task_struct *p)
{
	return !task_on_a_cpu(p) && ktrace_task_queued(p);
}

/*
 * The wakeup of @p at @ts, by @waker_tid on @cpu in interrupt context @ctx
 * (@cpu is this CPU but for a wakeup written again at a block).
 */
static void write_wakeup_from(struct ktrace_cpu_buf *b, struct task_struct *p,
			      u32 waker_tid, u32 cpu, u32 ctx, u64 ts)
{
	u64 pos, *rec, cpus, v;
	u32 bytes;

	cpus = wide_masks() ? 0 : restricted_cpus(p);
	v = affinity_slot_of(p, cpus);
	if (wide_masks() && p->nr_cpus_allowed < nr_cpu_ids) {
		if (!write_wakeup_wide(b, p, waker_tid, cpu, ctx, ts))
			return;
	} else {
		bytes = ktrace_fxt_wakeup_words(ctx, cpus) * 8;
		rec = ktrace_buf_reserve(b, bytes, ts, &pos);
		if (!rec)
			return;
		ktrace_fxt_put_wakeup(rec, cpu, ts, p->pid, p->prio, waker_tid, ctx, cpus);
		ktrace_buf_commit(b, pos, bytes);
	}
	affinity_said(b, p, v);
	/*
	 * A thread preempted in its sleeping state, still queued, began its
	 * wait at its preemption (trigger_preempted()): not here.
	 */
	if (unlikely(b->trigger) && p->pid && !task_queued_off_cpu(p) &&
	    trigger_watches(b->session, p))
		WRITE_ONCE(b->session->wake_slots[p->pid & (KTRACE_WAKE_SLOTS - 1)],
			   ktrace_wake_slot(p->pid, ts));
}

/* The wakeup of @p by the current context. */
static void write_wakeup(struct ktrace_cpu_buf *b, struct task_struct *p, u32 ctx)
{
	write_wakeup_from(b, p, current->pid, smp_processor_id(), ctx, ktrace_now());
}

/*
 * sched_waking: the block slot says whether @p was running or queued, and
 * who woke it, for a wakeup that completes only after it ran again
 * (ktrace_block_on_block()).
 */
static void probe_waking(void *data, struct task_struct *p)
{
	struct ktrace_cpu_buf *b = this_buf();
	u32 ctx = irq_context();
	bool on_cpu;
	u64 *slot;

	if (!b)
		return;
	write_wakeup(b, p, ctx);
	if (!p->pid)
		return;
	slot = &b->session->block_slots[p->pid & (KTRACE_BLOCK_SLOTS - 1)];
	on_cpu = task_on_a_cpu(p);
	WRITE_ONCE(*slot, ktrace_block_waking(READ_ONCE(*slot), p->pid, on_cpu,
					      !on_cpu && ktrace_task_queued(p), current->pid,
					      smp_processor_id(), ctx));
}

static void probe_wakeup_new(void *data, struct task_struct *p)
{
	struct ktrace_cpu_buf *b = this_buf();

	if (!b)
		return;
	write_wakeup(b, p, irq_context());
	/* A new thread never blocked: its pid's slot is not a former thread's. */
	WRITE_ONCE(b->session->block_slots[p->pid & (KTRACE_BLOCK_SLOTS - 1)], 0);
}

/*
 * set_task_cpu() is about to move @p to @dest_cpu's run queue (wakeup
 * placement, the balancer, affinity and hotplug moves); task_cpu(@p) is
 * still where it was queued.
 */
static void probe_migrate(void *data, struct task_struct *p, int dest_cpu)
{
	struct ktrace_cpu_buf *b = this_buf();
	u64 rec[KTRACE_FXT_MIGRATE_WORDS], ts;

	if (!b)
		return;
	ts = ktrace_now();
	note_affinity(b, p, ts);
	ktrace_buf_write(b, rec, ktrace_fxt_put_migrate(rec, ts, p->tgid, p->pid, task_cpu(p),
							dest_cpu), ts);
}

/* hrtimer_wakeup(), the function of every sleeper's timer; set at init. */
static void *sleeper_function;

/*
 * A sleeper's hrtimer (nanosleep, clock_nanosleep, and the poll, select
 * and epoll timeouts) is about to wake its task: the task, the time it
 * asked for and the time the timer fires.  Only those are recorded, and
 * a cgroup's CFS bandwidth timers when recording throttling (throttle.c),
 * so other timers cost a compare or two.  The expiry is in the timer's
 * clock base; the base's offset brings it to CLOCK_MONOTONIC, the
 * recorder's clock.  Runs in the hard interrupt, or on PREEMPT_RT for a
 * soft timer in the task serving timer softirqs; either way with
 * preemption off.
 */
static void probe_hrtimer_expire_entry(void *data, struct hrtimer *timer,
				       KTRACE_HRTIMER_EXPIRE_NOW)
{
	u64 pos, *rec, ts, offset, bytes = KTRACE_FXT_TIMER_EXPIRE_WORDS * 8;
	void *fn = ktrace_hrtimer_function(timer);
	struct ktrace_cpu_buf *b;
	struct task_struct *p;

	if (fn != sleeper_function) {
		b = this_buf();
		if (b && b->session->throttle.period_timer_fn)
			ktrace_throttle_timer_entry(b, timer, fn);
		return;
	}
	b = this_buf();
	p = READ_ONCE(container_of(timer, struct hrtimer_sleeper, timer)->task);
	if (!b || !p)
		return;
	ts = ktrace_now();
	offset = ktime_to_ns(timer->base->offset);
	rec = ktrace_buf_reserve(b, bytes, ts, &pos);
	if (!rec)
		return;
	ktrace_fxt_put_timer_expire(rec, ts, p->tgid, p->pid,
				    ktime_to_ns(hrtimer_get_softexpires(timer)) - offset,
				    ktime_to_ns(hrtimer_get_expires(timer)) - offset,
				    smp_processor_id());
	ktrace_buf_commit(b, pos, bytes);
}

/* Registered only when recording throttling: see throttle.c. */
static void probe_hrtimer_expire_exit(void *data, struct hrtimer *timer)
{
	struct ktrace_cpu_buf *b = this_buf();

	if (b)
		ktrace_throttle_timer_exit(b, timer);
}

/*
 * @p's cgroup v2 id (its cgroup directory's inode number; the root's is 1),
 * 0 without cgroups.  An exiting task keeps its css_set until it is freed,
 * so its last switch still has one.
 */
static u64 task_cgroup_id(struct task_struct *p)
{
#ifdef CONFIG_CGROUPS
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(p));
	rcu_read_unlock();
	return id;
#else
	return 0;
#endif
}

/* Thread (and, for a group leader, process) name records for @p. */
static void write_names(struct ktrace_cpu_buf *b, struct task_struct *p, const char *comm)
{
	u64 rec[KTRACE_FXT_KOBJ_THREAD_WIDE_MAX_WORDS], ts = ktrace_now(), cgroup_id, v;
	u64 cpus = wide_masks() ? 0 : restricted_cpus(p);
	const u64 *mask = wide_masks() ? restricted_mask(p) : NULL;
	char name[TASK_COMM_LEN];
	u32 len, words;

	/* Racy against a rename, like ftrace's comm copies: bounded and terminated. */
	memcpy(name, comm, sizeof(name));
	name[sizeof(name) - 1] = 0;
	len = strnlen(name, KTRACE_FXT_COMM_LEN);
	cgroup_id = task_cgroup_id(p);
	v = affinity_slot_of(p, cpus);
	if (mask)
		words = ktrace_fxt_put_kobj_thread_wide(rec, p->pid, p->tgid, name, len, mask,
							mask_words(), cgroup_id);
	else
		words = ktrace_fxt_put_kobj_thread(rec, p->pid, p->tgid, name, len, cpus,
						   cgroup_id);
	if (ktrace_buf_write(b, rec, words, ts))
		affinity_said(b, p, v);
	if (p->pid == p->tgid)
		ktrace_buf_write(b, rec, ktrace_fxt_put_kobj_process(rec, p->tgid, name, len,
								     cgroup_id), ts);
}

void ktrace_write_names(struct ktrace_cpu_buf *b, struct task_struct *p)
{
	write_names(b, p, p->comm);
}

static void probe_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct ktrace_cpu_buf *b = this_buf();

	if (b)
		write_names(b, child, child->comm);
}

static void probe_exec(void *data, struct task_struct *p, pid_t old_pid,
		       struct linux_binprm *bprm)
{
	struct ktrace_cpu_buf *b = this_buf();

	if (b)
		write_names(b, p, p->comm);
}

static void probe_rename(void *data, struct task_struct *task, const char *comm)
{
	struct ktrace_cpu_buf *b = this_buf();

	if (b)
		write_names(b, task, comm);
}

static struct ktrace_tp ktrace_tps[] = {
	{ .name = "sched_switch", .probe = probe_sched_switch },
	{ .name = "sched_waking", .probe = probe_waking },
	{ .name = "sched_wakeup_new", .probe = probe_wakeup_new },
	{ .name = "sched_migrate_task", .probe = probe_migrate },
	{ .name = "sched_process_fork", .probe = probe_fork },
	{ .name = "sched_process_exec", .probe = probe_exec },
	{ .name = "task_rename", .probe = probe_rename },
	{ .name = "hrtimer_expire_entry", .probe = probe_hrtimer_expire_entry },
	{ .name = "hrtimer_expire_exit", .probe = probe_hrtimer_expire_exit, .throttle = true },
};

static void find_tp(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ktrace_tps); i++)
		if (!strcmp(tp->name, ktrace_tps[i].name))
			ktrace_tps[i].tp = tp;
}

/* The scheduler's tracepoints are not exported to modules: find them by name. */
int ktrace_probes_init(void)
{
	size_t i;

	sleeper_function = ktrace_hrtimer_sleeper_function();
	for_each_kernel_tracepoint(find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(ktrace_tps); i++) {
		if (!ktrace_tps[i].tp) {
			pr_err("tracepoint %s not found in this kernel\n", ktrace_tps[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

/* The probes @s records with; those of throttling only if it records that. */
int ktrace_probes_register(const struct ktrace_session *s)
{
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(ktrace_tps); i++) {
		if (ktrace_tps[i].throttle && !s->throttle.period_timer_fn)
			continue;
		ret = tracepoint_probe_register(ktrace_tps[i].tp, ktrace_tps[i].probe, NULL);
		if (ret) {
			pr_err("cannot register on %s: %d\n", ktrace_tps[i].name, ret);
			goto err_unregister_probes;
		}
		ktrace_tps[i].registered = true;
	}
	return 0;

err_unregister_probes:
	ktrace_probes_unregister();
	return ret;
}

/* Unregisters every probe and waits until none is running. */
void ktrace_probes_unregister(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ktrace_tps); i++) {
		if (!ktrace_tps[i].registered)
			continue;
		tracepoint_probe_unregister(ktrace_tps[i].tp, ktrace_tps[i].probe, NULL);
		ktrace_tps[i].registered = false;
	}
	tracepoint_synchronize_unregister();
}
