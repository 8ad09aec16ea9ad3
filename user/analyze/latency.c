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

#include "latency_internal.h"
#include "timeline.h"

static const char *const kind_names[LAT_KINDS] = { "wakeup", "preemption", "timer" };

const char *lat_kind_name(unsigned int kind)
{
	return kind < LAT_KINDS ? kind_names[kind] : "?";
}

/* ---- tables --------------------------------------------------------------- */

/* The element for @key of a table; out of memory ends the program. */
static void *keyed_get(struct u64map *m, uint64_t key, void *vec, uint32_t *n, uint32_t *cap,
		       size_t size, bool *added, const char *what)
{
	void *e = u64map_vec_get(m, key, vec, n, cap, size, added);

	if (!e)
		out_of_memory(what);
	return e;
}

static void *vec_push(void *vec, uint32_t *n, uint32_t *cap, size_t size, const char *what)
{
	void *e = vec_add(vec, n, cap, size);

	if (!e)
		out_of_memory(what);
	return e;
}

static struct lat_thread *thread_get(struct lat_analysis *a, uint64_t tid)
{
	bool added;
	struct lat_thread *t = keyed_get(&a->thread_map, tid, &a->threads, &a->nthreads,
					 &a->cap_threads, sizeof(*t), &added, "latency: threads");

	if (added) {
		t->tid = tid;
		t->selected = -1;
		t->last_cpu = -1;
		t->waker_irq = -1;
		t->queue_cpu = -1;
		t->wait_queue_cpu = -1;
		t->snap_cpu = -1;
	}
	return t;
}

struct lat_thread *lat_thread_get(struct lat_analysis *a, uint64_t tid)
{
	return thread_get(a, tid);
}

struct lat_thread *lat_thread_find(struct lat_analysis *a, uint64_t tid)
{
	uint32_t i = u64map_find(&a->thread_map, tid);

	return i == U64MAP_NONE ? NULL : &a->threads[i];
}

static struct lat_proc *proc_get(struct lat_analysis *a, uint64_t pid)
{
	bool added;
	struct lat_proc *p = keyed_get(&a->proc_map, pid, &a->procs, &a->nprocs, &a->cap_procs,
				       sizeof(*p), &added, "latency: processes");

	p->pid = pid;
	return p;
}

const char *lat_proc_name(struct lat_analysis *a, uint64_t pid)
{
	uint32_t i = u64map_find(&a->proc_map, pid);

	return i == U64MAP_NONE || !a->procs[i].name[0] ? "?" : a->procs[i].name;
}

const char *lat_thread_name(struct lat_analysis *a, uint64_t tid)
{
	struct lat_thread *t;

	if (tid == 0)
		return "idle";
	t = lat_thread_find(a, tid);
	return t && t->name[0] ? t->name : "?";
}

