// SPDX-License-Identifier: GPL-2.0
/*
 * Where a wait was spent and why: the wait is split at its migrations into
 * pieces, one per run queue it sat on, and each piece's time is given to
 * one cause by what held that queue's CPU (the CPU history latency.c
 * keeps), so that the causes sum to the wait to the nanosecond.
 *
 * At each instant the first of these that applies decides the cause:
 *  - timer_late: a timer wait before its wakeup: the thread slept on,
 *    its timer late (the wait starts when the timer was due), and was on
 *    no run queue;
 *  - unknown: records were lost then, or the kernel switched on that CPU
 *    without tracing it, or the CPU's history does not reach back so far;
 *  - throttled: the thread's cgroup (or a parent) was throttled on that
 *    CPU by CFS bandwidth control (throttling.c): whatever the CPU did
 *    meanwhile, idle included, the thread could not have run there;
 *  - interrupts: a hardirq or softirq handler ran there (ftrace irq:*);
 *  - cpu_idle: the CPU ran its idle task;
 *  - higher_priority: it ran a thread of a higher class (RT over fair), or
 *    of the same RT class with a higher priority;
 *  - not_preempted: the thread is real-time, and the CPU ran a thread of a
 *    lower class or RT priority that the kernel did not preempt (a
 *    non-preemptible section, a preemption model short of full,
 *    interrupts off, or a virtual CPU not running);
 *  - same_class: it ran any other thread: a fair-share or round-robin turn.
 *
 * Beside the causes, not part of their sum: idle_allowed_elsewhere, the
 * time during which at least one other CPU the thread may use (its
 * recorded allowed CPUs, or all) was idle while it was runnable and its
 * cgroup not throttled, the work-conservation invariant of Lozi et al.
 * (EuroSys 2016) seen from one wait.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/latency_internal.h"

static const char *const cause_names[LAT_CAUSES] = {
#define LAT_CAUSE_NAME(id, name) [LAT_CAUSE_##id] = name,
	LAT_CAUSE_TABLE(LAT_CAUSE_NAME)
#undef LAT_CAUSE_NAME
};

const char *lat_cause_name(unsigned int cause)
{
	return cause < LAT_CAUSES ? cause_names[cause] : "?";
}

static bool is_sched_instant(const struct fxt_record *rec, const char *name)
{
	return rec->type == KTRACE_FXT_REC_EVENT && rec->sub == KTRACE_FXT_EV_INSTANT &&
	       fxt_str_eq(rec->name, name) && fxt_str_eq(rec->cat, "ktrace:sched");
}

bool lat_is_migrate(const struct fxt_record *rec)
{
	return is_sched_instant(rec, "migrate");
}

bool lat_is_affinity(const struct fxt_record *rec)
{
	return is_sched_instant(rec, "affinity");
}

/*
 * What an instant may be labelled with, the strongest first: a sweep over
 * the piece keeps a count of the intervals of each label that cover it.
 */
enum label { L_TIMER_LATE, L_GAP, L_THROTTLED, L_IRQ, L_IDLE, L_HIGHER, L_NOT_PREEMPTED, L_SAME,
	     LABELS };

static const uint8_t label_cause[LABELS] = {
	[L_GAP] = LAT_CAUSE_UNKNOWN, [L_THROTTLED] = LAT_CAUSE_THROTTLED,
	[L_IRQ] = LAT_CAUSE_INTERRUPTS,
	[L_IDLE] = LAT_CAUSE_CPU_IDLE, [L_HIGHER] = LAT_CAUSE_HIGHER_PRIORITY,
	[L_NOT_PREEMPTED] = LAT_CAUSE_NOT_PREEMPTED, [L_SAME] = LAT_CAUSE_SAME_CLASS,
	[L_TIMER_LATE] = LAT_CAUSE_TIMER_LATE,
};

struct edge {
	uint64_t t;
	int8_t delta;
	uint8_t label;
};

