// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling latency from an FXT archive, in one streaming pass over the
 * time-sorted records (after a first pass for names and losses).  Each
 * thread is in one state (running, runnable since a wakeup, runnable since
 * preempted, blocked); a switch-in ends a wait.  Each CPU keeps a ring of
 * what held it lately (threads, idle, interrupt handlers recorded through
 * ftrace), so a wait that makes the --top list gets its blame: what ran on
 * the CPU it ended on between its start and its end.  Memory depends on
 * the number of threads and CPUs, never on the length of the trace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/latency_internal.h"
#include "trace/timeline.h"

/* ---- tables --------------------------------------------------------------- */

static struct lat_group *group_get(struct lat_analysis *a, uint64_t key)
{
	bool added;
	struct lat_group *g = lat_keyed_get(&a->group_map, key, &a->groups, &a->ngroups,
					&a->cap_groups, sizeof(*g), &added, "latency: report rows");

	g->key = key;
	if (added)
		g->id = a->ngroups - 1;
	return g;
}

static struct lat_cpu *cpu_get(struct lat_analysis *a, uint32_t cpu)
{
	if (cpu >= 65536)
		return NULL;
	if (cpu >= a->ncpus) {
		uint32_t n = cpu + 1;

		a->cpus = xrealloc(a->cpus, n * sizeof(*a->cpus), "latency: CPUs");
		memset(&a->cpus[a->ncpus], 0, (n - a->ncpus) * sizeof(*a->cpus));
		a->ncpus = n;
	}
	return &a->cpus[cpu];
}

/* ---- set up -------------------------------------------------------------- */

/* The worst waits are kept by their length. */
static uint64_t wait_key(const void *w)
{
	return lat_wait_ns(w);
}

struct lat_analysis *lat_new(const struct lat_opts *o)
{
	struct lat_analysis *a = xcalloc(1, sizeof(*a), "latency");

	a->o = *o;
	if (!a->o.unit_ns)
		a->o.unit_ns = 1000;
	if (!a->o.idle_threshold_ns)
		a->o.idle_threshold_ns = 1000000;
	a->top = xcalloc(a->o.top ? a->o.top : 1, sizeof(*a->top), "latency: the worst waits");
	a->worst = (struct topn){ .items = a->top, .max = a->o.top, .size = sizeof(*a->top),
				  .key = wait_key };
	a->first_ts = UINT64_MAX;
	return a;
}

void lat_free(struct lat_analysis *a)
{
	if (!a)
		return;
	for (uint32_t i = 0; i < a->ngroups; i++) {
		for (int k = 0; k < LAT_KINDS; k++) {
			free(a->groups[i].d[k].fine);
			free(a->groups[i].d[k].log2);
		}
		free(a->groups[i].blocked_in);
	}
	kstack_names_free(&a->kstacks);
	for (uint32_t i = 0; i < a->ncpus; i++)
		free(a->cpus[i].ring);
	for (uint32_t i = 0; i < a->nirq_names; i++)
		free(a->irq_names[i]);
	for (uint32_t i = 0; i < a->ncgroups; i++)
		free(a->cgroups[i]);
	free(a->cgroups);
	free(a->irq_names);
	free(a->cpus);
	cpu_masks_free(&a->masks);
	free(a->threads);
	free(a->procs);
	free(a->groups);
	free(a->losses);
	free(a->untraced);
	free(a->edges);
	free(a->wc);
	free(a->causes_by_bucket);
	free(a->waits_by_bucket);
	free(a->gbuckets);
	u64map_free(&a->gbucket_map);
	free(a->top);
	u64map_free(&a->thread_map);
	lat_throttle_free(a);
	u64map_free(&a->proc_map);
	u64map_free(&a->group_map);
	free(a);
}

/* Pass 1: every name (a thread may be named after it first runs), every loss. */
void lat_scan(struct lat_analysis *a, const struct fxt_reader *r, const struct fxt_record *rec)
{
	struct sched_event ev = { .kind = SCHED_NONE };
	const struct fxt_arg *x;

	if (rec->type == KTRACE_FXT_REC_KERNEL_OBJ) {
		lat_index_object(a, rec);
		return;
	}
	if (sched_decode(r, rec, &ev))
		lat_index_untraced(a, &ev);
	lat_throttle_scan(a, r, rec);
	if (rec->type == KTRACE_FXT_REC_EVENT && fxt_str_eq(rec->cat, "ktrace:meta") &&
	    fxt_str_eq(rec->name, "trace_info")) {
		x = fxt_find_arg(rec, "preemption");
		if (x && x->type == KTRACE_FXT_ARG_STRING)
			snprintf(a->preemption, sizeof(a->preemption), "%.*s", (int)x->s.len, x->s.p);
	}
	if (ev.kind == SCHED_MIGRATE)
		a->have_migrations = true;
	if (!kstack_names_note(&a->kstacks, rec) && ev.kind == SCHED_LOSS)
		lat_index_loss(a, &ev.loss);
}

/* Sorts and merges the loss ranges; decides which threads the filters keep. */
void lat_scan_done(struct lat_analysis *a)
{
	lat_index_done(a);
	lat_throttle_scan_done(a);
}

