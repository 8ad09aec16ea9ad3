// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt handler probes: each hardirq, softirq and (x86) local timer
 * run becomes one record, written at its exit (ktrace_fxt_put_irq()).
 *
 * The entry keeps its time and number per CPU.  Hardirq handlers run with
 * interrupts off and do not nest, but one may come inside a softirq, so
 * each kind has its slot.  On PREEMPT_RT device handlers run in irq/N
 * threads, where irq_handler_entry/exit trace only the primary handler
 * that wakes the thread, and softirqs run in tasks that can be preempted
 * in the middle (a softirq's run then holds the time others ran).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interrupt.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "internal.h"

/*
 * Life cycle: cleared by ktrace_irq_probes_register() before any probe
 * runs; then each CPU's slots are written only by its own probes, with
 * interrupts off (hardirq) or bottom halves off (softirq), so without a lock.
 */
struct ktrace_irq_starts {
	u64 hard_since;		/* 0: none open */
	u64 soft_since;
	u32 hard_number;
	u32 hard_kind;
	u32 soft_vec;
};

static DEFINE_PER_CPU(struct ktrace_irq_starts, irq_starts);

static inline struct ktrace_cpu_buf *this_buf(void)
{
	struct ktrace_session *s = rcu_dereference_sched(ktrace_active);

	return s ? s->bufs[smp_processor_id()] : NULL;
}

static void irq_begin(bool hard, u32 kind, u32 number)
{
	struct ktrace_irq_starts *st = this_cpu_ptr(&irq_starts);

	if (!this_buf())
		return;
	if (hard) {
		st->hard_since = ktrace_now();
		st->hard_number = number;
		st->hard_kind = kind;
	} else {
		st->soft_since = ktrace_now();
		st->soft_vec = number;
	}
}

static void irq_end(bool hard, u32 number)
{
	struct ktrace_irq_starts *st = this_cpu_ptr(&irq_starts);
	struct ktrace_cpu_buf *b = this_buf();
	u64 rec[KTRACE_FXT_IRQ_WORDS], since, ts;
	u32 kind;

	since = hard ? st->hard_since : st->soft_since;
	kind = hard ? st->hard_kind : KTRACE_IRQ_SOFTIRQ;
	if (hard)
		st->hard_since = 0;
	else
		st->soft_since = 0;
	/* An exit whose entry came before the recording writes nothing. */
	if (!b || !since || (hard ? st->hard_number : st->soft_vec) != number)
		return;
	ts = ktrace_now();
	if (ts < since)
		return;
	ktrace_buf_write(b, rec, ktrace_fxt_put_irq(rec, b->cpu, kind, number, since, ts), since);
}

static void probe_irq_entry(void *data, int irq, struct irqaction *action)
{
	irq_begin(true, KTRACE_IRQ_HANDLER, irq);
}

static void probe_irq_exit(void *data, int irq, struct irqaction *action, int ret)
{
	irq_end(true, irq);
}

static void probe_softirq_entry(void *data, unsigned int vec)
{
	irq_begin(false, KTRACE_IRQ_SOFTIRQ, vec);
}

static void probe_softirq_exit(void *data, unsigned int vec)
{
	irq_end(false, vec);
}

static void probe_timer_entry(void *data, int vector)
{
	irq_begin(true, KTRACE_IRQ_LOCAL_TIMER, vector);
}

static void probe_timer_exit(void *data, int vector)
{
	irq_end(true, vector);
}

struct ktrace_irq_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool optional;		/* x86's irq_vectors: not on every architecture */
	bool registered;
};

/* Exits before entries: no entry is ever left open by a missed exit. */
static struct ktrace_irq_tp irq_tps[] = {
	{ .name = "irq_handler_exit", .probe = probe_irq_exit },
	{ .name = "softirq_exit", .probe = probe_softirq_exit },
	{ .name = "local_timer_exit", .probe = probe_timer_exit, .optional = true },
	{ .name = "irq_handler_entry", .probe = probe_irq_entry },
	{ .name = "softirq_entry", .probe = probe_softirq_entry },
	{ .name = "local_timer_entry", .probe = probe_timer_entry, .optional = true },
};

static void find_tp(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(irq_tps); i++)
		if (!strcmp(tp->name, irq_tps[i].name))
			irq_tps[i].tp = tp;
}

/* The interrupt tracepoints, by name; the local timer's only where it has them. */
int ktrace_irq_probes_init(void)
{
	size_t i;

	for_each_kernel_tracepoint(find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(irq_tps); i++) {
		if (!irq_tps[i].tp && !irq_tps[i].optional) {
			pr_err("tracepoint %s not found in this kernel\n", irq_tps[i].name);
			return -ENOENT;
		}
	}
	/* Both halves of a pair or neither. */
	if (!irq_tps[2].tp || !irq_tps[5].tp) {
		irq_tps[2].tp = NULL;
		irq_tps[5].tp = NULL;
	}
	return 0;
}

/* The interrupt probes, if @s records interrupts. */
int ktrace_irq_probes_register(const struct ktrace_session *s)
{
	unsigned int cpu;
	size_t i;
	int ret;

	if (!(s->flags & KTRACE_CFG_IRQ))
		return 0;
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&irq_starts, cpu), 0, sizeof(struct ktrace_irq_starts));
	for (i = 0; i < ARRAY_SIZE(irq_tps); i++) {
		if (!irq_tps[i].tp)
			continue;
		ret = tracepoint_probe_register(irq_tps[i].tp, irq_tps[i].probe, NULL);
		if (ret) {
			pr_err("cannot register on %s: %d\n", irq_tps[i].name, ret);
			goto err_unregister_probes;
		}
		irq_tps[i].registered = true;
	}
	return 0;

err_unregister_probes:
	ktrace_irq_probes_unregister();
	return ret;
}

/* Unregisters the interrupt probes; the caller waits until none runs. */
void ktrace_irq_probes_unregister(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(irq_tps); i++) {
		if (!irq_tps[i].registered)
			continue;
		tracepoint_probe_unregister(irq_tps[i].tp, irq_tps[i].probe, NULL);
		irq_tps[i].registered = false;
	}
}
