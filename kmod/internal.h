/* SPDX-License-Identifier: GPL-2.0 */
/* ktrace.ko internals: sessions, per-CPU buffers, probes. */
#ifndef _KTRACE_INTERNAL_H
#define _KTRACE_INTERNAL_H

#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <asm/local64.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <linux/ktrace.h>
#include <linux/ktrace_fxt.h>

struct hrtimer;
struct ktrace_session;
struct task_struct;

/*
 * One CPU's buffer: a meta page (struct ktrace_meta, shared read-only with
 * the reader) followed by the data, in one vmalloc_user() area.
 *
 * Life cycle: allocated by KTRACE_IOC_CONFIGURE, freed with the session.
 * Writers are the probes on the owning CPU, with preemption off; they may
 * nest (interrupts, NMIs) and synchronise only through local64 operations
 * on meta->head and the sub-buffer commit counts.  @pending_lost and the
 * loss counts and time range in the meta page are written by the same
 * writers.  meta->consumed is written by
 * KTRACE_IOC_CONSUME under the session mutex.
 */
struct ktrace_cpu_buf {
	struct ktrace_session *session;
	struct ktrace_meta *meta;
	void *area;			/* meta page(s), then the data */
	void *data;
	u64 size;			/* data bytes, power of two */
	u32 subbuf_size;
	u32 nr_subbufs;
	u8 size_shift;			/* log2 of size, of subbuf_size: */
	u8 subbuf_shift;		/* no division in the record path */
	unsigned int cpu;
	bool ring;
	bool trigger;			/* the session has a latency trigger */
	local64_t pending_lost;		/* lost, not yet reported in the buffer */
	struct irq_work wakeup;		/* wakes readers outside the probe */
};

/*
 * A session: one open /dev/ktrace.
 *
 * States, moved only by ioctls under @lock:
 *
 *   open() --> new --CONFIGURE--> configured --START--> running
 *                                  |  ^  ADD_PROBE*        |
 *                                  |  +------STOP----------+
 *                                  +--> release() (after the last munmap)
 *
 * mmap, GEOMETRY, CONSUME, FLUSH and STATS need "configured"; ADD_PROBE
 * needs "configured" and not running; a stopped session may START again.
 * release() stops a running session.  open() admits one session at a time,
 * so there is one lock and no lock order.
 *
 * Life cycle: created by open(), freed by release() (which an mmap keeps
 * from happening while a mapping exists).  @lock guards @configured,
 * @running, @bufs (the pointers), the probe list and the geometry.  Probes
 * reach the session through ktrace_active (RCU-sched) only while @running.
 */
struct ktrace_session {
	struct mutex lock;		/* guards the fields below but @wq */
	bool configured;
	bool running;
	u32 flags;
	u64 buffer_size;
	u32 subbuf_size;
	u32 nr_subbufs;
	u64 meta_size;
	u64 cpu_stride;
	struct ktrace_cpu_buf **bufs;	/* indexed by CPU, possible CPUs only */
	struct list_head probes;	/* kprobes and kretprobes (-p) */
	unsigned int nr_probes;
	wait_queue_head_t wq;
	/*
	 * Each thread's allowed CPUs last written (ktrace_affinity_slot()):
	 * allocated by CONFIGURE, cleared by START, written lock-free by the
	 * switch and migrate probes, freed with the session.
	 */
	u64 *affinity_slots;		/* KTRACE_AFFINITY_SLOTS words */
	/*
	 * Where each thread stands between a block and its wakeup
	 * (ktrace_block_slot()), for the wakeups the kernel does not trace
	 * and those that complete after their thread ran again: allocated by
	 * CONFIGURE, cleared by START, written lock-free by the switch,
	 * sched_waking and sched_wakeup_new probes.
	 */
	u64 *block_slots;		/* KTRACE_BLOCK_SLOTS words */
	/*
	 * The span: every writer drops a record timed before @start_ts or
	 * after @stop_ts.  START sets @start_ts once every probe is
	 * registered and @stop_ts to U64_MAX, before the session is
	 * published; STOP sets @stop_ts before it unpublishes the session,
	 * so a probe already past ktrace_active writes nothing later (one
	 * that reads it a moment stale is left to the reader, which keeps
	 * nothing after it).  REARM starts it again, past a trigger's
	 * window, with the probes registered.
	 */
	u64 start_ts;
	u64 stop_ts;

