// SPDX-License-Identifier: GPL-2.0
/* One recording session: sources opened, started, drained, stopped, written. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include <linux/ktrace.h>

#include "lib/u64map.h"
#include "lib/utils.h"
#include "record/session.h"

#define MAX_CPUS		4096
/* How long the backend's poll may wait for records before it returns. */
#define SOURCE_POLL_MS		100
/* How long a source on its own thread waits between passes (ftrace: 4 MiB fill in 200 ms). */
#define THREAD_POLL_MS		10

volatile sig_atomic_t record_stop_requested;

int record_parse_buffer_size(const struct cli_arg *a, uint64_t *bytes)
{
	if (cli_parse_size(a->name, a->text, bytes))
		return -EINVAL;
	if (!ktrace_buffer_size_valid(*bytes))
		return cli_usage_error("%s '%s': give a power of two from 8K to 1G, e.g. 4M",
				       a->name, a->text);
	return 0;
}

int record_parse_duration(const struct cli_arg *a, uint64_t *ns)
{
	if (cli_parse_duration(a->name, a->text, CLI_NSEC_PER_SEC, ns))
		return -EINVAL;
	if (!*ns)
		return cli_usage_error("%s '%s': give a duration above 0", a->name, a->text);
	return 0;
}

int record_parse_comm(const struct cli_arg *a, char comm[16])
{
	if (!*a->text || strlen(a->text) >= 16)
		return cli_usage_error("%s '%s': give a name of 1 to 15 characters, as the kernel keeps it",
				       a->name, a->text);
	strcpy(comm, a->text);
	return 0;
}

#define CGROUP_FS_MAGIC		0x27e0eb	/* CGROUP_SUPER_MAGIC: cgroup v1 */
#define CGROUP2_FS_MAGIC	0x63677270	/* CGROUP2_SUPER_MAGIC */

/* @path's cgroup: 1 and its id if @path is a cgroup directory, 0 if it is none, -1 said. */
static int cgroup_at(const struct cli_arg *a, const char *path, struct record_opts *ro)
{
	char cpu[PATH_MAX + 16];
	struct statfs sf;
	struct stat st;

	if (stat(path, &st) || !S_ISDIR(st.st_mode) || statfs(path, &sf))
		return 0;
	if ((unsigned long)sf.f_type == CGROUP_FS_MAGIC) {
		/* Threads are placed by the cpu controller's hierarchy: the one the trigger reads. */
		snprintf(cpu, sizeof(cpu), "%s/cpu.shares", path);
		if (access(cpu, F_OK)) {
			cli_usage_error("%s '%s': a cgroup v1 hierarchy without the cpu controller; give the cgroup in the cpu hierarchy (as /proc/PID/cgroup names it on its cpu line) or in cgroup v2",
					a->name, a->text);
			return -1;
		}
		ro->trigger_cgroup_v1 = true;
	} else if ((unsigned long)sf.f_type != CGROUP2_FS_MAGIC) {
		return 0;
	}
	ro->trigger_cgroup = cgroup_dir_id(path);
	if (!ro->trigger_cgroup) {
		cli_usage_error("%s '%s': cannot read the cgroup's id: %s", a->name, a->text,
				strerror(errno));
		return -1;
	}
	return 1;
}

int record_parse_cgroup(const struct cli_arg *a, struct record_opts *ro)
{
	char path[PATH_MAX], *root;
	int ret;

	ret = cgroup_at(a, a->text, ro);
	if (ret)
		return ret < 0 ? -EINVAL : 0;
	/* A path below cgroup v2's root, as /proc/PID/cgroup gives it. */
	root = a->text[0] == '/' ? cgroup2_mount() : NULL;
	if (root && snprintf(path, sizeof(path), "%s%s", root, a->text) < (int)sizeof(path))
		ret = cgroup_at(a, path, ro);
	free(root);
	if (ret)
		return ret < 0 ? -EINVAL : 0;
	return cli_usage_error("%s '%s': no such cgroup: neither a cgroup directory (as under /sys/fs/cgroup) nor a path below cgroup v2's root (as /proc/PID/cgroup gives it)",
			       a->name, a->text);
}

