// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the CLI's containers: u64map (the table keyed by tid)
 * against a brute-force list, and topn (the worst waits) against a sort.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/tap.h"
#include "lib/topn.h"
#include "lib/u64map.h"

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

struct elem {
	uint64_t key, value;
};

/* Random keys, 0 and repeats included, through growth: every index as a list says. */
static int t_u64map(void)
{
	enum { N = 20000 };
	struct u64map m = { 0 };
	struct elem *v = NULL;
	uint64_t *keys = calloc(N, sizeof(*keys));
	uint32_t n = 0, cap = 0;
	int good = keys != NULL;

	for (uint32_t i = 0; good && i < N; i++) {
		/* Small keys repeat; 0 and UINT64_MAX are keys like any other. */
		uint64_t k = i % 7 == 0 ? rnd() % 64 : i % 1001 == 0 ? UINT64_MAX : rnd();
		bool added, seen = false;
		struct elem *e;

		for (uint32_t j = 0; j < n; j++)
			seen |= v[j].key == k;
		e = u64map_vec_get(&m, k, &v, &n, &cap, sizeof(*v), &added);
		if (!e || added == seen || (added && (e->key || e->value))) {
			good = 0;
			break;
		}
		e->key = k;
		e->value++;
		keys[i] = k;
	}
	for (uint32_t i = 0; good && i < N; i++) {
		uint32_t x = u64map_find(&m, keys[i]);

		good = x < n && v[x].key == keys[i];
	}
	for (uint32_t j = 0; good && j < n; j++)
		good = u64map_find(&m, v[j].key) == j;
	good = good && m.used == n && u64map_find(&m, 0x1234567812345678ULL) == U64MAP_NONE;
	/* An index already stored is kept. */
	good = good && u64map_add(&m, v[0].key, 99) == 0;
	u64map_free(&m);
	good = good && u64map_find(&m, keys[0]) == U64MAP_NONE && !m.size;
	free(v);
	free(keys);
	return good;
}

static uint64_t elem_key(const void *e)
{
	return ((const struct elem *)e)->key;
}

static int cmp_desc(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a > b ? -1 : a < b;
}

static int cmp_elem_desc(const void *x, const void *y)
{
	return cmp_desc(&((const struct elem *)x)->key, &((const struct elem *)y)->key);
}

/* The @max largest of @n random keys (many equal), as sorting all of them gives. */
static int t_topn(uint32_t max, uint32_t n, uint64_t range)
{
	struct elem *kept = calloc(max ? max : 1, sizeof(*kept));
	uint64_t *all = calloc(n, sizeof(*all));
	struct topn t = { .items = kept, .max = max, .size = sizeof(*kept), .key = elem_key };
	int good = kept && all;

	for (uint32_t i = 0; good && i < n; i++) {
		all[i] = rnd() % range;
		if (topn_wants(&t, all[i])) {
			*(struct elem *)topn_slot(&t) = (struct elem){ .key = all[i], .value = i };
			topn_placed(&t);
		}
	}
	good = good && t.n == (max < n ? max : n);
	if (good) {
		qsort(all, n, sizeof(*all), cmp_desc);
		qsort(kept, t.n, sizeof(*kept), cmp_elem_desc);
		for (uint32_t i = 0; i < t.n; i++)
			good &= kept[i].key == all[i];
	}
	free(kept);
	free(all);
	return good;
}

int main(void)
{
	printf("TAP version 13\n");
	ok(t_u64map(), "u64map: 20000 random keys (0 and repeats included) found as a list finds them");
	ok(t_topn(5, 100000, 1000000), "topn: the 5 longest of 100000 as a sort gives");
	ok(t_topn(64, 5000, 50), "topn: the 64 longest of 5000 with many equal keys");
	ok(t_topn(10, 3, 100), "topn: fewer items than places keeps them all");
	ok(t_topn(0, 100, 100), "topn: no places keeps nothing");
	return tap_finish();
}
