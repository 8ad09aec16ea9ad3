// SPDX-License-Identifier: GPL-2.0
/* ktrace record: run a recorder, drain its per-CPU buffers, write an archive. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include <linux/ktrace.h>

#include "cli.h"
#include "commands.h"
#include "record.h"
#include "source_thread.h"
#include "utils.h"

#define MAX_CPUS		4096
/* How long the backend's poll may wait for records before it returns. */
#define SOURCE_POLL_MS		100
/* How long a source on its own thread waits between passes (ftrace: 4 MiB fill in 200 ms). */
#define THREAD_POLL_MS		10

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

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

static void progress(uint64_t start, const struct spool *sp, unsigned int n, bool final)
{
	uint64_t recs = 0, bytes = 0;

	for (unsigned int i = 0; i < n; i++) {
		recs += sp[i].records;
		bytes += sp[i].bytes;
	}
	fprintf(stderr, "\rktrace: recording %.1f s, %llu records, %.1f MB%s",
		(now_mono_ns() - start) / 1e9, (unsigned long long)recs, bytes / 1e6,
		final ? "\n" : "  ");
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

/* Waits for the trigger's --after window once it fired; 1 when recording should stop. */
static int trigger_done(const struct source_ops *ops, void *src, struct trigger_report *t,
			bool *said)
{
	int ret = ops->trigger(src, t);

	if (ret <= 0)
		return ret;
	if (!*said) {
		pr_info("latency trigger: thread %u waited %.3f ms from its wakeup to running on CPU %u; recording %.3f s more",
			t->tid, t->latency / 1e6, t->cpu,
			t->stop_at > t->ts ? (t->stop_at - t->ts) / 1e9 : 0.0);
		*said = true;
	}
	return now_mono_ns() > t->stop_at;
}

/* One recording: its sources, spools, clock sync, output and command. */
struct record_run {
	struct record_opts *ro;
	struct {
		const struct source_ops *ops;
		void *priv;
		struct spool *spools;
		unsigned int nspools;
		struct source_thread thread;	/* all but the backend's, while recording */
	} src[2];			/* the backend, then ftrace (--ftrace) */
	unsigned int nsrc;
	struct spool *spools;		/* the backend's, ktrace's own (cli), ftrace's */
	unsigned int nspools, cli, nall;
	struct clock_sync sync;
	struct cli_output out;
	uint64_t t0, start;
	pid_t child;
	int go, status;
	struct trigger_report trep;
	bool said_trigger;
	struct record_stats st;
	struct spool end_names;		/* the threads alive as recording stopped */
	struct cgroup_limits *limits;	/* cpu.max of the limited cgroups, start and end */
	struct cgroup_paths cgroups;	/* every cgroup v2 at the end, by id */
};

/* The recorder backend: --backend, or the module when it is loaded, else BPF. */
static const struct source_ops *choose_backend(const char *name, const struct record_opts *ro,
					       char *why, size_t len)
{
	char why_kmod[256] = "";
	int ret;

	if (name && !strcmp(name, "kmod")) {
		ret = source_kmod_ops.probe(ro, why, len);
		if (ret)
			pr_err("--backend kmod: %s, or use --backend bpf", why);
		return ret ? NULL : &source_kmod_ops;
	}
	if (name && strcmp(name, "bpf")) {
		cli_usage_error("--backend '%s': use kmod or bpf", name);
		return NULL;
	}
	if (!name && !source_kmod_ops.probe(ro, why_kmod, sizeof(why_kmod)))
		return &source_kmod_ops;
	ret = source_bpf_ops.probe(ro, why, len);
	if (ret == -ENOTSUP && !name)
		pr_err("no backend can record here: %s, and %s", why_kmod, why);
	else if (ret == -ENOTSUP || (ret && ro->verbose))
		pr_err("%s", why);
	/* -EPERM: capabilities may still do; loading will tell. */
	return ret == -ENOTSUP ? NULL : &source_bpf_ops;
}

/*
 * Spools, the output file, clock sync and every source, opened (and so
 * checked: an unknown --ftrace event, a probe) before anything records.
 */
static int record_open(struct record_run *rs, const struct source_ops *main_ops,
		       struct record_opts *ro, const char *ftrace_spec, const char *out_path,
		       bool json, const char *why)
{
	long ncpu = libbpf_num_possible_cpus();
	int ret;

	rs->ro = ro;
	if (ncpu <= 0 || ncpu > MAX_CPUS) {
		pr_err("cannot count the possible CPUs (/sys/devices/system/cpu/possible): %ld", ncpu);
		return -EINVAL;
	}
	/*
	 * One spool per CPU (two with -p: the BPF backend keeps probe records
	 * apart), then one for the records ktrace itself writes, then with
	 * --ftrace one per CPU for ftrace's.
	 */
	rs->nspools = ncpu * (ro->nprobes ? 2 : 1);
	rs->cli = rs->nspools;
	rs->nall = rs->nspools + 1 + (ftrace_spec ? ncpu : 0);
	rs->spools = calloc(rs->nall, sizeof(*rs->spools));
	if (!rs->spools)
		return -ENOMEM;
	/* Written beside and renamed over it at the end: a failure leaves what was there. */
	ret = cli_output_open(&rs->out, out_path, json);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < rs->nall; i++) {
		ret = spool_open(&rs->spools[i]);
		if (ret) {
			pr_err("cannot create a temporary file: %s", strerror(-ret));
			return ret;
		}
	}
	ret = clock_sync_init(&rs->sync);
	if (ret)
		return ret;
	rs->src[rs->nsrc].ops = main_ops;
	rs->src[rs->nsrc].spools = rs->spools;
	rs->src[rs->nsrc++].nspools = rs->nspools;
	if (ftrace_spec) {
		ro->ftrace = ftrace_spec;
		rs->src[rs->nsrc].ops = &source_ftrace_ops;
		rs->src[rs->nsrc].spools = &rs->spools[rs->cli + 1];
		rs->src[rs->nsrc++].nspools = ncpu;
	}
	/* ftrace first: an unknown event is refused before the recorder loads. */
	for (int i = rs->nsrc - 1; i >= 0; i--) {
		ret = rs->src[i].ops->open(&rs->src[i].priv, ro, rs->src[i].spools,
					   rs->src[i].nspools);
		if (ret) {
			if (ret == -EPERM && why[0])
				pr_err("%s", why);
			return ret;
		}
		if (rs->src[i].ops->marker) {
			rs->sync.marker = rs->src[i].ops->marker;
			rs->sync.marker_ctx = rs->src[i].priv;
		}
	}
	return 0;
}

