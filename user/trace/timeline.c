// SPDX-License-Identifier: GPL-2.0
/*
 * Timelines: the per-CPU chains of context switches the archive writer
 * follows to mark what the kernel did not trace (and `ktrace dump --check`
 * follows to check them), and the records that explain a break.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt_writer.h"
#include "lib/u64map.h"
#include "lib/utils.h"
#include "trace/timeline.h"

struct tl_cpu *timeline_cpu(struct timeline *t, uint32_t cpu)
{
	if (cpu >= t->ncpus) {
		uint32_t n = cpu + 1 > 2 * t->ncpus ? cpu + 1 : 2 * t->ncpus;
		struct tl_cpu *c = realloc(t->cpu, n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + t->ncpus, 0, (n - t->ncpus) * sizeof(*c));
		t->cpu = c;
		t->ncpus = n;
	}
	return &t->cpu[cpu];
}

int timeline_switch(struct timeline *t, uint32_t cpu, uint64_t ts, uint64_t out, uint64_t in,
		    struct tl_cpu *was)
{
	struct tl_cpu *c = timeline_cpu(t, cpu);

	if (!c)
		return -ENOMEM;
	*was = *c;
	c->tid = in;
	c->since = ts;
	c->known = true;
	return was->known && was->tid != out;
}

void timeline_forget(struct timeline *t, uint32_t cpu)
{
	struct tl_cpu *c = cpu == TL_CPU_UNKNOWN ? NULL : timeline_cpu(t, cpu);

	if (c) {
		c->known = false;
		c->pre = c->pre_bad = false;
	}
}

void timeline_free(struct timeline *t)
{
	free(t->cpu);
	t->cpu = NULL;
	t->ncpus = 0;
}

bool timeline_loss_hides_switches(const struct fxt_record *rec)
{
	static const char *const sched[] = {
		"context switch", "wakeup", "wakeup of a new task", "CPU offline or online",
	};
	const struct fxt_arg *lost = fxt_find_arg(rec, "lost");

	if (!lost || lost->type != KTRACE_FXT_ARG_STRING)
		return true;	/* a buffer's loss: any record */
	for (size_t i = 0; i < sizeof(sched) / sizeof(sched[0]); i++)
		if (fxt_str_eq(lost->s, sched[i]))
			return true;
	return false;
}

enum tl_meta timeline_meta(const struct fxt_record *rec, uint32_t *cpu)
{
	const struct fxt_arg *src;
	enum tl_meta m;

	if (rec->type != KTRACE_FXT_REC_EVENT || !fxt_str_eq(rec->cat, "ktrace:meta"))
		return TL_META_NONE;
	if (fxt_str_eq(rec->name, "dropped")) {
		/* ftrace's own events lost say nothing of the recorder's. */
		src = fxt_find_arg(rec, "source");
		if (src && src->type == KTRACE_FXT_ARG_STRING && fxt_str_eq(src->s, "ftrace"))
			return TL_META_NONE;
		/* Nor do the timer expiries, names or probe events a program lost. */
		if (!timeline_loss_hides_switches(rec))
			return TL_META_NONE;
		m = TL_META_DROPPED;
	} else if (fxt_str_eq(rec->name, "untraced_switch")) {
		m = TL_META_UNTRACED;
	} else if (fxt_str_eq(rec->name, "cpu_offline") || fxt_str_eq(rec->name, "cpu_online")) {
		m = TL_META_CPU_LINE;
	} else {
		return TL_META_NONE;
	}
	*cpu = fxt_arg_u64(rec, "cpu", TL_CPU_UNKNOWN);
	if (*cpu > 0xffff)
		*cpu = TL_CPU_UNKNOWN;
	return m;
}

void timeline_untraced_args(struct fxt_arg *args, uint32_t cpu, uint64_t stranded, uint64_t out,
			    uint64_t first_ts, uint64_t last_ts)
{
	args[0] = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "cpu", cpu);
	args[1] = fxt_arg_int(KTRACE_FXT_ARG_KOID, "tid", stranded);
	args[2] = fxt_arg_int(KTRACE_FXT_ARG_KOID, "switched_out", out);
	args[3] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "first_ts", first_ts);
	args[4] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "last_ts", last_ts);
}
