/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compact archive: the scheduling records `ktrace record` writes in
 * fewer bytes than the recorders' own, and the rules by which a reader
 * gives back what they leave out.  The writer (fxt_compact.c, used by
 * record/archive.c) and the reader (fxt_reader.c) follow the same rules,
 * so both live here.
 *
 * An archive is compact when its trace_info instant has the string
 * argument "encoding" = "compact".  In it:
 *
 * - A context switch may be the spec's legacy record (sub-type 0) with
 *   thread-table references and the priorities (weights, 1..140; 0 for the
 *   idle task, pid 0) in its header: 16 bytes.  Its outgoing state is one
 *   of the Zircon states, and the Linux state it stands for is the one
 *   fxt_compact_linux_state() gives.  One word longer (24 bytes), it says
 *   in that word what the header cannot (FXT_COMPACT_SWITCH_*): the exact
 *   Linux state, and where the incoming thread blocked ("incoming_kstack").
 *   Viewers read the legacy record by its fields and skip by its size, so
 *   they see a plain switch.  A switch that needs more (an outgoing
 *   "kstack", a CPU above 255) is the recorder's record as it was.
 * - A thread wakeup without a "weight" argument has the weight of the
 *   same thread's previous wakeup, and its allowed CPUs ("cpus") too
 *   unless it says them; an explicit "cpus" of 0 says it may run anywhere.
 *   (The recorders' wakeups always have a weight, so none is lost.)  A
 *   wakeup with CPUs above 63 ("cpus1" ...) is never shortened, and the
 *   thread's next wakeup has its weight.
 * - A wakeup from an interrupt may have, instead of "irq_context" and the
 *   "interrupted" koid, the uint32 "interrupt": the context in bits 30..31
 *   and the interrupted thread's tid in bits 0..29.
 * - An event record may name its thread by a thread-table reference where
 *   the recorder's was inline (interrupt handlers, timer expiries, moves).
 * - A wakeup whose waker, or from an interrupt the interrupted thread, is
 *   the thread its CPU's latest context switch (in the archive's order)
 *   switched in leaves it out, and says so in header bits the spec
 *   reserves (FXT_COMPACT_WAKE_*), with the interrupt's context: 24 bytes
 *   with no other argument.  Perfetto takes a wakeup without "waker" for
 *   one by the woken thread itself.
 */
#ifndef KTRACE_FXT_COMPACT_H
#define KTRACE_FXT_COMPACT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <linux/ktrace_fxt.h>

#include "lib/u64map.h"

struct fxt_writer;
struct fxt_record;

#define FXT_COMPACT_ENCODING	"compact"

/*
 * The Linux state a compact archive's legacy context switch in Zircon
 * state @fxt_state stands for, or -1 when it stands for none.
 */
static inline int fxt_compact_linux_state(unsigned int fxt_state)
{
	switch (fxt_state) {
	case KTRACE_FXT_THREAD_RUNNING:
		return KTRACE_LINUX_RUNNING;
	case KTRACE_FXT_THREAD_SUSPENDED:
		return KTRACE_LINUX_STOPPED;
	case KTRACE_FXT_THREAD_BLOCKED:
		return KTRACE_LINUX_INTERRUPTIBLE;
	case KTRACE_FXT_THREAD_DYING:
		return KTRACE_LINUX_ZOMBIE;
	case KTRACE_FXT_THREAD_DEAD:
		return KTRACE_LINUX_DEAD;
	default:
		return -1;
	}
}

/*
 * The legacy switch's word after its timestamp: the exact Linux state
 * (enum ktrace_linux_state) in bits 32..35 and the incoming thread's
 * blocked-in stack ("incoming_kstack", 0: none) in bits 0..31; the rest
 * is zero.
 */
#define FXT_COMPACT_SWITCH_STATE_SHIFT	32
#define FXT_COMPACT_SWITCH_RESERVED	(~0ULL << 36)

static inline uint64_t fxt_compact_switch_word(uint32_t linux_state, uint32_t in_kstack)
{
	return (uint64_t)linux_state << FXT_COMPACT_SWITCH_STATE_SHIFT | in_kstack;
}

/*
 * A wakeup's header bit 36 set: its waker (irq context 0) or the thread
 * its interrupt interrupted is its CPU's current thread; bits 37..38 hold
 * that irq context (enum ktrace_irq_context).
 */
#define FXT_COMPACT_WAKE_CURRENT	(1ULL << 36)
#define FXT_COMPACT_WAKE_CTX_SHIFT	37

#define FXT_COMPACT_INTERRUPT		"interrupt"
#define FXT_COMPACT_INTERRUPT_SHIFT	30
#define FXT_COMPACT_INTERRUPT_TID	((1U << FXT_COMPACT_INTERRUPT_SHIFT) - 1)