/* Every source recording, the threads alive named, the first sync point, the command let go. */
static int record_start(struct record_run *rs)
{
	const struct source_ops *ops = rs->src[0].ops;
	int ret;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* A closed terminal ends the recording, but does not lose it. */
	signal(SIGHUP, on_signal);
	/* What a throttled cgroup's limit was when recording began. */
	rs->limits = xcalloc(1, sizeof(*rs->limits), "record: cgroup limits");
	cgroup_limits_read(rs->limits, false);
	/* Before anything records: the trace_info event opens the archive's time. */
	rs->t0 = now_mono_ns();
	for (int i = rs->nsrc - 1; i >= 0; i--) {
		ret = rs->src[i].ops->start(rs->src[i].priv);
		if (ret)
			return ret;
	}
	rs->start = now_mono_ns();
	/* A ring may write over the module's own state dump: names go in a spool too. */
	if (!ops->statedump_in_kernel || rs->ro->ring) {
		/*
		 * Every thread alive now, named before anything else in the
		 * archive; fork, exec and rename events, recording already,
		 * name the rest.
		 */
		uint64_t threads;
		int err;

		rs->sync.w->sink_ctx = &rs->spools[rs->cli];
		err = statedump_write(rs->sync.w, &threads);
		if (err)
			pr_warn("cannot list the running threads from /proc: %s; names come only from events",
				strerror(-err));
	}
	clock_sync_point(&rs->sync, &rs->spools[rs->cli]);
	if (rs->child > 0) {
		if (write(rs->go, "g", 1) != 1)
			pr_warn("cannot start the command");
		close(rs->go);
		rs->go = -1;
	}
	return 0;
}