static struct lat_group *group_get(struct lat_analysis *a, uint64_t key)
{
	bool added;
	struct lat_group *g = keyed_get(&a->group_map, key, &a->groups, &a->ngroups,
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

static void copy_name(char *dst, struct fxt_str s)
{
	uint32_t n = s.len < NAME_LEN - 1 ? s.len : NAME_LEN - 1;

	memcpy(dst, s.p, n);
	dst[n] = 0;
}

/* The index + 1 of cgroup path @s, added if new. */
static uint32_t cgroup_index(struct lat_analysis *a, struct fxt_str s)
{
	if (!s.len)
		return 0;
	for (uint32_t i = 0; i < a->ncgroups; i++)
		if (strlen(a->cgroups[i]) == s.len && !memcmp(a->cgroups[i], s.p, s.len))
			return i + 1;
	a->cgroups = xrealloc(a->cgroups, (a->ncgroups + 1) * sizeof(*a->cgroups),
			      "latency: cgroups");
	a->cgroups[a->ncgroups] = strndup(s.p, s.len);
	if (!a->cgroups[a->ncgroups])
		out_of_memory("latency: cgroups");
	return ++a->ncgroups;
}

/*
 * The index + 1 of a cgroup given by id alone: the archive gives every
 * cgroup there was at the end of the recording its path, so this one was
 * removed before then.  No path matches it (--cgroup).
 */
static uint32_t removed_cgroup_index(struct lat_analysis *a, uint64_t id)
{
	char name[48];
	struct fxt_str s = { name, 0 };

	s.len = snprintf(name, sizeof(name), "cgroup id %llu (removed)", (unsigned long long)id);
	return cgroup_index(a, s);
}

const char *lat_cgroup_name(struct lat_analysis *a, uint64_t key)
{
	return key && key <= a->ncgroups ? a->cgroups[key - 1] : "?";
}

/* Whether cgroup @path is @want or below it. */
bool lat_cgroup_under(const char *path, const char *want)
{
	size_t n = strlen(want);

	while (n > 1 && want[n - 1] == '/')
		n--;
	if (n == 1 && want[0] == '/')
		return path[0] == '/';
	return !strncmp(path, want, n) && (path[n] == 0 || path[n] == '/');
}

static int32_t irq_name_index(struct lat_analysis *a, struct fxt_str s)
{
	for (uint32_t i = 0; i < a->nirq_names; i++)
		if (strlen(a->irq_names[i]) == s.len && !memcmp(a->irq_names[i], s.p, s.len))
			return i;
	if (a->nirq_names >= 4096)
		return -1;
	a->irq_names = xrealloc(a->irq_names, (a->nirq_names + 1) * sizeof(*a->irq_names),
				 "latency: interrupt names");
	a->irq_names[a->nirq_names] = strndup(s.p, s.len);
	if (!a->irq_names[a->nirq_names])
		return -1;
	return a->nirq_names++;
}

/* ---- set up -------------------------------------------------------------- */

/* The worst waits are kept by their length. */
static uint64_t wait_key(const void *w)
{
	return lat_wait_ns(w);
}

struct lat_analysis *lat_new(const struct lat_opts *o)
{
	struct lat_analysis *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->o = *o;
	if (!a->o.unit_ns)
		a->o.unit_ns = 1000;
	if (!a->o.idle_threshold_ns)
		a->o.idle_threshold_ns = 1000000;
	a->top = calloc(a->o.top ? a->o.top : 1, sizeof(*a->top));
	if (!a->top) {
		free(a);
		return NULL;
	}
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

/* Records lost that may hide a switch or a wakeup (not a timer expiry's or a name's). */
static bool is_loss(const struct fxt_record *rec)
{
	return rec->type == KTRACE_FXT_REC_EVENT && fxt_str_eq(rec->cat, "ktrace:meta") &&
	       fxt_str_eq(rec->name, "dropped") && timeline_loss_hides_switches(rec);
}

/*
 * A stretch where the kernel switched without tracing it: the stranded
 * thread left the CPU and the other one came on at unknown times, and what
 * ran on that CPU meanwhile is unknown.  No wait of those two threads
 * across it is measured, nor a wait that ends on that CPU across it (its
 * blame would be made up); they count with the ones that overlap losses.
 */
static void scan_untraced(struct lat_analysis *a, const struct fxt_reader *r,
			  const struct fxt_record *rec)
{
	uint64_t ts = fxt_ticks_to_ns(r, rec->ts);
	struct lat_untraced *u;
	uint32_t cpu;

	if (rec->type != KTRACE_FXT_REC_EVENT || !fxt_str_eq(rec->cat, "ktrace:meta"))
		return;
	/*
	 * An offline CPU, from its cpu_offline record to its cpu_online one:
	 * what ran there last stopped at some unknown time before the first.
	 */
	if (fxt_str_eq(rec->name, "cpu_offline") || fxt_str_eq(rec->name, "cpu_online")) {
		cpu = fxt_arg_u64(rec, "cpu", UINT32_MAX);
		if (fxt_str_eq(rec->name, "cpu_online")) {
			for (uint32_t i = a->nuntraced; i-- > 0;)
				if (a->untraced[i].cpu == cpu && a->untraced[i].last == UINT64_MAX) {
					a->untraced[i].last = ts;
					break;
				}
			return;
		}
		u = vec_push(&a->untraced, &a->nuntraced, &a->cap_untraced, sizeof(*u),
			     "latency: untraced stretches");
		*u = (struct lat_untraced){ .first = ts, .last = UINT64_MAX, .cpu = cpu };
		return;
	}
	if (!fxt_str_eq(rec->name, "untraced_switch"))
		return;
	u = vec_push(&a->untraced, &a->nuntraced, &a->cap_untraced, sizeof(*u),
			     "latency: untraced stretches");
	u->first = fxt_ticks_to_ns(r, fxt_arg_u64(rec, "first_ts", rec->ts));
	u->last = fxt_ticks_to_ns(r, fxt_arg_u64(rec, "last_ts", rec->ts));
	u->tid[0] = fxt_arg_u64(rec, "tid", 0);
	u->tid[1] = fxt_arg_u64(rec, "switched_out", 0);
	u->cpu = fxt_arg_u64(rec, "cpu", UINT32_MAX);
}

/*
 * Whether an untraced stretch may hide @tid's own switch-in or switch-out
 * during [start, end]: it is one of the stretch's two threads.  A stretch
 * of other threads only hides what held that CPU: the wait is measured,
 * and that part of its causes is unknown (causes.c).
 */
static bool across_untraced(const struct lat_analysis *a, uint64_t tid, uint64_t start,
			    uint64_t end)
{
	for (uint32_t i = 0; i < a->nuntraced; i++) {
		const struct lat_untraced *u = &a->untraced[i];

		if (tid && (u->tid[0] == tid || u->tid[1] == tid) && u->first <= end &&
		    u->last >= start)
			return true;
	}
	return false;
}

/* Pass 1: every name (a thread may be named after it first runs), every loss. */
void lat_scan(struct lat_analysis *a, const struct fxt_reader *r, const struct fxt_record *rec)
{
	const struct fxt_arg *x;
	struct lat_range *loss;

	if (rec->type == KTRACE_FXT_REC_KERNEL_OBJ) {
		if (rec->obj_type == KTRACE_FXT_OBJ_THREAD) {
			struct lat_thread *t = thread_get(a, rec->koid);

			copy_name(t->name, rec->name);
			x = fxt_find_arg(rec, "process");
			if (x && x->type == KTRACE_FXT_ARG_KOID)
				t->pid = x->u;
			t->cpus = cpu_masks_of(&a->masks, rec);
			x = fxt_find_arg(rec, "cgroup");
			if (x && x->type == KTRACE_FXT_ARG_STRING)
				t->cgroup = cgroup_index(a, x->s);
			else if (fxt_arg_u64(rec, "cgroup_id", 0))
				t->cgroup = removed_cgroup_index(a, fxt_arg_u64(rec, "cgroup_id", 0));
		} else if (rec->obj_type == KTRACE_FXT_OBJ_PROCESS) {
			copy_name(proc_get(a, rec->koid)->name, rec->name);
		}
		return;
	}
	scan_untraced(a, r, rec);
	lat_throttle_scan(a, r, rec);
	if (rec->type == KTRACE_FXT_REC_EVENT && fxt_str_eq(rec->cat, "ktrace:meta") &&
	    fxt_str_eq(rec->name, "trace_info")) {
		x = fxt_find_arg(rec, "preemption");
		if (x && x->type == KTRACE_FXT_ARG_STRING)
			snprintf(a->preemption, sizeof(a->preemption), "%.*s", (int)x->s.len, x->s.p);
	}
	if (lat_is_migrate(rec))
		a->have_migrations = true;
	if (kstack_names_note(&a->kstacks, rec) || !is_loss(rec))
		return;
	x = fxt_find_arg(rec, "source");
	if (x && x->type == KTRACE_FXT_ARG_STRING && fxt_str_eq(x->s, "ftrace")) {
		/* ftrace's own events (interrupts): blame may miss some. */
		a->ftrace_lost += fxt_arg_u64(rec, "count", 0);
		return;
	}
	a->lost_records += fxt_arg_u64(rec, "count", 0);
	loss = vec_push(&a->losses, &a->nlosses, &a->cap_losses, sizeof(*loss), "latency: losses");
	/* Without a time range, the loss happened some time before the record. */
	loss->first = fxt_ticks_to_ns(r, fxt_arg_u64(rec, "first_ts", 0));
	loss->last = fxt_ticks_to_ns(r, fxt_arg_u64(rec, "last_ts", rec->ts));
	if (loss->last < loss->first)
		loss->last = loss->first;
}

static int cmp_range(const void *x, const void *y)
{
	const struct lat_range *p = x, *q = y;

	return p->first < q->first ? -1 : p->first > q->first;
}

/* Sorts and merges the loss ranges; decides which threads the filters keep. */
void lat_scan_done(struct lat_analysis *a)
{
	uint32_t n = 0;

	if (a->nlosses)
		qsort(a->losses, a->nlosses, sizeof(*a->losses), cmp_range);
	for (uint32_t i = 0; i < a->nlosses; i++) {
		if (n && a->losses[i].first <= a->losses[n - 1].last) {
			if (a->losses[i].last > a->losses[n - 1].last)
				a->losses[n - 1].last = a->losses[i].last;
		} else {
			a->losses[n++] = a->losses[i];
		}
	}
	a->nlosses = n;
	lat_throttle_scan_done(a);
}

uint32_t lat_first_loss(const struct lat_analysis *a, uint64_t start)
{
	uint32_t lo = 0, hi = a->nlosses;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (a->losses[mid].last < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool overlaps_loss(const struct lat_analysis *a, uint64_t start, uint64_t end)
{
	uint32_t lo = lat_first_loss(a, start);

	return lo < a->nlosses && a->losses[lo].first <= end;
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

/* The arguments the analysis reads, found in one pass over a record's. */
struct sched_args {
	const struct fxt_arg *in_weight, *state, *waker, *ctx, *interrupted, *kstack, *cpus;
	const struct fxt_arg *in_kstack;
};

static bool name_is(const struct fxt_arg *x, const char *lit, uint32_t len)
{
	return x->name.len == len && !memcmp(x->name.p, lit, len);
}

static void find_args(const struct fxt_record *rec, struct sched_args *sa)
{
	memset(sa, 0, sizeof(*sa));
	for (unsigned int i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *x = &rec->args[i];

		if (name_is(x, "incoming_weight", 15))
			sa->in_weight = x;
		else if (name_is(x, "linux_state", 11))
			sa->state = x;
		else if (name_is(x, "waker", 5))
			sa->waker = x;
		else if (name_is(x, "irq_context", 11))
			sa->ctx = x;
		else if (name_is(x, "interrupted", 11))
			sa->interrupted = x;
		else if (name_is(x, "kstack", 6))
			sa->kstack = x;
		else if (name_is(x, "cpus", 4))
			sa->cpus = x;
		else if (name_is(x, "incoming_kstack", 15))
			sa->in_kstack = x;
	}
}

static int32_t in_weight(const struct fxt_record *rec, const struct sched_args *sa)
{
	if (rec->sub == KTRACE_FXT_SCHED_CSWITCH)
		return (int32_t)rec->in_prio;
	return sa->in_weight && sa->in_weight->type == KTRACE_FXT_ARG_INT32 ?
	       (int32_t)sa->in_weight->i : 0;
}

/* The exact Linux state, or the closest one the FXT state allows. */
static uint32_t linux_state(const struct fxt_record *rec, const struct sched_args *sa)
{
	const struct fxt_arg *x = sa->state;

	if (x && x->type == KTRACE_FXT_ARG_UINT32 && x->u <= KTRACE_LINUX_STATE_MAX)
		return x->u;
	switch (rec->out_state) {
	case KTRACE_FXT_THREAD_RUNNING:
		return KTRACE_LINUX_RUNNING;
	case KTRACE_FXT_THREAD_SUSPENDED:
		return KTRACE_LINUX_STOPPED;
	case KTRACE_FXT_THREAD_DYING:
		return KTRACE_LINUX_ZOMBIE;
	case KTRACE_FXT_THREAD_DEAD:
		return KTRACE_LINUX_DEAD;
	default:
		return KTRACE_LINUX_INTERRUPTIBLE;
	}
}

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
static void on_migrate(struct lat_analysis *a, const struct fxt_record *rec, uint64_t ts)
{
	struct lat_thread *t = thread_get(a, rec->tid);
	struct lat_migration m = {
		.ts = ts,
		.from = (int32_t)fxt_arg_u64(rec, "orig_cpu", UINT32_MAX),
		.to = (int32_t)fxt_arg_u64(rec, "dest_cpu", UINT32_MAX),
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
	gb = keyed_get(&a->gbucket_map, (uint64_t)g->id << 16 | b, &a->gbuckets, &a->ngbuckets,
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
	if (overlaps_loss(a, t->since, ts) || across_untraced(a, t->tid, t->since, ts)) {
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
	if (overlaps_loss(a, t->since, ts) || across_untraced(a, t->tid, t->since, ts))
		group_get(a, group_key(a, t, cpu))->lossy++;
}

/*
 * An untraced_switch record, just before the switch that shows it: its
 * stranded thread left the CPU at some unknown time, asleep or preempted.
 * Woken meanwhile (a wakeup while it seemed to run), it waits from then;
 * else its state is unknown until its next wakeup or switch-in.
 */
static void on_untraced(struct lat_analysis *a, const struct fxt_record *rec)
{
	struct lat_thread *t = lat_thread_find(a, fxt_arg_u64(rec, "tid", 0));

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

static void on_switch(struct lat_analysis *a, const struct fxt_record *rec, uint64_t ts)
{
	struct lat_cpu *c = cpu_get(a, rec->cpu);
	struct sched_args sa;
	struct lat_thread *t;
	uint32_t state;

	if (!c)
		return;
	find_args(rec, &sa);
	/* The legacy layout carries each side's process. */
	if (rec->sub == KTRACE_FXT_SCHED_CSWITCH) {
		if (rec->out_tid)
			thread_get(a, rec->out_tid)->pid = rec->out_pid;
		if (rec->in_tid)
			thread_get(a, rec->in_tid)->pid = rec->in_pid;
	}
	if (!c->seen) {
		c->seen = true;
		c->covered_from = ts;
	} else if (ts >= c->since) {
		c->cum[cum_label(c)] += ts - c->since;
		push_seg(c, c->tid ? SEG_THREAD : SEG_IDLE, c->tid, c->weight, c->since, ts);
		c->since = ts;	/* the totals are up to now: a snapshot below adds nothing */
	}
	if (rec->out_tid) {
		t = thread_get(a, rec->out_tid);
		state = linux_state(rec, &sa);
		if (t->state == ST_WOKEN || t->state == ST_PREEMPTED)
			wait_unseen_end(a, t, rec->cpu, ts);
		t->stranded = false;
		t->last_cpu = rec->cpu;
		t->queue_cpu = rec->cpu;
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
			t->kstack = sa.kstack && sa.kstack->type == KTRACE_FXT_ARG_UINT32 ?
				    sa.kstack->u : 0;
			t->block = state == KTRACE_LINUX_INTERRUPTIBLE ? LAT_BLOCK_S :
				   state == KTRACE_LINUX_UNINTERRUPTIBLE ? LAT_BLOCK_D :
				   LAT_BLOCK_OTHER;
		}
		t->early_wake = 0;
	}
	c->tid = rec->in_tid;
	c->weight = in_weight(rec, &sa);
	c->since = ts;
	if (!rec->in_tid)
		return;
	t = thread_get(a, rec->in_tid);
	if (t->unnamed_ns && sa.in_kstack && sa.in_kstack->type == KTRACE_FXT_ARG_UINT32) {
		t->kstack = sa.in_kstack->u;
		add_blocked_in(group_get(a, t->unnamed_key), t, t->unnamed_ns);
	}
	t->unnamed_ns = 0;
	end_wait(a, t, c, rec->cpu, ts, c->weight);
	t->stranded = false;
	t->state = ST_RUNNING;
	t->timer = TIMER_NONE;
	t->early_wake = 0;
	t->last_cpu = rec->cpu;
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

/* Who woke @t with @rec, and from what context. */
static void note_waker(struct lat_analysis *a, struct lat_thread *t, const struct fxt_record *rec,
		       uint64_t ts)
{
	const struct fxt_arg *waker, *ctx;
	struct sched_args sa;

	find_args(rec, &sa);
	waker = sa.waker;
	ctx = sa.ctx;
	/* Recorders give the allowed CPUs of a restricted thread at each wakeup. */
	t->cpus = sa.cpus ? cpu_masks_of(&a->masks, rec) : NULL;
	t->wake_cpu = rec->cpu;
	t->waker_ctx = ctx && ctx->type == KTRACE_FXT_ARG_UINT32 && ctx->u <= KTRACE_CTX_MAX ?
		       ctx->u : KTRACE_CTX_TASK;
	if (t->waker_ctx != KTRACE_CTX_TASK)
		waker = sa.interrupted;
	t->has_waker = waker && waker->type == KTRACE_FXT_ARG_KOID;
	t->waker = t->has_waker ? waker->u : 0;
	t->waker_irq = -1;
	/* The handler running on the waking CPU, if it was recorded. */
	if (t->waker_ctx != KTRACE_CTX_TASK)
		t->waker_irq = lat_cpu_irq(a, rec->cpu, ts);
}

static void on_wakeup(struct lat_analysis *a, const struct fxt_record *rec, uint64_t ts)
{
	struct lat_thread *t = thread_get(a, rec->tid);

	if (t->state == ST_RUNNING && t->last_cpu >= 0 && lat_timer_woken(t, ts)) {
		note_waker(a, t, rec, ts);
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
			note_waker(a, t, rec, ts);
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
	note_waker(a, t, rec, ts);
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
		name = irq_name_index(a, rec->name);
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
		name = irq_name_index(a, rec->name);
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

void lat_record(struct lat_analysis *a, const struct fxt_reader *r, const struct fxt_record *rec)
{
	uint64_t ts;

	if (rec->type == KTRACE_FXT_REC_SCHED) {
		if (rec->sub > KTRACE_FXT_SCHED_WAKEUP)
			return;
		a->records++;
		ts = fxt_ticks_to_ns(r, rec->ts);
	} else if (rec->type == KTRACE_FXT_REC_EVENT) {
		ts = fxt_ticks_to_ns(r, rec->ts);
		if (rec->pid == KTRACE_FXT_IRQ_PID)
			on_irq_event(a, rec, ts, r);
		else if (lat_is_migrate(rec))
			on_migrate(a, rec, ts);
		else if (lat_is_affinity(rec) && rec->tid)
			thread_get(a, rec->tid)->cpus = cpu_masks_of(&a->masks, rec);
		else if (lat_is_timer_expire(rec) && rec->tid)
			lat_timer_expire(thread_get(a, rec->tid), rec, ts);
		else if (fxt_str_eq(rec->cat, "ktrace:meta") &&
			 fxt_str_eq(rec->name, "untraced_switch"))
			on_untraced(a, rec);
		return;
	} else {
		return;
	}
	if (ts < a->first_ts)
		a->first_ts = ts;
	if (ts > a->last_ts)
		a->last_ts = ts;
	if (rec->sub == KTRACE_FXT_SCHED_WAKEUP)
		on_wakeup(a, rec, ts);
	else
		on_switch(a, rec, ts);
}

/* ---- for another pass over the same records (the critical path) ---------- */

uint32_t *lat_thread_ext(struct lat_analysis *a, uint64_t tid, bool add)
{
	struct lat_thread *t = add ? thread_get(a, tid) : lat_thread_find(a, tid);

	return t ? &t->ext : NULL;
}

bool lat_selects(struct lat_analysis *a, uint64_t tid)
{
	return tid && selected(a, thread_get(a, tid));
}

uint64_t lat_thread_pid(struct lat_analysis *a, uint64_t tid)
{
	struct lat_thread *t = lat_thread_find(a, tid);

	return t ? t->pid : 0;
}

bool lat_overlaps_loss(const struct lat_analysis *a, uint64_t start, uint64_t end)
{
	return overlaps_loss(a, start, end);
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

const char *lat_irq_name(struct lat_analysis *a, int32_t idx)
{
	return idx >= 0 && (uint32_t)idx < a->nirq_names ? a->irq_names[idx] : NULL;
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
