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

#include "kstacks.h"
#include "latency.h"

enum lat_state { ST_UNKNOWN, ST_RUNNING, ST_WOKEN, ST_PREEMPTED, ST_BLOCKED, ST_DEAD };
enum lat_seg_kind { SEG_THREAD, SEG_IDLE, SEG_HARDIRQ, SEG_SOFTIRQ };

#define RING_SEGS	4096		/* per CPU: a power of two */
#define IRQ_NEST	4
#define NAME_LEN	16

struct lat_thread {
	uint64_t tid, pid;
	char name[NAME_LEN];
	uint8_t state, block;
	int8_t selected;		/* filter result: -1 not yet known */
	uint8_t waker_ctx;
	bool has_waker;
	int32_t last_cpu;
	uint32_t wake_cpu;
	int32_t waker_irq;
	int32_t weight;
	uint64_t since;
	uint64_t waker;
	uint64_t kstack;		/* where it blocked, 0 if not recorded */
	uint32_t ext;			/* another analysis's index + 1 (lat_thread_ext()) */
};

struct lat_proc {
	uint64_t pid;
	char name[NAME_LEN];
};

struct lat_seg {
	uint64_t start, end, id;
	int32_t weight;
	uint8_t kind;
};

struct lat_cpu {
	bool seen;
	uint64_t covered_from;		/* first switch seen: the ring knows nothing before */
	uint64_t tid, since;
	int32_t weight;
	struct lat_seg *ring;
	uint64_t nsegs;			/* segments ever pushed */
	struct {
		uint64_t start;
		int32_t name;
		uint8_t kind;
	} irq[IRQ_NEST];
	int nirq;
};

/* Open-addressing map from a 64-bit key to an index into a vector. */
struct u64map {
	uint64_t *keys;
	uint32_t *vals;
	uint32_t size, used;
};

struct lat_range {
	uint64_t first, last;
};

struct lat_analysis {
	struct lat_opts o;
	struct u64map thread_map, proc_map, group_map;
	struct lat_thread *threads;
	uint32_t nthreads, cap_threads;
	struct lat_proc *procs;
	uint32_t nprocs, cap_procs;
	struct lat_group *groups;
	uint32_t ngroups, cap_groups;
	struct lat_cpu *cpus;
	uint32_t ncpus;
	char **irq_names;
	uint32_t nirq_names;
	struct lat_range *losses;
	uint32_t nlosses, cap_losses;
	struct lat_untraced {
		uint64_t first, last, tid[2];
		uint32_t cpu;
	} *untraced;
	uint32_t nuntraced, cap_untraced;
	uint64_t lost_records, ftrace_lost;
	bool have_irq;
	struct lat_wait *top;		/* min-heap by latency */
	uint32_t ntop;
	bool sorted_by_start;
	uint64_t records, first_ts, last_ts, waits, filtered;
	struct kstack_names kstacks;
};

static const char *const kind_names[LAT_KINDS] = { "wakeup", "preemption" };

const char *lat_kind_name(unsigned int kind)
{
	return kind < LAT_KINDS ? kind_names[kind] : "?";
}

/* ---- containers ---------------------------------------------------------- */

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		pr_err("out of memory");
		exit(1);
	}
	return p;
}

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static uint32_t *map_slot(struct u64map *m, uint64_t key, bool *found)
{
	uint32_t i = mix(key) & (m->size - 1);

	while (m->vals[i] != UINT32_MAX && m->keys[i] != key)
		i = (i + 1) & (m->size - 1);
	*found = m->vals[i] != UINT32_MAX;
	m->keys[i] = key;
	return &m->vals[i];
}

static void map_grow(struct u64map *m)
{
	struct u64map old = *m;
	bool found;

	m->size = old.size ? old.size * 2 : 256;
	m->keys = xrealloc(NULL, m->size * sizeof(*m->keys));
	m->vals = xrealloc(NULL, m->size * sizeof(*m->vals));
	memset(m->vals, 0xff, m->size * sizeof(*m->vals));
	for (uint32_t i = 0; i < old.size; i++)
		if (old.vals[i] != UINT32_MAX)
			*map_slot(m, old.keys[i], &found) = old.vals[i];
	free(old.keys);
	free(old.vals);
}

/* Index of @key, or UINT32_MAX; with @add, a new index @next is stored when absent. */
static uint32_t map_get(struct u64map *m, uint64_t key, bool add, uint32_t next)
{
	uint32_t *slot;
	bool found;

	if (!m->size || (add && (m->used + 1) * 10 > m->size * 7))
		map_grow(m);
	slot = map_slot(m, key, &found);
	if (found)
		return *slot;
	if (!add)
		return UINT32_MAX;
	m->used++;
	*slot = next;
	return next;
}

/* A new zeroed element at the end of vector @v of @n elements of @size, grown by doubling. */
static void *vec_add(void *v, uint32_t *n, uint32_t *cap, size_t size)
{
	void **p = v;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*p = xrealloc(*p, *cap * size);
	}
	return memset((char *)*p + (*n)++ * size, 0, size);
}

/*
 * The element for @key in the vector *@v that @m indexes: appended zeroed,
 * with *@added set, when it is new.
 */
static void *keyed_get(struct u64map *m, uint64_t key, void *v, uint32_t *n, uint32_t *cap,
		       size_t size, bool *added)
{
	uint32_t i = map_get(m, key, true, *n);

	*added = i == *n;
	return *added ? vec_add(v, n, cap, size) : (char *)*(void **)v + (size_t)i * size;
}

/* The index of @key in @m, or UINT32_MAX. */
static uint32_t map_find(struct u64map *m, uint64_t key)
{
	return m->size ? map_get(m, key, false, 0) : UINT32_MAX;
}

static struct lat_thread *thread_get(struct lat_analysis *a, uint64_t tid)
{
	bool added;
	struct lat_thread *t = keyed_get(&a->thread_map, tid, &a->threads, &a->nthreads,
					 &a->cap_threads, sizeof(*t), &added);

	if (added) {
		t->tid = tid;
		t->selected = -1;
		t->last_cpu = -1;
		t->waker_irq = -1;
	}
	return t;
}

static struct lat_thread *thread_find(struct lat_analysis *a, uint64_t tid)
{
	uint32_t i = map_find(&a->thread_map, tid);

	return i == UINT32_MAX ? NULL : &a->threads[i];
}

static struct lat_proc *proc_get(struct lat_analysis *a, uint64_t pid)
{
	bool added;
	struct lat_proc *p = keyed_get(&a->proc_map, pid, &a->procs, &a->nprocs, &a->cap_procs,
				       sizeof(*p), &added);

