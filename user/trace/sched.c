// SPDX-License-Identifier: GPL-2.0
/* The scheduling records of a ktrace archive, decoded once (sched.h). */
#include <string.h>

#include "fxt/fxt_compact.h"
#include "trace/sched.h"
#include "trace/timeline.h"

static bool name_is(const struct fxt_arg *x, const char *lit, uint32_t len)
{
	return x->name.len == len && !memcmp(x->name.p, lit, len);
}

/* An argument's value if it has @type, else @dflt. */
static uint64_t arg_of(const struct fxt_arg *x, unsigned int type, uint64_t dflt)
{
	return x && x->type == type ? x->u : dflt;
}

uint32_t sched_linux_state(const struct fxt_record *rec)
{
	const struct fxt_arg *x = fxt_find_arg(rec, "linux_state");
	int state;

	if (x && x->type == KTRACE_FXT_ARG_UINT32 && x->u <= KTRACE_LINUX_STATE_MAX)
		return x->u;
	state = fxt_compact_linux_state(rec->out_state);
	return state >= 0 ? (uint32_t)state : KTRACE_LINUX_INTERRUPTIBLE;
}

bool sched_is_instant(const struct fxt_record *rec, const char *name)
{
	return rec->type == KTRACE_FXT_REC_EVENT && rec->sub == KTRACE_FXT_EV_INSTANT &&
	       fxt_str_eq(rec->name, name) && fxt_str_eq(rec->cat, "ktrace:sched");
}

void sched_switch_of(const struct fxt_record *rec, struct sched_switch *sw)
{
	const struct fxt_arg *weight = NULL, *kstack = NULL, *in_kstack = NULL;

	for (unsigned int i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *x = &rec->args[i];

		if (!weight && name_is(x, "incoming_weight", 15))
			weight = x;
		else if (!kstack && name_is(x, "kstack", 6))
			kstack = x;
		else if (!in_kstack && name_is(x, "incoming_kstack", 15))
			in_kstack = x;
	}
	sw->out_tid = rec->out_tid;
	sw->in_tid = rec->in_tid;
	sw->has_pids = rec->sub == KTRACE_FXT_SCHED_CSWITCH;
	sw->out_pid = sw->has_pids ? rec->out_pid : 0;
	sw->in_pid = sw->has_pids ? rec->in_pid : 0;
	sw->out_state = sched_linux_state(rec);
	if (sw->has_pids)
		sw->in_weight = (int32_t)rec->in_prio;
	else if (weight && weight->type == KTRACE_FXT_ARG_INT32)
		sw->in_weight = (int32_t)weight->i;
	sw->kstack = arg_of(kstack, KTRACE_FXT_ARG_UINT32, 0);
	sw->in_kstack = arg_of(in_kstack, KTRACE_FXT_ARG_UINT32, 0);
}

static void decode_wakeup(const struct fxt_record *rec, struct sched_wakeup *wk)
{
	const struct fxt_arg *waker = NULL, *ctx = NULL, *interrupted = NULL, *cpus = NULL;

	for (unsigned int i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *x = &rec->args[i];

		if (!waker && name_is(x, "waker", 5))
			waker = x;
		else if (!ctx && name_is(x, "irq_context", 11))
			ctx = x;
		else if (!interrupted && name_is(x, "interrupted", 11))
			interrupted = x;
		else if (!cpus && name_is(x, "cpus", 4))
			cpus = x;
	}
	wk->tid = rec->tid;
	wk->ctx = arg_of(ctx, KTRACE_FXT_ARG_UINT32, KTRACE_CTX_TASK);
	if (wk->ctx > KTRACE_CTX_MAX)
		wk->ctx = KTRACE_CTX_TASK;
	/* From an interrupt, the thread it interrupted stands for the waker. */
	if (wk->ctx != KTRACE_CTX_TASK)
		waker = interrupted;
	wk->has_waker = waker && waker->type == KTRACE_FXT_ARG_KOID;
	wk->waker = wk->has_waker ? waker->u : 0;
	wk->cpus = arg_of(cpus, KTRACE_FXT_ARG_UINT64, 0);
}

/* The ktrace:meta records: losses, untraced switches, CPUs off and on line. */
static bool decode_meta(const struct fxt_reader *r, const struct fxt_record *rec,
			struct sched_event *ev)
{
	const struct fxt_arg *src;

