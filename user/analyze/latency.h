/* SPDX-License-Identifier: GPL-2.0 */
/* Scheduling latency analysis of an FXT archive: why did a thread wait? */
#ifndef KTRACE_LATENCY_H
#define KTRACE_LATENCY_H

#include <stdbool.h>
#include <stdint.h>

#include "fxt/fxt_reader.h"
#include "lib/utils.h"
#include "trace/cpu_mask.h"
#include "trace/sched.h"

enum lat_by { LAT_BY_THREAD, LAT_BY_PROCESS, LAT_BY_CPU, LAT_BY_ALL, LAT_BY_CGROUP };

/*
 * Wakeup: sched_waking to switch-in.  Preemption: switched out in R to
 * switch-in.  Timer: a sleeper's timer due to its switch-in, for the
 * wakeups its timer made (timer_latency.c); those are not wakeup waits.
 */
enum lat_kind { LAT_WAKEUP, LAT_PREEMPT, LAT_TIMER, LAT_KINDS };

/* Blocked time is split by the Linux state the thread left the CPU in. */
enum lat_block { LAT_BLOCK_S, LAT_BLOCK_D, LAT_BLOCK_OTHER, LAT_BLOCKS };

/*
 * Log-linear histogram: 16 buckets per power of two, so a percentile read
 * from it is within 1/32 (3.1%) of the true value; min and max are exact.
 */
#define LAT_SUB_BITS	4
#define LAT_BUCKETS	((64 - LAT_SUB_BITS + 1) << LAT_SUB_BITS)
#define LAT_LOG2_BUCKETS 64

struct lat_dist {
	uint64_t count, sum, min, max;
	uint64_t max_ts;		/* switch-in that ended the longest wait */
	uint64_t max_tid;
	uint32_t *fine;			/* LAT_BUCKETS, from the first wait on */
	uint64_t *log2;			/* runqlat's layout in the report's unit (--hist) */
};

/*
 * What a wait's time went to, partitioned: the categories sum to the wait
 * to the nanosecond.  One row per cause: its name in the reports and the
 * JSON, and what it means; how each is decided is in causes.c.  The
 * reports, the JSON, the critical path and the -o slices list every row.
 */
#define LAT_CAUSE_TABLE(X)									\
	X(HIGHER_PRIORITY, "higher_priority")	/* the queue's CPU ran a higher class or RT priority */	\
	X(NOT_PREEMPTED, "not_preempted")	/* an RT waiter's CPU kept a lower class or RT priority */	\
	X(SAME_CLASS, "same_class")		/* it ran another thread of the same class */		\
	X(INTERRUPTS, "interrupts")		/* hardirq or softirq time, when recorded */		\
	X(THROTTLED, "throttled")		/* CFS bandwidth throttling */				\
	X(TIMER_LATE, "timer_late")		/* a timer wait before its wakeup: not runnable yet */	\
	X(CPU_IDLE, "cpu_idle")			/* the queue's CPU was idle */				\
	X(UNKNOWN, "unknown")			/* lost, untraced, or before the CPU's history */

enum lat_cause {
#define LAT_CAUSE_ENUM(id, name) LAT_CAUSE_##id,
	LAT_CAUSE_TABLE(LAT_CAUSE_ENUM)
#undef LAT_CAUSE_ENUM
	LAT_CAUSES
};

/* Blocked time of a group in one state and one interned kernel stack. */
struct lat_blocked_in {
	uint64_t kstack;		/* the stack's id in the archive */
	uint8_t block;			/* enum lat_block */
	uint64_t ns, n;
};

#define LAT_BLOCKED_IN_MAX	256	/* per group; more are left out of the split */

struct lat_group {
	uint64_t key;			/* tid, pid, CPU, or 0 for all */
	struct lat_dist d[LAT_KINDS];
	uint64_t blocked_ns[LAT_BLOCKS], blocked_n[LAT_BLOCKS];
	struct lat_blocked_in *blocked_in;	/* with record --blocked-in */
	uint32_t nblocked_in;
	/* Waits that were not measured, and why. */
	uint64_t before_trace;		/* first seen switching in: its wait began before the trace */
	uint64_t no_wakeup;		/* switched in from sleep without a recorded wakeup */
	uint64_t lossy;			/* overlapped records the recorder lost */
	uint64_t causes[LAT_CAUSES];	/* every measured wait's, summed */
	uint32_t id;			/* order of creation: its buckets' key */
};