static bool selected(struct lat_analysis *a, struct lat_thread *t)
{
	if (t->selected < 0) {
		bool ok = true;

		if (a->o.pid >= 0)
			ok = t->tid == (uint64_t)a->o.pid || t->pid == (uint64_t)a->o.pid;
		if (ok && a->o.comm)
			ok = !strcmp(t->name, a->o.comm) || !strcmp(lat_proc_name(a, t->pid), a->o.comm);
		if (ok && a->o.cgroup)
			ok = t->cgroup && lat_cgroup_under(a->cgroups[t->cgroup - 1], a->o.cgroup);
		t->selected = ok;
	}
	return t->selected;
}

void lat_matches(struct lat_analysis *a, struct lat_matches *m)
{
	memset(m, 0, sizeof(*m));
	for (uint32_t i = 0; i < a->nthreads; i++) {
		const struct lat_thread *t = &a->threads[i];
		bool pid = t->tid == (uint64_t)a->o.pid || t->pid == (uint64_t)a->o.pid;
		bool comm = a->o.comm && (!strcmp(t->name, a->o.comm) ||
					  !strcmp(lat_proc_name(a, t->pid), a->o.comm));

		m->threads++;
		m->cgroup_threads += a->o.cgroup && t->cgroup &&
				     lat_cgroup_under(a->cgroups[t->cgroup - 1], a->o.cgroup);
		m->pid_threads += pid;
		m->comm_threads += comm;
		m->both_threads += pid && comm;
	}
	m->cgroups = a->ncgroups;
	for (uint32_t i = 0; i < a->ncpus; i++)
		if (a->cpus[i].seen) {
			m->cpus++;
			m->max_cpu = i;
		}
	m->cpu_seen = a->o.cpu >= 0 && a->o.cpu < a->ncpus && a->cpus[a->o.cpu].seen;
}

static uint64_t group_key(const struct lat_analysis *a, const struct lat_thread *t, uint32_t cpu)
{
	switch (a->o.by) {
	case LAT_BY_PROCESS:
		return t->pid;
	case LAT_BY_CPU:
		return cpu;
	case LAT_BY_ALL:
		return 0;
	case LAT_BY_CGROUP:
		return t->cgroup;
	default:
		return t->tid;
	}
}

/* ---- histograms ---------------------------------------------------------- */

static void dist_add(struct lat_analysis *a, struct lat_dist *d, uint64_t ns, uint64_t end,
		     uint64_t tid)
{
	uint64_t u;
	int b = 0;

	if (!d->fine) {
		d->fine = xcalloc(LAT_BUCKETS, sizeof(*d->fine), "latency: histograms");
		d->min = UINT64_MAX;
	}
	if (a->o.hist && !d->log2) {
		d->log2 = xcalloc(LAT_LOG2_BUCKETS, sizeof(*d->log2), "latency: histograms");
	}
	d->fine[lat_bucket_of(ns)]++;
	if (d->log2) {
		/* runqlat: bucket k holds 2^k .. 2^(k+1)-1 units; 0 and 1 share bucket 0. */
		u = ns / a->o.unit_ns;
		while (u > 1) {
			u >>= 1;
			b++;
		}
		d->log2[b]++;
	}
	d->count++;
	d->sum += ns;
	if (ns < d->min)
		d->min = ns;
	if (ns > d->max || d->count == 1) {
		d->max = ns;
		d->max_ts = end;
		d->max_tid = tid;
	}
}

/* ---- per-CPU history and blame ------------------------------------------- */

static void push_seg(struct lat_cpu *c, uint8_t kind, uint64_t id, int32_t weight,
		     uint64_t start, uint64_t end)
{
	struct lat_seg *s;

	/*
	 * The ring grows to RING_SEGS before it wraps: until then its segments
	 * sit in order from 0, where the readers' RING_SEGS mask finds them.
	 */
	if (c->nsegs == c->ring_cap && c->ring_cap < RING_SEGS) {
		c->ring_cap = c->ring_cap ? c->ring_cap * 2 : 64;
		c->ring = xrealloc(c->ring, c->ring_cap * sizeof(*c->ring), "latency: CPU history");
	}
	s = &c->ring[c->nsegs++ & (RING_SEGS - 1)];
	s->start = start;
	s->end = end;
	s->id = id;
	s->weight = weight;
	s->kind = kind;
}

static void share_add(struct lat_share *tab, uint32_t *n, uint32_t max, uint64_t *other,
		      uint8_t kind, uint64_t id, int32_t weight, uint64_t ns)
{
	for (uint32_t i = 0; i < *n; i++)
		if (tab[i].id == id && tab[i].kind == kind) {
			tab[i].ns += ns;
			return;
		}
	if (*n < max) {
		tab[*n] = (struct lat_share){ .id = id, .weight = weight, .kind = kind, .ns = ns };
		(*n)++;
		return;
	}
	*other += ns;
}

static int cmp_share(const void *x, const void *y)
{
	const struct lat_share *p = x, *q = y;

	return p->ns > q->ns ? -1 : p->ns < q->ns;
}

/* Threads a blame adds up before it keeps the longest LAT_BLAME_THREADS. */
#define BLAME_POOL	64

