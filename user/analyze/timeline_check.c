// SPDX-License-Identifier: GPL-2.0
/*
 * `ktrace dump --check`: the whole trace as timelines, each break, each
 * blocked thread run without a wakeup and each wakeup from a thread not on
 * its CPU, excused only by a record that explains it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/timeline_check.h"
#include "lib/u64map.h"
#include "lib/utils.h"
#include "trace/sched.h"

enum { EXCUSE_NONE, EXCUSE_LOSS, EXCUSE_UNTRACED, EXCUSE_CPU_LINE };

struct tl_thread {
	uint64_t tid;
	uint64_t last_in;	/* its last switch-in, ns */
	uint32_t on_cpu;	/* CPU + 1 while switched in, else 0 */
	bool need_wake;		/* switched out blocked, not woken since */
	bool woken;		/* a wakeup since its last switch-in */
};

/* A time range a loss record, or an untraced_switch record, covers. */
struct tl_range {
	uint64_t first, last;
	uint32_t cpu;		/* TL_CPU_UNKNOWN: any */
	bool untraced;
};

enum tl_kind {
	V_BREAK,		/* a switch takes off a thread other than the one switched in */
	V_NO_WAKEUP,		/* a blocked thread switched in without a wakeup */
	V_TWO_CPUS,		/* a thread switched in on a CPU while it runs on another */
	V_UNTRACED_MISMATCH,	/* an untraced_switch record that is not the break that follows */
	V_UNTRACED_NO_BREAK,	/* an untraced_switch record where the chain holds */
	V_WAKER,		/* a wakeup made by a thread the CPU's chain does not have on it */
	V_WAKER_EARLY,		/* the same before the CPU's first switch */
	V_OUTSIDE_SPAN,		/* a record timed outside the span trace_info gives */
};

struct tl_violation {
	uint8_t kind;
	uint32_t cpu, cpu2;
	uint64_t ts, offset, tid, tid2;
	uint64_t lo, hi;	/* when what would explain it must have happened */
};

struct tl_check {
	struct timeline tl;
	struct tl_thread *threads;
	uint32_t nthreads, cap_threads;
	struct u64map thread_map;	/* tid to index into threads */
	struct tl_range *ranges;
	uint32_t nranges, cap_ranges;
	struct tl_violation *v;
	uint32_t nv, cap_v;
	uint64_t switches, wakeups, breaks, by_loss, by_untraced, by_cpu_line, by_unknown;
	uint64_t losses, untraced, cpu_lines, last_ts;
	uint64_t untraced_wakeups;	/* untraced_wakeup records */
	uint64_t span_start, span_stop;	/* trace_info's span, if it gives one */
	bool have_span;
	bool wakers_here;	/* a recorder's trace: wakeups are on the waker's CPU */
	int err;
};

struct tl_check *tl_check_new(void)
{
	struct tl_check *c = calloc(1, sizeof(*c));

	return c;
}

void tl_check_free(struct tl_check *c)
{
	if (!c)
		return;
	timeline_free(&c->tl);
	free(c->threads);
	u64map_free(&c->thread_map);
	free(c->ranges);
	free(c->v);
	free(c);
}

/* NULL when memory runs out. */
static struct tl_thread *thread_get(struct tl_check *c, uint64_t tid)
{
	bool added;
	struct tl_thread *t = u64map_vec_get(&c->thread_map, tid, &c->threads, &c->nthreads,
					     &c->cap_threads, sizeof(*t), &added);

	if (t && added)
		t->tid = tid;
	return t;
}

static void violation(struct tl_check *c, const struct tl_violation *v)
{
	struct tl_violation *p = vec_add(&c->v, &c->nv, &c->cap_v, sizeof(*p));

	if (!p)
		c->err = -ENOMEM;
	else
		*p = *v;
}

static void add_range(struct tl_check *c, uint64_t first, uint64_t last, uint32_t cpu,
		      bool untraced)
{
	struct tl_range *p = vec_add(&c->ranges, &c->nranges, &c->cap_ranges, sizeof(*p));

	if (!p)
		c->err = -ENOMEM;
	else
		*p = (struct tl_range){ first, last < first ? first : last, cpu, untraced };
}

static void on_meta(struct tl_check *c, const struct fxt_reader *r, const struct fxt_record *rec,
		    enum tl_meta m, uint32_t cpu)
{
	uint64_t ts = fxt_ticks_to_ns(r, rec->ts);
	struct tl_cpu *pc = cpu == TL_CPU_UNKNOWN ? NULL : timeline_cpu(&c->tl, cpu);

