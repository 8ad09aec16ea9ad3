// SPDX-License-Identifier: GPL-2.0
/*
 * CFS bandwidth throttling, as the trace records it: the cgroups by id
 * with their paths and CPU limits (the CLI's cgroup_limit records), and
 * the spans during which a cgroup was throttled on a CPU, found in the
 * first pass so that the causes (causes.c) of any wait can use them.
 *
 * A span starts at a "throttle" record, the switch-out of a thread that
 * left its CPU with its cgroup throttled there, and ends at the first of:
 * the cgroup's next "cfs_refill" (its bandwidth timer expired; the timer's
 * function unthrottles after that, never before) unless the "cfs_refill"
 * the function leaves ("after") says the CPU stayed throttled for want of
 * runtime, the next switch-in of that thread (it ran, so it was
 * unthrottled), the first records lost (a refill may be among them), or
 * the trace's end.  So a span never reaches past the cgroup's unthrottling
 * (save by a write to its cpu.max, which unthrottles at once and which no
 * record shows), and the analysis never claims more throttled time than
 * there was; the time from the refill to the unthrottling itself (an IPI
 * to the CPU) is not in it.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/latency_internal.h"

static bool is_sched_event(const struct fxt_record *rec, const char *name)
{
	return rec->type == KTRACE_FXT_REC_EVENT && rec->sub == KTRACE_FXT_EV_INSTANT &&
	       fxt_str_eq(rec->cat, "ktrace:sched") && fxt_str_eq(rec->name, name);
}

/* The cgroup with id @id, added (unnamed) if new. */
static uint32_t cglimit_of(struct lat_analysis *a, uint64_t id)
{
	struct lat_cglimit *l;

	for (uint32_t i = 0; i < a->ncglimits; i++)
		if (a->cglimits[i].id == id)
			return i;
	if (a->ncglimits == a->cap_cglimits) {
		a->cap_cglimits = a->cap_cglimits ? 2 * a->cap_cglimits : 8;
		a->cglimits = xrealloc(a->cglimits, a->cap_cglimits * sizeof(*a->cglimits),
				       "latency: cgroups throttled");
	}
	l = &a->cglimits[a->ncglimits];
	memset(l, 0, sizeof(*l));
	l->id = id;
	strcpy(l->cpu_max, "?");
	strcpy(l->cpu_max_end, "?");
	return a->ncglimits++;
}

/* cpu.max's "QUOTA PERIOD" as "QUOTA/PERIOD". */
static void copy_cpu_max(char *dst, size_t size, const struct fxt_arg *x)
{
	fxt_arg_copy_str(dst, size, x);
	for (char *p = dst; *p; p++)
		if (*p == ' ')
			*p = '/';
}

/* Ends the open spans that @match, at @ts; the open ones are few: CPUs times cgroups. */
static void end_spans(struct lat_analysis *a, uint64_t ts, bool (*match)(const struct lat_throttle *,
									  uint64_t), uint64_t key)
{
	for (uint32_t i = 0; i < a->nopen;) {
		struct lat_throttle *th = &a->throttles[a->open[i]];

		if (!match(th, key)) {
			i++;
			continue;
		}
		th->end = ts > th->start ? ts : th->start;
		th->open = false;
		a->open[i] = a->open[--a->nopen];
	}
}

static bool of_cgroup(const struct lat_throttle *th, uint64_t cg)
{
	return th->cg == cg;
}

static bool of_thread(const struct lat_throttle *th, uint64_t tid)
{
	return th->tid == tid;
}

static void open_span(struct lat_analysis *a, uint32_t i)
{
	if (a->nopen == a->cap_open) {
		a->cap_open = a->cap_open ? 2 * a->cap_open : 16;
		a->open = xrealloc(a->open, a->cap_open * sizeof(*a->open), "latency: throttled spans");
	}
	a->throttles[i].open = true;
	a->open[a->nopen++] = i;
}

#define REOPEN_LOOKBACK	1024	/* spans: more than CPUs times throttled cgroups */

/*
 * The refill that just ended cgroup @cg's spans left the CPUs in @cpus
 * throttled: their spans go on.  The spans it ended are among the newest.
 */
