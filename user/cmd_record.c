// SPDX-License-Identifier: GPL-2.0
/* ktrace record: run a recorder, drain its per-CPU buffers, write an archive. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "commands.h"
#include "ftrace_capture.h"
#include "json_writer.h"
#include "record.h"
#include "utils.h"

#define DEFAULT_BUFFER_SIZE	(4U << 20)
#define MAX_CPUS		4096

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage(FILE *f)
{
	fputs("usage: ktrace record [-o FILE] [-F fxt|json] [--backend bpf|kmod] [-b SIZE]\n"
	      "                     [--ring [--stop-on-latency DUR [--after DUR] [--pid PID]\n"
	      "                     [--comm NAME]]] [-d SECONDS] [-v] [-- COMMAND [ARGS...]]\n"
	      "\n"
	      "Record context switches, wakeups and thread names on every CPU until\n"
	      "SECONDS have passed, COMMAND exits, or Ctrl-C; then write a time-sorted\n"
	      "FXT archive (or Chrome JSON when FILE ends in .json).  With COMMAND, the\n"
	      "exit status is the command's own (128 + N if signal N killed it).\n"
	      "\n"
	      "  -o, --output FILE      where to write the trace (default: ktrace.fxt)\n"
	      "  -F, --format FMT       fxt or json (default: from FILE's extension)\n"
	      "      --backend NAME     kmod (/dev/ktrace) or bpf; default: kmod if loaded, else bpf\n"
	      "  -b, --buffer-size SIZE per-CPU buffer, e.g. 4M (default 4M; a power of two)\n"
	      "      --ring             flight recorder: keep the newest buffer's worth per CPU;\n"
	      "                         the trace starts where every CPU's window has data\n"
	      "      --stop-on-latency DUR  a flight recorder (implies --ring) that stops when\n"
	      "                         a thread waits DUR (5ms, 200us) from its wakeup to\n"
	      "                         running, as seen in the kernel; the trace marks the\n"
	      "                         wait (ktrace:latency trigger)\n"
	      "      --after DUR        with --stop-on-latency: record this much more (default 0)\n"
	      "      --pid PID          with --stop-on-latency: only this thread or process\n"
	      "      --comm NAME        with --stop-on-latency: only threads so named\n"
	      "  -p, --probe SPEC       kprobe:SYMBOL (an instant on entry) or duration:SYMBOL\n"
	      "                         (entry to return, nested under recursion); repeatable\n"
	      "      --ftrace EVENTS    also capture ftrace events, SYSTEM:EVENT globs separated\n"
	      "                         by commas (irq:*,block:block_rq_issue), merged by time\n"
	      "  -d, --duration SECONDS stop after this long\n"
	      "  -v, --verbose          say more, including the BPF loader's messages\n"
	      "\n"
	      "EXAMPLES\n"
	      "  ktrace record -o sched.fxt -d 5\n"
	      "  ktrace record -o make.json -- make -j2\n"
	      "  ktrace record --ftrace 'irq:*,timer:hrtimer_expire_entry' -o irq.fxt -d 2\n"
	      "  ktrace record --ring -b 64M -o last.fxt -- ./reproducer\n"
	      "  ktrace record --stop-on-latency 5ms --after 100ms --comm cyclictest -o lat.fxt\n", f);
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end || v == 0)
		return -EINVAL;
	*out = v;
	return 0;
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

static void trace_info(struct fxt_writer *w, const char *backend, uint64_t ts)
{
	struct fxt_arg args[4];
	struct utsname u;

	uname(&u);
	args[0] = fxt_arg_str("host", u.nodename);
	args[1] = fxt_arg_str("kernel", u.release);
	args[2] = fxt_arg_str("backend", backend);
	args[3] = fxt_arg_str("clock", "CLOCK_MONOTONIC");
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, ts, 0, 0, "ktrace:meta", "trace_info", args, 4, 0);
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

/* Writes the archive: preamble, trace info, names now alive, merged records. */
static const char *kernel_release(void)
{
	static struct utsname u;

	uname(&u);
	return u.release;
}

/*
 * A ring keeps each CPU's newest records, so the window of a CPU whose ring
 * wrapped starts late, and each at a different time; the archive starts
 * where they all have data.  (A ring that never wrapped has everything.)
 */
