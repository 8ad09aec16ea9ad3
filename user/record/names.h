/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread names for the archive: every thread its scheduling records use is
 * named, before its first use, by the name it had closest to that use.
 */
#ifndef KTRACE_NAMES_H
#define KTRACE_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "fxt/fxt_reader.h"
#include "lib/u64map.h"
#include "record/spool.h"

/*
 * One thread record as recorded: its tid, process, name, and when; its
 * words (with whatever else it says of the thread: allowed CPUs, cgroup)
 * at @woff in the words kept.
 */
struct name_entry {
	uint64_t tid, pid, ts;
	uint64_t cgroup_id;		/* 0: not given */
	uint32_t seq;			/* recording order, among equal times */
	uint32_t woff, nwords;
	uint8_t len;
	char name[KTRACE_FXT_COMM_LEN + 1];
};

/* A thread's entries, and the name the archive gives it so far. */
struct name_thread {
	uint32_t first, n;		/* its entries, sorted by time */
	uint64_t pid;			/* of the name in effect */
	uint8_t len;
	bool named;			/* a thread record for it is in the archive */
	bool counted;			/* counted as unnamed */
	char name[KTRACE_FXT_COMM_LEN + 1];
};

struct archive_names {
	struct name_entry *entries;
	uint32_t nentries, cap_entries;
	uint64_t *words;		/* the entries' records */
	uint32_t nwords, cap_words;
	struct name_thread *threads;
	uint32_t nthreads, cap_threads;
	struct u64map map;		/* tid -> threads[] */
	uint64_t from;			/* a ring's window starts here (0: no ring) */
	uint64_t unnamed;		/* threads that ran with no name anywhere */
	bool sorted;
};

/*
 * Collects every thread record in @spools (a record without a time takes
 * the time of its spool's last timed record before it); records of a ring
 * older than @from are stale, used only when nothing else names a thread.
 */
int archive_names_scan(struct archive_names *an, struct spool *spools, unsigned int n,
		       uint64_t from);
/*
 * A thread record on its way into the archive: its name is in effect from
 * now on.  @at_end: it names a thread alive when recording ended.
 */
void archive_names_written(struct archive_names *an, const struct fxt_record *rec, bool at_end);
/*
 * Before a record that uses @tid at @ts: the thread record with the name
 * it had closest to @ts, as recorded (@thread, @nthread words), and for a
 * main thread a process record of that name (into @proc, @nproc words,
 * KTRACE_FXT_KOBJ_PROCESS_MAX_WORDS at most); false when the name in
 * effect is already that one.  @ran: @tid ran there (a thread with no name
 * anywhere is counted once).
 */
bool archive_names_use(struct archive_names *an, uint64_t tid, uint64_t ts, bool ran,
		       const uint64_t **thread, uint32_t *nthread, __u64 *proc, uint32_t *nproc);
void archive_names_free(struct archive_names *an);

#endif
