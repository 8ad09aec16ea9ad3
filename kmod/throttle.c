// SPDX-License-Identifier: GPL-2.0
/*
 * CFS bandwidth throttling: the switch-outs that show a throttle, and the
 * refills of a cgroup's bandwidth timers, read from the scheduler's private
 * structures at the offsets user space found in the kernel's BTF.
 *
 * No tracepoint covers throttling.  In the task-based throttle model (Linux
 * 6.18) a throttled task leaves the CPU, runnable, on its way back to user
 * space, flagged throttled; the others of its cgroup there run on until
 * they get there, so only that task waits for the refill.  Before, a
 * throttled cfs_rq is dequeued whole as its running task leaves, whether
 * that task sleeps or stays runnable, and every task queued on it waits;
 * each cfs_rq counts in throttle_count the throttled ones at or above it.
 * The BPF recorder (bpf/sched.bpf.c) writes the same records the same way.
 *
 * Every private field is read with its fault caught, through offsets the
 * module checked only for range and alignment: a wrong one reads 0 or
 * garbage and costs records, never an oops.  Nothing here sleeps: the
 * probes run with preemption off, in interrupts too, also on PREEMPT_RT.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup-defs.h>
#include <linux/hrtimer.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kernfs.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "compat/hrtimer.h"
#include "internal.h"

#define THROTTLE_DEPTH	16	/* cgroup levels searched for the throttled one */
#define THROTTLED_WALK	64	/* throttled run queues looked at after a refill */

/* Whether @addr is where the function @name starts. */
static bool is_function(u64 addr, const char *name)
{
	size_t len = strlen(name);
	bool ok;
	char *sym;

	if (!addr || addr != (unsigned long)addr)
		return false;
	sym = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!sym)
		return false;
	sprint_symbol(sym, (unsigned long)addr);
	ok = !strncmp(sym, name, len) && !strncmp(sym + len, "+0x0/", 5);
	kfree(sym);
	return ok;
}

/* An offset into a private struct: in range, aligned, and not 0 unless @may_be_0. */
static bool offset_ok(u32 off, size_t align, bool may_be_0)
{
	return (off || may_be_0) && off < KTRACE_THROTTLE_OFFSET_MAX && IS_ALIGNED(off, align);
}

/*
 * KTRACE_CFG_THROTTLE's layout, as CONFIGURE takes it: all 0 without the
 * flag; with it, the two timer functions where kallsyms has them and every
 * offset sane.  task_throttled is read straight from task_struct, whose
 * size bounds it.
 */
int ktrace_throttle_check(const struct ktrace_config *cfg)
{
	const struct ktrace_throttle_layout *l = &cfg->throttle;
	const size_t ptr = __alignof__(void *);

	if (!(cfg->flags & KTRACE_CFG_THROTTLE))
		return memchr_inv(l, 0, sizeof(*l)) ? -EINVAL : 0;
	if (!IS_ENABLED(CONFIG_CFS_BANDWIDTH) || !IS_ENABLED(CONFIG_FAIR_GROUP_SCHED))
		return -EOPNOTSUPP;
	if (l->task_throttled >= sizeof(struct task_struct) ||
	    !offset_ok(l->cfs_rq_throttle_count, __alignof__(int), false) ||
	    !offset_ok(l->cfs_rq_throttled_list, ptr, false) ||
	    !offset_ok(l->cfs_rq_runtime_remaining, __alignof__(s64), false) ||
	    !offset_ok(l->cfs_rq_rq, ptr, false) || !offset_ok(l->cfs_rq_tg, ptr, false) ||
	    !offset_ok(l->rq_cpu, __alignof__(int), false) || !offset_ok(l->tg_css, ptr, true) ||
	    !offset_ok(l->tg_cfs_bandwidth, ptr, false) ||
	    !offset_ok(l->cfs_b_period_timer, ptr, false) ||
	    !offset_ok(l->cfs_b_slack_timer, ptr, false) ||
	    !offset_ok(l->cfs_b_throttled_cfs_rq, ptr, false))
		return -EINVAL;
	if (!is_function(l->period_timer_fn, "sched_cfs_period_timer") ||
	    !is_function(l->slack_timer_fn, "sched_cfs_slack_timer"))
		return -EINVAL;
	return 0;
}

