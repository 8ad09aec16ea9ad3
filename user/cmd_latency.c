// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace latency: wakeup and preemption latency per thread, process or
 * CPU, the worst waits with what held the CPU meanwhile, and the trace
 * written back with each of those waits as a slice on its thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "critical_path.h"
#include "fxt_reader.h"
#include "fxt_writer.h"
#include "json_writer.h"
#include "latency.h"
#include "utils.h"

enum {
	OPT_BY = 256,
	OPT_PID,
	OPT_COMM,
	OPT_CPU,
	OPT_MIN_LATENCY,
	OPT_HIST,
	OPT_TOP,
	OPT_JSON,
	OPT_CRITICAL_PATH,
	OPT_TID,
	OPT_AT,
	OPT_FOLDED,
};

static void usage(FILE *f)
{
	fputs("usage: ktrace latency TRACE.fxt [options]\n"
	      "\n"
	      "Why did a thread wait?  Wakeup latency (sched_waking to switch-in) and\n"
	      "preemption latency (switched out runnable to switch-in), as separate\n"
	      "distributions, blocked time by Linux state (S, D), and the worst waits with\n"
	      "what held the CPU meanwhile: threads with their priority, interrupt handlers\n"
	      "(when recorded with --ftrace 'irq:*'), idle.  Waits that cannot be measured\n"
	      "(begun before the trace, no recorded wakeup, overlapping lost records) are\n"
	      "counted, never silently dropped.  p50/p90/p99 are within 3%; max is exact.\n"
	      "\n"
	      "  --by KEY            thread (default), process, cpu, or all\n"
	      "  --pid PID           only this thread, or the threads of this process\n"
	      "  --comm NAME         only threads with this thread or process name\n"
	      "  --cpu N             only waits that ended on CPU N\n"
	      "  --min-latency DUR   only waits at least this long (5ms, 200us; bare = us)\n"
	      "  --top N             list the N worst waits with their blame (default 5)\n"
	      "  --hist              runqlat's log2 histogram for each row\n"
	      "  -m, --msecs         milliseconds instead of microseconds\n"
	      "  --json              the report as JSON (nanoseconds)\n"
	      "  -o, --output FILE   write the trace back with each of the worst waits as a\n"
	      "                      slice on its thread (category ktrace:latency), as FXT,\n"
	      "                      or JSON when FILE ends in .json\n"
	      "  -F, --format FMT    fxt or json for -o, whatever the extension\n"
	      "  --folded            blocked time per kernel stack as folded stacks, for\n"
	      "                      flamegraph.pl (record with --stacks or --blocked-in)\n"
	      "\n"
	      "  --critical-path     for the worst waits (--top, default 5) of the selected\n"
	      "                      threads, off CPU from switch-out to switch-in: who woke\n"
	      "                      it, what that thread did meanwhile (running, runnable\n"
	      "                      behind whom, blocked in what and woken by whom), back\n"
	      "                      until the wait is covered; -o writes it into the trace\n"
	      "  --tid TID           only this thread\n"
	      "  --at TS             the wait that holds this time (seconds, as dump prints)\n"
	      "\n"
	      "EXAMPLES\n"
	      "  ktrace latency sched.fxt\n"
	      "  ktrace latency sched.fxt --comm cyclictest --hist\n"
	      "  ktrace latency sched.fxt --by cpu --min-latency 1ms --top 20 -o worst.fxt\n"
	      "  ktrace record --ftrace 'irq:*' -o irq.fxt -d 10 && ktrace latency irq.fxt --json\n"
	      "  ktrace latency sched.fxt --critical-path --comm victim -o path.json\n"
	      "  ktrace latency off.fxt --folded | flamegraph.pl --countname=us > off.svg\n",
	      f);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return end == s || *end || errno || *s == '-' ? -EINVAL : 0;
}

struct latency_ctx {
	const char *path;
	uint64_t reported;
	bool quiet;		/* the first pass: the second reports */
	struct cp_analysis *cp;	/* --critical-path, fed after the latency pass */
};

static void on_violation(void *ctx, const struct fxt_error *e)
{
	struct latency_ctx *c = ctx;

	if (!c->quiet && c->reported++ < 10)
		pr_warn("%s: offset %llu (0x%llx): %s: %s", c->path,
			(unsigned long long)e->offset, (unsigned long long)e->offset, e->field,
			e->msg);
}