/*
 * The intervals of one piece.  Threads' and idle segments never overlap
 * one another, so while no gap or interrupt is added their lengths by
 * label (@direct) are the answer, and the sort is skipped: most waits.
 */
struct sweep {
	struct edge *e;
	uint32_t n, cap;
	uint64_t lo, hi;
	uint64_t direct[LABELS];
	bool nested;		/* a gap, throttling or an interrupt overlaps something */
};

static void sweep_reset(struct sweep *s, uint64_t lo, uint64_t hi)
{
	s->n = 0;
	s->lo = lo;
	s->hi = hi;
	memset(s->direct, 0, sizeof(s->direct));
	s->nested = false;
}

static void add_span(struct sweep *s, uint64_t start, uint64_t end, uint8_t label)
{
	struct edge *e;

	if (start < s->lo)
		start = s->lo;
	if (end > s->hi)
		end = s->hi;
	if (end <= start)
		return;
	s->direct[label] += end - start;
	if (label == L_GAP || label == L_IRQ || label == L_THROTTLED || label == L_TIMER_LATE)
		s->nested = true;
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->e = xrealloc(s->e, s->cap * sizeof(*s->e), "latency: causes");
	}
	e = &s->e[s->n];
	e[0] = (struct edge){ .t = start, .delta = 1, .label = label };
	e[1] = (struct edge){ .t = end, .delta = -1, .label = label };
	s->n += 2;
}

static int cmp_edge(const void *x, const void *y)
{
	const struct edge *p = x, *q = y;

	return p->t < q->t ? -1 : p->t > q->t;
}

/* Adds [lo, hi) by label into @causes; what no interval covers is unknown. */
static void sweep_sum(struct sweep *s, uint64_t *causes, uint64_t *gap_ns)
{
	int32_t count[LABELS] = { 0 };
	uint64_t at = s->lo, covered = 0;

	if (!s->nested) {
		for (int l = 0; l < LABELS; l++) {
			causes[label_cause[l]] += s->direct[l];
			covered += s->direct[l];
		}
		causes[LAT_CAUSE_UNKNOWN] += s->hi - s->lo - covered;
		return;
	}

	if (s->n)
		qsort(s->e, s->n, sizeof(*s->e), cmp_edge);
	for (uint32_t i = 0; i <= s->n; i++) {
		uint64_t t = i < s->n ? s->e[i].t : s->hi;
		uint8_t cause = LAT_CAUSE_UNKNOWN;

		if (t > at) {
			for (int l = 0; l < LABELS; l++)
				if (count[l] > 0) {
					cause = label_cause[l];
					break;
				}
			causes[cause] += t - at;
			/* Only where the gap is the cause: not before a timer wait's wakeup. */
			if (count[L_GAP] > 0 && !count[L_TIMER_LATE])
				*gap_ns += t - at;
			at = t;
		}
		if (i < s->n)
			count[s->e[i].label] += s->e[i].delta;
	}
}

static int rt_class(int32_t weight)
{
	return lat_is_rt(weight);
}

static uint8_t thread_label(int32_t weight, int32_t waiter)
{
	if (rt_class(weight) > rt_class(waiter) ||
	    (rt_class(weight) && rt_class(waiter) && weight > waiter))
		return L_HIGHER;
	/* A real-time waiter is owed the CPU of any lower class or priority. */
	if (rt_class(waiter) && (!rt_class(weight) || weight < waiter))
		return L_NOT_PREEMPTED;
	return L_SAME;
}

#define PIECE_POOL	16

/* The kernel's untraced switches on one CPU during a piece, to look up often. */
#define PIECE_UNTRACED	16

struct untraced_list {
	const struct lat_untraced *u[PIECE_UNTRACED];
	uint32_t n;
	bool all;		/* too many: look at every one */
};

