// SPDX-License-Identifier: GPL-2.0
/* Per-CPU spools of recorder records, merged into one archive in time order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/u64map.h"
#include "lib/utils.h"
#include "record/spool.h"

#define SPOOL_BUF	(256 << 10)

int spool_open(struct spool *s)
{
	memset(s, 0, sizeof(*s));
	s->f = tmpfile();
	if (!s->f)
		return -errno;
	setvbuf(s->f, NULL, _IOFBF, SPOOL_BUF);
	return 0;
}

void spool_close(struct spool *s)
{
	if (s->f)
		fclose(s->f);
	s->f = NULL;
	free(s->kobjs);
	s->kobjs = NULL;
	s->nkobjs = s->cap_kobjs = 0;
}

/* The timestamp a raw record sorts by, if it has one. */
static bool raw_ts(const uint64_t *w, uint32_t words, uint64_t *ts)
{
	if (words < 2 || !ktrace_fxt_rec_timed(w[0]))
		return false;
	*ts = w[1];
	return true;
}

/*
 * The next record written is a name (of koid @koid): where it goes, and its
 * time.  Out of memory, the record is still written, in its place; only the
 * archive's naming of threads elsewhere (names.c) does without it.
 */
static void note_kobj(struct spool *s, uint64_t koid)
{
	struct spool_kobj *k = vec_add(&s->kobjs, &s->nkobjs, &s->cap_kobjs, sizeof(*k));

	if (!k)
		return;
	k->offset = s->bytes;
	/* A record from an interrupt may come between a last switch and its name. */
	k->ts = s->exit_tid && koid == s->exit_tid ? s->exit_ts : s->last_ts;
}

/*
 * Notes a record's time (by how much the spool is out of order), an
 * exiting thread's last switch, and where a name is, at its offset:
 * s->bytes before the record is added.  @w: the first 3 of @words words.
 */
static void note_time(struct spool *s, const uint64_t *w, uint32_t words)
{
	uint64_t ts;

	if (!raw_ts(w, words, &ts)) {
		if (ktrace_fxt_rec_type(w[0]) == KTRACE_FXT_REC_KERNEL_OBJ && words > 1)
			note_kobj(s, w[1]);
		return;
	}
	s->last_ts = ts;
	if (ktrace_fxt_rec_type(w[0]) == KTRACE_FXT_REC_SCHED &&
	    ktrace_fxt_sched_type(w[0]) == KTRACE_FXT_SCHED_CSWITCH_ARGS && words > 2) {
		uint32_t state = ktrace_fxt_get(w[0], 36, 39);

		if (state == KTRACE_FXT_THREAD_DYING || state == KTRACE_FXT_THREAD_DEAD) {
			s->exit_tid = w[2];
			s->exit_ts = ts;
		}
	}
	if (!s->timed_records++ || ts < s->min_ts)
		s->min_ts = ts;
	if (ts >= s->max_ts)
		s->max_ts = ts;
	else if (s->max_ts - ts > s->disorder)
		s->disorder = s->max_ts - ts;
}

int spool_add(struct spool *s, const void *rec, size_t bytes)
{
	uint64_t h, w[3];
	uint32_t words;

	if (bytes < 8 || bytes % 8) {
		s->rejected++;
		return -EINVAL;
	}
	memcpy(&h, rec, 8);
	words = ktrace_fxt_rec_words(h);
	if (ktrace_fxt_rec_type(h) == KTRACE_FXT_REC_LARGE || words * 8 != bytes) {
		s->rejected++;
		return -EINVAL;
	}
	memcpy(w, rec, (words < 3 ? words : 3) * 8);
	note_time(s, w, words);
	if (fwrite(rec, bytes, 1, s->f) != 1)
		return -EIO;
	s->records++;
	s->bytes += bytes;
	return 0;
}

int spool_add_run(struct spool *s, const uint64_t *w, size_t nwords)
{
	uint64_t records = 0;

	for (size_t i = 0, words; i < nwords; i += words) {
		words = ktrace_fxt_rec_words(w[i]);
		if (!words || ktrace_fxt_rec_type(w[i]) == KTRACE_FXT_REC_LARGE || words > nwords - i)
			return -EINVAL;
	}
	for (size_t i = 0, words; i < nwords; i += words) {
		words = ktrace_fxt_rec_words(w[i]);
		note_time(s, w + i, words);
		s->bytes += words * 8;
		records++;
	}
	if (nwords && fwrite(w, nwords * 8, 1, s->f) != 1)
		return -EIO;
	s->records += records;
	return 0;
}

static int spool_sink(void *ctx, const void *words, uint32_t n)
{
	return spool_add(ctx, words, (size_t)n * 8);
}