/* What held CPU @c during [w->start, w->end], newest segment first. */
static void blame(struct lat_cpu *c, struct lat_wait *w)
{
	uint64_t oldest = c->nsegs > RING_SEGS ? c->nsegs - RING_SEGS : 0, dummy = 0;
	struct lat_share pool[BLAME_POOL];
	uint32_t npool = 0;

	w->partial = c->covered_from > w->start;
	for (uint64_t i = c->nsegs; i > oldest; i--) {
		const struct lat_seg *s = &c->ring[(i - 1) & (RING_SEGS - 1)];
		uint64_t lo = s->start > w->start ? s->start : w->start;
		uint64_t hi = s->end < w->end ? s->end : w->end;

		if (s->end <= w->start) {
			/* Interrupts nest inside threads' segments: look a little further. */
			if (s->kind == SEG_THREAD || s->kind == SEG_IDLE)
				break;
			continue;
		}
		if (hi <= lo)
			continue;
		switch (s->kind) {
		case SEG_THREAD:
			share_add(pool, &npool, BLAME_POOL, &w->run_other_ns, s->kind, s->id,
				  s->weight, hi - lo);
			break;
		case SEG_IDLE:
			w->idle_ns += hi - lo;
			break;
		default:
			if (s->kind == SEG_HARDIRQ)
				w->hardirq_ns += hi - lo;
			else
				w->softirq_ns += hi - lo;
			share_add(w->irq, &w->nirq, LAT_BLAME_IRQS, &dummy, s->kind, s->id, 0,
				  hi - lo);
		}
	}
	/* Ran out of history before reaching the start. */
	if (c->nsegs > RING_SEGS && c->ring[oldest & (RING_SEGS - 1)].start > w->start)
		w->partial = true;
	/* The longest, not the latest, are named; the rest are "other threads". */
	qsort(pool, npool, sizeof(pool[0]), cmp_share);
	for (uint32_t i = 0; i < npool; i++) {
		if (i < LAT_BLAME_THREADS)
			w->run[w->nrun++] = pool[i];
		else
			w->run_other_ns += pool[i].ns;
	}
}

/* ---- the worst waits ----------------------------------------------------- */

/*
 * When @t's wait until @end became runnable: a timer wait starts when its
 * timer was due and is runnable from its wakeup; any other from its start.
 */
static uint64_t runnable_since(const struct lat_thread *t, uint64_t end)
{
	if (t->state == ST_WOKEN && t->timer == TIMER_WOKEN && t->timer_woken > t->since &&
	    t->timer_woken <= end)
		return t->timer_woken;
	return t->since;
}

/* Where @t's wait until @end was queued, and its causes. */
static void wait_causes(struct lat_analysis *a, const struct lat_thread *t, uint32_t cpu,
			uint64_t end, int32_t weight, struct lat_wait *w)
{
	w->start = t->since;
	w->runnable = runnable_since(t, end);
	w->end = end;
	w->preemption = a->preemption[0] ? a->preemption : NULL;
	w->tid = t->tid;
	w->cpu = cpu;
	w->weight = weight;
	w->have_migrations = a->have_migrations;
	w->queue_cpu = t->wait_queue_cpu;
	w->nmig = t->nmig;
	w->mig_dropped = t->mig_dropped;
	w->cpus = t->wait_cpus;
	memcpy(w->mig, t->mig, t->nmig * sizeof(*t->mig));
	lat_causes(a, w);
}

/*
 * One of the worst waits so far: its blame, where it was queued, its causes
 * (a walk over the CPUs' histories, which only the worst get, and the
 * waits longer than the work-conservation threshold).
 */
static void keep_top(struct lat_analysis *a, struct lat_thread *t, struct lat_cpu *c,
		     uint8_t kind, uint32_t cpu, uint64_t end, int32_t weight)
{
	bool wanted = topn_wants(&a->worst, end - t->since);
	struct lat_wait w = { 0 };

	if (!wanted && end - t->since <= a->o.idle_threshold_ns)
		return;
	wait_causes(a, t, cpu, end, weight, &w);
	if (end - t->since > a->o.idle_threshold_ns)
		lat_work_conservation(a, &w);
	if (!wanted)
		return;
	w.pid = t->pid;
	w.kind = kind;
	w.prev_cpu = t->last_cpu;
	w.have_irq = a->have_irq;
	if (kind != LAT_PREEMPT) {
		w.wake_cpu = t->wake_cpu;
		w.waker = t->waker;
		w.has_waker = t->has_waker;
		w.waker_ctx = t->waker_ctx;
		w.waker_irq = t->waker_irq;
	} else {
		w.waker_irq = -1;
	}
	/* A timer wait's blame is its wait part's, as for any wakeup. */
	if (kind == LAT_TIMER) {
		lat_timer_wait(a, t, &w);
		w.start = w.timer.woken;
	}
	blame(c, &w);
	w.start = t->since;
	qsort(w.run, w.nrun, sizeof(w.run[0]), cmp_share);
	qsort(w.irq, w.nirq, sizeof(w.irq[0]), cmp_share);
	lat_idle_elsewhere(a, &w);
	*(struct lat_wait *)topn_slot(&a->worst) = w;
	topn_placed(&a->worst);
}

/* ---- pass 2 -------------------------------------------------------------- */

/* What @c held since its last switch: idle, an RT thread, or another one. */
static enum lat_cum cum_label(const struct lat_cpu *c)
{
	return !c->tid ? CUM_IDLE : lat_is_rt(c->weight) ? CUM_RT : CUM_OTHER;
}

/* @c's running totals at @ts (not before its last switch). */
static void cum_at(const struct lat_cpu *c, uint64_t ts, uint64_t *out)
{
	memcpy(out, c->cum, sizeof(c->cum));
	if (ts >= c->since)
		out[cum_label(c)] += ts - c->since;
}

