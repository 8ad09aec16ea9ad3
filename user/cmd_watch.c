// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace watch: record in ring mode with the latency trigger armed, for as
 * long as it runs; each wait past the threshold saves its window (the
 * trace before and after it) and explains itself in a report, then the
 * trigger is armed again.  Between spikes nothing is copied out of the
 * recorder's buffers.
 *
 * DIR gets, per spike, TIME-COMM-TID.fxt (the window) and TIME-COMM-TID.txt
 * (the report, a verdict line first), each written to a temporary name and
 * renamed, and a line in spikes.jsonl, the index `ktrace spikes` reads.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/critical_path.h"
#include "analyze/latency.h"
#include "cli/cli.h"
#include "commands.h"
#include "lib/utils.h"
#include "record/record.h"
#include "record/session.h"
#include "watch.h"

enum {
	OPT_THRESHOLD = 256,
	OPT_PID,
	OPT_COMM,
	OPT_BEFORE,
	OPT_AFTER,
	OPT_MAX_RATE,
	OPT_MAX_SIZE,
	OPT_BACKEND,
	OPT_RT,
	OPT_CGROUP,
};

struct watch_args {
	struct record_opts ro;
	const char *dir, *backend, *cgroup;
	uint64_t before_ns, duration_ns, max_size;
	uint32_t max_per_min;
	bool has_threshold;
};

/* What the watch has done, for the index and its last line. */
struct watch_state {
	struct watch_args *wa;
	int dirfd;
	/*
	 * Recording since window_start (the start, or the last window's
	 * re-arm); nothing recorded from gap_first (the last window's stop, 0
	 * before any) to it.
	 */
	uint64_t window_start, gap_first;
	uint64_t spikes, saved, over_rate, unsaved;
	uint64_t merged, in_window;	/* more spikes in a saved window: same main cause, other */
	uint64_t rate_times[WATCH_MAX_RATE];	/* when the last saved spikes fired */
	uint32_t nrate;
	struct names_carry names;	/* the last window's threads alive */
};

/* ---- the spike's files ---------------------------------------------------- */

/* "20261127T031502.123-nginx-1234": the spike's wall-clock time, its thread. */
static void spike_name(char *out, size_t len, const char *comm, uint32_t tid)
{
	struct timespec now;
	struct tm tm;
	char stamp[32], safe[32];
	size_t i;

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	for (i = 0; comm[i] && i < sizeof(safe) - 1; i++)
		safe[i] = (comm[i] == '/' || comm[i] == ' ' || comm[i] < 0x20) ? '_' : comm[i];
	safe[i] = 0;
	snprintf(out, len, "%s.%03ld-%s-%u", stamp, now.tv_nsec / 1000000, i ? safe : "unnamed",
		 tid);
}

/* Writes @len bytes to @fd entirely: 0 or -errno. */
static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= n;
	}
	return 0;
}

/* @buf into DIR/@name through a temporary name: no reader sees half of it. */
static int write_file(int dirfd, const char *name, const char *buf, size_t len)
{
	char tmp[NAME_MAX + 16];
	int fd, ret;

	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, buf, len);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(dirfd, tmp, dirfd, name))
		ret = -errno;
	if (ret)
		unlinkat(dirfd, tmp, 0);
	return ret;
}

/* ---- the analysis of one window ------------------------------------------- */

/* Other spikes of the victim a window holds, beside the one that fired. */
#define WATCH_OTHERS	8
struct window_spikes {
	uint32_t merged;		/* with the same main cause: counted with it */
	uint32_t nother, more;		/* of another main cause: listed; beyond WATCH_OTHERS */
	struct window_other {
		struct trigger_report t;
		const char *cause;
		struct obuf verdict, json;
	} other[WATCH_OTHERS];
};

static void window_spikes_free(struct window_spikes *ws)
{
	for (uint32_t i = 0; i < ws->nother; i++) {
		obuf_free(&ws->other[i].verdict);
		obuf_free(&ws->other[i].json);
	}
	memset(ws, 0, sizeof(*ws));
}

/*
 * The victim's other waits of @threshold or more in the window (the
 * trigger fires once per window): one with @w's main cause is merged into
 * it, a line of the report; another is a spike of its own, listed for the
 * index.  Only the worst of the thread's waits are looked at (lat_opts.top).
 */
