// SPDX-License-Identifier: GPL-2.0
/*
 * Critical path of a thread's waits, in the same streaming pass as the
 * latency analysis.  Each thread keeps a short history of what it did
 * (running on a CPU, runnable, blocked in a kernel function until woken
 * by someone); when a selected thread is switched in after a wait that
 * makes the list (the --top worst, or the one holding --at), the wait is
 * explained at once, from history that is all in the past by then:
 *
 *   walk(T, [lo, hi]): T's segments from hi back to lo.  Running: on the
 *   path.  Runnable: blamed on what held the CPU it got (threads with
 *   their priority, interrupt handlers, idle).  Blocked: woken by a thread
 *   W at the segment's end -> walk(W, [segment start, wakeup]); woken by
 *   an interrupt -> the chain ends there, at the interrupt, named.
 *
 * Guards: a thread already on the chain (a cycle), CP_MAX_DEPTH levels,
 * CP_MAX_HOPS hops per wait; history that does not reach back (a thread's
 * CP_HIST segments, the trace's start, lost records) is a hop that says so.
 * Memory: CP_HIST segments per thread plus --top paths of at most
 * CP_MAX_HOPS hops, whatever the length of the trace.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/annotate.h"
#include "analyze/critical_path.h"
#include "cli/cli.h"
#include "fxt/fxt_writer.h"
#include "lib/topn.h"
#include "lib/u64map.h"
#include "trace/json_writer.h"
#include "trace/kstack_names.h"
#include "trace/sched.h"

#define CP_HIST		32		/* segments of history per thread: a power of two */
#define CP_MAX_DEPTH	16
#define CP_MAX_HOPS	512

enum cp_state { CP_UNKNOWN, CP_RUNNING, CP_RUNNABLE, CP_BLOCKED, CP_DEAD, CP_MISSING };

enum cp_note {
	CP_NOTE_NONE,
	CP_NOTE_IRQ,		/* woken by an interrupt: the chain ends */
	CP_NOTE_NO_WAKER,	/* switched in without a recorded wakeup */
	CP_NOTE_CYCLE,		/* the waker is already on the chain */
	CP_NOTE_DEPTH,		/* CP_MAX_DEPTH reached */
	CP_NOTE_HISTORY,	/* the thread's kept history does not reach back */
	CP_NOTE_BEFORE_TRACE,	/* before the thread's first record */
	CP_NOTE_LOSS,		/* records were lost in this span */
	CP_NOTE_TRUNCATED,	/* CP_MAX_HOPS reached */
	CP_NOTE_GAP,		/* between two of the thread's records: none of its own */
};

static const char *const note_text[] = {
	[CP_NOTE_NONE] = "",
	[CP_NOTE_IRQ] = "",
	[CP_NOTE_NO_WAKER] = "no wakeup recorded",
	[CP_NOTE_CYCLE] = "the waker is already on this chain (cycle): not followed",
	[CP_NOTE_DEPTH] = "too deep: not followed",
	[CP_NOTE_HISTORY] = "history not kept this far back",
	[CP_NOTE_BEFORE_TRACE] = "before its first record",
	[CP_NOTE_LOSS] = "records lost here",
	[CP_NOTE_TRUNCATED] = "more hops than kept",
	[CP_NOTE_GAP] = "nothing recorded for this thread here",
};

/* One span of a thread's past. */
struct cp_seg {
	uint64_t start, end;
	uint64_t waker;			/* blocked: the waker, or the task an interrupt hit */
	uint64_t kstack;		/* blocked: where, 0 if not recorded */
	int32_t cpu;			/* running: on; runnable: got; -1 not known */
	int32_t waker_irq;		/* blocked: the handler that woke it, -1 if not recorded */
	uint64_t timer_due, timer_fired;	/* blocked: its sleeper timer's, 0 if not that */
	uint8_t state;			/* enum cp_state */
	uint8_t linux_state;		/* blocked: KTRACE_LINUX_* */
	uint8_t waker_ctx;		/* blocked: enum ktrace_irq_context */
	bool has_waker;
	bool before_trace;		/* began before the thread's first record */
	/* runnable: the run queue it was on first, and its moves since */
	int32_t queue_cpu;		/* -1 not known */
	uint32_t moves;
	struct lat_migration last_move;
};

struct cp_thread {
	uint64_t tid;
	struct cp_seg cur;		/* open: end not known yet */
	struct cp_seg *hist;		/* CP_HIST, allocated on first use */
	uint64_t nhist;			/* segments ever closed */
	int32_t queue_cpu;		/* the run queue it is on (switch-outs, moves) */
};

