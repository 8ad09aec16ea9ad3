/* SPDX-License-Identifier: GPL-2.0 */
/* ftrace events (live or from a text dump) as FXT records, with clock sync. */
#ifndef KTRACE_FTRACE_CONVERT_H
#define KTRACE_FTRACE_CONVERT_H

#include <stdint.h>

#include "fxt/fxt_reader.h"
#include "fxt/fxt_writer.h"
#include "record/clock_sync.h"
#include "record/record.h"

/* One ftrace event, whatever it came from. */
struct ftrace_event {
	uint64_t ts;			/* ns, in the ftrace clock */
	int cpu;
	int pid;
	const char *comm;
	const char *system;		/* "ftrace" when unknown (text dumps) */
	const char *name;
	struct fxt_arg args[KTRACE_FXT_MAX_ARGS];
	unsigned int nargs;
	const char *text;		/* the raw argument text, for markers */
};

/* Turns ftrace events into FXT records in a spool; keeps their sync markers. */
struct ftrace_conv {
	struct fxt_writer *w;		/* in memory, inline strings */
	struct spool *spools;		/* by CPU, modulo their number */
	unsigned int nspools;
	struct sync_point *markers;
	unsigned int nmarkers, markers_cap;
	uint64_t events, durations;
	uint64_t last_ts;		/* the latest event seen, ftrace clock */
	uint64_t lost;			/* events ftrace said it lost */
	uint64_t cpu_named[1024];	/* bitmap: CPUs whose interrupt track is named */
	bool irq_process_named;
	/*
	 * The recorder writes interrupt handlers' durations itself: ftrace's
	 * entries and exits stay instants on the same track, counted once.
	 */
	bool irq_instants;
};

/*
 * Each CPU's events keep their order (across CPUs, a live reader can get
 * them late), so @n spools, one per CPU, need no sorting.
 */
int ftrace_conv_init(struct ftrace_conv *c, struct spool *spools, unsigned int n);
void ftrace_conv_free(struct ftrace_conv *c);
int ftrace_conv_event(struct ftrace_conv *c, const struct ftrace_event *e);
/* @count events ftrace lost on @cpu: a loss record in that CPU's spool. */
int ftrace_conv_loss(struct ftrace_conv *c, int cpu, uint64_t count);



#endif