	p->pid = pid;
	return p;
}

static const char *proc_name(struct lat_analysis *a, uint64_t pid)
{
	uint32_t i = map_find(&a->proc_map, pid);

	return i == UINT32_MAX || !a->procs[i].name[0] ? "?" : a->procs[i].name;
}

const char *lat_thread_name(struct lat_analysis *a, uint64_t tid)
{
	struct lat_thread *t;

	if (tid == 0)
		return "idle";
	t = thread_find(a, tid);
	return t && t->name[0] ? t->name : "?";
}

static struct lat_group *group_get(struct lat_analysis *a, uint64_t key)
{
	bool added;
	struct lat_group *g = keyed_get(&a->group_map, key, &a->groups, &a->ngroups,
					&a->cap_groups, sizeof(*g), &added);

	g->key = key;
	return g;
}

static struct lat_cpu *cpu_get(struct lat_analysis *a, uint32_t cpu)
{
	if (cpu >= 65536)
		return NULL;
	if (cpu >= a->ncpus) {
		uint32_t n = cpu + 1;

		a->cpus = xrealloc(a->cpus, n * sizeof(*a->cpus));
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

static int32_t irq_name_index(struct lat_analysis *a, struct fxt_str s)
{
	for (uint32_t i = 0; i < a->nirq_names; i++)
		if (strlen(a->irq_names[i]) == s.len && !memcmp(a->irq_names[i], s.p, s.len))
			return i;
	if (a->nirq_names >= 4096)
		return -1;
	a->irq_names = xrealloc(a->irq_names, (a->nirq_names + 1) * sizeof(*a->irq_names));
	a->irq_names[a->nirq_names] = strndup(s.p, s.len);
	if (!a->irq_names[a->nirq_names])
		return -1;
	return a->nirq_names++;
}

/* ---- set up -------------------------------------------------------------- */

struct lat_analysis *lat_new(const struct lat_opts *o)
{
	struct lat_analysis *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->o = *o;
	if (!a->o.unit_ns)
		a->o.unit_ns = 1000;
	a->top = calloc(a->o.top ? a->o.top : 1, sizeof(*a->top));
	if (!a->top) {
		free(a);
		return NULL;
	}
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
	free(a->irq_names);
	free(a->cpus);
	free(a->threads);
	free(a->procs);
	free(a->groups);
	free(a->losses);
	free(a->untraced);
	free(a->top);
	free(a->thread_map.keys);
	free(a->thread_map.vals);
	free(a->proc_map.keys);
	free(a->proc_map.vals);
	free(a->group_map.keys);
	free(a->group_map.vals);
	free(a);
}

static uint64_t arg_u(const struct fxt_record *rec, const char *name, uint64_t dflt)
{
	const struct fxt_arg *x = fxt_find_arg(rec, name);

	if (!x || x->type == KTRACE_FXT_ARG_STRING || x->type == KTRACE_FXT_ARG_DOUBLE ||
	    x->type == KTRACE_FXT_ARG_NULL)
		return dflt;
	return x->u;
}

static bool is_loss(const struct fxt_record *rec)
{
	return rec->type == KTRACE_FXT_REC_EVENT && fxt_str_eq(rec->cat, "ktrace:meta") &&
	       fxt_str_eq(rec->name, "dropped");
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
		cpu = arg_u(rec, "cpu", UINT32_MAX);
		if (fxt_str_eq(rec->name, "cpu_online")) {
			for (uint32_t i = a->nuntraced; i-- > 0;)
				if (a->untraced[i].cpu == cpu && a->untraced[i].last == UINT64_MAX) {
					a->untraced[i].last = ts;
					break;
				}
			return;
		}
		u = vec_add(&a->untraced, &a->nuntraced, &a->cap_untraced, sizeof(*u));
		*u = (struct lat_untraced){ .first = ts, .last = UINT64_MAX, .cpu = cpu };
		return;
	}
	if (!fxt_str_eq(rec->name, "untraced_switch"))
		return;
	u = vec_add(&a->untraced, &a->nuntraced, &a->cap_untraced, sizeof(*u));
	u->first = fxt_ticks_to_ns(r, arg_u(rec, "first_ts", rec->ts));
	u->last = fxt_ticks_to_ns(r, arg_u(rec, "last_ts", rec->ts));
	u->tid[0] = arg_u(rec, "tid", 0);
	u->tid[1] = arg_u(rec, "switched_out", 0);
	u->cpu = arg_u(rec, "cpu", UINT32_MAX);
}

static bool across_untraced(const struct lat_analysis *a, uint64_t tid, uint32_t cpu,
			    uint64_t start, uint64_t end)
{
	for (uint32_t i = 0; i < a->nuntraced; i++) {
		const struct lat_untraced *u = &a->untraced[i];

		if (((tid && (u->tid[0] == tid || u->tid[1] == tid)) || u->cpu == cpu) &&
		    u->first <= end &&
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
		} else if (rec->obj_type == KTRACE_FXT_OBJ_PROCESS) {
			copy_name(proc_get(a, rec->koid)->name, rec->name);
		}
		return;
	}
	scan_untraced(a, r, rec);
	if (kstack_names_note(&a->kstacks, rec) || !is_loss(rec))
		return;
	x = fxt_find_arg(rec, "source");
	if (x && x->type == KTRACE_FXT_ARG_STRING && fxt_str_eq(x->s, "ftrace")) {
		/* ftrace's own events (interrupts): blame may miss some. */
		a->ftrace_lost += arg_u(rec, "count", 0);
		return;
	}
	a->lost_records += arg_u(rec, "count", 0);
	loss = vec_add(&a->losses, &a->nlosses, &a->cap_losses, sizeof(*loss));
	/* Without a time range, the loss happened some time before the record. */
	loss->first = fxt_ticks_to_ns(r, arg_u(rec, "first_ts", 0));
	loss->last = fxt_ticks_to_ns(r, arg_u(rec, "last_ts", rec->ts));
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
}

static bool overlaps_loss(const struct lat_analysis *a, uint64_t start, uint64_t end)
{
	uint32_t lo = 0, hi = a->nlosses;

	/* The first range that ends at or after @start. */
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (a->losses[mid].last < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->nlosses && a->losses[lo].first <= end;
}

static bool selected(struct lat_analysis *a, struct lat_thread *t)
{
	if (t->selected < 0) {
		bool ok = true;

		if (a->o.pid >= 0)
			ok = t->tid == (uint64_t)a->o.pid || t->pid == (uint64_t)a->o.pid;
		if (ok && a->o.comm)
			ok = !strcmp(t->name, a->o.comm) || !strcmp(proc_name(a, t->pid), a->o.comm);
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
					  !strcmp(proc_name(a, t->pid), a->o.comm));

		m->threads++;
		m->pid_threads += pid;
		m->comm_threads += comm;
		m->both_threads += pid && comm;
	}
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
	default:
		return t->tid;
	}
}