struct cp_hop {
	uint64_t tid, start, end;
	uint32_t parent;		/* UINT32_MAX: the waiting thread's own */
	uint8_t depth, note;
	struct cp_seg seg;		/* what the thread was doing */
};

struct cp_path {
	uint64_t tid, start, end;	/* the wait: switch-out to switch-in */
	uint32_t nhops;
	bool lossy;
	struct cp_hop *hops;
};

struct cp_analysis {
	struct lat_analysis *a;
	struct cp_opts o;
	struct cp_thread *threads;
	uint32_t nthreads, cap_threads;
	struct u64map thread_map;	/* tid to index into threads */
	struct cp_path *paths;		/* min-heap by length while reading */
	struct topn worst;		/* its heap: items are paths */
	struct cp_path scratch;
	uint64_t chain[CP_MAX_DEPTH + 1];
	uint64_t now;
};

static uint64_t path_ns(const struct cp_path *p)
{
	return p->end - p->start;
}

static uint64_t path_key(const void *p)
{
	return path_ns(p);
}

struct cp_analysis *cp_new(struct lat_analysis *a, const struct cp_opts *o)
{
	struct cp_analysis *cp = xcalloc(1, sizeof(*cp), "the critical path");

	cp->a = a;
	cp->o = *o;
	if (cp->o.at)
		cp->o.top = 1;
	cp->paths = xcalloc(cp->o.top, sizeof(*cp->paths), "the critical paths");
	cp->worst = (struct topn){ .items = cp->paths, .max = cp->o.top,
				   .size = sizeof(*cp->paths), .key = path_key };
	cp->scratch.hops = xcalloc(CP_MAX_HOPS, sizeof(struct cp_hop), "the critical path's hops");
	return cp;
}

void cp_free(struct cp_analysis *cp)
{
	if (!cp)
		return;
	for (uint32_t i = 0; i < cp->nthreads; i++)
		free(cp->threads[i].hist);
	for (uint32_t i = 0; i < cp->worst.n; i++)
		free(cp->paths[i].hops);
	free(cp->paths);
	free(cp->scratch.hops);
	free(cp->threads);
	u64map_free(&cp->thread_map);
	free(cp);
}

/* ---- threads ------------------------------------------------------------ */

static struct cp_thread *thread_find(struct cp_analysis *cp, uint64_t tid)
{
	uint32_t i = u64map_find(&cp->thread_map, tid);

	return i == U64MAP_NONE ? NULL : &cp->threads[i];
}

static struct cp_thread *thread_get(struct cp_analysis *cp, uint64_t tid)
{
	struct cp_thread *t;
	bool added;

	t = u64map_vec_get(&cp->thread_map, tid, &cp->threads, &cp->nthreads, &cp->cap_threads,
			   sizeof(*t), &added);
	if (!t)
		out_of_memory("the critical path's threads");
	if (!added)
		return t;
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->cur.cpu = -1;
	t->cur.waker_irq = -1;
	t->cur.queue_cpu = -1;
	t->queue_cpu = -1;
	t->cur.before_trace = true;
	return t;
}

/* Ends the open segment at @ts (kept in the history) and opens one in @state. */
static struct cp_seg *next_seg(struct cp_thread *t, uint64_t ts, uint8_t state)
{
	if (t->cur.state != CP_UNKNOWN && t->cur.state != CP_DEAD && ts >= t->cur.start) {
		if (!t->hist)
			t->hist = xcalloc(CP_HIST, sizeof(*t->hist), "the critical path's thread history");
		t->cur.end = ts;
		t->hist[t->nhist++ & (CP_HIST - 1)] = t->cur;
	}
	memset(&t->cur, 0, sizeof(t->cur));
	t->cur.start = ts;
	t->cur.state = state;
	t->cur.cpu = -1;
	t->cur.waker_irq = -1;
	t->cur.queue_cpu = t->queue_cpu;
	return &t->cur;
}

/* ---- the walk ----------------------------------------------------------- */

static struct cp_hop *add_hop(struct cp_analysis *cp, struct cp_path *p, uint64_t tid,
			      uint64_t start, uint64_t end, uint32_t parent, unsigned int depth,
			      const struct cp_seg *seg, uint8_t note)
{
	struct cp_hop *h;

	if (p->nhops >= CP_MAX_HOPS) {
		p->hops[CP_MAX_HOPS - 1].note = CP_NOTE_TRUNCATED;
		return NULL;
	}
	h = &p->hops[p->nhops++];
	memset(h, 0, sizeof(*h));
	h->tid = tid;
	h->start = start;
	h->end = end;
	h->parent = parent;
	h->depth = depth;
	h->note = note;
	if (seg)
		h->seg = *seg;
	else
		h->seg.state = CP_MISSING;
	if (lat_overlaps_loss(cp->a, start, end)) {
		p->lossy = true;
		if (!h->note)
			h->note = CP_NOTE_LOSS;
	}
	return h;
}

