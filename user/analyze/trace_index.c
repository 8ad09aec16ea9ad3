// SPDX-License-Identifier: GPL-2.0
/*
 * The latency analysis's index of a trace, built in its first pass: the
 * threads and processes with their names, the cgroups, the interrupt
 * handlers' names, the lost-record ranges and the stretches the kernel
 * did not trace, with the lookups every later part makes in them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/latency_internal.h"

/* The element for @key of a table; out of memory ends the program. */
void *lat_keyed_get(struct u64map *m, uint64_t key, void *vec, uint32_t *n, uint32_t *cap,
		       size_t size, bool *added, const char *what)
{
	void *e = u64map_vec_get(m, key, vec, n, cap, size, added);

	if (!e)
		out_of_memory(what);
	return e;
}

void *lat_vec_push(void *vec, uint32_t *n, uint32_t *cap, size_t size, const char *what)
{
	void *e = vec_add(vec, n, cap, size);

	if (!e)
		out_of_memory(what);
	return e;
}

struct lat_thread *lat_thread_get(struct lat_analysis *a, uint64_t tid)
{
	bool added;
	struct lat_thread *t = lat_keyed_get(&a->thread_map, tid, &a->threads, &a->nthreads,
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

struct lat_thread *lat_thread_find(struct lat_analysis *a, uint64_t tid)
{
	uint32_t i = u64map_find(&a->thread_map, tid);

	return i == U64MAP_NONE ? NULL : &a->threads[i];
}

static struct lat_proc *proc_get(struct lat_analysis *a, uint64_t pid)
{
	bool added;
	struct lat_proc *p = lat_keyed_get(&a->proc_map, pid, &a->procs, &a->nprocs, &a->cap_procs,
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
	a->cgroups[a->ncgroups] = xstrndup(s.p, s.len, "latency: cgroups");
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

int32_t lat_irq_index(struct lat_analysis *a, struct fxt_str s)
{
	for (uint32_t i = 0; i < a->nirq_names; i++)
		if (strlen(a->irq_names[i]) == s.len && !memcmp(a->irq_names[i], s.p, s.len))
			return i;
	if (a->nirq_names >= 4096)
		return -1;
	a->irq_names = xrealloc(a->irq_names, (a->nirq_names + 1) * sizeof(*a->irq_names),
				 "latency: interrupt names");
	a->irq_names[a->nirq_names] = xstrndup(s.p, s.len, "latency: interrupt names");
	return a->nirq_names++;
}

/*
 * A stretch where the kernel switched without tracing it: the stranded
 * thread left the CPU and the other one came on at unknown times, and what
 * ran on that CPU meanwhile is unknown.  No wait of those two threads
 * across it is measured, nor a wait that ends on that CPU across it (its
 * blame would be made up); they count with the ones that overlap losses.
 */
void lat_index_untraced(struct lat_analysis *a, const struct sched_event *ev)
{
	struct lat_untraced *u;

	/*
	 * An offline CPU, from its cpu_offline record to its cpu_online one:
	 * what ran there last stopped at some unknown time before the first.
	 */
	if (ev->kind == SCHED_CPU_ONLINE) {
		for (uint32_t i = a->nuntraced; i-- > 0;)
			if (a->untraced[i].cpu == ev->line.cpu && a->untraced[i].last == UINT64_MAX) {
				a->untraced[i].last = ev->ts;
				break;
			}
		return;
	}
	if (ev->kind != SCHED_CPU_OFFLINE && ev->kind != SCHED_UNTRACED)
		return;
	u = lat_vec_push(&a->untraced, &a->nuntraced, &a->cap_untraced, sizeof(*u),
		     "latency: untraced stretches");
	if (ev->kind == SCHED_CPU_OFFLINE) {
		*u = (struct lat_untraced){ .first = ev->ts, .last = UINT64_MAX, .cpu = ev->line.cpu };
		return;
	}
	u->first = ev->untraced.first;
	u->last = ev->untraced.last;
	u->tid[0] = ev->untraced.tid;
	u->tid[1] = ev->untraced.switched_out;
	u->cpu = ev->untraced.cpu;
}

/*
 * Whether an untraced stretch may hide @tid's own switch-in or switch-out
 * during [start, end]: it is one of the stretch's two threads.  A stretch
 * of other threads only hides what held that CPU: the wait is measured,
 * and that part of its causes is unknown (causes.c).
 */
bool lat_across_untraced(const struct lat_analysis *a, uint64_t tid, uint64_t start,
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

static int cmp_range(const void *x, const void *y)
{
	const struct lat_range *p = x, *q = y;

	return p->first < q->first ? -1 : p->first > q->first;
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

bool lat_overlaps_loss(const struct lat_analysis *a, uint64_t start, uint64_t end)
{
	uint32_t lo = lat_first_loss(a, start);

	return lo < a->nlosses && a->losses[lo].first <= end;
}

const char *lat_irq_name(struct lat_analysis *a, int32_t idx)
{
	return idx >= 0 && (uint32_t)idx < a->nirq_names ? a->irq_names[idx] : NULL;
}

/* A thread or process record of pass 1: names, process, allowed CPUs, cgroup. */
void lat_index_object(struct lat_analysis *a, const struct fxt_record *rec)
{
	const struct fxt_arg *x;

	if (rec->obj_type == KTRACE_FXT_OBJ_THREAD) {
		struct lat_thread *t = lat_thread_get(a, rec->koid);

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
}

/* A loss that may hide a switch or a wakeup (not a timer expiry's or a name's). */
void lat_index_loss(struct lat_analysis *a, const struct sched_loss *l)
{
	struct lat_range *loss;

	if (!l->hides_switches)
		return;
	if (l->ftrace) {
		/* ftrace's own events (interrupts): blame may miss some. */
		a->ftrace_lost += l->count;
		return;
	}
	a->lost_records += l->count;
	loss = lat_vec_push(&a->losses, &a->nlosses, &a->cap_losses, sizeof(*loss),
			    "latency: losses");
	loss->first = l->first;
	loss->last = l->last < l->first ? l->first : l->last;
}

/* Sorts and merges the loss ranges. */
void lat_index_done(struct lat_analysis *a)
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
