/* SPDX-License-Identifier: GPL-2.0 */
/* What `ktrace record` shares between its recorders, spools and output. */
#ifndef KTRACE_RECORD_H
#define KTRACE_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fxt_writer.h"

/*
 * A spool holds one CPU's records while recording, as they came, in a
 * temporary file: memory stays flat however long the session.
 * merge_spools() writes them to an archive in time order.  Records may come
 * out of order (a wakeup in an interrupt between another event's clock read
 * and its reservation, ftrace CPUs read at different times, a complete event
 * written when it ends): the spool notes by how much at most, and the merge
 * holds back that much of it to put them in order.
 */
struct spool {
	FILE *f;
	int64_t offset;		/* added to this spool's event times when merged */
	uint64_t records, bytes;
	uint64_t rejected;	/* malformed records from the recorder */
	uint64_t max_ts;	/* the latest event time so far */
	uint64_t min_ts;	/* the earliest, once timed_records > 0 */
	uint64_t timed_records;
	bool wrapped;		/* a ring wrote over older records: they start late */
	uint64_t disorder;	/* the most an event came before max_ts, ns */
};

int spool_open(struct spool *s);
void spool_close(struct spool *s);
/* Append one recorder record of @bytes; checks its framing first. */
int spool_add(struct spool *s, const void *rec, size_t bytes);
/* Appends @nwords of whole records at once; -EINVAL, and nothing, if one is not. */
int spool_add_run(struct spool *s, const uint64_t *w, size_t nwords);
/* Moves the records encoded in memory buffer @o into @s, emptying @o. */
int spool_add_encoded(struct spool *s, struct obuf *o);
/* Records timed before @from (0: none) are left out; names and strings are kept. */
int merge_spools(struct spool *spools, unsigned int n, struct fxt_writer *w, uint64_t from);

/* Names of every process and thread alive now, as kernel object records. */
int statedump_write(struct fxt_writer *w, uint64_t *threads);

struct probe_spec {
	bool duration;		/* duration:SYMBOL, else kprobe:SYMBOL */
	char symbol[128];
};

struct record_opts {
	uint64_t buffer_size;	/* per CPU, bytes */
	struct probe_spec probes[64];
	unsigned int nprobes;
	bool ring;		/* flight recorder: keep the newest data */
	bool verbose;
	/* --stop-on-latency: stop after_ns after a wakeup latency of trigger_ns */
	uint64_t trigger_ns, after_ns;
	uint32_t trigger_pid;	/* --pid: its tid or tgid; 0 any */
	char trigger_comm[16];	/* --comm; empty: any */
};

/* The wait that fired the latency trigger, and when recording stops. */
struct trigger_report {
	uint64_t ts, latency, stop_at;
	uint32_t tid, cpu;
};

struct record_stats {
	uint64_t records, bytes;
	uint64_t dropped;	/* lost in the recorder's buffers */
	uint64_t rejected;	/* malformed, not written */
};

/* A recorder backend: start, poll into spools, stop and drain. */
struct source_ops {
	const char *name;
	bool statedump_in_kernel;	/* names every live task itself */
	int (*open)(void **priv, const struct record_opts *o, struct spool *spools,
		    unsigned int nspools);
	int (*start)(void *priv);
	int (*poll)(void *priv, int timeout_ms);
	/* Stop recording, drain everything, write final loss records. */
	int (*stop)(void *priv, struct record_stats *st);
	/* 1 and @t once the latency trigger fired, 0 before, -errno on error. */
	int (*trigger)(void *priv, struct trigger_report *t);
	void (*close)(void *priv);
};

extern const struct source_ops source_bpf_ops;
extern const struct source_ops source_kmod_ops;

#define KTRACE_DEVICE	"/dev/ktrace"

/* Check that a backend can run here; 0, or -errno with @why set. */
int source_bpf_probe(char *why, size_t len);
/* The BPF recorder built to read interrupt wakers from the preempt count. */
const void *bpf_exact_elf(size_t *size);
int source_kmod_probe(char *why, size_t len);

#endif