#define LAT_BLAME_THREADS	6
#define LAT_BLAME_IRQS		4

/* Who held a CPU during a wait: a thread, idle, or an interrupt handler. */
struct lat_share {
	uint64_t id;			/* tid, or interrupt name index */
	int32_t weight;			/* 140 - Linux prio, threads only */
	uint8_t kind;			/* enum lat_seg_kind */
	uint64_t ns;
};

/* A move of a waiting thread to another CPU's run queue. */
struct lat_migration {
	uint64_t ts;
	int32_t from, to;
	const struct cpu_mask *cpus;	/* allowed CPUs from then on, as lat_wait's */
};

#define LAT_MIGRATIONS	8	/* kept per wait; later ones replace the last */

/* A stretch of a wait spent on one run queue, and who held that CPU most. */
struct lat_piece {
	uint64_t start, end;
	int32_t cpu;			/* -1: not known */
	const struct cpu_mask *cpus;	/* allowed CPUs meanwhile, as lat_wait's */
	uint64_t throttled_ns;		/* its cgroup was throttled there (overlapping others) */
	uint64_t top_tid;		/* the thread that ran longest there, 0: none */
	int32_t top_weight;
	uint64_t top_ns;
};

/*
 * A timer wait's times, and what its timer's CPU was doing when the timer
 * was due: @at_due.kind is SEG_THREAD (with tid and weight), SEG_IDLE,
 * SEG_HARDIRQ or SEG_SOFTIRQ (with the interrupt name's index).
 */
struct lat_timer_wait {
	uint64_t due, fired, woken;	/* the wait's start is due, its end ran */
	uint32_t cpu;			/* the timer fired on */
	bool at_due_known;
	struct lat_share at_due;
};

/* One wait, with what occupied the CPU it ended on meanwhile. */
struct lat_wait {
	uint64_t start, end;		/* wakeup or switch-out; switch-in */
	uint64_t runnable;		/* @start, but a timer wait's wakeup (it was due at @start) */
	const char *preemption;		/* the kernel's preemption model, NULL: not recorded */
	uint64_t tid, pid;
	uint8_t kind;			/* enum lat_kind */
	uint8_t waker_ctx;		/* enum ktrace_irq_context */
	bool has_waker;			/* waker (or interrupted task) known */
	bool partial;			/* the CPU's history did not reach back to @start */
	uint32_t cpu;			/* ran on */
	int32_t prev_cpu;		/* last ran on, -1 if not seen */
	uint32_t wake_cpu;
	uint64_t waker;			/* tid; the interrupted task for irq wakeups */
	int32_t waker_irq;		/* interrupt name index, -1 if not recorded */
	int32_t weight;
	struct lat_share run[LAT_BLAME_THREADS];
	uint32_t nrun;
	uint64_t run_other_ns;		/* threads beyond the ones listed */
	struct lat_share irq[LAT_BLAME_IRQS];
	uint32_t nirq;
	uint64_t hardirq_ns, softirq_ns, idle_ns;
	bool have_irq;			/* interrupt handlers were recorded */
	/* Where it waited (causes.c): the queues it sat on, and why it waited. */
	bool have_migrations;		/* the trace records migrations */
	int32_t queue_cpu;		/* the run queue it waited on first, -1: not known */
	struct lat_migration mig[LAT_MIGRATIONS];
	uint32_t nmig, mig_dropped;
	struct lat_piece piece[LAT_MIGRATIONS + 1];
	uint32_t npiece;
	uint64_t causes[LAT_CAUSES];
	uint64_t untraced_ns, lost_ns;	/* of unknown: the kernel's untraced switches, losses */
	/* The cgroup whose throttling held it longest: its path and limit, NULL: none. */
	const char *throttled_path, *throttled_cpu_max;
	bool throttled_v1;		/* its limit is cgroup v1's */
	uint64_t throttled_cgroup_id;
	/* Not a cause but beside them: another CPU it may use was idle meanwhile. */
	const struct cpu_mask *cpus;	/* allowed CPUs at its start, NULL: every CPU */
	uint64_t idle_elsewhere_ns;	/* at least one such CPU was idle */
	int32_t idle_elsewhere_cpu;	/* the one idle longest, -1: none */
	uint64_t idle_elsewhere_cpu_ns;
	struct lat_timer_wait timer;	/* LAT_TIMER; blame covers woken to ran */
};