static void reopen(struct lat_analysis *a, uint32_t cg, uint64_t cpus)
{
	uint64_t refill = a->cglimits[cg].refill;
	uint32_t stop = a->nthrottles > REOPEN_LOOKBACK ? a->nthrottles - REOPEN_LOOKBACK : 0;

	for (uint32_t i = a->nthrottles; i-- > stop;) {
		struct lat_throttle *th = &a->throttles[i];

		if (!th->open && th->cg == cg && th->end == refill && th->cpu < 64 &&
		    (cpus >> th->cpu & 1))
			open_span(a, i);
	}
}

static void on_throttle(struct lat_analysis *a, const struct fxt_record *rec, uint64_t ts)
{
	uint32_t cg = cglimit_of(a, fxt_arg_u64(rec, "cgroup_id", 0));
	uint32_t cpu = fxt_arg_u64(rec, "cpu", UINT32_MAX);
	struct lat_throttle *th;

	if (rec->tid)
		lat_thread_get(a, rec->tid)->throttled_in = a->cglimits[cg].id;
	/*
	 * Another thread of it on the same CPU: the same span, where the
	 * whole cfs_rq is throttled; in the task-based model each thread has
	 * its own.
	 */
	for (uint32_t i = 0; i < a->nopen; i++) {
		const struct lat_throttle *o = &a->throttles[a->open[i]];

		if (o->cg == cg && o->cpu == cpu && (!a->throttle_per_task || o->tid == rec->tid))
			return;
	}
	if (a->nthrottles == a->cap_throttles) {
		a->cap_throttles = a->cap_throttles ? 2 * a->cap_throttles : 64;
		a->throttles = xrealloc(a->throttles, a->cap_throttles * sizeof(*a->throttles),
					"latency: throttled spans");
	}
	th = &a->throttles[a->nthrottles];
	*th = (struct lat_throttle){ .start = ts, .tid = rec->tid, .cpu = cpu, .cg = cg };
	open_span(a, a->nthrottles++);
}

void lat_throttle_scan(struct lat_analysis *a, const struct fxt_reader *r,
		       const struct fxt_record *rec)
{
	uint64_t ts;

	if (rec->type != KTRACE_FXT_REC_EVENT && rec->type != KTRACE_FXT_REC_SCHED)
		return;
	ts = fxt_ticks_to_ns(r, rec->ts);
	if (ts > a->scan_last_ts)
		a->scan_last_ts = ts;
	if (rec->type == KTRACE_FXT_REC_SCHED) {
		if (a->nopen && rec->sub <= KTRACE_FXT_SCHED_CSWITCH_ARGS && rec->in_tid)
			end_spans(a, ts, of_thread, rec->in_tid);
	} else if (is_sched_event(rec, "throttle")) {
		on_throttle(a, rec, ts);
	} else if (is_sched_event(rec, "cfs_refill")) {
		uint32_t cg = cglimit_of(a, fxt_arg_u64(rec, "cgroup_id", 0));

		const struct fxt_arg *after = fxt_find_arg(rec, "after");

		if (after && after->type == KTRACE_FXT_ARG_BOOL && after->u) {
			reopen(a, cg, fxt_arg_u64(rec, "cpus", 0));
		} else {
			end_spans(a, ts, of_cgroup, cg);
			a->cglimits[cg].refill = ts;
		}
	} else if (fxt_str_eq(rec->cat, "ktrace:meta")) {
		const struct fxt_arg *x;

		if (fxt_str_eq(rec->name, "trace_info")) {
			x = fxt_find_arg(rec, "throttling");
			free(a->throttling);
			a->throttling = x && x->type == KTRACE_FXT_ARG_STRING ?
					xstrndup(x->s.p, x->s.len, "latency: throttling") : NULL;
			a->throttle_per_task = a->throttling &&
					       !strcmp(a->throttling, KTRACE_THROTTLING_TASK);
		} else if (fxt_str_eq(rec->name, "cgroup_limit")) {
			uint32_t cg = cglimit_of(a, fxt_arg_u64(rec, "cgroup_id", 0));
			struct lat_cglimit *l = &a->cglimits[cg];	/* after it may move */

			x = fxt_find_arg(rec, "path");
			if (x && x->type == KTRACE_FXT_ARG_STRING && !l->path)
				l->path = xstrndup(x->s.p, x->s.len, "latency: cgroup limits");
			copy_cpu_max(l->cpu_max, sizeof(l->cpu_max), fxt_find_arg(rec, "cpu_max"));
			copy_cpu_max(l->cpu_max_end, sizeof(l->cpu_max_end),
				     fxt_find_arg(rec, "cpu_max_end"));
			x = fxt_find_arg(rec, "hierarchy");
			l->v1 = x && x->type == KTRACE_FXT_ARG_STRING && fxt_str_eq(x->s, "v1 cpu");
		}
	}
}

