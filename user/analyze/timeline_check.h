/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `ktrace dump --check`: every record in turn, then a verdict.
 */
#ifndef KTRACE_TIMELINE_CHECK_H
#define KTRACE_TIMELINE_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "fxt/fxt_reader.h"
#include "trace/timeline.h"

struct tl_check;

struct tl_check *tl_check_new(void);
int tl_check_record(struct tl_check *c, const struct fxt_reader *r, const struct fxt_record *rec);
/* Prints each violation and a summary to @f; the number of unexplained violations. */
uint64_t tl_check_finish(struct tl_check *c, const struct fxt_reader *r, FILE *f);
void tl_check_free(struct tl_check *c);

#endif
