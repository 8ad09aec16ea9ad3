/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace written back with an analysis's findings in it: the input again,
 * record for record, with the analysis's events placed in time order, so
 * that Perfetto or chrome://tracing shows them on the timeline.
 */
#ifndef KTRACE_ANNOTATE_H
#define KTRACE_ANNOTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/latency.h"
#include "cli/cli.h"
#include "fxt/fxt_reader.h"
#include "fxt/fxt_writer.h"
#include "lib/utils.h"

/* The events an analysis adds, sorted by time. */
struct annotation {
	uint32_t n;
	void *ctx;
	uint64_t (*ts)(void *ctx, uint32_t i);		/* event @i's time in ns */
	/* Writes event @i; @scratch is an empty memory buffer for its text. */
	void (*write)(void *ctx, struct fxt_writer *w, const struct fxt_reader *r, uint32_t i,
		      struct obuf *scratch);
};

/*
 * @in written to @out_path (FXT, or JSON with @json) with @an's events,
 * beside @out_path and renamed only when complete; 0 or -errno, reported.
 */
int trace_annotate(struct cli_input *in, const char *out_path, bool json,
		   const struct annotation *an);

/* The latency analysis's worst waits, each as a ktrace:latency slice on its thread. */
int lat_annotate(struct lat_analysis *a, struct cli_input *in, const char *out_path, bool json);

#endif
