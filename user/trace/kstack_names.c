// SPDX-License-Identifier: GPL-2.0
/*
 * Reading an archive's kernel stacks: each stack id's function and frames,
 * from the "kstack" instants at its head.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/utils.h"
#include "trace/kstack_names.h"

bool kstack_names_note(struct kstack_names *k, const struct fxt_record *rec)
{
	const struct fxt_arg *id, *fn, *fr;

	if (rec->type != KTRACE_FXT_REC_EVENT || rec->sub != KTRACE_FXT_EV_INSTANT ||
	    !fxt_str_eq(rec->name, "kstack") || !fxt_str_eq(rec->cat, "ktrace:meta"))
		return false;
	id = fxt_find_arg(rec, "kstack");
	fn = fxt_find_arg(rec, "blocked_in");
	fr = fxt_find_arg(rec, "frames");
	if (!id || id->type != KTRACE_FXT_ARG_UINT32 || !id->u || id->u > KSTACK_ID_MAX ||
	    !fn || fn->type != KTRACE_FXT_ARG_STRING)
		return true;
	if (id->u >= k->n) {
		uint32_t n = k->n ? k->n : 64;
		char **b, **f;

		while (n <= id->u)
			n *= 2;
		b = xrealloc(k->blocked_in, n * sizeof(*b), "kernel stack names");
		k->blocked_in = b;
		f = xrealloc(k->frames, n * sizeof(*f), "kernel stack names");
		k->frames = f;
		memset(b + k->n, 0, (n - k->n) * sizeof(*b));
		memset(f + k->n, 0, (n - k->n) * sizeof(*f));
		k->n = n;
	}
	free(k->blocked_in[id->u]);
	free(k->frames[id->u]);
	k->blocked_in[id->u] = xstrndup(fn->s.p, fn->s.len, "kernel stack names");
	k->frames[id->u] = fr && fr->type == KTRACE_FXT_ARG_STRING ?
			   xstrndup(fr->s.p, fr->s.len, "kernel stack names") : NULL;
	return true;
}

const char *kstack_names_blocked_in(const struct kstack_names *k, uint64_t id)
{
	return id && id < k->n ? k->blocked_in[id] : NULL;
}

const char *kstack_names_frames(const struct kstack_names *k, uint64_t id)
{
	return id && id < k->n ? k->frames[id] : NULL;
}

void kstack_names_free(struct kstack_names *k)
{
	for (uint32_t i = 0; i < k->n; i++) {
		free(k->blocked_in[i]);
		free(k->frames[i]);
	}
	free(k->blocked_in);
	free(k->frames);
	memset(k, 0, sizeof(*k));
}