/*
 * The other sources (ftrace) drained each on a thread of its own, so that
 * a slow pass of theirs never holds the recorder's drain back; one whose
 * thread cannot start is polled after the recorder, on this thread.
 */
static void start_threads(struct record_run *rs)
{
	for (unsigned int i = 1; i < rs->nsrc && !rs->ro->ring; i++) {
		int ret = source_thread_start(&rs->src[i].thread, rs->src[i].ops,
					      rs->src[i].priv, THREAD_POLL_MS);

		if (ret)
			pr_warn("cannot start a thread to read %s: %s; reading it between the recorder's passes",
				rs->src[i].ops->name, strerror(-ret));
	}
}

/* One pass over every source: the recorder's poll waits, the rest are checked. */
static int poll_sources(struct record_run *rs, const char **failed)
{
	int ret = 0;

	for (unsigned int i = 0; i < rs->nsrc && !ret; i++) {
		*failed = rs->src[i].ops->name;
		if (rs->src[i].thread.running)
			ret = source_thread_error(&rs->src[i].thread);
		else
			ret = rs->src[i].ops->poll(rs->src[i].priv, i ? 0 : SOURCE_POLL_MS);
	}
	return ret;
}

/*
 * Until the time is up, the command ends, a signal, or the latency
 * trigger's window has passed.  A ring is read once, when it stops.
 */
static void record_loop(struct record_run *rs, uint64_t duration_ns)
{
	bool tty = isatty(STDERR_FILENO);
	uint64_t last_progress = 0;
	const char *failed = NULL;
	int ret = 0;

	start_threads(rs);
	while (!stop_requested) {
		if (rs->ro->ring)
			usleep(100000);
		else
			ret = poll_sources(rs, &failed);
		if (ret) {
			pr_err("reading the %s buffers: %s; stopping, what was read is kept",
			       failed, strerror(-ret));
			break;
		}
		if (rs->child > 0 && waitpid(rs->child, &rs->status, WNOHANG) == rs->child) {
			rs->child = 0;
			break;
		}
		if (duration_ns && now_mono_ns() - rs->start >= duration_ns)
			break;
		if (rs->ro->trigger_ns) {
			ret = trigger_done(rs->src[0].ops, rs->src[0].priv, &rs->trep,
					   &rs->said_trigger);
			if (ret < 0)
				pr_err("reading the latency trigger: %s; stopping", strerror(-ret));
			if (ret)
				break;
		}
		if (tty && !rs->ro->ring && now_mono_ns() - last_progress > 500000000ULL) {
			last_progress = now_mono_ns();
			progress(rs->start, rs->spools, rs->nspools, false);
		}
	}
	/* It may have fired as the command ended. */
	if (rs->ro->trigger_ns && !rs->said_trigger)
		trigger_done(rs->src[0].ops, rs->src[0].priv, &rs->trep, &rs->said_trigger);
	if (tty && !rs->ro->ring)
		progress(rs->start, rs->spools, rs->nspools, true);
}

/*
 * The threads alive as recording stopped, named from /proc before the
 * command is ended: a ring may keep none of their own names (the module
 * names every live task at the start only, and only into the ring).
 */
static void end_names(struct record_run *rs)
{
	struct fxt_writer *w;
	uint64_t threads;
	int err;

	if (rs->src[0].ops->statedump_in_kernel && !rs->ro->ring)
		return;
	err = spool_open(&rs->end_names);
	w = err ? NULL : spool_writer_new(&rs->end_names);
	if (!w) {
		pr_warn("cannot keep the names of the threads alive at the end: %s",
			strerror(err ? -err : ENOMEM));
		return;
	}
	err = statedump_write(w, &threads);
	if (err)
		pr_warn("cannot list the running threads from /proc: %s; names come only from events",
			strerror(-err));
	spool_writer_free(w);
}