static void other_spikes(struct lat_analysis *a, const struct lat_wait *w, uint64_t threshold,
			 struct obuf *text, struct window_spikes *ow)
{
	unsigned int cause = lat_main_cause(w);
	bool said = false;

	for (uint32_t i = 0; i < lat_top_count(a); i++) {
		const struct lat_wait *u = lat_top_wait(a, i);
		struct window_other *o;

		if (u == w || u->tid != w->tid || (u->end - u->start) < threshold)
			continue;
		if (!said)
			obuf_lit(text, "\nother spikes of the thread in this window:\n");
		said = true;
		obuf_lit(text, "  ");
		lat_verdict(a, u, text);
		obuf_printf(text, " (ran at %.9f)%s\n", u->end / 1e9,
			    lat_main_cause(u) == cause ? ": merged into this one" : "");
		if (lat_main_cause(u) == cause) {
			ow->merged++;
			continue;
		}
		if (ow->nother == WATCH_OTHERS) {
			ow->more++;
			continue;
		}
		o = &ow->other[ow->nother];
		if (obuf_init(&o->verdict, -1, 256) || obuf_init(&o->json, -1, 1 << 12)) {
			obuf_free(&o->verdict);
			ow->more++;
			continue;
		}
		ow->nother++;
		o->t = (struct trigger_report){ .ts = u->end, .latency = (u->end - u->start),
						.tid = u->tid, .cpu = u->cpu };
		o->cause = lat_cause_name(lat_main_cause(u));
		lat_verdict(a, u, &o->verdict);
		obuf_putc(&o->verdict, 0);	/* a string for the index */
		lat_wait_json(a, u, &o->json);
	}
}

/*
 * The report of the wait that fired the trigger in the window @path: its
 * verdict into @verdict, the text report into @text, the wait as JSON into
 * @json, its main cause's name, and the thread's other spikes in the
 * window into @ow.  -ENOENT if the analysis finds no such wait.
 */
static int explain(const char *path, const struct trigger_report *t, uint64_t threshold,
		   struct obuf *verdict, struct obuf *text, struct obuf *json,
		   const char **main_cause, struct window_spikes *ow)
{
	struct lat_opts lo = { .pid = t->tid, .cpu = -1, .top = 64, .unit_ns = 1000 };
	/* The wait that holds the instant before its switch-in. */
	struct cp_opts co = { .tid = t->tid, .top = 1, .at = t->ts - 1 };
	const struct lat_wait *w = NULL;
	struct cp_analysis *cp = NULL;
	struct lat_analysis *a;
	struct cli_input in;
	int ret;

	if (cli_open_trace(&in, path, CLI_INPUT_REREAD))
		return -EINVAL;
	/* One reading for both: the wait among the thread's worst, and its critical path. */
	a = lat_new(&lo);
	cp = cp_new(a, &co);
	ret = latency_read(&in, a, cp);
	for (uint32_t i = 0; !ret && i < lat_top_count(a); i++)
		if (lat_top_wait(a, i)->tid == t->tid && lat_top_wait(a, i)->end == t->ts)
			w = lat_top_wait(a, i);
	if (!ret && !w)
		ret = -ENOENT;
	if (!ret) {
		*main_cause = lat_cause_name(lat_main_cause(w));
		lat_verdict(a, w, verdict);
		obuf_putc(verdict, '\n');
		obuf_put(text, verdict->buf, verdict->len);
		obuf_lit(text, "\nthe wait:\n  ");
		lat_wait_text(a, w, text);
		lat_wait_json(a, w, json);
		other_spikes(a, w, threshold, text, ow);
		/* A window that starts after the thread went to sleep has no path for a wakeup wait. */
		if (cp_count(cp)) {
			obuf_lit(text, "\nits critical path:\n");
			cp_report_text(cp, text, path);
		}
	}
	cp_free(cp);
	lat_free(a);
	cli_close_trace(&in);
	return ret;
}

/* ---- the index ------------------------------------------------------------ */

