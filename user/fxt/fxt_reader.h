/* SPDX-License-Identifier: GPL-2.0 */
/* Streaming FXT reader: one decoded record at a time, with every spec check. */
#ifndef KTRACE_FXT_READER_H
#define KTRACE_FXT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/ktrace_fxt.h>

#include "fxt/fxt_compact.h"
#include "lib/u64map.h"

struct fxt_str {
	const char *p;
	uint32_t len;
};

struct fxt_arg {
	unsigned int type;
	struct fxt_str name;
	union {
		int64_t i;		/* INT32, INT64 */
		uint64_t u;		/* UINT32, UINT64, POINTER, KOID, BOOL */
		double d;		/* DOUBLE */
		struct fxt_str s;	/* STRING */
	};
};

/*
 * A decoded record.  Strings and payloads point into the reader's buffer
 * or string table and stay valid until the next fxt_reader_next().
 */
struct fxt_record {
	uint64_t offset;		/* byte offset in the input */
	const uint64_t *w;		/* the raw words */
	uint32_t nwords;
	unsigned int type;		/* enum ktrace_fxt_record_type */
	unsigned int sub;		/* metadata, event, sched or large type */

	uint64_t ts;			/* event, sched, log, large blob: ticks */
	uint64_t pid, tid;		/* event, log, large blob, wakeup (tid) */
	struct fxt_str cat, name;	/* event; name also for kobj, blob, provider */
	unsigned int nargs;
	struct fxt_arg args[KTRACE_FXT_MAX_ARGS];
	uint64_t extra;			/* counter id, end ticks or correlation id */

	/* context switch (both layouts) and wakeup */
	unsigned int cpu, out_state, out_prio, in_prio;
	uint64_t out_pid, out_tid, in_pid, in_tid;

	unsigned int obj_type;		/* kernel object */
	uint64_t koid;			/* kernel object */
	uint32_t provider;		/* provider info/section/event */
	unsigned int meta_event;	/* provider event */
	uint64_t ticks_per_sec;		/* initialization */
	uint32_t index;			/* string and thread records */
	struct fxt_str msg;		/* log message, string record value */
	const void *payload;		/* blob */
	uint64_t payload_len;
	unsigned int blob_type;
};

/* What went wrong, and where. */
struct fxt_error {
	uint64_t offset;		/* of the record */
	char field[48];			/* which field */
	char msg[160];
};

struct fxt_provider;

struct fxt_reader {
	int fd;				/* -1 for an in-memory input */
	const char *path;
	uint8_t *buf;
	size_t cap, len, pos;
	uint64_t base;			/* input offset of buf[0] */
	bool eof, own_buf;

	struct fxt_provider *providers, *cur;
	uint64_t ticks_per_sec;
	bool seen_magic;

	/* A spec violation: counted, reported through @on_violation. */
	uint64_t violations;
	uint64_t skipped;		/* records dropped as unreadable */
	struct fxt_error first;		/* the first violation */
	void (*on_violation)(void *ctx, const struct fxt_error *e);
	void *ctx;

	struct fxt_error fatal;		/* why reading stopped early */
	uint64_t records;
	/*
	 * Record types (1 << type) returned framed only (type, offset and raw
	 * words), for a pass that does not need them: neither decoded nor checked.
	 */
	uint32_t undecoded;
	/* Stop at once (fatal) when the input does not start with the magic. */
	bool require_magic;

	/*
	 * A compact archive (fxt_compact.h): its records are given back as
	 * the recorders wrote them, with what they leave out as arguments;
	 * @wake holds the wakeup values to restore, by tid through @wake_map,
	 * @current the thread each CPU runs.
	 */
	bool compact;
	struct fxt_compact_current current;
	struct u64map wake_map;
	struct fxt_wake_state *wake;
	uint32_t nwake, cap_wake;
};

/* Read from a file descriptor (streaming) or from memory (no copy). */
int fxt_reader_open_fd(struct fxt_reader *r, int fd, const char *path);
void fxt_reader_open_mem(struct fxt_reader *r, const void *data, size_t len);
void fxt_reader_close(struct fxt_reader *r);

/*
 * Decode the next record: 1 when @rec is filled, 0 at a clean end of input,
 * -EINVAL (or -errno from read()) when reading cannot go on; r->fatal says
 * why and where.  A record that breaks the spec but can be framed is
 * reported as a violation and either returned (with the offending field
 * best-effort) or skipped and counted in r->skipped.
 */
int fxt_reader_next(struct fxt_reader *r, struct fxt_record *rec);

/*
 * Decode one whole record of @nwords words at @w, as if read next: the
 * string and thread tables it defines are kept for later records, and
 * rec->offset counts the words decoded so far.  A reader opened with
 * fxt_reader_open_mem(r, NULL, 0) follows a stream being written this way.
 * 1 when @rec is filled, 0 when the record breaks the spec and is skipped,
 * -EINVAL when @nwords is not the header's size, -ENOMEM.
 */
int fxt_reader_decode(struct fxt_reader *r, const uint64_t *w, uint32_t nwords,
		      struct fxt_record *rec);

/*
 * The strings every ktrace archive's preamble defines (ktrace_fxt_well_known),
 * for a reader of records written to be read after one: a recorder's spool.
 */
void fxt_reader_learn_well_known(struct fxt_reader *r);

/*
 * Whether the file @fd starts as FXT does; reports what it is instead (JSON,
 * empty, anything else) and returns -EINVAL.  0 for a pipe, which cannot be
 * peeked at: the reader reports a missing magic as it reads.
 */
int fxt_check_start(int fd, const char *path);

/* Ticks to nanoseconds with the current initialization record. */
uint64_t fxt_ticks_to_ns(const struct fxt_reader *r, uint64_t ticks);
/* And back: nanoseconds into the trace's ticks. */
uint64_t fxt_ns_to_ticks(const struct fxt_reader *r, uint64_t ns);

const char *fxt_record_type_name(unsigned int type);
const char *fxt_event_type_name(unsigned int type);
const char *fxt_arg_type_name(unsigned int type);
const char *fxt_thread_state_name(unsigned int state);
const struct fxt_arg *fxt_find_arg(const struct fxt_record *rec, const char *name);
/* The unsigned or koid argument @name, or @dflt when there is none of those types. */
uint64_t fxt_arg_u64(const struct fxt_record *rec, const char *name, uint64_t dflt);
/* String argument @a into @dst (@size > 0), cut to fit; @dst is left alone if @a is no string. */
void fxt_arg_copy_str(char *dst, size_t size, const struct fxt_arg *a);
bool fxt_str_eq(struct fxt_str s, const char *lit);

#endif