/*
 * Whether @c's totals are exact at @ts: not inside an interrupt handler,
 * whose time moves out of the thread it interrupted only when it ends.
 */
static bool cum_settled(const struct lat_cpu *c, uint64_t ts)
{
	return c->seen && ts >= c->since && !c->nirq && ts >= c->irq_until;
}

/* A queue's share of a wait starts at @ts on @cpu: its totals then, if they are exact. */
static void cum_snap(struct lat_analysis *a, struct lat_thread *t, int32_t cpu, uint64_t ts)
{
	struct lat_cpu *c = cpu >= 0 && (uint32_t)cpu < a->ncpus ? &a->cpus[cpu] : NULL;

	t->snap_cpu = c && cum_settled(c, ts) ? cpu : -1;
	if (t->snap_cpu >= 0)
		cum_at(c, ts, t->snap);
}

/* Adds what @t's current queue did since its snapshot, up to @ts; false if not exact. */
static bool cum_close(struct lat_analysis *a, struct lat_thread *t, uint64_t ts)
{
	const struct lat_cpu *c = &a->cpus[t->snap_cpu];
	uint64_t now[CUMS];

	if (!cum_settled(c, ts))
		return false;
	cum_at(c, ts, now);
	for (int k = 0; k < CUMS; k++)
		t->acc[k] += now[k] - t->snap[k];
	return true;
}

/* @t starts waiting on the run queue it is on, runnable from @ts. */
static void wait_begins(struct lat_analysis *a, struct lat_thread *t, uint64_t ts)
{
	t->wait_queue_cpu = t->queue_cpu;
	t->wait_cpus = t->cpus;
	t->nmig = 0;
	t->mig_dropped = 0;
	memset(t->acc, 0, sizeof(t->acc));
	cum_snap(a, t, t->queue_cpu, ts);
}

/*
 * @t moves to another run queue: while it waits, the move splits its wait;
 * past LAT_MIGRATIONS moves, the latest replaces the last one kept.
 */
static void on_migrate(struct lat_analysis *a, const struct sched_migrate *mig, uint64_t ts)
{
	struct lat_thread *t = lat_thread_get(a, mig->tid);
	struct lat_migration m = {
		.ts = ts,
		.from = mig->from,
		.to = mig->to,
		.cpus = t->cpus,
	};

	if (t->state == ST_WOKEN || t->state == ST_PREEMPTED) {
		if (t->nmig < LAT_MIGRATIONS) {
			t->mig[t->nmig++] = m;
		} else {
			t->mig[LAT_MIGRATIONS - 1] = m;
			t->mig_dropped++;
		}
		if (t->snap_cpu >= 0 && t->snap_cpu == m.from && cum_close(a, t, ts)) {
			cum_snap(a, t, m.to, ts);
		} else {
			t->snap_cpu = -1;
		}
	}
	t->queue_cpu = m.to;
}

/*
 * Every measured wait's causes: a fair thread's, whose queues' histories
 * reach back to its start, from the running totals; any other's from the
 * walk over the CPUs' histories.  Added to its group and, by its bucket,
 * to the selection's.
 */
static void count_causes(struct lat_analysis *a, struct lat_group *g, struct lat_thread *t,
			 uint32_t cpu, uint64_t ts, int32_t weight)
{
	uint64_t ns = ts - t->since, causes[LAT_CAUSES] = { 0 }, sum = 0;
	uint32_t b = lat_bucket_of(ns);
	struct lat_gbucket *gb;
	bool added;
	bool walk = t->snap_cpu != (int32_t)cpu || lat_is_rt(weight);

	for (uint32_t i = 0; i < a->nuntraced && !walk; i++)
		walk = a->untraced[i].first <= ts && a->untraced[i].last >= t->since;
	/* The running totals know nothing of throttling. */
	walk = walk || lat_throttled_within(a, t->since, ts);
	if (!walk)
		walk = !cum_close(a, t, ts);
	if (!walk) {
		/* The totals' snapshot was taken at the wakeup (wait_begins()). */
		causes[LAT_CAUSE_TIMER_LATE] = runnable_since(t, ts) - t->since;
		causes[LAT_CAUSE_HIGHER_PRIORITY] = t->acc[CUM_RT];
		causes[LAT_CAUSE_SAME_CLASS] = t->acc[CUM_OTHER];
		causes[LAT_CAUSE_CPU_IDLE] = t->acc[CUM_IDLE];
		causes[LAT_CAUSE_INTERRUPTS] = t->acc[CUM_IRQ];
		for (int k = 0; k < LAT_CAUSES; k++) {
			walk |= causes[k] > ns;	/* an interrupt straddling the start */
			sum += causes[k];
		}
		walk |= sum > ns;
		causes[LAT_CAUSE_UNKNOWN] = ns - sum;
	}
	if (walk) {
		struct lat_wait w = { 0 };

		wait_causes(a, t, cpu, ts, weight, &w);
		memcpy(causes, w.causes, sizeof(causes));
		a->causes_walked++;
	}
	if (!a->causes_by_bucket) {
		a->causes_by_bucket = xcalloc((size_t)LAT_BUCKETS * LAT_CAUSES,
					      sizeof(*a->causes_by_bucket), "latency: causes");
		a->waits_by_bucket = xcalloc(LAT_BUCKETS, sizeof(*a->waits_by_bucket),
					     "latency: causes");
	}
	gb = lat_keyed_get(&a->gbucket_map, (uint64_t)g->id << 16 | b, &a->gbuckets, &a->ngbuckets,
		       &a->cap_gbuckets, sizeof(*gb), &added, "latency: causes by row");
	for (int k = 0; k < LAT_CAUSES; k++) {
		g->causes[k] += causes[k];
		a->causes_by_bucket[(size_t)b * LAT_CAUSES + k] += causes[k];
		gb->causes[k] += causes[k];
	}
	a->waits_by_bucket[b]++;
	gb->waits++;
}