/* ---- histograms ---------------------------------------------------------- */

static uint32_t bucket_of(uint64_t v)
{
	int e;

	if (v < (1U << LAT_SUB_BITS))
		return v;
	e = 63 - __builtin_clzll(v);
	return ((e - LAT_SUB_BITS + 1) << LAT_SUB_BITS) |
	       ((v >> (e - LAT_SUB_BITS)) & ((1U << LAT_SUB_BITS) - 1));
}

/* The middle of bucket @b. */
static uint64_t bucket_mid(uint32_t b)
{
	uint32_t e, m;

	if (b < (1U << LAT_SUB_BITS))
		return b;
	e = (b >> LAT_SUB_BITS) + LAT_SUB_BITS - 1;
	m = b & ((1U << LAT_SUB_BITS) - 1);
	return (((uint64_t)(1U << LAT_SUB_BITS) | m) << (e - LAT_SUB_BITS)) +
	       ((1ULL << (e - LAT_SUB_BITS)) >> 1);
}

static uint64_t percentile(const struct lat_dist *d, double p)
{
	uint64_t want, seen = 0, v;

	if (!d->count || !d->fine)
		return 0;
	want = (uint64_t)(p * d->count + 0.999999);
	if (want < 1)
		want = 1;
	for (uint32_t b = 0; b < LAT_BUCKETS; b++) {
		seen += d->fine[b];
		if (seen >= want) {
			v = bucket_mid(b);
			return v < d->min ? d->min : v > d->max ? d->max : v;
		}
	}
	return d->max;
}

