/* SPDX-License-Identifier: GPL-2.0 */
/* Spools: a recorder's records kept in temporary files, merged by time at the end. */
#ifndef KTRACE_SPOOL_H
#define KTRACE_SPOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fxt/fxt_writer.h"

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
	uint64_t last_ts;	/* of the last record with a time */
	uint64_t exit_tid, exit_ts;	/* the last switch-out of an exiting thread */
	/* Where the kernel object records (names) are, and the time of each. */
	struct spool_kobj {
		uint64_t offset, ts;
	} *kobjs;
	uint32_t nkobjs, cap_kobjs;
};

int spool_open(struct spool *s);
void spool_close(struct spool *s);
/* Append one recorder record of @bytes; checks its framing first. */
int spool_add(struct spool *s, const void *rec, size_t bytes);
/* Appends @nwords of whole records at once; -EINVAL, and nothing, if one is not. */
int spool_add_run(struct spool *s, const uint64_t *w, size_t nwords);
/*
 * A writer whose every record goes straight into @s (or the spool its
 * sink_ctx is set to later), strings inline; write errors in w->sink_err.
 */
struct fxt_writer *spool_writer_new(struct spool *s);
void spool_writer_free(struct fxt_writer *w);
/*
 * Calls @fn on each kernel object record (a name) of @s, with its time:
 * for the name the recorders write after an exiting thread's last switch,
 * that switch's; for any other, that of the last record before it that had
 * one (0 before any); moved by the spool's offset.  Stops at @fn's first
 * non-zero return, and gives it.
 */
int spool_for_each_kobj(struct spool *s, int (*fn)(void *ctx, const uint64_t *rec,
						   uint32_t words, uint64_t ts), void *ctx);
/* Records timed before @from (0: none) are left out; names and strings are kept. */
int merge_spools(struct spool *spools, unsigned int n, struct fxt_writer *w, uint64_t from);

#endif
