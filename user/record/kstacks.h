/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where threads blocked: the kernel stacks a recorder interned, named from
 * /proc/kallsyms at the end of recording and written into the archive.
 */
#ifndef KTRACE_KSTACKS_H
#define KTRACE_KSTACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "fxt/fxt_reader.h"
#include "fxt/fxt_writer.h"

struct kstack_entry {
	uint32_t id;
	uint32_t nframes;
	uint64_t *ip;		/* innermost first */
	char **names;		/* after kstacks_resolve() */
};

struct kstack_table {
	struct kstack_entry *e;
	uint32_t n, cap;
	bool resolved;		/* names from kallsyms, else hexadecimal addresses */
};

/* Adds stack @id of @nframes addresses (trailing zeros dropped); -ENOMEM. */
int kstacks_add(struct kstack_table *t, uint32_t id, const uint64_t *ip, uint32_t nframes);
/*
 * Names every frame from /proc/kallsyms, or with @raw as hexadecimal
 * addresses; a frame kallsyms does not name is "?", and when kallsyms
 * cannot be read it says so, with why.
 */
void kstacks_resolve(struct kstack_table *t, bool raw);
/*
 * One "ktrace:meta" "kstack" instant at @ts per stack: kstack (the id),
 * blocked_in and, with @frames, the whole stack outermost first, joined
 * by ';' as folded stacks are.
 */
void kstacks_write(const struct kstack_table *t, struct fxt_writer *w, uint64_t ts, bool frames);
void kstacks_free(struct kstack_table *t);

/*
 * The function a thread blocked in, from its stack's names innermost
 * first: the first frame past the scheduler (see kstacks.c).
 */
const char *kstack_blocked_in(char *const *names, uint32_t n);

#endif
