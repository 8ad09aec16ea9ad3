// SPDX-License-Identifier: GPL-2.0
/*
 * The phrases every latency report writes the same way: a wait's kind, a
 * duration in the unit that reads best, a thread's priority.
 */
#include "analyze/latency_internal.h"

static const char *const kind_names[LAT_KINDS] = { "wakeup", "preemption", "timer" };

const char *lat_kind_name(unsigned int kind)
{
	return kind < LAT_KINDS ? kind_names[kind] : "?";
}

/* Linux prio from a context switch weight (140 - prio), -1 if it is none. */
int lat_prio_of(int32_t weight)
{
	return weight <= 0 || weight > KTRACE_FXT_PRIO_BASE ? -1 : KTRACE_FXT_PRIO_BASE - weight;
}

void lat_put_prio(struct obuf *o, int32_t weight)
{
	int prio = lat_prio_of(weight);

	if (prio < 0)
		obuf_lit(o, "prio ?");
	else if (prio < 100)
		obuf_printf(o, "rt %d", 99 - prio);
	else
		obuf_printf(o, "nice %d", prio - 120);
}

/* A duration in the unit that reads best: 850 ns, 12.3 us, 4.017 ms. */
void lat_put_dur(struct obuf *o, uint64_t ns)
{
	if (ns < 1000)
		obuf_printf(o, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		obuf_printf(o, "%.1f us", ns / 1e3);
	else
		obuf_printf(o, "%.3f ms", ns / 1e6);
}