static bool on_chain(const struct cp_analysis *cp, unsigned int depth, uint64_t tid)
{
	for (unsigned int i = 0; i <= depth; i++)
		if (cp->chain[i] == tid)
			return true;
	return false;
}

/* Explains what thread @tid did during [lo, hi], newest first (see the top). */
static void walk(struct cp_analysis *cp, struct cp_path *p, uint64_t tid, uint64_t lo,
		 uint64_t hi, uint32_t parent, unsigned int depth)
{
	struct cp_thread *t = thread_find(cp, tid);
	uint64_t cursor = hi, oldest;
	uint8_t note = CP_NOTE_HISTORY;

	cp->chain[depth] = tid;
	if (!t) {
		add_hop(cp, p, tid, lo, hi, parent, depth, NULL, CP_NOTE_BEFORE_TRACE);
		return;
	}
	oldest = t->nhist > CP_HIST ? t->nhist - CP_HIST : 0;
	for (uint64_t k = t->nhist + 1; k > oldest && cursor > lo; k--) {
		struct cp_seg seg = k == t->nhist + 1 ? t->cur : t->hist[(k - 1) & (CP_HIST - 1)];
		uint64_t s, e;
		uint32_t self;
		struct cp_hop *h;

		if (k == t->nhist + 1) {
			if (seg.state == CP_UNKNOWN || seg.state == CP_DEAD)
				continue;
			seg.end = cp->now;
		}
		if (seg.start >= cursor)
			continue;
		if (seg.end < cursor)	/* nothing recorded in between */
			add_hop(cp, p, tid, seg.end > lo ? seg.end : lo, cursor, parent, depth, NULL,
				CP_NOTE_GAP);
		s = seg.start > lo ? seg.start : lo;
		e = seg.end < cursor ? seg.end : cursor;
		if (e > s) {
			self = p->nhops;
			h = add_hop(cp, p, tid, s, e, parent, depth, &seg, CP_NOTE_NONE);
			if (!h)
				return;
			if (seg.state == CP_BLOCKED) {
				if (seg.waker_ctx != KTRACE_CTX_TASK)
					h->note = CP_NOTE_IRQ;
				else if (!seg.has_waker)
					h->note = CP_NOTE_NO_WAKER;
				else if (depth >= CP_MAX_DEPTH)
					h->note = CP_NOTE_DEPTH;
				else if (on_chain(cp, depth, seg.waker))
					h->note = CP_NOTE_CYCLE;
				else if (e == seg.end)
					walk(cp, p, seg.waker, s, e, self, depth + 1);
			}
		}
		cursor = s;
		if (seg.before_trace) {
			note = CP_NOTE_BEFORE_TRACE;
			break;
		}
	}
	/* Nothing was written over: the oldest segment is the thread's first. */
	if (t->nhist <= CP_HIST)
		note = CP_NOTE_BEFORE_TRACE;
	if (cursor > lo)
		add_hop(cp, p, tid, lo, cursor, parent, depth, NULL, note);
}

/* ---- the waits ---------------------------------------------------------- */

/* @t waited off CPU during [start, end]: explain it if it makes the list. */
static void consider(struct cp_analysis *cp, uint64_t tid, uint64_t start, uint64_t end)
{
	struct cp_path *p = &cp->scratch, *slot;
	struct cp_hop *hops;

	if (!cp->o.top)
		return;
	if (cp->o.at && (cp->o.at < start || cp->o.at > end))
		return;
	if (!cp->o.at && !topn_wants(&cp->worst, end - start))
		return;
	/* The filter last: most waits are not long enough to need it. */
	if ((cp->o.tid >= 0 && (uint64_t)cp->o.tid != tid) || !lat_selects(cp->a, tid))
		return;
	p->tid = tid;
	p->start = start;
	p->end = end;
	p->nhops = 0;
	p->lossy = false;
	walk(cp, p, tid, start, end, UINT32_MAX, 0);
	hops = xcalloc(p->nhops, sizeof(*hops), "the critical path's hops");
	memcpy(hops, p->hops, p->nhops * sizeof(*hops));
	slot = topn_slot(&cp->worst);
	if (cp->worst.n == cp->o.top)
		free(slot->hops);	/* the shortest, replaced */
	*slot = *p;
	slot->hops = hops;
	topn_placed(&cp->worst);
}

/*
 * Recorders give where a thread blocked at the switch-in that ends the
 * block (incoming_kstack): its last span before this one, if blocked, or
 * the one before it, if woken since.
 */