/* One line of spikes.jsonl, appended with one write: a reader sees it whole or not. */
static int index_append(struct watch_state *ws, const struct trigger_report *t,
			const char *comm, const char *name, const char *status,
			const char *main_cause, const char *verdict,
			const struct obuf *wait_json, const struct record_span *gap,
			uint32_t gap_cpus, uint32_t merged)
{
	struct timespec now;
	struct obuf o;
	char file[NAME_MAX + 8];
	int fd, ret;

	if (obuf_init(&o, -1, 4096))
		return -ENOMEM;
	clock_gettime(CLOCK_REALTIME, &now);
	obuf_printf(&o, "{\"time\":%lld.%03ld,\"ts\":%llu,\"tid\":%u", (long long)now.tv_sec,
		    now.tv_nsec / 1000000, (unsigned long long)t->ts, t->tid);
	obuf_json_kv_str(&o, "comm", comm);
	obuf_printf(&o, ",\"latency\":%llu,\"cpu\":%u", (unsigned long long)t->latency, t->cpu);
	obuf_json_kv_str(&o, "status", status);
	if (name) {
		snprintf(file, sizeof(file), "%s.fxt", name);
		obuf_json_kv_str(&o, "fxt", file);
		snprintf(file, sizeof(file), "%s.txt", name);
		obuf_json_kv_str(&o, "txt", file);
	}
	/* The stretch the window's loss records mark: recorded by no CPU. */
	obuf_printf(&o, ",\"unrecorded_ns\":%llu", (unsigned long long)(gap->stop - gap->start));
	if (gap->stop > gap->start)
		obuf_printf(&o, ",\"unrecorded\":{\"first_ts\":%llu,\"last_ts\":%llu,\"loss_records\":%u}",
			    (unsigned long long)gap->start, (unsigned long long)gap->stop, gap_cpus);
	/* Its thread's other spikes in the window with the same main cause. */
	obuf_printf(&o, ",\"merged\":%u", merged);
	if (main_cause)
		obuf_json_kv_str(&o, "main_cause", main_cause);
	if (verdict)
		obuf_json_kv_str(&o, "verdict", verdict);
	if (wait_json && wait_json->len) {
		obuf_lit(&o, ",\"wait\":");
		obuf_put(&o, wait_json->buf, wait_json->len);
	}
	obuf_lit(&o, "}\n");
	fd = openat(ws->dirfd, WATCH_INDEX, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	ret = fd < 0 ? -errno : write_all(fd, o.buf, o.len);
	if (fd >= 0 && close(fd) && !ret)
		ret = -errno;
	obuf_free(&o);
	return ret;
}

/* ---- limits ---------------------------------------------------------------- */

/* Whether another spike may be saved now under --max-rate (per minute). */
static bool rate_allows(struct watch_state *ws, uint64_t now)
{
	uint32_t n = ws->wa->max_per_min, kept = 0;

	for (uint32_t i = 0; i < ws->nrate; i++)
		if (now - ws->rate_times[i] < 60 * CLI_NSEC_PER_SEC)
			ws->rate_times[kept++] = ws->rate_times[i];
	ws->nrate = kept;
	if (kept >= n)
		return false;
	ws->rate_times[ws->nrate++] = now;
	return true;
}

static int cmp_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/*
 * --max-size: the oldest spikes' files deleted until DIR's spike files
 * take no more (names start with the time, so name order is age order).
 */
static void prune(struct watch_state *ws)
{
	DIR *d = fdopendir(dup(ws->dirfd));
	char **names = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *e;
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.' || len < 5 || (strcmp(e->d_name + len - 4, ".fxt") &&
						       strcmp(e->d_name + len - 4, ".txt")))
			continue;
		if (fstatat(ws->dirfd, e->d_name, &st, 0))
			continue;
		total += st.st_size;
		if (n == cap) {
			char **more = realloc(names, (cap ? 2 * cap : 64) * sizeof(*names));

			if (!more)
				goto nomem;
			names = more;
			cap = cap ? 2 * cap : 64;
		}
		names[n] = strdup(e->d_name);
		if (!names[n])
			goto nomem;
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; i < n && total > ws->wa->max_size; i++) {
		if (!fstatat(ws->dirfd, names[i], &st, 0) && !unlinkat(ws->dirfd, names[i], 0)) {
			total -= st.st_size;
			pr_info("watch: --max-size: removed %s", names[i]);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return;
nomem:
	/* The watch goes on; the next spike tries again. */
	pr_warn("watch: --max-size: out of memory listing %s; nothing removed this time",
		ws->wa->dir);
	closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- a window ---------------------------------------------------------------- */

/* The window's archive into DIR/@name.fxt, through a temporary name. */
static int write_window(struct watch_state *ws, struct record_run *rs,
			const struct record_span *span, const char *name)
{
	char tmp[NAME_MAX + 16], file[NAME_MAX + 8];
	struct archive_stats st = { 0 };
	int fd, ret;

	snprintf(tmp, sizeof(tmp), ".%s.fxt.tmp", name);
	snprintf(file, sizeof(file), "%s.fxt", name);
	fd = openat(ws->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = write_archive(fd, rs->src[0].ops, rs->src[0].priv, rs->ro, span, rs->spools,
			    rs->nall, span->start, &rs->end_names, rs->limits, &rs->cgroups, &st);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(ws->dirfd, tmp, ws->dirfd, file))
		ret = -errno;
	if (ret)
		unlinkat(ws->dirfd, tmp, 0);
	return ret;
}

/* The spools emptied for the next window. */
static int reset_spools(struct record_run *rs)
{
	int ret = 0;

	for (unsigned int i = 0; i < rs->nall; i++) {
		spool_close(&rs->spools[i]);
		if (!ret)
			ret = spool_open(&rs->spools[i]);
	}
	spool_close(&rs->end_names);
	return ret;
}

/* The thread's name as the window's end names give it (the kernel's comm otherwise). */
static void thread_comm(uint32_t tid, char *out, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", tid);
	f = fopen(path, "r");
	if (!f || !fgets(out, len, f))
		snprintf(out, len, "tid%u", tid);
	else
		out[strcspn(out, "\n")] = 0;
	if (f)
		fclose(f);
}

/*
 * The window's span into @span: --before the wait began to the trigger's
 * stop, but not before the recording did, nor before every CPU's ring has
 * data.  A window that reaches back past the last re-arm starts at the
 * last window's stop at the earliest (what came before is in that
 * window's file); the stretch up to the re-arm, which no CPU recorded, is
 * @gap (empty if none).
 */
static void window_span(const struct watch_state *ws, struct record_run *rs,
			const struct trigger_report *t, struct record_span *span,
			struct record_span *gap)
{
	uint64_t ring = ring_common_start(rs->spools, rs->nall);

	span->start = t->ts > ws->wa->before_ns + t->latency ?
		      t->ts - t->latency - ws->wa->before_ns : 0;
	if (span->start < ws->window_start)
		span->start = !ws->gap_first ? ws->window_start :
			      span->start > ws->gap_first ? span->start : ws->gap_first;
	if (ring > span->start)
		span->start = ring;
	span->stop = t->stop_at;
	gap->start = gap->stop = 0;
	if (span->start < ws->window_start) {
		gap->start = span->start;
		gap->stop = ws->window_start;
	}
}

/*
 * The unrecorded stretch @gap as a loss record on each of the recorder's
 * CPUs, in ktrace's own spool: the analyses and `dump --check` then excuse
 * what it hides, as for any loss.  Returns how many were written, or
 * -errno.
 */
static int mark_gap(struct record_run *rs, const struct record_span *gap)
{
	unsigned int ncpus = rs->src[0].nspools / (rs->ro->nprobes ? 2 : 1);
	struct fxt_writer *w;
	struct fxt_arg args[5];
	int n = 0;

	if (gap->stop <= gap->start)
		return 0;
	w = spool_writer_new(&rs->spools[rs->cli]);
	if (!w)
		return -ENOMEM;
	for (unsigned int cpu = 0; cpu < ncpus && !w->sink_err; cpu++, n++) {
		args[0] = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "cpu", cpu);
		args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "count", 0);
		args[2] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "first_ts", gap->start);
		args[3] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "last_ts", gap->stop);
		args[4] = fxt_arg_str("why", "not recorded: ktrace watch was taking the last window and arming the trigger again");
		fxt_write_event(w, KTRACE_FXT_EV_INSTANT, gap->stop, 0, 0, "ktrace:meta", "dropped",
				args, ARRAY_SIZE(args), 0);
	}
	if (w->sink_err)
		n = w->sink_err;
	spool_writer_free(w);
	return n;
}

