/* SPDX-License-Identifier: GPL-2.0 */
/* FXT archive writer: preamble, interned strings, kernel objects and events. */
#ifndef KTRACE_FXT_WRITER_H
#define KTRACE_FXT_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "fxt/fxt_reader.h"
#include "lib/utils.h"

struct fxt_intern {
	uint64_t hash;
	char *s;
	uint32_t len;
	uint16_t index;
};

struct fxt_writer {
	struct obuf out;
	struct fxt_intern *tab;		/* open addressing, power-of-two size */
	uint32_t tab_size, tab_used;
	uint32_t next_index;
	bool inline_strings;		/* write every string inline */
	uint64_t records;
	/*
	 * When set, each record goes to @sink as it is written instead of to
	 * @out: ktrace record writes straight into its spools this way.  Large
	 * BLOB records go to @out whatever the sink.
	 */
	int (*sink)(void *ctx, const void *words, uint32_t n);
	void *sink_ctx;
	int sink_err;			/* the first error @sink returned */
	uint64_t scratch[KTRACE_FXT_MAX_RECORD_WORDS];
};

/* Write to @fd (or to memory when @fd is -1: w->out.buf holds the bytes). */
int fxt_writer_init(struct fxt_writer *w, int fd);
/* Flush and free; returns 0 or the first -errno of a failed write. */
int fxt_writer_finish(struct fxt_writer *w);

/* Magic, provider info, initialization (1e9 ticks/s), well-known strings. */
void fxt_write_preamble(struct fxt_writer *w, uint32_t provider, const char *provider_name);
/* Records already encoded (by a recorder or the shared encoders). */
void fxt_write_words(struct fxt_writer *w, const void *words, uint32_t n);

/*
 * String ref for @s: an index (writing its string record the first time),
 * or an inline ref once the table is full or inline_strings is set.
 */
uint16_t fxt_string_ref(struct fxt_writer *w, const char *s, uint32_t len);

/* A string record at a fixed index (recorder-assigned strings). */
void fxt_write_string(struct fxt_writer *w, uint16_t index, const char *s);
void fxt_write_provider_section(struct fxt_writer *w, uint32_t provider);
void fxt_write_provider_event(struct fxt_writer *w, uint32_t provider, unsigned int event);
void fxt_write_thread(struct fxt_writer *w, unsigned int index, uint64_t pid, uint64_t tid);

/*
 * An event record on an inline thread.  @extra is the counter id, end
 * ticks or correlation id, as the event type needs.  @args name and string
 * values are interned like @cat and @name.
 */
void fxt_write_event(struct fxt_writer *w, unsigned int type, uint64_t ts, uint64_t pid,
		     uint64_t tid, const char *cat, const char *name,
		     const struct fxt_arg *args, unsigned int nargs, uint64_t extra);
/* The same with an indexed thread ref (a thread record written before). */
void fxt_write_event_tref(struct fxt_writer *w, unsigned int type, uint64_t ts,
			  unsigned int thread_ref, const char *cat, const char *name,
			  const struct fxt_arg *args, unsigned int nargs, uint64_t extra);

void fxt_write_kobj(struct fxt_writer *w, unsigned int obj_type, uint64_t koid,
		    const char *name, const struct fxt_arg *args, unsigned int nargs);
/*
 * The same with @nraw more arguments after @args, in @raw_words words that
 * the shared encoders wrote (indexed names must be well-known strings).
 */
void fxt_write_kobj_raw(struct fxt_writer *w, unsigned int obj_type, uint64_t koid,
			const char *name, const struct fxt_arg *args, unsigned int nargs,
			const void *raw, uint32_t raw_words, unsigned int nraw);
void fxt_write_log(struct fxt_writer *w, uint64_t ts, uint64_t pid, uint64_t tid,
		   const char *msg, uint32_t len);
void fxt_write_blob(struct fxt_writer *w, const char *name, unsigned int blob_type,
		    const void *data, uint32_t len);
void fxt_write_large_blob(struct fxt_writer *w, unsigned int format, const char *cat,
			  const char *name, uint64_t ts, uint64_t pid, uint64_t tid,
			  const struct fxt_arg *args, unsigned int nargs,
			  const void *data, uint64_t len);
/* The spec's context switch record with inline threads. */
void fxt_write_cswitch(struct fxt_writer *w, unsigned int cpu, unsigned int out_state,
		       uint64_t ts, uint64_t out_pid, uint64_t out_tid, unsigned int out_prio,
		       uint64_t in_pid, uint64_t in_tid, unsigned int in_prio);

/* Argument constructors for fxt_write_event() and friends. */
static inline struct fxt_arg fxt_arg_int(unsigned int type, const char *name, int64_t v)
{
	struct fxt_arg a = { .type = type, .name = { name, (uint32_t)__builtin_strlen(name) } };

	a.i = v;
	return a;
}

static inline struct fxt_arg fxt_arg_double(const char *name, double v)
{
	struct fxt_arg a = { .type = KTRACE_FXT_ARG_DOUBLE,
			     .name = { name, (uint32_t)__builtin_strlen(name) } };

	a.d = v;
	return a;
}

static inline struct fxt_arg fxt_arg_str(const char *name, const char *v)
{
	struct fxt_arg a = { .type = KTRACE_FXT_ARG_STRING,
			     .name = { name, (uint32_t)__builtin_strlen(name) } };

	a.s.p = v;
	a.s.len = __builtin_strlen(v);
	return a;
}

#endif