	if (cpu != TL_CPU_UNKNOWN && !pc) {
		c->err = -ENOMEM;
		return;
	}
	switch (m) {
	case TL_META_DROPPED:
		c->losses++;
		/* Without a time range, the loss happened some time before the record. */
		add_range(c, fxt_ticks_to_ns(r, fxt_arg_u64(rec, "first_ts", 0)),
			  fxt_ticks_to_ns(r, fxt_arg_u64(rec, "last_ts", rec->ts)), cpu, false);
		if (pc) {
			pc->excuse = EXCUSE_LOSS;
			pc->moved = false;	/* the switch that took it off may be lost */
		}
		break;
	case TL_META_UNTRACED:
		c->untraced++;
		add_range(c, fxt_ticks_to_ns(r, fxt_arg_u64(rec, "first_ts", rec->ts)),
			  fxt_ticks_to_ns(r, fxt_arg_u64(rec, "last_ts", rec->ts)), cpu, true);
		if (!pc) {
			violation(c, &(struct tl_violation){ .kind = V_UNTRACED_MISMATCH,
				  .cpu = cpu, .ts = ts, .offset = rec->offset });
			break;
		}
		if (pc->excuse == EXCUSE_LOSS)
			break;
		pc->excuse = EXCUSE_UNTRACED;
		pc->ex_tid = fxt_arg_u64(rec, "tid", UINT64_MAX);
		pc->ex_out = fxt_arg_u64(rec, "switched_out", UINT64_MAX);
		break;
	case TL_META_CPU_LINE:
		c->cpu_lines++;
		/*
		 * A dying CPU stops tracing before the record that says it is
		 * down: from its last traced switch on, what it did (the wakeups
		 * it made, the threads it pushed away) may be missing.
		 */
		if (pc && fxt_str_eq(rec->name, "cpu_offline"))
			add_range(c, pc->known && pc->since < ts ? pc->since : ts, ts, cpu, false);
		/*
		 * A CPU coming up runs code before it counts as online, where
		 * nothing is traced either: on x86 it wakes the other CPUs'
		 * stopper threads to load its MTRRs.  Up to its first switch.
		 */
		if (pc && fxt_str_eq(rec->name, "cpu_online"))
			pc->coming_up = ts ? ts : 1;
		if (pc && pc->excuse != EXCUSE_LOSS)
			pc->excuse = EXCUSE_CPU_LINE;
		if (pc)
			pc->moved = false;	/* a CPU going down traces no last switch */
		break;
	default:
		break;
	}
}

static void on_switch(struct tl_check *c, const struct fxt_record *rec,
		      const struct sched_event *ev)
{
	uint64_t ts = ev->ts, out = ev->sw.out_tid, in = ev->sw.in_tid;
	struct tl_thread *th;
	struct tl_cpu was, *pc;
	int ret;

	c->switches++;
	ret = timeline_switch(&c->tl, rec->cpu, ts, out, in, &was);
	if (ret < 0) {
		c->err = ret;
		return;
	}
	pc = &c->tl.cpu[rec->cpu];
	/* The wakeups made here before the first switch were the outgoing thread's. */
	if (pc->pre && !pc->pre_bad && pc->pre_waker != out)
		violation(c, &(struct tl_violation){ .kind = V_WAKER_EARLY, .cpu = rec->cpu,
			  .ts = pc->pre_ts, .offset = pc->pre_off, .tid = pc->pre_waker,
			  .tid2 = out, .lo = pc->pre_ts, .hi = ts });
	pc->pre = pc->pre_bad = false;
	if (pc->coming_up) {
		add_range(c, pc->coming_up, ts, rec->cpu, false);
		pc->coming_up = 0;
	}
	pc->excuse = EXCUSE_NONE;
	pc->moved = false;
	if (ret) {
		c->breaks++;
		switch (was.excuse) {
		case EXCUSE_LOSS:
			c->by_loss++;
			break;
		case EXCUSE_CPU_LINE:
			c->by_cpu_line++;
			break;
		case EXCUSE_UNTRACED:
			if (was.ex_tid == was.tid && was.ex_out == out) {
				c->by_untraced++;
				break;
			}
			violation(c, &(struct tl_violation){ .kind = V_UNTRACED_MISMATCH,
				  .cpu = rec->cpu, .ts = ts, .offset = rec->offset, .tid = was.tid,
				  .tid2 = out });
			break;
		default:
			violation(c, &(struct tl_violation){ .kind = V_BREAK, .cpu = rec->cpu,
				  .ts = ts, .offset = rec->offset, .tid = was.tid, .tid2 = out,
				  .lo = was.since, .hi = ts });
		}
	} else if (was.known && was.excuse == EXCUSE_UNTRACED) {
		violation(c, &(struct tl_violation){ .kind = V_UNTRACED_NO_BREAK, .cpu = rec->cpu,
			  .ts = ts, .offset = rec->offset, .tid = was.tid, .tid2 = out });
	}
	/* It was switched in elsewhere before this switch took it off here. */
	if (was.moved && out == was.tid && ts > was.moved_ts)
		violation(c, &(struct tl_violation){ .kind = V_TWO_CPUS, .cpu = rec->cpu,
			  .cpu2 = was.moved_cpu, .ts = was.moved_ts, .offset = was.moved_off,
			  .tid = out, .lo = was.moved_ts, .hi = ts });
	if (out) {
		th = thread_get(c, out);
		if (!th)
			goto nomem;
		if (th->on_cpu == rec->cpu + 1)
			th->on_cpu = 0;
		if (ev->sw.out_state != KTRACE_LINUX_RUNNING)
			th->need_wake = true;
	}
	if (!in)
		return;
	th = thread_get(c, in);
	if (!th)
		goto nomem;
	if (th->on_cpu && th->on_cpu != rec->cpu + 1) {
		struct tl_cpu *o = &c->tl.cpu[th->on_cpu - 1];

		if (o->known && o->tid == in && !o->moved) {
			o->moved = true;
			o->moved_ts = ts;
			o->moved_off = rec->offset;
			o->moved_cpu = rec->cpu;
		}
	}
	/*
	 * A wakeup may come before the switch-out it ends (woken while still
	 * on its way off the CPU): what counts is one since it last ran.
	 */
	if (th->need_wake && !th->woken)
		violation(c, &(struct tl_violation){ .kind = V_NO_WAKEUP, .cpu = rec->cpu,
			  .ts = ts, .offset = rec->offset, .tid = in, .lo = th->last_in, .hi = ts });
	th->need_wake = th->woken = false;
	th->last_in = ts;
	th->on_cpu = rec->cpu + 1;
	return;
nomem:
	c->err = -ENOMEM;
}