/* The int at @off in the private struct at @base; false if it cannot be read. */
static bool read_int(const void *base, u32 off, int *val)
{
	return base && !get_kernel_nofault(*val, (const int *)((const char *)base + off));
}

static bool read_ptr(const void *base, u32 off, void **val)
{
	return base && !get_kernel_nofault(*val, (void * const *)((const char *)base + off));
}

/* The id of the cgroup of the task_group at @tg, 0 if it cannot be read. */
static u64 tg_cgroup_id(const struct ktrace_throttle_layout *l, const void *tg)
{
	const struct cgroup_subsys_state *css = (const void *)((const char *)tg + l->tg_css);
	struct kernfs_node *kn;
	struct cgroup *cgrp;
	u64 id;

	if (!tg || get_kernel_nofault(cgrp, &css->cgroup) || !cgrp ||
	    get_kernel_nofault(kn, &cgrp->kn) || !kn || get_kernel_nofault(id, &kn->id))
		return 0;
	return id;
}

#ifdef CONFIG_FAIR_GROUP_SCHED
/*
 * Whether @prev, a fair task, leaves the CPU throttled: in the task-based
 * model its own flag, else its cfs_rq's throttle_count.  A load or two.
 */
static bool throttled_out(const struct ktrace_throttle_layout *l, struct task_struct *prev)
{
	int count;

	if (l->task_throttled)
		return READ_ONCE(*((u8 *)prev + l->task_throttled));
	return read_int(prev->se.cfs_rq, l->cfs_rq_throttle_count, &count) && count > 0;
}

/*
 * The cgroup id of the lowest throttled cfs_rq above @p, 0 if none.  Each
 * cfs_rq counts in throttle_count the throttled ones at or above it, so
 * the lowest throttled one counts more than its parent.  Each group's
 * entity on this CPU leads to its parent group's cfs_rq.
 */
static u64 throttled_cgroup(const struct ktrace_throttle_layout *l, struct task_struct *p)
{
	struct cfs_rq *cfs_rq = p->se.cfs_rq, *up;
	struct sched_entity *se = &p->se, *parent;
	void *tg;
	int count, up_count, i;

	for (i = 0; i < THROTTLE_DEPTH && cfs_rq; i++) {
		if (!read_int(cfs_rq, l->cfs_rq_throttle_count, &count) || count <= 0)
			return 0;
		if (get_kernel_nofault(parent, &se->parent))
			return 0;
		up = NULL;
		if (parent && get_kernel_nofault(up, &parent->cfs_rq))
			return 0;
		if (!up || !read_int(up, l->cfs_rq_throttle_count, &up_count) || up_count < count)
			return read_ptr(cfs_rq, l->cfs_rq_tg, &tg) ? tg_cgroup_id(l, tg) : 0;
		se = parent;
		cfs_rq = up;
	}
	return 0;
}

/* @prev, a fair task, leaves the CPU at @ts: a "throttle" if it is throttled. */
void ktrace_throttle_switch_out(struct ktrace_cpu_buf *b, struct task_struct *prev, u64 ts)
{
	const struct ktrace_throttle_layout *l = &b->session->throttle;
	u64 rec[KTRACE_FXT_THROTTLE_WORDS], id;

	if (!throttled_out(l, prev))
		return;
	id = throttled_cgroup(l, prev);
	if (id)
		ktrace_buf_write(b, rec, ktrace_fxt_put_throttle(rec, ts, prev->tgid, prev->pid,
								 b->cpu, id), ts);
}
#else
void ktrace_throttle_switch_out(struct ktrace_cpu_buf *b, struct task_struct *prev, u64 ts)
{
}
#endif

