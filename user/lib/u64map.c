// SPDX-License-Identifier: GPL-2.0
/* An open-addressing map from a 64-bit key to a vector index (u64map.h). */
#include <stdlib.h>
#include <string.h>

#include "lib/u64map.h"

static uint32_t slot_of(const struct u64map *m, uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return key & (m->size - 1);
}

/* @key's slot, or the free slot where it would go. */
static uint32_t probe(const struct u64map *m, uint64_t key)
{
	uint32_t i = slot_of(m, key);

	while (m->vals[i] != U64MAP_NONE && m->keys[i] != key)
		i = (i + 1) & (m->size - 1);
	return i;
}

uint32_t u64map_find(const struct u64map *m, uint64_t key)
{
	return m->size ? m->vals[probe(m, key)] : U64MAP_NONE;
}

/* Twice the size (256 at first), at most 70% full; -1 when memory runs out. */
static int grow(struct u64map *m)
{
	struct u64map g = { .size = m->size ? 2 * m->size : 256, .used = m->used };

	if (g.size <= m->size)
		return -1;
	g.keys = malloc(g.size * sizeof(*g.keys));
	g.vals = malloc(g.size * sizeof(*g.vals));
	if (!g.keys || !g.vals) {
		u64map_free(&g);
		return -1;
	}
	memset(g.vals, 0xff, g.size * sizeof(*g.vals));
	for (uint32_t i = 0; i < m->size; i++)
		if (m->vals[i] != U64MAP_NONE) {
			uint32_t j = probe(&g, m->keys[i]);

			g.keys[j] = m->keys[i];
			g.vals[j] = m->vals[i];
		}
	u64map_free(m);
	*m = g;
	return 0;
}

uint32_t u64map_add(struct u64map *m, uint64_t key, uint32_t val)
{
	uint32_t i;

	if (m->size) {
		i = probe(m, key);
		if (m->vals[i] != U64MAP_NONE)
			return m->vals[i];
	}
	if ((uint64_t)(m->used + 1) * 10 > (uint64_t)m->size * 7 && grow(m))
		return U64MAP_NONE;
	i = probe(m, key);
	m->keys[i] = key;
	m->vals[i] = val;
	m->used++;
	return val;
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

void *vec_add(void *vec, uint32_t *n, uint32_t *cap, size_t size)
{
	void **p = vec;

	if (*n == *cap) {
		uint32_t c = *cap ? 2 * *cap : 64;
		void *more = c > *cap ? realloc(*p, (size_t)c * size) : NULL;

		if (!more)
			return NULL;
		*p = more;
		*cap = c;
	}
	return memset((char *)*p + (size_t)(*n)++ * size, 0, size);
}

void *u64map_vec_get(struct u64map *m, uint64_t key, void *vec, uint32_t *n, uint32_t *cap,
		     size_t size, bool *added)
{
	uint32_t i = u64map_find(m, key);
	void *e;

	*added = i == U64MAP_NONE;
	if (!*added)
		return (char *)*(void **)vec + (size_t)i * size;
	e = vec_add(vec, n, cap, size);
	if (!e)
		return NULL;
	if (u64map_add(m, key, *n - 1) == U64MAP_NONE) {
		(*n)--;
		return NULL;
	}
	return e;
}
