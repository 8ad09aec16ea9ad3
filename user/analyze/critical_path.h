/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The critical path of a thread's waits: who woke it, what that thread did
 * meanwhile, and so on back until the wait is covered.
 */
#ifndef KTRACE_CRITICAL_PATH_H
#define KTRACE_CRITICAL_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/latency.h"
#include "cli/cli.h"
#include "fxt/fxt_reader.h"
#include "lib/utils.h"

struct cp_opts {
	int64_t tid;		/* -1: any thread lat_selects() takes */
	uint64_t at;		/* ns; 0: the worst waits, else the wait that holds it */
	uint32_t top;		/* how many of the worst waits */
};

struct cp_analysis;

/*
 * Beside latency analysis @a, in its pass 2: its names, thread filter,
 * losses and CPU history serve here too.  Each record comes decoded, with
 * what @a's wait model made of a wakeup (latency_run.c hands both over).
 */
struct cp_analysis *cp_new(struct lat_analysis *a, const struct cp_opts *o);
void cp_free(struct cp_analysis *cp);
void cp_event(struct cp_analysis *cp, const struct sched_event *ev,
	      const struct lat_transition *tr);
void cp_done(struct cp_analysis *cp);

/* How many waits the analysis explains (after cp_done()). */
uint32_t cp_count(const struct cp_analysis *cp);
void cp_report_text(struct cp_analysis *cp, struct obuf *o, const char *path);
void cp_report_json(struct cp_analysis *cp, struct obuf *o, const char *path);
/* The input again with a ktrace:critical_path slice per hop and flows between them. */
int cp_annotate(struct cp_analysis *cp, struct cli_input *in, const char *out_path, bool json);

#endif