/*
 * The saved window DIR/@name.fxt explained into DIR/@name.txt; the window
 * removed again if the report cannot be written.  A wait the analysis does
 * not find (lost records) still gets a verdict that says so.
 */
static int save_report(struct watch_state *ws, const struct trigger_report *t, const char *name,
		       const char *comm, struct obuf *verdict, struct obuf *text,
		       struct obuf *json, const char **main_cause, struct window_spikes *ow)
{
	char path[PATH_MAX], file[NAME_MAX + 8];
	int ret;

	snprintf(path, sizeof(path), "%s/%s.fxt", ws->wa->dir, name);
	ret = explain(path, t, ws->wa->ro.trigger_ns, verdict, text, json, main_cause, ow);
	if (ret == -ENOENT) {
		verdict->len = 0;
		obuf_printf(verdict, "%.3f ms wait of %s %u on CPU %u: the window holds no measured wait ending at %.9f (see ktrace latency on the .fxt)\n",
			    t->latency / 1e6, comm, t->tid, t->cpu, t->ts / 1e9);
		obuf_put(text, verdict->buf, verdict->len);
		ret = 0;
	}
	if (!ret) {
		snprintf(file, sizeof(file), "%s.txt", name);
		ret = write_file(ws->dirfd, file, text->buf, text->len);
	}
	if (ret) {
		snprintf(file, sizeof(file), "%s.fxt", name);
		unlinkat(ws->dirfd, file, 0);
	}
	return ret;
}