/*
 * A wakeup is recorded on the CPU that makes it (sched_waking), and names
 * as its waker the thread running there, the one an interrupt interrupted
 * included: the thread the CPU's chain has on it.  (Between the switch
 * tracepoint and the switch itself the scheduler holds the run queue's
 * lock and wakes no one.)  Another waker means the CPU switched and the
 * trace has no record of it.  Where a recorder's switches stop before its
 * wakeups, or start after them (programs taken down or up one by one),
 * this is what shows it, and with no tolerance in time to choose: an idle
 * CPU's wakeups (from interrupts) are the idle thread's however long ago
 * its last switch was, and a busy CPU's are its current thread's however
 * soon.  Before the CPU's first switch the thread running is the one that
 * switch takes off, so every wakeup there must have that one waker.  Only
 * in the recorders' traces (trace_info's backend kmod or bpf): others may
 * put a wakeup on the woken thread's CPU.
 */
static void on_wakeup(struct tl_check *c, const struct fxt_record *rec,
		      const struct sched_event *ev)
{
	uint64_t ts = ev->ts, waker = ev->wake.waker;
	struct tl_cpu *pc;

	/* An interrupt's wakeup names no waker: the task it interrupted is not one. */
	if (!c->wakers_here || ev->wake.ctx != KTRACE_CTX_TASK || !ev->wake.has_waker)
		return;
	pc = timeline_cpu(&c->tl, rec->cpu);
	if (!pc) {
		c->err = -ENOMEM;
		return;
	}
	if (pc->known) {
		if (waker != pc->tid)
			violation(c, &(struct tl_violation){ .kind = V_WAKER, .cpu = rec->cpu,
				  .ts = ts, .offset = rec->offset, .tid = waker, .tid2 = pc->tid,
				  .lo = pc->since, .hi = ts });
	} else if (!pc->pre) {
		pc->pre = true;
		pc->pre_waker = waker;
		pc->pre_ts = ts;
		pc->pre_off = rec->offset;
	} else if (waker != pc->pre_waker && !pc->pre_bad) {
		pc->pre_bad = true;
		violation(c, &(struct tl_violation){ .kind = V_WAKER_EARLY, .cpu = rec->cpu, .ts = ts,
			  .offset = rec->offset, .tid = waker, .tid2 = pc->pre_waker,
			  .lo = pc->pre_ts, .hi = ts });
	}
}

/*
 * trace_info: the span, in which the recorder's switches and wakeups all
 * lie, or the archive claims a time in which they were not recorded; and
 * the backend, which says where wakeups are recorded (on_wakeup()).
 */
