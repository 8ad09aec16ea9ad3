// SPDX-License-Identifier: GPL-2.0
/* FXT archive writer: preamble, interned strings, kernel objects and events. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt_writer.h"
#include "lib/utils.h"

#define TAB_INITIAL	1024U

int fxt_writer_init(struct fxt_writer *w, int fd)
{
	memset(w, 0, offsetof(struct fxt_writer, scratch));
	w->next_index = KTRACE_FXT_STR_FIRST_DYNAMIC;
	w->tab_size = TAB_INITIAL;
	w->tab = calloc(w->tab_size, sizeof(*w->tab));
	if (!w->tab)
		return -ENOMEM;
	return obuf_init(&w->out, fd, 1 << 20);
}

int fxt_writer_finish(struct fxt_writer *w)
{
	int ret = obuf_flush(&w->out);

	/* The used slots only: free() costs a stack trace under ASan, even of NULL. */
	for (uint32_t i = 0, left = w->tab_used; left && i < w->tab_size; i++) {
		if (w->tab[i].s) {
			free(w->tab[i].s);
			left--;
		}
	}
	free(w->tab);
	w->tab = NULL;
	if (w->out.fd >= 0)
		obuf_free(&w->out);
	return ret;
}

void fxt_write_words(struct fxt_writer *w, const void *words, uint32_t n)
{
	int err;

	w->records++;
	if (!w->sink) {
		obuf_put(&w->out, words, (size_t)n * 8);
		return;
	}
	err = w->sink(w->sink_ctx, words, n);
	if (err && !w->sink_err)
		w->sink_err = err;
}

static void put_string_record(struct fxt_writer *w, uint16_t index, const char *s, uint32_t len)
{
	uint64_t *r = w->scratch;

	r[0] = ktrace_fxt_string_hdr(index, len);
	fxt_write_words(w, r, 1 + ktrace_fxt_put_stream((__u64 *)r + 1, s, len));
}

static uint64_t hash_bytes(const char *s, uint32_t len)
{
	return fnv1a(FNV1A_SEED, s, len) | 1;	/* 0: a free slot */
}

static struct fxt_intern *tab_slot(struct fxt_intern *tab, uint32_t size, uint64_t h,
				   const char *s, uint32_t len)
{
	uint32_t i = h & (size - 1);

	while (tab[i].hash && !(tab[i].hash == h && tab[i].len == len &&
				 !memcmp(tab[i].s, s, len)))
		i = (i + 1) & (size - 1);
	return &tab[i];
}