/* The cfs_bandwidth whose timer @timer (calling @fn) is, NULL for any other timer. */
static void *cfs_bandwidth_of(const struct ktrace_throttle_layout *l, struct hrtimer *timer,
			      void *fn)
{
	if (fn == (void *)(unsigned long)l->period_timer_fn)
		return (char *)timer - l->cfs_b_period_timer;
	if (fn == (void *)(unsigned long)l->slack_timer_fn)
		return (char *)timer - l->cfs_b_slack_timer;
	return NULL;
}

static u64 cfs_bandwidth_cgroup(const struct ktrace_throttle_layout *l, const void *cfs_b)
{
	return tg_cgroup_id(l, (const char *)cfs_b - l->tg_cfs_bandwidth);
}

/*
 * A cgroup's bandwidth timers: the period timer refills its quota and the
 * slack timer hands out runtime returned by other CPUs; both then
 * unthrottle the run queues the runtime covers.  @timer, calling @fn, is
 * about to expire: recorded if it is one of those and its cgroup has
 * throttled run queues, so that a cgroup that keeps within its quota
 * writes nothing.
 */
void ktrace_throttle_timer_entry(struct ktrace_cpu_buf *b, struct hrtimer *timer, void *fn)
{
	const struct ktrace_throttle_layout *l = &b->session->throttle;
	u64 rec[KTRACE_FXT_CFS_REFILL_WORDS], ts, id;
	char *cfs_b = cfs_bandwidth_of(l, timer, fn);
	struct list_head *head, *next;

	if (!cfs_b)
		return;
	head = (struct list_head *)(cfs_b + l->cfs_b_throttled_cfs_rq);
	if (get_kernel_nofault(next, &head->next) || next == head)
		return;
	ts = ktrace_now();
	id = cfs_bandwidth_cgroup(l, cfs_b);
	ktrace_buf_write(b, rec, ktrace_fxt_put_cfs_refill(rec, ts, b->cpu, id, 0, 0), ts);
}

/*
 * @timer's function returned.  If it was a bandwidth timer, a throttled
 * cfs_rq that got too little runtime to pay its debt (runtime_remaining
 * still <= 0) stays throttled, which the "cfs_refill" written at the entry
 * cannot know: the CPUs of those (0..63) follow in a second "cfs_refill",
 * with "after" set.  The list is read without its lock: a cfs_rq added or
 * removed meanwhile may be missed or seen.  The function may have freed a
 * timer of another kind, so even its function is read with faults caught.
 */
void ktrace_throttle_timer_exit(struct ktrace_cpu_buf *b, struct hrtimer *timer)
{
	const struct ktrace_throttle_layout *l = &b->session->throttle;
	u64 rec[KTRACE_FXT_CFS_REFILL_WORDS], ts, id, still = 0;
	struct list_head *head, *node;
	char *cfs_b;
	int i;

	cfs_b = cfs_bandwidth_of(l, timer, ktrace_hrtimer_function_nofault(timer));
	if (!cfs_b)
		return;
	head = (struct list_head *)(cfs_b + l->cfs_b_throttled_cfs_rq);
	if (get_kernel_nofault(node, &head->next))
		return;
	for (i = 0; i < THROTTLED_WALK && node && node != head; i++) {
		char *cfs_rq = (char *)node - l->cfs_rq_throttled_list;
		s64 remaining;
		void *rq;
		int cpu;

		if (get_kernel_nofault(remaining, (s64 *)(cfs_rq + l->cfs_rq_runtime_remaining)) ||
		    !read_ptr(cfs_rq, l->cfs_rq_rq, &rq) || !read_int(rq, l->rq_cpu, &cpu))
			break;
		if (remaining <= 0 && cpu >= 0 && cpu < 64)
			still |= 1ULL << cpu;
		if (get_kernel_nofault(node, &node->next))
			break;
	}
	if (!still)
		return;
	ts = ktrace_now();
	id = cfs_bandwidth_cgroup(l, cfs_b);
	ktrace_buf_write(b, rec, ktrace_fxt_put_cfs_refill(rec, ts, b->cpu, id, still, 1), ts);
}
