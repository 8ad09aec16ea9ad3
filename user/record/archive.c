// SPDX-License-Identifier: GPL-2.0
/*
 * The archive ktrace record writes: preamble, trace information, the names
 * of the threads alive, then every spool merged in time order; and, when
 * the output cannot be written, the same kept where there is room.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fxt/fxt_compact.h"
#include "fxt/irq_names.h"
#include "lib/u64map.h"
#include "lib/utils.h"
#include "record/names.h"
#include "record/record.h"
#include "trace/timeline.h"

/*
 * "throttling" says that CFS bandwidth throttling is recorded and in which
 * model, or why not: a trace without it (or from before it was recorded)
 * cannot tell a throttled wait from an idle CPU, and the analysis says so.
 * "preemption" is the kernel's preemption model, which a real-time wait
 * kept behind a lower-priority thread is read against.  "start_ts" and
 * "stop_ts" are the span (struct record_span), at whose start trace_info is
 * timed: `ktrace dump --check` holds the records to it.  "clocksource" is
 * the kernel's, which both recorders' clock reads go through
 * (ktime_get_mono_fast_ns()): a read costs several times more on
 * kvm-clock or hpet than on tsc.
 */
static void trace_info(struct fxt_writer *w, const struct source_ops *ops, void *priv,
		       const struct record_span *span)
{
	const char *throttling = ops->throttling ? ops->throttling(priv) :
				 "not recorded by this backend";
	struct fxt_arg args[10];
	char preemption[64], clocksource[64] = "unknown";
	struct utsname u;
	FILE *f;

	uname(&u);
	preemption_model(preemption, sizeof(preemption));
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (f) {
		if (fgets(clocksource, sizeof(clocksource), f))
			clocksource[strcspn(clocksource, "\n")] = 0;
		fclose(f);
	}
	args[0] = fxt_arg_str("host", u.nodename);
	args[1] = fxt_arg_str("kernel", u.release);
	args[2] = fxt_arg_str("backend", ops->name);
	args[3] = fxt_arg_str("clock", "CLOCK_MONOTONIC");
	/* Readers give back what the compact records leave out (fxt_compact.h). */
	args[4] = fxt_arg_str("encoding", FXT_COMPACT_ENCODING);
	args[5] = fxt_arg_str("throttling", throttling);
	args[6] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "start_ts", span->start);
	args[7] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "stop_ts", span->stop);
	args[8] = fxt_arg_str("preemption", preemption);
	args[9] = fxt_arg_str("clocksource", clocksource);
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, span->start, 0, 0, "ktrace:meta", "trace_info",
			args, 10, 0);
}

/*
 * A ring keeps each CPU's newest records, so the window of a CPU whose ring
 * wrapped starts late, and each at a different time; the archive starts
 * where they all have data.  (A ring that never wrapped has everything.)
 */
uint64_t ring_common_start(const struct spool *spools, unsigned int n)
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

/*
 * Every record on its way into the archive, read back: where a CPU's next
 * switch takes off a thread other than the one switched in last, and no
 * loss on the CPU explains it, the kernel switched without tracing it
 * (ftrace's sched_switch misses the same ones).  An untraced_switch record
 * says so before that switch, so that nothing shows the stranded thread
 * running through a stretch where it may not have run.
 */
struct archive_check {
	struct fxt_writer *w;
	struct record_span span;
	struct fxt_reader r;
	struct timeline tl;
	struct archive_names names;
	struct fxt_compact compact;
	const struct cgroup_paths *cgroups;
	struct irq_actions irqs;
	uint64_t irq_named[64];	/* bitmap: CPUs whose interrupt track is named */
	bool irq_process_named;
	uint64_t untraced;
	uint64_t untraced_wakeups;	/* the recorder's untraced_wakeup records */
	int err;		/* the first error of a record on its way */
	bool writing;		/* our own record, on its way through */
	bool at_end;		/* the names of the threads alive at the end */
	/* Each thread's and process's record the archive last has, hashed. */
	struct u64map said_map;
	uint64_t *said;
	uint32_t nsaid, capsaid;
};