/* What a thread's wakeups may leave out: the values of its previous one. */
struct fxt_wake_state {
	uint64_t cpus;		/* 0: may run on every CPU */
	int32_t weight;
	bool valid;		/* a wakeup of it was seen */
};

/*
 * The thread each CPU's latest context switch switched in, for the
 * wakeups that leave out their waker: the writer and the reader keep it
 * alike, from every switch in the archive's order.
 */
#define FXT_COMPACT_NO_THREAD	UINT64_MAX

struct fxt_compact_current {
	uint64_t *tid;			/* by CPU; FXT_COMPACT_NO_THREAD: no switch yet */
	uint32_t ncpus;
};

/* A switch on @cpu to @tid; -ENOMEM.  (Inline: the reader and the writer keep one each.) */
static inline int fxt_compact_current_set(struct fxt_compact_current *c, uint32_t cpu,
					  uint64_t tid)
{
	uint32_t n;
	uint64_t *t;

	if (cpu >= c->ncpus) {
		n = cpu < 64 ? 64 : cpu + 1;
		t = realloc(c->tid, n * sizeof(*t));
		if (!t)
			return -ENOMEM;
		for (uint32_t i = c->ncpus; i < n; i++)
			t[i] = FXT_COMPACT_NO_THREAD;
		c->tid = t;
		c->ncpus = n;
	}
	c->tid[cpu] = tid;
	return 0;
}

static inline uint64_t fxt_compact_current_get(const struct fxt_compact_current *c,
					       uint32_t cpu)
{
	return cpu < c->ncpus ? c->tid[cpu] : FXT_COMPACT_NO_THREAD;
}

static inline void fxt_compact_current_free(struct fxt_compact_current *c)
{
	free(c->tid);
	c->tid = NULL;
	c->ncpus = 0;
}

/* ---- the writer's half --------------------------------------------------- */

/* FXT's thread table: indices 1..255 (0 means an inline thread). */
#define FXT_COMPACT_SLOTS	256

struct fxt_compact_thread {
	uint64_t pid;			/* of its latest thread record; 0 before one */
	struct fxt_wake_state wake;	/* as the reader will know it */
	uint8_t slot;			/* its thread-table index, 0: none */
};

struct fxt_compact_slot {
	uint64_t tid, pid;		/* as its thread record declared them */
	uint64_t used;			/* when a record last used it */
	bool set;
};

struct fxt_compact {
	struct u64map map;		/* tid -> threads[] */
	struct fxt_compact_thread *threads;
	uint32_t nthreads, cap_threads;
	struct fxt_compact_slot slots[FXT_COMPACT_SLOTS];
	uint64_t clock;			/* counts uses, for the least recently used slot */
	uint16_t interrupt;		/* string ref of FXT_COMPACT_INTERRUPT */
	struct fxt_compact_current current;	/* what each CPU runs, as readers know it */
	uint64_t legacy, full;		/* context switches written each way */
	/*
	 * A wakeup made by the thread its CPU runs, or from an interrupt of
	 * it, leaves that thread out (header bits say so): 16 bytes less, but
	 * Perfetto then shows the woken thread as its own waker.
	 */
	bool implicit_waker;
};

/* Before the first record: interns the names the compact records use. */
void fxt_compact_init(struct fxt_compact *ac, struct fxt_writer *w);
/* A thread record (kernel object) named @tid's process: later references say so. */
int fxt_compact_named(struct fxt_compact *ac, uint64_t tid, uint64_t pid);
/*
 * Writes the recorder's scheduling record @rec (decoded, with its words)
 * to @w's output, compacted where the rules allow, with the thread records
 * it needs before it.  0, or -ENOMEM.
 */
int fxt_compact_sched(struct fxt_compact *ac, struct fxt_writer *w,
		      const struct fxt_record *rec);
/*
 * The thread-table index by which an event of thread @tid in process @pid
 * may name it, declared first where needed (a thread record); 0 when
 * references give @tid another process (or it is thread 0), -ENOMEM.
 */
int fxt_compact_event_ref(struct fxt_compact *ac, struct fxt_writer *w, uint64_t pid,
			  uint64_t tid);
/*
 * Writes the recorder's event record @rec (decoded, with its words), whose
 * thread is inline, with a thread-table reference instead: 16 bytes less.
 * 1 when written, 0 when it must stay as it is, -ENOMEM.
 */
int fxt_compact_event(struct fxt_compact *ac, struct fxt_writer *w, const struct fxt_record *rec);
void fxt_compact_free(struct fxt_compact *ac);

#endif