static uint64_t ring_common_start(const struct spool *spools, unsigned int n)
{
	uint64_t from = 0, t;

	for (unsigned int i = 0; i < n; i++) {
		if (!spools[i].wrapped || !spools[i].timed_records)
			continue;
		t = spools[i].min_ts + spools[i].offset;
		if (t > from)
			from = t;
	}
	return from;
}

/* @records: every record in the archive, as `ktrace dump --stats` counts them. */
static int write_archive(int fd, const struct source_ops *ops, const struct record_opts *ro,
			 uint64_t start, struct spool *spools, unsigned int n, uint64_t from,
			 uint64_t *bytes, uint64_t *records)
{
	uint64_t threads;
	struct fxt_writer *w = malloc(sizeof(*w));
	int ret;

	if (!w || fxt_writer_init(w, fd)) {
		free(w);
		return -ENOMEM;
	}
	fxt_write_preamble(w, 1, "ktrace");
	trace_info(w, ops->name, start);
	/* The BPF probes name their events by these indices. */
	if (!ops->statedump_in_kernel)
		for (unsigned int i = 0; i < ro->nprobes; i++)
			fxt_write_string(w, KTRACE_FXT_STR_FIRST_PROBE + i, ro->probes[i].symbol);
	/*
	 * The threads alive now, first: the names recorded (those alive at
	 * the start, then fork, exec and rename) come later and win, and a
	 * thread whose events were lost, or written over in a ring, still
	 * gets one.
	 */
	if (!ops->statedump_in_kernel || ro->ring)
		statedump_write(w, &threads);
	ret = merge_spools(spools, n, w, from);
	*bytes = w->out.total + w->out.len;
	*records = w->records;
	if (!ret)
		ret = fxt_writer_finish(w);
	else
		fxt_writer_finish(w);
	free(w);
	return ret;
}

/*
 * Writing the output failed (a full disk, say): the recording is still in
 * the spools, so write it as FXT where there is room and say where.
 */
static void rescue(const struct source_ops *ops, const struct record_opts *ro, uint64_t start,
		   struct spool *spools, unsigned int n, uint64_t from)
{
	const char *dirs[] = { getenv("TMPDIR"), "/var/tmp", "/tmp", "." };
	uint64_t bytes, records;
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int fd;

		if (!dirs[i] || !*dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/ktrace-%d.fxt", dirs[i], getpid());
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			continue;
		if (!write_archive(fd, ops, ro, start, spools, n, from, &bytes, &records) &&
		    !close(fd)) {
			pr_err("the recording was kept in %s (%.1f MB; `ktrace convert` turns it into JSON)",
			       path, bytes / 1e6);
			return;
		}
		close(fd);
		unlink(path);
	}
	pr_err("the recording could not be written anywhere: tried $TMPDIR, /var/tmp, /tmp and .");
}

/*
 * Clock-sync points: a clock_sync event in the trace and, when tracefs is
 * there, `trace_event_clock_sync: name=ID` in trace_marker, so ftrace text
 * captured meanwhile (trace-cmd, the `trace` file) can be aligned later by
 * `ktrace merge`, or by catapult's viewer from JSON.
 */
struct clock_sync {
	struct fxt_writer *w;
	int marker_fd;
	struct ftrace_capture *ftrace;	/* --ftrace's instance, if any */
	struct sync_point points[2];	/* start and stop, on the recorder's clock */
	unsigned int n;
};

static int clock_sync_init(struct clock_sync *cs)
{
	static const char *const markers[] = {
		"/sys/kernel/tracing/trace_marker", "/sys/kernel/debug/tracing/trace_marker",
	};

	cs->w = malloc(sizeof(*cs->w));
	if (!cs->w || fxt_writer_init(cs->w, -1)) {
		free(cs->w);
		cs->w = NULL;
		return -ENOMEM;
	}
	cs->w->inline_strings = true;
	for (size_t i = 0; i < ARRAY_SIZE(markers) && cs->marker_fd < 0; i++)
		cs->marker_fd = open(markers[i], O_WRONLY | O_CLOEXEC);
	return 0;
}

static void clock_sync_free(struct clock_sync *cs)
{
	if (cs->w) {
		fxt_writer_finish(cs->w);
		obuf_free(&cs->w->out);
		free(cs->w);
	}
	if (cs->marker_fd >= 0)
		close(cs->marker_fd);
}