struct lat_opts {
	enum lat_by by;
	int64_t pid;			/* -1: any; matches the thread or its process */
	const char *comm;		/* thread or process name */
	const char *cgroup;		/* cgroup v2 path or a parent of it */
	int64_t cpu;			/* -1: any; the CPU the wait ended on */
	uint64_t min_ns;
	uint64_t idle_threshold_ns;	/* work conservation: waits longer (0: 1 ms) */
	uint32_t top;
	bool hist;
	uint64_t unit_ns;		/* 1000 (usecs) or 1000000 (msecs, -m) */
};

struct lat_analysis;

struct lat_analysis *lat_new(const struct lat_opts *o);
void lat_free(struct lat_analysis *a);

/*
 * What the wait model made of a wakeup, for the analyses that read the
 * same records after it (the critical path): the interrupt handler that
 * made it, and the sleeper timer that did.
 */
struct lat_transition {
	int32_t waker_irq;		/* the handler running on the waking CPU, -1: none recorded */
	bool timer;			/* the thread's sleeper timer woke it */
	uint64_t timer_due, timer_fired;
};

/*
 * Pass 1: names and losses.  Pass 2: waits, a record at a time, as the
 * one decoder gives it (trace/sched.h); with @tr, what the wakeup meant.
 * Both see every record in order (latency_run.h drives them).
 */
void lat_scan(struct lat_analysis *a, const struct fxt_reader *r, const struct fxt_record *rec);
void lat_scan_done(struct lat_analysis *a);
void lat_event(struct lat_analysis *a, const struct fxt_reader *r, const struct fxt_record *rec,
	       const struct sched_event *ev, struct lat_transition *tr);
void lat_done(struct lat_analysis *a);
/*
 * The trace stops early, at e (a cut or a broken record), after @records
 * records: the reports are a partial answer and say so, where and why.
 */
void lat_set_cut(struct lat_analysis *a, const struct fxt_error *e, uint64_t records);
/* The cut in a report: a text line (nothing when whole), a JSON member ("cut": null when whole). */
void lat_put_cut_text(const struct lat_analysis *a, struct obuf *o);
void lat_put_cut_json(const struct lat_analysis *a, struct obuf *o);

void lat_report_text(struct lat_analysis *a, struct obuf *o, const char *path);
void lat_report_json(struct lat_analysis *a, struct obuf *o, const char *path);
/* The cause with the most of @w's time (enum lat_cause). */
unsigned int lat_main_cause(const struct lat_wait *w);
/* One line that says why @w waited: its main causes, behind whom, the CPU it could have used. */
void lat_verdict(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o);
/* The worst waits, longest first (after lat_done()): their number, the @i-th. */
uint32_t lat_top_count(const struct lat_analysis *a);
const struct lat_wait *lat_top_wait(const struct lat_analysis *a, uint32_t i);
/* One wait as the reports list it: text (lines after the first indented), a JSON object. */
void lat_wait_text(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o);
void lat_wait_json(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o);
void lat_report_folded(struct lat_analysis *a, struct obuf *o);

/* What the trace holds, and how much of it --pid, --comm and --cpu match (after lat_done). */
struct lat_matches {
	uint32_t threads;		/* every thread with a tid */
	uint32_t pid_threads;		/* --pid's thread, or the threads of its process */
	uint32_t comm_threads;		/* threads with --comm's thread or process name */
	uint32_t both_threads;		/* threads both keep */
	uint32_t cgroup_threads;	/* threads in --cgroup's cgroup or below it */
	uint32_t cgroups;		/* cgroups the trace names */
	uint32_t cpus, max_cpu;		/* CPUs with context switches */
	bool cpu_seen;			/* --cpu's is one */
};