/*
 * The trigger fired and its window has passed: the rings read and the
 * recorder armed again, then the window saved and explained, or counted.
 * Returns 0, or -errno when the recorder failed.
 */
static int take_window(struct watch_state *ws, struct record_run *rs,
		       const struct trigger_report *t)
{
	const struct source_ops *ops = rs->src[0].ops;
	struct obuf verdict = { 0 }, text = { 0 }, json = { 0 };
	struct window_spikes others = { 0 };
	struct record_span span, gap;
	uint64_t rearmed = 0;
	int gap_cpus;
	const char *status = "saved", *main_cause = NULL;
	char name[NAME_MAX - 16], comm[32];
	int ret;

	ret = ops->window(rs->src[0].priv, &rs->st, &rearmed);
	if (ret)
		return ret;
	record_end_names(rs);
	if (record_end_names_carry(rs, &ws->names))
		pr_warn("watch: cannot name this window's threads from the last window's");
	cgroup_paths_free(&rs->cgroups);
	cgroup_paths_read(&rs->cgroups);
	ws->spikes++;
	thread_comm(t->tid, comm, sizeof(comm));
	window_span(ws, rs, t, &span, &gap);
	gap_cpus = mark_gap(rs, &gap);
	spike_name(name, sizeof(name), comm, t->tid);
	if (!rate_allows(ws, now_mono_ns())) {
		ws->over_rate++;
		status = "over_rate";
		ret = 0;
	} else {
		/* A window without its loss records would hide the stretch. */
		ret = gap_cpus < 0 ? gap_cpus : write_window(ws, rs, &span, name);
	}
	if (!ret && !strcmp(status, "saved")) {
		if (obuf_init(&verdict, -1, 512) || obuf_init(&text, -1, 1 << 16) ||
		    obuf_init(&json, -1, 1 << 14))
			ret = -ENOMEM;
		else
			ret = save_report(ws, t, name, comm, &verdict, &text, &json, &main_cause,
					  &others);
	}
	if (ret) {
		pr_err("watch: cannot save the spike of %s %u (%.3f ms) in %s: %s; watching on",
		       comm, t->tid, t->latency / 1e6, ws->wa->dir, strerror(-ret));
		ws->unsaved++;
		status = "not_saved";
	} else if (!strcmp(status, "saved")) {
		ws->saved++;
		/* The journal gets this line under systemd. */
		pr_info("spike: %.*s -> %s/%s.txt", (int)(verdict.len ? verdict.len - 1 : 0),
			verdict.buf, ws->wa->dir, name);
	} else {
		pr_info("spike: %s %u waited %.3f ms on CPU %u; not saved: over --max-rate %u/min",
			comm, t->tid, t->latency / 1e6, t->cpu, ws->wa->max_per_min);
	}
	if (verdict.len)
		verdict.buf[verdict.len - 1] = 0;	/* the line without its newline */
	if (!strcmp(status, "saved"))
		ws->merged += others.merged;
	if (index_append(ws, t, comm, !strcmp(status, "saved") ? name : NULL, status, main_cause,
			 verdict.len ? verdict.buf : NULL, &json, &gap,
			 gap_cpus > 0 ? gap_cpus : 0, others.merged))
		pr_err("watch: cannot append to %s/%s: %s", ws->wa->dir, WATCH_INDEX,
		       strerror(errno));
	/* Spikes of another cause the window holds: in the index, with its files. */
	for (uint32_t i = 0; !ret && i < others.nother; i++) {
		struct window_other *o = &others.other[i];

		ws->spikes++;
		ws->in_window++;
		if (index_append(ws, &o->t, comm, name, "in_window", o->cause, o->verdict.buf,
				 &o->json, &(struct record_span){ 0 }, 0, 0))
			pr_err("watch: cannot append to %s/%s: %s", ws->wa->dir, WATCH_INDEX,
			       strerror(errno));
	}
	if (others.more)
		pr_warn("watch: %u more spikes of %s %u in the window of %s are in its report only",
			others.more, comm, t->tid, name);
	window_spikes_free(&others);
	obuf_free(&verdict);
	obuf_free(&text);
	obuf_free(&json);
	if (ws->wa->max_size)
		prune(ws);
	if (reset_spools(rs)) {
		pr_err("watch: cannot create the temporary files of the next window");
		return -EIO;
	}
	ws->gap_first = t->stop_at;
	ws->window_start = rearmed;
	return 0;
}

