// SPDX-License-Identifier: GPL-2.0
/*
 * Timer waits: a thread asleep on an hrtimer (nanosleep, clock_nanosleep,
 * poll/select/epoll timeouts) waits from the time it asked for (due) until
 * it runs, the way cyclictest and rtla timerlat measure.  The recorders
 * write a "ktrace:timer" "timer_expire" instant when such a timer fires;
 * the wakeup that follows is its, and the wait splits in three parts:
 *
 *   timer_late  due -> fired     the timer interrupt came late: what was
 *                                the timer's CPU doing at the due time?
 *   handler     fired -> woken   the expiry code until sched_waking
 *   wait        woken -> ran     as any wakeup latency, with its blame
 *
 * A thread whose timer fires before it gets off the CPU (it called
 * clock_nanosleep late, or the timer is very short) never waits to run:
 * its timer wait ends at the wakeup, and its wait part is 0.
 *
 * Timers that wake through other functions (timerfd, POSIX timers,
 * itimers: signals or wait queues) are not recorded, and their wakeups
 * stay wakeup waits.
 */
#include <string.h>

#include "analyze/latency_internal.h"

bool lat_is_timer_expire(const struct fxt_record *rec)
{
	return rec->type == KTRACE_FXT_REC_EVENT && fxt_str_eq(rec->cat, "ktrace:timer") &&
	       fxt_str_eq(rec->name, "timer_expire");
}

/*
 * @t's sleeper timer fired at @ts.  A thread still on its CPU was late to
 * sleep (its wait ends at the wakeup, latency.c); a runnable one, woken
 * already or preempted on its way to sleep, gets no timer wait.
 */
void lat_timer_expire(struct lat_thread *t, const struct sched_timer_expire *e, uint64_t ts)
{
	uint64_t due = e->due;

	if (t->state != ST_BLOCKED && t->state != ST_UNKNOWN && t->state != ST_RUNNING) {
		t->timer = TIMER_NONE;
		return;
	}
	t->timer = TIMER_FIRED;
	/* A realtime clock's offset may move under the recorder: never due after fired. */
	t->timer_due = due < ts ? due : ts;
	t->timer_fired = ts;
	t->timer_cpu = e->cpu;
}

/*
 * @t is woken at @ts: whether its timer did it, which makes the wait a
 * timer wait (the caller starts it at t->timer_due).
 */
bool lat_timer_woken(struct lat_thread *t, uint64_t ts)
{
	if (t->timer != TIMER_FIRED || ts < t->timer_fired) {
		t->timer = TIMER_NONE;
		return false;
	}
	t->timer = TIMER_WOKEN;
	t->timer_woken = ts;
	return true;
}

/*
 * What CPU @cpu was doing at @ts, from its history: an interrupt handler
 * recorded through ftrace if one ran then, else the thread or idle.
 */
static bool cpu_at(struct lat_analysis *a, uint32_t cpu, uint64_t ts, struct lat_share *at)
{
	const struct lat_cpu *c = cpu < a->ncpus ? &a->cpus[cpu] : NULL;
	uint64_t oldest;
	bool found = false;

	if (!c || !c->seen || c->covered_from > ts)
		return false;
	for (int i = c->nirq < IRQ_NEST ? c->nirq : IRQ_NEST; i-- > 0;)
		if (c->irq[i].start <= ts && c->irq[i].name >= 0) {
			*at = (struct lat_share){ .kind = c->irq[i].kind, .id = c->irq[i].name };
			return true;
		}
	if (c->since <= ts) {
		*at = (struct lat_share){ .kind = c->tid ? SEG_THREAD : SEG_IDLE, .id = c->tid,
					  .weight = c->weight };
		found = true;
	}
	if (!c->ring)
		return found;
	oldest = c->nsegs > RING_SEGS ? c->nsegs - RING_SEGS : 0;
	/* Newest first: a thread's segment comes before the interrupts inside it. */
	for (uint64_t i = c->nsegs; i > oldest; i--) {
		const struct lat_seg *s = &c->ring[(i - 1) & (RING_SEGS - 1)];
		bool irq = s->kind == SEG_HARDIRQ || s->kind == SEG_SOFTIRQ;

		if (s->start <= ts && ts < s->end && (irq || !found)) {
			*at = (struct lat_share){ .kind = s->kind, .id = s->id,
						  .weight = s->weight };
			if (irq)
				return true;
			found = true;
		} else if (!irq && s->end <= ts) {
			break;
		}
	}
	return found;
}