static void untraced_list(const struct lat_analysis *a, int32_t cpu, uint64_t lo, uint64_t hi,
			  struct untraced_list *l)
{
	l->n = 0;
	l->all = false;
	for (uint32_t i = 0; i < a->nuntraced && !l->all; i++) {
		const struct lat_untraced *u = &a->untraced[i];

		if ((int32_t)u->cpu != cpu || u->last <= lo || u->first >= hi)
			continue;
		if (l->n == PIECE_UNTRACED)
			l->all = true;
		else
			l->u[l->n++] = u;
	}
}

/* How much of [lo, hi) the kernel's untraced switches on @cpu hide. */
static uint64_t untraced_overlap(const struct lat_analysis *a, const struct untraced_list *l,
				 int32_t cpu, uint64_t lo, uint64_t hi)
{
	uint32_t n = l->all ? a->nuntraced : l->n;
	uint64_t ns = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct lat_untraced *u = l->all ? &a->untraced[i] : l->u[i];
		uint64_t lo2 = u->first > lo ? u->first : lo;
		uint64_t hi2 = u->last < hi ? u->last : hi;

		if ((int32_t)u->cpu == cpu && hi2 > lo2)
			ns += hi2 - lo2;
	}
	return ns;
}


/* Time @tid held the CPU in a piece, for naming the one it waited behind. */
static void pool_add(void *pool_, uint32_t *npool, uint64_t tid, int32_t weight, uint64_t ns)
{
	struct { uint64_t tid, ns; int32_t weight; } *pool = pool_;
	uint32_t j;

	for (j = 0; j < *npool && pool[j].tid != tid; j++)
		;
	if (j == *npool) {
		if (*npool == PIECE_POOL)
			return;
		pool[(*npool)++] = (typeof(*pool)){ .tid = tid, .weight = weight };
	}
	pool[j].ns += ns;
}

/* Whether @th held @w's thread on @p's CPU within @p: from *@lo to *@hi. */
static bool throttle_in_piece(struct lat_analysis *a, const struct lat_wait *w,
			      const struct lat_piece *p, const struct lat_throttle *th,
			      uint64_t *lo, uint64_t *hi)
{
	*lo = th->start > p->start ? th->start : p->start;
	*hi = th->end < p->end ? th->end : p->end;
	return (int32_t)th->cpu == p->cpu && *hi > *lo && lat_throttle_covers(a, th, w->tid);
}

/*
 * The spans during which @w's cgroup was throttled on @p's CPU; the one
 * that covers most of the wait names the cgroup.
 */
static void throttled_spans(struct lat_analysis *a, struct lat_wait *w, struct lat_piece *p,
			    struct sweep *s)
{
	uint64_t most = 0, lo, hi;

	if (!lat_throttled_within(a, p->start, p->end))
		return;
	for (uint32_t i = 0; i < a->nthrottles && a->throttles[i].start < p->end; i++) {
		const struct lat_throttle *th = &a->throttles[i];

		if (!throttle_in_piece(a, w, p, th, &lo, &hi))
			continue;
		add_span(s, lo, hi, L_THROTTLED);
		p->throttled_ns += hi - lo;
		if (hi - lo > most) {
			const struct lat_cglimit *l = &a->cglimits[th->cg];

			most = hi - lo;
			w->throttled_cgroup_id = l->id;
			w->throttled_path = l->path;
			w->throttled_cpu_max = l->cpu_max;
			w->throttled_v1 = l->v1;
		}
	}
}

/*
 * The piece @p of @w on CPU @p->cpu: its causes into @w, and the thread
 * that held the CPU longest in it.
 */
static void piece_causes(struct lat_analysis *a, struct lat_wait *w, struct lat_piece *p,
			 struct sweep *s)
{
	struct lat_cpu *c = p->cpu >= 0 && (uint32_t)p->cpu < a->ncpus ? &a->cpus[p->cpu] : NULL;
	struct { uint64_t tid, ns; int32_t weight; } pool[PIECE_POOL];
	struct untraced_list ul;
	uint32_t npool = 0;
	uint64_t gap = 0, from = w->runnable > p->start ? w->runnable : p->start;