static void on_trace_info(struct tl_check *c, const struct fxt_reader *r,
			  const struct fxt_record *rec)
{
	const struct fxt_arg *a = fxt_find_arg(rec, "start_ts");
	const struct fxt_arg *b = fxt_find_arg(rec, "stop_ts");
	const struct fxt_arg *be = fxt_find_arg(rec, "backend");

	c->wakers_here = be && be->type == KTRACE_FXT_ARG_STRING &&
			 (fxt_str_eq(be->s, "kmod") || fxt_str_eq(be->s, "bpf"));
	if (a && b && a->type == KTRACE_FXT_ARG_UINT64 && b->type == KTRACE_FXT_ARG_UINT64 &&
	    b->u >= a->u) {
		c->span_start = fxt_ticks_to_ns(r, a->u);
		c->span_stop = fxt_ticks_to_ns(r, b->u);
		c->have_span = true;
	}
}

/* A switch or wakeup outside the span.  (Events may come from elsewhere: ktrace merge's.) */
static void check_span(struct tl_check *c, const struct fxt_reader *r,
		       const struct fxt_record *rec)
{
	uint64_t ts = fxt_ticks_to_ns(r, rec->ts);

	if (c->have_span && (ts < c->span_start || ts > c->span_stop))
		violation(c, &(struct tl_violation){ .kind = V_OUTSIDE_SPAN, .cpu = rec->cpu,
			  .ts = ts, .offset = rec->offset, .lo = c->span_start,
			  .hi = c->span_stop });
}

/*
 * The recorder saw the thread blocked and no sched_waking of it before
 * this, its switch-in: the record stands for the wakeup it did not see.
 */
static void on_untraced_wakeup(struct tl_check *c, const struct fxt_record *rec)
{
	struct tl_thread *th = rec->tid ? thread_get(c, rec->tid) : NULL;

	c->untraced_wakeups++;
	if (rec->tid && !th)
		c->err = -ENOMEM;
	else if (th)
		th->woken = true;
}

int tl_check_record(struct tl_check *c, const struct fxt_reader *r, const struct fxt_record *rec)
{
	struct sched_event ev;
	enum tl_meta m;
	uint32_t cpu;

	switch (rec->type) {
	case KTRACE_FXT_REC_EVENT:
		if (fxt_str_eq(rec->cat, "ktrace:meta")) {
			if (fxt_str_eq(rec->name, "trace_info"))
				on_trace_info(c, r, rec);
			else if (fxt_str_eq(rec->name, "untraced_wakeup"))
				on_untraced_wakeup(c, rec);
		}
		m = timeline_meta(rec, &cpu);
		if (m != TL_META_NONE)
			on_meta(c, r, rec, m, cpu);
		break;
	case KTRACE_FXT_REC_SCHED:
		if (!sched_decode(r, rec, &ev))
			break;
		check_span(c, r, rec);
		if (ev.ts > c->last_ts)
			c->last_ts = ev.ts;
		if (ev.kind == SCHED_WAKEUP) {
			struct tl_thread *th = thread_get(c, ev.wake.tid);

			c->wakeups++;
			if (!th)
				c->err = -ENOMEM;
			else
				th->woken = true;
			on_wakeup(c, rec, &ev);
		} else {
			on_switch(c, rec, &ev);
		}
		break;
	}
	return c->err;
}

/*
 * Whether a record the check met only later says why: a loss on an unknown
 * CPU for any violation; for a missing wakeup, a loss or an untraced
 * stretch on any CPU (the waker may be the thread the kernel did not
 * trace); for a thread on two CPUs, one on the CPU it was left on.
 */
static bool explained(const struct tl_check *c, const struct tl_violation *v)
{
	for (uint32_t i = 0; i < c->nranges; i++) {
		const struct tl_range *g = &c->ranges[i];

		if (g->last < v->lo || g->first > v->hi)
			continue;
		switch (v->kind) {
		case V_BREAK:
			if (g->cpu == TL_CPU_UNKNOWN && !g->untraced)
				return true;
			break;
		case V_NO_WAKEUP:
			return true;
		case V_TWO_CPUS:
		case V_WAKER:
		case V_WAKER_EARLY:
			if (g->cpu == TL_CPU_UNKNOWN || g->cpu == v->cpu)
				return true;
			break;
		}
	}
	return false;
}

static void put_time(FILE *f, uint64_t ns)
{
	fprintf(f, "%llu.%09llu", (unsigned long long)(ns / 1000000000),
		(unsigned long long)(ns % 1000000000));
}