/* "1234.567890123" (seconds, as dump prints them) into ns. */
static int parse_seconds(const char *s, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000;
	const char *p = s;

	if (!*p)
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > UINT64_MAX / 10000000000ULL)
			return -EINVAL;
		sec = sec * 10 + (*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale > 1) {
				scale /= 10;
				frac += (*p - '0') * scale;
			}
	if (*p || p == s)
		return -EINVAL;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

/* The critical path of this pass (read_pass() sets it), beside the latency analysis. */
static struct cp_analysis *pass_cp;

/* --critical-path: both analyses, the latency pass first (the path uses its state). */
static void lat_and_cp_record(struct lat_analysis *a, const struct fxt_reader *r,
			      const struct fxt_record *rec)
{
	lat_record(a, r, rec);
	cp_record(pass_cp, r, rec);
}

/*
 * Reads @fd from its start, handing each record to @fn; 0, or -EINVAL
 * reported.  The first pass looks for names and losses only, and leaves
 * the scheduling records undecoded; the second reports what is wrong.
 */
static int read_pass(int fd, struct latency_ctx *ctx, bool first, struct lat_analysis *a,
		     void (*fn)(struct lat_analysis *, const struct fxt_reader *,
				const struct fxt_record *))
{
	struct fxt_reader r;
	struct fxt_record rec;
	int ret;

	if (lseek(fd, 0, SEEK_SET) < 0) {
		pr_err("%s: cannot read it twice (%s): give a file, not a pipe", ctx->path,
		       strerror(errno));
		return -errno;
	}
	if (fxt_reader_open_fd(&r, fd, ctx->path)) {
		pr_err("out of memory");
		return -ENOMEM;
	}
	r.on_violation = on_violation;
	r.ctx = ctx;
	r.require_magic = true;
	ctx->quiet = first;
	pass_cp = ctx->cp;
	if (first)
		r.undecoded = 1U << KTRACE_FXT_REC_SCHED;
	while ((ret = fxt_reader_next(&r, &rec)) == 1)
		fn(a, &r, &rec);
	if (ret < 0 && first && r.records == 0) {
		pr_err("%s: not an FXT trace (offset %llu: %s: %s)", ctx->path,
		       (unsigned long long)r.fatal.offset, r.fatal.field, r.fatal.msg);
	} else if (ret < 0 && !first) {
		pr_warn("%s: offset %llu (0x%llx): %s: %s; analysed the %llu records before it",
			ctx->path, (unsigned long long)r.fatal.offset,
			(unsigned long long)r.fatal.offset, r.fatal.field, r.fatal.msg,
			(unsigned long long)r.records);
	}
	if (ret < 0 && r.records == 0) {
		fxt_reader_close(&r);
		return -EINVAL;
	}
	if (!ret && !r.records) {
		if (first)
			pr_err("%s: the input is empty, not an FXT trace", ctx->path);
		fxt_reader_close(&r);
		return -EINVAL;
	}
	fxt_reader_close(&r);
	return 0;
}

static uint64_t to_ticks(const struct fxt_reader *r, uint64_t ns)
{
	if (!r->ticks_per_sec || r->ticks_per_sec == KTRACE_FXT_TICKS_PER_SEC)
		return ns;
	return (uint64_t)((double)ns * r->ticks_per_sec / KTRACE_FXT_TICKS_PER_SEC);
}

static void write_wait(struct lat_analysis *a, struct fxt_writer *w, const struct fxt_reader *r,
		       const struct lat_wait *wt, struct obuf *blame)
{
	struct fxt_arg args[6];
	unsigned int n = 0;
	char name[32];

	blame->len = 0;
	lat_blame_line(a, wt, blame);
	obuf_putc(blame, 0);
	args[n++] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "latency", wt->end - wt->start);
	args[n++] = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "cpu", wt->cpu);
	if (wt->kind == LAT_WAKEUP && wt->waker_ctx != KTRACE_CTX_TASK)
		args[n++] = fxt_arg_str("irq_context", ktrace_irq_context_name(wt->waker_ctx));
	if (wt->kind == LAT_WAKEUP && wt->has_waker)
		args[n++] = fxt_arg_int(KTRACE_FXT_ARG_KOID,
					wt->waker_ctx == KTRACE_CTX_TASK ? "waker" : "interrupted",
					wt->waker);
	if (wt->prev_cpu >= 0)
		args[n++] = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "prev_cpu", wt->prev_cpu);
	args[n++] = fxt_arg_str("blame", blame->buf);
	snprintf(name, sizeof(name), "%s latency", lat_kind_name(wt->kind));
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_COMPLETE, to_ticks(r, wt->start), wt->pid,
			wt->tid, "ktrace:latency", name, args, n, to_ticks(r, wt->end));
}

