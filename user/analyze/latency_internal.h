/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The latency analysis's state, shared by its parts; latency.h is the
 * interface.  The parts, lowest first:
 *   trace_index.c     pass 1: threads, processes, cgroups, interrupt names,
 *                     losses, untraced stretches, and the lookups in them
 *   throttling.c      the throttled spans and cgroup limits of pass 1
 *   latency.c         pass 2: the wait model (a thread's state machine) and
 *                     the CPUs' histories; each ended wait to its group
 *   timer_latency.c   the wait model's timer waits
 *   causes.c          a wait's time split into causes (LAT_CAUSE_TABLE)
 *   latency_format.c  the phrases the reports share
 *   latency_report.c  text, JSON, folded stacks, the verdict
 *   latency_run.c     the two passes, with the critical path beside them
 */
#ifndef KTRACE_LATENCY_INTERNAL_H
#define KTRACE_LATENCY_INTERNAL_H

#include "analyze/latency.h"
#include "lib/topn.h"
#include "lib/u64map.h"
#include "trace/kstack_names.h"
#include "trace/sched.h"

enum lat_state { ST_UNKNOWN, ST_RUNNING, ST_WOKEN, ST_PREEMPTED, ST_BLOCKED, ST_DEAD };
enum lat_seg_kind { SEG_THREAD, SEG_IDLE, SEG_HARDIRQ, SEG_SOFTIRQ };

#define RING_SEGS	4096		/* per CPU: a power of two */
#define IRQ_NEST	4
#define NAME_LEN	16

/*
 * Time a CPU spent idle, in RT threads, in other threads and in interrupt
 * handlers since it was first seen, as running totals: a fair thread's
 * wait on that CPU takes their differences as its causes, in O(1).
 */
enum lat_cum { CUM_IDLE, CUM_RT, CUM_OTHER, CUM_IRQ, CUMS };

struct lat_thread {
	uint64_t tid, pid;
	char name[NAME_LEN];
	uint8_t state, block;
	int8_t selected;		/* filter result: -1 not yet known */
	uint8_t waker_ctx;
	bool has_waker;
	int32_t last_cpu;
	uint32_t wake_cpu;
	int32_t waker_irq;
	int32_t weight;
	uint64_t since;
	uint64_t waker;
	uint64_t kstack;		/* where it blocked, 0 if not recorded */
	/*
	 * A block that ended without its stack (the recorder gives it at the
	 * switch-in that follows): its time and group, for that switch-in.
	 */
	uint64_t unnamed_ns, unnamed_key;
	uint64_t early_wake;		/* woken while still running (racing its sleep), 0: not */
	uint32_t cgroup;		/* its cgroup's index + 1 in the analysis, 0: not known */
	uint64_t throttled_in;		/* the cgroup id a throttle record gave it, 0: none */
	bool raced;			/* runnable since such a wakeup, as far as the trace says */
	bool stranded;			/* left its CPU in an untraced stretch, unknown how */
	/* The run queue it is on, and its moves since its wait began. */
	int32_t queue_cpu, wait_queue_cpu;
	const struct cpu_mask *cpus;	/* allowed CPUs, NULL: every CPU */
	const struct cpu_mask *wait_cpus;	/* @cpus when its current wait began */
	uint8_t nmig;
	uint32_t mig_dropped;
	struct lat_migration mig[LAT_MIGRATIONS];
	/* The running totals of its wait's queues: @snap at the current one's start. */
	uint64_t snap[CUMS], acc[CUMS];
	int32_t snap_cpu;		/* -1: the wait needs the walk over CPU histories */
	/* Its sleeper timer: fired while it slept, then woke it (timer_latency.c). */
	uint8_t timer;			/* enum lat_timer_state */
	uint32_t timer_cpu;
	uint64_t timer_due, timer_fired, timer_woken;
};

enum lat_timer_state { TIMER_NONE, TIMER_FIRED, TIMER_WOKEN };

struct lat_proc {
	uint64_t pid;
	char name[NAME_LEN];
};

struct lat_seg {
	uint64_t start, end, id;
	int32_t weight;
	uint8_t kind;
};

struct lat_cpu {
	bool seen;
	uint64_t cum[CUMS];		/* up to @since; interrupts moved out of threads */
	uint64_t irq_until;		/* the latest end of a complete interrupt event */
	uint64_t covered_from;		/* first switch seen: the ring knows nothing before */
	uint64_t tid, since;
	int32_t weight;
	struct lat_seg *ring;		/* the last RING_SEGS segments */
	uint32_t ring_cap;		/* allocated, up to RING_SEGS */
	uint64_t nsegs;			/* segments ever pushed */
	struct {
		uint64_t start;
		int32_t name;
		uint8_t kind;
	} irq[IRQ_NEST];
	int nirq;
};

struct lat_range {
	uint64_t first, last;
};

/*
 * A cgroup the trace names by id (throttling.c): its path and CPU limit
 * from the CLI's cgroup_limit records, its throttled spans counted.
 */
struct lat_cglimit {
	uint64_t id;
	char *path;			/* NULL: the trace does not name it */
	char cpu_max[32], cpu_max_end[32];	/* "QUOTA/PERIOD" or "max" */
	bool v1;			/* cgroup v1's cpu hierarchy: its paths are not v2's */
	uint64_t spans, ns;		/* its throttled spans, on every CPU */
	uint64_t refill;		/* pass 1: its latest cfs_refill */
};

/*
 * A cgroup throttled on a CPU: from the switch-out that showed it until its
 * bandwidth timer next expired (the earliest it can be unthrottled), or
 * the thread switched out then ran again, or records were lost, whichever
 * came first: a lower bound of the time it stayed throttled there.
 */
struct lat_throttle {
	uint64_t start, end;
	uint64_t tid;			/* switched out by it */
	uint32_t cpu;
	uint32_t cg;			/* index into lat_analysis.cglimits */
	bool open;			/* pass 1: not ended yet */
};

struct lat_analysis {
	struct lat_opts o;
	struct u64map thread_map, proc_map, group_map;	/* index threads, procs, groups */
	struct lat_thread *threads;
	uint32_t nthreads, cap_threads;
	struct lat_proc *procs;
	uint32_t nprocs, cap_procs;
	struct lat_group *groups;
	uint32_t ngroups, cap_groups;
	struct lat_cpu *cpus;
	uint32_t ncpus;
	struct cpu_masks masks;		/* the threads' allowed CPUs, interned */
	char **irq_names;
	uint32_t nirq_names;
	char **cgroups;			/* cgroup v2 paths the state dump gave threads */
	uint32_t ncgroups;
	struct lat_range *losses;
	uint32_t nlosses, cap_losses;
	struct lat_untraced {
		uint64_t first, last, tid[2];
		uint32_t cpu;
	} *untraced;
	uint32_t nuntraced, cap_untraced;
	uint64_t lost_records, ftrace_lost;
	/* CFS bandwidth throttling (throttling.c). */
	char *throttling;		/* trace_info's "throttling": recorded (how) or why not */
	char preemption[32];		/* trace_info's "preemption": the kernel's model, "": not said */
	bool throttle_per_task;		/* the task-based model: a throttle holds its thread only */
	struct lat_cglimit *cglimits;
	uint32_t ncglimits, cap_cglimits;
	struct lat_throttle *throttles;	/* by start, after pass 1 */
	uint32_t nthrottles, cap_throttles;
	uint32_t *open;			/* pass 1: the spans not ended yet, by index */
	uint32_t nopen, cap_open;
	struct lat_range *throttled;	/* their union: which waits must walk */
	uint32_t nthrottled;
	uint64_t scan_last_ts;
	bool have_irq;
	bool cut;			/* the trace stops early: a partial answer */
	struct fxt_error cut_at;
	uint64_t cut_records;		/* records read before the cut */
	bool have_migrations;		/* the trace has "migrate" records */
	void *edges;			/* causes.c's scratch, edges_cap of them */
	uint32_t edges_cap;
	/*
	 * Work conservation, per CPU: its idle time while a thread that may
	 * run there waited longer than o.idle_threshold_ns elsewhere, counted
	 * once however many waited (up to @counted_to, waits end in order).
	 */
	struct lat_wc {
		uint64_t counted_to, idle_ns, longest_ns;
	} *wc;
	uint32_t nwc;
	uint64_t wc_waits;
	/* Every measured wait's causes, by the wait's histogram bucket (p99 and worse). */
	uint64_t *causes_by_bucket, *waits_by_bucket;
	/* The same per row, for the buckets its waits use: key (group id << 16) | bucket. */
	struct u64map gbucket_map;
	struct lat_gbucket {
		uint64_t waits, causes[LAT_CAUSES];
	} *gbuckets;
	uint32_t ngbuckets, cap_gbuckets;
	uint64_t causes_walked;		/* waits whose causes needed the walk */
	struct lat_wait *top;		/* the worst waits: worst.items */
	struct topn worst;
	bool sorted_by_start;
	uint64_t records, first_ts, last_ts, waits, filtered;
	struct kstack_names kstacks;
};

/*
 * trace_index.c: the threads, processes, cgroups, interrupt names, losses
 * and untraced stretches of pass 1, and the lookups in them.
 */
/* The element for @key of a table, or a new element at the end; out of memory ends the program. */
void *lat_keyed_get(struct u64map *m, uint64_t key, void *vec, uint32_t *n, uint32_t *cap,
		    size_t size, bool *added, const char *what);
void *lat_vec_push(void *vec, uint32_t *n, uint32_t *cap, size_t size, const char *what);
/* The thread, added if new: valid until the next thread is added. */
struct lat_thread *lat_thread_get(struct lat_analysis *a, uint64_t tid);
struct lat_thread *lat_thread_find(struct lat_analysis *a, uint64_t tid);
/* A process's name, "?" if the trace did not give one. */
const char *lat_proc_name(struct lat_analysis *a, uint64_t pid);
void lat_index_object(struct lat_analysis *a, const struct fxt_record *rec);
void lat_index_untraced(struct lat_analysis *a, const struct sched_event *ev);
void lat_index_loss(struct lat_analysis *a, const struct sched_loss *l);
void lat_index_done(struct lat_analysis *a);
/* Whether cgroup @path is @want or below it (whole path components). */
bool lat_cgroup_under(const char *path, const char *want);
/* The index of interrupt handler name @s, added if new; -1 past 4096 names. */
int32_t lat_irq_index(struct lat_analysis *a, struct fxt_str s);
/* The first of the merged, sorted loss ranges that ends at or after @start. */
uint32_t lat_first_loss(const struct lat_analysis *a, uint64_t start);
bool lat_across_untraced(const struct lat_analysis *a, uint64_t tid, uint64_t start,
			 uint64_t end);

/* throttling.c: throttled spans, found in pass 1. */
void lat_throttle_scan(struct lat_analysis *a, const struct fxt_reader *r,
		       const struct fxt_record *rec);
void lat_throttle_scan_done(struct lat_analysis *a);
/* Whether a throttled span overlaps [start, end] on any CPU. */
bool lat_throttled_within(const struct lat_analysis *a, uint64_t start, uint64_t end);
/* Whether thread @tid is in the cgroup of @th (the same one or below it). */
bool lat_throttle_covers(struct lat_analysis *a, const struct lat_throttle *th, uint64_t tid);
bool lat_throttling_recorded(const struct lat_analysis *a);
void lat_throttle_free(struct lat_analysis *a);

/* timer_latency.c: timer waits, hooked into the measurement pass. */
bool lat_is_timer_expire(const struct fxt_record *rec);
void lat_timer_expire(struct lat_thread *t, const struct sched_timer_expire *e, uint64_t ts);
bool lat_timer_woken(struct lat_thread *t, uint64_t ts);
void lat_timer_wait(struct lat_analysis *a, const struct lat_thread *t, struct lat_wait *w);
void lat_timer_json(struct lat_analysis *a, const struct lat_wait *w, struct obuf *o);

/* latency_report.c: how reports write a priority (and a duration: latency.h). */
int lat_prio_of(int32_t weight);
void lat_put_prio(struct obuf *o, int32_t weight);

/*
 * Where @w waited and why: its pieces by run queue and its causes; then,
 * from those pieces, the time other CPUs it may use idled (causes.c).
 */
void lat_causes(struct lat_analysis *a, struct lat_wait *w);
void lat_idle_elsewhere(struct lat_analysis *a, struct lat_wait *w);
void lat_work_conservation(struct lat_analysis *a, const struct lat_wait *w);

/* Whether a context switch weight (140 - prio) is a real-time thread's. */
static inline bool lat_is_rt(int32_t weight)
{
	return weight > KTRACE_FXT_PRIO_BASE - 100;
}

static inline uint64_t lat_wait_ns(const struct lat_wait *w)
{
	return w->end - w->start;
}

/* The log-linear histogram's bucket for @v (latency.h), and its middle. */
static inline uint32_t lat_bucket_of(uint64_t v)
{
	int e;

	if (v < (1U << LAT_SUB_BITS))
		return v;
	e = 63 - __builtin_clzll(v);
	return ((e - LAT_SUB_BITS + 1) << LAT_SUB_BITS) |
	       ((v >> (e - LAT_SUB_BITS)) & ((1U << LAT_SUB_BITS) - 1));
}

/* The smallest value in bucket @b. */
static inline uint64_t lat_bucket_lo(uint32_t b)
{
	uint32_t e, m;

	if (b < (1U << LAT_SUB_BITS))
		return b;
	e = (b >> LAT_SUB_BITS) + LAT_SUB_BITS - 1;
	m = b & ((1U << LAT_SUB_BITS) - 1);
	return ((uint64_t)(1U << LAT_SUB_BITS) | m) << (e - LAT_SUB_BITS);
}

static inline uint64_t lat_bucket_mid(uint32_t b)
{
	uint32_t e, m;

	if (b < (1U << LAT_SUB_BITS))
		return b;
	e = (b >> LAT_SUB_BITS) + LAT_SUB_BITS - 1;
	m = b & ((1U << LAT_SUB_BITS) - 1);
	return (((uint64_t)(1U << LAT_SUB_BITS) | m) << (e - LAT_SUB_BITS)) +
	       ((1ULL << (e - LAT_SUB_BITS)) >> 1);
}


#endif
