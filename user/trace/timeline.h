/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace as timelines: per CPU, the chain of context switches, and the
 * ktrace:meta records that say why a chain breaks.
 */
#ifndef KTRACE_TIMELINE_H
#define KTRACE_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fxt/fxt_reader.h"

#define TL_CPU_UNKNOWN	UINT32_MAX

/* A CPU's chain: the thread the last switch put on it. */
struct tl_cpu {
	uint64_t tid;		/* running, 0 = idle */
	uint64_t since;		/* its switch-in, ticks */
	bool known;		/* a switch seen since the start, a loss or an offline CPU */
	/* dump --check: what explains a break at the next switch here */
	uint8_t excuse;
	uint64_t ex_tid, ex_out;
	/* dump --check: ->tid was switched in on another CPU meanwhile */
	uint64_t moved_ts, moved_off;
	uint32_t moved_cpu;
	bool moved;
	/* dump --check: its cpu_online record, until its first switch after it */
	uint64_t coming_up;
	/* dump --check: who made the wakeups here (see on_wakeup()) */
	uint64_t pre_waker;	/* before the first switch, the first waker */
	uint64_t pre_ts, pre_off;
	bool pre, pre_bad;	/* pre_waker is set; another waker was seen */
};

struct timeline {
	struct tl_cpu *cpu;
	uint32_t ncpus;
};

/*
 * A context switch on @cpu at @ts.  1 when the chain breaks: the switch
 * takes off @out, but @was (the CPU before this switch) says another thread
 * was switched in; 0 when it chains or starts a chain; -ENOMEM.
 */
int timeline_switch(struct timeline *t, uint32_t cpu, uint64_t ts, uint64_t out, uint64_t in,
		    struct tl_cpu *was);
/* @cpu's chain, the array grown to hold it; NULL when memory runs out. */
struct tl_cpu *timeline_cpu(struct timeline *t, uint32_t cpu);
/* A loss or CPU going off or on line: the next switch on @cpu starts a new chain. */
void timeline_forget(struct timeline *t, uint32_t cpu);
void timeline_free(struct timeline *t);

/* The ktrace:meta records that explain a break. */
enum tl_meta {
	TL_META_NONE,
	TL_META_DROPPED,	/* the recorder's, not ftrace's */
	TL_META_UNTRACED,	/* untraced_switch */
	TL_META_CPU_LINE,	/* cpu_offline, cpu_online */
};

/* Which, and on which CPU (TL_CPU_UNKNOWN when the record names none). */
/*
 * Whether a loss record ("dropped") may have lost context switches,
 * wakeups or CPU hotplug records: a buffer's loss may; a BPF program's
 * skipped runs may only if that program records them (its "lost").
 */
bool timeline_loss_hides_switches(const struct fxt_record *rec);
enum tl_meta timeline_meta(const struct fxt_record *rec, uint32_t *cpu);

/*
 * The untraced_switch record: on @cpu, @stranded was switched in at
 * @first_ts and @out, not it, was switched out at @last_ts, with no loss
 * on the CPU: the kernel switched somewhere between and traced none of it.
 */
void timeline_untraced_args(struct fxt_arg *args, uint32_t cpu, uint64_t stranded, uint64_t out,
			    uint64_t first_ts, uint64_t last_ts);
#define TL_UNTRACED_NARGS	5

#endif