static void name_block(struct cp_thread *t, uint32_t kstack)
{
	struct cp_seg *s = &t->cur;

	if (!kstack)
		return;
	if (s->state == CP_RUNNABLE && t->nhist)
		s = &t->hist[(t->nhist - 1) & (CP_HIST - 1)];
	if (s->state == CP_BLOCKED && !s->kstack)
		s->kstack = kstack;
}

static void on_switch(struct cp_analysis *cp, const struct sched_event *ev)
{
	const struct sched_switch *sw = &ev->sw;
	uint64_t ts = ev->ts, off;
	struct cp_thread *t;
	struct cp_seg *s;
	uint32_t state;

	if (sw->out_tid) {
		t = thread_get(cp, sw->out_tid);
		/* A thread first seen leaving a CPU ran since before the trace. */
		if (t->cur.state == CP_UNKNOWN) {
			t->cur.state = CP_RUNNING;
			t->cur.start = 0;
		}
		t->cur.cpu = ev->cpu;
		t->queue_cpu = ev->cpu;
		state = sw->out_state;
		if (state == KTRACE_LINUX_RUNNING) {
			next_seg(t, ts, CP_RUNNABLE);
		} else if (state == KTRACE_LINUX_ZOMBIE || state == KTRACE_LINUX_DEAD) {
			next_seg(t, ts, CP_DEAD);
		} else {
			s = next_seg(t, ts, CP_BLOCKED);
			s->linux_state = state;
			s->kstack = sw->kstack;
		}
	}
	if (!sw->in_tid)
		return;
	t = thread_get(cp, sw->in_tid);
	name_block(t, sw->in_kstack);
	off = t->cur.start;
	state = t->cur.state;
	/* Woken when first seen: when it left the CPU is not known. */
	if (t->cur.before_trace)
		off = 0;
	if (state == CP_RUNNABLE || state == CP_BLOCKED)
		t->cur.cpu = ev->cpu;
	/* A wait is off CPU from the switch-out: the blocked and runnable spans before now. */
	if (state == CP_RUNNABLE && t->nhist) {
		const struct cp_seg *prev = &t->hist[(t->nhist - 1) & (CP_HIST - 1)];

		if (prev->state == CP_BLOCKED)
			off = prev->start;
	}
	s = next_seg(t, ts, CP_RUNNING);
	s->cpu = ev->cpu;
	if ((state == CP_RUNNABLE || state == CP_BLOCKED) && off && ts > off)
		consider(cp, sw->in_tid, off, ts);
}

static void on_wakeup(struct cp_analysis *cp, const struct sched_event *ev,
		      const struct lat_transition *tr)
{
	const struct sched_wakeup *wk = &ev->wake;
	struct cp_thread *t = thread_get(cp, wk->tid);
	struct cp_seg *s;

	if (t->cur.state != CP_BLOCKED && t->cur.state != CP_UNKNOWN)
		return;
	if (t->cur.state == CP_BLOCKED) {
		t->cur.waker_ctx = wk->ctx;
		t->cur.has_waker = wk->has_waker;
		t->cur.waker = wk->waker;
		t->cur.waker_irq = tr->waker_irq;
		t->cur.timer_due = tr->timer_due;
		t->cur.timer_fired = tr->timer_fired;
	}
	s = next_seg(t, ev->ts, CP_RUNNABLE);
	/* First seen waking up: it went to sleep before the trace. */
	s->before_trace = !t->nhist;
}

/* A move to another run queue: a runnable span is split where it happens. */
static void on_migrate(struct cp_analysis *cp, const struct sched_event *ev)
{
	struct cp_thread *t = thread_get(cp, ev->mig.tid);
	struct lat_migration m = {
		.ts = ev->ts,
		.from = ev->mig.from,
		.to = ev->mig.to,
	};

	t->queue_cpu = m.to;
	if (t->cur.state != CP_RUNNABLE)
		return;
	t->cur.moves++;
	t->cur.last_move = m;
}

void cp_event(struct cp_analysis *cp, const struct sched_event *ev,
	      const struct lat_transition *tr)
{
	if (ev->kind == SCHED_MIGRATE) {
		on_migrate(cp, ev);
		return;
	}
	if (ev->kind != SCHED_SWITCH && ev->kind != SCHED_WAKEUP)
		return;
	if (ev->ts > cp->now)
		cp->now = ev->ts;
	if (ev->kind == SCHED_WAKEUP)
		on_wakeup(cp, ev, tr);
	else
		on_switch(cp, ev);
}
static int cmp_worst(const void *x, const void *y)
{
	const struct cp_path *p = x, *q = y;

	return path_ns(p) > path_ns(q) ? -1 : path_ns(p) < path_ns(q);
}

