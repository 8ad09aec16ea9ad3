/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CLI's one table keyed by a 64-bit id (a tid, a pid, a stack id): an
 * open-addressing map from the key to an index into a vector the caller
 * owns, so that the elements stay in the order they were added.
 */
#ifndef KTRACE_U64MAP_H
#define KTRACE_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define U64MAP_NONE	UINT32_MAX

struct u64map {
	uint64_t *keys;
	uint32_t *vals;			/* U64MAP_NONE: a free slot */
	uint32_t size, used;
};

/* The index stored for @key, or U64MAP_NONE.  Any key, 0 included. */
uint32_t u64map_find(const struct u64map *m, uint64_t key);
/*
 * The index stored for @key; when it has none, @val is stored and
 * returned.  U64MAP_NONE when the table cannot grow.
 */
uint32_t u64map_add(struct u64map *m, uint64_t key, uint32_t val);
void u64map_free(struct u64map *m);

/*
 * A new zeroed element at the end of the vector *@vec of *@n elements of
 * @size, grown by doubling; NULL when memory runs out.  @vec points to the
 * vector's pointer: it moves, and so do its elements.
 */
void *vec_add(void *vec, uint32_t *n, uint32_t *cap, size_t size);

/*
 * The element for @key in the vector *@vec that @m indexes: appended
 * zeroed, with *@added set, when it is new; NULL when memory runs out.
 * Pointers into the vector stay valid until an element is added.
 */
void *u64map_vec_get(struct u64map *m, uint64_t key, void *vec, uint32_t *n, uint32_t *cap,
		     size_t size, bool *added);

#endif