struct fxt_writer *spool_writer_new(struct spool *s)
{
	struct fxt_writer *w = malloc(sizeof(*w));

	if (!w || fxt_writer_init(w, -1)) {
		free(w);
		return NULL;
	}
	w->sink = spool_sink;
	w->sink_ctx = s;
	/* Records land in a spool among others': no string table of their own. */
	w->inline_strings = true;
	return w;
}

void spool_writer_free(struct fxt_writer *w)
{
	if (!w)
		return;
	fxt_writer_finish(w);
	obuf_free(&w->out);
	free(w);
}

/* An entry of a min-heap: by time, then by arrival so equal times keep order. */
struct heap_node {
	uint64_t key, tie;
};

static bool before(const struct heap_node *a, const struct heap_node *b)
{
	return a->key < b->key || (a->key == b->key && a->tie < b->tie);
}

static void swap_nodes(struct heap_node **h, unsigned int i, unsigned int j)
{
	struct heap_node *t = h[i];

	h[i] = h[j];
	h[j] = t;
}

static void sift_down(struct heap_node **h, unsigned int n, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && before(h[l], h[m]))
			m = l;
		if (r < n && before(h[r], h[m]))
			m = r;
		if (m == i)
			return;
		swap_nodes(h, i, m);
		i = m;
	}
}

