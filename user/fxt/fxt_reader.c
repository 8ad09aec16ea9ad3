// SPDX-License-Identifier: GPL-2.0
/* Streaming FXT reader: one decoded record at a time, with every spec check. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fxt/fxt_reader.h"
#include "lib/utils.h"

#define READ_CHUNK	(1U << 20)
#define READ_MIN	(4U << 10)
/* Large records may be up to 32 GiB by their size field; nothing sane is. */
#define MAX_LARGE_BYTES	(64ULL << 20)
#define NUM_STRINGS	0x8000U
#define NUM_THREADS	0x100U

struct fxt_thread_entry {
	uint64_t pid, tid;
	bool set;
};

struct fxt_string_entry {
	char *s;
	uint32_t len, cap;
};

/*
 * Per-provider tables (the spec keeps them separate per provider), grown
 * as indices are used so that many providers cost little.
 */
struct fxt_provider {
	struct fxt_provider *next;
	uint32_t id;
	struct fxt_string_entry *str;	/* nstr entries */
	uint32_t nstr;
	struct fxt_thread_entry *threads;	/* NUM_THREADS entries, or NULL */
	uint64_t ticks_per_sec;
};

/* Enough for any real archive; a hostile one cannot exhaust memory. */
#define MAX_PROVIDERS	1024

static void provider_free(struct fxt_provider *p)
{
	/* Set entries only: free() costs a stack trace under ASan, even of NULL. */
	for (uint32_t i = 0; i < p->nstr; i++)
		if (p->str[i].s)
			free(p->str[i].s);
	free(p->str);
	free(p->threads);
	free(p);
}

/* A bounded walk over a record's words. */
struct cursor {
	const uint64_t *w;
	uint32_t n, i;
};

static void report(struct fxt_reader *r, uint64_t off, const char *field, const char *fmt,
		   va_list ap)
{
	struct fxt_error e;

	e.offset = off;
	snprintf(e.field, sizeof(e.field), "%s", field);
	vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
	if (!r->violations)
		r->first = e;
	r->violations++;
	if (r->on_violation)
		r->on_violation(r->ctx, &e);
}

static void __attribute__((format(printf, 4, 5)))
violate(struct fxt_reader *r, const struct fxt_record *rec, const char *field, const char *fmt,
	...)
{
	va_list ap;

	va_start(ap, fmt);
	report(r, rec->offset, field, fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 4, 5)))
violation_at(struct fxt_reader *r, uint64_t off, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(r, off, field, fmt, ap);
	va_end(ap);
}