static void print_violation(FILE *f, const struct tl_violation *v)
{
	fputs("violation: ", f);
	put_time(f, v->ts);
	fprintf(f, " [%03u] ", v->cpu == TL_CPU_UNKNOWN ? 999 : v->cpu);
	switch (v->kind) {
	case V_BREAK:
		fprintf(f, "switches out tid %llu, but tid %llu was switched in (at ",
			(unsigned long long)v->tid2, (unsigned long long)v->tid);
		put_time(f, v->lo);
		fputs(") and no loss, untraced_switch or cpu_offline record says why", f);
		break;
	case V_NO_WAKEUP:
		fprintf(f, "switches in tid %llu, which blocked, with no wakeup since it last ran (at ",
			(unsigned long long)v->tid);
		put_time(f, v->lo);
		fputc(')', f);
		break;
	case V_TWO_CPUS:
		fprintf(f, "tid %llu switched in on CPU %u while it runs here until ",
			(unsigned long long)v->tid, v->cpu2);
		put_time(f, v->hi);
		break;
	case V_UNTRACED_MISMATCH:
		fprintf(f, "an untraced_switch record that does not match the break that follows (tid %llu switched in, tid %llu switched out)",
			(unsigned long long)v->tid, (unsigned long long)v->tid2);
		break;
	case V_UNTRACED_NO_BREAK:
		fprintf(f, "an untraced_switch record, but the next switch takes off tid %llu, the one switched in",
			(unsigned long long)v->tid2);
		break;
	case V_WAKER:
		fprintf(f, "a wakeup made by tid %llu, but the switches here have tid %llu on the CPU (since ",
			(unsigned long long)v->tid, (unsigned long long)v->tid2);
		put_time(f, v->lo);
		fputs("): a switch is missing, and no loss, untraced_switch or cpu_offline record says why",
		      f);
		break;
	case V_WAKER_EARLY:
		fprintf(f, "a wakeup made by tid %llu before the first switch here, but tid %llu ran here then (it made a wakeup here, or the first switch takes it off): switches were not recorded yet",
			(unsigned long long)v->tid, (unsigned long long)v->tid2);
		break;
	case V_OUTSIDE_SPAN:
		fputs("a record outside the recording's span (", f);
		put_time(f, v->lo);
		fputs(" to ", f);
		put_time(f, v->hi);
		fputs(", trace_info's start_ts and stop_ts)", f);
		break;
	}
	fprintf(f, " (offset %llu)\n", (unsigned long long)v->offset);
}

uint64_t tl_check_finish(struct tl_check *c, const struct fxt_reader *r, FILE *f)
{
	uint64_t bad = 0, cpus = 0;

	(void)r;
	/* Switched in elsewhere, and this CPU never switched again. */
	for (uint32_t i = 0; i < c->tl.ncpus; i++) {
		const struct tl_cpu *p = &c->tl.cpu[i];

		cpus += p->known;
		if (p->moved)
			violation(c, &(struct tl_violation){ .kind = V_TWO_CPUS, .cpu = i,
				  .cpu2 = p->moved_cpu, .ts = p->moved_ts, .offset = p->moved_off,
				  .tid = p->tid, .lo = p->moved_ts, .hi = c->last_ts });
	}
	for (uint32_t i = 0; i < c->nv; i++) {
		if (explained(c, &c->v[i])) {
			c->by_unknown += c->v[i].kind == V_BREAK;
			continue;
		}
		if (bad++ < 100)
			print_violation(f, &c->v[i]);
		else if (bad == 101)
			fputs("violation: more follow; only the count is printed\n", f);
	}
	fprintf(f, "timeline: %llu switches on %llu CPUs, %llu wakeups; %llu chain breaks: %llu after loss records on the CPU, %llu untraced_switch records (the kernel's), %llu cpu_offline/cpu_online records, %llu losses on unknown CPUs\n",
		(unsigned long long)c->switches, (unsigned long long)cpus,
		(unsigned long long)c->wakeups, (unsigned long long)c->breaks,
		(unsigned long long)c->by_loss, (unsigned long long)c->by_untraced,
		(unsigned long long)c->by_cpu_line, (unsigned long long)c->by_unknown);
	if (c->untraced_wakeups)
		fprintf(f, "timeline: %llu untraced_wakeup records (a blocked thread ran again with no sched_waking the recorder saw)\n",
			(unsigned long long)c->untraced_wakeups);
	fprintf(f, "timeline: %llu unexplained violations%s\n", (unsigned long long)bad,
		c->err ? " (the check ran out of memory: incomplete)" : "");
	return bad + (c->err != 0);
}