	sweep_reset(s, p->start, p->end);
	add_span(s, p->start, w->runnable, L_TIMER_LATE);
	/* Lost records may hide anything; the kernel's untraced switches hide their CPU's. */
	for (uint32_t i = lat_first_loss(a, p->start); i < a->nlosses && a->losses[i].first < p->end;
	     i++)
		add_span(s, a->losses[i].first, a->losses[i].last + 1, L_GAP);
	untraced_list(a, p->cpu, p->start, p->end, &ul);
	for (uint32_t i = 0; i < (ul.all ? a->nuntraced : ul.n); i++) {
		const struct lat_untraced *u = ul.all ? &a->untraced[i] : ul.u[i];

		if ((int32_t)u->cpu == p->cpu)
			add_span(s, u->first, u->last, L_GAP);
	}
	throttled_spans(a, w, p, s);
	if (c && c->ring) {
		uint64_t oldest = c->nsegs > RING_SEGS ? c->nsegs - RING_SEGS : 0;

		for (uint64_t i = c->nsegs; i > oldest; i--) {
			const struct lat_seg *g = &c->ring[(i - 1) & (RING_SEGS - 1)];
			uint64_t lo = g->start > from ? g->start : from;
			uint64_t hi = g->end < p->end ? g->end : p->end;

			if (g->end <= p->start) {
				if (g->kind == SEG_THREAD || g->kind == SEG_IDLE)
					break;
				continue;
			}
			switch (g->kind) {
			case SEG_IDLE:
				add_span(s, g->start, g->end, L_IDLE);
				break;
			case SEG_THREAD:
				add_span(s, g->start, g->end, thread_label(g->weight, w->weight));
				if (hi > lo)
					pool_add(pool, &npool, g->id, g->weight,
						 hi - lo - untraced_overlap(a, &ul, p->cpu, lo, hi));
				break;
			default:
				add_span(s, g->start, g->end, L_IRQ);
			}
		}
	}
	/* What runs there now, on a CPU the wait did not end on. */
	if (c && c->seen && c->since < p->end) {
		uint64_t lo = c->since > from ? c->since : from;

		add_span(s, c->since, p->end, c->tid ? thread_label(c->weight, w->weight) : L_IDLE);
		if (c->tid && p->end > lo)
			pool_add(pool, &npool, c->tid, c->weight,
				 p->end - lo - untraced_overlap(a, &ul, p->cpu, lo, p->end));
	}
	sweep_sum(s, w->causes, &gap);
	w->lost_ns += gap;
	for (uint32_t j = 0; j < npool; j++)
		if (pool[j].ns > p->top_ns) {
			p->top_tid = pool[j].tid;
			p->top_weight = pool[j].weight;
			p->top_ns = pool[j].ns;
		}
}

/* How much of [lo, hi) at least one interval covers. */
static uint64_t sweep_union(struct sweep *s)
{
	uint64_t at = s->lo, ns = 0;
	int32_t count = 0;

	if (s->n)	/* no edges: no array either, which qsort() may not take */
		qsort(s->e, s->n, sizeof(*s->e), cmp_edge);
	for (uint32_t i = 0; i < s->n; i++) {
		if (count > 0)
			ns += s->e[i].t - at;
		at = s->e[i].t;
		count += s->e[i].delta;
	}
	return ns;
}

static bool may_use(const struct cpu_mask *cpus, uint32_t cpu)
{
	return cpu_mask_has(cpus, cpu);
}

/* Disjoint spans in time order. */
struct spans {
	uint64_t (*s)[2];
	uint32_t n, cap;
};

/*
 * The spans of piece @p during which @w's cgroup was throttled on its
 * CPU, merged.  Its quota spent, it could not have run on any other CPU
 * either: another CPU idle then wasted nothing.
 */