	/*
	 * Latency trigger (KTRACE_CFG_TRIGGER), set by CONFIGURE.  While
	 * running, @wake_slots is written by the wakeup probes and cleared by
	 * the switch probe; the first switch-in past @trigger_ns wins @fired
	 * and writes @trigger_*, then @stop_at (release), which every writer
	 * reads: past it nothing is recorded.  START and REARM reset them,
	 * and a wait that began before @start_ts does not fire it.
	 */
	u64 *wake_slots;		/* KTRACE_WAKE_SLOTS words, NULL if no trigger */
	u64 trigger_ns;
	u64 after_ns;
	u32 trigger_pid;
	char trigger_comm[KTRACE_COMM_LEN];
	bool trigger_rt;		/* KTRACE_CFG_TRIGGER_RT: real-time threads only */
	u64 trigger_cgroup;		/* threads in this cgroup or below only; 0: any */
	bool trigger_cgroup_v1;		/* it is in v1's cpu hierarchy, not v2 */
	bool trigger_preempted;		/* preemptions' waits fire it too */
	atomic_t fired;
	u64 stop_at;
	u64 trigger_ts;
	u64 trigger_latency;
	u32 trigger_tid;
	u32 trigger_cpu;
	/*
	 * Where tasks block (KTRACE_CFG_BLOCKED_IN, KTRACE_CFG_STACKS): set by
	 * CONFIGURE, freed with the session; the slots are written lock-free
	 * by the switch probe (stacks.c).
	 */
	void *stacks;			/* KTRACE_STACK_SLOTS slots, NULL if off */
	struct ktrace_stack_scratch __percpu *stack_scratch;
	u32 stack_depth;		/* frames per slot, 0 if off */
	atomic64_t stacks_full;		/* switches that found no slot */
	/* Each task's last switch-out (ktrace_off_slot()), by the switch probe. */
	u64 *off_slots;			/* KTRACE_WAKE_SLOTS words, NULL if off */
	u64 blocked_min_ns;
	/*
	 * CFS bandwidth throttling (KTRACE_CFG_THROTTLE): where the
	 * scheduler's private fields are (throttle.c), set by CONFIGURE,
	 * read-only after it; @throttle.period_timer_fn is 0 if off.
	 */
	struct ktrace_throttle_layout throttle;
};

extern struct ktrace_session __rcu *ktrace_active;

/*
 * The recorder's clock, for every timestamp: CLOCK_MONOTONIC, NMI-safe,
 * lock-free (also on PREEMPT_RT), the clock BPF's bpf_ktime_get_ns() reads.
 */
static __always_inline u64 ktrace_now(void)
{
	return ktime_get_mono_fast_ns();
}

/* buffer.c */
int ktrace_bufs_alloc_locked(struct ktrace_session *s);
void ktrace_bufs_free(struct ktrace_session *s);
void ktrace_buf_count_loss(struct ktrace_cpu_buf *b, u64 ts);
void ktrace_buf_edge(struct ktrace_cpu_buf *b, u64 old, u64 start, u64 new);
void *ktrace_buf_reserve_slow(struct ktrace_cpu_buf *b, u32 bytes, u64 ts, u64 *pos);
void ktrace_buf_complete(struct ktrace_cpu_buf *b);

/*
 * The writers' path, inline: a call and its return cost about a tenth of
 * a record (KTRACE_IOC_BENCH's stages under TCG); the rare parts are calls.
 */

/* A counter of the shared meta page, updated by this CPU's writers alone. */
static inline local64_t *ktrace_meta_local(u64 *field)
{
	BUILD_BUG_ON(sizeof(local64_t) != sizeof(u64));
	return (local64_t *)field;
}

/* The sub-buffer slot holding @pos. */
static inline u32 ktrace_buf_slot(const struct ktrace_cpu_buf *b, u64 pos)
{
	return (pos >> b->subbuf_shift) & (b->nr_subbufs - 1);
}

/* The commit count at which the sub-buffer holding @pos is complete. */
static inline u64 ktrace_buf_complete_at(const struct ktrace_cpu_buf *b, u64 pos)
{
	return ((pos >> b->size_shift) + 1) << b->subbuf_shift;
}

/* Reserves @bytes without writing a pending loss record first. */
static __always_inline void *ktrace_buf_reserve_room(struct ktrace_cpu_buf *b, u32 bytes, u64 *pos)
{
	local64_t *head = ktrace_meta_local(&b->meta->head);
	u64 old, start, new, off, mask = b->subbuf_size - 1;

	do {
		old = local64_read(head);
		off = old & mask;
		start = off + bytes > b->subbuf_size ? old - off + b->subbuf_size : old;
		new = start + bytes;
		/* Stream mode never overwrites what the reader has not released. */
		if (!b->ring && new - smp_load_acquire(&b->meta->consumed) > b->size)
			return NULL;
	} while (local64_cmpxchg(head, old, new) != old);
	if (unlikely(start != old || !(start & mask) || !(new & mask)))
		ktrace_buf_edge(b, old, start, new);
	*pos = start;
	return b->data + (start & (b->size - 1));
}

/*
 * Room for a record of @bytes (at most a sub-buffer) on this CPU's buffer,
 * or NULL when it is full (the loss is counted).  Callers have preemption
 * off and call ktrace_buf_commit() once the record is written.
 */