/* A switch-in of @t on @cpu at @ts: the end of whatever it waited for. */
static void end_wait(struct lat_analysis *a, struct lat_thread *t, struct lat_cpu *c,
		     uint32_t cpu, uint64_t ts, int32_t weight)
{
	uint8_t kind = t->state == ST_PREEMPTED ? LAT_PREEMPT :
		       t->timer == TIMER_WOKEN ? LAT_TIMER : LAT_WAKEUP;
	struct lat_group *g;
	uint64_t ns;

	if (!selected(a, t) || (a->o.cpu >= 0 && cpu != (uint64_t)a->o.cpu))
		return;
	if (t->state != ST_WOKEN && t->state != ST_PREEMPTED) {
		g = group_get(a, group_key(a, t, cpu));
		if (t->state == ST_UNKNOWN && t->stranded)
			g->lossy++;	/* preempted, or woken, in the untraced stretch */
		else if (t->state == ST_UNKNOWN)
			g->before_trace++;
		else if (t->state == ST_BLOCKED)
			g->no_wakeup++;
		return;
	}
	ns = ts - t->since;
	if (ns < a->o.min_ns) {
		a->filtered++;
		return;
	}
	g = group_get(a, group_key(a, t, cpu));
	if (lat_overlaps_loss(a, t->since, ts) || lat_across_untraced(a, t->tid, t->since, ts)) {
		g->lossy++;
		return;
	}
	a->waits++;
	dist_add(a, &g->d[kind], ns, ts, t->tid);
	count_causes(a, g, t, cpu, ts, weight);
	keep_top(a, t, c, kind, cpu, ts, weight);
}

/*
 * @t is switched out while it waits: its switch-in was not recorded.  A
 * loss, or an untraced stretch of its own, hid it; that wait, of unknown
 * length, counts with the ones not measured.
 */
static void wait_unseen_end(struct lat_analysis *a, struct lat_thread *t, uint32_t cpu,
			    uint64_t ts)
{
	if (!selected(a, t) || (a->o.cpu >= 0 && cpu != (uint64_t)a->o.cpu) || ts < t->since ||
	    ts - t->since < a->o.min_ns)
		return;
	if (lat_overlaps_loss(a, t->since, ts) || lat_across_untraced(a, t->tid, t->since, ts))
		group_get(a, group_key(a, t, cpu))->lossy++;
}

/*
 * An untraced_switch record, just before the switch that shows it: its
 * stranded thread left the CPU at some unknown time, asleep or preempted.
 * Woken meanwhile (a wakeup while it seemed to run), it waits from then;
 * else its state is unknown until its next wakeup or switch-in.
 */
static void on_untraced(struct lat_analysis *a, const struct sched_untraced *u)
{
	struct lat_thread *t = lat_thread_find(a, u->tid);

	if (!t || !t->tid || t->state != ST_RUNNING)
		return;
	if (t->early_wake) {
		t->state = ST_WOKEN;
		t->since = t->early_wake;
		wait_begins(a, t, t->since);
		t->snap_cpu = -1;
		t->early_wake = 0;
	} else {
		t->state = ST_UNKNOWN;
		t->stranded = true;
	}
}

/* Blocked time by where: one entry per state and stack, at most LAT_BLOCKED_IN_MAX. */
static void add_blocked_in(struct lat_group *g, const struct lat_thread *t, uint64_t ns)
{
	struct lat_blocked_in *b = NULL;

	for (uint32_t i = 0; i < g->nblocked_in; i++) {
		if (g->blocked_in[i].kstack == t->kstack && g->blocked_in[i].block == t->block) {
			b = &g->blocked_in[i];
			break;
		}
	}
	if (!b) {
		if (g->nblocked_in >= LAT_BLOCKED_IN_MAX)
			return;
		/* Grows by doubling: every power of two is a new allocation. */
		if (!(g->nblocked_in & (g->nblocked_in - 1)))
			g->blocked_in = xrealloc(g->blocked_in, (g->nblocked_in ? 2 * g->nblocked_in : 1) *
						 sizeof(*g->blocked_in), "latency: blocked-in split");
		b = &g->blocked_in[g->nblocked_in++];
		b->kstack = t->kstack;
		b->block = t->block;
		b->ns = b->n = 0;
	}
	b->ns += ns;
	b->n++;
}

