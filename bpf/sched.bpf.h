/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the BPF recorder and its reader in user/record/source_bpf.c. */
#ifndef KTRACE_SCHED_BPF_H
#define KTRACE_SCHED_BPF_H

/* Largest record the BPF programs write, in words, but for the ones below. */
#define KTRACE_BPF_MAX_WORDS	KTRACE_FXT_DROP_WORDS
/*
 * Largest of all: a thread record with an allowed-CPU mask above CPU 63
 * (a machine of more than 64 CPUs), the largest of the records built in
 * struct ktrace_bpf_wide.
 */
#define KTRACE_BPF_WIDE_MAX_WORDS	KTRACE_FXT_KOBJ_THREAD_WIDE_MAX_WORDS

/*
 * Buffers are made of 4 KiB chunks, one map element each, so a writer looks
 * its chunk up once; records never straddle two.  A writer that finds no
 * room closes the chunk with this word (never a record header: a large
 * record of type 15 with every bit set) and goes on in the next one.
 */
#define KTRACE_BPF_CHUNK_WORDS	512
#define KTRACE_BPF_PAD		(~0ULL)

struct ktrace_bpf_chunk {
	__u64 w[KTRACE_BPF_CHUNK_WORDS];
};

/*
 * One buffer's control block.  The blocks of all buffers (one per CPU for
 * the scheduler, then one per CPU for probes) form an mmapable array map
 * shared with user space; the buffers themselves are another mmapable
 * array of words, buffer after buffer, each a power of two long.
 *
 * Writers (BPF programs on that CPU, possibly nested by interrupts) reserve
 * space by advancing @head, with a plain store when nothing can interrupt
 * them and a compare-and-swap otherwise, write the record's words, and
 * publish it by storing its header word last.  The reader
 * consumes committed records from @tail (a zero header is not committed
 * yet), zeroes them, and advances @tail.  head - tail never exceeds the
 * buffer: a record that does not fit is lost and counted in @pending.
 * In ring mode writers ignore @tail and write over the oldest chunks; the
 * reader reads once, at the end, from the first whole chunk of the last
 * buffer's worth before @head.
 */
struct ktrace_bpf_ctl {
	/* Written by the BPF programs: one cache line. */
	__u64 head;		/* bytes reserved */
	__u64 pending;		/* lost, not yet reported by a loss record */
	__u64 reported;		/* lost and reported by a loss record */
	__u64 first_ts;		/* time range of the pending loss */
	__u64 last_ts;
	__u64 pad0[3];
	/* Written by the reader. */
	__u64 tail;		/* bytes consumed */
	__u64 pad1[7];
};

/*
 * The latency trigger's state, in .bss: user space reads it.  The first
 * switch-in past the threshold wins @fired, fills the rest, and stores
 * @stop_at last; every writer drops what comes after @stop_at.  `ktrace
 * watch` re-arms it once it has read the window: @armed_at first (a wait
 * whose wakeup came before it cannot fire: the window has no record of
 * it), then @stop_at and @fired back to 0.
 */
struct ktrace_bpf_trigger {
	__u64 fired;
	__u64 ts;		/* the switch-in that ended the wait */
	__u64 latency;		/* ns, to 1 us */
	__u32 tid;
	__u32 cpu;
	__u64 stop_at;		/* 0 until fired */
	__u64 armed_at;		/* waits that woke before it do not fire */
};

/*
 * The recording's span, in .bss: records are written only from @start to
 * @stop.  Attaching and detaching take the programs up and down one by
 * one, milliseconds apart, so user space sets @start once every program
 * is attached and @stop before it detaches any: every kind of record then
 * begins and ends at the same instant on every CPU.
 */
struct ktrace_bpf_span {
	__u64 start;		/* 0 until every program is attached */
	__u64 stop;		/* 0 until the recording stops */
};

#endif
