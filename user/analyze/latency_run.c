// SPDX-License-Identifier: GPL-2.0
/* The latency analysis and the critical path over one trace (latency_run.h). */
#include "analyze/latency_run.h"
#include "trace/sched.h"

void lat_run_record(const struct lat_run *run, bool first, const struct fxt_reader *r,
		    const struct fxt_record *rec)
{
	struct lat_transition tr = { .waker_irq = -1 };
	struct sched_event ev;

	if (first) {
		lat_scan(run->a, r, rec);
		return;
	}
	if (!sched_decode(r, rec, &ev))
		return;
	lat_event(run->a, r, rec, &ev, run->cp ? &tr : NULL);
	if (run->cp)
		cp_event(run->cp, &ev, &tr);
}

void lat_run_scan_done(const struct lat_run *run)
{
	lat_scan_done(run->a);
}

void lat_run_done(const struct lat_run *run)
{
	lat_done(run->a);
	if (run->cp)
		cp_done(run->cp);
}

static void pass(const struct lat_run *run, bool first, const void *buf, size_t len)
{
	struct fxt_reader r;
	struct fxt_record rec;

	fxt_reader_open_mem(&r, buf, len);
	/* Pass 1 reads no scheduling record: it wants names, losses and metadata. */
	if (first)
		r.undecoded = 1U << KTRACE_FXT_REC_SCHED;
	while (fxt_reader_next(&r, &rec) == 1)
		lat_run_record(run, first, &r, &rec);
	fxt_reader_close(&r);
}

void lat_run_mem(const struct lat_run *run, const void *buf, size_t len)
{
	pass(run, true, buf, len);
	lat_run_scan_done(run);
	pass(run, false, buf, len);
	lat_run_done(run);
}
