// SPDX-License-Identifier: GPL-2.0
/*
 * The latency analysis's reports: text (perf sched latency's table with
 * percentiles, runqlat's histograms, the worst waits with their blame),
 * JSON, and folded stacks of blocked time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/latency_internal.h"

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
			v = lat_bucket_mid(b);
			return v < d->min ? d->min : v > d->max ? d->max : v;
		}
	}
	return d->max;
}

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
				  a->o.by == LAT_BY_PROCESS ? lat_proc_name(a, g->key) : "all";

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
	struct fn_total *t = g->nblocked_in ?
		xcalloc(g->nblocked_in, sizeof(*t), "latency: blocked-in report") : NULL;
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

static void put_ts(struct obuf *o, uint64_t ns);

/* A handler's name; "?" for an index no irq name record gave. */
static const char *irq_name(struct lat_analysis *a, int32_t idx)
{
	const char *name = lat_irq_name(a, idx);

	return name ? name : "?";
}

static void put_part(struct obuf *o, bool *first, const char *what, uint64_t ns)
{
	obuf_printf(o, "%s%s ", *first ? "" : ", ", what);
	lat_put_dur(o, ns);
	*first = false;
}

void lat_blame_line(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o)
{
	bool first = true;

	for (uint32_t i = 0; i < w->nrun; i++) {
		obuf_printf(o, "%s%s %llu (", first ? "" : ", ", lat_thread_name(a, w->run[i].id),
			    (unsigned long long)w->run[i].id);
		lat_put_prio(o, w->run[i].weight);
		obuf_lit(o, ") ");
		lat_put_dur(o, w->run[i].ns);
		first = false;
	}
	if (w->run_other_ns)
		put_part(o, &first, "other threads", w->run_other_ns);
	if (w->hardirq_ns)
		put_part(o, &first, "hardirq", w->hardirq_ns);
	if (w->softirq_ns)
		put_part(o, &first, "softirq", w->softirq_ns);
	for (uint32_t i = 0; i < w->nirq; i++) {
		obuf_printf(o, "%s%s ", i ? ", " : " (", irq_name(a, w->irq[i].id));
		lat_put_dur(o, w->irq[i].ns);
	}
	if (w->nirq)
		obuf_putc(o, ')');
	if (w->idle_ns)
		put_part(o, &first, "idle", w->idle_ns);
	if (first)
		obuf_lit(o, "nothing recorded");
	if (w->untraced_ns) {
		obuf_lit(o, "; of that, ");
		lat_put_dur(o, w->untraced_ns);
		obuf_lit(o, " untraced by the kernel");
	}
	if (w->partial)
		obuf_lit(o, "; the CPU's history starts after the wait began");
	else if (!w->have_irq)
		obuf_lit(o, "; interrupts not recorded");
}

/*
 * "queued on CPU 1 behind kt_x 1234 (rt 50) 18.900 ms; moved to CPU 0 at
 * T; ran 12.0 us later": the run queues a wait was spent on, from when it
 * was runnable (a timer wait's wakeup).
 */
void lat_where_line(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o)
{
	for (uint32_t i = 0; i < w->npiece; i++) {
		const struct lat_piece *p = &w->piece[i];
		uint64_t from = w->runnable > p->start ? w->runnable : p->start;

		if (i) {
			obuf_printf(o, "; moved to CPU %d at ", w->mig[i - 1].to);
			put_ts(o, w->mig[i - 1].ts);
			if (i == w->nmig && w->mig_dropped)
				obuf_printf(o, " (after %u more moves)", w->mig_dropped);
			if (i == w->npiece - 1 && p->cpu == (int32_t)w->cpu && !p->top_tid) {
				obuf_lit(o, "; ran ");
				lat_put_dur(o, p->end - p->start);
				obuf_lit(o, " later");
				continue;
			}
			obuf_lit(o, ", ");
		}
		if (p->cpu < 0) {
			obuf_lit(o, "queued on a CPU the trace does not show ");
			lat_put_dur(o, p->end > from ? p->end - from : 0);
			continue;
		}
		obuf_printf(o, "queued on CPU %d ", p->cpu);
		lat_put_dur(o, p->end > from ? p->end - from : 0);
		if (p->throttled_ns) {
			obuf_lit(o, " (throttled ");
			lat_put_dur(o, p->throttled_ns);
			obuf_lit(o, " of it)");
		}
		if (p->top_tid) {
			obuf_printf(o, " behind %s %llu (", lat_thread_name(a, p->top_tid),
				    (unsigned long long)p->top_tid);
			lat_put_prio(o, p->top_weight);
			obuf_lit(o, ") ");
			lat_put_dur(o, p->top_ns);
		}
	}
	if (!w->have_migrations)
		obuf_lit(o, " (migrations not recorded: the CPU it ran on is assumed)");
}

/*
 * A CFS bandwidth limit "Q/P" by the files that hold it: cgroup v2's
 * "cpu.max Q/P", v1's "cpu.cfs_quota_us Q, cpu.cfs_period_us P" (-1: none).
 */
