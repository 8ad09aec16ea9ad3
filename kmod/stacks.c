// SPDX-License-Identifier: GPL-2.0
/*
 * Where tasks block: the kernel stacks of tasks that were switched out in
 * S or D, taken at the switch-in that ends the block when the task was
 * off the CPU for the session's threshold or more, interned per session
 * so that a context switch record carries an id.
 *
 * The off-CPU time comes from a pid-indexed table of each task's last
 * switch-out (ktrace_off_slot()); a task's switch-out and its next
 * switch-in never run at once, so plain stores do, and two tasks that
 * share a slot only cost a walk.  Most blocks are short: this keeps the
 * walk, several times a switch's cost, off them.
 *
 * The stack table is an open-addressing array of KTRACE_STACK_SLOTS
 * slots, allocated by CONFIGURE and freed with the session.  The switch
 * probe (preemption and interrupts off, any preemption model) saves the
 * stack into its CPU's scratch area, hashes it, and probes at most
 * KTRACE_STACK_PROBES slots: a ready slot with the same frames is its id;
 * a free one is claimed with a cmpxchg, filled, and published with a
 * release store.  A slot another CPU is still filling is passed over, so
 * the same stack may get two ids, which user space names alike.  No lock,
 * no allocation, bounded work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/jhash.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat/stacktrace.h"
#include "internal.h"

#define KTRACE_STACK_PROBES	16

enum { SLOT_FREE, SLOT_BUSY, SLOT_READY };

/* One slot: state, frames, hash, then @depth addresses. */
struct ktrace_stack_slot {
	atomic_t state;
	u32 nr;
	u32 hash;
	u32 pad;
	unsigned long ip[];
};

struct ktrace_stack_scratch {
	unsigned long ip[KTRACE_KSTACK_MAX_DEPTH];
};

static size_t slot_size(const struct ktrace_session *s)
{
	return sizeof(struct ktrace_stack_slot) + s->stack_depth * sizeof(unsigned long);
}

static struct ktrace_stack_slot *slot_at(const struct ktrace_session *s, u32 i)
{
	return (struct ktrace_stack_slot *)((char *)s->stacks + i * slot_size(s));
}

int ktrace_stacks_alloc_locked(struct ktrace_session *s, const struct ktrace_config *cfg)
{
	lockdep_assert_held(&s->lock);
	if (!(cfg->flags & (KTRACE_CFG_BLOCKED_IN | KTRACE_CFG_STACKS)))
		return 0;
	s->stack_depth = cfg->flags & KTRACE_CFG_STACKS ? KTRACE_KSTACK_MAX_DEPTH :
			 KTRACE_KSTACK_BLOCKED_DEPTH;
	s->blocked_min_ns = cfg->blocked_min_ns;
	s->stacks = vzalloc(KTRACE_STACK_SLOTS * slot_size(s));
	s->stack_scratch = alloc_percpu(struct ktrace_stack_scratch);
	s->off_slots = vzalloc(KTRACE_WAKE_SLOTS * sizeof(*s->off_slots));
	if (!s->stacks || !s->stack_scratch || !s->off_slots) {
		ktrace_stacks_free(s);
		return -ENOMEM;
	}
	atomic64_set(&s->stacks_full, 0);
	return 0;
}

void ktrace_stacks_free(struct ktrace_session *s)
{
	vfree(s->stacks);
	free_percpu(s->stack_scratch);
	vfree(s->off_slots);
	s->stacks = NULL;
	s->stack_scratch = NULL;
	s->off_slots = NULL;
	s->stack_depth = 0;
}

/* Before a start: switch-outs of an earlier run of the session are not this one's. */
void ktrace_stacks_reset_locked(struct ktrace_session *s)
{
	lockdep_assert_held(&s->lock);
	if (s->off_slots)
		memset(s->off_slots, 0, KTRACE_WAKE_SLOTS * sizeof(*s->off_slots));
}

/* The id of @p's kernel stack, or 0; @p is sched_switch's next (compat/stacktrace.h). */
static u32 stack_id(struct ktrace_session *s, struct task_struct *p)
{
	struct ktrace_stack_scratch *sc = this_cpu_ptr(s->stack_scratch);
	unsigned int nr = ktrace_stack_save_tsk(p, sc->ip, s->stack_depth);
	size_t bytes = nr * sizeof(sc->ip[0]);
	u32 hash = jhash(sc->ip, bytes, nr), i, probe;

	if (!nr)
		return 0;
	for (probe = 0; probe < KTRACE_STACK_PROBES; probe++) {
		struct ktrace_stack_slot *slot;

		i = (hash + probe) & (KTRACE_STACK_SLOTS - 1);
		slot = slot_at(s, i);
		switch (atomic_read_acquire(&slot->state)) {
		case SLOT_READY:
			if (slot->hash == hash && slot->nr == nr &&
			    !memcmp(slot->ip, sc->ip, bytes))
				return i + 1;
			break;
		case SLOT_FREE:
			if (atomic_cmpxchg(&slot->state, SLOT_FREE, SLOT_BUSY) != SLOT_FREE)
				break;
			memcpy(slot->ip, sc->ip, bytes);
			slot->nr = nr;
			slot->hash = hash;
			atomic_set_release(&slot->state, SLOT_READY);
			return i + 1;
		default:
			break;
		}
	}
	atomic64_inc(&s->stacks_full);
	return 0;
}

/*
 * From the switch probe: notes when @prev left the CPU in @state, and
 * returns the id of the stack @next blocked with if it was off the CPU
 * for the session's threshold or more, else 0.
 */
u32 ktrace_blocked_stack_id(struct ktrace_session *s, struct task_struct *prev, u32 state,
			    struct task_struct *next, u64 ts)
{
	if (prev->pid)
		WRITE_ONCE(s->off_slots[prev->pid & (KTRACE_WAKE_SLOTS - 1)],
			   ktrace_off_slot(prev->pid, ts, state));
	if (!next->pid ||
	    !ktrace_off_long(READ_ONCE(s->off_slots[next->pid & (KTRACE_WAKE_SLOTS - 1)]),
			     next->pid, ts, s->blocked_min_ns))
		return 0;
	return stack_id(s, next);
}

/*
 * KTRACE_IOC_STACKS, without the session lock (a fault in copy_to_user()
 * takes mmap_lock, which mmap holds while taking the session lock): the
 * table lives as long as the session, which the open file keeps, and
 * slots only ever become ready.
 */
int ktrace_stacks_copy(struct ktrace_session *s, struct ktrace_stacks *st)
{
	u64 __user *out = u64_to_user_ptr(st->buf);
	u64 words = 1 + s->stack_depth;
	u32 i;

	if (!s->stacks)
		return -ENODATA;
	if (st->depth || st->full || st->reserved[0] || st->reserved[1] ||
	    st->buf_size < KTRACE_STACK_SLOTS * words * sizeof(u64))
		return -EINVAL;
	for (i = 0; i < KTRACE_STACK_SLOTS; i++) {
		struct ktrace_stack_slot *slot = slot_at(s, i);
		u64 w[KTRACE_KSTACK_MAX_DEPTH + 1] = { 0 };
		u32 j;

		if (atomic_read_acquire(&slot->state) == SLOT_READY) {
			w[0] = slot->nr;
			for (j = 0; j < slot->nr; j++)
				w[1 + j] = slot->ip[j];
		}
		if (copy_to_user(out + i * words, w, words * sizeof(u64)))
			return -EFAULT;
	}
	st->depth = s->stack_depth;
	st->full = atomic64_read(&s->stacks_full);
	return 0;
}
