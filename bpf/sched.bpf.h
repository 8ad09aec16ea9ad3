/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the BPF recorder and its reader in user/source_bpf.c. */
#ifndef KTRACE_SCHED_BPF_H
#define KTRACE_SCHED_BPF_H

/* Largest record the BPF programs write, in words. */
#define KTRACE_BPF_MAX_WORDS	KTRACE_FXT_DROP_WORDS

/*
 * One CPU's buffer control block.  The blocks of all CPUs form an mmapable
 * array map shared with user space; the buffers themselves are another
 * mmapable array of words, CPU after CPU, each a power of two long.
 *
 * Writers (BPF programs on that CPU, possibly nested by interrupts) reserve
 * space by advancing @head with a compare-and-swap, write the record's
 * words, and publish it by exchanging its header word in last.  The reader
 * consumes committed records from @tail (a zero header is not committed
 * yet), zeroes them, and advances @tail.  head - tail never exceeds the
 * buffer: a record that does not fit is lost and counted in @pending.
 */
struct ktrace_bpf_ctl {
	__u64 head;		/* bytes reserved; written by the BPF programs */
	__u64 pad0[7];
	__u64 tail;		/* bytes consumed; written by the reader */
	__u64 pad1[7];
	__u64 pending;		/* lost, not yet reported by a loss record */
	__u64 reported;		/* lost and reported by a loss record */
	__u64 first_ts;		/* time range of the pending loss */
	__u64 last_ts;
	__u64 pad2[4];
};

#endif