static void put_cpu_limit(struct obuf *o, const char *cpu_max, bool v1)
{
	unsigned long long quota, period;

	if (!v1) {
		obuf_printf(o, "cpu.max %s", cpu_max);
	} else if (sscanf(cpu_max, "%llu/%llu", &quota, &period) == 2) {
		obuf_printf(o, "cpu.cfs_quota_us %llu, cpu.cfs_period_us %llu", quota, period);
	} else if (sscanf(cpu_max, "max/%llu", &period) == 1) {
		obuf_printf(o, "cpu.cfs_quota_us -1, cpu.cfs_period_us %llu", period);
	} else {
		obuf_printf(o, "cpu.cfs_quota_us/cpu.cfs_period_us %s", cpu_max);
	}
}

/*
 * "cgroup /path (cpu.max Q/P)": a throttled cgroup, by id where the trace
 * gives no path, with its limit as @v1 (cgroup v1's cpu hierarchy) names it.
 */
void lat_throttled_cgroup(struct obuf *o, const char *path, uint64_t id, const char *cpu_max,
			  bool v1)
{
	if (path)
		obuf_printf(o, "cgroup %s", path);
	else
		obuf_printf(o, "cgroup id %llu", (unsigned long long)id);
	if (cpu_max && strcmp(cpu_max, "?")) {	/* "?": no cgroup_limit record gave it */
		obuf_lit(o, " (");
		put_cpu_limit(o, cpu_max, v1);
		obuf_putc(o, ')');
	}
}

/* "higher_priority 18.900 ms, cpu_idle 12.0 us, unknown 0.370 ms (untraced by the kernel)" */
void lat_causes_text(const struct lat_wait *w, struct obuf *o)
{
	bool first = true;

	for (int i = 0; i < LAT_CAUSES; i++) {
		if (!w->causes[i])
			continue;
		if (i == LAT_CAUSE_THROTTLED) {
			obuf_printf(o, "%sthrottled: ", first ? "" : ", ");
			lat_throttled_cgroup(o, w->throttled_path, w->throttled_cgroup_id,
					     w->throttled_cpu_max, w->throttled_v1);
			obuf_putc(o, ' ');
			lat_put_dur(o, w->causes[i]);
			first = false;
			continue;
		}
		put_part(o, &first, lat_cause_name(i), w->causes[i]);
		if (i == LAT_CAUSE_NOT_PREEMPTED)
			obuf_printf(o, " (preemption model %s)", w->preemption ? w->preemption :
				    "not recorded");
		if (i == LAT_CAUSE_UNKNOWN) {
			uint64_t rest = w->causes[i] - w->untraced_ns - w->lost_ns;

			obuf_lit(o, " (");
			if (w->untraced_ns) {
				obuf_lit(o, "untraced by the kernel ");
				lat_put_dur(o, w->untraced_ns);
			}
			if (w->lost_ns) {
				obuf_printf(o, "%slost records ", w->untraced_ns ? ", " : "");
				lat_put_dur(o, w->lost_ns);
			}
			if (rest) {
				obuf_printf(o, "%sno CPU history ", w->untraced_ns || w->lost_ns ?
					    ", " : "");
				lat_put_dur(o, rest);
			}
			obuf_putc(o, ')');
		}
	}
	if (first)
		obuf_lit(o, "none");
}