static void on_switch(struct lat_analysis *a, const struct sched_event *ev)
{
	const struct sched_switch *sw = &ev->sw;
	struct lat_cpu *c = cpu_get(a, ev->cpu);
	uint64_t ts = ev->ts;
	struct lat_thread *t;
	uint32_t state;

	if (!c)
		return;
	/* The legacy layout carries each side's process. */
	if (sw->has_pids) {
		if (sw->out_tid)
			lat_thread_get(a, sw->out_tid)->pid = sw->out_pid;
		if (sw->in_tid)
			lat_thread_get(a, sw->in_tid)->pid = sw->in_pid;
	}
	if (!c->seen) {
		c->seen = true;
		c->covered_from = ts;
	} else if (ts >= c->since) {
		c->cum[cum_label(c)] += ts - c->since;
		push_seg(c, c->tid ? SEG_THREAD : SEG_IDLE, c->tid, c->weight, c->since, ts);
		c->since = ts;	/* the totals are up to now: a snapshot below adds nothing */
	}
	if (sw->out_tid) {
		t = lat_thread_get(a, sw->out_tid);
		state = sw->out_state;
		if (t->state == ST_WOKEN || t->state == ST_PREEMPTED)
			wait_unseen_end(a, t, ev->cpu, ts);
		t->stranded = false;
		t->last_cpu = ev->cpu;
		t->queue_cpu = ev->cpu;
		t->since = ts;
		if (state == KTRACE_LINUX_RUNNING) {
			t->state = ST_PREEMPTED;
			wait_begins(a, t, ts);
		} else if (state == KTRACE_LINUX_ZOMBIE || state == KTRACE_LINUX_DEAD) {
			t->state = ST_DEAD;
		} else if (t->early_wake && t->state == ST_RUNNING) {
			/*
			 * Woken before it got off the CPU: runnable since that
			 * wakeup, as perf sched and the kernel see it.  Its
			 * queue's totals do not reach back: the wait walks.
			 */
			t->state = ST_WOKEN;
			t->since = t->early_wake;
			wait_begins(a, t, t->early_wake);
			t->snap_cpu = -1;
			t->raced = true;
		} else {
			t->state = ST_BLOCKED;
			t->kstack = sw->kstack;
			t->block = state == KTRACE_LINUX_INTERRUPTIBLE ? LAT_BLOCK_S :
				   state == KTRACE_LINUX_UNINTERRUPTIBLE ? LAT_BLOCK_D :
				   LAT_BLOCK_OTHER;
		}
		t->early_wake = 0;
	}
	c->tid = sw->in_tid;
	c->weight = sw->in_weight;
	c->since = ts;
	if (!sw->in_tid)
		return;
	t = lat_thread_get(a, sw->in_tid);
	if (t->unnamed_ns && sw->in_kstack) {
		t->kstack = sw->in_kstack;
		add_blocked_in(group_get(a, t->unnamed_key), t, t->unnamed_ns);
	}
	t->unnamed_ns = 0;
	end_wait(a, t, c, ev->cpu, ts, c->weight);
	t->stranded = false;
	t->state = ST_RUNNING;
	t->timer = TIMER_NONE;
	t->early_wake = 0;
	t->last_cpu = ev->cpu;
	t->weight = c->weight;
}

/*
 * @t's sleeper timer fired, and woke it at @ts, before it got off the CPU
 * (it was late to sleep): a timer wait from due that ends at the wakeup.
 */
static void end_timer_on_cpu(struct lat_analysis *a, struct lat_thread *t, uint64_t ts)
{
	struct lat_cpu *c = cpu_get(a, t->last_cpu < 0 ? 0 : t->last_cpu);
	uint64_t since = t->since;

	if (!c)
		return;
	t->since = t->timer_due;
	t->state = ST_WOKEN;
	wait_begins(a, t, ts);
	end_wait(a, t, c, t->last_cpu, ts, t->weight);
	t->state = ST_RUNNING;
	t->since = since;
	t->timer = TIMER_NONE;
}

/* Who woke @t with @ev, and from what context; it may run on @cpus from then on. */
static void note_waker(struct lat_analysis *a, struct lat_thread *t, const struct sched_event *ev,
		       const struct cpu_mask *cpus)
{
	const struct sched_wakeup *wk = &ev->wake;

	/* Recorders give the allowed CPUs of a restricted thread at each wakeup. */
	t->cpus = cpus;
	t->wake_cpu = ev->cpu;
	t->waker_ctx = wk->ctx;
	t->has_waker = wk->has_waker;
	t->waker = wk->waker;
	t->waker_irq = -1;
	/* The handler running on the waking CPU, if it was recorded. */
	if (t->waker_ctx != KTRACE_CTX_TASK)
		t->waker_irq = lat_cpu_irq(a, ev->cpu, ev->ts);
}

