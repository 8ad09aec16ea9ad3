// SPDX-License-Identifier: GPL-2.0
/* A trace written back with an analysis's events in it (annotate.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyze/annotate.h"

static bool has_time(const struct fxt_record *rec)
{
	return rec->type == KTRACE_FXT_REC_EVENT || rec->type == KTRACE_FXT_REC_SCHED ||
	       rec->type == KTRACE_FXT_REC_LOG;
}

int trace_annotate(struct cli_input *in, const char *out_path, bool json,
		   const struct annotation *an)
{
	struct cli_output out;
	struct fxt_writer w;
	struct fxt_reader r;
	struct fxt_record rec;
	struct obuf scratch;
	uint32_t i = 0;
	int ret;

	ret = cli_output_open(&out, out_path, json);
	if (ret)
		return ret;
	in->quiet = true;	/* the analysis reported what is wrong with the input */
	ret = cli_trace_reader(in, &r);
	if (ret) {
		cli_output_abort(&out);
		return ret;
	}
	if (fxt_writer_init(&w, out.fd) || obuf_init(&scratch, -1, 512)) {
		pr_err("out of memory writing %s", out_path);
		fxt_reader_close(&r);
		cli_output_abort(&out);
		return -ENOMEM;
	}
	/* Indexed strings are the input's: ours go inline. */
	w.inline_strings = true;
	while (fxt_reader_next(&r, &rec) == 1) {
		if (has_time(&rec))
			for (uint64_t ts = fxt_ticks_to_ns(&r, rec.ts);
			     i < an->n && an->ts(an->ctx, i) <= ts; i++) {
				scratch.len = 0;
				an->write(an->ctx, &w, &r, i, &scratch);
			}
		fxt_write_words(&w, rec.w, rec.nwords);
	}
	for (; i < an->n; i++) {
		scratch.len = 0;
		an->write(an->ctx, &w, &r, i, &scratch);
	}
	fxt_reader_close(&r);
	obuf_free(&scratch);
	ret = fxt_writer_finish(&w);
	if (ret) {
		pr_err("writing %s: %s", out_path, strerror(-ret));
		cli_output_abort(&out);
		return ret;
	}
	return cli_output_commit(&out, NULL);
}

/* ---- the latency analysis's worst waits ---------------------------------- */

struct lat_annotation {
	struct lat_analysis *a;
	const struct lat_wait *waits;
};

static uint64_t wait_ts(void *ctx, uint32_t i)
{
	const struct lat_annotation *la = ctx;

	return la->waits[i].start;
}

/*
 * A timer wait's parts as slices nested in it: timer_late (with what its
 * timer's CPU was doing at the due time), handler and wait.
 */
static void write_timer_parts(struct lat_analysis *a, struct fxt_writer *w,
			      const struct fxt_reader *r, const struct lat_wait *wt,
			      struct obuf *text)
{
	static const char *const names[] = { "timer_late", "handler", "wait" };
	uint64_t at[] = { wt->timer.due, wt->timer.fired, wt->timer.woken, wt->end };
	struct fxt_arg arg;

	text->len = 0;
	lat_timer_line(a, wt, text);
	obuf_putc(text, 0);
	arg = fxt_arg_str("timer", text->buf);
	for (unsigned int k = 0; k < 3; k++)
		fxt_write_event(w, KTRACE_FXT_EV_DURATION_COMPLETE, fxt_ns_to_ticks(r, at[k]),
				wt->pid, wt->tid, "ktrace:latency", names[k], &arg, k == 0,
				fxt_ns_to_ticks(r, at[k + 1]));
}

/* A wait as a complete event carrying its latency, its waker, its blame and causes. */
static void write_wait(void *ctx, struct fxt_writer *w, const struct fxt_reader *r, uint32_t i,
		       struct obuf *blame)
{
	const struct lat_annotation *la = ctx;
	const struct lat_wait *wt = &la->waits[i];
	struct fxt_arg args[8 + LAT_CAUSES];
	size_t throttled = 0;
	size_t where;
	unsigned int n = 0;
	char name[32];

	lat_blame_line(la->a, wt, blame);
	obuf_putc(blame, 0);
	where = blame->len;
	lat_where_line(la->a, wt, blame);
	obuf_putc(blame, 0);
	if (wt->causes[LAT_CAUSE_THROTTLED]) {
		throttled = blame->len;
		lat_throttled_cgroup(blame, wt->throttled_path, wt->throttled_cgroup_id,
				     wt->throttled_cpu_max, wt->throttled_v1);
		obuf_putc(blame, 0);
	}
	args[n++] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "latency", wt->end - wt->start);
	args[n++] = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "cpu", wt->cpu);
	if (wt->kind != LAT_PREEMPT && wt->waker_ctx != KTRACE_CTX_TASK)
		args[n++] = fxt_arg_str("irq_context", ktrace_irq_context_name(wt->waker_ctx));
	if (wt->kind != LAT_PREEMPT && wt->has_waker)
		args[n++] = fxt_arg_int(KTRACE_FXT_ARG_KOID,
					wt->waker_ctx == KTRACE_CTX_TASK ? "waker" : "interrupted",
					wt->waker);
	if (wt->prev_cpu >= 0)
		args[n++] = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "prev_cpu", wt->prev_cpu);
	args[n++] = fxt_arg_str("blame", blame->buf);
	args[n++] = fxt_arg_str("where", blame->buf + where);
	/* Its causes in ns, under their names, as in latency --json. */
	for (unsigned int k = 0; k < LAT_CAUSES; k++)
		args[n++] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, lat_cause_name(k), wt->causes[k]);
	if (throttled)
		args[n++] = fxt_arg_str("throttled_cgroup", blame->buf + throttled);
	snprintf(name, sizeof(name), "%s latency", lat_kind_name(wt->kind));
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_COMPLETE, fxt_ns_to_ticks(r, wt->start), wt->pid,
			wt->tid, "ktrace:latency", name, args, n, fxt_ns_to_ticks(r, wt->end));
	if (wt->kind == LAT_TIMER)
		write_timer_parts(la->a, w, r, wt, blame);
}

int lat_annotate(struct lat_analysis *a, struct cli_input *in, const char *out_path, bool json)
{
	struct lat_annotation la = { .a = a };
	struct annotation an = { .ctx = &la, .ts = wait_ts, .write = write_wait };
	int ret;

	la.waits = lat_waits_by_start(a, &an.n);
	ret = trace_annotate(in, out_path, json, &an);
	if (!ret)
		pr_info("wrote %s: the trace with %u waits as slices (category ktrace:latency)",
			out_path, an.n);
	return ret;
}
