// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace latency: wakeup, preemption and timer latency per thread, process
 * or CPU, the worst waits with what held the CPU meanwhile, and the trace
 * written back with each of those waits as a slice on its thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/annotate.h"
#include "analyze/critical_path.h"
#include "analyze/latency.h"
#include "analyze/latency_run.h"
#include "cli/cli.h"
#include "commands.h"
#include "fxt/fxt_reader.h"
#include "lib/utils.h"

enum {
	OPT_BY = 256,
	OPT_PID,
	OPT_COMM,
	OPT_CGROUP,
	OPT_CPU,
	OPT_MIN_LATENCY,
	OPT_IDLE_THRESHOLD,
	OPT_HIST,
	OPT_TOP,
	OPT_JSON,
	OPT_CRITICAL_PATH,
	OPT_TID,
	OPT_AT,
	OPT_FOLDED,
};

/*
 * Reads @in from its start, handing each record to @fn; 0, or -EINVAL
 * reported.  The first pass looks for names and losses only, and leaves
 * the scheduling records undecoded; the second reports what is wrong.
 */
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

static int read_pass(struct cli_input *in, bool first, const struct lat_run *run)
{
	struct fxt_reader r;
	struct fxt_record rec;
	int ret;

	in->quiet = first;
	ret = cli_trace_reader(in, &r);
	if (ret)
		return ret;
	if (first)
		r.undecoded = 1U << KTRACE_FXT_REC_SCHED;
	while ((ret = fxt_reader_next(&r, &rec)) == 1)
		lat_run_record(run, first, &r, &rec);
	if (ret < 0 && first && r.records == 0)
		cli_trace_report(in, true, &r.fatal, NULL);
	else if (ret < 0 && !first) {
		cli_trace_report(in, false, &r.fatal, "; analysed the %llu records before it",
				 (unsigned long long)r.records);
		lat_set_cut(run->a, &r.fatal, r.records);
	}
	if ((ret < 0 && r.records == 0) || cli_trace_empty(in, &r, ret))
		ret = -EINVAL;
	else
		ret = 0;
	fxt_reader_close(&r);
	return ret;
}

int latency_read(struct cli_input *in, struct lat_analysis *a, struct cp_analysis *cp)
{
	const struct lat_run run = { a, cp };
	int ret = read_pass(in, true, &run);

	if (ret)
		return ret;
	lat_run_scan_done(&run);
	ret = read_pass(in, false, &run);
	if (ret)
		return ret;
	lat_run_done(&run);
	return 0;
}
static int parse_by(const char *s, enum lat_by *by)
{
	static const char *const names[] = {
		[LAT_BY_THREAD] = "thread", [LAT_BY_PROCESS] = "process", [LAT_BY_CPU] = "cpu",
		[LAT_BY_ALL] = "all", [LAT_BY_CGROUP] = "cgroup",
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*by = i;
			return 0;
		}
	return -EINVAL;
}

/*
 * A --pid, --comm or --cpu that matches nothing in the trace is a mistake
 * (a wrong id, a name the kernel cut to 15 characters), not an empty
 * report: said, with what the trace holds; -ENOENT.
 */
static int check_filters(struct lat_analysis *a, const struct lat_opts *lo, const char *path)
{
	struct lat_matches m;
	char holds[96];

	lat_matches(a, &m);
	snprintf(holds, sizeof(holds), "it holds %u threads on %u CPUs", m.threads, m.cpus);
	if (m.cpus)
		snprintf(holds + strlen(holds), sizeof(holds) - strlen(holds), " (0 to %u)",
			 m.max_cpu);
	if (lo->pid >= 0 && !m.pid_threads) {
		pr_err("--pid %lld: no such thread or process in %s; %s", (long long)lo->pid, path,
		       holds);
		return -ENOENT;
	}
	if (lo->cgroup && !m.cgroup_threads) {
		pr_err("--cgroup '%s': no thread of %s is in that cgroup or below it; %s, %u cgroups named (a trace recorded by an older ktrace names only those of the threads alive at its start or end)",
		       lo->cgroup, path, holds, m.cgroups);
		return -ENOENT;
	}
	if (lo->comm && !m.comm_threads) {
		pr_err("--comm '%s': no thread or process of that name in %s; %s%s", lo->comm, path,
		       holds, strlen(lo->comm) > 15 ? "; the kernel keeps 15 characters of a name" : "");
		return -ENOENT;
	}
	if (lo->pid >= 0 && lo->comm && !m.both_threads) {
		pr_err("--pid %lld --comm '%s': no thread in %s is both (%u of --pid, %u named so)",
		       (long long)lo->pid, lo->comm, path, m.pid_threads, m.comm_threads);
		return -ENOENT;
	}
	if (lo->cpu >= 0 && !m.cpu_seen) {
		pr_err("--cpu %lld: no context switch on that CPU in %s; %s", (long long)lo->cpu, path,
		       holds);
		return -ENOENT;
	}
	return 0;
}

