/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The latency analysis and the critical path over one trace: pass 1 builds
 * the index; pass 2 decodes each record once and hands it to the wait
 * model (the latency analysis), then, with what the wait model made of it,
 * to the critical path.  The command and the fuzzers read through this.
 */
#ifndef KTRACE_LATENCY_RUN_H
#define KTRACE_LATENCY_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/critical_path.h"
#include "analyze/latency.h"
#include "fxt/fxt_reader.h"

struct lat_run {
	struct lat_analysis *a;
	struct cp_analysis *cp;	/* NULL: no critical path */
};

/* One record of pass 1 (@first) or pass 2. */
void lat_run_record(const struct lat_run *run, bool first, const struct fxt_reader *r,
		    const struct fxt_record *rec);
/* Between the passes, and after the second. */
void lat_run_scan_done(const struct lat_run *run);
void lat_run_done(const struct lat_run *run);
/* Both passes over a trace in memory, read to its first fatal error. */
void lat_run_mem(const struct lat_run *run, const void *buf, size_t len);

#endif
