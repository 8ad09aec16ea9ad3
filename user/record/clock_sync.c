// SPDX-License-Identifier: GPL-2.0
/*
 * Clock sync: sync points written while recording, found in traces and
 * ftrace markers, and the offset between the two clocks they give.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/utils.h"
#include "record/clock_sync.h"

bool clock_sync_marker(const char *text, uint64_t ts, struct sync_point *p)
{
	const char *id = strstr(text, SYNC_PREFIX);
	size_t n;

	if (!id)
		return false;
	id += strlen(SYNC_PREFIX);
	n = strcspn(id, " \t\r\n");
	if (!n || n >= sizeof(p->id))
		return false;
	memcpy(p->id, id, n);
	p->id[n] = 0;
	p->ts = ts;
	p->half = 0;
	return true;
}

int clock_sync_init(struct clock_sync *cs)
{
	static const char *const markers[] = {
		"/sys/kernel/tracing/trace_marker", "/sys/kernel/debug/tracing/trace_marker",
	};

	/* The spool is given with each point. */
	cs->w = spool_writer_new(NULL);
	if (!cs->w)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(markers) && cs->marker_fd < 0; i++)
		cs->marker_fd = open(markers[i], O_WRONLY | O_CLOEXEC);
	return 0;
}

void clock_sync_free(struct clock_sync *cs)
{
	spool_writer_free(cs->w);
	cs->w = NULL;
	if (cs->marker_fd >= 0)
		close(cs->marker_fd);
}

void clock_sync_point(struct clock_sync *cs, struct spool *sp)
{
	char id[48], line[96];
	struct fxt_arg args[2];
	uint64_t t1, t2;
	int len;

	snprintf(id, sizeof(id), "ktrace-%d-%u", getpid(), cs->n);
	len = snprintf(line, sizeof(line), "trace_event_clock_sync: name=%s\n", id);
	t1 = now_mono_ns();
	/* EBADF: tracing is off, so no ftrace capture runs that could use it. */
	if (cs->marker_fd >= 0 && write(cs->marker_fd, line, len) != len && errno != EBADF)
		pr_warn("cannot write a clock sync marker to trace_marker: %s", strerror(errno));
	if (cs->marker && cs->marker(cs->marker_ctx, id))
		pr_warn("--ftrace: cannot write a clock sync marker into the instance");
	t2 = now_mono_ns();
	if (cs->n < ARRAY_SIZE(cs->points)) {
		snprintf(cs->points[cs->n].id, sizeof(cs->points[cs->n].id), "%s", id);
		cs->points[cs->n].ts = t1 + (t2 - t1) / 2;
		cs->points[cs->n].half = (t2 - t1) / 2;
	}
	cs->n++;
	args[0] = fxt_arg_str("sync_id", id);
	args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "issue_ts", t1);
	cs->w->sink_ctx = sp;
	fxt_write_event(cs->w, KTRACE_FXT_EV_INSTANT, t1 + (t2 - t1) / 2, getpid(), gettid(),
			"ktrace:clock", "clock_sync", args, 2, 0);
}

int sync_point_add(struct sync_points *sp, const struct fxt_reader *r,
		   const struct fxt_record *rec)
{
	const struct fxt_arg *id, *issue;
	struct sync_point *m;

	if (rec->type != KTRACE_FXT_REC_EVENT || !fxt_str_eq(rec->cat, "ktrace:clock") ||
	    !fxt_str_eq(rec->name, "clock_sync"))
		return 0;
	id = fxt_find_arg(rec, "sync_id");
	if (!id || id->type != KTRACE_FXT_ARG_STRING || id->s.len >= sizeof(m->id))
		return 0;
	if (sp->n == sp->cap) {
		unsigned int cap = sp->cap ? sp->cap * 2 : 8;

		m = realloc(sp->p, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		sp->p = m;
		sp->cap = cap;
	}
	m = &sp->p[sp->n++];
	memcpy(m->id, id->s.p, id->s.len);
	m->id[id->s.len] = 0;
	m->ts = fxt_ticks_to_ns(r, rec->ts);
	/* The event is stamped in the middle of the write, issued at issue_ts. */
	issue = fxt_find_arg(rec, "issue_ts");
	m->half = issue && issue->type == KTRACE_FXT_ARG_UINT64 && issue->u <= m->ts &&
		  m->ts - issue->u < 1000000000 ? m->ts - issue->u : 0;
	return 0;
}

int clock_offset(const struct sync_point *rec, unsigned int nrec,
		 const struct sync_point *ft, unsigned int nft, int64_t *offset,
		 int64_t *residual, unsigned int *matched)
{
	__int128 lo = 0, hi = 0, d, h, mid;
	unsigned int m = 0;

	for (unsigned int i = 0; i < nrec; i++)
		for (unsigned int j = 0; j < nft; j++) {
			if (strcmp(rec[i].id, ft[j].id))
				continue;
			d = (int64_t)(rec[i].ts - ft[j].ts);
			h = rec[i].half < INT32_MAX ? rec[i].half : INT32_MAX;
			if (!m || d - h > lo)
				lo = d - h;
			if (!m || d + h < hi)
				hi = d + h;
			m++;
		}
	*matched = m;
	if (!m)
		return -ENOENT;
	/* lo..hi: where all windows overlap; if lo > hi, the gap between them. */
	mid = lo + (hi - lo) / 2;
	*offset = mid < INT64_MIN ? INT64_MIN : mid > INT64_MAX ? INT64_MAX : (int64_t)mid;
	mid = lo > hi ? (lo - hi + 1) / 2 : 0;
	*residual = mid > INT64_MAX ? INT64_MAX : (int64_t)mid;
	return 0;
}