void cp_done(struct cp_analysis *cp)
{
	qsort(cp->paths, cp->worst.n, sizeof(*cp->paths), cmp_worst);
}

/* ---- reports ------------------------------------------------------------ */

/* Sleeps that end when a timer fires, by the function they block in. */
static bool timed_sleep(const char *fn)
{
	static const char *const timed[] = {
		"do_nanosleep", "hrtimer_nanosleep", "msleep", "usleep_range", "schedule_timeout",
		"schedule_hrtimeout", "do_sys_poll", "do_select", "ep_poll", "futex_wait",
		"poll_schedule_timeout", "do_epoll_wait",
	};

	for (size_t i = 0; fn && i < ARRAY_SIZE(timed); i++)
		if (!strncmp(fn, timed[i], strlen(timed[i])))
			return true;
	return false;
}

static const char *blocked_in(struct cp_analysis *cp, const struct cp_seg *s)
{
	return s->kstack ? lat_blocked_in_name(cp->a, s->kstack) : NULL;
}

/* The interrupt that woke a blocked span: its handler if recorded, else its kind. */
static void put_irq(struct cp_analysis *cp, struct obuf *o, const struct cp_seg *s)
{
	const char *name = lat_irq_name(cp->a, s->waker_irq);

	if (name)
		obuf_printf(o, "%s (%s)", name, ktrace_irq_context_name(s->waker_ctx));
	/* On PREEMPT_RT a task's sleep timer expires in the timer softirq. */
	else if (s->timer_fired ||
		 ((s->waker_ctx == KTRACE_CTX_HARDIRQ || s->waker_ctx == KTRACE_CTX_SOFTIRQ) &&
		  timed_sleep(blocked_in(cp, s))))
		obuf_printf(o, "timer expiry (%s)", ktrace_irq_context_name(s->waker_ctx));
	else
		obuf_printf(o, "%s, handler not recorded", ktrace_irq_context_name(s->waker_ctx));
	/* The hop ends with how late its timer fired (timer_latency.c). */
	if (s->timer_fired) {
		obuf_lit(o, ", fired ");
		lat_put_dur(o, s->timer_fired - s->timer_due);
		obuf_lit(o, " late");
	}
}

static const char *state_name(const struct cp_seg *s, char *buf)
{
	switch (s->state) {
	case CP_RUNNING:
		return "running";
	case CP_RUNNABLE:
		return "runnable";
	case CP_BLOCKED:
		buf[0] = KTRACE_LINUX_STATE_LETTERS[s->linux_state <= KTRACE_LINUX_STATE_MAX ?
						    s->linux_state : 1];
		buf[1] = 0;
		return buf;
	default:
		return "unknown";
	}
}

/* A runnable hop's blame, split at its moves between run queues. */
static void hop_blame(struct cp_analysis *cp, const struct cp_hop *h, struct lat_wait *w)
{
	const struct cp_seg *s = &h->seg;

	lat_blame_span(cp->a, h->tid, s->cpu, h->start, h->end, w);
	/* A hop is a part of its segment: moves outside it do not count. */
	if (s->moves && s->last_move.ts > h->start && s->last_move.ts < h->end)
		lat_span_moved(cp->a, w, s->queue_cpu, &s->last_move, s->moves);
	else if (s->moves && s->last_move.ts <= h->start)
		lat_span_moved(cp->a, w, s->cpu, NULL, 0);
	else
		lat_span_moved(cp->a, w, s->queue_cpu >= 0 ? s->queue_cpu : s->cpu, NULL, 0);
}

/* What a hop's thread was doing, in words, without its name and span. */
static void hop_text(struct cp_analysis *cp, const struct cp_hop *h, struct obuf *o)
{
	const struct cp_seg *s = &h->seg;
	struct lat_wait w;
	const char *fn;
	char buf[2];

	switch (s->state) {
	case CP_RUNNING:
		obuf_printf(o, "running on CPU %d", s->cpu);
		break;
	case CP_RUNNABLE:
		if (s->cpu < 0) {
			obuf_lit(o, "runnable (not yet running)");
			break;
		}
		hop_blame(cp, h, &w);
		if (w.nmig) {
			/* Moved between run queues: each one's share, not the last CPU's. */
			obuf_lit(o, "runnable: ");
			lat_where_line(cp->a, &w, o);
		} else {
			obuf_printf(o, "runnable on CPU %d behind ", s->cpu);
			lat_blame_line(cp->a, &w, o);
		}
		obuf_lit(o, "; causes: ");
		lat_causes_text(&w, o);
		break;
	case CP_BLOCKED:
		obuf_printf(o, "blocked (%s)", state_name(s, buf));
		fn = blocked_in(cp, s);
		if (fn)
			obuf_printf(o, " in %s", fn);
		if (h->note == CP_NOTE_IRQ) {
			obuf_lit(o, ", woken by interrupt: ");
			put_irq(cp, o, s);
		} else if (s->has_waker) {
			obuf_printf(o, ", woken by %s %llu", lat_thread_name(cp->a, s->waker),
				    (unsigned long long)s->waker);
		}
		break;
	default:
		obuf_lit(o, "not known");
	}
	if (h->note != CP_NOTE_NONE && h->note != CP_NOTE_IRQ)
		obuf_printf(o, "%s%s", o->len ? "; " : "", note_text[h->note]);
}

