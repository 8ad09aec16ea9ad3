/* SPDX-License-Identifier: GPL-2.0 */
/* Live ftrace capture from a private tracefs instance (user/source_tracefs.c). */
#ifndef KTRACE_FTRACE_CAPTURE_H
#define KTRACE_FTRACE_CAPTURE_H

#include <stdbool.h>

#include "ftrace_import.h"

struct tracefs_instance;
struct tep_handle;

struct ftrace_capture {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct ftrace_conv conv;	/* events and sync markers into spools */
	bool mono;			/* trace_clock is mono */
	bool ring;			/* read only at the end */
	int err;
};

/*
 * @spec: comma-separated SYSTEM:EVENT globs.  Errors name the spec.  Events
 * go to the @n spools at @sp, one per CPU; ftrace's buffers get the
 * recorder's size per CPU, and its ring mode.  Stopping writes what ftrace
 * lost as loss records.
 */
int ftrace_capture_open(struct ftrace_capture *fc, const char *spec, struct spool *sp,
			unsigned int n, const struct record_opts *ro);
int ftrace_capture_start(struct ftrace_capture *fc);
int ftrace_capture_marker(struct ftrace_capture *fc, const char *id);
int ftrace_capture_poll(struct ftrace_capture *fc);
int ftrace_capture_stop(struct ftrace_capture *fc);
void ftrace_capture_close(struct ftrace_capture *fc);

#endif
