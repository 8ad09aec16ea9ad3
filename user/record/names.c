// SPDX-License-Identifier: GPL-2.0
/*
 * Thread names for the archive (names.h).  A thread is named by its fork,
 * exec and rename records, by its last switch (the recorders name a task
 * again as it exits), and by /proc at the start and the end of recording.
 * A ring keeps only its newest records, so a thread's first record there
 * may be long after its birth, and a tid may have named another thread
 * before; the archive writes, before a thread's first use and wherever the
 * name it needs changes, the name the thread had closest to that use:
 *   1. the newest of its records at or before the use, in the window;
 *   2. else the oldest after it (its exit, a rename, /proc at the end);
 *   3. else the newest from before a ring's window (stale: the tid may
 *      have been reused since, unseen).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/utils.h"
#include "record/names.h"

struct scan {
	struct archive_names *an;
	struct fxt_reader r;
};

/*
 * Keeps thread record @rec (self-contained: its strings inline or well known)
 * at @ts.  Out of memory, the name is left out: its thread may go unnamed
 * in the archive (counted as such), and the recording is kept.
 */
static void add_entry(struct archive_names *an, const struct fxt_record *rec, uint64_t pid,
		      uint64_t ts)
{
	struct name_entry *e = vec_add(&an->entries, &an->nentries, &an->cap_entries, sizeof(*e));
	uint32_t woff = an->nwords;

	if (!e)
		return;
	for (uint32_t i = 0; i < rec->nwords; i++) {
		uint64_t *w = vec_add(&an->words, &an->nwords, &an->cap_words, sizeof(*w));

		if (!w) {
			an->nentries--;
			an->nwords = woff;
			return;
		}
		*w = rec->w[i];
	}
	e->tid = rec->koid;
	e->pid = pid;
	e->ts = ts;
	e->cgroup_id = fxt_arg_u64(rec, "cgroup_id", 0);
	e->seq = an->nentries - 1;
	e->len = rec->name.len < KTRACE_FXT_COMM_LEN ? rec->name.len : KTRACE_FXT_COMM_LEN;
	memcpy(e->name, rec->name.p, e->len);
	e->woff = woff;
	e->nwords = rec->nwords;
	an->sorted = false;
}

/* The process a thread record names, or 0. */
static uint64_t thread_pid(const struct fxt_record *rec)
{
	const struct fxt_arg *a = fxt_find_arg(rec, "process");

	return a && a->type == KTRACE_FXT_ARG_KOID ? a->u : 0;
}

static bool is_thread_record(const struct fxt_record *rec)
{
	return rec->type == KTRACE_FXT_REC_KERNEL_OBJ && rec->obj_type == KTRACE_FXT_OBJ_THREAD &&
	       rec->name.len;
}

static int scan_record(void *ctx, const uint64_t *w, uint32_t words, uint64_t ts)
{
	struct scan *sc = ctx;
	struct fxt_record rec;

	if (ktrace_fxt_rec_type(w[0]) != KTRACE_FXT_REC_KERNEL_OBJ)
		return 0;
	if (fxt_reader_decode(&sc->r, w, words, &rec) == 1 && is_thread_record(&rec))
		add_entry(sc->an, &rec, thread_pid(&rec), ts);
	return 0;
}

int archive_names_scan(struct archive_names *an, struct spool *spools, unsigned int n,
		       uint64_t from)
{
	struct scan sc = { .an = an };
	int ret = 0;

	an->from = from;
	fxt_reader_open_mem(&sc.r, NULL, 0);
	fxt_reader_learn_well_known(&sc.r);
	for (unsigned int i = 0; i < n && !ret; i++)
		ret = spool_for_each_kobj(&spools[i], scan_record, &sc);
	fxt_reader_close(&sc.r);
	return ret;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct name_entry *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* NULL when memory runs out: the thread's names are then not used. */
static struct name_thread *thread_get(struct archive_names *an, uint64_t tid)
{
	bool added;

	return u64map_vec_get(&an->map, tid, &an->threads, &an->nthreads, &an->cap_threads,
			      sizeof(struct name_thread), &added);
}

/* Each thread's entries in time order, found through the map. */
static void sort_entries(struct archive_names *an)
{
	qsort(an->entries, an->nentries, sizeof(*an->entries), cmp_entry);
	for (uint32_t i = 0; i < an->nthreads; i++)
		an->threads[i].first = an->threads[i].n = 0;
	for (uint32_t i = 0; i < an->nentries; i++) {
		struct name_thread *t = thread_get(an, an->entries[i].tid);

		if (!t)
			continue;
		if (!t->n)
			t->first = i;
		t->n++;
	}
	an->sorted = true;
}

void archive_names_written(struct archive_names *an, const struct fxt_record *rec, bool at_end)
{
	struct name_thread *t;

	if (!is_thread_record(rec))
		return;
	/* Alive at the end: a name for the uses nothing closer names. */
	if (at_end)
		add_entry(an, rec, thread_pid(rec), UINT64_MAX);
	t = thread_get(an, rec->koid);
	if (!t)
		return;
	t->pid = thread_pid(rec);
	t->len = rec->name.len < KTRACE_FXT_COMM_LEN ? rec->name.len : KTRACE_FXT_COMM_LEN;
	memcpy(t->name, rec->name.p, t->len);
	t->named = true;
}

/* The entry that names @t's use at @ts (the rules above), or NULL. */
static const struct name_entry *closest(const struct archive_names *an,
					const struct name_thread *t, uint64_t ts)
{
	const struct name_entry *e = an->entries + t->first, *stale = NULL, *before = NULL;

	for (uint32_t i = 0; i < t->n; i++, e++) {
		if (e->ts > ts)
			return before ?: e->ts >= an->from ? e : stale;
		if (e->ts < an->from)
			stale = e;
		else
			before = e;
	}
	return before ?: stale;
}

bool archive_names_use(struct archive_names *an, uint64_t tid, uint64_t ts, bool ran,
		       const uint64_t **thread, uint32_t *nthread, __u64 *proc, uint32_t *nproc)
{
	const struct name_entry *e;
	struct name_thread *t;

	*nproc = 0;
	if (!tid)
		return false;
	if (!an->sorted)
		sort_entries(an);
	t = thread_get(an, tid);
	if (!t) {
		an->unnamed += ran;
		return false;
	}
	e = t->n ? closest(an, t, ts) : NULL;
	if (!e) {
		if (ran && !t->named && !t->counted) {
			t->counted = true;
			an->unnamed++;
		}
		return false;
	}
	if (t->named && t->pid == e->pid && t->len == e->len && !memcmp(t->name, e->name, e->len))
		return false;
	t->named = true;
	t->pid = e->pid;
	t->len = e->len;
	memcpy(t->name, e->name, e->len);
	*thread = an->words + e->woff;
	*nthread = e->nwords;
	/* A process's main thread names it too: its own record may be gone with its fork's. */
	if (e->pid == tid)
		*nproc = ktrace_fxt_put_kobj_process(proc, e->pid, e->name, e->len,
						     e->cgroup_id);
	return true;
}

void archive_names_free(struct archive_names *an)
{
	free(an->entries);
	free(an->words);
	free(an->threads);
	u64map_free(&an->map);
	memset(an, 0, sizeof(*an));
}