static void on_signal(int sig)
{
	(void)sig;
	record_stop_requested = 1;
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

/* The recorder backend: --backend, or the module when it is loaded, else BPF. */
const struct source_ops *choose_backend(const char *name, const struct record_opts *ro,
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
int record_open(struct record_run *rs, const struct source_ops *main_ops,
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
	ret = out_path ? cli_output_open(&rs->out, out_path, json) : 0;
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
int record_start(struct record_run *rs)
{
	const struct source_ops *ops = rs->src[0].ops;
	int ret;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* A closed terminal ends the recording, but does not lose it. */
	signal(SIGHUP, on_signal);
	/* What a throttled cgroup's limit was when recording began. */
	rs->limits = calloc(1, sizeof(*rs->limits));
	if (!rs->limits)
		return -ENOMEM;
	cgroup_limits_read(rs->limits, false);
	/* Before anything records: the archive's time opens here if the recorder gives no span. */
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
void record_loop(struct record_run *rs, uint64_t duration_ns)
{
	bool tty = isatty(STDERR_FILENO);
	uint64_t last_progress = 0;
	const char *failed = NULL;
	int ret = 0;

	start_threads(rs);
	while (!record_stop_requested) {
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
void record_end_names(struct record_run *rs)
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

void names_carry_free(struct names_carry *c)
{
	free(c->words);
	*c = (struct names_carry){ 0 };
}

static int carry_collect(void *ctx, const uint64_t *rec, uint32_t words, uint64_t ts)
{
	struct names_carry *c = ctx;

	(void)ts;
	for (uint32_t i = 0; i < words; i++) {
		uint64_t *w = vec_add(&c->words, &c->nwords, &c->cap, sizeof(*w));

		if (!w)
			return -ENOMEM;
		*w = rec[i];
	}
	return 0;
}

/* A kernel object record's type and koid, as one key. */
static uint64_t kobj_key(const uint64_t *rec)
{
	return (rec[0] >> 16 & 0xff) << 56 | (rec[1] & ((1ULL << 56) - 1));
}

/* The next record of @c from word @i: its size in words, 0 at the end. */
static uint32_t carry_next(const struct names_carry *c, uint32_t i)
{
	uint32_t words = i + 2 <= c->nwords ? ktrace_fxt_rec_words(c->words[i]) : 0;

	return words >= 2 && i + words <= c->nwords ? words : 0;
}

int record_end_names_carry(struct record_run *rs, struct names_carry *c)
{
	struct names_carry now = { 0 };
	struct u64map alive = { 0 };
	uint32_t words;
	int ret = 0;

	if (!rs->end_names.f)
		return 0;	/* no list now: the last one is kept for the next */
	ret = spool_for_each_kobj(&rs->end_names, carry_collect, &now);
	for (uint32_t i = 0; !ret && (words = carry_next(&now, i)); i += words)
		if (u64map_add(&alive, kobj_key(&now.words[i]), 0) == U64MAP_NONE)
			ret = -ENOMEM;
	for (uint32_t i = 0; !ret && (words = carry_next(c, i)); i += words)
		if (u64map_find(&alive, kobj_key(&c->words[i])) == U64MAP_NONE)
			ret = spool_add(&rs->end_names, &c->words[i], words * 8);
	u64map_free(&alive);
	names_carry_free(c);
	*c = now;
	return ret;
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
void record_stop(struct record_run *rs)
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
	record_end_names(rs);
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
int record_write(struct record_run *rs, const char *out_path)
{
	const struct source_ops *ops = rs->src[0].ops;
	struct archive_stats st = { 0 };
	struct record_span span = { rs->st.span_start, rs->st.span_stop };
	struct trigger_report trep;
	uint64_t from = 0, bytes;
	int ret;

	/* A recorder that could not stop says no span: everything is kept, as it came. */
	if (!span.start || !span.stop) {
		span.start = rs->t0;
		span.stop = UINT64_MAX;
	}
	if (rs->ro->ring) {
		from = ring_common_start(rs->spools, rs->nall);
		if (from > span.start)
			span.start = from;
	}
	/* A latency trigger's window: every CPU stopped recording there, perhaps as it stopped. */
	if (rs->ro->trigger_ns && ops->trigger(rs->src[0].priv, &trep) == 1 &&
	    trep.stop_at < span.stop)
		span.stop = trep.stop_at;
	ret = write_archive(rs->out.fd, ops, rs->src[0].priv, rs->ro, &span, rs->spools, rs->nall,
			    from, &rs->end_names, rs->limits, &rs->cgroups, &st);
	bytes = st.bytes;
	if (ret) {
		pr_err("writing %s: %s", out_path, strerror(-ret));
		cli_output_abort(&rs->out);
	} else {
		ret = cli_output_commit(&rs->out, &bytes);	/* says what failed */
	}
	if (ret) {
		rescue(ops, rs->src[0].priv, rs->ro, &span, rs->spools, rs->nall, from,
		       &rs->end_names, rs->limits, &rs->cgroups);
		return ret;
	}
	pr_info("wrote %s: %llu records (%llu from the recorder, the rest names and metadata), %.1f MB, %llu dropped%s, %llu untraced switches (the kernel's), %llu threads without a name",
		out_path, (unsigned long long)st.records, (unsigned long long)rs->st.records,
		bytes / 1e6, (unsigned long long)rs->st.dropped,
		rs->st.dropped ? " (try a larger --buffer-size)" : "",
		(unsigned long long)st.untraced, (unsigned long long)st.unnamed);
	if (st.untraced_wakeups)
		pr_info("%llu blocked threads ran again with no sched_waking the recorder saw (untraced_wakeup records)",
			(unsigned long long)st.untraced_wakeups);
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

/* Leaves the system as found: the command ended, sources closed, spools and temporaries gone. */
void record_close(struct record_run *rs)
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

/*
 * Without -b, the default size for this machine's CPUs (each possible one
 * has its buffers), said with what it comes to: on many CPUs it is less
 * than 4 MiB each.
 */
int choose_buffer_size(struct record_opts *ro)
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
int check_trigger_pid(uint32_t pid)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%u", pid);
	if (access("/proc/self", F_OK) || !access(path, F_OK))
		return 0;
	pr_err("--pid %u: no such thread or process is running (%s does not exist)", pid, path);
	return -ESRCH;
}
