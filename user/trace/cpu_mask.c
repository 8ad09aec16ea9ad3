// SPDX-License-Identifier: GPL-2.0
/* Allowed-CPU masks read from the records and interned (cpu_mask.h). */
#include <stdlib.h>
#include <string.h>

#include "trace/cpu_mask.h"
#include "fxt/fxt_reader.h"
#include "lib/utils.h"

/* The word index of an argument named "cpus<k>" (1..63), 0 if it is not one. */
static uint32_t word_index(const struct fxt_str *name)
{
	uint32_t k = 0;

	if (name->len < 5 || name->len > 6 || memcmp(name->p, "cpus", 4))
		return 0;
	for (uint32_t i = 4; i < name->len; i++) {
		if (name->p[i] < '0' || name->p[i] > '9')
			return 0;
		k = k * 10 + (uint32_t)(name->p[i] - '0');
	}
	/* One spelling per word: "cpus01" is not "cpus1". */
	if (name->p[4] == '0' || k >= KTRACE_FXT_CPUS_MAX_WORDS)
		return 0;
	return k;
}

static uint64_t mask_hash(const uint64_t *w, uint32_t nwords, uint32_t cut)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ cut;

	for (uint32_t i = 0; i < nwords; i++)
		h = (h ^ w[i] ^ h >> 29) * 0xbf58476d1ce4e5b9ULL + i;
	return h;
}

const struct cpu_mask *cpu_masks_of(struct cpu_masks *t, const struct fxt_record *rec)
{
	uint64_t w[KTRACE_FXT_CPUS_MAX_WORDS], h;
	uint32_t nwords = 0, cut = UINT32_MAX, k, idx, nword = 0;
	const struct fxt_arg *word[KTRACE_FXT_MAX_ARGS];
	uint32_t index[KTRACE_FXT_MAX_ARGS];
	struct cpu_mask *m, **slot;

	for (unsigned int i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *a = &rec->args[i];

		if (a->type == KTRACE_FXT_ARG_UINT64 && fxt_str_eq(a->name, "cpus"))
			k = 0;
		else if (a->type == KTRACE_FXT_ARG_UINT64 && (k = word_index(&a->name)))
			;
		else if (a->type == KTRACE_FXT_ARG_UINT32 &&
			 fxt_str_eq(a->name, KTRACE_FXT_CPUS_CUT)) {
			cut = (uint32_t)a->u;
			continue;
		} else {
			continue;
		}
		if (a->u && k + 1 > nwords)
			nwords = k + 1;
		word[nword] = a;
		index[nword++] = k;
	}
	/*
	 * No CPU at all is no mask a kernel gives: "cpus" 0 alone (or none)
	 * says every CPU, and so does a cut from CPU 0.
	 */
	if ((!nwords && cut == UINT32_MAX) || cut == 0)
		return NULL;
	memset(w, 0, nwords * sizeof(*w));
	for (uint32_t i = 0; i < nword; i++)
		w[index[i]] = word[i]->u;	/* the last of a word given twice */
	h = mask_hash(w, nwords, cut);
	/* Open addressing over hashes: a different mask with the same hash takes the next. */
	for (;; h++) {
		idx = u64map_find(&t->map, h);
		if (idx == U64MAP_NONE)
			break;
		m = t->v[idx];
		if (m->cut == cut && m->nwords == nwords &&
		    !memcmp(m->w, w, nwords * sizeof(*w)))
			return m;
	}
	m = xrealloc(NULL, sizeof(*m) + nwords * sizeof(*w), "CPU masks");
	m->cut = cut;
	m->nwords = nwords;
	memcpy(m->w, w, nwords * sizeof(*w));
	slot = vec_add(&t->v, &t->n, &t->cap, sizeof(*t->v));
	if (!slot || u64map_add(&t->map, h, t->n - 1) == U64MAP_NONE)
		out_of_memory("CPU masks");
	*slot = m;
	return m;
}

void cpu_masks_free(struct cpu_masks *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	u64map_free(&t->map);
	memset(t, 0, sizeof(*t));
}

void cpu_mask_list(struct obuf *o, const struct cpu_mask *m)
{
	uint32_t end, first = 1;

	if (!m) {
		obuf_lit(o, "all");
		return;
	}
	end = m->nwords * 64 < m->cut ? m->nwords * 64 : m->cut;
	for (uint32_t i = 0; i < end; i++) {
		uint32_t j = i;

		if (!cpu_mask_has(m, i))
			continue;
		while (j + 1 < end && cpu_mask_has(m, j + 1))
			j++;
		obuf_printf(o, j > i ? "%s%u-%u" : "%s%u", first ? "" : ",", i, j);
		first = 0;
		i = j;
	}
	if (m->cut != UINT32_MAX)
		obuf_printf(o, "%s%u-", first ? "" : ",", m->cut);
}