/* ---- the command ---------------------------------------------------------- */

static int watch_opt(void *ctx, const struct cli_arg *a)
{
	struct watch_args *wa = ctx;
	struct record_opts *ro = &wa->ro;
	uint64_t v;
	char *end;

	switch (a->c) {
	case OPT_THRESHOLD:
		if (cli_parse_duration(a->name, a->text, CLI_UNIT_REQUIRED, &ro->trigger_ns))
			return -EINVAL;
		if (!ro->trigger_ns)
			return cli_usage_error("%s '%s': every wait would be a spike; give a duration above 0, as in 5ms",
					       a->name, a->text);
		wa->has_threshold = true;
		break;
	case OPT_PID:
		return cli_parse_pid(a->name, a->text, &ro->trigger_pid);
	case OPT_COMM:
		return record_parse_comm(a, ro->trigger_comm);
	case 'o':
		wa->dir = a->text;
		break;
	case OPT_BEFORE:
		return cli_parse_duration(a->name, a->text, CLI_UNIT_REQUIRED, &wa->before_ns);
	case OPT_AFTER:
		return cli_parse_duration(a->name, a->text, CLI_UNIT_REQUIRED, &ro->after_ns);
	case OPT_MAX_RATE:
		v = strtoull(a->text, &end, 10);
		if (end == a->text || (*end && strcmp(end, "/min")) || !v || v > WATCH_MAX_RATE)
			return cli_usage_error("%s '%s': give spikes per minute, 1 to %u, as in 10/min",
					       a->name, a->text, WATCH_MAX_RATE);
		wa->max_per_min = v;
		break;
	case OPT_MAX_SIZE:
		return cli_parse_size(a->name, a->text, &wa->max_size);
	case 'd':
		return record_parse_duration(a, &wa->duration_ns);
	case 'b':
		return record_parse_buffer_size(a, &ro->buffer_size);
	case OPT_BACKEND:
		wa->backend = a->text;
		break;
	case OPT_RT:
		ro->trigger_rt = true;
		break;
	case OPT_CGROUP:
		wa->cgroup = a->text;
		return record_parse_cgroup(a, ro);
	case 'v':
		ro->verbose = true;
		break;
	}
	return 0;
}