static void piece_throttled(struct lat_analysis *a, const struct lat_wait *w,
			       const struct lat_piece *p, struct spans *out)
{
	uint64_t lo, hi;

	out->n = 0;
	if (!lat_throttled_within(a, p->start, p->end))
		return;
	for (uint32_t i = 0; i < a->nthrottles && a->throttles[i].start < p->end; i++) {
		if (!throttle_in_piece(a, w, p, &a->throttles[i], &lo, &hi))
			continue;
		/* In start order: a span overlapping the last one extends it. */
		if (out->n && lo <= out->s[out->n - 1][1]) {
			if (hi > out->s[out->n - 1][1])
				out->s[out->n - 1][1] = hi;
			continue;
		}
		if (out->n == out->cap) {
			out->cap = out->cap ? 2 * out->cap : 16;
			out->s = xrealloc(out->s, out->cap * sizeof(*out->s), "latency: causes");
		}
		out->s[out->n][0] = lo;
		out->s[out->n][1] = hi;
		out->n++;
	}
}

/*
 * [@lo, @hi) less @th: the parts, in time order, into @part (room for
 * @th->n + 1); their number.
 */
static uint32_t outside(uint64_t lo, uint64_t hi, const struct spans *th, uint64_t (*part)[2])
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < th->n && lo < hi; i++) {
		if (th->s[i][1] <= lo)
			continue;
		if (th->s[i][0] >= hi)
			break;
		if (th->s[i][0] > lo) {
			part[n][0] = lo;
			part[n++][1] = th->s[i][0];
		}
		lo = th->s[i][1];
	}
	if (lo < hi) {
		part[n][0] = lo;
		part[n++][1] = hi;
	}
	return n;
}

/* Idle from @lo to @hi, but while @th: into @s. */
static void add_idle(struct sweep *s, uint64_t lo, uint64_t hi, const struct spans *th,
		     uint64_t (*part)[2])
{
	uint32_t n = outside(lo, hi, th, part);

	for (uint32_t i = 0; i < n; i++)
		add_span(s, part[i][0], part[i][1], L_IDLE);
}

/*
 * While @w sat on piece @p's queue, its cgroup not throttled: the time
 * some other CPU it may use was idle, and each such CPU's idle time in
 * @cpu_ns.
 */
static void idle_elsewhere(struct lat_analysis *a, struct lat_wait *w,
			   const struct lat_piece *p, struct sweep *s, uint64_t *cpu_ns)
{
	struct spans th = { 0 };
	uint64_t (*part)[2];

	piece_throttled(a, w, p, &th);
	part = xcalloc(th.n + 1, sizeof(*part), "latency: causes");
	/* Not runnable before a timer wait's wakeup: nothing it could have used. */
	sweep_reset(s, w->runnable > p->start ? w->runnable : p->start, p->end);
	if (s->lo >= s->hi)
		goto out;
	for (uint32_t cpu = 0; cpu < a->ncpus; cpu++) {
		struct lat_cpu *c = &a->cpus[cpu];
		uint32_t first = s->n;

		if ((int32_t)cpu == p->cpu || !c->seen || !may_use(p->cpus, cpu))
			continue;
		if (c->ring) {
			uint64_t oldest = c->nsegs > RING_SEGS ? c->nsegs - RING_SEGS : 0;

			for (uint64_t i = c->nsegs; i > oldest; i--) {
				const struct lat_seg *g = &c->ring[(i - 1) & (RING_SEGS - 1)];

				if (g->end <= p->start && (g->kind == SEG_THREAD || g->kind == SEG_IDLE))
					break;
				if (g->kind == SEG_IDLE)
					add_idle(s, g->start, g->end, &th, part);
			}
		}
		if (!c->tid && c->since < p->end)
			add_idle(s, c->since, p->end, &th, part);
		/* One CPU's idle segments never overlap: their sum is its idle time. */
		for (uint32_t i = first; i < s->n; i += 2)
			cpu_ns[cpu] += s->e[i + 1].t - s->e[i].t;
	}
	w->idle_elsewhere_ns += sweep_union(s);
out:
	free(part);
	free(th.s);
}

