/* SPDX-License-Identifier: GPL-2.0 */
/* How close a recorder's reader came to falling behind its writers (said with -v). */
#ifndef KTRACE_DRAIN_STATS_H
#define KTRACE_DRAIN_STATS_H

#include <stdint.h>

/*
 * Gathered by a backend's poll: how often it drained, the longest time
 * between two passes, and the most any one buffer held unread at the
 * start of a pass.  A buffer that nears its size before a pass is where
 * records will be dropped under more load.
 */
struct drain_stats {
	uint64_t passes;
	uint64_t last_pass;	/* CLOCK_MONOTONIC ns */
	uint64_t max_gap;	/* ns between the starts of two passes */
	uint64_t peak;		/* bytes unread at a pass's start, the most seen */
	unsigned int peak_buf;	/* in which buffer */
};

/* At the start of each pass. */
void drain_stats_pass(struct drain_stats *d);
/* Buffer @buf held @unread bytes not yet read at the start of this pass. */
static inline void drain_stats_fill(struct drain_stats *d, unsigned int buf, uint64_t unread)
{
	if (unread > d->peak) {
		d->peak = unread;
		d->peak_buf = buf;
	}
}
/* One line to stderr; @size: bytes per buffer; @ncpus: buffers per set (above: -p's), > 0. */
void drain_stats_report(const struct drain_stats *d, const char *backend, uint64_t size,
			unsigned int ncpus);

#endif