static int __attribute__((format(printf, 4, 5)))
fatal(struct fxt_reader *r, uint64_t off, const char *field, const char *fmt, ...)
{
	va_list ap;

	r->fatal.offset = off;
	snprintf(r->fatal.field, sizeof(r->fatal.field), "%s", field);
	va_start(ap, fmt);
	vsnprintf(r->fatal.msg, sizeof(r->fatal.msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static struct fxt_provider *provider_new(struct fxt_reader *r, uint32_t id)
{
	struct fxt_provider *p, **pp;
	unsigned int count = 0;

	for (pp = &r->providers; *pp; pp = &(*pp)->next, count++) {
		if ((*pp)->id == id) {
			p = *pp;
			*pp = p->next;
			provider_free(p);
			break;
		}
	}
	if (count >= MAX_PROVIDERS)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->id = id;
	p->ticks_per_sec = KTRACE_FXT_TICKS_PER_SEC;
	p->next = r->providers;
	r->providers = p;
	return p;
}

static struct fxt_provider *provider_find(struct fxt_reader *r, uint32_t id)
{
	struct fxt_provider *p;

	for (p = r->providers; p; p = p->next)
		if (p->id == id)
			return p;
	return NULL;
}

static void reader_init(struct fxt_reader *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->ticks_per_sec = KTRACE_FXT_TICKS_PER_SEC;
}

/*
 * The buffer for what is left of @fd: a chunk, or for a smaller file the
 * least power of two that holds it; fill() grows it for a larger record.
 */
static size_t read_cap(int fd)
{
	struct stat st;
	off_t at;
	size_t cap = READ_MIN;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (at = lseek(fd, 0, SEEK_CUR)) < 0 ||
	    st.st_size - at >= (off_t)READ_CHUNK)
		return READ_CHUNK;
	while (cap < (size_t)(st.st_size - at))
		cap *= 2;
	return cap;
}

int fxt_reader_open_fd(struct fxt_reader *r, int fd, const char *path)
{
	reader_init(r);
	r->fd = fd;
	r->path = path;
	r->cap = read_cap(fd);
	r->buf = malloc(r->cap);
	r->own_buf = true;
	r->cur = provider_new(r, 0);
	return r->buf && r->cur ? 0 : -ENOMEM;
}

void fxt_reader_open_mem(struct fxt_reader *r, const void *data, size_t len)
{
	reader_init(r);
	r->buf = (uint8_t *)data;
	r->len = len;
	r->cap = len;
	r->eof = true;
	r->path = "<memory>";
	r->cur = provider_new(r, 0);
}

void fxt_reader_close(struct fxt_reader *r)
{
	struct fxt_provider *p, *n;

	for (p = r->providers; p; p = n) {
		n = p->next;
		provider_free(p);
	}
	if (r->own_buf)
		free(r->buf);
	u64map_free(&r->wake_map);
	fxt_compact_current_free(&r->current);
	free(r->wake);
	r->wake = NULL;
	r->nwake = r->cap_wake = 0;
	r->providers = r->cur = NULL;
	r->buf = NULL;
}

/* Make at least @need bytes available at r->pos; returns bytes available. */
static ssize_t fill(struct fxt_reader *r, size_t need)
{
	if (r->len - r->pos >= need || r->eof)
		return r->len - r->pos;
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->base += r->pos;
		r->len -= r->pos;
		r->pos = 0;
	}
	if (need > r->cap) {
		size_t cap = r->cap;
		uint8_t *nb;

		while (cap < need)
			cap *= 2;
		nb = realloc(r->buf, cap);
		if (!nb)
			return -ENOMEM;
		r->buf = nb;
		r->cap = cap;
	}
	while (r->len < need && !r->eof) {
		ssize_t n = read(r->fd, r->buf + r->len, r->cap - r->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			r->eof = true;
		r->len += n;
	}
	return r->len;
}

static const uint64_t *take(struct cursor *c, uint32_t k)
{
	const uint64_t *p;

	if (k > c->n - c->i)
		return NULL;
	p = c->w + c->i;
	c->i += k;
	return p;
}

/* Check bits [lo..hi] of @word are zero (reserved). */
static void reserved(struct fxt_reader *r, const struct fxt_record *rec, uint64_t word,
		     unsigned int lo, unsigned int hi, const char *field)
{
	if (ktrace_fxt_get(word, lo, hi))
		violate(r, rec, field, "reserved bits %u..%u are not zero (0x%llx)", lo, hi,
			(unsigned long long)ktrace_fxt_get(word, lo, hi));
}

/* Read an inline stream of @len bytes, checking its zero padding. */
static int stream(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c, uint32_t len,
		  struct fxt_str *out, const char *field)
{
	uint32_t words = ktrace_fxt_str_words(len);
	const uint64_t *p = take(c, words);
	const uint8_t *b;

	if (!p) {
		violate(r, rec, field, "stream of %u bytes runs past the record's end", len);
		return -1;
	}
	b = (const uint8_t *)p;
	for (uint32_t i = len; i < words * 8; i++) {
		if (b[i]) {
			violate(r, rec, field, "padding after %u-byte stream is not zero", len);
			break;
		}
	}
	out->p = (const char *)p;
	out->len = len;
	return 0;
}

static int sref(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c, uint16_t ref,
		struct fxt_str *out, const char *field)
{
	if (ktrace_fxt_sref_is_inline(ref))
		return stream(r, rec, c, ref & 0x7fff, out, field);
	out->p = "";
	out->len = 0;
	if (!ref)
		return 0;
	if (ref >= r->cur->nstr || !r->cur->str[ref].s) {
		violate(r, rec, field, "string index %u is not in the string table", ref);
		return 0;
	}
	out->p = r->cur->str[ref].s;
	out->len = r->cur->str[ref].len;
	return 0;
}

static int tref(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c, unsigned int ref,
		uint64_t *pid, uint64_t *tid, const char *field)
{
	if (!ref) {
		const uint64_t *p = take(c, 2);

		if (!p) {
			violate(r, rec, field, "inline thread runs past the record's end");
			return -1;
		}
		*pid = p[0];
		*tid = p[1];
		return 0;
	}
	if (!r->cur->threads || !r->cur->threads[ref].set) {
		violate(r, rec, field, "thread index %u is not in the thread table", ref);
		*pid = *tid = 0;
		return 0;
	}
	*pid = r->cur->threads[ref].pid;
	*tid = r->cur->threads[ref].tid;
	return 0;
}

static const char *const arg_field[KTRACE_FXT_MAX_ARGS] = {
	"argument 0", "argument 1", "argument 2", "argument 3", "argument 4",
	"argument 5", "argument 6", "argument 7", "argument 8", "argument 9",
	"argument 10", "argument 11", "argument 12", "argument 13", "argument 14",
};

static int args(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c,
		unsigned int nargs)
{
	rec->nargs = nargs;
	for (unsigned int i = 0; i < nargs; i++) {
		struct fxt_arg *a = &rec->args[i];
		const uint64_t *h = take(c, 1);
		struct cursor ac;
		uint32_t size;
		const uint64_t *v;
		const char *field = arg_field[i];

		if (!h) {
			violate(r, rec, field, "argument header runs past the record's end");
			return -1;
		}
		size = ktrace_fxt_get(*h, 4, 15);
		if (size == 0 || size - 1 > c->n - c->i) {
			violate(r, rec, field, "argument size %u words does not fit the record",
				size);
			return -1;
		}
		ac.w = h;
		ac.n = size;
		ac.i = 1;
		c->i += size - 1;
		memset(a, 0, sizeof(*a));
		a->type = ktrace_fxt_get(*h, 0, 3);
		if (sref(r, rec, &ac, ktrace_fxt_get(*h, 16, 31), &a->name, field))
			return -1;
		switch (a->type) {
		case KTRACE_FXT_ARG_NULL:
			reserved(r, rec, *h, 32, 63, field);
			break;
		case KTRACE_FXT_ARG_INT32:
			a->i = (int32_t)ktrace_fxt_get(*h, 32, 63);
			break;
		case KTRACE_FXT_ARG_UINT32:
			a->u = ktrace_fxt_get(*h, 32, 63);
			break;
		case KTRACE_FXT_ARG_BOOL:
			a->u = ktrace_fxt_get(*h, 32, 32);
			reserved(r, rec, *h, 33, 63, field);
			break;
		case KTRACE_FXT_ARG_INT64:
		case KTRACE_FXT_ARG_UINT64:
		case KTRACE_FXT_ARG_DOUBLE:
		case KTRACE_FXT_ARG_POINTER:
		case KTRACE_FXT_ARG_KOID:
			reserved(r, rec, *h, 32, 63, field);
			v = take(&ac, 1);
			if (!v) {
				violate(r, rec, field, "%s value runs past the argument's end",
					fxt_arg_type_name(a->type));
				return -1;
			}
			if (a->type == KTRACE_FXT_ARG_DOUBLE)
				memcpy(&a->d, v, sizeof(a->d));
			else
				a->u = *v;
			break;
		case KTRACE_FXT_ARG_STRING:
			reserved(r, rec, *h, 48, 63, field);
			if (sref(r, rec, &ac, ktrace_fxt_get(*h, 32, 47), &a->s, field))
				return -1;
			break;
		default:
			violate(r, rec, field, "unknown argument type %u", a->type);
			continue;
		}
		if (ac.i != ac.n)
			violate(r, rec, field, "argument size is %u words, its fields take %u",
				ac.n, ac.i);
	}
	return 0;
}

static void trailing(struct fxt_reader *r, struct fxt_record *rec, const struct cursor *c)
{
	if (c->i != c->n)
		violate(r, rec, "record size", "record is %u words, its fields take %u", c->n,
			c->i);
}

static int decode_metadata(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c)
{
	uint64_t h = rec->w[0];
	struct fxt_provider *p;
	uint32_t len;

	rec->sub = ktrace_fxt_get(h, 16, 19);
	switch (rec->sub) {
	case KTRACE_FXT_META_PROVIDER_INFO:
		rec->provider = ktrace_fxt_get(h, 20, 51);
		len = ktrace_fxt_get(h, 52, 59);
		reserved(r, rec, h, 60, 63, "provider info");
		if (stream(r, rec, c, len, &rec->name, "provider name"))
			return -1;
		p = provider_new(r, rec->provider);
		if (!p)
			return -E2BIG;
		r->cur = p;
		r->ticks_per_sec = p->ticks_per_sec;
		break;
	case KTRACE_FXT_META_PROVIDER_SECTION:
		rec->provider = ktrace_fxt_get(h, 20, 51);
		reserved(r, rec, h, 52, 63, "provider section");
		p = provider_find(r, rec->provider);
		if (!p) {
			violate(r, rec, "provider id", "section of provider %u, which has no provider info record",
				rec->provider);
			p = provider_new(r, rec->provider);
			if (!p)
				return -E2BIG;
		}
		r->cur = p;
		r->ticks_per_sec = p->ticks_per_sec;
		break;
	case KTRACE_FXT_META_PROVIDER_EVENT:
		rec->provider = ktrace_fxt_get(h, 20, 51);
		rec->meta_event = ktrace_fxt_get(h, 52, 55);
		reserved(r, rec, h, 56, 63, "provider event");
		break;
	case KTRACE_FXT_META_TRACE_INFO:
		if (ktrace_fxt_get(h, 20, 23) == 0 && h != KTRACE_FXT_MAGIC)
			violate(r, rec, "magic", "magic number record is 0x%016llx, not 0x%016llx",
				(unsigned long long)h, (unsigned long long)KTRACE_FXT_MAGIC);
		else if (h == KTRACE_FXT_MAGIC)
			r->seen_magic = true;
		return 0;	/* other trace info types: nothing to check */
	default:
		return 0;
	}
	trailing(r, rec, c);
	return 0;
}

static int decode_string(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c)
{
	uint64_t h = rec->w[0];
	struct fxt_provider *p = r->cur;
	struct fxt_string_entry *e;
	uint32_t idx = ktrace_fxt_get(h, 16, 30);
	uint32_t len = ktrace_fxt_get(h, 32, 46);

	reserved(r, rec, h, 31, 31, "string record");
	reserved(r, rec, h, 47, 63, "string record");
	rec->index = idx;
	if (stream(r, rec, c, len, &rec->msg, "string value"))
		return -1;
	trailing(r, rec, c);
	if (!idx) {
		violate(r, rec, "string index", "string record for index 0 (the empty string)");
		return 0;
	}
	if (idx >= p->nstr) {
		uint32_t n = idx < 256 ? 256 : idx < NUM_STRINGS / 2 ? idx * 2 : NUM_STRINGS;
		struct fxt_string_entry *t = realloc(p->str, n * sizeof(*t));

		if (!t)
			return -ENOMEM;
		memset(t + p->nstr, 0, (n - p->nstr) * sizeof(*t));
		p->str = t;
		p->nstr = n;
	}
	e = &p->str[idx];
	if (e->cap < len + 1) {
		char *s = realloc(e->s, len + 1);

		if (!s)
			return -ENOMEM;
		e->s = s;
		e->cap = len + 1;
	}
	memcpy(e->s, rec->msg.p, len);
	e->s[len] = 0;
	e->len = len;
	return 0;
}

/* ktrace's trace_info instant says how the archive is encoded. */
static void note_encoding(struct fxt_reader *r, const struct fxt_record *rec)
{
	const struct fxt_arg *enc;

	if (!fxt_str_eq(rec->name, "trace_info") || !fxt_str_eq(rec->cat, "ktrace:meta"))
		return;
	enc = fxt_find_arg(rec, "encoding");
	r->compact = enc && enc->type == KTRACE_FXT_ARG_STRING &&
		     fxt_str_eq(enc->s, FXT_COMPACT_ENCODING);
}

/* An argument the record left out, given back as the recorder wrote it. */
static struct fxt_arg *restored_arg(struct fxt_record *rec, unsigned int type, const char *name)
{
	struct fxt_arg *a;

	if (rec->nargs >= KTRACE_FXT_MAX_ARGS)
		return NULL;
	a = &rec->args[rec->nargs++];
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->name.p = name;
	a->name.len = strlen(name);
	return a;
}

static struct fxt_arg *arg_of_type(struct fxt_record *rec, const char *name, unsigned int type)
{
	for (unsigned int i = 0; i < rec->nargs; i++)
		if (rec->args[i].type == type && fxt_str_eq(rec->args[i].name, name))
			return &rec->args[i];
	return NULL;
}

/*
 * A compact archive's wakeup: the weight and allowed CPUs it leaves out
 * are its thread's previous wakeup's, the waker or interrupted thread its
 * header says is current, what its CPU runs (fxt_compact.h).
 */
static int restore_wakeup(struct fxt_reader *r, struct fxt_record *rec)
{
	struct fxt_arg *weight = arg_of_type(rec, "weight", KTRACE_FXT_ARG_INT32);
	struct fxt_arg *cpus = arg_of_type(rec, "cpus", KTRACE_FXT_ARG_UINT64);
	struct fxt_arg *intr = arg_of_type(rec, FXT_COMPACT_INTERRUPT, KTRACE_FXT_ARG_UINT32);
	uint64_t h = rec->w[0], cur = fxt_compact_current_get(&r->current, rec->cpu);
	uint32_t ctx = ktrace_fxt_get(h, FXT_COMPACT_WAKE_CTX_SHIFT, FXT_COMPACT_WAKE_CTX_SHIFT + 1);
	struct fxt_wake_state *st;
	struct fxt_arg *a;
	uint64_t v;
	bool added;

	reserved(r, rec, h, FXT_COMPACT_WAKE_CTX_SHIFT + 2, 59, "thread wakeup");
	if (!(h & FXT_COMPACT_WAKE_CURRENT)) {
		reserved(r, rec, h, FXT_COMPACT_WAKE_CTX_SHIFT, FXT_COMPACT_WAKE_CTX_SHIFT + 1,
			 "thread wakeup");
	} else if (cur == FXT_COMPACT_NO_THREAD) {
		violate(r, rec, "waker", "the waker is the current thread of CPU %u, which no context switch before it named",
			rec->cpu);
	} else if (ctx) {
		a = restored_arg(rec, KTRACE_FXT_ARG_UINT32, "irq_context");
		if (a)
			a->u = ctx;
		a = restored_arg(rec, KTRACE_FXT_ARG_KOID, "interrupted");
		if (a)
			a->u = cur;
	} else if ((a = restored_arg(rec, KTRACE_FXT_ARG_KOID, "waker"))) {
		a->u = cur;
	}

	/* An interrupt's context and the thread it interrupted, as two arguments again. */
	if (intr) {
		v = intr->u;
		intr->name.p = "irq_context";
		intr->name.len = strlen("irq_context");
		intr->u = v >> FXT_COMPACT_INTERRUPT_SHIFT;
		intr = restored_arg(rec, KTRACE_FXT_ARG_KOID, "interrupted");
		if (intr)
			intr->u = v & FXT_COMPACT_INTERRUPT_TID;
	}

	st = u64map_vec_get(&r->wake_map, rec->tid, &r->wake, &r->nwake, &r->cap_wake,
			    sizeof(*st), &added);
	if (!st)
		return -ENOMEM;
	if (weight) {
		st->weight = (int32_t)weight->i;
		st->cpus = cpus ? cpus->u : 0;
		st->valid = true;
		return 0;
	}
	if (!st->valid)
		return 0;
	weight = restored_arg(rec, KTRACE_FXT_ARG_INT32, "weight");
	if (weight)
		weight->i = st->weight;
	if (cpus) {
		st->cpus = cpus->u;
		/* "May run anywhere" is no argument at all in the recorders' records. */
		if (!cpus->u)
			*cpus = rec->args[--rec->nargs];
	} else if (st->cpus) {
		cpus = restored_arg(rec, KTRACE_FXT_ARG_UINT64, "cpus");
		if (cpus)
			cpus->u = st->cpus;
	}
	return 0;
}

/*
 * What a compact archive's scheduling record leaves out, given back.
 * @ext: a legacy switch's word after its fields (FXT_COMPACT_SWITCH_*), or NULL.
 */
static int restore_sched(struct fxt_reader *r, struct fxt_record *rec, const uint64_t *ext)
{
	struct fxt_arg *a;
	int state;

	if (rec->sub == KTRACE_FXT_SCHED_WAKEUP)
		return restore_wakeup(r, rec);
	if (fxt_compact_current_set(&r->current, rec->cpu, rec->in_tid))
		return -ENOMEM;
	if (rec->sub != KTRACE_FXT_SCHED_CSWITCH)
		return 0;
	state = fxt_compact_linux_state(rec->out_state);
	if (ext) {
		reserved(r, rec, *ext, 36, 63, "context switch's compact word");
		state = ktrace_fxt_get(*ext, FXT_COMPACT_SWITCH_STATE_SHIFT, 35);
		if (state > KTRACE_LINUX_STATE_MAX) {
			violate(r, rec, "linux_state", "unknown Linux state %d", state);
			state = -1;
		}
	}
	if (state >= 0 && (a = restored_arg(rec, KTRACE_FXT_ARG_UINT32, "linux_state")))
		a->u = state;
	if (ext && (uint32_t)*ext && (a = restored_arg(rec, KTRACE_FXT_ARG_UINT32, "incoming_kstack")))
		a->u = (uint32_t)*ext;
	return 0;
}

static int decode_event(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c)
{
	uint64_t h = rec->w[0];
	const uint64_t *p;

	rec->sub = ktrace_fxt_get(h, 16, 19);
	if (rec->sub > KTRACE_FXT_EV_MAX) {
		violate(r, rec, "event type", "unknown event type %u", rec->sub);
		return -1;
	}
	p = take(c, 1);
	if (!p) {
		violate(r, rec, "timestamp", "event record has no timestamp word");
		return -1;
	}
	rec->ts = *p;
	if (tref(r, rec, c, ktrace_fxt_get(h, 24, 31), &rec->pid, &rec->tid, "thread") ||
	    sref(r, rec, c, ktrace_fxt_get(h, 32, 47), &rec->cat, "category") ||
	    sref(r, rec, c, ktrace_fxt_get(h, 48, 63), &rec->name, "name") ||
	    args(r, rec, c, ktrace_fxt_get(h, 20, 23)))
		return -1;
	if (ktrace_fxt_event_extra_words(rec->sub)) {
		p = take(c, 1);
		if (!p) {
			violate(r, rec, "event data", "%s event has no %s word",
				fxt_event_type_name(rec->sub),
				rec->sub == KTRACE_FXT_EV_COUNTER ? "counter id" :
				rec->sub == KTRACE_FXT_EV_DURATION_COMPLETE ? "end time" :
				"correlation id");
			return -1;
		}
		rec->extra = *p;
		if (rec->sub == KTRACE_FXT_EV_DURATION_COMPLETE && rec->extra < rec->ts)
			violate(r, rec, "end time", "complete event ends (%llu) before it begins (%llu)",
				(unsigned long long)rec->extra, (unsigned long long)rec->ts);
	}
	trailing(r, rec, c);
	if (!r->compact && rec->sub == KTRACE_FXT_EV_INSTANT && rec->nargs)
		note_encoding(r, rec);
	return 0;
}

static int decode_sched(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c)
{
	uint64_t h = rec->w[0];
	const uint64_t *p, *ext = NULL;

	rec->sub = ktrace_fxt_sched_type(h);
	if (rec->sub > KTRACE_FXT_SCHED_WAKEUP)
		return 0;	/* a newer scheduling record: skip it */
	p = take(c, 1);
	if (!p) {
		violate(r, rec, "timestamp", "scheduling record has no timestamp word");
		return -1;
	}
	rec->ts = *p;
	switch (rec->sub) {
	case KTRACE_FXT_SCHED_CSWITCH:
		rec->cpu = ktrace_fxt_get(h, 16, 23);
		rec->out_state = ktrace_fxt_get(h, 24, 27);
		rec->out_prio = ktrace_fxt_get(h, 44, 51);
		rec->in_prio = ktrace_fxt_get(h, 52, 59);
		if (tref(r, rec, c, ktrace_fxt_get(h, 28, 35), &rec->out_pid, &rec->out_tid,
			 "outgoing thread") ||
		    tref(r, rec, c, ktrace_fxt_get(h, 36, 43), &rec->in_pid, &rec->in_tid,
			 "incoming thread"))
			return -1;
		/* A compact archive's word more (fxt_compact.h). */
		if (r->compact && c->i < c->n)
			ext = take(c, 1);
		break;
	case KTRACE_FXT_SCHED_CSWITCH_ARGS:
		rec->cpu = ktrace_fxt_get(h, 20, 35);
		rec->out_state = ktrace_fxt_get(h, 36, 39);
		reserved(r, rec, h, 40, 59, "context switch");
		p = take(c, 2);
		if (!p) {
			violate(r, rec, "thread koids", "context switch has no thread koids");
			return -1;
		}
		rec->out_tid = p[0];
		rec->in_tid = p[1];
		if (args(r, rec, c, ktrace_fxt_get(h, 16, 19)))
			return -1;
		break;
	case KTRACE_FXT_SCHED_WAKEUP:
		rec->cpu = ktrace_fxt_get(h, 20, 35);
		/* A compact archive uses some (restore_wakeup()). */
		if (!r->compact)
			reserved(r, rec, h, 36, 59, "thread wakeup");
		p = take(c, 1);
		if (!p) {
			violate(r, rec, "thread koid", "thread wakeup has no thread koid");
			return -1;
		}
		rec->tid = *p;
		if (args(r, rec, c, ktrace_fxt_get(h, 16, 19)))
			return -1;
		break;
	}
	/* Zircon and Perfetto write 1 (running) for a preempted thread. */
	if (rec->sub != KTRACE_FXT_SCHED_WAKEUP && rec->out_state > KTRACE_FXT_THREAD_DEAD)
		violate(r, rec, "outgoing state", "unknown thread state %u", rec->out_state);
	trailing(r, rec, c);
	return r->compact ? restore_sched(r, rec, ext) : 0;
}

static int decode_large(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c)
{
	uint64_t h = rec->w[0];
	const uint64_t *p, *fmt;

	rec->sub = ktrace_fxt_get(h, 36, 39);
	if (rec->sub != 0)
		return 0;	/* unknown large record type: skip */
	rec->blob_type = ktrace_fxt_get(h, 40, 43);
	reserved(r, rec, h, 44, 63, "large blob");
	if (rec->blob_type > 1) {
		violate(r, rec, "blob format", "unknown large blob format %u", rec->blob_type);
		return -1;
	}
	fmt = take(c, 1);
	if (!fmt) {
		violate(r, rec, "format header", "large blob has no format header word");
		return -1;
	}
	if (sref(r, rec, c, ktrace_fxt_get(*fmt, 0, 15), &rec->cat, "category") ||
	    sref(r, rec, c, ktrace_fxt_get(*fmt, 16, 31), &rec->name, "name"))
		return -1;
	if (rec->blob_type == 0) {
		reserved(r, rec, *fmt, 44, 63, "format header");
		p = take(c, 1);
		if (!p) {
			violate(r, rec, "timestamp", "large blob has no timestamp word");
			return -1;
		}
		rec->ts = *p;
		if (tref(r, rec, c, ktrace_fxt_get(*fmt, 36, 43), &rec->pid, &rec->tid, "thread") ||
		    args(r, rec, c, ktrace_fxt_get(*fmt, 32, 35)))
			return -1;
	} else {
		reserved(r, rec, *fmt, 32, 63, "format header");
	}
	p = take(c, 1);
	if (!p || *p > (uint64_t)(c->n - c->i) * 8) {
		violate(r, rec, "blob size", "blob payload runs past the record's end");
		return -1;
	}
	rec->payload_len = *p;
	if (stream(r, rec, c, *p, &rec->msg, "payload"))
		return -1;
	rec->payload = rec->msg.p;
	trailing(r, rec, c);
	return 0;
}

static int decode_init(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c)
{
	const uint64_t *p;

	reserved(r, rec, rec->w[0], 16, 63, "initialization");
	p = take(c, 1);
	if (!p) {
		violate(r, rec, "ticks per second", "initialization record has no tick rate");
		return -1;
	}
	rec->ticks_per_sec = *p;
	if (!*p) {
		violate(r, rec, "ticks per second", "tick rate is 0");
		return -1;
	}
	r->cur->ticks_per_sec = *p;
	r->ticks_per_sec = *p;
	trailing(r, rec, c);
	return 0;
}

static int decode_thread(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c)
{
	uint64_t h = rec->w[0];
	const uint64_t *p;

	rec->index = ktrace_fxt_get(h, 16, 23);
	reserved(r, rec, h, 24, 63, "thread record");
	p = take(c, 2);
	if (!p) {
		violate(r, rec, "thread koids", "thread record has no koids");
		return -1;
	}
	rec->pid = p[0];
	rec->tid = p[1];
	trailing(r, rec, c);
	if (!rec->index) {
		violate(r, rec, "thread index", "thread record for index 0 (inline)");
		return 0;
	}
	if (!r->cur->threads) {
		r->cur->threads = calloc(NUM_THREADS, sizeof(*r->cur->threads));
		if (!r->cur->threads)
			return -ENOMEM;
	}
	r->cur->threads[rec->index] = (struct fxt_thread_entry){ p[0], p[1], true };
	return 0;
}

static int decode_blob(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c)
{
	uint64_t h = rec->w[0];
	uint32_t len = ktrace_fxt_get(h, 32, 46);

	rec->blob_type = ktrace_fxt_get(h, 48, 55);
	reserved(r, rec, h, 47, 47, "blob");
	reserved(r, rec, h, 56, 63, "blob");
	if (sref(r, rec, c, ktrace_fxt_get(h, 16, 31), &rec->name, "blob name") ||
	    stream(r, rec, c, len, &rec->msg, "payload"))
		return -1;
	rec->payload = rec->msg.p;
	rec->payload_len = len;
	trailing(r, rec, c);
	return 0;
}

/* Kernel and userspace objects: a koid or pointer, a name, arguments. */
static int decode_object(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c)
{
	bool user = rec->type == KTRACE_FXT_REC_USERSPACE_OBJ;
	uint64_t h = rec->w[0];
	const uint64_t *p;

	if (!user)
		rec->obj_type = ktrace_fxt_get(h, 16, 23);
	reserved(r, rec, h, 44, 63, user ? "userspace object" : "kernel object");
	p = take(c, 1);
	if (!p) {
		violate(r, rec, user ? "pointer" : "koid",
			user ? "userspace object has no pointer word" : "kernel object has no koid word");
		return -1;
	}
	rec->koid = *p;
	if (user && tref(r, rec, c, ktrace_fxt_get(h, 16, 23), &rec->pid, &rec->tid, "process"))
		return -1;
	if (sref(r, rec, c, ktrace_fxt_get(h, 24, 39), &rec->name, "name") ||
	    args(r, rec, c, ktrace_fxt_get(h, 40, 43)))
		return -1;
	trailing(r, rec, c);
	return 0;
}

static int decode_log(struct fxt_reader *r, struct fxt_record *rec, struct cursor *c)
{
	uint64_t h = rec->w[0];
	uint32_t len = ktrace_fxt_get(h, 16, 30);
	const uint64_t *p;

	reserved(r, rec, h, 31, 31, "log");
	reserved(r, rec, h, 40, 63, "log");
	p = take(c, 1);
	if (!p) {
		violate(r, rec, "timestamp", "log record has no timestamp word");
		return -1;
	}
	rec->ts = *p;
	if (tref(r, rec, c, ktrace_fxt_get(h, 32, 39), &rec->pid, &rec->tid, "thread") ||
	    stream(r, rec, c, len, &rec->msg, "message"))
		return -1;
	trailing(r, rec, c);
	return 0;
}

static int decode(struct fxt_reader *r, struct fxt_record *rec)
{
	struct cursor c = { .w = rec->w, .n = rec->nwords, .i = 1 };

	switch (rec->type) {
	case KTRACE_FXT_REC_METADATA:
		return decode_metadata(r, rec, &c);
	case KTRACE_FXT_REC_INIT:
		return decode_init(r, rec, &c);
	case KTRACE_FXT_REC_STRING:
		return decode_string(r, rec, &c);
	case KTRACE_FXT_REC_THREAD:
		return decode_thread(r, rec, &c);
	case KTRACE_FXT_REC_EVENT:
		return decode_event(r, rec, &c);
	case KTRACE_FXT_REC_BLOB:
		return decode_blob(r, rec, &c);
	case KTRACE_FXT_REC_USERSPACE_OBJ:
	case KTRACE_FXT_REC_KERNEL_OBJ:
		return decode_object(r, rec, &c);
	case KTRACE_FXT_REC_SCHED:
		return decode_sched(r, rec, &c);
	case KTRACE_FXT_REC_LOG:
		return decode_log(r, rec, &c);
	case KTRACE_FXT_REC_LARGE:
		return decode_large(r, rec, &c);
	default:
		return 0;	/* reserved record types: framed and skipped */
	}
}

/* A record's frame, before it is decoded. */
static void frame(struct fxt_record *rec, const uint64_t *w, uint32_t words, uint64_t off)
{
	rec->offset = off;
	rec->w = w;
	rec->nwords = words;
	rec->type = ktrace_fxt_rec_type(w[0]);
	rec->sub = 0;
	rec->nargs = 0;
	rec->ts = 0;
	rec->pid = rec->tid = 0;
	rec->cat.p = rec->name.p = rec->msg.p = "";
	rec->cat.len = rec->name.len = rec->msg.len = 0;
}

int fxt_reader_next(struct fxt_reader *r, struct fxt_record *rec)
{
	for (;;) {
		ssize_t avail = fill(r, 8);
		uint64_t h, words, off = r->base + r->pos;
		int ret;

		if (avail < 0)
			return fatal(r, off, "input", "read failed: %s", strerror(-avail));
		if (avail == 0)
			return 0;
		if (avail < 8)
			return fatal(r, off, "record header",
				     "input ends %zd bytes into a record header", avail);
		memcpy(&h, r->buf + r->pos, 8);
		if (!r->records && off == 0 && h != KTRACE_FXT_MAGIC) {
			if (r->require_magic)
				return fatal(r, off, "magic",
					     "not an FXT trace: it does not start with FXT's magic number record");
			violation_at(r, off, "magic",
				     "the input does not start with the FXT magic number record");
		}
		words = ktrace_fxt_rec_words(h);
		if (ktrace_fxt_rec_type(h) == KTRACE_FXT_REC_LARGE) {
			if (words * 8 > MAX_LARGE_BYTES)
				return fatal(r, off, "record size",
					     "large record of %llu words is over the %llu MiB limit",
					     (unsigned long long)words,
					     (unsigned long long)(MAX_LARGE_BYTES >> 20));
		}
		if (!words)
			return fatal(r, off, "record size", "record size is 0 (header 0x%016llx)",
				     (unsigned long long)h);
		avail = fill(r, words * 8);
		if (avail < 0)
			return fatal(r, off, "input", "read failed: %s", strerror(-avail));
		if ((uint64_t)avail < words * 8)
			return fatal(r, off, "record size",
				     "input ends inside a %s record: it is %llu bytes, %zd remain",
				     fxt_record_type_name(ktrace_fxt_rec_type(h)),
				     (unsigned long long)words * 8, avail);
		/* The buffer is 8-byte aligned and records are whole words. */
		frame(rec, (const uint64_t *)(r->buf + r->pos), words, off);
		r->pos += words * 8;
		r->records++;
		/* Framed, not decoded nor checked: the caller does not look inside. */
		if (r->undecoded & (1U << rec->type))
			return 1;
		ret = decode(r, rec);
		if (ret == -ENOMEM)
			return fatal(r, off, "memory", "out of memory");
		if (ret == -E2BIG)
			return fatal(r, off, "provider id", "more than %u providers", MAX_PROVIDERS);
		if (ret == 0)
			return 1;
		r->skipped++;
	}
}

int fxt_reader_decode(struct fxt_reader *r, const uint64_t *w, uint32_t nwords,
		      struct fxt_record *rec)
{
	uint64_t off = r->base;
	int ret;

	if (!nwords || ktrace_fxt_rec_words(w[0]) != nwords)
		return -EINVAL;
	frame(rec, w, nwords, off);
	r->base += nwords * 8ULL;
	r->records++;
	if (r->undecoded & (1U << rec->type))
		return 1;
	ret = decode(r, rec);
	if (ret == -ENOMEM || ret == -E2BIG)
		return ret;
	if (ret == 0)
		return 1;
	r->skipped++;
	return 0;
}

uint64_t fxt_ticks_to_ns(const struct fxt_reader *r, uint64_t ticks)
{
	unsigned __int128 ns;

	if (r->ticks_per_sec == KTRACE_FXT_TICKS_PER_SEC)
		return ticks;
	/* A clock slower than 1 GHz runs past 64 bits of ns: the last ns, not a wrap to 0. */
	ns = (unsigned __int128)ticks * 1000000000U / r->ticks_per_sec;
	return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

const char *fxt_record_type_name(unsigned int type)
{
	static const char *const names[16] = {
		"metadata", "initialization", "string", "thread", "event", "blob",
		"userspace object", "kernel object", "scheduling", "log",
		"reserved(10)", "reserved(11)", "reserved(12)", "reserved(13)",
		"reserved(14)", "large",
	};

	return names[type & 15];
}

const char *fxt_event_type_name(unsigned int type)
{
	static const char *const names[] = {
		"instant", "counter", "duration begin", "duration end", "duration complete",
		"async begin", "async instant", "async end", "flow begin", "flow step",
		"flow end",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown";
}

const char *fxt_arg_type_name(unsigned int type)
{
	static const char *const names[] = {
		"null", "int32", "uint32", "int64", "uint64", "double", "string", "pointer",
		"koid", "bool",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown";
}

const char *fxt_thread_state_name(unsigned int state)
{
	static const char *const names[] = {
		"new", "running", "suspended", "blocked", "dying", "dead",
	};

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "unknown";
}

bool fxt_str_eq(struct fxt_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.len == n && !memcmp(s.p, lit, n);
}

const struct fxt_arg *fxt_find_arg(const struct fxt_record *rec, const char *name)
{
	for (unsigned int i = 0; i < rec->nargs; i++)
		if (fxt_str_eq(rec->args[i].name, name))
			return &rec->args[i];
	return NULL;
}

void fxt_arg_copy_str(char *dst, size_t size, const struct fxt_arg *a)
{
	size_t n;

	if (!a || a->type != KTRACE_FXT_ARG_STRING)
		return;
	n = a->s.len < size - 1 ? a->s.len : size - 1;
	memcpy(dst, a->s.p, n);
	dst[n] = 0;
}

uint64_t fxt_arg_u64(const struct fxt_record *rec, const char *name, uint64_t dflt)
{
	const struct fxt_arg *a = fxt_find_arg(rec, name);

	switch (a ? a->type : KTRACE_FXT_ARG_NULL) {
	case KTRACE_FXT_ARG_UINT32:
	case KTRACE_FXT_ARG_UINT64:
	case KTRACE_FXT_ARG_KOID:
		return a->u;
	default:
		return dflt;
	}
}

int fxt_check_start(int fd, const char *path)
{
	unsigned char b[8];
	ssize_t n = pread(fd, b, sizeof(b), 0);
	uint64_t magic = KTRACE_FXT_MAGIC;
	ssize_t i = 0;

	if (n < 0)
		return 0;	/* a pipe: the reader checks as it goes */
	if (n == 0) {
		pr_err("%s: the input is empty, not an FXT trace", path);
		return -EINVAL;
	}
	if (n == sizeof(b) && !memcmp(b, &magic, sizeof(b)))
		return 0;
	while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
		i++;
	if (i < n && (b[i] == '{' || b[i] == '['))
		pr_err("%s: this looks like JSON, not FXT: ktrace reads FXT traces (ktrace record -o FILE.fxt)",
		       path);
	else
		pr_err("%s: not an FXT trace: it does not start with FXT's magic number record",
		       path);
	return -EINVAL;
}

uint64_t fxt_ns_to_ticks(const struct fxt_reader *r, uint64_t ns)
{
	double ticks;

	if (!r->ticks_per_sec || r->ticks_per_sec == KTRACE_FXT_TICKS_PER_SEC)
		return ns;
	/* A trace's clock faster than 1 GHz runs past 64 bits of ticks: the last tick, then. */
	ticks = (double)ns * r->ticks_per_sec / KTRACE_FXT_TICKS_PER_SEC;
	return ticks >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)ticks;
}

void fxt_reader_learn_well_known(struct fxt_reader *r)
{
	uint64_t w[1 + 8];		/* the longest is far shorter */
	struct fxt_record rec;

	for (uint32_t i = 1; i < KTRACE_FXT_STR_FIRST_DYNAMIC; i++) {
		const char *s = ktrace_fxt_well_known[i];
		uint32_t len;

		if (!s)
			continue;
		len = strlen(s);
		if (len > 8 * 8)
			continue;
		w[0] = ktrace_fxt_string_hdr(i, len);
		ktrace_fxt_put_stream((__u64 *)w + 1, s, len);
		fxt_reader_decode(r, w, ktrace_fxt_rec_words(w[0]), &rec);
	}
}