void lat_idle_elsewhere(struct lat_analysis *a, struct lat_wait *w)
{
	uint64_t *cpu_ns = xcalloc(a->ncpus ? a->ncpus : 1, sizeof(*cpu_ns), "latency: causes");
	struct sweep s = { .e = a->edges, .cap = a->edges_cap };

	w->idle_elsewhere_ns = w->idle_elsewhere_cpu_ns = 0;
	w->idle_elsewhere_cpu = -1;
	for (uint32_t i = 0; i < w->npiece; i++)
		if (w->piece[i].cpu >= 0)
			idle_elsewhere(a, w, &w->piece[i], &s, cpu_ns);
	for (uint32_t k = 0; k < a->ncpus; k++)
		if (cpu_ns[k] > w->idle_elsewhere_cpu_ns) {
			w->idle_elsewhere_cpu = k;
			w->idle_elsewhere_cpu_ns = cpu_ns[k];
		}
	a->edges = s.e;
	a->edges_cap = s.cap;
	free(cpu_ns);
}

/* A CPU idle from @lo to @hi while a thread waited, but while @th. */
static void wc_idle(struct lat_wc *wc, uint64_t lo, uint64_t hi, const struct spans *th,
		    uint64_t (*part)[2])
{
	uint32_t n = outside(lo, hi, th, part);

	for (uint32_t i = 0; i < n; i++) {
		wc->idle_ns += part[i][1] - part[i][0];
		if (part[i][1] - part[i][0] > wc->longest_ns)
			wc->longest_ns = part[i][1] - part[i][0];
	}
}

/*
 * A wait longer than the threshold: each other CPU it may use adds its idle
 * time during the wait's pieces, past what earlier waits counted there,
 * leaving out the time its cgroup was throttled.
 */
void lat_work_conservation(struct lat_analysis *a, const struct lat_wait *w)
{
	if (a->nwc < a->ncpus) {
		a->wc = xrealloc(a->wc, a->ncpus * sizeof(*a->wc), "latency: work conservation");
		memset(&a->wc[a->nwc], 0, (a->ncpus - a->nwc) * sizeof(*a->wc));
		a->nwc = a->ncpus;
	}
	a->wc_waits++;
	for (uint32_t i = 0; i < w->npiece; i++) {
		const struct lat_piece *p = &w->piece[i];
		struct spans th = { 0 };
		uint64_t (*part)[2];
		/* Runnable from a timer wait's wakeup only. */
		uint64_t from = w->runnable > p->start ? w->runnable : p->start;

		if (p->cpu < 0)
			continue;
		piece_throttled(a, w, p, &th);
		part = xcalloc(th.n + 1, sizeof(*part), "latency: work conservation");
		for (uint32_t cpu = 0; cpu < a->ncpus; cpu++) {
			struct lat_cpu *c = &a->cpus[cpu];
			struct lat_wc *wc = &a->wc[cpu];
			uint64_t lo = from > wc->counted_to ? from : wc->counted_to;
			uint64_t oldest = c->nsegs > RING_SEGS ? c->nsegs - RING_SEGS : 0;

			if ((int32_t)cpu == p->cpu || !c->seen || !may_use(p->cpus, cpu) ||
			    lo >= p->end)
				continue;
			for (uint64_t k = c->nsegs; c->ring && k > oldest; k--) {
				const struct lat_seg *g = &c->ring[(k - 1) & (RING_SEGS - 1)];
				uint64_t s = g->start > lo ? g->start : lo;
				uint64_t e = g->end < p->end ? g->end : p->end;

				if (g->end <= lo && (g->kind == SEG_THREAD || g->kind == SEG_IDLE))
					break;
				if (g->kind == SEG_IDLE && e > s)
					wc_idle(wc, s, e, &th, part);
			}
			if (!c->tid && c->since < p->end)
				wc_idle(wc, c->since > lo ? c->since : lo, p->end, &th, part);
			wc->counted_to = p->end;
		}
		free(part);
		free(th.s);
	}
}

