// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace as a source for `ktrace record --ftrace`, beside the recorder: a
 * private tracefs instance (removed again on every exit path) with the
 * requested events, trace_clock mono where the kernel has it, read through
 * trace_pipe_raw with libtraceevent; each event becomes FXT records with
 * arguments typed from the event's format, in one spool per CPU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "lib/utils.h"
#include "record/ftrace_convert.h"
#include "record/record.h"

#define MAX_SYSTEMS	64

struct source_ftrace {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct ftrace_conv conv;	/* events and sync markers into spools */
	bool mono;			/* trace_clock is mono */
	bool ring;			/* read only at the end */
	bool verbose;
	uint64_t passes, longest_pass;	/* reads while recording; ns */
	int err;
};

/* "irq:*" or "block:block_rq_issue" as anchored regular expressions. */
static void glob_to_regex(const char *glob, size_t n, char *out, size_t size)
{
	size_t o = 0;

	out[o++] = '^';
	for (size_t i = 0; i < n && o + 3 < size; i++) {
		if (glob[i] == '*') {
			out[o++] = '.';
			out[o++] = '*';
		} else if (glob[i] == '?') {
			out[o++] = '.';
		} else {
			if (strchr(".+()[]{}|^$\\", glob[i]))
				out[o++] = '\\';
			out[o++] = glob[i];
		}
	}
	out[o++] = '$';
	out[o] = 0;
}

static void add_system(const char **systems, char (*store)[64], unsigned int *n, const char *sys,
		       size_t len)
{
	if (*n >= MAX_SYSTEMS - 1 || len >= 64)
		return;
	for (unsigned int i = 0; i < *n; i++)
		if (strlen(systems[i]) == len && !strncmp(systems[i], sys, len))
			return;
	memcpy(store[*n], sys, len);
	store[*n][len] = 0;
	systems[*n] = store[*n];
	(*n)++;
}

/*
 * @ro->ftrace: comma-separated SYSTEM:EVENT globs; an unknown one is
 * refused here, before anything records.  ftrace's buffers get the
 * recorder's size per CPU, and its ring mode.
 */
static int ftrace_open(void **out, const struct record_opts *ro, struct spool *sp, unsigned int n)
{
	static char store[MAX_SYSTEMS][64];
	const char *systems[MAX_SYSTEMS] = { 0 };
	unsigned int nsys = 0;
	const char *p = ro->ftrace;
	struct source_ftrace *fc = calloc(1, sizeof(*fc));
	char name[64], kb[24];
	int ret;

	if (!fc)
		return -ENOMEM;
	*out = fc;
	if (!tracefs_tracing_dir()) {
		pr_err("--ftrace: tracefs is not mounted and could not be (mount -t tracefs nodev /sys/kernel/tracing)");
		return -ENOENT;
	}
	ret = ftrace_conv_init(&fc->conv, sp, n);
	if (ret)
		return ret;
	fc->conv.irq_instants = ro->irqs;
	snprintf(name, sizeof(name), "ktrace-%d", getpid());
	fc->inst = tracefs_instance_create(name);
	if (!fc->inst) {
		pr_err("--ftrace: cannot create the tracefs instance %s: %s", name, strerror(errno));
		return -errno;
	}
	tracefs_trace_off(fc->inst);
	/* As large as the recorder's per-CPU buffers (ftrace's default is smaller). */
	snprintf(kb, sizeof(kb), "%llu", (unsigned long long)(ro->buffer_size / 1024));
	if (tracefs_instance_file_write(fc->inst, "buffer_size_kb", kb) <= 0)
		pr_warn("--ftrace: cannot set the instance's buffers to %s KiB per CPU; ftrace's default stays",
			kb);
	/* A flight recorder, as the recorder is: read at the end, newest kept. */
	fc->ring = ro->ring;
	fc->verbose = ro->verbose;
	if (fc->ring && tracefs_instance_file_write(fc->inst, "options/overwrite", "1") <= 0)
		pr_warn("--ftrace: cannot make the instance overwrite its oldest events");
	/* The recorder's clock; without it the sync markers align the two. */
	fc->mono = tracefs_instance_file_write(fc->inst, "trace_clock", "mono") > 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		const char *colon = memchr(p, ':', len);
		char sys_re[80], ev_re[160];

		if (!len) {
			p++;
			continue;
		}
		if (!colon || colon == p || colon + 1 == p + len) {
			pr_err("--ftrace '%.*s': give SYSTEM:EVENT, e.g. irq:* or sched:sched_migrate_task",
			       (int)len, p);
			return -EINVAL;
		}
		glob_to_regex(p, colon - p, sys_re, sizeof(sys_re));
		glob_to_regex(colon + 1, p + len - colon - 1, ev_re, sizeof(ev_re));
		if (tracefs_event_enable(fc->inst, sys_re, ev_re)) {
			pr_err("--ftrace '%.*s': no such event in this kernel (see %s/available_events)",
			       (int)len, p, tracefs_tracing_dir());
			return -ENOENT;
		}
		add_system(systems, store, &nsys, p, colon - p);
		p += len + (p[len] == ',');
	}
	/* The markers written to trace_marker come back as ftrace:print. */
	add_system(systems, store, &nsys, "ftrace", 6);
	fc->tep = tracefs_local_events_system(NULL, systems);
	if (!fc->tep) {
		pr_err("--ftrace: cannot read the events' formats from tracefs");
		return -EIO;
	}
	return 0;
}

