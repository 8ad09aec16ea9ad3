// SPDX-License-Identifier: GPL-2.0
/*
 * Names of interrupt handlers: the recorders write an irq number or a
 * softirq vector, and the archive names them as the ftrace path does.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/irq_names.h"
#include "lib/utils.h"

/* The softirq tracepoints give only the vector: its name (kernel/softirq.c). */
static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

const char *irq_softirq_name(uint64_t vec)
{
	return vec < ARRAY_SIZE(softirq_names) ? softirq_names[vec] : NULL;
}

void irq_actions_init(struct irq_actions *ia, const char *root)
{
	memset(ia, 0, sizeof(*ia));
	ia->root = root ? root : "";
}

void irq_actions_free(struct irq_actions *ia)
{
	for (uint32_t i = 0; i < ia->cap; i++)
		free(ia->names[i]);
	free(ia->names);
	ia->names = NULL;
	ia->cap = 0;
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
}

/*
 * /proc/interrupts' line for @irq: after the per-CPU counts come the chip,
 * the hardware irq and trigger, then the devices, which /proc separates
 * from them by two spaces (kernel/irq/proc.c), while the chip's columns
 * are padded with spaces too.  Only the devices' column is taken: what
 * follows the last run of two spaces, if it looks like names.
 */
static bool from_proc(const char *root, uint32_t irq, char *out, size_t len)
{
	char path[4096], *line = NULL, *p, *last;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/interrupts", root);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *end;
		unsigned long n = strtoul(line, &end, 10);

		if (end == line || *end != ':' || n != irq)
			continue;
		trim(line);
		last = NULL;
		for (p = end + 1; (p = strstr(p, "  ")); p++)
			last = p;
		if (!last)
			break;
		while (*last == ' ')
			last++;
		/*
		 * A line with no device ends in the chip's columns, which have
		 * a single space inside ("PCI-MSI 1-edge"); devices are
		 * separated by ", " only.
		 */
		for (p = last; *p; p++)
			if (*p == ' ' && (p == last || p[-1] != ','))
				break;
		if (*last && !*p && !isdigit((unsigned char)*last)) {
			snprintf(out, len, "%s", last);
			found = true;
		}
		break;
	}
	free(line);
	fclose(f);
	return found;
}

static void read_names(const char *root, uint32_t irq, char *out, size_t len)
{
	char path[4096];
	FILE *f;

	out[0] = 0;
	snprintf(path, sizeof(path), "%s/sys/kernel/irq/%u/actions", root, irq);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(out, len, f))
			out[0] = 0;
		fclose(f);
		trim(out);
		return;
	}
	if (!from_proc(root, irq, out, len))
		out[0] = 0;
}

const char *irq_actions_get(struct irq_actions *ia, uint32_t irq)
{
	char buf[256];

	if (irq >= 1U << 20)
		return "";
	/* Out of memory, the handler goes unnamed ("irq N"); the recording is kept. */
	if (irq >= ia->cap) {
		uint32_t cap = ia->cap ? ia->cap : 64;
		char **names;

		while (cap <= irq)
			cap *= 2;
		names = realloc(ia->names, cap * sizeof(*ia->names));
		if (!names)
			return "";
		ia->names = names;
		memset(ia->names + ia->cap, 0, (cap - ia->cap) * sizeof(*ia->names));
		ia->cap = cap;
	}
	if (!ia->names[irq]) {
		read_names(ia->root, irq, buf, sizeof(buf));
		ia->names[irq] = strdup(buf);
		if (!ia->names[irq])
			return "";
	}
	return ia->names[irq];
}

bool irq_record_name(const struct fxt_record *rec, struct irq_actions *ia, char *name, size_t len,
		     uint32_t *cpu)
{
	const char *s;

	if (rec->type != KTRACE_FXT_REC_EVENT || rec->sub != KTRACE_FXT_EV_DURATION_COMPLETE ||
	    rec->pid != KTRACE_FXT_IRQ_PID || rec->tid < KTRACE_FXT_IRQ_TID(0) ||
	    rec->tid - KTRACE_FXT_IRQ_TID(0) >= 65536 || rec->nargs != 1 ||
	    rec->args[0].type != KTRACE_FXT_ARG_UINT32 || !fxt_str_eq(rec->cat, "ktrace:irq"))
		return false;
	*cpu = rec->tid - KTRACE_FXT_IRQ_TID(0);
	if (fxt_str_eq(rec->name, "irq")) {
		s = ia ? irq_actions_get(ia, rec->args[0].u) : "";
		snprintf(name, len, *s ? "irq %llu %s" : "irq %llu",
			 (unsigned long long)rec->args[0].u, s);
	} else if (fxt_str_eq(rec->name, "softirq")) {
		s = irq_softirq_name(rec->args[0].u);
		if (s)
			snprintf(name, len, "softirq %s", s);
		else
			snprintf(name, len, "softirq %llu", (unsigned long long)rec->args[0].u);
	} else if (fxt_str_eq(rec->name, "local_timer")) {
		snprintf(name, len, "local_timer %llu", (unsigned long long)rec->args[0].u);
	} else {
		return false;
	}
	return true;
}