void lat_causes(struct lat_analysis *a, struct lat_wait *w)
{
	struct sweep s = { .e = a->edges, .cap = a->edges_cap };
	const struct cpu_mask *cpus = w->cpus;
	uint64_t at = w->start;
	int32_t cpu = w->queue_cpu;

	memset(w->causes, 0, sizeof(w->causes));
	w->throttled_path = w->throttled_cpu_max = NULL;
	w->throttled_v1 = false;
	w->throttled_cgroup_id = 0;
	w->npiece = 0;
	w->untraced_ns = w->lost_ns = 0;
	if (!w->have_migrations) {
		/* Without migration records, the CPU it ran on is the best guess. */
		cpu = w->cpu;
		w->nmig = 0;
	} else if (cpu < 0) {
		cpu = w->nmig ? w->mig[0].from : (int32_t)w->cpu;
	}
	for (uint32_t i = 0; i <= w->nmig; i++) {
		struct lat_piece *p = &w->piece[w->npiece++];
		uint64_t end = i < w->nmig ? w->mig[i].ts : w->end;

		if (end < at)
			end = at;
		*p = (struct lat_piece){ .start = at, .end = end, .cpu = cpu, .cpus = cpus };
		/* Moves left out of the list: where it sat before the last one is not known. */
		if (w->mig_dropped && i + 1 == w->nmig)
			p->cpu = -1;
		if (i < w->nmig) {
			at = end;
			cpu = w->mig[i].to;
			cpus = w->mig[i].cpus;
		}
	}
	/* A move the trace missed: the queue it ran from is not the one it waited on. */
	if (w->have_migrations && cpu != (int32_t)w->cpu)
		w->piece[w->npiece - 1].cpu = -1;
	for (uint32_t i = 0; i < w->npiece; i++) {
		const struct lat_piece *p = &w->piece[i];
		/* Of unknown, as the sweep counts it: not before a timer wait's wakeup. */
		uint64_t from = w->runnable > p->start ? w->runnable : p->start;
		struct untraced_list ul;

		piece_causes(a, w, &w->piece[i], &s);
		if (from >= p->end)
			continue;
		untraced_list(a, p->cpu, from, p->end, &ul);
		w->untraced_ns += untraced_overlap(a, &ul, p->cpu, from, p->end);
	}
	w->lost_ns -= w->untraced_ns < w->lost_ns ? w->untraced_ns : w->lost_ns;
	a->edges = s.e;
	a->edges_cap = s.cap;
}

void lat_causes_line(const uint64_t *causes, struct obuf *o)
{
	uint64_t total = 0;
	bool first = true;
	int order[LAT_CAUSES];

	for (int i = 0; i < LAT_CAUSES; i++) {
		total += causes[i];
		order[i] = i;
	}
	/* Largest first; a handful of entries. */
	for (int i = 1; i < LAT_CAUSES; i++)
		for (int j = i; j > 0 && causes[order[j]] > causes[order[j - 1]]; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int i = 0; i < LAT_CAUSES; i++) {
		if (!causes[order[i]])
			continue;
		double pct = 100.0 * causes[order[i]] / total;

		if (pct < 0.5)
			obuf_printf(o, "%s<1%% %s", first ? "" : ", ", cause_names[order[i]]);
		else
			obuf_printf(o, "%s%.0f%% %s", first ? "" : ", ", pct, cause_names[order[i]]);
		first = false;
	}
	if (first)
		obuf_lit(o, "nothing");
}