static const struct option watch_options[] = {
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "rt", no_argument, NULL, OPT_RT },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "output", required_argument, NULL, 'o' },
	{ "before", required_argument, NULL, OPT_BEFORE },
	{ "after", required_argument, NULL, OPT_AFTER },
	{ "max-rate", required_argument, NULL, OPT_MAX_RATE },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "duration", required_argument, NULL, 'd' },
	{ "buffer-size", required_argument, NULL, 'b' },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "verbose", no_argument, NULL, 'v' },
	{ 0 }
};

static const struct cli_command watch_cmd = {
	.name = "watch",
	.usage = "usage: ktrace watch --threshold DUR [options]\n"
		 "\n"
		 "Records until stopped, in ring mode with the latency trigger armed: each\n"
		 "wait longer than the threshold saves its window and a report that says\n"
		 "why, then the trigger is armed again.  Nothing is read from the buffers\n"
		 "between spikes.  SIGTERM or Ctrl-C finishes the window being written.\n"
		 "\n"
		 "  --threshold DUR        a wait (wakeup or preemption to switch-in) this long\n"
		 "                         or longer is a spike\n"
		 "  --pid PID              only this thread or process's waits\n"
		 "  --comm NAME            only waits of threads named NAME\n"
		 "  --rt                   only real-time (and deadline) threads' waits\n"
		 "  --cgroup PATH          only waits of threads in this cgroup or below it: a\n"
		 "                         directory of cgroup v2 or of v1's cpu hierarchy, or a\n"
		 "                         path below v2's root as /proc/PID/cgroup gives it\n"
		 "  -o, --output DIR       where spikes go (default ktrace-spikes): per spike\n"
		 "                         TIME-COMM-TID.fxt (the window) and .txt (the report),\n"
		 "                         and a line in DIR/spikes.jsonl\n"
		 "  --before DUR           trace kept before the wait began (default 200ms;\n"
		 "                         the buffers may hold less)\n"
		 "  --after DUR            trace kept after the wait ended (default 20ms)\n"
		 "  --max-rate N/min       spikes saved per minute at most (default 10/min);\n"
		 "                         the rest are counted in spikes.jsonl\n"
		 "  --max-size SIZE        DIR's spike files take at most SIZE (default 1G):\n"
		 "                         the oldest go first\n"
		 "  -d, --duration DUR     stop after DUR (default: until stopped)\n"
		 "  -b, --buffer-size SIZE per-CPU ring size (as for ktrace record)\n"
		 "  --backend kmod|bpf     the recorder (default: the module if loaded, else BPF)\n"
		 "  -v, --verbose          libbpf's and the recorder's messages\n",
	.examples = "  ktrace watch --threshold 5ms -o /var/log/ktrace\n"
		    "  ktrace watch --threshold 2ms --comm cyclictest --before 50ms -d 8h\n"
		    "  ktrace spikes /var/log/ktrace\n",
	.durations = true,
	.shortopts = "o:d:b:v",
	.longopts = watch_options,
	.min_args = 0,
	.max_args = 0,
	.opt = watch_opt,
};