/*
 * The sources on threads of their own, quiesced and their loops ended.
 * A pass under way may be long (a busy CPU's whole buffer), so the
 * backend is still drained until each has ended.  Their errors, if any,
 * were said while recording; stop() reads what is left.
 */
static void stop_threads(struct record_run *rs)
{
	bool busy = true;
	int ret = 0;

	for (unsigned int i = 1; i < rs->nsrc; i++) {
		if (!rs->src[i].thread.running)
			continue;
		if (rs->src[i].ops->quiesce)
			rs->src[i].ops->quiesce(rs->src[i].priv);
		source_thread_ask_stop(&rs->src[i].thread);
	}
	while (busy && !ret) {
		busy = false;
		for (unsigned int i = 1; i < rs->nsrc; i++)
			busy |= source_thread_busy(&rs->src[i].thread);
		if (busy)
			ret = rs->src[0].ops->poll(rs->src[0].priv, 1);
	}
	for (unsigned int i = 1; i < rs->nsrc; i++)
		source_thread_stop(&rs->src[i].thread);
}

/* The last sync point, every source stopped and drained, its clock aligned; the command ended. */
static void record_stop(struct record_run *rs)
{
	int ret;

	/* ftrace's marker goes in while its thread reads: another file, no shared state. */
	clock_sync_point(&rs->sync, &rs->spools[rs->cli]);
	stop_threads(rs);
	for (unsigned int i = 0; i < rs->nsrc; i++) {
		ret = rs->src[i].ops->stop(rs->src[i].priv, &rs->st);
		if (ret && i == 0)
			pr_err("draining the recorder's buffers: %s", strerror(-ret));
		if (rs->src[i].ops->align)
			rs->src[i].ops->align(rs->src[i].priv, rs->sync.points, rs->sync.n);
	}
	/* Not before: reading /proc while a ring records pushes its window out. */
	end_names(rs);
	if (rs->limits)
		cgroup_limits_read(rs->limits, true);
	/* The paths of the cgroups the recorders give by id, the command's included. */
	cgroup_paths_read(&rs->cgroups);
	if (rs->child > 0) {
		/* Stopped by a signal, the duration or the trigger: let the command finish. */
		kill(rs->child, SIGTERM);
		waitpid(rs->child, &rs->status, 0);
		rs->child = 0;
		rs->status = 0;	/* its end was ours, not its own */
	}
	for (unsigned int i = 0; i < rs->nspools; i++) {
		rs->st.records += rs->spools[i].records;
		rs->st.rejected += rs->spools[i].rejected;
	}
}