static void untraced_switch(struct archive_check *a, const struct fxt_record *sw,
			    const struct tl_cpu *was)
{
	struct fxt_arg args[TL_UNTRACED_NARGS];

	/* The stranded thread ran from its switch-in until some time before this switch. */
	timeline_untraced_args(args, sw->cpu, was->tid, sw->out_tid, was->since, sw->ts);
	a->writing = true;
	fxt_write_event(a->w, KTRACE_FXT_EV_INSTANT, sw->ts, 0, 0, "ktrace:meta",
			"untraced_switch", args, TL_UNTRACED_NARGS, 0);
	a->writing = false;
	a->untraced++;
}

/* A thread record on its way: the process of the thread's references from now on. */
static void note_process(struct archive_check *a, const struct fxt_record *rec)
{
	const struct fxt_arg *proc = fxt_find_arg(rec, "process");

	if (rec->obj_type != KTRACE_FXT_OBJ_THREAD || !proc || proc->type != KTRACE_FXT_ARG_KOID)
		return;
	if (fxt_compact_named(&a->compact, rec->koid, proc->u) && !a->err)
		a->err = -ENOMEM;
}

/*
 * Whether the last record the archive has of @rec's thread or process
 * says what @rec, with @args, says: the same name and arguments (a 64-bit
 * hash of them).  The recorders name a thread at its fork, exec and exit,
 * and the archive the threads alive at the end, so that a name lost or
 * written over in a ring is still there; in the archive, a repeat tells
 * no reader anything.  Else @rec becomes the last.
 */
static bool said_already(struct archive_check *a, const struct fxt_record *rec,
			 const struct fxt_arg *args, uint32_t nargs)
{
	uint64_t h = FNV1A_SEED, *last;
	bool added;

	if (rec->obj_type != KTRACE_FXT_OBJ_THREAD && rec->obj_type != KTRACE_FXT_OBJ_PROCESS)
		return false;
	h = fnv1a(h, rec->name.p, rec->name.len);
	for (uint32_t i = 0; i < nargs; i++) {
		h = fnv1a(h, &args[i].type, sizeof(args[i].type));
		h = fnv1a(h, args[i].name.p, args[i].name.len);
		if (args[i].type == KTRACE_FXT_ARG_STRING)
			h = fnv1a(h, args[i].s.p, args[i].s.len);
		else
			h = fnv1a(h, &args[i].u, sizeof(args[i].u));
		h = fnv1a(h, "", 1);	/* "ab","c" is not "a","bc" */
	}
	last = u64map_vec_get(&a->said_map, rec->koid << 1 | (rec->obj_type == KTRACE_FXT_OBJ_PROCESS),
			      &a->said, &a->nsaid, &a->capsaid, sizeof(*last), &added);
	if (!last)
		return false;	/* no memory: written again, as before */
	if (!added && *last == h)
		return true;
	*last = h;
	return false;
}

/*
 * A thread or process record @rec (@words) into the archive, unless it is
 * the one the archive last has of it (said_already()).  One that gives
 * its cgroup by id only, as the recorders do, gets its path too
 * ("cgroup"), from the cgroups there were at the end; a cgroup removed by
 * then keeps its id alone.  Its name, its arguments' names and string
 * values go through the archive's string table: the same process name, a
 * cgroup's path and "cgroup_id" are written once, not in every record.
 */
static void put_kobj(struct archive_check *a, const uint64_t *words, uint32_t n,
		     const struct fxt_record *rec)
{
	struct fxt_arg args[KTRACE_FXT_MAX_ARGS];
	const struct fxt_arg *id = fxt_find_arg(rec, "cgroup_id");
	char name[256];
	const char *path = NULL;
	uint32_t nargs = rec->nargs;

	if (id && id->type == KTRACE_FXT_ARG_UINT64 && !fxt_find_arg(rec, "cgroup") &&
	    nargs < KTRACE_FXT_MAX_ARGS)
		path = cgroup_paths_find(a->cgroups, id->u);
	memcpy(args, rec->args, nargs * sizeof(*args));
	if (path)
		args[nargs++] = fxt_arg_str("cgroup", path);
	if (said_already(a, rec, args, nargs))
		return;
	/* A name that does not fit, or with a NUL: as it came. */
	if (rec->name.len >= sizeof(name) || memchr(rec->name.p, 0, rec->name.len)) {
		obuf_put(&a->w->out, words, (size_t)n * 8);
		a->w->records++;
		return;
	}
	snprintf(name, sizeof(name), "%.*s", (int)rec->name.len, rec->name.p);
	a->writing = true;
	fxt_write_kobj(a->w, rec->obj_type, rec->koid, name, args, nargs);
	a->writing = false;
}