static void on_wakeup(struct lat_analysis *a, const struct sched_event *ev,
		      const struct cpu_mask *cpus)
{
	struct lat_thread *t = lat_thread_get(a, ev->wake.tid);
	uint64_t ts = ev->ts;

	if (t->state == ST_RUNNING && t->last_cpu >= 0 && lat_timer_woken(t, ts)) {
		note_waker(a, t, ev, cpus);
		end_timer_on_cpu(a, t, ts);
		return;
	}
	/*
	 * A running thread woken on its way to sleep (the wakeup raced its
	 * switch-out) waits from here if it does switch out asleep; an
	 * already runnable one starts nothing.
	 */
	if (t->state == ST_RUNNING) {
		if (!t->early_wake) {
			t->early_wake = ts;
			note_waker(a, t, ev, cpus);
		}
		return;
	} else if (t->state == ST_WOKEN && t->raced) {
		/*
		 * sched_waking fires only for a sleeping task: the one that
		 * raced its switch-out did not leave it runnable after all.
		 */
		t->state = ST_UNKNOWN;
	} else if (t->state != ST_BLOCKED && t->state != ST_UNKNOWN) {
		return;
	}
	t->raced = false;
	t->stranded = false;
	if (t->state == ST_BLOCKED && selected(a, t) && ts >= t->since) {
		struct lat_group *g = group_get(a, group_key(a, t, t->last_cpu < 0 ? 0 :
								  (uint32_t)t->last_cpu));

		g->blocked_ns[t->block] += ts - t->since;
		g->blocked_n[t->block]++;
		if (t->kstack) {
			add_blocked_in(g, t, ts - t->since);
		} else {
			/* Named, if at all, at its switch-in (KTRACE_KSTACK_MIN_OFF_NS). */
			t->unnamed_ns = ts - t->since ?: 1;
			t->unnamed_key = group_key(a, t, t->last_cpu < 0 ? 0 :
						   (uint32_t)t->last_cpu);
		}
	}
	t->state = ST_WOKEN;
	t->since = lat_timer_woken(t, ts) ? t->timer_due : ts;
	note_waker(a, t, ev, cpus);
	/* Runnable from the wakeup: a timer wait's queues count from there. */
	wait_begins(a, t, ts);
}

/*
 * An outermost interrupt handler ran @ns on @c: that time moves from what
 * the CPU was running to interrupts (the totals may wrap: only their
 * differences are read).
 */
static void cum_irq(struct lat_cpu *c, uint64_t ns)
{
	if (!c->seen)
		return;
	c->cum[CUM_IRQ] += ns;
	c->cum[cum_label(c)] -= ns;
}

/*
 * Interrupt handlers on their CPU's track: recorded (complete events) or
 * from ftrace (record --ftrace irq:*, begin and end).
 */
static void on_irq_event(struct lat_analysis *a, const struct fxt_record *rec, uint64_t ts,
			 const struct fxt_reader *r)
{
	uint64_t cpu = rec->tid - KTRACE_FXT_IRQ_TID(0);
	uint8_t kind = rec->name.len >= 8 && !memcmp(rec->name.p, "softirq ", 8) ? SEG_SOFTIRQ :
		       SEG_HARDIRQ;
	struct lat_cpu *c;
	uint64_t end;
	int32_t name;

	if (rec->tid < KTRACE_FXT_IRQ_TID(0) || cpu >= 65536)
		return;
	c = cpu_get(a, cpu);
	if (!c)
		return;
	a->have_irq = true;
	switch (rec->sub) {
	case KTRACE_FXT_EV_DURATION_BEGIN:
		name = lat_irq_index(a, rec->name);
		if (c->nirq < IRQ_NEST) {
			c->irq[c->nirq].start = ts;
			c->irq[c->nirq].name = name;
			c->irq[c->nirq].kind = kind;
		}
		c->nirq++;
		break;
	case KTRACE_FXT_EV_DURATION_END:
		if (c->nirq <= 0)
			break;
		c->nirq--;
		if (c->nirq < IRQ_NEST && c->irq[c->nirq].name >= 0 && ts >= c->irq[c->nirq].start) {
			push_seg(c, c->irq[c->nirq].kind, c->irq[c->nirq].name, 0,
				 c->irq[c->nirq].start, ts);
			if (!c->nirq)
				cum_irq(c, ts - c->irq[c->nirq].start);
		}
		break;
	case KTRACE_FXT_EV_DURATION_COMPLETE:
		name = lat_irq_index(a, rec->name);
		end = fxt_ticks_to_ns(r, rec->extra);
		if (name >= 0 && end >= ts) {
			push_seg(c, kind, name, 0, ts, end);
			/*
			 * A hardirq inside a softirq comes after it (both by their
			 * start): only time past the handlers before it is new.
			 */
			if (!c->nirq && end > c->irq_until)
				cum_irq(c, end - (ts > c->irq_until ? ts : c->irq_until));
			if (end > c->irq_until)
				c->irq_until = end;
		}
		break;
	}
}

/* What @ev's wakeup meant, for the critical path. */
static void publish_wakeup(struct lat_analysis *a, const struct sched_event *ev,
			   struct lat_transition *tr)
{
	const struct lat_thread *t = lat_thread_find(a, ev->wake.tid);

	tr->waker_irq = ev->wake.ctx == KTRACE_CTX_TASK ? -1 : lat_cpu_irq(a, ev->cpu, ev->ts);
	tr->timer = t && t->timer == TIMER_WOKEN;
	tr->timer_due = tr->timer ? t->timer_due : 0;
	tr->timer_fired = tr->timer ? t->timer_fired : 0;
}

