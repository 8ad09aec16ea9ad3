// SPDX-License-Identifier: GPL-2.0
/* ktrace record: run a recorder, drain its per-CPU buffers, write an archive. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/ktrace.h>

#include "cli/cli.h"
#include "commands.h"
#include "lib/utils.h"
#include "record/record.h"
#include "record/session.h"

/* Starts COMMAND stopped on a pipe; writing to *go lets it exec. */
static pid_t spawn(char **argv, int *go)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(126);	/* ktrace gave up before starting */
		execvp(argv[0], argv);
		fprintf(stderr, "ktrace: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}


static int parse_probe(const char *spec, struct record_opts *ro)
{
	const char *colon = strchr(spec, ':');
	struct probe_spec *p;
	size_t len;

	if (ro->nprobes >= ARRAY_SIZE(ro->probes)) {
		cli_usage_error("-p '%s': at most %zu probes", spec, ARRAY_SIZE(ro->probes));
		return -E2BIG;
	}
	p = &ro->probes[ro->nprobes];
	len = colon ? strlen(colon + 1) : 0;
	if (!colon || !len || len >= sizeof(p->symbol) ||
	    strspn(colon + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != len ||
	    (strncmp(spec, "kprobe:", 7) && strncmp(spec, "duration:", 9))) {
		cli_usage_error("-p '%s': use kprobe:SYMBOL or duration:SYMBOL with a kernel function's name",
				spec);
		return -EINVAL;
	}
	p->duration = spec[0] == 'd';
	memcpy(p->symbol, colon + 1, len + 1);
	ro->nprobes++;
	return 0;
}

/* Long-only options. */
enum {
	OPT_BACKEND = 256,
	OPT_RING,
	OPT_BLOCKED_IN,
	OPT_NO_BLOCKED_IN,
	OPT_NO_IRQ,
	OPT_COMPACT_WAKEUPS,
	OPT_STACKS,
	OPT_RAW_STACKS,
	OPT_FTRACE,
	OPT_STOP_ON_LATENCY,
	OPT_AFTER,
	OPT_PID,
	OPT_COMM,
};

/* The trigger's options: --after, --pid and --comm only mean something with it. */
static int check_trigger_opts(struct record_opts *ro, bool after, bool pid, bool comm)
{
	if (!ro->trigger_ns && (after || pid || comm)) {
		cli_usage_error("--after, --pid and --comm go with --stop-on-latency");
		return -EINVAL;
	}
	if (ro->trigger_ns)
		ro->ring = true;
	return 0;
}













/* As a shell would: the command's own status, 128 + N for signal N. */
static int command_status(int status, const char *cmd)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) && WEXITSTATUS(status) != 127) {
		pr_info("%s exited with status %d", cmd, WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	if (WIFSIGNALED(status)) {
		pr_info("%s was killed by signal %d (%s)", cmd, WTERMSIG(status),
			strsignal(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	return 0;
}


/* The command line, as the options leave it. */
struct record_args {
	struct record_opts ro;
	const char *out_path, *format, *backend, *ftrace_spec;
	uint64_t duration_ns;
	bool has_after, has_pid, has_comm;
	bool blocked_in, no_blocked_in;
};

/*
 * Where threads blocked is recorded by default, past the default
 * threshold; --stacks and --raw-stacks say what to record of it.
 */
static int check_blocked_in_opts(struct record_args *ra)
{
	struct record_opts *ro = &ra->ro;

	if (ra->no_blocked_in && (ra->blocked_in || ro->stacks || ro->raw_stacks)) {
		cli_usage_error("--no-blocked-in goes with neither --blocked-in, --stacks nor --raw-stacks");
		return -EINVAL;
	}
	if (ra->no_blocked_in)
		return 0;
	if (!ro->stack_depth)
		ro->stack_depth = KTRACE_KSTACK_BLOCKED_DEPTH;
	if (!ra->blocked_in)
		ro->blocked_min_ns = KTRACE_KSTACK_MIN_OFF_NS;
	return 0;
}

static int record_opt(void *ctx, const struct cli_arg *a)
{
	struct record_args *ra = ctx;
	struct record_opts *ro = &ra->ro;

	switch (a->c) {
	case 'o':
		ra->out_path = a->text;
		break;
	case 'F':
		ra->format = a->text;
		break;
	case OPT_BACKEND:
		ra->backend = a->text;
		break;
	case 'b':
		return record_parse_buffer_size(a, &ro->buffer_size);
	case 'd':
		return record_parse_duration(a, &ra->duration_ns);
	case OPT_RING:
		ro->ring = true;
		break;
	case OPT_BLOCKED_IN:
		ro->blocked_min_ns = KTRACE_KSTACK_MIN_OFF_NS;
		if (a->text && cli_parse_duration(a->name, a->text, CLI_UNIT_REQUIRED,
						  &ro->blocked_min_ns))
			return -EINVAL;
		ra->blocked_in = true;
		break;
	case OPT_NO_BLOCKED_IN:
		ra->no_blocked_in = true;
		break;
	case OPT_NO_IRQ:
		ro->irqs = false;
		break;
	case OPT_COMPACT_WAKEUPS:
		ro->compact_wakeups = true;
		break;
	case OPT_STACKS:
		ro->stacks = true;
		ro->stack_depth = KTRACE_KSTACK_MAX_DEPTH;
		break;
	case OPT_RAW_STACKS:
		ro->raw_stacks = true;
		break;
	case OPT_FTRACE:
		ra->ftrace_spec = a->text;
		break;
	case 'p':
		return parse_probe(a->text, ro);
	case 'v':
		ro->verbose = true;
		break;
	case OPT_STOP_ON_LATENCY:
		if (cli_parse_duration(a->name, a->text, CLI_UNIT_REQUIRED, &ro->trigger_ns))
			return -EINVAL;
		if (!ro->trigger_ns)
			return cli_usage_error("%s '%s': give a duration above 0, as in 5ms",
					       a->name, a->text);
		break;
	case OPT_AFTER:
		if (cli_parse_duration(a->name, a->text, CLI_UNIT_REQUIRED, &ro->after_ns))
			return -EINVAL;
		if (ro->after_ns > 3600 * CLI_NSEC_PER_SEC)
			return cli_usage_error("%s '%s': give a duration of at most an hour",
					       a->name, a->text);
		ra->has_after = true;
		break;
	case OPT_PID:
		if (cli_parse_pid(a->name, a->text, &ro->trigger_pid))
			return -EINVAL;
		ra->has_pid = true;
		break;
	case OPT_COMM:
		ra->has_comm = true;
		return record_parse_comm(a, ro->trigger_comm);
	}
	return 0;
}

static const struct option record_options[] = {
	{ "stop-on-latency", required_argument, NULL, OPT_STOP_ON_LATENCY },
	{ "after", required_argument, NULL, OPT_AFTER },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, 'F' },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "buffer-size", required_argument, NULL, 'b' },
	{ "duration", required_argument, NULL, 'd' },
	{ "ring", no_argument, NULL, OPT_RING },
	{ "blocked-in", optional_argument, NULL, OPT_BLOCKED_IN },
	{ "no-blocked-in", no_argument, NULL, OPT_NO_BLOCKED_IN },
	{ "no-irq", no_argument, NULL, OPT_NO_IRQ },
	{ "compact-wakeups", no_argument, NULL, OPT_COMPACT_WAKEUPS },
	{ "stacks", no_argument, NULL, OPT_STACKS },
	{ "raw-stacks", no_argument, NULL, OPT_RAW_STACKS },
	{ "ftrace", required_argument, NULL, OPT_FTRACE },
	{ "probe", required_argument, NULL, 'p' },
	{ "verbose", no_argument, NULL, 'v' },
	{ 0 }
};

static const struct cli_command record_cmd = {
	.name = "record",
	.usage = "usage: ktrace record [-o FILE] [-F fxt|json] [--backend bpf|kmod] [-b SIZE]\n"
		 "                     [--blocked-in[=DUR] | --no-blocked-in] [--stacks] [--raw-stacks]\n"
		 "                     [--no-irq] [--compact-wakeups]\n"
		 "                     [--ring [--stop-on-latency DUR [--after DUR] [--pid PID]\n"
		 "                     [--comm NAME]]] [-d DUR] [-v] [-- COMMAND [ARGS...]]\n"
		 "\n"
		 "Record context switches, wakeups, interrupt handlers and thread names on\n"
		 "every CPU until -d's time has passed, COMMAND exits, or Ctrl-C; then\n"
		 "write a time-sorted FXT archive (or Chrome JSON when FILE ends in .json).\n"
		 "With COMMAND, the exit status is the command's own (128 + N if signal N\n"
		 "killed it).\n"
		 "\n"
		 "  -o, --output FILE      where to write the trace (default: ktrace.fxt)\n"
		 "  -F, --format FMT       fxt or json (default: from FILE's extension)\n"
		 "      --backend NAME     kmod (/dev/ktrace) or bpf; default: kmod if loaded, else bpf\n"
		 "  -b, --buffer-size SIZE per-CPU buffer, e.g. 4M (a power of two; default 4M,\n"
		 "                         less above 32 CPUs: 128M in all, 512K each at least)\n"
		 "      --ring             flight recorder: keep the newest buffer's worth per CPU;\n"
		 "                         the trace starts where every CPU's window has data\n"
		 "      --stop-on-latency DUR  a flight recorder (implies --ring) that stops when\n"
		 "                         a thread waits DUR (5ms, 200us) from its wakeup to\n"
		 "                         running, as seen in the kernel; the trace marks the\n"
		 "                         wait (ktrace:latency trigger)\n"
		 "      --after DUR        with --stop-on-latency: record this much more (default 0)\n"
		 "      --pid PID          with --stop-on-latency: only this thread or process\n"
		 "      --comm NAME        with --stop-on-latency: only threads so named\n"
		 "      --blocked-in[=DUR] the kernel function each thread blocked in (S, D), for\n"
		 "                         blocks of DUR or more off the CPU (on by default, 100us;\n"
		 "                         0: every block); shorter blocks are not named\n"
		 "      --no-blocked-in    do not record where threads blocked\n"
		 "      --stacks           record its whole kernel stack too (ktrace latency --folded)\n"
		 "      --raw-stacks       keep kernel addresses, not names from /proc/kallsyms\n"
		 "      --no-irq           do not record interrupt handlers (recorded by default:\n"
		 "                         hardirqs, softirqs and x86's local timer, as durations\n"
		 "                         on each CPU's interrupt track, which ktrace latency blames)\n"
		 "      --compact-wakeups  a wakeup made by the thread its CPU runs in 24 bytes, not\n"
		 "                         40, with no waker argument: ktrace's analyses, dump and\n"
		 "                         JSON still name the waker, but Perfetto shows such a\n"
		 "                         wakeup as made by the woken thread itself\n"
		 "  -p, --probe SPEC       kprobe:SYMBOL (an instant on entry) or duration:SYMBOL\n"
		 "                         (entry to return, nested under recursion); repeatable\n"
		 "      --ftrace EVENTS    also capture ftrace events, SYSTEM:EVENT globs separated\n"
		 "                         by commas (irq:*,block:block_rq_issue), merged by time;\n"
		 "                         unless --no-irq, irq:* handler pairs stay instants beside\n"
		 "                         the recorded durations\n"
		 "  -d, --duration DUR     stop after this long; a bare number is seconds (5, 300ms)\n"
		 "  -v, --verbose          say more, including the BPF loader's messages\n",
	.examples = "  ktrace record -o sched.fxt -d 5\n"
		    "  ktrace record -o make.json -- make -j2\n"
		    "  ktrace record --ftrace 'irq:*,timer:hrtimer_expire_entry' -o irq.fxt -d 2\n"
		    "  ktrace record --stacks -o off.fxt -- ./server; ktrace latency --folded off.fxt\n"
		    "  ktrace record --ring -b 64M -o last.fxt -- ./reproducer\n"
		    "  ktrace record --stop-on-latency 5ms --after 100ms --comm cyclictest -o lat.fxt\n",
	.durations = true,
	.shortopts = "+o:F:b:d:p:v",
	.longopts = record_options,
	.min_args = 0,
	.max_args = CLI_ANY_ARGS,
	.opt = record_opt,
};



int cmd_record(int argc, char **argv)
{
	struct record_args ra = { .out_path = "ktrace.fxt", .ro.irqs = true };
	struct record_opts *ro = &ra.ro;
	const char *out_path;
	struct record_run rs = { .go = -1, .child = -1, .sync = { .marker_fd = -1 } };
	const struct source_ops *main_ops;
	char why[256] = "";
	bool json;
	int ret, cmd_status = 0;

	ret = cli_parse_options(&record_cmd, argc, argv, &ra);
	if (ret >= 0)
		return ret;
	out_path = ra.out_path;
	if (cli_output_format(ra.format, out_path, &json) ||
	    check_trigger_opts(ro, ra.has_after, ra.has_pid, ra.has_comm) ||
	    check_blocked_in_opts(&ra))
		return 2;
	if (ra.has_pid && check_trigger_pid(ro->trigger_pid))
		return 1;

	ret = choose_buffer_size(ro);
	if (ret)
		return 1;
	main_ops = choose_backend(ra.backend, ro, why, sizeof(why));
	if (!main_ops)
		return ra.backend && strcmp(ra.backend, "kmod") && strcmp(ra.backend, "bpf") ? 2 : 1;
	ret = record_open(&rs, main_ops, ro, ra.ftrace_spec, out_path, json, why);
	if (!ret && optind < argc) {
		rs.child = spawn(argv + optind, &rs.go);
		if (rs.child < 0) {
			ret = -errno;
			pr_err("cannot start %s: %s", argv[optind], strerror(-ret));
		}
	}
	if (!ret)
		ret = record_start(&rs);
	if (!ret) {
		pr_info("recording with the %s backend into %s%s", main_ops->name, out_path,
			rs.child > 0 || ra.duration_ns ? "" : "; Ctrl-C stops");
		record_loop(&rs, ra.duration_ns);
		record_stop(&rs);
		ret = record_write(&rs, out_path);
	}
	if (!ret)
		cmd_status = command_status(rs.status, argv[optind]);
	if (!ret && WIFEXITED(rs.status) && WEXITSTATUS(rs.status) == 127)
		ret = -ENOENT;
	record_close(&rs);
	return ret ? 1 : cmd_status;
}
