/* SPDX-License-Identifier: GPL-2.0 */
/* Names of interrupt handlers, as the trace shows them ("irq 27 eth0", "softirq TIMER"). */
#ifndef KTRACE_IRQ_NAMES_H
#define KTRACE_IRQ_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fxt/fxt_reader.h"

/* A softirq vector's name (kernel/softirq.c's softirq_to_name), NULL if unknown. */
const char *irq_softirq_name(uint64_t vec);

/*
 * The device names of each irq number ("eth0", "ahci[0000:00:1f.2]", a
 * shared line's "a,b"), read when first asked for from
 * /sys/kernel/irq/N/actions, else from /proc/interrupts' last column.
 * @root: where "sys" and "proc" are ("" for /; tests give a directory).
 */
struct irq_actions {
	const char *root;
	char **names;		/* by irq: NULL not read yet, "" none */
	uint32_t cap;
};

void irq_actions_init(struct irq_actions *ia, const char *root);
/* @irq's device names, "" if none is known. */
const char *irq_actions_get(struct irq_actions *ia, uint32_t irq);
void irq_actions_free(struct irq_actions *ia);

/*
 * Whether @rec is a recorder's interrupt record (ktrace_fxt_put_irq()); if
 * so, the name the ftrace path gives the same handler goes into @name:
 * "irq 27 eth0" ("irq 27" when no device is named), "softirq TIMER",
 * "local_timer 236"; the CPU is @cpu.
 */
bool irq_record_name(const struct fxt_record *rec, struct irq_actions *ia, char *name, size_t len,
		     uint32_t *cpu);

#endif