static int cmp_start(const void *x, const void *y)
{
	const struct lat_throttle *p = x, *q = y;

	return p->start < q->start ? -1 : p->start > q->start;
}

/*
 * Each cgroup's throttled time and spans, a CPU's overlapping ones (each
 * thread's, in the task-based model) counted once: the union per CPU.
 */
static void count_spans(struct lat_analysis *a)
{
	struct { uint32_t cg, cpu; uint64_t end; } *last = NULL;
	uint32_t n = 0;

	for (uint32_t i = 0; i < a->nthrottles; i++) {
		const struct lat_throttle *th = &a->throttles[i];
		struct lat_cglimit *l = &a->cglimits[th->cg];
		uint32_t k;

		for (k = 0; k < n && (last[k].cg != th->cg || last[k].cpu != th->cpu); k++)
			;
		if (k == n) {
			last = xrealloc(last, (n + 1) * sizeof(*last), "latency: throttled spans");
			last[n++] = (typeof(*last)){ .cg = th->cg, .cpu = th->cpu };
		}
		if (th->start >= last[k].end) {
			l->spans++;
			l->ns += th->end - th->start;
			last[k].end = th->end;
		} else if (th->end > last[k].end) {
			l->ns += th->end - last[k].end;
			last[k].end = th->end;
		}
	}
	free(last);
}

/* Spans end before lost records; then sorted, counted, and their union kept. */
void lat_throttle_scan_done(struct lat_analysis *a)
{
	uint32_t n = 0;

	a->nopen = 0;
	for (uint32_t i = 0; i < a->nthrottles; i++) {
		struct lat_throttle *th = &a->throttles[i];
		uint32_t k;

		if (th->open)
			th->end = a->scan_last_ts > th->start ? a->scan_last_ts : th->start;
		th->open = false;
		k = lat_first_loss(a, th->start);
		if (k < a->nlosses && a->losses[k].first < th->end)
			th->end = a->losses[k].first > th->start ? a->losses[k].first : th->start;
	}
	if (a->nthrottles)
		qsort(a->throttles, a->nthrottles, sizeof(*a->throttles), cmp_start);
	count_spans(a);
	a->throttled = a->nthrottles ? xcalloc(a->nthrottles, sizeof(*a->throttled),
					       "latency: throttled spans") : NULL;
	for (uint32_t i = 0; i < a->nthrottles; i++) {
		const struct lat_throttle *th = &a->throttles[i];

		if (n && th->start <= a->throttled[n - 1].last) {
			if (th->end > a->throttled[n - 1].last)
				a->throttled[n - 1].last = th->end;
		} else {
			a->throttled[n++] = (struct lat_range){ th->start, th->end };
		}
	}
	a->nthrottled = n;
}

bool lat_throttled_within(const struct lat_analysis *a, uint64_t start, uint64_t end)
{
	uint32_t lo = 0, hi = a->nthrottled;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (a->throttled[mid].last <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->nthrottled && a->throttled[lo].first < end;
}

/*
 * In the task-based model a throttle holds only the thread it switched
 * out: the others of its cgroup run until they return to user space, and
 * are throttled then, each with its own record.  Where a whole cfs_rq is
 * throttled, it holds every thread in the cgroup: one that a throttle
 * record of that cgroup switched out, or whose cgroup v2 path is the
 * cgroup's or below it.
 */
bool lat_throttle_covers(struct lat_analysis *a, const struct lat_throttle *th, uint64_t tid)
{
	const struct lat_cglimit *l = &a->cglimits[th->cg];
	struct lat_thread *t;

	if (a->throttle_per_task)
		return th->tid == tid;
	t = lat_thread_find(a, tid);
	if (!t)
		return false;
	if (t->throttled_in == l->id)
		return true;
	return l->path && !l->v1 && t->cgroup &&
	       lat_cgroup_under(a->cgroups[t->cgroup - 1], l->path);
}

bool lat_throttling_recorded(const struct lat_analysis *a)
{
	return a->throttling && !strncmp(a->throttling, "recorded", 8);
}

void lat_throttle_free(struct lat_analysis *a)
{
	for (uint32_t i = 0; i < a->ncglimits; i++)
		free(a->cglimits[i].path);
	free(a->cglimits);
	free(a->throttles);
	free(a->open);
	free(a->throttled);
	free(a->throttling);
}