/* DIR made if need be, and checked writable before anything records. */
static int open_dir(const char *dir)
{
	char probe[] = ".ktrace-watch-XXXXXX", path[PATH_MAX];
	int fd;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		pr_err("-o %s: cannot create the directory: %s", dir, strerror(errno));
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		pr_err("-o %s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, probe);
	if (mkstemp(path) < 0) {
		pr_err("-o %s: cannot write there: %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	unlink(path);
	return fd;
}

/* Removes what an earlier watch killed while writing left behind: its temporary files. */
static void clean_dir(int dirfd)
{
	DIR *d = fdopendir(dup(dirfd));
	struct dirent *e;
	size_t len;

	if (!d)
		return;
	while ((e = readdir(d))) {
		len = strlen(e->d_name);
		if (e->d_name[0] == '.' && len > 5 && !strcmp(e->d_name + len - 4, ".tmp"))
			unlinkat(dirfd, e->d_name, 0);
	}
	closedir(d);
}

/* Opens and starts the recorder: 0, or the exit status. */
static int watch_start(struct record_run *rs, const struct source_ops *ops,
		       struct watch_args *wa, const char *why)
{
	memset(rs, 0, sizeof(*rs));
	rs->go = -1;
	rs->child = -1;
	rs->sync.marker_fd = -1;
	if (record_open(rs, ops, &wa->ro, NULL, NULL, false, why) || record_start(rs))
		return 1;
	return 0;
}

int cmd_watch(int argc, char **argv)
{
	struct watch_args wa = { .dir = "ktrace-spikes", .before_ns = 200000000ULL,
				 .max_size = 1ULL << 30, .max_per_min = 10,
				 .ro = { .ring = true, .after_ns = 20000000ULL } };
	struct watch_state ws = { .wa = &wa };
	const struct source_ops *ops;
	struct trigger_report t;
	struct record_run rs;
	char why[256] = "";
	uint64_t start;
	int ret, status = 0;

	ret = cli_parse_options(&watch_cmd, argc, argv, &wa);
	if (ret >= 0)
		return ret;
	if (!wa.has_threshold) {
		cli_usage_error("--threshold is required: the wait that makes a spike, as in 5ms");
		cli_usage_hint(&watch_cmd);
		return 2;
	}
	if (wa.ro.trigger_pid && check_trigger_pid(wa.ro.trigger_pid))
		return 1;
	/* A spike is any wait the reports measure: a preemption's too (a throttled thread's). */
	wa.ro.trigger_preempted = true;
	/* Where the waker and the victim blocked, as ktrace record records it by default. */
	wa.ro.stack_depth = KTRACE_KSTACK_BLOCKED_DEPTH;
	wa.ro.blocked_min_ns = KTRACE_KSTACK_MIN_OFF_NS;
	if (choose_buffer_size(&wa.ro))
		return 1;
	ws.dirfd = open_dir(wa.dir);
	if (ws.dirfd < 0)
		return 1;
	clean_dir(ws.dirfd);
	ops = choose_backend(wa.backend, &wa.ro, why, sizeof(why));
	if (!ops) {
		close(ws.dirfd);
		return wa.backend && strcmp(wa.backend, "kmod") && strcmp(wa.backend, "bpf") ? 2 : 1;
	}
	if (watch_start(&rs, ops, &wa, why)) {
		record_close(&rs);
		close(ws.dirfd);
		return 1;
	}
	start = now_mono_ns();
	ws.window_start = start;
	/* The threads alive now name those of the first window gone before it is taken. */
	record_end_names(&rs);
	record_end_names_carry(&rs, &ws.names);
	spool_close(&rs.end_names);
	pr_info("watching with the %s backend: waits of %.3f ms or more%s%s%s%s%s into %s; Ctrl-C stops",
		ops->name, wa.ro.trigger_ns / 1e6, wa.ro.trigger_rt ? " of real-time threads" : "",
		wa.ro.trigger_comm[0] ? " of " : "", wa.ro.trigger_comm,
		wa.cgroup ? " in cgroup " : "", wa.cgroup ? wa.cgroup : "", wa.dir);
	for (;;) {
		bool stopping = record_stop_requested ||
				(wa.duration_ns && now_mono_ns() - start >= wa.duration_ns);

		ret = ops->trigger(rs.src[0].priv, &t);
		if (ret < 0) {
			pr_err("watch: reading the latency trigger: %s", strerror(-ret));
			status = 1;
			break;
		}
		/* A window under way is finished first, even when stopping. */
		if (ret == 1 && now_mono_ns() > t.stop_at) {
			ret = take_window(&ws, &rs, &t);
			if (ret < 0) {
				pr_err("watch: taking the window of %u and arming the trigger again: %s; stopping (the %llu spikes saved in %s are whole)",
				       t.tid, strerror(-ret), (unsigned long long)ws.saved, wa.dir);
				status = 1;
				break;
			}
			continue;
		}
		if (stopping && ret != 1)
			break;
		usleep(50000);
	}
	record_stop(&rs);
	record_close(&rs);
	pr_info("watch: %llu spikes in %.1f s: %llu saved, %llu over --max-rate, %llu could not be saved; %llu merged into a saved one, %llu more in a saved window",
		(unsigned long long)ws.spikes, (now_mono_ns() - start) / 1e9,
		(unsigned long long)ws.saved, (unsigned long long)ws.over_rate,
		(unsigned long long)ws.unsaved, (unsigned long long)ws.merged,
		(unsigned long long)ws.in_window);
	names_carry_free(&ws.names);
	close(ws.dirfd);
	return status;
}