/* Fills @w's timer part when @t's timer wait ends; @w->start is due. */
void lat_timer_wait(struct lat_analysis *a, const struct lat_thread *t, struct lat_wait *w)
{
	w->timer.due = t->timer_due;
	w->timer.fired = t->timer_fired;
	w->timer.woken = t->timer_woken;
	w->timer.cpu = t->timer_cpu;
	w->timer.at_due_known = cpu_at(a, t->timer_cpu, t->timer_due, &w->timer.at_due);
}

enum { PART_LATE, PART_HANDLER, PART_WAIT, PARTS };

static const char *const part_names[PARTS] = { "timer_late", "handler", "wait" };

static void parts_of(const struct lat_wait *w, uint64_t *p)
{
	p[PART_LATE] = w->timer.fired - w->timer.due;
	p[PART_HANDLER] = w->timer.woken - w->timer.fired;
	p[PART_WAIT] = w->end - w->timer.woken;
}

static uint32_t largest_part(const uint64_t *p)
{
	uint32_t k = 0;

	for (uint32_t i = 1; i < PARTS; i++)
		if (p[i] > p[k])
			k = i;
	return k;
}

static void put_at_due(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o)
{
	const struct lat_share *at = &w->timer.at_due;
	const char *irq;

	if (!w->timer.at_due_known) {
		obuf_printf(o, "CPU %u at the due time: not recorded", w->timer.cpu);
		return;
	}
	obuf_printf(o, "CPU %u was ", w->timer.cpu);
	switch (at->kind) {
	case SEG_IDLE:
		obuf_lit(o, "idle");
		break;
	case SEG_THREAD:
		obuf_printf(o, "running %s %llu (", lat_thread_name(a, at->id),
			    (unsigned long long)at->id);
		lat_put_prio(o, at->weight);
		obuf_putc(o, ')');
		break;
	default:
		irq = lat_irq_name(a, at->id);
		obuf_printf(o, "in %s %s", at->kind == SEG_HARDIRQ ? "hardirq" : "softirq",
			    irq ? irq : "?");
	}
	if (!w->have_irq && at->kind != SEG_HARDIRQ && at->kind != SEG_SOFTIRQ)
		obuf_lit(o, " (interrupts not recorded)");
}

/*
 * "timer fired 1.400 ms late (the largest part); CPU 1 was idle; handler
 * 2.1 us, wait 3.2 us"
 */
void lat_timer_line(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o)
{
	uint64_t p[PARTS];
	uint32_t big;

	parts_of(w, p);
	big = largest_part(p);
	obuf_lit(o, "timer fired ");
	lat_put_dur(o, p[PART_LATE]);
	obuf_printf(o, " late%s; ", big == PART_LATE ? " (the largest part)" : "");
	put_at_due(a, w, o);
	obuf_lit(o, "; handler ");
	lat_put_dur(o, p[PART_HANDLER]);
	obuf_printf(o, "%s, wait ", big == PART_HANDLER ? " (the largest part)" : "");
	lat_put_dur(o, p[PART_WAIT]);
	if (big == PART_WAIT)
		obuf_lit(o, " (the largest part)");
}

/* The timer wait's fields of a --json "top" entry. */
void lat_timer_json(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o)
{
	const struct lat_share *at = &w->timer.at_due;
	static const char *const what[] = { "thread", "idle", "hardirq", "softirq" };
	const char *s;
	uint64_t p[PARTS];

	parts_of(w, p);
	obuf_printf(o, ",\"due\":%llu,\"fired\":%llu,\"woken\":%llu,\"ran\":%llu,\"parts\":{",
		    (unsigned long long)w->timer.due, (unsigned long long)w->timer.fired,
		    (unsigned long long)w->timer.woken, (unsigned long long)w->end);
	for (uint32_t i = 0; i < PARTS; i++)
		obuf_printf(o, "%s\"%s\":%llu", i ? "," : "", part_names[i],
			    (unsigned long long)p[i]);
	obuf_printf(o, "},\"largest_part\":\"%s\",\"timer_cpu\":%u,\"at_due\":",
		    part_names[largest_part(p)], w->timer.cpu);
	if (!w->timer.at_due_known || at->kind > SEG_SOFTIRQ) {
		obuf_lit(o, "null");
		return;
	}
	obuf_printf(o, "{\"what\":\"%s\"", what[at->kind]);
	if (at->kind == SEG_THREAD) {
		obuf_printf(o, ",\"tid\":%llu,\"comm\":", (unsigned long long)at->id);
		s = lat_thread_name(a, at->id);
		obuf_json_str(o, s, strlen(s));
		obuf_printf(o, ",\"prio\":%d", lat_prio_of(at->weight));
	} else if (at->kind != SEG_IDLE) {
		s = lat_irq_name(a, at->id) ?: "?";
		obuf_lit(o, ",\"irq\":");
		obuf_json_str(o, s, strlen(s));
	}
	obuf_putc(o, '}');
}