static int tab_grow(struct fxt_writer *w)
{
	uint32_t size = w->tab_size * 2;
	struct fxt_intern *tab = calloc(size, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (uint32_t i = 0; i < w->tab_size; i++)
		if (w->tab[i].hash)
			*tab_slot(tab, size, w->tab[i].hash, w->tab[i].s, w->tab[i].len) =
				w->tab[i];
	free(w->tab);
	w->tab = tab;
	w->tab_size = size;
	return 0;
}

static int intern_at(struct fxt_writer *w, uint16_t index, const char *s, uint32_t len)
{
	uint64_t h = hash_bytes(s, len);
	struct fxt_intern *e;

	if (w->tab_used * 2 >= w->tab_size && tab_grow(w))
		return -ENOMEM;
	e = tab_slot(w->tab, w->tab_size, h, s, len);
	if (e->hash)
		return e->index;
	e->s = malloc(len + 1);
	if (!e->s)
		return -ENOMEM;
	memcpy(e->s, s, len);
	e->s[len] = 0;
	e->len = len;
	e->hash = h;
	e->index = index;
	w->tab_used++;
	put_string_record(w, index, s, len);
	return index;
}

uint16_t fxt_string_ref(struct fxt_writer *w, const char *s, uint32_t len)
{
	struct fxt_intern *e;
	int idx;

	if (len > KTRACE_FXT_MAX_STRING_LEN)
		len = KTRACE_FXT_MAX_STRING_LEN;
	if (!len)
		return 0;
	if (w->inline_strings)
		return ktrace_fxt_sref_inline(len);
	e = tab_slot(w->tab, w->tab_size, hash_bytes(s, len), s, len);
	if (e->hash)
		return e->index;
	/* Indices from KTRACE_FXT_STR_FIRST_PROBE on belong to recorders. */
	if (w->next_index >= KTRACE_FXT_STR_FIRST_PROBE)
		return ktrace_fxt_sref_inline(len);
	idx = intern_at(w, w->next_index, s, len);
	if (idx < 0)
		return ktrace_fxt_sref_inline(len);
	w->next_index++;
	return idx;
}

void fxt_write_string(struct fxt_writer *w, uint16_t index, const char *s)
{
	put_string_record(w, index, s, strlen(s));
}

void fxt_write_preamble(struct fxt_writer *w, uint32_t provider, const char *provider_name)
{
	uint64_t *r = w->scratch;
	uint32_t len = strlen(provider_name);
	bool saved = w->inline_strings;

	if (len > 255)
		len = 255;
	r[0] = ktrace_fxt_magic();
	fxt_write_words(w, r, 1);
	r[0] = ktrace_fxt_provider_info_hdr(provider, len);
	fxt_write_words(w, r, 1 + ktrace_fxt_put_stream((__u64 *)r + 1, provider_name, len));
	r[0] = ktrace_fxt_init_hdr();
	r[1] = KTRACE_FXT_TICKS_PER_SEC;
	fxt_write_words(w, r, 2);
	w->inline_strings = false;
	for (uint16_t i = 1; i < KTRACE_FXT_STR_FIRST_DYNAMIC; i++)
		if (ktrace_fxt_well_known[i])
			intern_at(w, i, ktrace_fxt_well_known[i], strlen(ktrace_fxt_well_known[i]));
	w->inline_strings = saved;
}

void fxt_write_provider_section(struct fxt_writer *w, uint32_t provider)
{
	uint64_t h = ktrace_fxt_provider_section_hdr(provider);

	fxt_write_words(w, &h, 1);
}

void fxt_write_provider_event(struct fxt_writer *w, uint32_t provider, unsigned int event)
{
	uint64_t h = ktrace_fxt_provider_event_hdr(provider, event);

	fxt_write_words(w, &h, 1);
}

void fxt_write_thread(struct fxt_writer *w, unsigned int index, uint64_t pid, uint64_t tid)
{
	uint64_t r[3] = { ktrace_fxt_thread_hdr(index), pid, tid };

	fxt_write_words(w, r, 3);
}

/* Resolved refs of one argument; interning happens before any encoding. */
struct arg_refs {
	uint16_t name, value;
};

static void intern_args(struct fxt_writer *w, const struct fxt_arg *args, unsigned int nargs,
			struct arg_refs *refs)
{
	for (unsigned int i = 0; i < nargs; i++) {
		refs[i].name = fxt_string_ref(w, args[i].name.p, args[i].name.len);
		refs[i].value = args[i].type == KTRACE_FXT_ARG_STRING ?
				fxt_string_ref(w, args[i].s.p, args[i].s.len) : 0;
	}
}

/* Append the streams of an inline ref @ref for @s at @p; returns words. */
static uint32_t put_sref(uint64_t *p, uint16_t ref, const char *s)
{
	if (!ktrace_fxt_sref_is_inline(ref))
		return 0;
	return ktrace_fxt_put_stream((__u64 *)p, s, ref & 0x7fff);
}

static uint32_t put_args(uint64_t *p, const struct fxt_arg *args, unsigned int nargs,
			 const struct arg_refs *refs)
{
	uint32_t n = 0;

	for (unsigned int i = 0; i < nargs; i++) {
		const struct fxt_arg *a = &args[i];
		uint32_t words = ktrace_fxt_arg_words(a->type, refs[i].name, refs[i].value);
		uint32_t v32 = 0;

		if (a->type == KTRACE_FXT_ARG_INT32 || a->type == KTRACE_FXT_ARG_UINT32)
			v32 = (uint32_t)a->u;
		else if (a->type == KTRACE_FXT_ARG_BOOL)
			v32 = !!a->u;
		else if (a->type == KTRACE_FXT_ARG_STRING)
			v32 = refs[i].value;
		p[n] = ktrace_fxt_arg_hdr(a->type, words, refs[i].name, v32);
		n++;
		n += put_sref(p + n, refs[i].name, a->name.p);
		switch (a->type) {
		case KTRACE_FXT_ARG_INT64:
		case KTRACE_FXT_ARG_UINT64:
		case KTRACE_FXT_ARG_POINTER:
		case KTRACE_FXT_ARG_KOID:
			p[n++] = a->u;
			break;
		case KTRACE_FXT_ARG_DOUBLE:
			memcpy(&p[n++], &a->d, 8);
			break;
		case KTRACE_FXT_ARG_STRING:
			n += put_sref(p + n, refs[i].value, a->s.p);
			break;
		}
	}
	return n;
}

static uint32_t args_words(const struct fxt_arg *args, unsigned int nargs,
			   const struct arg_refs *refs)
{
	uint32_t n = 0;

	for (unsigned int i = 0; i < nargs; i++)
		n += ktrace_fxt_arg_words(args[i].type, refs[i].name, refs[i].value);
	return n;
}

static void write_event(struct fxt_writer *w, unsigned int type, uint64_t ts,
			unsigned int tref, uint64_t pid, uint64_t tid, const char *cat,
			const char *name, const struct fxt_arg *args, unsigned int nargs,
			uint64_t extra)
{
	struct arg_refs refs[KTRACE_FXT_MAX_ARGS];
	uint16_t cref, nref;
	uint64_t *r = w->scratch;
	uint32_t n;

	if (nargs > KTRACE_FXT_MAX_ARGS)
		nargs = KTRACE_FXT_MAX_ARGS;
	cref = fxt_string_ref(w, cat, strlen(cat));
	nref = fxt_string_ref(w, name, strlen(name));
	intern_args(w, args, nargs, refs);
	n = ktrace_fxt_event_head((__u64 *)r, ts, tref, pid, tid, cref, cat, nref, name);
	if (n + args_words(args, nargs, refs) + 1 > KTRACE_FXT_MAX_RECORD_WORDS)
		nargs = 0;	/* does not fit: keep the event, drop its arguments */
	n += put_args(r + n, args, nargs, refs);
	n = ktrace_fxt_event_finish((__u64 *)r, n, type, nargs, tref, cref, nref, extra);
	fxt_write_words(w, r, n);
}

void fxt_write_event(struct fxt_writer *w, unsigned int type, uint64_t ts, uint64_t pid,
		     uint64_t tid, const char *cat, const char *name,
		     const struct fxt_arg *args, unsigned int nargs, uint64_t extra)
{
	write_event(w, type, ts, 0, pid, tid, cat, name, args, nargs, extra);
}

void fxt_write_event_tref(struct fxt_writer *w, unsigned int type, uint64_t ts,
			  unsigned int thread_ref, const char *cat, const char *name,
			  const struct fxt_arg *args, unsigned int nargs, uint64_t extra)
{
	write_event(w, type, ts, thread_ref, 0, 0, cat, name, args, nargs, extra);
}

void fxt_write_kobj_raw(struct fxt_writer *w, unsigned int obj_type, uint64_t koid,
			const char *name, const struct fxt_arg *args, unsigned int nargs,
			const void *raw, uint32_t raw_words, unsigned int nraw)
{
	struct arg_refs refs[KTRACE_FXT_MAX_ARGS];
	uint64_t *r = w->scratch;
	uint16_t nref;
	uint32_t n = 1;

	if (nraw > KTRACE_FXT_MAX_ARGS)
		nraw = raw_words = 0;
	if (nargs > KTRACE_FXT_MAX_ARGS - nraw)
		nargs = KTRACE_FXT_MAX_ARGS - nraw;
	nref = fxt_string_ref(w, name, strlen(name));
	intern_args(w, args, nargs, refs);
	r[n++] = koid;
	n += put_sref(r + n, nref, name);
	n += put_args(r + n, args, nargs, refs);
	if (raw_words)
		memcpy(r + n, raw, raw_words * sizeof(*r));
	n += raw_words;
	r[0] = ktrace_fxt_kobj_hdr(n, obj_type, nref, nargs + nraw);
	fxt_write_words(w, r, n);
}

void fxt_write_kobj(struct fxt_writer *w, unsigned int obj_type, uint64_t koid,
		    const char *name, const struct fxt_arg *args, unsigned int nargs)
{
	fxt_write_kobj_raw(w, obj_type, koid, name, args, nargs, NULL, 0, 0);
}

void fxt_write_log(struct fxt_writer *w, uint64_t ts, uint64_t pid, uint64_t tid,
		   const char *msg, uint32_t len)
{
	uint64_t *r = w->scratch;
	uint32_t n = 1;

	if (len > (KTRACE_FXT_MAX_RECORD_WORDS - 4) * 8)
		len = (KTRACE_FXT_MAX_RECORD_WORDS - 4) * 8;
	r[n++] = ts;
	r[n++] = pid;
	r[n++] = tid;
	n += ktrace_fxt_put_stream((__u64 *)r + n, msg, len);
	r[0] = ktrace_fxt_log_hdr(n, len, 0);
	fxt_write_words(w, r, n);
}

void fxt_write_blob(struct fxt_writer *w, const char *name, unsigned int blob_type,
		    const void *data, uint32_t len)
{
	uint64_t *r = w->scratch;
	uint16_t nref = fxt_string_ref(w, name, strlen(name));
	uint32_t n = 1;

	if (len > (KTRACE_FXT_MAX_RECORD_WORDS - 4100 / 8) * 8)
		len = (KTRACE_FXT_MAX_RECORD_WORDS - 4100 / 8) * 8;
	n += put_sref(r + n, nref, name);
	n += ktrace_fxt_put_stream((__u64 *)r + n, data, len);
	r[0] = ktrace_fxt_blob_hdr(n, nref, len, blob_type);
	fxt_write_words(w, r, n);
}

void fxt_write_large_blob(struct fxt_writer *w, unsigned int format, const char *cat,
			  const char *name, uint64_t ts, uint64_t pid, uint64_t tid,
			  const struct fxt_arg *args, unsigned int nargs,
			  const void *data, uint64_t len)
{
	struct arg_refs refs[KTRACE_FXT_MAX_ARGS];
	uint64_t *r = w->scratch, words, pad = 0;
	uint16_t cref, nref;
	uint32_t n = 2;

	if (nargs > KTRACE_FXT_MAX_ARGS || format)
		nargs = format ? 0 : KTRACE_FXT_MAX_ARGS;
	cref = fxt_string_ref(w, cat, strlen(cat));
	nref = fxt_string_ref(w, name, strlen(name));
	intern_args(w, args, nargs, refs);
	n += put_sref(r + n, cref, cat);
	n += put_sref(r + n, nref, name);
	if (format == 0) {
		r[1] = ktrace_fxt_large_blob_fmt0(cref, nref, nargs, 0);
		r[n++] = ts;
		r[n++] = pid;
		r[n++] = tid;
		n += put_args(r + n, args, nargs, refs);
	} else {
		r[1] = ktrace_fxt_large_blob_fmt1(cref, nref);
	}
	r[n++] = len;
	words = n + (len + 7) / 8;
	r[0] = ktrace_fxt_large_blob_hdr(words, format);
	obuf_put(&w->out, r, (size_t)n * 8);
	obuf_put(&w->out, data, len);
	obuf_put(&w->out, &pad, (8 - len % 8) % 8);
	w->records++;
}

void fxt_write_cswitch(struct fxt_writer *w, unsigned int cpu, unsigned int out_state,
		       uint64_t ts, uint64_t out_pid, uint64_t out_tid, unsigned int out_prio,
		       uint64_t in_pid, uint64_t in_tid, unsigned int in_prio)
{
	uint64_t r[6] = {
		ktrace_fxt_cswitch_hdr(6, cpu, out_state, 0, 0, out_prio, in_prio),
		ts, out_pid, out_tid, in_pid, in_tid,
	};

	fxt_write_words(w, r, 6);
}