	if (fxt_str_eq(rec->name, "dropped")) {
		src = fxt_find_arg(rec, "source");
		ev->kind = SCHED_LOSS;
		ev->loss.ftrace = src && src->type == KTRACE_FXT_ARG_STRING &&
				  fxt_str_eq(src->s, "ftrace");
		ev->loss.hides_switches = timeline_loss_hides_switches(rec);
		ev->loss.count = fxt_arg_u64(rec, "count", 0);
		/* Without a time range, the loss happened some time before the record. */
		ev->loss.first = fxt_ticks_to_ns(r, fxt_arg_u64(rec, "first_ts", 0));
		ev->loss.last = fxt_ticks_to_ns(r, fxt_arg_u64(rec, "last_ts", rec->ts));
	} else if (fxt_str_eq(rec->name, "untraced_switch")) {
		ev->kind = SCHED_UNTRACED;
		ev->untraced.cpu = fxt_arg_u64(rec, "cpu", SCHED_CPU_NONE);
		ev->untraced.tid = fxt_arg_u64(rec, "tid", 0);
		ev->untraced.switched_out = fxt_arg_u64(rec, "switched_out", 0);
		ev->untraced.first = fxt_ticks_to_ns(r, fxt_arg_u64(rec, "first_ts", rec->ts));
		ev->untraced.last = fxt_ticks_to_ns(r, fxt_arg_u64(rec, "last_ts", rec->ts));
	} else if (fxt_str_eq(rec->name, "cpu_offline") || fxt_str_eq(rec->name, "cpu_online")) {
		ev->kind = fxt_str_eq(rec->name, "cpu_online") ? SCHED_CPU_ONLINE :
			   SCHED_CPU_OFFLINE;
		ev->line.cpu = fxt_arg_u64(rec, "cpu", SCHED_CPU_NONE);
	}
	return ev->kind != SCHED_NONE;
}

static bool decode_event(const struct fxt_reader *r, const struct fxt_record *rec,
			 struct sched_event *ev)
{
	if (rec->pid == KTRACE_FXT_IRQ_PID) {
		ev->kind = SCHED_IRQ;
		ev->cpu = rec->tid - KTRACE_FXT_IRQ_TID(0);
	} else if (sched_is_instant(rec, "migrate")) {
		ev->kind = SCHED_MIGRATE;
		ev->mig.tid = rec->tid;
		ev->mig.from = (int32_t)fxt_arg_u64(rec, "orig_cpu", SCHED_CPU_NONE);
		ev->mig.to = (int32_t)fxt_arg_u64(rec, "dest_cpu", SCHED_CPU_NONE);
	} else if (sched_is_instant(rec, "affinity")) {
		ev->kind = SCHED_AFFINITY;
		ev->aff.tid = rec->tid;
		ev->aff.cpus = fxt_arg_u64(rec, "cpus", 0);
	} else if (fxt_str_eq(rec->cat, "ktrace:timer") && fxt_str_eq(rec->name, "timer_expire")) {
		ev->kind = SCHED_TIMER_EXPIRE;
		ev->timer.tid = rec->tid;
		ev->timer.due = fxt_arg_u64(rec, "due", ev->ts);
		ev->timer.cpu = fxt_arg_u64(rec, "cpu", SCHED_CPU_NONE);
	} else if (fxt_str_eq(rec->cat, "ktrace:meta")) {
		return decode_meta(r, rec, ev);
	}
	return ev->kind != SCHED_NONE;
}

bool sched_decode(const struct fxt_reader *r, const struct fxt_record *rec,
		  struct sched_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts = fxt_ticks_to_ns(r, rec->ts);
	if (rec->type == KTRACE_FXT_REC_SCHED) {
		ev->cpu = rec->cpu;
		if (rec->sub == KTRACE_FXT_SCHED_WAKEUP) {
			ev->kind = SCHED_WAKEUP;
			decode_wakeup(rec, &ev->wake);
		} else if (rec->sub <= KTRACE_FXT_SCHED_WAKEUP) {
			ev->kind = SCHED_SWITCH;
			sched_switch_of(rec, &ev->sw);
		}
		return ev->kind != SCHED_NONE;
	}
	if (rec->type == KTRACE_FXT_REC_EVENT)
		return decode_event(r, rec, ev);
	return false;
}
