// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace events as FXT records, whatever they came from (a live tracefs
 * instance, a text dump): instants with typed arguments, well-known
 * begin/end pairs as durations, and the clock-sync markers kept aside.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fxt/irq_names.h"
#include "lib/utils.h"
#include "record/ftrace_convert.h"

int ftrace_conv_init(struct ftrace_conv *c, struct spool *spools, unsigned int n)
{
	memset(c, 0, sizeof(*c));
	c->spools = spools;
	c->nspools = n;
	c->w = spool_writer_new(&spools[0]);
	return c->w ? 0 : -ENOMEM;
}

void ftrace_conv_free(struct ftrace_conv *c)
{
	spool_writer_free(c->w);
	free(c->markers);
	c->w = NULL;
	c->markers = NULL;
}

static void add_marker(struct ftrace_conv *c, const char *text, uint64_t ts)
{
	struct sync_point p;

	if (!clock_sync_marker(text, ts, &p))
		return;
	if (c->nmarkers == c->markers_cap) {
		unsigned int cap = c->markers_cap ? c->markers_cap * 2 : 16;
		struct sync_point *m = realloc(c->markers, cap * sizeof(*m));

		if (!m)
			return;
		c->markers = m;
		c->markers_cap = cap;
	}
	c->markers[c->nmarkers++] = p;
}

static const struct fxt_arg *arg(const struct ftrace_event *e, const char *name)
{
	for (unsigned int i = 0; i < e->nargs; i++)
		if (fxt_str_eq(e->args[i].name, name))
			return &e->args[i];
	return NULL;
}

static void irq_track(struct ftrace_conv *c, int cpu)
{
	char name[32];
	struct fxt_arg proc;

	if (cpu < 0 || cpu >= 65536 || c->cpu_named[cpu / 64] & (1ULL << (cpu % 64)))
		return;
	c->cpu_named[cpu / 64] |= 1ULL << (cpu % 64);
	if (!c->irq_process_named) {
		fxt_write_kobj(c->w, KTRACE_FXT_OBJ_PROCESS, KTRACE_FXT_IRQ_PID, "interrupts", NULL,
			       0);
		c->irq_process_named = true;
	}
	snprintf(name, sizeof(name), "CPU %d irq", cpu);
	proc = fxt_arg_int(KTRACE_FXT_ARG_KOID, "process", KTRACE_FXT_IRQ_PID);
	fxt_write_kobj(c->w, KTRACE_FXT_OBJ_THREAD, KTRACE_FXT_IRQ_TID(cpu), name, &proc, 1);
}

/*
 * Begin/end pairs that become durations, named "LABEL TEXT" from a string
 * argument or else "LABEL N" from a number; interrupts go on their CPU's
 * interrupt track, syscalls on their own thread.
 */
static const struct duration_pair {
	const char *begin, *end, *label, *text_arg, *num_arg;
	bool on_thread;
} pairs[] = {
	{ "irq_handler_entry", "irq_handler_exit", "irq", "name", "irq", false },
	{ "softirq_entry", "softirq_exit", "softirq", "action", "vec", false },
	/* x86's local APIC timer is no irq:* event. */
	{ "local_timer_entry", "local_timer_exit", "local_timer", NULL, "vector", false },
	{ "sys_enter", "sys_exit", "syscall", NULL, "id", true },
};

/* Writes @e as a duration's begin or end if it is one; the rest become instants. */
static bool duration(struct ftrace_conv *c, const struct ftrace_event *e)
{
	const struct duration_pair *p = NULL;
	const struct fxt_arg *a;
	unsigned int type;
	char name[64];

	for (size_t i = 0; i < ARRAY_SIZE(pairs) && !p; i++)
		if (!strcmp(e->name, pairs[i].begin) || !strcmp(e->name, pairs[i].end))
			p = &pairs[i];
	if (!p)
		return false;
	if (c->irq_instants && !p->on_thread) {
		irq_track(c, e->cpu);
		fxt_write_event(c->w, KTRACE_FXT_EV_INSTANT, e->ts, KTRACE_FXT_IRQ_PID,
				KTRACE_FXT_IRQ_TID(e->cpu), e->system, e->name, e->args, e->nargs, 0);
		return true;
	}
	type = !strcmp(e->name, p->begin) ? KTRACE_FXT_EV_DURATION_BEGIN : KTRACE_FXT_EV_DURATION_END;
	a = p->text_arg ? arg(e, p->text_arg) : NULL;
	if (a && a->type == KTRACE_FXT_ARG_STRING) {
		snprintf(name, sizeof(name), "%s %.*s", p->label, (int)a->s.len, a->s.p);
	} else if (!strcmp(p->label, "softirq") && (a = arg(e, p->num_arg)) && a->i >= 0 &&
		   irq_softirq_name(a->i)) {
		snprintf(name, sizeof(name), "softirq %s", irq_softirq_name(a->i));
	} else {
		a = arg(e, p->num_arg);
		snprintf(name, sizeof(name), "%s %lld", p->label, a ? (long long)a->i : -1LL);
	}
	if (p->on_thread) {
		fxt_write_event(c->w, type, e->ts, e->pid, e->pid, p->label, name, e->args,
				e->nargs, 0);
	} else {
		irq_track(c, e->cpu);
		fxt_write_event(c->w, type, e->ts, KTRACE_FXT_IRQ_PID, KTRACE_FXT_IRQ_TID(e->cpu),
				e->system, name, e->args, e->nargs, 0);
	}
	c->durations++;
	return true;
}

/* What is written next goes to @cpu's spool; the error of what was written before. */
static int into_spool(struct ftrace_conv *c, int cpu)
{
	int err = c->w->sink_err;

	c->w->sink_err = 0;
	c->w->sink_ctx = &c->spools[(cpu < 0 ? 0 : cpu) % c->nspools];
	return err;
}

int ftrace_conv_event(struct ftrace_conv *c, const struct ftrace_event *e)
{
	into_spool(c, e->cpu);
	c->events++;
	if (e->ts > c->last_ts)
		c->last_ts = e->ts;
	if (e->text && (!strcmp(e->name, "tracing_mark_write") || !strcmp(e->name, "print")))
		add_marker(c, e->text, e->ts);
	if (!duration(c, e))
		fxt_write_event(c->w, KTRACE_FXT_EV_INSTANT, e->ts, e->pid, e->pid, e->system,
				e->name, e->args, e->nargs, 0);
	return into_spool(c, e->cpu);
}

int ftrace_conv_loss(struct ftrace_conv *c, int cpu, uint64_t count)
{
	/*
	 * ftrace does not say when: the record goes at the latest event seen,
	 * whose time the merge moves onto the recorder's clock.
	 */
	struct fxt_arg args[] = {
		fxt_arg_int(KTRACE_FXT_ARG_UINT32, "cpu", cpu),
		fxt_arg_int(KTRACE_FXT_ARG_UINT64, "count", count),
		fxt_arg_str("source", "ftrace"),
	};

	c->lost += count;
	into_spool(c, cpu);
	fxt_write_event(c->w, KTRACE_FXT_EV_INSTANT, c->last_ts, 0, 0, "ktrace:meta", "dropped",
			args, ARRAY_SIZE(args), 0);
	return into_spool(c, cpu);
}
