// SPDX-License-Identifier: GPL-2.0
/* Sessions: configuration, start and stop, statistics. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>

#include "internal.h"
#include "ktrace_api.h"

/*
 * The recording session, for the probes.  Written only by START and STOP
 * under the session's lock; /dev/ktrace admits one open file at a time
 * (dev.c), so no two sessions ever race for it.
 */
struct ktrace_session __rcu *ktrace_active;

struct ktrace_session *ktrace_session_new(void)
{
	struct ktrace_session *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	mutex_init(&s->lock);
	INIT_LIST_HEAD(&s->probes);
	init_waitqueue_head(&s->wq);
	return s;
}

void ktrace_session_free(struct ktrace_session *s)
{
	mutex_lock(&s->lock);
	if (s->running)
		ktrace_session_stop_locked(s);
	ktrace_dynprobes_remove_locked(s);
	mutex_unlock(&s->lock);
	ktrace_bufs_free(s);
	ktrace_stacks_free(s);
	vfree(s->wake_slots);
	vfree(s->block_slots);
	vfree(s->affinity_slots);
	mutex_destroy(&s->lock);
	kfree(s);
}

/* The trigger's fields are all 0 without KTRACE_CFG_TRIGGER, and sensible with it. */
static int check_trigger(const struct ktrace_config *cfg)
{
	const u32 trigger_flags = KTRACE_CFG_TRIGGER_RT | KTRACE_CFG_TRIGGER_CGROUP_V1 |
				  KTRACE_CFG_TRIGGER_PREEMPTED;

	if (!(cfg->flags & KTRACE_CFG_TRIGGER))
		return cfg->flags & trigger_flags || cfg->trigger_pid || cfg->trigger_ns ||
		       cfg->after_ns || cfg->trigger_cgroup ||
		       memchr_inv(cfg->trigger_comm, 0, sizeof(cfg->trigger_comm)) ? -EINVAL : 0;
	if (cfg->flags & KTRACE_CFG_TRIGGER_CGROUP_V1 && !cfg->trigger_cgroup)
		return -EINVAL;
	/* A cgroup filter the probes could never match is refused, not silently idle. */
	if (cfg->trigger_cgroup && (!IS_ENABLED(CONFIG_CGROUPS) ||
				    (cfg->flags & KTRACE_CFG_TRIGGER_CGROUP_V1 &&
				     !IS_ENABLED(CONFIG_CGROUP_SCHED))))
		return -EOPNOTSUPP;
	if (!(cfg->flags & KTRACE_CFG_RING) || !cfg->trigger_ns ||
	    cfg->trigger_pid > PID_MAX_LIMIT || cfg->after_ns > 3600ULL * NSEC_PER_SEC ||
	    !memchr(cfg->trigger_comm, 0, sizeof(cfg->trigger_comm)))
		return -EINVAL;
	return 0;
}