static void dist_add(struct lat_analysis *a, struct lat_dist *d, uint64_t ns, uint64_t end,
		     uint64_t tid)
{
	uint64_t u;
	int b = 0;

	if (!d->fine) {
		d->fine = xrealloc(NULL, LAT_BUCKETS * sizeof(*d->fine));
		memset(d->fine, 0, LAT_BUCKETS * sizeof(*d->fine));
		d->min = UINT64_MAX;
	}
	if (a->o.hist && !d->log2) {
		d->log2 = xrealloc(NULL, LAT_LOG2_BUCKETS * sizeof(*d->log2));
		memset(d->log2, 0, LAT_LOG2_BUCKETS * sizeof(*d->log2));
	}
	d->fine[bucket_of(ns)]++;
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

	if (!c->ring) {
		c->ring = xrealloc(NULL, RING_SEGS * sizeof(*c->ring));
		c->nsegs = 0;
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

static uint64_t wait_ns(const struct lat_wait *w)
{
	return w->end - w->start;
}

static void heap_down(struct lat_wait *h, uint32_t n, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, m = i;
		struct lat_wait tmp;

		if (l < n && wait_ns(&h[l]) < wait_ns(&h[m]))
			m = l;
		if (l + 1 < n && wait_ns(&h[l + 1]) < wait_ns(&h[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

static void heap_up(struct lat_wait *h, uint32_t i)
{
	while (i) {
		uint32_t p = (i - 1) / 2;
		struct lat_wait tmp;

		if (wait_ns(&h[p]) <= wait_ns(&h[i]))
			return;
		tmp = h[i];
		h[i] = h[p];
		h[p] = tmp;
		i = p;
	}
}

static void keep_top(struct lat_analysis *a, struct lat_thread *t, struct lat_cpu *c,
		     uint8_t kind, uint32_t cpu, uint64_t end, int32_t weight)
{
	struct lat_wait w = { 0 };

	if (!a->o.top || (a->ntop == a->o.top && end - t->since <= wait_ns(&a->top[0])))
		return;
	w.start = t->since;
	w.end = end;
	w.tid = t->tid;
	w.pid = t->pid;
	w.kind = kind;
	w.cpu = cpu;
	w.prev_cpu = t->last_cpu;
	w.weight = weight;
	w.have_irq = a->have_irq;
	if (kind == LAT_WAKEUP) {
		w.wake_cpu = t->wake_cpu;
		w.waker = t->waker;
		w.has_waker = t->has_waker;
		w.waker_ctx = t->waker_ctx;
		w.waker_irq = t->waker_irq;
	} else {
		w.waker_irq = -1;
	}
	blame(c, &w);
	qsort(w.run, w.nrun, sizeof(w.run[0]), cmp_share);
	qsort(w.irq, w.nirq, sizeof(w.irq[0]), cmp_share);
	if (a->ntop < a->o.top) {
		a->top[a->ntop] = w;
		heap_up(a->top, a->ntop++);
	} else {
		a->top[0] = w;
		heap_down(a->top, a->ntop, 0);
	}
}

/* ---- pass 2 -------------------------------------------------------------- */

/* The arguments the analysis reads, found in one pass over a record's. */
struct sched_args {
	const struct fxt_arg *in_weight, *state, *waker, *ctx, *interrupted, *kstack;
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

/* A switch-in of @t on @cpu at @ts: the end of whatever it waited for. */
static void end_wait(struct lat_analysis *a, struct lat_thread *t, struct lat_cpu *c,
		     uint32_t cpu, uint64_t ts, int32_t weight)
{
	uint8_t kind = t->state == ST_PREEMPTED ? LAT_PREEMPT : LAT_WAKEUP;
	struct lat_group *g;
	uint64_t ns;

	if (!selected(a, t) || (a->o.cpu >= 0 && cpu != (uint64_t)a->o.cpu))
		return;
	if (t->state != ST_WOKEN && t->state != ST_PREEMPTED) {
		g = group_get(a, group_key(a, t, cpu));
		if (t->state == ST_UNKNOWN)
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
	if (overlaps_loss(a, t->since, ts) || across_untraced(a, t->tid, cpu, t->since, ts)) {
		g->lossy++;
		return;
	}
	a->waits++;
	dist_add(a, &g->d[kind], ns, ts, t->tid);
	keep_top(a, t, c, kind, cpu, ts, weight);
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
		push_seg(c, c->tid ? SEG_THREAD : SEG_IDLE, c->tid, c->weight, c->since, ts);
	}
	if (rec->out_tid) {
		t = thread_get(a, rec->out_tid);
		state = linux_state(rec, &sa);
		t->last_cpu = rec->cpu;
		t->since = ts;
		if (state == KTRACE_LINUX_RUNNING) {
			t->state = ST_PREEMPTED;
		} else if (state == KTRACE_LINUX_ZOMBIE || state == KTRACE_LINUX_DEAD) {
			t->state = ST_DEAD;
		} else {
			t->state = ST_BLOCKED;
			t->kstack = sa.kstack && sa.kstack->type == KTRACE_FXT_ARG_UINT32 ?
				    sa.kstack->u : 0;
			t->block = state == KTRACE_LINUX_INTERRUPTIBLE ? LAT_BLOCK_S :
				   state == KTRACE_LINUX_UNINTERRUPTIBLE ? LAT_BLOCK_D :
				   LAT_BLOCK_OTHER;
		}
	}
	c->tid = rec->in_tid;
	c->weight = in_weight(rec, &sa);
	c->since = ts;
	if (!rec->in_tid)
		return;
	t = thread_get(a, rec->in_tid);
	end_wait(a, t, c, rec->cpu, ts, c->weight);
	t->state = ST_RUNNING;
	t->last_cpu = rec->cpu;
	t->weight = c->weight;
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
						 sizeof(*g->blocked_in));
		b = &g->blocked_in[g->nblocked_in++];
		b->kstack = t->kstack;
		b->block = t->block;
		b->ns = b->n = 0;
	}
	b->ns += ns;
	b->n++;
}

static void on_wakeup(struct lat_analysis *a, const struct fxt_record *rec, uint64_t ts)
{
	struct lat_thread *t = thread_get(a, rec->tid);
	const struct fxt_arg *waker, *ctx;
	struct sched_args sa;
	struct lat_cpu *c;

	/* A running or already runnable thread: nothing starts waiting. */
	if (t->state != ST_BLOCKED && t->state != ST_UNKNOWN)
		return;
	find_args(rec, &sa);
	waker = sa.waker;
	ctx = sa.ctx;
	if (t->state == ST_BLOCKED && selected(a, t) && ts >= t->since) {
		struct lat_group *g = group_get(a, group_key(a, t, t->last_cpu < 0 ? 0 :
								  (uint32_t)t->last_cpu));

		g->blocked_ns[t->block] += ts - t->since;
		g->blocked_n[t->block]++;
		if (t->kstack)
			add_blocked_in(g, t, ts - t->since);
	}
	t->state = ST_WOKEN;
	t->since = ts;
	t->wake_cpu = rec->cpu;
	t->waker_ctx = ctx && ctx->type == KTRACE_FXT_ARG_UINT32 && ctx->u <= KTRACE_CTX_MAX ?
		       ctx->u : KTRACE_CTX_TASK;
	if (t->waker_ctx != KTRACE_CTX_TASK)
		waker = sa.interrupted;
	t->has_waker = waker && waker->type == KTRACE_FXT_ARG_KOID;
	t->waker = t->has_waker ? waker->u : 0;
	t->waker_irq = -1;
	/* The handler running on the waking CPU, if ftrace recorded it. */
	c = rec->cpu < a->ncpus ? &a->cpus[rec->cpu] : NULL;
	if (c && t->waker_ctx != KTRACE_CTX_TASK && c->nirq > 0)
		t->waker_irq = c->irq[c->nirq - 1].name;
}

/* Interrupt handlers from ftrace (record --ftrace irq:*), on their CPU's track. */
static void on_irq_event(struct lat_analysis *a, const struct fxt_record *rec, uint64_t ts,
			 const struct fxt_reader *r)
{
	uint64_t cpu = rec->tid - KTRACE_FXT_IRQ_TID(0);
	uint8_t kind = rec->name.len >= 8 && !memcmp(rec->name.p, "softirq ", 8) ? SEG_SOFTIRQ :
		       SEG_HARDIRQ;
	struct lat_cpu *c;
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
		if (c->nirq < IRQ_NEST && c->irq[c->nirq].name >= 0 && ts >= c->irq[c->nirq].start)
			push_seg(c, c->irq[c->nirq].kind, c->irq[c->nirq].name, 0,
				 c->irq[c->nirq].start, ts);
		break;
	case KTRACE_FXT_EV_DURATION_COMPLETE:
		name = irq_name_index(a, rec->name);
		if (name >= 0 && fxt_ticks_to_ns(r, rec->extra) >= ts)
			push_seg(c, kind, name, 0, ts, fxt_ticks_to_ns(r, rec->extra));
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
	struct lat_thread *t = add ? thread_get(a, tid) : thread_find(a, tid);

	return t ? &t->ext : NULL;
}

bool lat_selects(struct lat_analysis *a, uint64_t tid)
{
	return tid && selected(a, thread_get(a, tid));
}

uint64_t lat_thread_pid(struct lat_analysis *a, uint64_t tid)
{
	struct lat_thread *t = thread_find(a, tid);

	return t ? t->pid : 0;
}

bool lat_overlaps_loss(const struct lat_analysis *a, uint64_t start, uint64_t end)
{
	return overlaps_loss(a, start, end);
}

int32_t lat_cpu_irq(struct lat_analysis *a, uint32_t cpu)
{
	const struct lat_cpu *c = cpu < a->ncpus ? &a->cpus[cpu] : NULL;

	return c && c->nirq > 0 && c->nirq <= IRQ_NEST ? c->irq[c->nirq - 1].name : -1;
}

const char *lat_irq_name(struct lat_analysis *a, int32_t idx)
{
	return idx >= 0 && (uint32_t)idx < a->nirq_names ? a->irq_names[idx] : NULL;
}

void lat_blame_span(struct lat_analysis *a, uint32_t cpu, uint64_t start, uint64_t end,
		    struct lat_wait *w)
{
	struct lat_cpu *c = cpu < a->ncpus ? &a->cpus[cpu] : NULL;

	memset(w, 0, sizeof(*w));
	w->start = start;
	w->end = end;
	w->cpu = cpu;
	w->waker_irq = -1;
	w->have_irq = a->have_irq;
	if (!c || !c->ring) {
		w->partial = true;
		return;
	}
	blame(c, w);
	qsort(w->run, w->nrun, sizeof(w->run[0]), cmp_share);
	qsort(w->irq, w->nirq, sizeof(w->irq[0]), cmp_share);
}

static int cmp_start(const void *x, const void *y)
{
	const struct lat_wait *p = x, *q = y;

	return p->start < q->start ? -1 : p->start > q->start;
}

static int cmp_worst(const void *x, const void *y)
{
	const struct lat_wait *p = x, *q = y;

	return wait_ns(p) > wait_ns(q) ? -1 : wait_ns(p) < wait_ns(q);
}

void lat_done(struct lat_analysis *a)
{
	qsort(a->top, a->ntop, sizeof(*a->top), cmp_worst);
	a->sorted_by_start = false;
}

const struct lat_wait *lat_waits_by_start(struct lat_analysis *a, uint32_t *n)
{
	if (!a->sorted_by_start) {
		qsort(a->top, a->ntop, sizeof(*a->top), cmp_start);
		a->sorted_by_start = true;
	}
	*n = a->ntop;
	return a->top;
}

/* ---- reports ------------------------------------------------------------- */

/* A group's blocked time by state and function (stacks that end alike added up). */
struct fn_total {
	const char *name;
	uint8_t block;
	uint64_t ns, n;
};

static int cmp_fn_total(const void *x, const void *y)
{
	const struct fn_total *p = x, *q = y;

	if (p->block != q->block)
		return p->block < q->block ? -1 : 1;
	return p->ns > q->ns ? -1 : p->ns < q->ns;
}

/* Into @out (g->nblocked_in entries): the totals, by state then the longest first. */
static uint32_t blocked_in_totals(struct lat_analysis *a, const struct lat_group *g,
				  struct fn_total *out)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < g->nblocked_in; i++) {
		const struct lat_blocked_in *b = &g->blocked_in[i];
		const char *name = kstack_names_blocked_in(&a->kstacks, b->kstack) ?: "?";
		uint32_t j;

		for (j = 0; j < n; j++)
			if (out[j].block == b->block && !strcmp(out[j].name, name))
				break;
		if (j == n)
			out[n++] = (struct fn_total){ .name = name, .block = b->block };
		out[j].ns += b->ns;
		out[j].n += b->n;
	}
	if (n)
		qsort(out, n, sizeof(*out), cmp_fn_total);
	return n;
}

/*
 * Blocked time per stack as folded stacks ("comm;outermost;...;innermost
 * usecs"), for flamegraph.pl or speedscope; the function alone without
 * record --stacks.
 */
void lat_report_folded(struct lat_analysis *a, struct obuf *o)
{
	for (uint32_t i = 0; i < a->ngroups; i++) {
		const struct lat_group *g = &a->groups[i];
		const char *who = a->o.by == LAT_BY_THREAD ? lat_thread_name(a, g->key) :
				  a->o.by == LAT_BY_PROCESS ? proc_name(a, g->key) : "all";

		for (uint32_t j = 0; j < g->nblocked_in; j++) {
			const struct lat_blocked_in *b = &g->blocked_in[j];
			const char *frames = kstack_names_frames(&a->kstacks, b->kstack) ?:
					     kstack_names_blocked_in(&a->kstacks, b->kstack) ?: "?";

			if (b->ns >= 1000)
				obuf_printf(o, "%s;%s %llu\n", who, frames,
					    (unsigned long long)(b->ns / 1000));
		}
	}
}

const char *lat_blocked_in_name(struct lat_analysis *a, uint64_t kstack)
{
	return kstack_names_blocked_in(&a->kstacks, kstack);
}

/* "    S 573.0 ms: pipe_read 573.0 ms, do_nanosleep 0.1 ms" per state. */
static void put_blocked_in(struct lat_analysis *a, struct obuf *o, const struct lat_group *g)
{
	static const char letters[LAT_BLOCKS] = { 'S', 'D', '-' };
	struct fn_total *t = g->nblocked_in ? xrealloc(NULL, g->nblocked_in * sizeof(*t)) : NULL;
	uint32_t n = blocked_in_totals(a, g, t), shown = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (!i || t[i].block != t[i - 1].block) {
			obuf_printf(o, "%s    %c %.3f ms:", i ? "\n" : "", letters[t[i].block],
				    g->blocked_ns[t[i].block] / 1e6);
			shown = 0;
		}
		if (shown++ < 6)
			obuf_printf(o, "%s %s %.3f ms", shown > 1 ? "," : "", t[i].name,
				    t[i].ns / 1e6);
	}
	if (n)
		obuf_putc(o, '\n');
	free(t);
}

static void put_lat(struct obuf *o, uint64_t ns, uint64_t unit)
{
	obuf_printf(o, " %9.1f", (double)ns / unit);
}

/* Linux prio from a context switch weight (140 - prio), -1 if it is none. */
static int prio_of(int32_t weight)
{
	return weight <= 0 || weight > KTRACE_FXT_PRIO_BASE ? -1 : KTRACE_FXT_PRIO_BASE - weight;
}

static void put_prio(struct obuf *o, int32_t weight)
{
	int prio = prio_of(weight);

	if (prio < 0)
		obuf_lit(o, "prio ?");
	else if (prio < 100)
		obuf_printf(o, "rt %d", 99 - prio);
	else
		obuf_printf(o, "nice %d", prio - 120);
}


/* A duration in the unit that reads best: 850 ns, 12.3 us, 4.017 ms. */
static void put_dur(struct obuf *o, uint64_t ns)
{
	if (ns < 1000)
		obuf_printf(o, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		obuf_printf(o, "%.1f us", ns / 1e3);
	else
		obuf_printf(o, "%.3f ms", ns / 1e6);
}

static void put_part(struct obuf *o, bool *first, const char *what, uint64_t ns)
{
	obuf_printf(o, "%s%s ", *first ? "" : ", ", what);
	put_dur(o, ns);
	*first = false;
}

void lat_blame_line(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o)
{
	bool first = true;

	for (uint32_t i = 0; i < w->nrun; i++) {
		obuf_printf(o, "%s%s %llu (", first ? "" : ", ", lat_thread_name(a, w->run[i].id),
			    (unsigned long long)w->run[i].id);
		put_prio(o, w->run[i].weight);
		obuf_lit(o, ") ");
		put_dur(o, w->run[i].ns);
		first = false;
	}
	if (w->run_other_ns)
		put_part(o, &first, "other threads", w->run_other_ns);
	if (w->hardirq_ns)
		put_part(o, &first, "hardirq", w->hardirq_ns);
	if (w->softirq_ns)
		put_part(o, &first, "softirq", w->softirq_ns);
	for (uint32_t i = 0; i < w->nirq; i++) {
		obuf_printf(o, "%s%s ", i ? ", " : " (", a->irq_names[w->irq[i].id]);
		put_dur(o, w->irq[i].ns);
	}
	if (w->nirq)
		obuf_putc(o, ')');
	if (w->idle_ns)
		put_part(o, &first, "idle", w->idle_ns);
	if (first)
		obuf_lit(o, "nothing recorded");
	if (w->partial)
		obuf_lit(o, "; the CPU's history starts after the wait began");
	else if (!w->have_irq)
		obuf_lit(o, "; interrupts not recorded");
}

/* "woken by T N on CPU C", or the interrupt that woke it. */
static void put_waker(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o)
{
	if (w->kind == LAT_PREEMPT) {
		obuf_printf(o, "preempted on CPU %d", w->prev_cpu);
		return;
	}
	if (w->waker_ctx == KTRACE_CTX_TASK) {
		if (w->has_waker)
			obuf_printf(o, "woken by %s %llu on CPU %u", lat_thread_name(a, w->waker),
				    (unsigned long long)w->waker, w->wake_cpu);
		else
			obuf_printf(o, "woken on CPU %u (waker not recorded)", w->wake_cpu);
		return;
	}
	obuf_printf(o, "woken from %s", ktrace_irq_context_name(w->waker_ctx));
	if (w->waker_irq >= 0)
		obuf_printf(o, " (%s)", a->irq_names[w->waker_irq]);
	obuf_printf(o, " on CPU %u", w->wake_cpu);
	if (w->has_waker)
		obuf_printf(o, ", interrupting %s %llu", lat_thread_name(a, w->waker),
			    (unsigned long long)w->waker);
}

static int cmp_group_max(const void *x, const void *y, void *kind)
{
	const struct lat_dist *p = &((const struct lat_group *)x)->d[*(int *)kind];
	const struct lat_dist *q = &((const struct lat_group *)y)->d[*(int *)kind];

	return p->max > q->max ? -1 : p->max < q->max;
}

static void put_key(struct lat_analysis *a, struct obuf *o, uint64_t key)
{
	struct lat_thread *t;

	switch (a->o.by) {
	case LAT_BY_THREAD:
		t = thread_find(a, key);
		obuf_printf(o, "%8llu %-16s %8llu %-16s", (unsigned long long)key,
			    lat_thread_name(a, key), (unsigned long long)(t ? t->pid : 0),
			    proc_name(a, t ? t->pid : 0));
		break;
	case LAT_BY_PROCESS:
		obuf_printf(o, "%8llu %-16s", (unsigned long long)key, proc_name(a, key));
		break;
	case LAT_BY_CPU:
		obuf_printf(o, "%8llu", (unsigned long long)key);
		break;
	default:
		obuf_printf(o, "%8s", "all");
	}
}

static void put_key_header(struct lat_analysis *a, struct obuf *o)
{
	switch (a->o.by) {
	case LAT_BY_THREAD:
		obuf_printf(o, "%8s %-16s %8s %-16s", "TID", "COMM", "PID", "PROCESS");
		break;
	case LAT_BY_PROCESS:
		obuf_printf(o, "%8s %-16s", "PID", "PROCESS");
		break;
	case LAT_BY_CPU:
		obuf_printf(o, "%8s", "CPU");
		break;
	default:
		obuf_printf(o, "%8s", "");
	}
}

static void put_ts(struct obuf *o, uint64_t ns)
{
	obuf_printf(o, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
		    (unsigned long long)(ns % 1000000000ULL));
}

static void put_hist(struct obuf *o, const uint64_t *h, const char *unit)
{
	uint64_t max = 0;
	int last = -1;

	for (int i = 0; i < LAT_LOG2_BUCKETS; i++) {
		if (h[i] > max)
			max = h[i];
		if (h[i])
			last = i;
	}
	obuf_printf(o, "     %-19s : count     distribution\n", unit);
	for (int i = 0; i <= last; i++) {
		uint64_t lo = i ? 1ULL << i : 0, hi = (1ULL << (i + 1)) - 1;
		int stars = max ? (int)(h[i] * 40 / max) : 0;

		obuf_printf(o, "%10llu -> %-10llu : %-8llu |%-40.*s|\n", (unsigned long long)lo,
			    (unsigned long long)hi, (unsigned long long)h[i], stars,
			    "****************************************");
	}
}

static const char *by_name(enum lat_by by)
{
	static const char *const names[] = { "thread", "process", "cpu", "all" };

	return names[by];
}

static void missing_totals(struct lat_analysis *a, uint64_t *before, uint64_t *nowake,
			   uint64_t *lossy)
{
	*before = *nowake = *lossy = 0;
	for (uint32_t i = 0; i < a->ngroups; i++) {
		*before += a->groups[i].before_trace;
		*nowake += a->groups[i].no_wakeup;
		*lossy += a->groups[i].lossy;
	}
}

void lat_report_text(struct lat_analysis *a, struct obuf *o, const char *path)
{
	static const char *const titles[LAT_KINDS] = {
		"wakeup latency (sched_waking to switch-in)",
		"preemption latency (switched out runnable to switch-in)",
	};
	const char *unit = a->o.unit_ns == 1000000 ? "msecs" : "usecs";
	uint64_t before, nowake, lossy;

	obuf_printf(o, "%s: %llu scheduling records, ", path, (unsigned long long)a->records);
	if (a->first_ts <= a->last_ts)
		obuf_printf(o, "%.3f s", (a->last_ts - a->first_ts) / 1e9);
	obuf_printf(o, ", %llu waits measured\n", (unsigned long long)a->waits);
	for (int k = 0; k < LAT_KINDS; k++) {
		if (a->ngroups)
			qsort_r(a->groups, a->ngroups, sizeof(*a->groups), cmp_group_max, &k);
		obuf_printf(o, "\n%s, by %s, in %s:\n", titles[k], by_name(a->o.by), unit);
		put_key_header(a, o);
		obuf_printf(o, " %8s %9s %9s %9s %9s  %s\n", "COUNT", "P50", "P90", "P99", "MAX",
			    a->o.by == LAT_BY_THREAD ? "MAX AT" : "MAX AT (THREAD)");
		for (uint32_t i = 0; i < a->ngroups; i++) {
			const struct lat_dist *d = &a->groups[i].d[k];

			if (!d->count)
				continue;
			put_key(a, o, a->groups[i].key);
			obuf_printf(o, " %8llu", (unsigned long long)d->count);
			put_lat(o, percentile(d, 0.50), a->o.unit_ns);
			put_lat(o, percentile(d, 0.90), a->o.unit_ns);
			put_lat(o, percentile(d, 0.99), a->o.unit_ns);
			put_lat(o, d->max, a->o.unit_ns);
			obuf_lit(o, "  ");
			put_ts(o, d->max_ts);
			if (a->o.by != LAT_BY_THREAD)
				obuf_printf(o, " (%s %llu)", lat_thread_name(a, d->max_tid),
					    (unsigned long long)d->max_tid);
			obuf_putc(o, '\n');
			if (a->o.hist && d->log2)
				put_hist(o, d->log2, unit);
		}
	}
	if (a->o.by != LAT_BY_CPU) {
		obuf_printf(o, "\nblocked time (switched out asleep to wakeup), by %s, in msecs:\n",
			    by_name(a->o.by));
		put_key_header(a, o);
		obuf_printf(o, " %8s %12s %8s %12s\n", "S COUNT", "S TOTAL", "D COUNT", "D TOTAL");
		for (uint32_t i = 0; i < a->ngroups; i++) {
			const struct lat_group *g = &a->groups[i];

			if (!g->blocked_n[LAT_BLOCK_S] && !g->blocked_n[LAT_BLOCK_D])
				continue;
			put_key(a, o, g->key);
			obuf_printf(o, " %8llu %12.3f %8llu %12.3f\n",
				    (unsigned long long)g->blocked_n[LAT_BLOCK_S],
				    g->blocked_ns[LAT_BLOCK_S] / 1e6,
				    (unsigned long long)g->blocked_n[LAT_BLOCK_D],
				    g->blocked_ns[LAT_BLOCK_D] / 1e6);
			put_blocked_in(a, o, g);
		}
	}
	missing_totals(a, &before, &nowake, &lossy);
	obuf_printf(o, "\nnot measured: %llu waits began before the trace, %llu switch-ins had no "
		    "recorded wakeup, %llu waits overlap lost records",
		    (unsigned long long)before, (unsigned long long)nowake, (unsigned long long)lossy);
	if (a->lost_records)
		obuf_printf(o, " (%llu records lost in %u time ranges)",
			    (unsigned long long)a->lost_records, a->nlosses);
	obuf_lit(o, "\n");
	if (a->filtered)
		obuf_printf(o, "%llu shorter waits left out (--min-latency)\n",
			    (unsigned long long)a->filtered);
	if (a->ftrace_lost)
		obuf_printf(o, "ftrace lost %llu events: interrupt time may be incomplete\n",
			    (unsigned long long)a->ftrace_lost);
	if (!a->have_irq)
		obuf_lit(o, "no interrupt handlers recorded (record --ftrace 'irq:*' to see their time)\n");
	if (!a->ntop)
		return;
	obuf_printf(o, "\nthe %u worst waits:\n", a->ntop);
	for (uint32_t i = 0; i < a->ntop; i++) {
		const struct lat_wait *w = &a->top[i];

		obuf_printf(o, "%3u. %.1f %s %s latency of %s %llu (%s %llu) on CPU %u: %s at ",
			    i + 1, (double)wait_ns(w) / a->o.unit_ns, unit,
			    lat_kind_name(w->kind), lat_thread_name(a, w->tid),
			    (unsigned long long)w->tid, proc_name(a, w->pid),
			    (unsigned long long)w->pid, w->cpu,
			    w->kind == LAT_WAKEUP ? "woken" : "preempted");
		put_ts(o, w->start);
		obuf_lit(o, ", ran at ");
		put_ts(o, w->end);
		obuf_lit(o, "\n     ");
		put_waker(a, w, o);
		if (w->prev_cpu >= 0 && (uint32_t)w->prev_cpu != w->cpu)
			obuf_printf(o, "; migrated: last ran on CPU %d", w->prev_cpu);
		obuf_printf(o, "\n     CPU %u meanwhile: ", w->cpu);
		lat_blame_line(a, w, o);
		obuf_putc(o, '\n');
	}
}

static void json_dist(struct obuf *o, const struct lat_dist *d)
{
	obuf_printf(o, "{\"count\":%llu,\"min\":%llu,\"p50\":%llu,\"p90\":%llu,\"p99\":%llu,"
		    "\"max\":%llu,\"max_ts\":%llu,\"max_tid\":%llu,\"mean\":%llu",
		    (unsigned long long)d->count, (unsigned long long)(d->count ? d->min : 0),
		    (unsigned long long)percentile(d, 0.5), (unsigned long long)percentile(d, 0.9),
		    (unsigned long long)percentile(d, 0.99), (unsigned long long)d->max,
		    (unsigned long long)d->max_ts, (unsigned long long)d->max_tid,
		    (unsigned long long)(d->count ? d->sum / d->count : 0));
	if (d->log2) {
		int last = 0;

		for (int i = 0; i < LAT_LOG2_BUCKETS; i++)
			if (d->log2[i])
				last = i;
		obuf_lit(o, ",\"log2\":[");
		for (int i = 0; i <= last; i++)
			obuf_printf(o, "%s%llu", i ? "," : "", (unsigned long long)d->log2[i]);
		obuf_putc(o, ']');
	}
	obuf_putc(o, '}');
}

static void json_name(struct obuf *o, const char *key, const char *s)
{
	obuf_printf(o, ",\"%s\":", key);
	obuf_json_str(o, s, strlen(s));
}

/* "blocked_in":[{"state":"S","function":"pipe_read","count":N,"ns":N},...] */
static void json_blocked_in(struct lat_analysis *a, struct obuf *o, const struct lat_group *g)
{
	static const char *const states[LAT_BLOCKS] = { "S", "D", "other" };
	struct fn_total *t = g->nblocked_in ? xrealloc(NULL, g->nblocked_in * sizeof(*t)) : NULL;
	uint32_t n = blocked_in_totals(a, g, t);

	obuf_lit(o, ",\"blocked_in\":[");
	for (uint32_t i = 0; i < n; i++) {
		obuf_printf(o, "%s{\"state\":\"%s\"", i ? "," : "", states[t[i].block]);
		json_name(o, "function", t[i].name);
		obuf_printf(o, ",\"count\":%llu,\"ns\":%llu}", (unsigned long long)t[i].n,
			    (unsigned long long)t[i].ns);
	}
	obuf_putc(o, ']');
	free(t);
}

void lat_report_json(struct lat_analysis *a, struct obuf *o, const char *path)
{
	uint64_t before, nowake, lossy;

	obuf_lit(o, "{\"trace\":");
	obuf_json_str(o, path, strlen(path));
	obuf_printf(o, ",\"by\":\"%s\",\"unit\":\"ns\",\"hist_unit_ns\":%llu,\"sched_records\":%llu,"
		    "\"first_ts\":%llu,\"last_ts\":%llu,\"waits\":%llu,\"filtered\":%llu,"
		    "\"irq_recorded\":%s,\"groups\":[",
		    by_name(a->o.by), (unsigned long long)a->o.unit_ns,
		    (unsigned long long)a->records,
		    (unsigned long long)(a->first_ts <= a->last_ts ? a->first_ts : 0),
		    (unsigned long long)a->last_ts, (unsigned long long)a->waits,
		    (unsigned long long)a->filtered, a->have_irq ? "true" : "false");
	for (uint32_t i = 0; i < a->ngroups; i++) {
		const struct lat_group *g = &a->groups[i];
		struct lat_thread *t;

		obuf_printf(o, "%s\n{\"key\":%llu", i ? "," : "", (unsigned long long)g->key);
		if (a->o.by == LAT_BY_THREAD) {
			t = thread_find(a, g->key);
			json_name(o, "comm", lat_thread_name(a, g->key));
			obuf_printf(o, ",\"pid\":%llu", (unsigned long long)(t ? t->pid : 0));
			json_name(o, "process", proc_name(a, t ? t->pid : 0));
		} else if (a->o.by == LAT_BY_PROCESS) {
			json_name(o, "process", proc_name(a, g->key));
		}
		obuf_lit(o, ",\"wakeup\":");
		json_dist(o, &g->d[LAT_WAKEUP]);
		obuf_lit(o, ",\"preemption\":");
		json_dist(o, &g->d[LAT_PREEMPT]);
		obuf_printf(o, ",\"blocked\":{\"S\":{\"count\":%llu,\"ns\":%llu},"
			    "\"D\":{\"count\":%llu,\"ns\":%llu},\"other\":{\"count\":%llu,\"ns\":%llu}}",
			    (unsigned long long)g->blocked_n[LAT_BLOCK_S],
			    (unsigned long long)g->blocked_ns[LAT_BLOCK_S],
			    (unsigned long long)g->blocked_n[LAT_BLOCK_D],
			    (unsigned long long)g->blocked_ns[LAT_BLOCK_D],
			    (unsigned long long)g->blocked_n[LAT_BLOCK_OTHER],
			    (unsigned long long)g->blocked_ns[LAT_BLOCK_OTHER]);
		json_blocked_in(a, o, g);
		obuf_printf(o, ",\"not_measured\":{\"before_trace\":%llu,\"no_wakeup\":%llu,"
			    "\"overlaps_loss\":%llu}}",
			    (unsigned long long)g->before_trace, (unsigned long long)g->no_wakeup,
			    (unsigned long long)g->lossy);
	}
	missing_totals(a, &before, &nowake, &lossy);
	obuf_printf(o, "],\n\"not_measured\":{\"before_trace\":%llu,\"no_wakeup\":%llu,"
		    "\"overlaps_loss\":%llu},\"lost_records\":%llu,\"loss_ranges\":%u,"
		    "\"ftrace_lost\":%llu,\n\"top\":[",
		    (unsigned long long)before, (unsigned long long)nowake,
		    (unsigned long long)lossy, (unsigned long long)a->lost_records, a->nlosses,
		    (unsigned long long)a->ftrace_lost);
	for (uint32_t i = 0; i < a->ntop; i++) {
		const struct lat_wait *w = &a->top[i];

		obuf_printf(o, "%s\n{\"kind\":\"%s\",\"latency\":%llu,\"start\":%llu,\"end\":%llu,"
			    "\"tid\":%llu",
			    i ? "," : "", lat_kind_name(w->kind), (unsigned long long)wait_ns(w),
			    (unsigned long long)w->start, (unsigned long long)w->end,
			    (unsigned long long)w->tid);
		json_name(o, "comm", lat_thread_name(a, w->tid));
		obuf_printf(o, ",\"pid\":%llu,\"cpu\":%u,\"prev_cpu\":%d,\"migrated\":%s",
			    (unsigned long long)w->pid, w->cpu, w->prev_cpu,
			    w->prev_cpu >= 0 && (uint32_t)w->prev_cpu != w->cpu ? "true" : "false");
		if (w->kind == LAT_WAKEUP) {
			obuf_printf(o, ",\"wake_cpu\":%u,\"waker_context\":\"%s\"", w->wake_cpu,
				    ktrace_irq_context_name(w->waker_ctx));
			if (w->has_waker) {
				obuf_printf(o, ",\"%s\":%llu",
					    w->waker_ctx == KTRACE_CTX_TASK ? "waker" : "interrupted",
					    (unsigned long long)w->waker);
				json_name(o, w->waker_ctx == KTRACE_CTX_TASK ? "waker_comm" :
					  "interrupted_comm", lat_thread_name(a, w->waker));
			}
			if (w->waker_irq >= 0)
				json_name(o, "waker_irq", a->irq_names[w->waker_irq]);
		}
		obuf_lit(o, ",\"blame\":{\"threads\":[");
		for (uint32_t j = 0; j < w->nrun; j++) {
			obuf_printf(o, "%s{\"tid\":%llu", j ? "," : "",
				    (unsigned long long)w->run[j].id);
			json_name(o, "comm", lat_thread_name(a, w->run[j].id));
			obuf_printf(o, ",\"prio\":%d,\"ns\":%llu}", prio_of(w->run[j].weight),
				    (unsigned long long)w->run[j].ns);
		}
		obuf_printf(o, "],\"other_threads_ns\":%llu,\"idle_ns\":%llu",
			    (unsigned long long)w->run_other_ns, (unsigned long long)w->idle_ns);
		if (w->have_irq) {
			obuf_printf(o, ",\"hardirq_ns\":%llu,\"softirq_ns\":%llu,\"irqs\":[",
				    (unsigned long long)w->hardirq_ns,
				    (unsigned long long)w->softirq_ns);
			for (uint32_t j = 0; j < w->nirq; j++) {
				obuf_printf(o, "%s{\"name\":", j ? "," : "");
				obuf_json_str(o, a->irq_names[w->irq[j].id],
					      strlen(a->irq_names[w->irq[j].id]));
				obuf_printf(o, ",\"ns\":%llu}", (unsigned long long)w->irq[j].ns);
			}
			obuf_putc(o, ']');
		}
		obuf_printf(o, ",\"partial\":%s}}", w->partial ? "true" : "false");
	}
	obuf_lit(o, "]}\n");
}