static void put_ms(struct obuf *o, uint64_t ns)
{
	obuf_printf(o, "%.3f ms", ns / 1e6);
}

/* @parent's hops in time order, each followed by the hops that explain it. */
static void put_hops(struct cp_analysis *cp, struct obuf *o, const struct cp_path *p,
		     uint32_t parent, struct obuf *line)
{
	/* A parent's hops were added newest first: print them the other way round. */
	for (uint32_t i = p->nhops; i-- > 0;) {
		const struct cp_hop *h = &p->hops[i];

		if (h->parent != parent)
			continue;
		line->len = 0;
		hop_text(cp, h, line);
		obuf_printf(o, "%*s+%9.3f %9.3f  %s %llu  ", 2 + 2 * h->depth, "",
			    (h->start - p->start) / 1e6, (h->end - h->start) / 1e6,
			    h->tid ? lat_thread_name(cp->a, h->tid) : "idle",
			    (unsigned long long)h->tid);
		obuf_put(o, line->buf, line->len);
		obuf_putc(o, '\n');
		put_hops(cp, o, p, i, line);
	}
}

static void put_ts(struct obuf *o, uint64_t ns)
{
	obuf_printf(o, "%llu.%09llu", (unsigned long long)(ns / 1000000000),
		    (unsigned long long)(ns % 1000000000));
}

void cp_report_text(struct cp_analysis *cp, struct obuf *o, const char *path)
{
	struct obuf line;

	if (obuf_init(&line, -1, 256))
		return;
	obuf_printf(o, "%s: critical path of %s %u wait%s of the selected threads (off CPU: switch-out to switch-in)\n",
		    path, cp->o.at ? "the" : "the worst", cp->worst.n, cp->worst.n == 1 ? "" : "s");
	lat_put_cut_text(cp->a, o);
	/* Not obuf_lit(): the size of a ?: of two literals is a pointer's. */
	if (!cp->worst.n)
		obuf_puts(o, cp->o.at ? "no selected thread was waiting at that time\n" :
			  "no wait of a selected thread was recorded\n");
	for (uint32_t i = 0; i < cp->worst.n; i++) {
		const struct cp_path *p = &cp->paths[i];

		obuf_printf(o, "\n%s %llu waited ", lat_thread_name(cp->a, p->tid),
			    (unsigned long long)p->tid);
		put_ms(o, path_ns(p));
		obuf_lit(o, " from ");
		put_ts(o, p->start);
		obuf_lit(o, " to ");
		put_ts(o, p->end);
		obuf_printf(o, "%s\n  %10s %9s  THREAD, WHAT IT DID\n",
			    p->lossy ? " (records were lost meanwhile)" : "", "+START(ms)", "FOR(ms)");
		put_hops(cp, o, p, UINT32_MAX, &line);
	}
	obuf_free(&line);
}

/* A runnable hop's causes, named and in ns as in latency --json. */
static void json_causes(struct cp_analysis *cp, struct obuf *o, const struct cp_hop *h)
{
	struct lat_wait w;

	hop_blame(cp, h, &w);
	obuf_lit(o, ",\"causes\":{");
	for (unsigned int k = 0; k < LAT_CAUSES; k++)
		obuf_printf(o, "%s\"%s\":%llu", k ? "," : "", lat_cause_name(k),
			    (unsigned long long)w.causes[k]);
	obuf_putc(o, '}');
	lat_throttled_json(&w, o);
}