static void sift_up(struct heap_node **h, unsigned int i)
{
	while (i && before(h[i], h[(i - 1) / 2])) {
		swap_nodes(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

/* A record read ahead and held back until nothing later can sort before it. */
struct held {
	struct heap_node node;
	uint32_t words;
	uint64_t rec[];
};

/*
 * Past this many bytes of held records in all, release anyway rather than
 * grow further (a long complete event can make a whole spool's window wide).
 */
#define MAX_HELD_BYTES	(128ULL << 20)

struct cursor {
	struct heap_node node;	/* tie: the spool's index */
	FILE *f;
	int64_t offset;
	uint64_t last_ts;	/* of the spool's last record with a time */
	uint64_t rec[KTRACE_FXT_MAX_RECORD_WORDS];
	uint32_t words;
	/* Reorder window, for a spool whose records came out of order. */
	uint64_t window, max_key, seq;
	struct heap_node **held;
	unsigned int nheld, held_cap;
	uint64_t *held_bytes;		/* by every cursor of the merge */
	bool eof, overflowed;
};

/* The next record as spooled, into c->rec. */
static int read_raw(struct cursor *c)
{
	if (fread(c->rec, 8, 1, c->f) != 1)
		return ferror(c->f) ? -EIO : 0;
	c->words = ktrace_fxt_rec_words(c->rec[0]);
	if (c->words > 1 && fread(c->rec + 1, 8, c->words - 1, c->f) != c->words - 1)
		return -EIO;
	return 1;
}

/*
 * Reads ahead until the earliest held record is c->window older than the
 * latest read: no later record of the spool can sort before it then.
 */
static int fill_window(struct cursor *c)
{
	while (!c->eof && (!c->nheld || c->max_key - c->held[0]->key < c->window)) {
		struct held *h;
		uint64_t key;
		int ret;

		if (*c->held_bytes >= MAX_HELD_BYTES && c->nheld) {
			/* Out of order by more than memory allows: let the earliest go. */
			c->overflowed = true;
			break;
		}
		if (c->nheld == c->held_cap) {
			unsigned int cap = c->held_cap ? 2 * c->held_cap : 256;
			struct heap_node **more = realloc(c->held, cap * sizeof(*more));

			if (!more)
				return -ENOMEM;
			c->held = more;
			c->held_cap = cap;
		}
		ret = read_raw(c);
		if (ret < 0)
			return ret;
		if (!ret) {
			c->eof = true;
			break;
		}
		h = malloc(sizeof(*h) + c->words * sizeof(h->rec[0]));
		if (!h)
			return -ENOMEM;
		memcpy(h->rec, c->rec, c->words * sizeof(h->rec[0]));
		h->words = c->words;
		if (raw_ts(c->rec, c->words, &key)) {
			if (key > c->max_key)
				c->max_key = key;
		} else {
			/*
			 * A name goes before every later record of the spool,
			 * the ones that may use it: none is older than this.
			 */
			key = c->max_key > c->window ? c->max_key - c->window : 0;
		}
		h->node.key = key;
		h->node.tie = c->seq++;
		c->held[c->nheld] = &h->node;
		sift_up(c->held, c->nheld++);
		*c->held_bytes += sizeof(*h) + h->words * sizeof(h->rec[0]);
	}
	return 0;
}

int spool_for_each_kobj(struct spool *s, int (*fn)(void *ctx, const uint64_t *rec,
						   uint32_t words, uint64_t ts), void *ctx)
{
	uint64_t rec[KTRACE_FXT_MAX_RECORD_WORDS];
	int ret = 0;

	if (s->nkobjs && fflush(s->f))
		return -errno;
	for (uint32_t i = 0; i < s->nkobjs && !ret; i++) {
		const struct spool_kobj *k = &s->kobjs[i];
		uint64_t ts = s->offset < 0 && k->ts < (uint64_t)-s->offset ? 0 : k->ts + s->offset;
		uint32_t words;

		if (pread(fileno(s->f), rec, 8, k->offset) != 8)
			return -EIO;
		words = ktrace_fxt_rec_words(rec[0]);
		if (words > 1 && pread(fileno(s->f), rec + 1, (words - 1) * 8, k->offset + 8) !=
		    (ssize_t)(words - 1) * 8)
			return -EIO;
		ret = fn(ctx, rec, words, ts);
	}
	return ret;
}

static int cursor_next(struct cursor *c)
{
	int ret;

	if (!c->window) {
		ret = read_raw(c);
		if (ret <= 0)
			return ret;
		/* Records without a time (names) keep their place among this spool's. */
		if (raw_ts(c->rec, c->words, &c->node.key))
			c->last_ts = c->node.key;
		else
			c->node.key = c->last_ts;
	} else {
		struct held *h;

		ret = fill_window(c);
		if (ret < 0)
			return ret;
		if (!c->nheld)
			return 0;
		h = (struct held *)c->held[0];
		c->held[0] = c->held[--c->nheld];
		sift_down(c->held, c->nheld, 0);
		*c->held_bytes -= sizeof(*h) + h->words * sizeof(h->rec[0]);
		c->node.key = h->node.key;
		c->words = h->words;
		memcpy(c->rec, h->rec, h->words * sizeof(h->rec[0]));
		free(h);
	}
	/* Another clock domain (ftrace): move its events onto the recorder's. */
	if (c->offset) {
		/* Names before the first event keep sorting first. */
		if (c->node.key)
			c->node.key = c->offset < 0 && c->node.key < (uint64_t)-c->offset ? 0 :
				      c->node.key + c->offset;
		if (ktrace_fxt_rec_type(c->rec[0]) == KTRACE_FXT_REC_EVENT && c->words >= 2) {
			c->rec[1] += c->offset;
			if (ktrace_fxt_get(c->rec[0], 16, 19) == KTRACE_FXT_EV_DURATION_COMPLETE)
				c->rec[c->words - 1] += c->offset;
		}
	}
	return 1;
}

static void cursor_free(struct cursor *c)
{
	while (c->nheld)
		free(c->held[--c->nheld]);
	free(c->held);
}

int merge_spools(struct spool *spools, unsigned int n, struct fxt_writer *w, uint64_t from)
{
	struct cursor *cur = calloc(n, sizeof(*cur));
	struct heap_node **heap = calloc(n, sizeof(*heap));
	uint64_t held_bytes = 0;
	unsigned int live = 0;
	int ret = 0;

	if (!cur || !heap) {
		ret = -ENOMEM;
		goto out;
	}
	for (unsigned int i = 0; i < n; i++) {
		struct cursor *c = &cur[i];

		if (fflush(spools[i].f) || fseek(spools[i].f, 0, SEEK_SET)) {
			ret = -errno;
			goto out;
		}
		c->f = spools[i].f;
		c->offset = spools[i].offset;
		c->node.tie = i;
		c->window = spools[i].disorder;
		c->held_bytes = &held_bytes;
		ret = cursor_next(c);
		if (ret < 0)
			goto out;
		if (ret)
			heap[live++] = &c->node;
	}
	for (int i = live / 2 - 1; i >= 0; i--)
		sift_down(heap, live, i);
	ret = 0;
	while (live) {
		struct cursor *c = (struct cursor *)heap[0];
		uint64_t ts;
		int more;

		if (!from || !raw_ts(c->rec, c->words, &ts) || ts >= from)
			fxt_write_words(w, c->rec, c->words);
		more = cursor_next(c);
		if (more < 0) {
			ret = more;
			break;
		}
		if (!more)
			heap[0] = heap[--live];
		sift_down(heap, live, 0);
	}
out:
	for (unsigned int i = 0; cur && i < n; i++) {
		if (cur[i].overflowed)
			pr_warn("records up to %.3f s out of order, more than %llu MiB of them in memory could sort: some are written out of time order",
				cur[i].window / 1e9, MAX_HELD_BYTES >> 20);
		cursor_free(&cur[i]);
	}
	free(cur);
	free(heap);
	return ret;
}