struct latency_args {
	struct lat_opts lo;
	struct cp_opts co;
	const char *out_path, *format;
	bool json_report, critical, folded;
};

static int latency_opt(void *ctx, const struct cli_arg *a)
{
	struct latency_args *la = ctx;
	struct lat_opts *lo = &la->lo;
	uint32_t pid;
	uint64_t v;

	switch (a->c) {
	case OPT_BY:
		if (parse_by(a->text, &lo->by))
			return cli_usage_error("%s '%s': use thread, process, cpu, all or cgroup", a->name,
					       a->text);
		break;
	case OPT_PID:
		if (cli_parse_pid(a->name, a->text, &pid))
			return -EINVAL;
		lo->pid = pid;
		break;
	case OPT_CGROUP:
		if (a->text[0] != '/')
			return cli_usage_error("%s '%s': a cgroup v2 path starts with / (as /proc/PID/cgroup gives it)",
					       a->name, a->text);
		lo->cgroup = a->text;
		break;
	case OPT_COMM:
		lo->comm = a->text;
		break;
	case OPT_CPU:
		if (cli_parse_uint(a->name, a->text, 65535, &v))
			return -EINVAL;
		lo->cpu = v;
		break;
	case OPT_MIN_LATENCY:
		return cli_parse_duration(a->name, a->text, CLI_UNIT_REQUIRED, &lo->min_ns);
	case OPT_IDLE_THRESHOLD:
		if (cli_parse_duration(a->name, a->text, CLI_UNIT_REQUIRED, &lo->idle_threshold_ns))
			return -EINVAL;
		if (!lo->idle_threshold_ns)
			return cli_usage_error("%s '%s': must be longer than 0", a->name, a->text);
		break;
	case OPT_HIST:
		lo->hist = true;
		break;
	case OPT_TOP:
		if (cli_parse_uint(a->name, a->text, 100000, &v))
			return -EINVAL;
		lo->top = v;
		break;
	case OPT_JSON:
		la->json_report = true;
		break;
	case OPT_CRITICAL_PATH:
		la->critical = true;
		break;
	case OPT_FOLDED:
		la->folded = true;
		break;
	case OPT_TID:
		if (cli_parse_pid(a->name, a->text, &pid))
			return -EINVAL;
		la->co.tid = pid;
		break;
	case OPT_AT:
		if (parse_seconds(a->text, &la->co.at) || !la->co.at)
			return cli_usage_error("%s '%s': not a time in seconds (1234.567890123, as dump prints)",
					       a->name, a->text);
		break;
	case 'm':
		lo->unit_ns = 1000000;
		break;
	case 'o':
		la->out_path = a->text;
		break;
	case 'F':
		la->format = a->text;
		break;
	}
	return 0;
}

static const struct option latency_options[] = {
	{ "by", required_argument, NULL, OPT_BY },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "min-latency", required_argument, NULL, OPT_MIN_LATENCY },
	{ "idle-threshold", required_argument, NULL, OPT_IDLE_THRESHOLD },
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
	{ 0 }
};