/* Before a record that uses @tid: the name it had then, if another is in effect. */
static void name_thread(struct archive_check *a, uint64_t tid, uint64_t ts, bool ran)
{
	__u64 proc[KTRACE_FXT_KOBJ_PROCESS_MAX_WORDS];
	uint32_t nthread, nproc;
	const uint64_t *thread;
	struct fxt_record rec;

	if (!archive_names_use(&a->names, tid, ts, ran, &thread, &nthread, proc, &nproc))
		return;
	if (fxt_reader_decode(&a->r, thread, nthread, &rec) == 1) {
		put_kobj(a, thread, nthread, &rec);
		/* The process the thread table's references to @tid give from now on. */
		note_process(a, &rec);
	} else {
		obuf_put(&a->w->out, thread, (size_t)nthread * 8);
		a->w->records++;
	}
	if (nproc && fxt_reader_decode(&a->r, (const uint64_t *)proc, nproc, &rec) == 1)
		put_kobj(a, (const uint64_t *)proc, nproc, &rec);
}

static void name_threads(struct archive_check *a, const struct fxt_record *rec)
{
	const struct fxt_arg *waker;

	if (rec->sub <= KTRACE_FXT_SCHED_CSWITCH_ARGS) {
		name_thread(a, rec->out_tid, rec->ts, true);
		name_thread(a, rec->in_tid, rec->ts, true);
	} else if (rec->sub == KTRACE_FXT_SCHED_WAKEUP) {
		name_thread(a, rec->tid, rec->ts, false);
		waker = fxt_find_arg(rec, "waker");
		if (waker && waker->type == KTRACE_FXT_ARG_KOID)
			name_thread(a, waker->u, rec->ts, false);
	}
}

/*
 * A record of a recorder or of ftrace timed outside the span: one that
 * raced the span's edge in the kernel (a writer that read it a moment
 * stale), or an ftrace event from before the recorder started or after it
 * stopped.  Left out, so that every kind of record covers the same span on
 * every CPU.  ktrace's own records (ktrace:meta: losses, clock sync) are
 * about the recording, and kept.
 */
static bool outside_span(const struct archive_check *a, const struct fxt_record *rec)
{
	uint64_t ts;

	if (rec->type != KTRACE_FXT_REC_SCHED &&
	    (rec->type != KTRACE_FXT_REC_EVENT || fxt_str_eq(rec->cat, "ktrace:meta")))
		return false;
	ts = fxt_ticks_to_ns(&a->r, rec->ts);
	return ts < a->span.start || ts > a->span.stop;
}

/*
 * A recorder's interrupt record (ktrace_fxt_put_irq()) into the archive:
 * the same duration named as the ftrace path names it ("irq 27 eth0",
 * "softirq TIMER"), on its CPU's interrupt track, named before its first
 * use, so that the analyses and Perfetto read both alike.  Device names
 * are those of the irq when the archive is written.
 */