void lat_event(struct lat_analysis *a, const struct fxt_reader *r, const struct fxt_record *rec,
	       const struct sched_event *ev, struct lat_transition *tr)
{
	switch (ev->kind) {
	case SCHED_SWITCH:
	case SCHED_WAKEUP:
		a->records++;
		if (ev->ts < a->first_ts)
			a->first_ts = ev->ts;
		if (ev->ts > a->last_ts)
			a->last_ts = ev->ts;
		if (ev->kind == SCHED_SWITCH) {
			on_switch(a, ev);
			break;
		}
		/* The whole mask, above CPU 63 too: the decoder gives CPUs 0-63. */
		on_wakeup(a, ev, cpu_masks_of(&a->masks, rec));
		if (tr)
			publish_wakeup(a, ev, tr);
		break;
	case SCHED_IRQ:
		on_irq_event(a, rec, ev->ts, r);
		break;
	case SCHED_MIGRATE:
		on_migrate(a, &ev->mig, ev->ts);
		break;
	case SCHED_AFFINITY:
		if (ev->aff.tid)
			lat_thread_get(a, ev->aff.tid)->cpus = cpu_masks_of(&a->masks, rec);
		break;
	case SCHED_TIMER_EXPIRE:
		if (ev->timer.tid)
			lat_timer_expire(lat_thread_get(a, ev->timer.tid), &ev->timer, ev->ts);
		break;
	case SCHED_UNTRACED:
		on_untraced(a, &ev->untraced);
		break;
	default:
		break;
	}
}

/* ---- for another pass over the same records (the critical path) ---------- */

bool lat_selects(struct lat_analysis *a, uint64_t tid)
{
	return tid && selected(a, lat_thread_get(a, tid));
}

uint64_t lat_thread_pid(struct lat_analysis *a, uint64_t tid)
{
	struct lat_thread *t = lat_thread_find(a, tid);

	return t ? t->pid : 0;
}

int32_t lat_cpu_irq(struct lat_analysis *a, uint32_t cpu, uint64_t ts)
{
	const struct lat_cpu *c = cpu < a->ncpus ? &a->cpus[cpu] : NULL;
	uint64_t oldest;

	if (!c)
		return -1;
	if (c->nirq > 0)
		return c->nirq <= IRQ_NEST ? c->irq[c->nirq - 1].name : -1;
	if (ts >= c->irq_until || !c->ring)
		return -1;
	/*
	 * Complete events (the recorders' own) are pushed at their start, after
	 * the thread segment before them: the innermost handler around @ts is
	 * the newest that holds it.
	 */
	oldest = c->nsegs > RING_SEGS ? c->nsegs - RING_SEGS : 0;
	for (uint64_t i = c->nsegs; i > oldest && c->nsegs - i < 16; i--) {
		const struct lat_seg *s = &c->ring[(i - 1) & (RING_SEGS - 1)];

		if (s->kind == SEG_THREAD || s->kind == SEG_IDLE)
			break;
		if (s->start <= ts && ts < s->end)
			return (int32_t)s->id;
	}
	return -1;
}

void lat_blame_span(struct lat_analysis *a, uint64_t tid, uint32_t cpu, uint64_t start,
		    uint64_t end, struct lat_wait *w)
{
	struct lat_cpu *c = cpu < a->ncpus ? &a->cpus[cpu] : NULL;
	struct lat_thread *t = lat_thread_find(a, tid);

	memset(w, 0, sizeof(*w));
	w->tid = tid;
	w->weight = t ? t->weight : 0;	/* its latest: what it had then is not kept */
	w->cpus = t ? t->cpus : NULL;
	w->start = start;
	w->end = end;
	w->cpu = cpu;
	w->waker_irq = -1;
	w->have_irq = a->have_irq;
	w->queue_cpu = cpu;
	if (c && c->ring) {
		blame(c, w);
		qsort(w->run, w->nrun, sizeof(w->run[0]), cmp_share);
		qsort(w->irq, w->nirq, sizeof(w->irq[0]), cmp_share);
	} else {
		w->partial = true;
	}
	lat_causes(a, w);
	lat_idle_elsewhere(a, w);
}

void lat_span_moved(struct lat_analysis *a, struct lat_wait *w, int32_t queue_cpu,
		    const struct lat_migration *mig, uint32_t moves)
{
	w->have_migrations = a->have_migrations;
	w->queue_cpu = queue_cpu;
	w->nmig = moves ? 1 : 0;
	w->mig_dropped = moves > 1 ? moves - 1 : 0;
	if (moves)
		w->mig[0] = *mig;
	lat_causes(a, w);
	lat_idle_elsewhere(a, w);
}

static int cmp_start(const void *x, const void *y)
{
	const struct lat_wait *p = x, *q = y;

	return p->start < q->start ? -1 : p->start > q->start;
}

static int cmp_worst(const void *x, const void *y)
{
	const struct lat_wait *p = x, *q = y;

	return lat_wait_ns(p) > lat_wait_ns(q) ? -1 : lat_wait_ns(p) < lat_wait_ns(q);
}

void lat_set_cut(struct lat_analysis *a, const struct fxt_error *e, uint64_t records)
{
	a->cut = true;
	a->cut_at = *e;
	a->cut_records = records;
}

void lat_done(struct lat_analysis *a)
{
	qsort(a->top, a->worst.n, sizeof(*a->top), cmp_worst);
	a->sorted_by_start = false;
}

const struct lat_wait *lat_waits_by_start(struct lat_analysis *a, uint32_t *n)
{
	if (!a->sorted_by_start) {
		qsort(a->top, a->worst.n, sizeof(*a->top), cmp_start);
		a->sorted_by_start = true;
	}
	*n = a->worst.n;
	return a->top;
}

uint32_t lat_top_count(const struct lat_analysis *a)
{
	return a->worst.n;
}

const struct lat_wait *lat_top_wait(const struct lat_analysis *a, uint32_t i)
{
	return i < a->worst.n ? &a->top[i] : NULL;
}
