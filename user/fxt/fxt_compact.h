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
 *   fxt_compact_linux_state() gives.  A switch that needs more (a Linux
 *   state that state cannot say, a blocked-in stack, a CPU above 255) is
 *   the recorder's record as it was.
 * - A thread wakeup without a "weight" argument has the weight of the
 *   same thread's previous wakeup, and its allowed CPUs ("cpus") too
 *   unless it says them; an explicit "cpus" of 0 says it may run anywhere.
 *   (The recorders' wakeups always have a weight, so none is lost.)
 * - A wakeup from an interrupt may have, instead of "irq_context" and the
 *   "interrupted" koid, the uint32 "interrupt": the context in bits 30..31
 *   and the interrupted thread's tid in bits 0..29.
 */
#ifndef KTRACE_FXT_COMPACT_H
#define KTRACE_FXT_COMPACT_H

#include <stdbool.h>
#include <stdint.h>

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

#define FXT_COMPACT_INTERRUPT		"interrupt"
#define FXT_COMPACT_INTERRUPT_SHIFT	30
#define FXT_COMPACT_INTERRUPT_TID	((1U << FXT_COMPACT_INTERRUPT_SHIFT) - 1)

/* What a thread's wakeups may leave out: the values of its previous one. */
struct fxt_wake_state {
	uint64_t cpus;		/* 0: may run on every CPU */
	int32_t weight;
	bool valid;		/* a wakeup of it was seen */
};

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
	uint64_t legacy, full;		/* context switches written each way */
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
void fxt_compact_free(struct fxt_compact *ac);

#endif