static const struct cli_command latency_cmd = {
	.name = "latency",
	.usage = "usage: ktrace latency TRACE.fxt [options]\n"
		 "\n"
		 "Why did a thread wait?  Wakeup latency (sched_waking to switch-in),\n"
		 "preemption latency (switched out runnable to switch-in) and timer latency (a\n"
		 "sleeper's timer due to switch-in, split in timer_late, handler and wait), as\n"
		 "separate distributions, blocked time by Linux state (S, D), and the worst waits with\n"
		 "what held the CPU meanwhile: threads with their priority, interrupt handlers\n"
		 "(when recorded with --ftrace 'irq:*'), idle.  Waits that cannot be measured\n"
		 "(begun before the trace, no recorded wakeup, overlapping lost records) are\n"
		 "counted, never silently dropped.  p50/p90/p99 are within 3%; max is exact.\n"
		 "A --pid, --comm or --cpu that matches nothing in the trace is an error\n"
		 "(exit status 1) that says what the trace holds.\n"
		 "\n"
		 "  --by KEY               thread (default), process, cpu, all, or cgroup\n"
		 "  --pid PID              only this thread, or the threads of this process\n"
		 "  --comm NAME            only threads with this thread or process name\n"
		 "  --cgroup PATH          only threads in this cgroup (v2) or below it\n"
		 "  --cpu N                only waits that ended on CPU N\n"
		 "  --min-latency DUR      only waits at least this long (5ms, 200us)\n"
		 "  --idle-threshold DUR   the work-conservation report counts CPUs idle while\n"
		 "                         a thread that may run there waited longer (1ms)\n"
		 "  --top N                list the N worst waits with their blame (default 5)\n"
		 "  --hist                 runqlat's log2 histogram for each row\n"
		 "  -m, --msecs            milliseconds instead of microseconds\n"
		 "  --json                 the report as JSON (nanoseconds)\n"
		 "  -o, --output FILE      write the trace back with each of the worst waits as a\n"
		 "                         slice on its thread (category ktrace:latency), as FXT,\n"
		 "                         or JSON when FILE ends in .json\n"
		 "  -F, --format FMT       fxt or json for -o, whatever the extension\n"
		 "  --folded               blocked time per kernel stack as folded stacks, for\n"
		 "                         flamegraph.pl (record with --stacks or --blocked-in)\n"
		 "\n"
		 "  --critical-path        for the worst waits (--top, default 5) of the selected\n"
		 "                         threads, off CPU from switch-out to switch-in: who woke\n"
		 "                         it, what that thread did meanwhile (running, runnable\n"
		 "                         behind whom, blocked in what and woken by whom), back\n"
		 "                         until the wait is covered; -o writes it into the trace\n"
		 "  --tid TID              only this thread\n"
		 "  --at TS                the wait that holds this time (seconds, as dump prints)\n",
	.examples = "  ktrace latency sched.fxt\n"
		    "  ktrace latency sched.fxt --comm cyclictest --hist\n"
		    "  ktrace latency sched.fxt --by cpu --min-latency 1ms --top 20 -o worst.fxt\n"
		    "  ktrace record --ftrace 'irq:*' -o irq.fxt -d 10 && ktrace latency irq.fxt --json\n"
		    "  ktrace latency sched.fxt --critical-path --comm victim -o path.json\n"
		    "  ktrace latency off.fxt --folded | flamegraph.pl --countname=us > off.svg\n",
	.durations = true,
	.shortopts = "mo:F:",
	.longopts = latency_options,
	.min_args = 1,
	.max_args = 1,
	.opt = latency_opt,
};

int cmd_latency(int argc, char **argv)
{
	struct latency_args la = { .lo = { .pid = -1, .cpu = -1, .top = 5, .unit_ns = 1000 },
				   .co = { .tid = -1, .top = 5 } };
	struct cp_analysis *cp = NULL;
	bool json_out = false;
	struct lat_analysis *a;
	struct cli_input in;
	struct obuf out;
	int ret;

	ret = cli_parse_options(&latency_cmd, argc, argv, &la);
	if (ret >= 0)
		return ret;
	if ((la.co.tid >= 0 || la.co.at) && !la.critical) {
		cli_usage_error("--tid and --at go with --critical-path");
		return 2;
	}
	if (la.critical && la.folded) {
		cli_usage_error("--folded and --critical-path are different reports: pick one");
		return 2;
	}
	if (la.out_path && cli_output_format(la.format, la.out_path, &json_out))
		return 2;
	if (la.out_path && !strcmp(la.out_path, "-")) {
		cli_usage_error("-o -: the report goes to standard output; write the trace to a file");
		return 2;
	}
	if (cli_open_trace(&in, argv[optind], CLI_INPUT_REREAD))
		return 1;
	if (la.critical) {
		la.co.top = la.lo.top;
		la.lo.top = 0;	/* the latency report's own list is not printed */
	}
	a = lat_new(&la.lo);
	if (la.critical)
		cp = cp_new(a, &la.co);
	if (obuf_init(&out, 1, 1 << 16)) {
		pr_err("out of memory");
		cp_free(cp);
		lat_free(a);
		cli_close_trace(&in);
		return 1;
	}
	ret = latency_read(&in, a, cp);
	if (!ret)
		ret = check_filters(a, &la.lo, in.path);
	if (!ret) {
		if (cp && la.json_report)
			cp_report_json(cp, &out, in.path);
		else if (cp)
			cp_report_text(cp, &out, in.path);
		else if (la.folded)
			lat_report_folded(a, &out);
		else if (la.json_report)
			lat_report_json(a, &out, in.path);
		else
			lat_report_text(a, &out, in.path);
		if (obuf_flush(&out))
			ret = out.err;
	}
	if (!ret && la.out_path && cp)
		ret = cp_annotate(cp, &in, la.out_path, json_out);
	else if (!ret && la.out_path)
		ret = lat_annotate(a, &in, la.out_path, json_out);
	obuf_free(&out);
	cp_free(cp);
	lat_free(a);
	cli_close_trace(&in);
	return ret ? 1 : 0;
}