static __always_inline void *ktrace_buf_reserve(struct ktrace_cpu_buf *b, u32 bytes, u64 ts,
						u64 *pos)
{
	struct ktrace_session *s = b->session;
	void *rec;

	/* Outside the session's span (above): not recorded, and not lost either. */
	if (unlikely(ts < READ_ONCE(s->start_ts) || ts > READ_ONCE(s->stop_ts)))
		return NULL;
	if (unlikely(b->trigger || local64_read(&b->pending_lost)))
		return ktrace_buf_reserve_slow(b, bytes, ts, pos);
	rec = ktrace_buf_reserve_room(b, bytes, pos);
	if (likely(rec))
		local64_inc(ktrace_meta_local(&b->meta->records));
	else
		ktrace_buf_count_loss(b, ts);
	return rec;
}

/*
 * Commits a record of @bytes reserved at @pos: the sub-buffer it lies in
 * may be read once its commit count reaches a whole sub-buffer for the
 * lap it is in.
 */
static __always_inline void ktrace_buf_commit(struct ktrace_cpu_buf *b, u64 pos, u32 bytes)
{
	local64_t *commit = ktrace_meta_local(&b->meta->subbuf[ktrace_buf_slot(b, pos)].commit);

	/* The record's bytes before the count that makes them readable. */
	smp_wmb();
	if (unlikely(local64_add_return(bytes, commit) == ktrace_buf_complete_at(b, pos)))
		ktrace_buf_complete(b);
}

bool ktrace_buf_write(struct ktrace_cpu_buf *b, const u64 *rec, u32 words, u64 ts);
void ktrace_bufs_flush(struct ktrace_session *s);
bool ktrace_bufs_readable(struct ktrace_session *s);
int ktrace_buf_consume_locked(struct ktrace_session *s, unsigned int cpu, u64 consumed);

/* stacks.c */
int ktrace_stacks_alloc_locked(struct ktrace_session *s, const struct ktrace_config *cfg);
void ktrace_stacks_free(struct ktrace_session *s);
void ktrace_stacks_reset_locked(struct ktrace_session *s);
u32 ktrace_blocked_stack_id(struct ktrace_session *s, struct task_struct *prev, u32 state,
			    struct task_struct *next, u64 ts);
int ktrace_stacks_copy(struct ktrace_session *s, struct ktrace_stacks *st);

/* throttle.c */
int ktrace_throttle_check(const struct ktrace_config *cfg);
void ktrace_throttle_switch_out(struct ktrace_cpu_buf *b, struct task_struct *prev, u64 ts);
void ktrace_throttle_timer_entry(struct ktrace_cpu_buf *b, struct hrtimer *timer, void *fn);
void ktrace_throttle_timer_exit(struct ktrace_cpu_buf *b, struct hrtimer *timer);

/* session.c */
struct ktrace_session *ktrace_session_new(void);
void ktrace_session_free(struct ktrace_session *s);
int ktrace_session_configure_locked(struct ktrace_session *s, const struct ktrace_config *cfg);
int ktrace_session_start_locked(struct ktrace_session *s);
int ktrace_session_stop_locked(struct ktrace_session *s);
void ktrace_session_flush_locked(struct ktrace_session *s);
int ktrace_session_rearm_locked(struct ktrace_session *s);
void ktrace_session_stats_locked(struct ktrace_session *s, struct ktrace_stats *st);

/* probes_sched.c */
void ktrace_write_names(struct ktrace_cpu_buf *b, struct task_struct *p);
int ktrace_probes_init(void);
int ktrace_probes_register(const struct ktrace_session *s);
void ktrace_probes_unregister(void);

/* probes_irq.c */
int ktrace_irq_probes_init(void);
int ktrace_irq_probes_register(const struct ktrace_session *s);
void ktrace_irq_probes_unregister(void);

/* api.c */
extern unsigned long ktrace_session_gen;

/* probes_dynamic.c */
int ktrace_dynprobe_add_locked(struct ktrace_session *s, const struct ktrace_probe *p);
void ktrace_dynprobes_remove_locked(struct ktrace_session *s);

/* statedump.c */
void ktrace_statedump(struct ktrace_session *s);

/* marks.c */
int ktrace_marks_init(void);
void ktrace_marks_exit(void);

/* hotplug.c */
int ktrace_hotplug_init(void);
void ktrace_hotplug_exit(void);

/* dev.c */
/* bench.c: KTRACE_IOC_BENCH on a running ring session. */
int ktrace_bench_locked(struct ktrace_session *s, struct ktrace_bench *bench);

int ktrace_dev_init(void);
void ktrace_dev_exit(void);

extern unsigned long ktrace_buffer_size;

#endif /* _KTRACE_INTERNAL_H */
