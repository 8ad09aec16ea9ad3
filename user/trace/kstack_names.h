/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel stacks an archive names: where each thread blocked, by the
 * stack id its context switches carry.
 */
#ifndef KTRACE_KSTACK_NAMES_H
#define KTRACE_KSTACK_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "fxt/fxt_reader.h"

/*
 * Reading an archive: each stack id's function and frames, from the
 * "kstack" instants at its head.  Ids are small (the recorders hand them
 * out from 1 up), so this is a vector indexed by id.
 */
struct kstack_names {
	char **blocked_in;
	char **frames;
	uint32_t n;
};

/* Highest id an archive may use (larger ones are not remembered). */
#define KSTACK_ID_MAX	(1U << 20)

/* Remembers @rec if it is a "ktrace:meta" "kstack" instant; true if it was one. */
bool kstack_names_note(struct kstack_names *k, const struct fxt_record *rec);
/* The function stack @id blocked in, and its frames; NULL if not known. */
const char *kstack_names_blocked_in(const struct kstack_names *k, uint64_t id);
const char *kstack_names_frames(const struct kstack_names *k, uint64_t id);
void kstack_names_free(struct kstack_names *k);

#endif