static void clock_sync(struct clock_sync *cs, struct spool *sp)
{
	char id[48], line[96];
	struct fxt_arg args[2];
	uint64_t t1, t2;
	int len;

	snprintf(id, sizeof(id), "ktrace-%d-%u", getpid(), cs->n);
	len = snprintf(line, sizeof(line), "trace_event_clock_sync: name=%s\n", id);
	t1 = now_mono_ns();
	/* EBADF: tracing is off, so no ftrace capture runs that could use it. */
	if (cs->marker_fd >= 0 && write(cs->marker_fd, line, len) != len && errno != EBADF)
		pr_warn("cannot write a clock sync marker to trace_marker: %s", strerror(errno));
	if (cs->ftrace && ftrace_capture_marker(cs->ftrace, id))
		pr_warn("--ftrace: cannot write a clock sync marker into the instance");
	t2 = now_mono_ns();
	if (cs->n < ARRAY_SIZE(cs->points)) {
		snprintf(cs->points[cs->n].id, sizeof(cs->points[cs->n].id), "%s", id);
		cs->points[cs->n].ts = t1 + (t2 - t1) / 2;
		cs->points[cs->n].half = (t2 - t1) / 2;
	}
	cs->n++;
	args[0] = fxt_arg_str("sync_id", id);
	args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "issue_ts", t1);
	fxt_write_event(cs->w, KTRACE_FXT_EV_INSTANT, t1 + (t2 - t1) / 2, getpid(), gettid(),
			"ktrace:clock", "clock_sync", args, 2, 0);
	spool_add_encoded(sp, &cs->w->out);
}

