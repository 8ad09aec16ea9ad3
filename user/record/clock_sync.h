/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Clock sync between the recorder's clock (CLOCK_MONOTONIC) and ftrace's:
 * the sync points ktrace writes on both sides, the ones it finds in a trace
 * or an ftrace dump, and the offset and residual between the two clocks.
 */
#ifndef KTRACE_CLOCK_SYNC_H
#define KTRACE_CLOCK_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "fxt/fxt_reader.h"
#include "fxt/fxt_writer.h"
#include "record/spool.h"

/* What ktrace writes into trace_marker, followed by the sync id. */
#define SYNC_PREFIX	"trace_event_clock_sync: name="

struct sync_point {
	char id[64];
	uint64_t ts;
	/*
	 * On the recorder's side, half the time the marker write took: ftrace
	 * stamped the marker within ts +- half.  0 when not known.
	 */
	uint64_t half;
};

struct sync_points {
	struct sync_point *p;
	unsigned int n, cap;
};

/* Keeps @rec if it is a recorder-side sync point (a clock_sync event). */
int sync_point_add(struct sync_points *sp, const struct fxt_reader *r,
		   const struct fxt_record *rec);

/*
 * Offset to add to ftrace timestamps, from the sync ids found on both
 * sides.  Each marker puts the offset within its write window; the offset
 * is the middle of where all windows agree.  *@residual says by how much
 * they fail to: the largest distance from the offset to a marker's window
 * (0 when they all overlap), which a stall while writing a marker does not
 * move, as it widens that marker's window.  -ENOENT when no id is common.
 */
int clock_offset(const struct sync_point *rec, unsigned int nrec,
		 const struct sync_point *ft, unsigned int nft, int64_t *offset,
		 int64_t *residual, unsigned int *matched);


/* The sync point in an ftrace marker's @text at @ts, if it is one of ktrace's. */
bool clock_sync_marker(const char *text, uint64_t ts, struct sync_point *p);

/*
 * Writing sync points while recording: each is a clock_sync event (category
 * ktrace:clock, with sync_id and issue_ts) in the trace and, when tracefs is
 * there, `trace_event_clock_sync: name=ID` in the top-level trace_marker
 * and through @marker (an ftrace instance's), so ftrace text captured
 * meanwhile can be aligned, by ktrace merge or by catapult's viewer.
 */
struct clock_sync {
	struct fxt_writer *w;
	int marker_fd;
	int (*marker)(void *ctx, const char *id);	/* NULL, or one more marker */
	void *marker_ctx;
	struct sync_point points[2];	/* start and stop, on the recorder's clock */
	unsigned int n;
};

int clock_sync_init(struct clock_sync *cs);
void clock_sync_free(struct clock_sync *cs);
/* Writes the next sync point, its event into @sp. */
void clock_sync_point(struct clock_sync *cs, struct spool *sp);

#endif