static bool put_irq(struct archive_check *a, const struct fxt_record *rec)
{
	char name[160], thread[32];
	struct fxt_arg proc;
	uint32_t cpu;
	int ref;

	if (!irq_record_name(rec, &a->irqs, name, sizeof(name), &cpu))
		return false;
	a->writing = true;
	if (cpu >= 64 * ARRAY_SIZE(a->irq_named) || !(a->irq_named[cpu / 64] & 1ULL << cpu % 64)) {
		if (!a->irq_process_named)
			fxt_write_kobj(a->w, KTRACE_FXT_OBJ_PROCESS, KTRACE_FXT_IRQ_PID,
				       "interrupts", NULL, 0);
		a->irq_process_named = true;
		snprintf(thread, sizeof(thread), "CPU %u irq", cpu);
		proc = fxt_arg_int(KTRACE_FXT_ARG_KOID, "process", KTRACE_FXT_IRQ_PID);
		fxt_write_kobj(a->w, KTRACE_FXT_OBJ_THREAD, rec->tid, thread, &proc, 1);
		if (fxt_compact_named(&a->compact, rec->tid, KTRACE_FXT_IRQ_PID) && !a->err)
			a->err = -ENOMEM;
		if (cpu < 64 * ARRAY_SIZE(a->irq_named))
			a->irq_named[cpu / 64] |= 1ULL << cpu % 64;
	}
	/* By its thread-table index where it has one: 16 bytes less. */
	ref = fxt_compact_event_ref(&a->compact, a->w, rec->pid, rec->tid);
	if (ref > 0)
		fxt_write_event_tref(a->w, KTRACE_FXT_EV_DURATION_COMPLETE, rec->ts, ref,
				     "ktrace:irq", name, rec->args, rec->nargs, rec->extra);
	else
		fxt_write_event(a->w, KTRACE_FXT_EV_DURATION_COMPLETE, rec->ts, rec->pid,
				rec->tid, "ktrace:irq", name, rec->args, rec->nargs, rec->extra);
	if (ref < 0 && !a->err)
		a->err = ref;
	a->writing = false;
	return true;
}

static int archive_sink(void *ctx, const void *words, uint32_t n)
{
	struct archive_check *a = ctx;
	struct fxt_record rec;
	struct tl_cpu was;
	uint32_t cpu;
	int ret;

	if (!a->writing && fxt_reader_decode(&a->r, words, n, &rec) == 1) {
		if (outside_span(a, &rec)) {
			a->w->records--;
			return 0;
		}
		if (rec.type == KTRACE_FXT_REC_SCHED && rec.sub <= KTRACE_FXT_SCHED_CSWITCH_ARGS) {
			if (timeline_switch(&a->tl, rec.cpu, rec.ts, rec.out_tid, rec.in_tid,
					    &was) == 1)
				untraced_switch(a, &rec, &was);
		} else if (timeline_meta(&rec, &cpu) != TL_META_NONE) {
			timeline_forget(&a->tl, cpu);
		} else if (rec.type == KTRACE_FXT_REC_EVENT && fxt_str_eq(rec.cat, "ktrace:meta") &&
			   fxt_str_eq(rec.name, "untraced_wakeup")) {
			a->untraced_wakeups++;
		}
		if (rec.type == KTRACE_FXT_REC_SCHED) {
			name_threads(a, &rec);
			ret = fxt_compact_sched(&a->compact, a->w, &rec);
			if (ret && !a->err)
				a->err = ret;
			return ret;
		}
		if (rec.type == KTRACE_FXT_REC_KERNEL_OBJ) {
			archive_names_written(&a->names, &rec, a->at_end);
			note_process(a, &rec);
			/* Counted as it came: put_kobj() counts what it writes. */
			a->w->records--;
			put_kobj(a, words, n, &rec);
			return 0;
		}
		if (rec.type == KTRACE_FXT_REC_EVENT && rec.pid == KTRACE_FXT_IRQ_PID) {
			/* Counted as it came: fxt_write_event() counts what it writes. */
			a->w->records--;
			if (put_irq(a, &rec))
				return 0;
			a->w->records++;
		}
		if (rec.type == KTRACE_FXT_REC_EVENT) {
			ret = fxt_compact_event(&a->compact, a->w, &rec);
			if (ret < 0 && !a->err)
				a->err = ret;
			if (ret)
				return ret < 0 ? ret : 0;
		}
	} else if (a->writing) {
		/* Its strings, for the records that use them later. */
		fxt_reader_decode(&a->r, words, n, &rec);
	}
	obuf_put(&a->w->out, words, (size_t)n * 8);
	return 0;
}

/*
 * @records: every record in the archive, as `ktrace dump --stats` counts
 * them; @untraced: the untraced_switch records among them.
 */
static int write_name(void *ctx, const uint64_t *rec, uint32_t words, uint64_t ts)
{
	(void)ts;
	fxt_write_words(ctx, rec, words);
	return 0;
}

