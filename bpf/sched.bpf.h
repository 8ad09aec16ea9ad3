/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the BPF recorder and its loader in user/source_bpf.c. */
#ifndef KTRACE_SCHED_BPF_H
#define KTRACE_SCHED_BPF_H

/* Largest record the BPF programs write, in words. */
#define KTRACE_BPF_MAX_WORDS	KTRACE_FXT_DROP_WORDS

/* Per-CPU loss accounting; read by user space at the end of a session. */
struct ktrace_bpf_drops {
	__u64 written;		/* records written, loss records included */
	__u64 pending;		/* lost and not yet reported in the buffer */
	__u64 reported;		/* lost and reported by a loss record */
	__u64 first_ts, last_ts;	/* time range of the pending loss */
};

#endif