/* The archive (and JSON) into the output, or kept elsewhere when that fails. */
static int record_write(struct record_run *rs, const char *out_path)
{
	const struct source_ops *ops = rs->src[0].ops;
	struct archive_stats st = { 0 };
	uint64_t from = 0, bytes;
	int ret;

	if (rs->ro->ring)
		from = ring_common_start(rs->spools, rs->nall);
	ret = write_archive(rs->out.fd, ops, rs->src[0].priv, rs->ro, rs->t0, rs->spools, rs->nall,
			    from, &rs->end_names, rs->limits, &rs->cgroups, &st);
	bytes = st.bytes;
	if (ret) {
		pr_err("writing %s: %s", out_path, strerror(-ret));
		cli_output_abort(&rs->out);
	} else {
		ret = cli_output_commit(&rs->out, &bytes);	/* says what failed */
	}
	if (ret) {
		rescue(ops, rs->src[0].priv, rs->ro, rs->t0, rs->spools, rs->nall, from,
		       &rs->end_names, rs->limits, &rs->cgroups);
		return ret;
	}
	pr_info("wrote %s: %llu records (%llu from the recorder, the rest names and metadata), %.1f MB, %llu dropped%s, %llu untraced switches (the kernel's), %llu threads without a name",
		out_path, (unsigned long long)st.records, (unsigned long long)rs->st.records,
		bytes / 1e6, (unsigned long long)rs->st.dropped,
		rs->st.dropped ? " (try a larger --buffer-size)" : "",
		(unsigned long long)st.untraced, (unsigned long long)st.unnamed);
	if (rs->st.rejected)
		pr_warn("%llu malformed records from the recorder were left out",
			(unsigned long long)rs->st.rejected);
	if (from)
		pr_info("ring: the trace starts at %.6f s, where every CPU's window has data",
			from / 1e9);
	if (rs->ro->trigger_ns && !rs->said_trigger)
		pr_info("the latency trigger did not fire: no wait reached %.3f ms",
			rs->ro->trigger_ns / 1e6);
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

/* Leaves the system as found: the command ended, sources closed, spools and temporaries gone. */
static void record_close(struct record_run *rs)
{
	if (rs->go >= 0)
		close(rs->go);
	if (rs->child > 0) {
		kill(rs->child, SIGKILL);
		waitpid(rs->child, NULL, 0);
	}
	for (unsigned int i = 0; i < rs->nsrc; i++)
		if (rs->src[i].priv)
			rs->src[i].ops->close(rs->src[i].priv);	/* also after a failed open */
	for (unsigned int i = 0; rs->spools && i < rs->nall; i++)
		spool_close(&rs->spools[i]);
	free(rs->spools);
	spool_close(&rs->end_names);
	free(rs->limits);
	cgroup_paths_free(&rs->cgroups);
	clock_sync_free(&rs->sync);
	cli_output_abort(&rs->out);	/* nothing if it was renamed into place */
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
		if (cli_parse_size(a->name, a->text, &ro->buffer_size))
			return -EINVAL;
		if (!ktrace_buffer_size_valid(ro->buffer_size))
			return cli_usage_error("%s '%s': give a power of two from 8K to 1G, e.g. 4M",
					       a->name, a->text);
		break;
	case 'd':
		if (cli_parse_duration(a->name, a->text, CLI_NSEC_PER_SEC, &ra->duration_ns))
			return -EINVAL;
		if (!ra->duration_ns)
			return cli_usage_error("%s '%s': give a duration above 0", a->name, a->text);
		break;
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
		if (!*a->text || strlen(a->text) >= sizeof(ro->trigger_comm))
			return cli_usage_error("%s '%s': give a name of 1 to 15 characters, as the kernel keeps it",
					       a->name, a->text);
		strcpy(ro->trigger_comm, a->text);
		ra->has_comm = true;
		break;
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
		 "                     [--no-irq]\n"
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

/*
 * Without -b, the default size for this machine's CPUs (each possible one
 * has its buffers), said with what it comes to: on many CPUs it is less
 * than 4 MiB each.
 */
static int choose_buffer_size(struct record_opts *ro)
{
	int ncpus;

	if (ro->buffer_size)
		return 0;
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0) {
		pr_err("cannot count the possible CPUs (%s): give the buffer size with -b",
		       strerror(ncpus ? -ncpus : EINVAL));
		return -EINVAL;
	}
	ro->buffer_size = record_default_buffer_size(ncpus);
	pr_info("buffers: %llu KiB per CPU for %d CPUs, %llu MiB in all (-b sets the size per CPU)",
		(unsigned long long)ro->buffer_size >> 10, ncpus,
		(unsigned long long)(ro->buffer_size * ncpus) >> 20);
	return 0;
}

/* A trigger for a thread or process that does not exist could only fire on a reused id. */
static int check_trigger_pid(uint32_t pid)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%u", pid);
	if (access("/proc/self", F_OK) || !access(path, F_OK))
		return 0;
	pr_err("--pid %u: no such thread or process is running (%s does not exist)", pid, path);
	return -ESRCH;
}

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