void lat_matches(struct lat_analysis *a, struct lat_matches *m);

/* The worst waits (--top), sorted by start time, for writing them back into a trace. */
const struct lat_wait *lat_waits_by_start(struct lat_analysis *a, uint32_t *n);
/* Where a wait was queued: "queued on CPU 1 4.0 us behind kt_fifo 401 (rt 50) ...". */
void lat_where_line(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o);
/* A duration in the unit that reads best: 850 ns, 12.3 us, 4.017 ms. */
void lat_put_dur(struct obuf *o, uint64_t ns);
/* A timer wait's parts and its timer CPU at the due time, as one line. */
void lat_timer_line(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o);
/* A wait's blame as one line ("fifo-hog 2000 rt10 15.1 ms, idle 0.1 ms"). */
void lat_blame_line(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o);
const char *lat_thread_name(struct lat_analysis *a, uint64_t tid);
/* A group key of --by cgroup as its path, "?" for threads the trace gives none. */
const char *lat_cgroup_name(struct lat_analysis *a, uint64_t key);
const char *lat_kind_name(unsigned int kind);
/* A cause's name as the JSON has it ("higher_priority"). */
const char *lat_cause_name(unsigned int cause);
/* "91% higher_priority, 6% same_class": shares of the total. */
void lat_causes_line(const uint64_t *causes, struct obuf *o);
/* "cgroup /path (cpu.max Q/P)", or "cgroup id N" where the trace names no path. */
void lat_throttled_cgroup(struct obuf *o, const char *path, uint64_t id, const char *cpu_max,
			  bool v1);
/* ,"throttled_cgroup":{"id","path","cpu_max","quota_us","period_us"} or null */
void lat_throttled_json(const struct lat_wait *w, struct obuf *o);
/* "higher_priority 3.6 us, interrupts 400 ns": a wait's causes, with why unknown. */
void lat_causes_text(const struct lat_wait *w, struct obuf *o);
/* "idle_allowed_elsewhere 4.0 us (CPU 0 idle 4.0 us); allowed CPUs 0-1" */
void lat_elsewhere_text(const struct lat_wait *w, struct obuf *o);
/*
 * For the critical path: the thread filter, names, losses, the interrupt
 * handler now running on @cpu (-1: none recorded), and what held @cpu
 * during [start, end] as a wait's blame, with its causes for thread @tid.
 */
bool lat_selects(struct lat_analysis *a, uint64_t tid);
uint64_t lat_thread_pid(struct lat_analysis *a, uint64_t tid);
bool lat_overlaps_loss(const struct lat_analysis *a, uint64_t start, uint64_t end);
int32_t lat_cpu_irq(struct lat_analysis *a, uint32_t cpu, uint64_t ts);
const char *lat_irq_name(struct lat_analysis *a, int32_t idx);
void lat_blame_span(struct lat_analysis *a, uint64_t tid, uint32_t cpu, uint64_t start,
		    uint64_t end, struct lat_wait *w);
/*
 * The span blamed by lat_blame_span() was queued first on @queue_cpu and
 * then moved: the last move @mig (from, at, to the CPU it got), after
 * @moves - 1 others.  Its pieces, causes and idle CPUs elsewhere again.
 */
void lat_span_moved(struct lat_analysis *a, struct lat_wait *w, int32_t queue_cpu,
		    const struct lat_migration *mig, uint32_t moves);
/* A "ktrace:sched" "migrate" record (orig_cpu, dest_cpu) on the moved thread. */
bool lat_is_migrate(const struct fxt_record *rec);
/* A "ktrace:sched" "affinity" record (cpus) on the thread whose allowed CPUs changed. */
bool lat_is_affinity(const struct fxt_record *rec);
/* The function an interned kernel stack blocked in, NULL if the archive does not say. */
const char *lat_blocked_in_name(struct lat_analysis *a, uint64_t kstack);

#endif