void cp_report_json(struct cp_analysis *cp, struct obuf *o, const char *path)
{
	struct obuf line;
	char buf[2];

	if (obuf_init(&line, -1, 256))
		return;
	obuf_lit(o, "{\"trace\":");
	obuf_json_str(o, path, strlen(path));
	lat_put_cut_json(cp->a, o);
	obuf_lit(o, ",\"paths\":[");
	for (uint32_t i = 0; i < cp->worst.n; i++) {
		const struct cp_path *p = &cp->paths[i];

		obuf_printf(o, "%s\n{\"tid\":%llu", i ? "," : "", (unsigned long long)p->tid);
		obuf_json_kv_str(o, "comm", lat_thread_name(cp->a, p->tid));
		obuf_printf(o, ",\"start\":%llu,\"end\":%llu,\"lossy\":%s,\"hops\":[",
			    (unsigned long long)p->start, (unsigned long long)p->end,
			    p->lossy ? "true" : "false");
		for (uint32_t j = 0; j < p->nhops; j++) {
			const struct cp_hop *h = &p->hops[j];
			const char *fn = h->seg.state == CP_BLOCKED ? blocked_in(cp, &h->seg) : NULL;

			obuf_printf(o, "%s\n {\"id\":%u,\"parent\":%d,\"depth\":%u,\"tid\":%llu", j ? "," : "",
				    j, h->parent == UINT32_MAX ? -1 : (int)h->parent, h->depth,
				    (unsigned long long)h->tid);
			obuf_json_kv_str(o, "comm", h->tid ? lat_thread_name(cp->a, h->tid) : "idle");
			obuf_printf(o, ",\"start\":%llu,\"end\":%llu", (unsigned long long)h->start,
				    (unsigned long long)h->end);
			obuf_json_kv_str(o, "state", h->seg.state == CP_MISSING ? "missing" :
				 state_name(&h->seg, buf));
			if (h->seg.cpu >= 0)
				obuf_printf(o, ",\"cpu\":%d", h->seg.cpu);
			if (fn)
				obuf_json_kv_str(o, "blocked_in", fn);
			if (h->seg.state == CP_RUNNABLE && h->seg.cpu >= 0)
				json_causes(cp, o, h);
			if (h->seg.state == CP_BLOCKED && h->note != CP_NOTE_IRQ && h->seg.has_waker) {
				obuf_printf(o, ",\"woken_by\":%llu", (unsigned long long)h->seg.waker);
				obuf_json_kv_str(o, "woken_by_comm", lat_thread_name(cp->a, h->seg.waker));
			}
			if (h->note == CP_NOTE_IRQ) {
				line.len = 0;
				put_irq(cp, &line, &h->seg);
				obuf_putc(&line, 0);
				obuf_json_kv_str(o, "woken_from", ktrace_irq_context_name(h->seg.waker_ctx));
				obuf_json_kv_str(o, "interrupt", line.buf);
				if (h->seg.timer_fired)
					obuf_printf(o, ",\"timer_due\":%llu,\"timer_fired\":%llu,"
						    "\"timer_late\":%llu",
						    (unsigned long long)h->seg.timer_due,
						    (unsigned long long)h->seg.timer_fired,
						    (unsigned long long)(h->seg.timer_fired -
									 h->seg.timer_due));
			}
			line.len = 0;
			hop_text(cp, h, &line);
			obuf_putc(&line, 0);
			obuf_json_kv_str(o, "text", line.buf);
			if (h->note != CP_NOTE_NONE && h->note != CP_NOTE_IRQ)
				obuf_json_kv_str(o, "note", note_text[h->note]);
			obuf_putc(o, '}');
		}
		obuf_lit(o, "]}");
	}
	obuf_lit(o, "]}\n");
	obuf_free(&line);
}

/* ---- the path written into the trace ------------------------------------ */

/* What the trace gets, in time order: a hop's slice, or one end of a flow. */
struct cp_slice {
	uint64_t ts, flow;		/* flow: its id, 0 for the slice */
	uint32_t path, hop;
	uint8_t type;			/* KTRACE_FXT_EV_DURATION_COMPLETE or a flow's */
};

static int cmp_slice(const void *x, const void *y)
{
	const struct cp_slice *p = x, *q = y;

	if (p->ts != q->ts)
		return p->ts < q->ts ? -1 : 1;
	/* A slice before the flows that bind to it. */
	return (p->type == KTRACE_FXT_EV_DURATION_COMPLETE ? 0 : 1) -
	       (q->type == KTRACE_FXT_EV_DURATION_COMPLETE ? 0 : 1);
}

/*
 * A hop as a complete event on its thread's track, named after what the
 * thread did; a flow runs from the hop that ended a blocked span (the
 * waker's, at the wakeup) to that span, each end at the last nanosecond
 * of its slice, where it binds.
 */