int ktrace_session_configure_locked(struct ktrace_session *s, const struct ktrace_config *cfg)
{
	u64 size = cfg->buffer_size ? cfg->buffer_size : ktrace_buffer_size;
	u32 subbuf = cfg->subbuf_size ? cfg->subbuf_size : KTRACE_DEFAULT_SUBBUF_SIZE;
	int ret;

	lockdep_assert_held(&s->lock);
	if (cfg->flags & ~KTRACE_CFG_FLAGS || check_trigger(cfg))
		return -EINVAL;
	ret = ktrace_throttle_check(cfg);
	if (ret)
		return ret;
	if (!ktrace_buffer_size_valid(size) || !is_power_of_2(subbuf) ||
	    subbuf < KTRACE_MIN_SUBBUF_SIZE || subbuf < PAGE_SIZE || size < 2ULL * subbuf ||
	    size / subbuf > KTRACE_MAX_SUBBUFS)
		return -EINVAL;

	if (s->configured)
		return -EBUSY;	/* buffers may be mapped: never replaced */
	/*
	 * As ftrace's ring buffer does: buffers for every possible CPU that
	 * memory cannot hold now are refused, before vmalloc() tries, fails
	 * loudly, or wakes the OOM killer.
	 */
	if ((PAGE_ALIGN(sizeof(struct ktrace_meta)) + size) * num_possible_cpus() >
	    (u64)si_mem_available() << PAGE_SHIFT)
		return -ENOMEM;
	s->flags = cfg->flags;
	s->throttle = cfg->throttle;	/* all 0 without KTRACE_CFG_THROTTLE */
	s->buffer_size = size;
	s->subbuf_size = subbuf;
	s->nr_subbufs = size / subbuf;
	s->meta_size = PAGE_ALIGN(sizeof(struct ktrace_meta));
	s->cpu_stride = s->meta_size + size;
	s->affinity_slots = vzalloc(KTRACE_AFFINITY_SLOTS * sizeof(*s->affinity_slots));
	if (!s->affinity_slots)
		return -ENOMEM;
	s->block_slots = vzalloc(KTRACE_BLOCK_SLOTS * sizeof(*s->block_slots));
	if (!s->block_slots) {
		ret = -ENOMEM;
		goto err_free_affinity_slots;
	}
	if (cfg->flags & KTRACE_CFG_TRIGGER) {
		s->wake_slots = vzalloc(KTRACE_WAKE_SLOTS * sizeof(*s->wake_slots));
		if (!s->wake_slots) {
			ret = -ENOMEM;
			goto err_free_block_slots;
		}
		s->trigger_ns = cfg->trigger_ns;
		s->after_ns = cfg->after_ns;
		s->trigger_pid = cfg->trigger_pid;
		memcpy(s->trigger_comm, cfg->trigger_comm, sizeof(s->trigger_comm));
		s->trigger_rt = cfg->flags & KTRACE_CFG_TRIGGER_RT;
		s->trigger_cgroup = cfg->trigger_cgroup;
		s->trigger_cgroup_v1 = cfg->flags & KTRACE_CFG_TRIGGER_CGROUP_V1;
		s->trigger_preempted = cfg->flags & KTRACE_CFG_TRIGGER_PREEMPTED;
	}
	ret = ktrace_stacks_alloc_locked(s, cfg);
	if (!ret)
		ret = ktrace_bufs_alloc_locked(s);
	if (!ret) {
		s->configured = true;
		return 0;
	}
	ktrace_stacks_free(s);
	vfree(s->wake_slots);
	s->wake_slots = NULL;
err_free_block_slots:
	vfree(s->block_slots);
	s->block_slots = NULL;
err_free_affinity_slots:
	vfree(s->affinity_slots);
	s->affinity_slots = NULL;
	return ret;
}

/*
 * What the probes remember the trace said (each thread's allowed CPUs)
 * forgotten, and the API's strings to be written again: a new span says
 * it all again.  No probe writes a record meanwhile (START: not published
 * yet; REARM: past the trigger's stop), so no allowed-CPU slot is set.
 */
static void forget_said(struct ktrace_session *s)
{
	WRITE_ONCE(ktrace_session_gen, ktrace_session_gen + 1);
	memset(s->affinity_slots, 0, KTRACE_AFFINITY_SLOTS * sizeof(*s->affinity_slots));
}

int ktrace_session_start_locked(struct ktrace_session *s)
{
	int ret;

	lockdep_assert_held(&s->lock);
	if (!s->configured)
		return -EINVAL;
	if (s->running || rcu_access_pointer(ktrace_active))
		return -EBUSY;
	forget_said(s);
	/*
	 * Blocks seen by an earlier span: their wakeups came while nothing
	 * was registered.  (REARM keeps them: the probes ran all along.)
	 */
	memset(s->block_slots, 0, KTRACE_BLOCK_SLOTS * sizeof(*s->block_slots));
	ktrace_stacks_reset_locked(s);
	if (s->wake_slots) {
		memset(s->wake_slots, 0, KTRACE_WAKE_SLOTS * sizeof(*s->wake_slots));
		atomic_set(&s->fired, 0);
		s->stop_at = 0;
		s->trigger_ts = 0;
	}
	/*
	 * Every probe first, the session after: registering one takes long
	 * (each patches the kernel's text), and a session published first
	 * recorded switches for a while before wakeups, so that threads
	 * blocked and ran again with no wakeup in the trace (0.13 s of it
	 * under TCG).  Until the pointer is set the probes return at once;
	 * from then on, every kind of record is written.
	 */
	ret = ktrace_probes_register(s);
	if (ret)
		return ret;
	ret = ktrace_irq_probes_register(s);
	if (ret) {
		ktrace_probes_unregister();
		return ret;
	}
	/*
	 * Probes take their time after they find the session, which the
	 * release below publishes with the span: they never see a start
	 * later than their own time.
	 */
	s->stop_ts = U64_MAX;
	s->start_ts = ktrace_now();
	rcu_assign_pointer(ktrace_active, s);
	s->running = true;
	static_branch_enable(&ktrace_recording);
	ktrace_statedump(s);
	return 0;
}