static int ftrace_start(void *priv)
{
	struct source_ftrace *fc = priv;

	if (!tracefs_trace_on(fc->inst))
		return 0;
	pr_err("--ftrace: cannot turn tracing on in the instance");
	return -EIO;
}

/* Ends a pass running on another thread: nothing new to read, what is there is. */
static void ftrace_quiesce(void *priv)
{
	struct source_ftrace *fc = priv;

	tracefs_trace_off(fc->inst);
}

/* A clock sync marker in the instance's own buffers. */
static int ftrace_marker(void *priv, const char *id)
{
	struct source_ftrace *fc = priv;

	return tracefs_printf(fc->inst, SYNC_PREFIX "%s\n", id) < 0 ? -EIO : 0;
}

static int on_event(struct tep_event *event, struct tep_record *record, int cpu, void *ctx)
{
	struct source_ftrace *fc = ctx;
	struct tep_format_field *f;
	struct ftrace_event e = {
		.ts = record->ts, .cpu = cpu, .system = event->system, .name = event->name,
	};
	char text[256] = "";

	e.pid = tep_data_pid(fc->tep, record);
	for (f = event->format.fields; f && e.nargs < KTRACE_FXT_MAX_ARGS; f = f->next) {
		struct fxt_arg *a = &e.args[e.nargs];
		unsigned long long val;

		memset(a, 0, sizeof(*a));
		a->name.p = f->name;
		a->name.len = strlen(f->name);
		if (f->flags & TEP_FIELD_IS_STRING || (f->flags & TEP_FIELD_IS_ARRAY &&
						      strstr(f->type, "char"))) {
			int len = 0;
			const char *s = tep_get_field_raw(NULL, event, f->name, record, &len, 0);

			if (!s)
				continue;
			/* A flexible array (print's buf[]) runs to the record's end. */
			if (len <= 0)
				len = record->size - f->offset;
			a->type = KTRACE_FXT_ARG_STRING;
			a->s.p = s;
			a->s.len = strnlen(s, len > 0 ? len : 0);
			while (a->s.len && s[a->s.len - 1] == '\n')
				a->s.len--;
			/* print's buffer carries the clock-sync markers. */
			if (!strcmp(f->name, "buf")) {
				snprintf(text, sizeof(text), "%.*s", (int)a->s.len, s);
				e.text = text;
			}
		} else if (f->flags & TEP_FIELD_IS_ARRAY) {
			continue;	/* other arrays have no FXT argument type */
		} else if (!tep_read_number_field(f, record->data, &val)) {
			if (f->flags & TEP_FIELD_IS_POINTER) {
				a->type = KTRACE_FXT_ARG_POINTER;
				a->u = val;
			} else if (f->flags & TEP_FIELD_IS_SIGNED) {
				a->type = KTRACE_FXT_ARG_INT64;
				a->i = f->size == 4 ? (int32_t)val : f->size == 2 ? (int16_t)val :
				       f->size == 1 ? (int8_t)val : (int64_t)val;
			} else {
				a->type = KTRACE_FXT_ARG_UINT64;
				a->u = val;
			}
		} else {
			continue;
		}
		e.nargs++;
	}
	fc->err = ftrace_conv_event(&fc->conv, &e);
	return fc->err ? -1 : 0;
}

static int read_events(struct source_ftrace *fc)
{
	if (tracefs_iterate_raw_events(fc->tep, fc->inst, NULL, 0, on_event, fc) && fc->err)
		return fc->err;
	return 0;
}

/*
 * Reads every CPU until it is empty, then waits @timeout_ms: on a thread of
 * its own, a pass lasts as long as a busy CPU keeps producing.
 */
