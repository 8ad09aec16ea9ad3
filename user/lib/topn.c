// SPDX-License-Identifier: GPL-2.0
/* The N longest of a stream of items: a min-heap by key (topn.h). */
#include <string.h>

#include "lib/topn.h"

static void *item(const struct topn *t, uint32_t i)
{
	return (char *)t->items + (size_t)i * t->size;
}

static uint64_t key(const struct topn *t, uint32_t i)
{
	return t->key(item(t, i));
}

static void swap(const struct topn *t, uint32_t i, uint32_t j)
{
	char *p = item(t, i), *q = item(t, j);

	for (size_t k = 0; k < t->size; k++) {
		char c = p[k];

		p[k] = q[k];
		q[k] = c;
	}
}

void topn_placed(struct topn *t)
{
	uint32_t i;

	if (t->n < t->max) {
		/* Appended: up while its parent is longer. */
		for (i = t->n++; i; i = (i - 1) / 2) {
			if (key(t, (i - 1) / 2) <= key(t, i))
				return;
			swap(t, i, (i - 1) / 2);
		}
		return;
	}
	/* The root was replaced: down while a child is shorter. */
	for (i = 0;;) {
		uint32_t l = 2 * i + 1, m = i;

		if (l < t->n && key(t, l) < key(t, m))
			m = l;
		if (l + 1 < t->n && key(t, l + 1) < key(t, m))
			m = l + 1;
		if (m == i)
			return;
		swap(t, i, m);
		i = m;
	}
}
