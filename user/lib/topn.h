/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The N longest of a stream of items (waits, critical paths): a min-heap by
 * key whose root is the shortest kept, so that an item too short to make
 * the list costs one comparison.
 */
#ifndef KTRACE_TOPN_H
#define KTRACE_TOPN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct topn {
	void *items;			/* max items of size bytes, n kept */
	uint32_t n, max;
	size_t size;
	uint64_t (*key)(const void *item);
};

/* Whether an item of @key would be kept. */
static inline bool topn_wants(const struct topn *t, uint64_t key)
{
	return t->max && (t->n < t->max || key > t->key(t->items));
}

/*
 * Where the caller writes a new item it wants kept: a free slot, or the
 * shortest item's (overwritten).  topn_placed() then puts it in order.
 */
static inline void *topn_slot(struct topn *t)
{
	return (char *)t->items + (t->n < t->max ? t->n : 0) * t->size;
}

void topn_placed(struct topn *t);

#endif
