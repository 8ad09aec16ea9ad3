/* SPDX-License-Identifier: GPL-2.0 */
/* FXT records to Chrome trace-event JSON (object format), streaming. */
#ifndef KTRACE_JSON_WRITER_H
#define KTRACE_JSON_WRITER_H

#include <stdint.h>

#include "fxt/fxt_reader.h"
#include "lib/utils.h"

/* CPU tracks live in a synthetic process: pid JSON_CPU_PID, tid JSON_CPU_PID + cpu. */
#define JSON_CPU_PID	1000000000ULL

struct json_writer;

struct json_writer *json_writer_new(struct obuf *out);
/* Feed one record (in time order for scheduling records). */
void json_writer_record(struct json_writer *j, const struct fxt_reader *r,
			const struct fxt_record *rec);
/* Close open slices, write otherData and the closing brace. */
void json_writer_finish(struct json_writer *j, const char *embedded_ftrace);
void json_writer_free(struct json_writer *j);

/*
 * Convert a whole FXT stream, with @embedded_ftrace (or NULL) as
 * systemTraceEvents; returns 0, or -EINVAL when the input was bad.
 */
int json_convert(struct fxt_reader *r, struct obuf *out, const char *embedded_ftrace);

/* The FXT archive in @fxt_fd (read from its start) as JSON into @out_fd. */
int json_convert_fd(int fxt_fd, int out_fd, const char *embedded_ftrace, uint64_t *bytes);

#endif
