// SPDX-License-Identifier: GPL-2.0
/*
 * Where tasks block: the kernel stacks of tasks switched out in S or D,
 * interned per session so that a context switch record carries an id.
 *
 * The table is an open-addressing array of KTRACE_STACK_SLOTS slots,
 * allocated by CONFIGURE and freed with the session.  The switch probe
 * (preemption and interrupts off, any preemption model) saves the stack
 * into its CPU's scratch area, hashes it, and probes at most
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
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

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

int ktrace_stacks_alloc_locked(struct ktrace_session *s, u32 flags)
{
	lockdep_assert_held(&s->lock);
	if (!(flags & (KTRACE_CFG_BLOCKED_IN | KTRACE_CFG_STACKS)))
		return 0;
	s->stack_depth = flags & KTRACE_CFG_STACKS ? KTRACE_KSTACK_MAX_DEPTH :
			 KTRACE_KSTACK_BLOCKED_DEPTH;
	s->stacks = vzalloc(KTRACE_STACK_SLOTS * slot_size(s));
	s->stack_scratch = alloc_percpu(struct ktrace_stack_scratch);
	if (!s->stacks || !s->stack_scratch) {
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
	s->stacks = NULL;
	s->stack_scratch = NULL;
	s->stack_depth = 0;
}

/* The id of the current task's kernel stack, or 0; from the switch probe only. */
u32 ktrace_stack_id(struct ktrace_session *s)
{
	struct ktrace_stack_scratch *sc = this_cpu_ptr(s->stack_scratch);
	unsigned int nr = stack_trace_save(sc->ip, s->stack_depth, 0);
	size_t bytes = nr * sizeof(sc->ip[0]);
	u32 hash = jhash(sc->ip, bytes, nr), i, p;

	for (p = 0; p < KTRACE_STACK_PROBES; p++) {
		struct ktrace_stack_slot *slot;

		i = (hash + p) & (KTRACE_STACK_SLOTS - 1);
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