static bool has_time(const struct fxt_record *rec)
{
	return rec->type == KTRACE_FXT_REC_EVENT || rec->type == KTRACE_FXT_REC_SCHED ||
	       rec->type == KTRACE_FXT_REC_LOG;
}

/*
 * The input again, record for record, with a slice for each wait placed
 * in time order; written beside @out_path and renamed only when complete.
 */
static int annotate(struct lat_analysis *a, int in_fd, struct latency_ctx *ctx,
		    const char *out_path, bool json)
{
	const struct lat_wait *waits;
	struct fxt_writer w;
	struct fxt_reader r;
	struct fxt_record rec;
	struct out_file of;
	struct obuf blame;
	uint32_t n, i = 0;
	int fxt_fd, ret;

	waits = lat_waits_by_start(a, &n);
	ret = out_file_open(&of, out_path);
	if (ret)
		return ret;
	fxt_fd = fxt_scratch_fd(json, of.fd);
	if (fxt_fd < 0 || lseek(in_fd, 0, SEEK_SET) < 0 || fxt_writer_init(&w, fxt_fd) ||
	    obuf_init(&blame, -1, 512) || fxt_reader_open_fd(&r, in_fd, ctx->path)) {
		ret = -errno ? -errno : -ENOMEM;
		pr_err("cannot write %s: %s", out_path, strerror(-ret));
		out_file_abort(&of);
		return ret;
	}
	/* Indexed strings are the input's: ours go inline. */
	w.inline_strings = true;
	while (fxt_reader_next(&r, &rec) == 1) {
		if (has_time(&rec))
			for (uint64_t ts = fxt_ticks_to_ns(&r, rec.ts);
			     i < n && waits[i].start <= ts; i++)
				write_wait(a, &w, &r, &waits[i], &blame);
		fxt_write_words(&w, rec.w, rec.nwords);
	}
	for (; i < n; i++)
		write_wait(a, &w, &r, &waits[i], &blame);
	fxt_reader_close(&r);
	obuf_free(&blame);
	ret = fxt_writer_finish(&w);
	if (!ret && json) {
		uint64_t bytes;

		ret = json_convert_fd(fxt_fd, of.fd, NULL, &bytes);
		close(fxt_fd);
	}
	if (ret) {
		pr_err("writing %s: %s", out_path, strerror(-ret));
		out_file_abort(&of);
		return ret;
	}
	ret = out_file_commit(&of);
	if (!ret && of.fd != 1)
		pr_info("wrote %s: the trace with %u waits as slices (category ktrace:latency)",
			out_path, n);
	return ret;
}

static int parse_by(const char *s, enum lat_by *by)
{
	static const char *const names[] = { "thread", "process", "cpu", "all" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*by = i;
			return 0;
		}
	return -EINVAL;
}