static int parse_probe(const char *spec, struct record_opts *ro)
{
	const char *colon = strchr(spec, ':');
	struct probe_spec *p;
	size_t len;

	if (ro->nprobes >= ARRAY_SIZE(ro->probes)) {
		pr_err("-p %s: at most %zu probes", spec, ARRAY_SIZE(ro->probes));
		return -E2BIG;
	}
	p = &ro->probes[ro->nprobes];
	len = colon ? strlen(colon + 1) : 0;
	if (!colon || !len || len >= sizeof(p->symbol) ||
	    strspn(colon + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != len ||
	    (strncmp(spec, "kprobe:", 7) && strncmp(spec, "duration:", 9))) {
		pr_err("-p %s: use kprobe:SYMBOL or duration:SYMBOL with a kernel function's name", spec);
		return -EINVAL;
	}
	p->duration = spec[0] == 'd';
	memcpy(p->symbol, colon + 1, len + 1);
	ro->nprobes++;
	return 0;
}

/* Moves the captured ftrace events onto the recorder's clock. */
static void align_ftrace(struct ftrace_capture *fc, const struct sync_point *points,
			 unsigned int n, struct spool *sp, unsigned int nsp)
{
	int64_t offset, residual;
	unsigned int matched;

	if (fc->conv.lost)
		pr_warn("--ftrace: ftrace lost %llu events in its buffers (in the trace as loss records; try a larger --buffer-size)",
			(unsigned long long)fc->conv.lost);
	if (clock_offset(points, n < 2 ? n : 2, fc->conv.markers, fc->conv.nmarkers, &offset,
			 &residual, &matched)) {
		pr_warn("--ftrace: no clock sync marker came back; %s", fc->mono ?
			"ftrace used the monotonic clock, as the recorder does" :
			"ftrace times are left on ftrace's own clock");
		return;
	}
	/* With trace_clock mono the clocks are one: the markers only check it. */
	for (unsigned int i = 0; !fc->mono && i < nsp; i++)
		sp[i].offset = offset;
	pr_info("ftrace: %llu events, clock %s, offset %lld ns from %u sync markers, residual %lld ns",
		(unsigned long long)fc->conv.events, fc->mono ? "mono" : "local",
		(long long)offset, matched, (long long)residual);
}

/* Long-only options. */
enum {
	OPT_BACKEND = 256,
	OPT_RING,
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
		pr_err("--after, --pid and --comm go with --stop-on-latency");
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

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
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
		{ "ftrace", required_argument, NULL, OPT_FTRACE },
		{ "probe", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct record_opts ro = { .buffer_size = DEFAULT_BUFFER_SIZE };
	const char *out_path = "ktrace.fxt", *format = NULL, *backend = NULL, *ftrace_spec = NULL;
	struct ftrace_capture fcap = { 0 };
	bool capturing = false, chosen = false;
	const struct source_ops *ops = &source_bpf_ops;
	char why[256] = "";
	struct record_stats st = { 0 };
	struct spool *spools = NULL;
	unsigned int nspools = 0, cli = 0, nall = 0;
	struct clock_sync sync = { .marker_fd = -1 };
	double duration = 0;
	uint64_t t0 = 0, start = 0, threads = 0, bytes = 0, last_progress = 0, from = 0, archived = 0;
	bool json, tty = isatty(STDERR_FILENO), has_after = false, has_pid = false, has_comm = false;
	bool said_trigger = false, triggered = false;
	struct trigger_report trep = { 0 };
	unsigned long long pid_arg;
	char *end;
	pid_t child = -1;
	int c, ret, go = -1, status = 0, cmd_status = 0, fxt_fd;
	struct out_file of = { .fd = -1 };
	void *src = NULL;
	long ncpu;

	while ((c = getopt_long(argc, argv, "+o:F:b:d:p:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out_path = optarg;
			break;
		case 'F':
			format = optarg;
			break;
		case OPT_BACKEND:
			backend = optarg;
			break;
		case 'b':
			if (parse_size(optarg, &ro.buffer_size) ||
			    (ro.buffer_size & (ro.buffer_size - 1)) || ro.buffer_size < 4096) {
				pr_err("--buffer-size %s: give a power of two of at least 4K, e.g. 4M",
				       optarg);
				return 2;
			}
			break;
		case 'd':
			duration = strtod(optarg, NULL);
			if (duration <= 0) {
				pr_err("--duration %s: give a number of seconds above 0", optarg);
				return 2;
			}
			break;
		case OPT_RING:
			ro.ring = true;
			break;
		case OPT_FTRACE:
			ftrace_spec = optarg;
			break;
		case 'p':
			if (parse_probe(optarg, &ro))
				return 2;
			break;
		case 'v':
			ro.verbose = true;
			break;
		case OPT_STOP_ON_LATENCY:
			if (parse_duration(optarg, &ro.trigger_ns) || !ro.trigger_ns) {
				pr_err("--stop-on-latency %s: give a duration above 0 (5ms, 200us)",
				       optarg);
				return 2;
			}
			break;
		case OPT_AFTER:
			if (parse_duration(optarg, &ro.after_ns) || ro.after_ns > 3600000000000ULL) {
				pr_err("--after %s: give a duration of at most an hour (100ms, 2s)",
				       optarg);
				return 2;
			}
			has_after = true;
			break;
		case OPT_PID:
			errno = 0;
			pid_arg = strtoull(optarg, &end, 10);
			if (*end || end == optarg || errno || !pid_arg || pid_arg > 4194304) {
				pr_err("--pid %s: give a thread or process id", optarg);
				return 2;
			}
			ro.trigger_pid = pid_arg;
			has_pid = true;
			break;
		case OPT_COMM:
			if (!*optarg || strlen(optarg) >= sizeof(ro.trigger_comm)) {
				pr_err("--comm '%s': give a name of 1 to 15 characters, as the kernel keeps it",
				       optarg);
				return 2;
			}
			strcpy(ro.trigger_comm, optarg);
			has_comm = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (output_format(format, out_path, &json) ||
	    check_trigger_opts(&ro, has_after, has_pid, has_comm))
		return 2;

	if (!backend) {
		backend = source_kmod_probe(why, sizeof(why)) == 0 ? "kmod" : "bpf";
		chosen = true;
	}
	if (!strcmp(backend, "kmod")) {
		ops = &source_kmod_ops;
		ret = source_kmod_probe(why, sizeof(why));
		if (ret) {
			pr_err("--backend kmod: %s, or use --backend bpf", why);
			return 1;
		}
	} else if (!strcmp(backend, "bpf")) {
		ret = source_bpf_probe(why, sizeof(why));
		if (ret == -ENOTSUP && chosen)
			pr_err("no backend can record here: %s does not exist (load the module: insmod ktrace.ko), and %s",
			       KTRACE_DEVICE, why);
		else if (ret == -ENOTSUP || (ret && ro.verbose))
			pr_err("%s", why);
		if (ret == -ENOTSUP)
			return 1;
		if (ro.nprobes && access("/sys/kernel/tracing/kprobe_events", F_OK) &&
		    access("/sys/kernel/debug/tracing/kprobe_events", F_OK) &&
		    access("/sys/bus/event_source/devices/kprobe", F_OK)) {
			pr_err("-p needs kprobes, and this kernel (%s) has none: record on a kernel with CONFIG_KPROBES",
			       kernel_release());
			return 1;
		}
		if (ro.nprobes && kernel_older_than(kernel_release(), 5, 15)) {
			pr_err("-p with the BPF backend needs Linux 5.15 or later (BPF attach cookies), and this is %s: load the module (insmod ktrace.ko)",
			       kernel_release());
			return 1;
		}
	} else {
		pr_err("--backend %s: use kmod or bpf", backend);
		return 2;
	}

	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0 || ncpu > MAX_CPUS) {
		pr_err("cannot count the possible CPUs (/sys/devices/system/cpu/possible): %ld", ncpu);
		return 1;
	}
	/*
	 * One spool per CPU (two with -p: the BPF backend keeps probe records
	 * apart), then one for the records ktrace itself writes, then with
	 * --ftrace one per CPU for ftrace's.
	 */
	nspools = ncpu * (ro.nprobes ? 2 : 1);
	cli = nspools;
	nall = nspools + 1 + (ftrace_spec ? ncpu : 0);
	spools = calloc(nall, sizeof(*spools));
	if (!spools)
		return 1;

	/* Written beside and renamed over it at the end: a failure leaves what was there. */
	if (out_file_open(&of, out_path)) {
		free(spools);
		return 1;
	}
	for (unsigned int i = 0; i < nall; i++) {
		ret = spool_open(&spools[i]);
		if (ret) {
			pr_err("cannot create a temporary file: %s", strerror(-ret));
			goto out;
		}
	}
	ret = clock_sync_init(&sync);
	if (ret)
		goto out;
	if (ftrace_spec) {
		/* Unknown events are refused before anything is recorded. */
		ret = ftrace_capture_open(&fcap, ftrace_spec, &spools[cli + 1], ncpu, &ro);
		if (ret)
			goto out;
		sync.ftrace = &fcap;
		capturing = true;
	}
	ret = ops->open(&src, &ro, spools, nspools);
	if (ret) {
		if (ret == -EPERM && why[0])
			pr_err("%s", why);
		goto out;
	}
	if (optind < argc) {
		child = spawn(argv + optind, &go);
		if (child < 0) {
			ret = -errno;
			pr_err("cannot start %s: %s", argv[optind], strerror(-ret));
			goto out;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* A closed terminal ends the recording, but does not lose it. */
	signal(SIGHUP, on_signal);
	/* Before anything records: the trace_info event opens the archive's time. */
	t0 = now_mono_ns();
	if (capturing && ftrace_capture_start(&fcap)) {
		pr_err("--ftrace: cannot turn tracing on in the instance");
		ret = -EIO;
		goto out;
	}
	ret = ops->start(src);
	if (ret)
		goto out;
	start = now_mono_ns();
	/* A ring may write over the module's own state dump: names go in a spool too. */
	if (!ops->statedump_in_kernel || ro.ring) {
		/*
		 * Every thread alive now, named before anything else in the
		 * archive; fork, exec and rename events, recording already,
		 * name the rest.
		 */
		int err = statedump_write(sync.w, &threads);

		if (err)
			pr_warn("cannot list the running threads from /proc: %s; names come only from events",
				strerror(-err));
		spool_add_encoded(&spools[cli], &sync.w->out);
	}
	clock_sync(&sync, &spools[cli]);
	if (child > 0) {
		if (write(go, "g", 1) != 1)
			pr_warn("cannot start %s", argv[optind]);
		close(go);
		go = -1;
	}
	pr_info("recording with the %s backend into %s%s", ops->name, out_path,
		child > 0 || duration > 0 ? "" : "; Ctrl-C stops");
	while (!stop_requested) {
		ret = ops->poll(src, 100);
		if (!ret && capturing)
			ret = ftrace_capture_poll(&fcap);
		if (ret) {
			pr_err("reading the recorder's buffers: %s; stopping, what was read is kept",
			       strerror(-ret));
			break;
		}
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			child = 0;
			break;
		}
		if (duration > 0 && now_mono_ns() - start >= duration * 1e9)
			break;
		if (ro.trigger_ns) {
			ret = trigger_done(ops, src, &trep, &said_trigger);
			if (ret < 0) {
				pr_err("reading the latency trigger: %s; stopping", strerror(-ret));
				break;
			}
			triggered = ret;
			if (triggered)
				break;
		}
		/* A ring is read only at the end: nothing to count meanwhile. */
		if (tty && !ro.ring && now_mono_ns() - last_progress > 500000000ULL) {
			last_progress = now_mono_ns();
			progress(start, spools, nspools, false);
		}
	}
	/* It may have fired as the command ended. */
	if (ro.trigger_ns && !said_trigger)
		trigger_done(ops, src, &trep, &said_trigger);
	clock_sync(&sync, &spools[cli]);
	ret = ops->stop(src, &st);
	if (capturing) {
		int err = ftrace_capture_stop(&fcap);

		if (err)
			pr_err("--ftrace: reading the events: %s", strerror(-err));
		align_ftrace(&fcap, sync.points, sync.n, &spools[cli + 1], ncpu);
	}
	if (ret)
		pr_err("draining the recorder's buffers: %s", strerror(-ret));
	if (tty)
		progress(start, spools, nspools, true);
	if (child > 0) {
		/* Stopped by a signal or the duration: let the command finish. */
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
		child = 0;
		status = 0;	/* its end was ours, not its own */
	}
	for (unsigned int i = 0; i < nspools; i++) {
		st.records += spools[i].records;
		st.rejected += spools[i].rejected;
	}

	fxt_fd = fxt_scratch_fd(json, of.fd);
	if (fxt_fd < 0) {
		ret = -errno;
		pr_err("cannot create a temporary file: %s", strerror(errno));
		goto out;
	}
	if (ro.ring)
		from = ring_common_start(spools, nall);
	ret = write_archive(fxt_fd, ops, &ro, t0, spools, nall, from, &bytes, &archived);
	if (!ret && json)
		ret = json_convert_fd(fxt_fd, of.fd, NULL, &bytes);
	if (json)
		close(fxt_fd);
	if (ret)
		pr_err("writing %s: %s", out_path, strerror(-ret));
	else
		ret = out_file_commit(&of);	/* says what failed */
	if (ret) {
		out_file_abort(&of);
		rescue(ops, &ro, t0, spools, nall, from);
		goto out;
	}
	pr_info("wrote %s: %llu records (%llu from the recorder, the rest names and metadata), %.1f MB, %llu dropped%s",
		out_path, (unsigned long long)archived, (unsigned long long)st.records, bytes / 1e6,
		(unsigned long long)st.dropped, st.dropped ? " (try a larger --buffer-size)" : "");
	if (st.rejected)
		pr_warn("%llu malformed records from the recorder were left out",
			(unsigned long long)st.rejected);
	if (from)
		pr_info("ring: the trace starts at %.6f s, where every CPU's window has data",
			from / 1e9);
	if (ro.trigger_ns && !said_trigger)
		pr_info("the latency trigger did not fire: no wait reached %.3f ms",
			ro.trigger_ns / 1e6);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		ret = -ENOENT;
	} else if (WIFEXITED(status) && WEXITSTATUS(status)) {
		/* As a shell would: the command's own status, for scripts. */
		pr_info("%s exited with status %d", argv[optind], WEXITSTATUS(status));
		cmd_status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		pr_info("%s was killed by signal %d (%s)", argv[optind], WTERMSIG(status),
			strsignal(WTERMSIG(status)));
		cmd_status = 128 + WTERMSIG(status);
	}
out:
	if (go >= 0)
		close(go);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (src)
		ops->close(src);
	if (ftrace_spec)
		ftrace_capture_close(&fcap);	/* also after a failed open */
	for (unsigned int i = 0; spools && i < nall; i++)
		spool_close(&spools[i]);
	free(spools);
	clock_sync_free(&sync);
	out_file_abort(&of);	/* nothing if it was renamed into place */
	return ret ? 1 : cmd_status;
}
