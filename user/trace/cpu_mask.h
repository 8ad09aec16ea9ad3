/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allowed-CPU masks of any width, interned: the records give a thread's
 * mask in "cpus" (CPUs 0..63) and, on a machine of more than 64 CPUs, in
 * "cpus1" .. "cpus63" and "cpus_cut" (ktrace_fxt_put_cpus_extra()).  Each
 * distinct mask is stored once and never moves, so a thread, a wait or a
 * piece of one holds a pointer to it; NULL stands for every CPU.
 */
#ifndef KTRACE_TRACE_CPU_MASK_H
#define KTRACE_TRACE_CPU_MASK_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/u64map.h"

struct fxt_record;
struct obuf;

struct cpu_mask {
	uint32_t cut;		/* every CPU from this one on is allowed; UINT32_MAX: none */
	uint32_t nwords;	/* the last one non-zero */
	uint64_t w[];
};

struct cpu_masks {
	struct u64map map;	/* a mask's hash -> its index */
	struct cpu_mask **v;
	uint32_t n, cap;
};

/*
 * The mask a record gives (a wakeup, a thread record, an "affinity"
 * instant): NULL for every CPU, which is also what a record without
 * "cpus" says.  Exits when memory runs out.
 */
const struct cpu_mask *cpu_masks_of(struct cpu_masks *t, const struct fxt_record *rec);
void cpu_masks_free(struct cpu_masks *t);

static inline bool cpu_mask_has(const struct cpu_mask *m, uint32_t cpu)
{
	if (!m || cpu >= m->cut)
		return true;
	return cpu / 64 < m->nwords && (m->w[cpu / 64] >> (cpu % 64) & 1);
}

/* CPUs 0..63 of @m, 0 for every CPU (the JSON's "cpus_allowed"). */
static inline uint64_t cpu_mask_word0(const struct cpu_mask *m)
{
	return m && m->nwords ? m->w[0] : 0;
}

/*
 * "0-1,3,64-71": @m's CPUs as taskset and cpuset lists write them, "all"
 * for NULL; a cut mask ends in "576-" (every CPU from 576 on).
 */
void cpu_mask_list(struct obuf *o, const struct cpu_mask *m);

#endif