static void write_slice(struct cp_analysis *cp, struct fxt_writer *w, const struct fxt_reader *r,
			const struct cp_slice *sl, struct obuf *text)
{
	const struct cp_path *p = &cp->paths[sl->path];
	const struct cp_hop *h = &p->hops[sl->hop];
	uint64_t pid = lat_thread_pid(cp->a, h->tid);
	struct fxt_arg args[4];
	char name[64], buf[2];
	const char *fn;

	if (sl->type != KTRACE_FXT_EV_DURATION_COMPLETE) {
		fxt_write_event(w, sl->type, fxt_ns_to_ticks(r, sl->ts), pid, h->tid,
				"ktrace:critical_path", "wakeup", NULL, 0, sl->flow);
		return;
	}
	hop_text(cp, h, text);
	obuf_putc(text, 0);
	fn = h->seg.state == CP_BLOCKED ? blocked_in(cp, &h->seg) : NULL;
	if (fn)
		snprintf(name, sizeof(name), "%s in %s", state_name(&h->seg, buf), fn);
	else
		snprintf(name, sizeof(name), "%s", h->seg.state == CP_MISSING ? "not known" :
			 state_name(&h->seg, buf));
	args[0] = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "path", sl->path);
	args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "depth", h->depth);
	args[2] = fxt_arg_int(KTRACE_FXT_ARG_KOID, "waiting_thread", p->tid);
	args[3] = fxt_arg_str("what", text->buf);
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_COMPLETE, fxt_ns_to_ticks(r, h->start), pid, h->tid,
			"ktrace:critical_path", name, args, 4, fxt_ns_to_ticks(r, h->end));
}

static struct cp_slice flow_end(const struct cp_path *p, uint32_t k, uint32_t hop, uint8_t type,
				uint64_t id)
{
	const struct cp_hop *h = &p->hops[hop];

	return (struct cp_slice){ .ts = h->end > h->start ? h->end - 1 : h->start, .flow = id,
				  .path = k, .hop = hop, .type = type };
}

struct cp_annotation {
	struct cp_analysis *cp;
	const struct cp_slice *sl;
};

static uint64_t slice_ts(void *ctx, uint32_t i)
{
	const struct cp_annotation *ca = ctx;

	return ca->sl[i].ts;
}

static void write_one(void *ctx, struct fxt_writer *w, const struct fxt_reader *r, uint32_t i,
		      struct obuf *text)
{
	const struct cp_annotation *ca = ctx;

	write_slice(ca->cp, w, r, &ca->sl[i], text);
}

int cp_annotate(struct cp_analysis *cp, struct cli_input *in, const char *out_path, bool json)
{
	struct cp_annotation ca = { .cp = cp };
	struct annotation an = { .ctx = &ca, .ts = slice_ts, .write = write_one };
	struct cp_slice *sl;
	uint32_t n = 0;
	uint64_t flow = 0;
	int ret;

	for (uint32_t k = 0; k < cp->worst.n; k++)
		n += 3 * cp->paths[k].nhops;	/* a slice, at most two flow ends */
	sl = xcalloc(n, sizeof(*sl), "the critical path's slices");
	n = 0;
	for (uint32_t k = 0; k < cp->worst.n; k++) {
		const struct cp_path *p = &cp->paths[k];

		for (uint32_t j = 0; j < p->nhops; j++)
			sl[n++] = (struct cp_slice){ .ts = p->hops[j].start, .path = k, .hop = j,
						     .type = KTRACE_FXT_EV_DURATION_COMPLETE };
		/* The waker's latest hop inside a blocked span flows into it. */
		for (uint32_t j = 0; j < p->nhops; j++) {
			const struct cp_hop *h = &p->hops[j];
			uint32_t latest = UINT32_MAX;

			if (h->seg.state != CP_BLOCKED)
				continue;
			for (uint32_t c = j + 1; c < p->nhops; c++)
				if (p->hops[c].parent == j &&
				    (latest == UINT32_MAX || p->hops[c].end > p->hops[latest].end))
					latest = c;
			if (latest == UINT32_MAX || !p->hops[latest].tid)
				continue;
			flow++;
			sl[n++] = flow_end(p, k, latest, KTRACE_FXT_EV_FLOW_BEGIN, flow);
			sl[n++] = flow_end(p, k, j, KTRACE_FXT_EV_FLOW_END, flow);
		}
	}
	qsort(sl, n, sizeof(*sl), cmp_slice);
	ca.sl = sl;
	an.n = n;
	ret = trace_annotate(in, out_path, json, &an);
	free(sl);
	if (!ret)
		pr_info("wrote %s: the trace with the critical path of %u waits (category ktrace:critical_path)",
			out_path, cp->worst.n);
	return ret;
}

uint32_t cp_count(const struct cp_analysis *cp)
{
	return cp->worst.n;
}