static int ftrace_poll(void *priv, int timeout_ms)
{
	struct source_ftrace *fc = priv;
	uint64_t t0 = now_mono_ns();
	int ret = read_events(fc);

	fc->passes++;
	if (now_mono_ns() - t0 > fc->longest_pass)
		fc->longest_pass = now_mono_ns() - t0;

	if (!ret && timeout_ms > 0)
		usleep(timeout_ms * 1000);
	return ret;
}

/*
 * Events ftrace lost on @cpu: dropped, or overwritten before they were read
 * (not in ring mode, where writing over the oldest is the point).
 */
static uint64_t lost_on(struct source_ftrace *fc, unsigned int cpu)
{
	char path[64], *stats, *p;
	uint64_t n = 0;

	snprintf(path, sizeof(path), "per_cpu/cpu%u/stats", cpu);
	stats = tracefs_instance_file_read(fc->inst, path, NULL);
	if (!stats)
		return 0;	/* an offline CPU */
	p = strstr(stats, "\noverrun: ");
	if (p && !fc->ring)
		n += strtoull(p + 10, NULL, 10);
	else if (p && strtoull(p + 10, NULL, 10))
		fc->conv.spools[cpu].wrapped = true;	/* its window starts late */
	p = strstr(stats, "\ndropped events: ");
	if (p)
		n += strtoull(p + 17, NULL, 10);
	free(stats);
	return n;
}

/* Reads what is left and writes what ftrace lost as loss records. */
static int ftrace_stop(void *priv, struct record_stats *st)
{
	struct source_ftrace *fc = priv;
	int ret;

	(void)st;	/* its losses are loss records, and said below */
	tracefs_trace_off(fc->inst);
	ret = read_events(fc);
	for (unsigned int cpu = 0; cpu < fc->conv.nspools && !ret; cpu++) {
		uint64_t n = lost_on(fc, cpu);

		if (n)
			ret = ftrace_conv_loss(&fc->conv, cpu, n);
	}
	if (ret)
		pr_err("--ftrace: reading the events: %s", strerror(-ret));
	if (fc->verbose && !fc->ring)
		pr_info("ftrace reader: %llu passes, the longest %.1f ms",
			(unsigned long long)fc->passes, fc->longest_pass / 1e6);
	if (fc->conv.lost)
		pr_warn("--ftrace: ftrace lost %llu events in its buffers (in the trace as loss records; try a larger --buffer-size)",
			(unsigned long long)fc->conv.lost);
	return ret;
}

/* Moves the captured events onto the recorder's clock, from the sync markers. */
static void ftrace_align(void *priv, const struct sync_point *points, unsigned int n)
{
	struct source_ftrace *fc = priv;
	int64_t offset, residual;
	unsigned int matched;

	if (clock_offset(points, n < 2 ? n : 2, fc->conv.markers, fc->conv.nmarkers, &offset,
			 &residual, &matched)) {
		pr_warn("--ftrace: no clock sync marker came back; %s", fc->mono ?
			"ftrace used the monotonic clock, as the recorder does" :
			"ftrace times are left on ftrace's own clock");
		return;
	}
	/* With trace_clock mono the clocks are one: the markers only check it. */
	for (unsigned int i = 0; !fc->mono && i < fc->conv.nspools; i++)
		fc->conv.spools[i].offset = offset;
	pr_info("ftrace: %llu events, clock %s, offset %lld ns from %u sync markers, residual %lld ns",
		(unsigned long long)fc->conv.events, fc->mono ? "mono" : "local",
		(long long)offset, matched, (long long)residual);
}

/* Leaves tracefs as it was: events off, the instance removed. */
static void ftrace_close(void *priv)
{
	struct source_ftrace *fc = priv;

	if (!fc)
		return;
	if (fc->inst) {
		tracefs_trace_off(fc->inst);
		tracefs_event_disable(fc->inst, NULL, NULL);
		tracefs_print_close(fc->inst);	/* its trace_marker fd keeps the instance busy */
		if (tracefs_instance_destroy(fc->inst))
			pr_warn("cannot remove the tracefs instance %s: %s",
				tracefs_instance_get_name(fc->inst), strerror(errno));
		tracefs_instance_free(fc->inst);
		fc->inst = NULL;
	}
	if (fc->tep)
		tep_free(fc->tep);
	ftrace_conv_free(&fc->conv);
	free(fc);
}

const struct source_ops source_ftrace_ops = {
	.name = "ftrace",
	.open = ftrace_open,
	.start = ftrace_start,
	.poll = ftrace_poll,
	.stop = ftrace_stop,
	.marker = ftrace_marker,
	.quiesce = ftrace_quiesce,
	.align = ftrace_align,
	.close = ftrace_close,
};
