// SPDX-License-Identifier: GPL-2.0
/* Per-CPU spools of recorder records, merged into one archive in time order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "utils.h"

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
}

/* The timestamp a raw record sorts by, if it has one. */
static bool raw_ts(const uint64_t *w, uint32_t words, uint64_t *ts)
{
	switch (w[0] & 15) {
	case KTRACE_FXT_REC_EVENT:
	case KTRACE_FXT_REC_SCHED:
	case KTRACE_FXT_REC_LOG:
		if (words < 2)
			return false;
		*ts = w[1];
		return true;
	default:
		return false;
	}
}

int spool_add(struct spool *s, const void *rec, size_t bytes)
{
	uint64_t h;
	uint32_t words;

	if (bytes < 8 || bytes % 8) {
		s->rejected++;
		return -EINVAL;
	}
	memcpy(&h, rec, 8);
	words = ktrace_fxt_get(h, 4, 15);
	if ((h & 15) == KTRACE_FXT_REC_LARGE || words * 8 != bytes) {
		s->rejected++;
		return -EINVAL;
	}
	if (fwrite(rec, bytes, 1, s->f) != 1)
		return -EIO;
	s->records++;
	s->bytes += bytes;
	return 0;
}

int spool_add_encoded(struct spool *s, struct obuf *o)
{
	size_t off = 0;
	int ret = 0;

	while (off + 8 <= o->len && !ret) {
		uint64_t h;
		uint32_t bytes;

		memcpy(&h, o->buf + off, 8);
		bytes = ktrace_fxt_get(h, 4, 15) * 8;
		if (!bytes || off + bytes > o->len)
			return -EINVAL;
		ret = spool_add(s, o->buf + off, bytes);
		off += bytes;
	}
	o->len = 0;
	return ret;
}

struct cursor {
	FILE *f;
	int64_t offset;
	uint64_t key;
	uint64_t last_ts;	/* of the spool's last record with a time */
	uint64_t rec[KTRACE_FXT_MAX_RECORD_WORDS];
	uint32_t words;
	unsigned int index;
};

static int cursor_next(struct cursor *c)
{
	if (fread(c->rec, 8, 1, c->f) != 1)
		return 0;
	c->words = ktrace_fxt_get(c->rec[0], 4, 15);
	if (c->words > 1 && fread(c->rec + 1, 8, c->words - 1, c->f) != c->words - 1)
		return -EIO;
	/* Records without a time (names) keep their place among this spool's. */
	if (raw_ts(c->rec, c->words, &c->key))
		c->last_ts = c->key;
	else
		c->key = c->last_ts;
	/* Another clock domain (ftrace): move its events onto the recorder's. */
	if (c->offset) {
		/* Names before the first event keep sorting first. */
		if (c->key)
			c->key = c->offset < 0 && c->key < (uint64_t)-c->offset ? 0 :
				 c->key + c->offset;
		if ((c->rec[0] & 15) == KTRACE_FXT_REC_EVENT && c->words >= 2) {
			c->rec[1] += c->offset;
			if (ktrace_fxt_get(c->rec[0], 16, 19) == KTRACE_FXT_EV_DURATION_COMPLETE)
				c->rec[c->words - 1] += c->offset;
		}
	}
	return 1;
}

/* Heap order: by time, then by spool index so equal times stay stable. */
static bool before(const struct cursor *a, const struct cursor *b)
{
	return a->key < b->key || (a->key == b->key && a->index < b->index);
}

static void sift_down(struct cursor **h, unsigned int n, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, m = i;
		struct cursor *t;

		if (l < n && before(h[l], h[m]))
			m = l;
		if (r < n && before(h[r], h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

int merge_spools(struct spool *spools, unsigned int n, struct fxt_writer *w)
{
	struct cursor *cur = calloc(n, sizeof(*cur));
	struct cursor **heap = calloc(n, sizeof(*heap));
	unsigned int live = 0;
	int ret = 0;

	if (!cur || !heap) {
		ret = -ENOMEM;
		goto out;
	}
	for (unsigned int i = 0; i < n; i++) {
		if (fflush(spools[i].f) || fseek(spools[i].f, 0, SEEK_SET)) {
			ret = -errno;
			goto out;
		}
		cur[i].f = spools[i].f;
		cur[i].offset = spools[i].offset;
		cur[i].index = i;
		ret = cursor_next(&cur[i]);
		if (ret < 0)
			goto out;
		if (ret)
			heap[live++] = &cur[i];
	}
	for (int i = live / 2 - 1; i >= 0; i--)
		sift_down(heap, live, i);
	ret = 0;
	while (live) {
		struct cursor *c = heap[0];
		int more;

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
	free(cur);
	free(heap);
	return ret;
}