int cmd_latency(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "by", required_argument, NULL, OPT_BY },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "min-latency", required_argument, NULL, OPT_MIN_LATENCY },
		{ "hist", no_argument, NULL, OPT_HIST },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "critical-path", no_argument, NULL, OPT_CRITICAL_PATH },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "at", required_argument, NULL, OPT_AT },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "msecs", no_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct lat_opts lo = { .pid = -1, .cpu = -1, .top = 5, .unit_ns = 1000 };
	const char *out_path = NULL, *format = NULL;
	struct latency_ctx ctx = { 0 };
	bool json_report = false, json_out = false, critical = false, folded = false;
	struct cp_opts co = { .tid = -1, .top = 5 };
	struct cp_analysis *cp = NULL;
	struct lat_analysis *a;
	struct obuf out;
	uint64_t v;
	int c, fd, ret;

	while ((c = getopt_long(argc, argv, "mo:F:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_BY:
			if (parse_by(optarg, &lo.by)) {
				pr_err("--by: '%s' is not thread, process, cpu or all", optarg);
				return 2;
			}
			break;
		case OPT_PID:
			if (parse_u64(optarg, &v) || v > INT32_MAX) {
				pr_err("--pid: '%s' is not a process or thread id", optarg);
				return 2;
			}
			lo.pid = v;
			break;
		case OPT_COMM:
			lo.comm = optarg;
			break;
		case OPT_CPU:
			if (parse_u64(optarg, &v) || v > 65535) {
				pr_err("--cpu: '%s' is not a CPU number", optarg);
				return 2;
			}
			lo.cpu = v;
			break;
		case OPT_MIN_LATENCY:
			if (parse_duration(optarg, &lo.min_ns)) {
				pr_err("--min-latency: '%s' is not a duration (5ms, 200us, 1s)", optarg);
				return 2;
			}
			break;
		case OPT_HIST:
			lo.hist = true;
			break;
		case OPT_TOP:
			if (parse_u64(optarg, &v) || v > 100000) {
				pr_err("--top: '%s' is not a count from 0 to 100000", optarg);
				return 2;
			}
			lo.top = v;
			break;
		case OPT_JSON:
			json_report = true;
			break;
		case OPT_CRITICAL_PATH:
			critical = true;
			break;
		case OPT_FOLDED:
			folded = true;
			break;
		case OPT_TID:
			if (parse_u64(optarg, &v) || !v || v > INT32_MAX) {
				pr_err("--tid: '%s' is not a thread id", optarg);
				return 2;
			}
			co.tid = v;
			break;
		case OPT_AT:
			if (parse_seconds(optarg, &co.at) || !co.at) {
				pr_err("--at: '%s' is not a time in seconds (1234.567890123, as dump prints)",
				       optarg);
				return 2;
			}
			break;
		case 'm':
			lo.unit_ns = 1000000;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'F':
			format = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if ((co.tid >= 0 || co.at) && !critical) {
		pr_err("--tid and --at go with --critical-path");
		return 2;
	}
	if (critical && folded) {
		pr_err("--folded and --critical-path are different reports: pick one");
		return 2;
	}
	if (out_path && output_format(format, out_path, &json_out))
		return 2;
	if (out_path && !strcmp(out_path, "-")) {
		pr_err("-o -: the report goes to standard output; write the trace to a file");
		return 2;
	}
	ctx.path = argv[optind];
	fd = open(ctx.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pr_err("cannot open %s: %s", ctx.path, strerror(errno));
		return 1;
	}
	if (fxt_check_start(fd, ctx.path)) {
		close(fd);
		return 1;
	}
	if (critical) {
		co.top = lo.top;
		lo.top = 0;	/* the latency report's own list is not printed */
	}
	a = lat_new(&lo);
	if (a && critical)
		cp = cp_new(a, &co);
	if (!a || obuf_init(&out, 1, 1 << 16)) {
		pr_err("out of memory");
		close(fd);
		return 1;
	}
	ret = read_pass(fd, &ctx, true, a, lat_scan);
	if (!ret) {
		lat_scan_done(a);
		ctx.cp = cp;
		ret = read_pass(fd, &ctx, false, a, cp ? lat_and_cp_record : lat_record);
	}
	if (ctx.reported > 10)
		pr_warn("%s: %llu spec violations in all", ctx.path, (unsigned long long)ctx.reported);
	if (!ret) {
		lat_done(a);
		if (cp)
			cp_done(cp);
		if (cp && json_report)
			cp_report_json(cp, &out, ctx.path);
		else if (cp)
			cp_report_text(cp, &out, ctx.path);
		else if (folded)
			lat_report_folded(a, &out);
		else if (json_report)
			lat_report_json(a, &out, ctx.path);
		else
			lat_report_text(a, &out, ctx.path);
		if (obuf_flush(&out))
			ret = out.err;
	}
	if (!ret && out_path && cp)
		ret = cp_annotate(cp, fd, ctx.path, out_path, json_out);
	else if (!ret && out_path)
		ret = annotate(a, fd, &ctx, out_path, json_out);
	obuf_free(&out);
	cp_free(cp);
	lat_free(a);
	close(fd);
	return ret ? 1 : 0;
}