/* "idle_allowed_elsewhere 4.0 us (CPU 0 idle 4.0 us); allowed CPUs 0-1" */
void lat_elsewhere_text(const struct lat_wait *w, struct obuf *o)
{
	obuf_lit(o, "idle_allowed_elsewhere ");
	lat_put_dur(o, w->idle_elsewhere_ns);
	if (w->idle_elsewhere_cpu >= 0) {
		obuf_printf(o, " (CPU %d idle ", w->idle_elsewhere_cpu);
		lat_put_dur(o, w->idle_elsewhere_cpu_ns);
		obuf_putc(o, ')');
	}
	obuf_lit(o, "; allowed CPUs ");
	cpu_mask_list(o, w->cpus);
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
	if (lat_irq_name(a, w->waker_irq))
		obuf_printf(o, " (%s)", lat_irq_name(a, w->waker_irq));
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
		t = lat_thread_find(a, key);
		obuf_printf(o, "%8llu %-16s %8llu %-16s", (unsigned long long)key,
			    lat_thread_name(a, key), (unsigned long long)(t ? t->pid : 0),
			    lat_proc_name(a, t ? t->pid : 0));
		break;
	case LAT_BY_PROCESS:
		obuf_printf(o, "%8llu %-16s", (unsigned long long)key, lat_proc_name(a, key));
		break;
	case LAT_BY_CPU:
		obuf_printf(o, "%8llu", (unsigned long long)key);
		break;
	case LAT_BY_CGROUP:
		obuf_printf(o, "%-40s", lat_cgroup_name(a, key));
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
	case LAT_BY_CGROUP:
		obuf_printf(o, "%-40s", "CGROUP");
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
	static const char *const names[] = { "thread", "process", "cpu", "all", "cgroup" };

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

/*
 * The selection's waits at or above its p99 (to the histogram's bucket:
 * 3%): their number, the bucket's lower bound, and their causes summed.
 */
static uint64_t p99_causes(struct lat_analysis *a, uint64_t *causes, uint64_t *from_ns)
{
	uint64_t total = 0, seen = 0, n = 0;
	uint32_t b;

	memset(causes, 0, LAT_CAUSES * sizeof(*causes));
	*from_ns = 0;
	if (!a->waits_by_bucket)
		return 0;
	for (b = 0; b < LAT_BUCKETS; b++)
		total += a->waits_by_bucket[b];
	/* The bucket that holds the p99 wait, and every one above it. */
	for (b = 0; b < LAT_BUCKETS; b++) {
		seen += a->waits_by_bucket[b];
		if (seen * 100 >= total * 99)
			break;
	}
	for (uint32_t k = b; k < LAT_BUCKETS; k++) {
		n += a->waits_by_bucket[k];
		for (int c = 0; c < LAT_CAUSES; c++)
			causes[c] += a->causes_by_bucket[(size_t)k * LAT_CAUSES + c];
	}
	*from_ns = b < LAT_BUCKETS ? lat_bucket_lo(b) : 0;
	return n;
}

/* Row @g's waits at or above its own p99 (to the bucket), as p99_causes() does for all. */
static uint64_t group_p99_causes(struct lat_analysis *a, const struct lat_group *g,
				 uint64_t *causes, uint64_t *from_ns)
{
	uint64_t total = 0, seen = 0, n = 0;
	const struct lat_gbucket *gb;
	uint32_t b, i;

	memset(causes, 0, LAT_CAUSES * sizeof(*causes));
	*from_ns = 0;
	for (b = 0; b < LAT_BUCKETS; b++) {
		i = u64map_find(&a->gbucket_map, (uint64_t)g->id << 16 | b);
		total += i == U64MAP_NONE ? 0 : a->gbuckets[i].waits;
	}
	for (b = 0; b < LAT_BUCKETS && total; b++) {
		i = u64map_find(&a->gbucket_map, (uint64_t)g->id << 16 | b);
		gb = i == U64MAP_NONE ? NULL : &a->gbuckets[i];
		seen += gb ? gb->waits : 0;
		if (gb && seen * 100 >= total * 99)
			break;
	}
	if (b == LAT_BUCKETS)
		return 0;
	*from_ns = lat_bucket_lo(b);
	for (; b < LAT_BUCKETS; b++) {
		i = u64map_find(&a->gbucket_map, (uint64_t)g->id << 16 | b);
		if (i == U64MAP_NONE)
			continue;
		n += a->gbuckets[i].waits;
		for (int c = 0; c < LAT_CAUSES; c++)
			causes[c] += a->gbuckets[i].causes[c];
	}
	return n;
}

/*
 * CFS bandwidth throttling, trace-wide: each throttled cgroup's spans and
 * their time, summed over CPUs; or that the trace cannot say.
 */
static void put_throttling(struct lat_analysis *a, struct obuf *o)
{
	if (!lat_throttling_recorded(a)) {
		obuf_printf(o, "\nthrottling not recorded on this kernel/backend (%s): a throttled "
			    "wait reads as cpu_idle or same_class\n",
			    a->throttling ? a->throttling : "the trace predates it");
		return;
	}
	obuf_lit(o, "\nthrottled (CFS bandwidth), by cgroup:");
	if (!a->nthrottles)
		obuf_lit(o, " none");
	obuf_putc(o, '\n');
	for (uint32_t i = 0; i < a->ncglimits; i++) {
		const struct lat_cglimit *l = &a->cglimits[i];

		if (!l->spans)
			continue;
		obuf_lit(o, "  ");
		lat_throttled_cgroup(o, l->path, l->id, l->cpu_max, l->v1);
		obuf_printf(o, ": %llu spans, ", (unsigned long long)l->spans);
		lat_put_dur(o, l->ns);
		if (strcmp(l->cpu_max, l->cpu_max_end)) {
			obuf_lit(o, " (");
			put_cpu_limit(o, l->cpu_max_end, l->v1);
			obuf_lit(o, " at the end)");
		}
		obuf_putc(o, '\n');
	}
}

/* "causes of all waits: 91% higher_priority, ...; p99 and worse (N waits of D or more): ..." */
static void put_selection_causes(struct lat_analysis *a, struct obuf *o)
{
	uint64_t all[LAT_CAUSES] = { 0 }, p99[LAT_CAUSES], from, n;

	for (uint32_t i = 0; i < a->ngroups; i++)
		for (int k = 0; k < LAT_CAUSES; k++)
			all[k] += a->groups[i].causes[k];
	n = p99_causes(a, p99, &from);
	obuf_printf(o, "\ncauses of the %llu waits measured: ", (unsigned long long)a->waits);
	lat_causes_line(all, o);
	obuf_printf(o, "\np99 and worse (%llu waits of ", (unsigned long long)n);
	lat_put_dur(o, from);
	obuf_lit(o, " or more): ");
	lat_causes_line(p99, o);
	obuf_printf(o, "\nby %s:\n", by_name(a->o.by));
	for (uint32_t i = 0; i < a->ngroups; i++) {
		const struct lat_group *g = &a->groups[i];

		if (!g->d[LAT_WAKEUP].count && !g->d[LAT_PREEMPT].count)
			continue;
		put_key(a, o, g->key);
		obuf_lit(o, "  ");
		lat_causes_line(g->causes, o);
		n = group_p99_causes(a, g, p99, &from);
		if (n) {
			obuf_printf(o, "; p99 and worse (%llu of ", (unsigned long long)n);
			lat_put_dur(o, from);
			obuf_lit(o, " or more): ");
			lat_causes_line(p99, o);
		}
		obuf_putc(o, '\n');
	}
}

/* The worst waits' causes summed, with the thread most to blame for each cause. */
static void sum_worst(struct lat_analysis *a, uint64_t *causes)
{
	memset(causes, 0, LAT_CAUSES * sizeof(*causes));
	for (uint32_t i = 0; i < a->worst.n; i++)
		for (int k = 0; k < LAT_CAUSES; k++)
			causes[k] += a->top[i].causes[k];
}

/* The cause with the most of @w's time (unknown only if nothing else has any). */
unsigned int lat_main_cause(const struct lat_wait *w)
{
	unsigned int best = 0;

	for (unsigned int k = 1; k < LAT_CAUSES; k++)
		if (w->causes[k] > w->causes[best])
			best = k;
	return w->causes[best] ? best : LAT_CAUSE_UNKNOWN;
}

/* The queue piece where @w waited longest behind one thread, NULL if none. */
static const struct lat_piece *main_piece(const struct lat_wait *w)
{
	const struct lat_piece *best = NULL;

	for (uint32_t i = 0; i < w->npiece; i++)
		if (w->piece[i].top_tid && (!best || w->piece[i].top_ns > best->top_ns))
			best = &w->piece[i];
	return best;
}

/*
 * One line that says why: "12.3 ms wakeup latency of nginx 1234 on CPU 3:
 * 91% higher_priority behind kt_x 77 (rt 50), 6% interrupts; CPU 1, which
 * it may use, idled 10.9 ms".
 */
void lat_verdict(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o)
{
	unsigned int order[LAT_CAUSES], n = 0, main = lat_main_cause(w);
	const struct lat_piece *p = main_piece(w);
	uint64_t total = lat_wait_ns(w);

	lat_put_dur(o, total);
	obuf_printf(o, " %s latency of %s %llu on CPU %u: ", lat_kind_name(w->kind),
		    lat_thread_name(a, w->tid), (unsigned long long)w->tid, w->cpu);
	order[n++] = main;
	for (unsigned int k = 0; k < LAT_CAUSES; k++)
		if (k != main && w->causes[k])
			order[n++] = k;
	/* The main cause first, then the rest largest first; those under 1% left out. */
	for (unsigned int i = 2; i < n; i++)
		for (unsigned int j = i; j > 1 && w->causes[order[j]] > w->causes[order[j - 1]]; j--) {
			unsigned int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (unsigned int i = 0; i < n; i++) {
		unsigned int k = order[i];

		if (i && w->causes[k] * 100 < total)
			break;
		obuf_printf(o, "%s%.0f%% %s", i ? ", " : "",
			    total ? 100.0 * w->causes[k] / total : 0.0, lat_cause_name(k));
		if (i == 0 && p && (k == LAT_CAUSE_HIGHER_PRIORITY || k == LAT_CAUSE_NOT_PREEMPTED ||
				    k == LAT_CAUSE_SAME_CLASS)) {
			obuf_printf(o, " behind %s %llu (", lat_thread_name(a, p->top_tid),
				    (unsigned long long)p->top_tid);
			lat_put_prio(o, p->top_weight);
			obuf_putc(o, ')');
		}
		if (k == LAT_CAUSE_NOT_PREEMPTED && w->preemption)
			obuf_printf(o, " (preemption model %s)", w->preemption);
		/* The culprit of a throttled wait is its cgroup's limit. */
		if (i == 0 && k == LAT_CAUSE_THROTTLED &&
		    (w->throttled_path || w->throttled_cgroup_id)) {
			obuf_lit(o, " in ");
			lat_throttled_cgroup(o, w->throttled_path, w->throttled_cgroup_id,
					     w->throttled_cpu_max, w->throttled_v1);
		}
	}
	if (w->idle_elsewhere_ns && w->idle_elsewhere_cpu >= 0) {
		obuf_printf(o, "; CPU %d, which it may use, idled ", w->idle_elsewhere_cpu);
		lat_put_dur(o, w->idle_elsewhere_cpu_ns);
	}
}

/*
 * One wait, as the text report lists the worst: what it was, who woke it,
 * what held its CPU, where it was queued, its causes, the CPUs it could
 * have used.  Several lines, each after the first indented five.
 */
void lat_wait_text(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o)
{
	const char *unit = a->o.unit_ns == 1000000 ? "msecs" : "usecs";

	obuf_printf(o, "%.1f %s %s latency of %s %llu (%s %llu) on CPU %u: %s at ",
		    (double)lat_wait_ns(w) / a->o.unit_ns, unit, lat_kind_name(w->kind),
		    lat_thread_name(a, w->tid), (unsigned long long)w->tid,
		    lat_proc_name(a, w->pid), (unsigned long long)w->pid, w->cpu,
		    w->kind == LAT_WAKEUP ? "woken" : w->kind == LAT_TIMER ? "due" : "preempted");
	put_ts(o, w->start);
	obuf_lit(o, ", ran at ");
	put_ts(o, w->end);
	obuf_lit(o, "\n     ");
	if (w->kind == LAT_TIMER) {
		lat_timer_line(a, w, o);
		obuf_lit(o, "\n     ");
	}
	put_waker(a, w, o);
	if (w->prev_cpu >= 0 && (uint32_t)w->prev_cpu != w->cpu)
		obuf_printf(o, "; migrated: last ran on CPU %d", w->prev_cpu);
	if (w->kind == LAT_TIMER && w->end == w->timer.woken) {
		obuf_printf(o, "\n     it was still on CPU %u: its timer fired before it slept\n",
			    w->cpu);
		return;
	}
	obuf_printf(o, "\n     CPU %u %s: ", w->cpu,
		    w->kind == LAT_TIMER ? "from wakeup to run" : "meanwhile");
	lat_blame_line(a, w, o);
	obuf_lit(o, "\n     ");
	lat_where_line(a, w, o);
	obuf_lit(o, "\n     causes: ");
	lat_causes_text(w, o);
	obuf_lit(o, "\n     ");
	lat_elsewhere_text(w, o);
	obuf_putc(o, '\n');
}

/* "CPU 0 idle 5.600 ms in total, longest 4.000 ms" per CPU that idled so. */
static void put_work_conservation(struct lat_analysis *a, struct obuf *o)
{
	bool any = false;

	obuf_lit(o, "\nwork conservation: CPUs idle while a thread that may run there waited longer than ");
	lat_put_dur(o, a->o.idle_threshold_ns);
	obuf_printf(o, " elsewhere (%llu such waits):", (unsigned long long)a->wc_waits);
	for (uint32_t i = 0; i < a->nwc; i++) {
		if (!a->wc[i].idle_ns)
			continue;
		obuf_printf(o, "%s CPU %u idle ", any ? "," : "", i);
		lat_put_dur(o, a->wc[i].idle_ns);
		obuf_lit(o, " in total, longest ");
		lat_put_dur(o, a->wc[i].longest_ns);
		any = true;
	}
	if (any)
		obuf_putc(o, '\n');
	else
		obuf_lit(o, " none\n");
}

static void put_worst_causes(struct lat_analysis *a, struct obuf *o)
{
	uint64_t causes[LAT_CAUSES];

	sum_worst(a, causes);
	obuf_printf(o, "the %u worst waits by cause: ", a->worst.n);
	lat_causes_line(causes, o);
	obuf_putc(o, '\n');
}

void lat_put_cut_text(const struct lat_analysis *a, struct obuf *o)
{
	if (!a->cut)
		return;
	obuf_printf(o, "partial answer: the trace stops at offset %llu (0x%llx), %s: %s; "
		    "what follows is from the %llu records before it\n",
		    (unsigned long long)a->cut_at.offset, (unsigned long long)a->cut_at.offset,
		    a->cut_at.field, a->cut_at.msg, (unsigned long long)a->cut_records);
}

void lat_put_cut_json(const struct lat_analysis *a, struct obuf *o)
{
	if (!a->cut) {
		obuf_lit(o, ",\"cut\":null");
		return;
	}
	obuf_printf(o, ",\"cut\":{\"offset\":%llu,\"records\":%llu,\"field\":",
		    (unsigned long long)a->cut_at.offset, (unsigned long long)a->cut_records);
	obuf_json_str(o, a->cut_at.field, strlen(a->cut_at.field));
	obuf_lit(o, ",\"msg\":");
	obuf_json_str(o, a->cut_at.msg, strlen(a->cut_at.msg));
	obuf_lit(o, "}");
}

/* The three distributions, one table each, a row per group. */
static void put_distributions(struct lat_analysis *a, struct obuf *o, const char *unit)
{
	static const char *const titles[LAT_KINDS] = {
		"wakeup latency (sched_waking to switch-in)",
		"preemption latency (switched out runnable to switch-in)",
		"timer latency (sleeper's timer due to switch-in)",
	};

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
}

/* Blocked time by group and state, with where it blocked. */
static void put_blocked(struct lat_analysis *a, struct obuf *o)
{
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

/* What was not measured, left out or not recorded, and why. */
static void put_not_measured(struct lat_analysis *a, struct obuf *o)
{
	uint64_t before, nowake, lossy;

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
}

void lat_report_text(struct lat_analysis *a, struct obuf *o, const char *path)
{
	obuf_printf(o, "%s: %llu scheduling records, ", path, (unsigned long long)a->records);
	if (a->first_ts <= a->last_ts)
		obuf_printf(o, "%.3f s", (a->last_ts - a->first_ts) / 1e9);
	obuf_printf(o, ", %llu waits measured\n", (unsigned long long)a->waits);
	lat_put_cut_text(a, o);
	put_distributions(a, o, a->o.unit_ns == 1000000 ? "msecs" : "usecs");
	if (a->o.by != LAT_BY_CPU)
		put_blocked(a, o);
	put_not_measured(a, o);
	if (a->waits)
		put_selection_causes(a, o);
	put_throttling(a, o);
	put_work_conservation(a, o);
	if (!a->worst.n)
		return;
	obuf_printf(o, "\nthe %u worst waits:\n", a->worst.n);
	for (uint32_t i = 0; i < a->worst.n; i++) {
		obuf_printf(o, "%3u. ", i + 1);
		lat_wait_text(a, &a->top[i], o);
	}
	put_worst_causes(a, o);
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

/* "blocked_in":[{"state":"S","function":"pipe_read","count":N,"ns":N},...] */
static void json_blocked_in(struct lat_analysis *a, struct obuf *o, const struct lat_group *g)
{
	static const char *const states[LAT_BLOCKS] = { "S", "D", "other" };
	struct fn_total *t = g->nblocked_in ?
		xcalloc(g->nblocked_in, sizeof(*t), "latency: blocked-in report") : NULL;
	uint32_t n = blocked_in_totals(a, g, t);

	obuf_lit(o, ",\"blocked_in\":[");
	for (uint32_t i = 0; i < n; i++) {
		obuf_printf(o, "%s{\"state\":\"%s\"", i ? "," : "", states[t[i].block]);
		obuf_json_kv_str(o, "function", t[i].name);
		obuf_printf(o, ",\"count\":%llu,\"ns\":%llu}", (unsigned long long)t[i].n,
			    (unsigned long long)t[i].ns);
	}
	obuf_putc(o, ']');
	free(t);
}

/*
 * A throttled cgroup's members, without the closing brace: "id", "path"
 * (null if the trace does not name it), "cpu_max" ("Q/P" as the text has
 * it) and its "quota_us" and "period_us" (null: "max" or not known).
 */
static void json_cgroup(struct obuf *o, const char *path, uint64_t id, const char *cpu_max)
{
	unsigned long long quota, period;

	obuf_printf(o, "{\"id\":%llu,\"path\":", (unsigned long long)id);
	obuf_json_str_or_null(o, path);
	obuf_lit(o, ",\"cpu_max\":");
	obuf_json_str_or_null(o, cpu_max);
	if (cpu_max && sscanf(cpu_max, "%llu/%llu", &quota, &period) == 2)
		obuf_printf(o, ",\"quota_us\":%llu,\"period_us\":%llu", quota, period);
	else
		obuf_lit(o, ",\"quota_us\":null,\"period_us\":null");
}

void lat_throttled_json(const struct lat_wait *w, struct obuf *o)
{
	obuf_lit(o, ",\"throttled_cgroup\":");
	if (!w->causes[LAT_CAUSE_THROTTLED]) {
		obuf_lit(o, "null");
		return;
	}
	json_cgroup(o, w->throttled_path, w->throttled_cgroup_id, w->throttled_cpu_max);
	obuf_putc(o, '}');
}

static void json_causes(struct obuf *o, const char *key, const uint64_t *causes)
{
	obuf_printf(o, ",\"%s\":{", key);
	for (int k = 0; k < LAT_CAUSES; k++)
		obuf_printf(o, "%s\"%s\":%llu", k ? "," : "", lat_cause_name(k),
			    (unsigned long long)causes[k]);
	obuf_putc(o, '}');
}

/* Who woke the wait, from what context, and which handler if recorded. */
static void json_waker(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o)
{
	obuf_printf(o, ",\"wake_cpu\":%u,\"waker_context\":\"%s\"", w->wake_cpu,
		    ktrace_irq_context_name(w->waker_ctx));
	if (w->has_waker) {
		obuf_printf(o, ",\"%s\":%llu",
			    w->waker_ctx == KTRACE_CTX_TASK ? "waker" : "interrupted",
			    (unsigned long long)w->waker);
		obuf_json_kv_str(o, w->waker_ctx == KTRACE_CTX_TASK ? "waker_comm" :
			  "interrupted_comm", lat_thread_name(a, w->waker));
	}
	if (lat_irq_name(a, w->waker_irq))
		obuf_json_kv_str(o, "waker_irq", lat_irq_name(a, w->waker_irq));
}

/* What held the wait's CPU: threads, idle, interrupt handlers. */
static void json_blame(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o)
{
	obuf_lit(o, ",\"blame\":{\"threads\":[");
	for (uint32_t j = 0; j < w->nrun; j++) {
		obuf_printf(o, "%s{\"tid\":%llu", j ? "," : "",
			    (unsigned long long)w->run[j].id);
		obuf_json_kv_str(o, "comm", lat_thread_name(a, w->run[j].id));
		obuf_printf(o, ",\"prio\":%d,\"ns\":%llu}", lat_prio_of(w->run[j].weight),
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
			obuf_json_str(o, irq_name(a, w->irq[j].id),
				      strlen(irq_name(a, w->irq[j].id)));
			obuf_printf(o, ",\"ns\":%llu}", (unsigned long long)w->irq[j].ns);
		}
		obuf_putc(o, ']');
	}
	obuf_printf(o, ",\"partial\":%s}", w->partial ? "true" : "false");
}

/* Where the wait was queued: its moves, the CPUs it may use, its pieces. */
static void json_placement(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o)
{
	obuf_printf(o, ",\"migrations_recorded\":%s,\"queue_cpu\":%d,\"migrations\":[",
		    w->have_migrations ? "true" : "false", w->npiece ? w->piece[0].cpu : -1);
	for (uint32_t j = 0; j < w->nmig; j++)
		obuf_printf(o, "%s{\"ts\":%llu,\"from\":%d,\"to\":%d}", j ? "," : "",
			    (unsigned long long)w->mig[j].ts, w->mig[j].from, w->mig[j].to);
	obuf_printf(o, "],\"migrations_left_out\":%u,\"idle_allowed_elsewhere\":%llu,"
		    "\"idle_allowed_cpu\":%d,\"idle_allowed_cpu_ns\":%llu,\"cpus_allowed\":",
		    w->mig_dropped, (unsigned long long)w->idle_elsewhere_ns,
		    w->idle_elsewhere_cpu, (unsigned long long)w->idle_elsewhere_cpu_ns);
	if (w->cpus) {
		obuf_printf(o, "%llu,\"cpus_allowed_list\":\"",
			    (unsigned long long)cpu_mask_word0(w->cpus));
		cpu_mask_list(o, w->cpus);
		obuf_putc(o, '"');
	} else {
		obuf_lit(o, "null,\"cpus_allowed_list\":null");
	}
	obuf_lit(o, ",\"pieces\":[");
	for (uint32_t j = 0; j < w->npiece; j++) {
		const struct lat_piece *p = &w->piece[j];

		obuf_printf(o, "%s{\"cpu\":%d,\"start\":%llu,\"end\":%llu", j ? "," : "",
			    p->cpu, (unsigned long long)p->start, (unsigned long long)p->end);
		if (p->throttled_ns)
			obuf_printf(o, ",\"throttled_ns\":%llu",
				    (unsigned long long)p->throttled_ns);
		if (p->top_tid) {
			obuf_printf(o, ",\"behind_tid\":%llu", (unsigned long long)p->top_tid);
			obuf_json_kv_str(o, "behind_comm", lat_thread_name(a, p->top_tid));
			obuf_printf(o, ",\"behind_prio\":%d,\"behind_ns\":%llu",
				    lat_prio_of(p->top_weight), (unsigned long long)p->top_ns);
		}
		obuf_putc(o, '}');
	}
	obuf_putc(o, ']');
}

/* One wait as a JSON object, as the report's "top" lists them. */
void lat_wait_json(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o)
{
	obuf_printf(o, "{\"kind\":\"%s\",\"latency\":%llu,\"start\":%llu,\"end\":%llu,"
		    "\"tid\":%llu",
		    lat_kind_name(w->kind), (unsigned long long)lat_wait_ns(w),
		    (unsigned long long)w->start, (unsigned long long)w->end,
		    (unsigned long long)w->tid);
	obuf_json_kv_str(o, "comm", lat_thread_name(a, w->tid));
	obuf_printf(o, ",\"pid\":%llu,\"cpu\":%u,\"prev_cpu\":%d,\"migrated\":%s",
		    (unsigned long long)w->pid, w->cpu, w->prev_cpu,
		    w->prev_cpu >= 0 && (uint32_t)w->prev_cpu != w->cpu ? "true" : "false");
	if (w->kind == LAT_TIMER)
		lat_timer_json(a, w, o);
	if (w->kind != LAT_PREEMPT)
		json_waker(a, w, o);
	json_blame(a, w, o);
	json_causes(o, "causes", w->causes);
	lat_throttled_json(w, o);
	obuf_printf(o, ",\"unknown_reasons\":{\"untraced\":%llu,\"lost\":%llu,"
		    "\"no_history\":%llu}",
		    (unsigned long long)w->untraced_ns, (unsigned long long)w->lost_ns,
		    (unsigned long long)(w->causes[LAT_CAUSE_UNKNOWN] - w->untraced_ns -
					 w->lost_ns));
	json_placement(a, w, o);
	obuf_putc(o, '}');
}

/* One row of the report: its key, distributions, blocked time, causes. */
static void json_group(struct lat_analysis *a, const struct lat_group *g, struct obuf *o)
{
	uint64_t causes[LAT_CAUSES], from, n;
	struct lat_thread *t;

	obuf_printf(o, "{\"key\":%llu", (unsigned long long)g->key);
	if (a->o.by == LAT_BY_THREAD) {
		t = lat_thread_find(a, g->key);
		obuf_json_kv_str(o, "comm", lat_thread_name(a, g->key));
		obuf_printf(o, ",\"pid\":%llu", (unsigned long long)(t ? t->pid : 0));
		obuf_json_kv_str(o, "process", lat_proc_name(a, t ? t->pid : 0));
		if (t && t->cgroup)
			obuf_json_kv_str(o, "cgroup", lat_cgroup_name(a, t->cgroup));
	} else if (a->o.by == LAT_BY_PROCESS) {
		obuf_json_kv_str(o, "process", lat_proc_name(a, g->key));
	} else if (a->o.by == LAT_BY_CGROUP) {
		obuf_json_kv_str(o, "cgroup", lat_cgroup_name(a, g->key));
	}
	obuf_lit(o, ",\"wakeup\":");
	json_dist(o, &g->d[LAT_WAKEUP]);
	obuf_lit(o, ",\"preemption\":");
	json_dist(o, &g->d[LAT_PREEMPT]);
	obuf_lit(o, ",\"timer\":");
	json_dist(o, &g->d[LAT_TIMER]);
	obuf_printf(o, ",\"blocked\":{\"S\":{\"count\":%llu,\"ns\":%llu},"
		    "\"D\":{\"count\":%llu,\"ns\":%llu},\"other\":{\"count\":%llu,\"ns\":%llu}}",
		    (unsigned long long)g->blocked_n[LAT_BLOCK_S],
		    (unsigned long long)g->blocked_ns[LAT_BLOCK_S],
		    (unsigned long long)g->blocked_n[LAT_BLOCK_D],
		    (unsigned long long)g->blocked_ns[LAT_BLOCK_D],
		    (unsigned long long)g->blocked_n[LAT_BLOCK_OTHER],
		    (unsigned long long)g->blocked_ns[LAT_BLOCK_OTHER]);
	json_blocked_in(a, o, g);
	json_causes(o, "causes", g->causes);
	n = group_p99_causes(a, g, causes, &from);
	json_causes(o, "p99_causes", causes);
	obuf_printf(o, ",\"p99_waits\":%llu,\"p99_from_ns\":%llu", (unsigned long long)n,
		    (unsigned long long)from);
	obuf_printf(o, ",\"not_measured\":{\"before_trace\":%llu,\"no_wakeup\":%llu,"
		    "\"overlaps_loss\":%llu}}",
		    (unsigned long long)g->before_trace, (unsigned long long)g->no_wakeup,
		    (unsigned long long)g->lossy);
}

/* The causes of the worst waits, of all, and of the selection's p99. */
static void json_totals(struct lat_analysis *a, struct obuf *o)
{
	uint64_t causes[LAT_CAUSES], all[LAT_CAUSES] = { 0 }, from, n;

	sum_worst(a, causes);
	json_causes(o, "top_causes", causes);
	for (uint32_t i = 0; i < a->ngroups; i++)
		for (int k = 0; k < LAT_CAUSES; k++)
			all[k] += a->groups[i].causes[k];
	json_causes(o, "causes", all);
	n = p99_causes(a, causes, &from);
	json_causes(o, "p99_causes", causes);
	obuf_printf(o, ",\"p99_waits\":%llu,\"p99_from_ns\":%llu,\"causes_walked\":%llu",
		    (unsigned long long)n, (unsigned long long)from,
		    (unsigned long long)a->causes_walked);
}

/* The throttled cgroups, and the CPUs that idled while a thread that could use them waited. */
static void json_throttling(struct lat_analysis *a, struct obuf *o)
{
	obuf_printf(o, ",\n\"throttling\":{\"recorded\":%s,\"note\":",
		    lat_throttling_recorded(a) ? "true" : "false");
	obuf_json_str_or_null(o, a->throttling);
	obuf_lit(o, ",\"cgroups\":[");
	for (uint32_t i = 0, k = 0; i < a->ncglimits; i++) {
		const struct lat_cglimit *l = &a->cglimits[i];

		if (!l->spans)
			continue;
		obuf_printf(o, "%s", k++ ? "," : "");
		json_cgroup(o, l->path, l->id, l->cpu_max);
		obuf_printf(o, ",\"cpu_max_end\":");
		obuf_json_str_or_null(o, l->cpu_max_end);
		obuf_printf(o, ",\"spans\":%llu,\"ns\":%llu}", (unsigned long long)l->spans,
			    (unsigned long long)l->ns);
	}
	obuf_lit(o, "]}");
}

static void json_work_conservation(struct lat_analysis *a, struct obuf *o)
{
	obuf_printf(o, ",\n\"work_conservation\":{\"threshold_ns\":%llu,\"waits\":%llu,\"cpus\":[",
		    (unsigned long long)a->o.idle_threshold_ns, (unsigned long long)a->wc_waits);
	for (uint32_t i = 0, k = 0; i < a->nwc; i++)
		if (a->wc[i].idle_ns)
			obuf_printf(o, "%s{\"cpu\":%u,\"idle_ns\":%llu,\"longest_ns\":%llu}",
				    k++ ? "," : "", i, (unsigned long long)a->wc[i].idle_ns,
				    (unsigned long long)a->wc[i].longest_ns);
	obuf_lit(o, "]}");
}

void lat_report_json(struct lat_analysis *a, struct obuf *o, const char *path)
{
	uint64_t before, nowake, lossy;

	obuf_lit(o, "{\"trace\":");
	obuf_json_str(o, path, strlen(path));
	obuf_printf(o, ",\"by\":\"%s\",\"unit\":\"ns\",\"hist_unit_ns\":%llu,\"sched_records\":%llu,"
		    "\"first_ts\":%llu,\"last_ts\":%llu,\"waits\":%llu,\"filtered\":%llu,"
		    "\"irq_recorded\":%s",
		    by_name(a->o.by), (unsigned long long)a->o.unit_ns,
		    (unsigned long long)a->records,
		    (unsigned long long)(a->first_ts <= a->last_ts ? a->first_ts : 0),
		    (unsigned long long)a->last_ts, (unsigned long long)a->waits,
		    (unsigned long long)a->filtered, a->have_irq ? "true" : "false");
	obuf_lit(o, ",\"preemption_model\":");
	obuf_json_str_or_null(o, a->preemption[0] ? a->preemption : NULL);
	lat_put_cut_json(a, o);
	obuf_lit(o, ",\"groups\":[");
	for (uint32_t i = 0; i < a->ngroups; i++) {
		if (i)
			obuf_putc(o, ',');
		obuf_putc(o, '\n');
		json_group(a, &a->groups[i], o);
	}
	missing_totals(a, &before, &nowake, &lossy);
	obuf_printf(o, "],\n\"not_measured\":{\"before_trace\":%llu,\"no_wakeup\":%llu,"
		    "\"overlaps_loss\":%llu},\"lost_records\":%llu,\"loss_ranges\":%u,"
		    "\"ftrace_lost\":%llu,\n\"top\":[",
		    (unsigned long long)before, (unsigned long long)nowake,
		    (unsigned long long)lossy, (unsigned long long)a->lost_records, a->nlosses,
		    (unsigned long long)a->ftrace_lost);
	for (uint32_t i = 0; i < a->worst.n; i++) {
		if (i)
			obuf_putc(o, ',');
		obuf_putc(o, '\n');
		lat_wait_json(a, &a->top[i], o);
	}
	obuf_lit(o, "]");
	json_totals(a, o);
	json_throttling(a, o);
	json_work_conservation(a, o);
	obuf_lit(o, "}\n");
}