/* Stops the probes and waits until none runs; the caller wakes pollers. */
int ktrace_session_stop_locked(struct ktrace_session *s)
{
	lockdep_assert_held(&s->lock);
	if (!s->running)
		return -EINVAL;
	/*
	 * Every kind of record stops at once, as it started: at @stop_ts,
	 * which a probe that found the session before it was unpublished
	 * reads before it writes.  After the grace period no probe runs,
	 * and none will see the session again.
	 */
	WRITE_ONCE(s->stop_ts, ktrace_now());
	smp_wmb();	/* the span's end before the session goes */
	RCU_INIT_POINTER(ktrace_active, NULL);
	static_branch_disable(&ktrace_recording);
	ktrace_dynprobes_remove_locked(s);
	ktrace_irq_probes_unregister();
	ktrace_probes_unregister();
	synchronize_rcu();
	s->running = false;
	ktrace_bufs_flush(s);
	return 0;
}

/* Whether the latency trigger fired and its window is over: every writer drops records. */
static bool window_over(struct ktrace_session *s)
{
	/* Pairs with the trigger's release of the stop (trigger_check()). */
	u64 stop = s->wake_slots ? smp_load_acquire(&s->stop_at) : 0;

	return s->running && stop && ktrace_now() > stop;
}

/*
 * FLUSH: every CPU's current sub-buffer closed.  Once a trigger's window
 * is over, a writer that took its time before the stop may still be
 * writing (ktrace_buf_reserve()): after a grace period none is, and every
 * later one drops its record.
 */
void ktrace_session_flush_locked(struct ktrace_session *s)
{
	lockdep_assert_held(&s->lock);
	if (window_over(s))
		synchronize_rcu();
	ktrace_bufs_flush(s);
}

/*
 * REARM (uapi ktrace.h), after FLUSH and the reader: no writer writes
 * until the stop is cleared, so the heads stand still, and the slots that
 * follow what the trace said start afresh, as at START, for the next
 * window to say it again.  The stop is cleared before the span's new
 * start is read: a record timed after that start finds it cleared.  The
 * trigger, still fired until the end, writes no new stop before.
 */
int ktrace_session_rearm_locked(struct ktrace_session *s)
{
	unsigned int cpu;

	lockdep_assert_held(&s->lock);
	if (!s->running || !s->wake_slots)
		return -EINVAL;
	if (!window_over(s))
		return -EAGAIN;
	for_each_possible_cpu(cpu) {
		struct ktrace_meta *m = s->bufs[cpu]->meta;

		/* Pairs with the acquire in reserve(), as CONSUME's release does. */
		smp_store_release(&m->consumed, READ_ONCE(m->head) & ~((u64)s->subbuf_size - 1));
	}
	forget_said(s);
	WRITE_ONCE(s->stop_at, 0);
	smp_mb();	/* the stop cleared before the new start is taken */
	WRITE_ONCE(s->start_ts, ktrace_now());
	s->trigger_ts = 0;
	s->trigger_latency = 0;
	s->trigger_tid = 0;
	s->trigger_cpu = 0;
	/* The trigger's fields cleared before a new firing may write them. */
	atomic_set_release(&s->fired, 0);
	return 0;
}

void ktrace_session_stats_locked(struct ktrace_session *s, struct ktrace_stats *st)
{
	unsigned int cpu;

	lockdep_assert_held(&s->lock);
	st->nr_cpus = nr_cpu_ids;
	if (s->bufs) {
		for_each_possible_cpu(cpu) {
			struct ktrace_meta *m = s->bufs[cpu]->meta;

			st->records += READ_ONCE(m->records);
			st->lost += READ_ONCE(m->lost);
			st->overwritten += READ_ONCE(m->overwritten);
			st->bytes += READ_ONCE(m->head);
		}
	}
	st->start_ts = s->start_ts;
	st->stop_ts = s->running ? 0 : s->stop_ts;
	/* @stop_at is written last: the rest is complete once it is seen. */
	st->stop_at = smp_load_acquire(&s->stop_at);
	if (st->stop_at) {
		st->trigger_ts = s->trigger_ts;
		st->trigger_latency = s->trigger_latency;
		st->trigger_tid = s->trigger_tid;
		st->trigger_cpu = s->trigger_cpu;
	}
}