int write_archive(int fd, const struct source_ops *ops, void *priv, const struct record_opts *ro,
		  const struct record_span *span, struct spool *spools, unsigned int n, uint64_t from,
		  struct spool *end_names, const struct cgroup_limits *limits,
		  const struct cgroup_paths *cgroups, struct archive_stats *st)
{
	struct archive_check a = { 0 };
	struct fxt_writer *w = malloc(sizeof(*w));
	int ret;

	if (!w || fxt_writer_init(w, fd)) {
		free(w);
		return -ENOMEM;
	}
	ret = archive_names_scan(&a.names, spools, n, from);
	if (ret) {
		free(w);
		return ret;
	}
	a.w = w;
	a.span = *span;
	a.cgroups = cgroups;
	irq_actions_init(&a.irqs, "");
	fxt_reader_open_mem(&a.r, NULL, 0);
	/* Only what names strings and threads, and what the timelines need, is decoded. */
	a.r.undecoded = ~(1U << KTRACE_FXT_REC_METADATA | 1U << KTRACE_FXT_REC_INIT |
			  1U << KTRACE_FXT_REC_STRING | 1U << KTRACE_FXT_REC_THREAD |
			  1U << KTRACE_FXT_REC_EVENT | 1U << KTRACE_FXT_REC_SCHED |
			  1U << KTRACE_FXT_REC_KERNEL_OBJ);
	w->sink = archive_sink;
	w->sink_ctx = &a;
	fxt_write_preamble(w, 1, "ktrace");
	trace_info(w, ops, priv, span);
	fxt_compact_init(&a.compact, w);
	a.compact.implicit_waker = ro->compact_wakeups;
	cgroup_limits_write(limits, w, span->start);
	/* The BPF probes name their events by these indices. */
	if (!ops->statedump_in_kernel)
		for (unsigned int i = 0; i < ro->nprobes; i++)
			fxt_write_string(w, KTRACE_FXT_STR_FIRST_PROBE + i, ro->probes[i].symbol);
	/*
	 * The threads alive at the end, first: a thread whose events were
	 * lost, or written over in a ring, still gets a name, and the names
	 * recorded come later where they differ (names.c).
	 */
	a.at_end = true;
	ret = spool_for_each_kobj(end_names, write_name, w);
	a.at_end = false;
	if (ret)
		pr_warn("cannot read the names of the threads alive at the end: %s", strerror(-ret));
	if (ops->head)
		ops->head(priv, w, span->start);
	ret = merge_spools(spools, n, w, from);
	w->sink = NULL;
	if (!ret)
		ret = a.err;
	st->bytes = w->out.total + w->out.len;
	st->records = w->records;
	st->untraced = a.untraced;
	st->untraced_wakeups = a.untraced_wakeups;
	st->unnamed = a.names.unnamed;
	if (!ret)
		ret = fxt_writer_finish(w);
	else
		fxt_writer_finish(w);
	fxt_reader_close(&a.r);
	timeline_free(&a.tl);
	archive_names_free(&a.names);
	fxt_compact_free(&a.compact);
	irq_actions_free(&a.irqs);
	u64map_free(&a.said_map);
	free(a.said);
	free(w);
	return ret;
}

/*
 * Writing the output failed (a full disk, say): the recording is still in
 * the spools, so write it as FXT where there is room and say where.
 */
void rescue(const struct source_ops *ops, void *priv, const struct record_opts *ro,
	    const struct record_span *span, struct spool *spools, unsigned int n, uint64_t from, struct spool *end_names,
	    const struct cgroup_limits *limits, const struct cgroup_paths *cgroups)
{
	const char *dirs[] = { getenv("TMPDIR"), "/var/tmp", "/tmp", "." };
	struct archive_stats st;
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int fd;

		if (!dirs[i] || !*dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/ktrace-%d.fxt", dirs[i], getpid());
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			continue;
		if (!write_archive(fd, ops, priv, ro, span, spools, n, from, end_names, limits,
				   cgroups, &st) &&
		    !close(fd)) {
			pr_err("the recording was kept in %s (%.1f MB; `ktrace convert` turns it into JSON)",
			       path, st.bytes / 1e6);
			return;
		}
		close(fd);
		unlink(path);
	}
	pr_err("the recording could not be written anywhere: tried $TMPDIR, /var/tmp, /tmp and .");
}
