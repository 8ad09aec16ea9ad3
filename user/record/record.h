/* SPDX-License-Identifier: GPL-2.0 */
/* What `ktrace record` shares between its recorders, spools and output. */
#ifndef KTRACE_RECORD_H
#define KTRACE_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/ktrace.h>

#include "fxt/fxt_writer.h"
#include "record/clock_sync.h"
#include "record/spool.h"

struct source_ops;
struct record_opts;

/* preemption.c: the kernel's preemption model, "none" ... "rt", into @out. */
void preemption_model(char *out, size_t len);

/* cgroup_limits.c: the cgroups with a cpu.max limit, by id, at the start and the end. */
#define CGROUP_LIMITS_MAX	1024
struct cgroup_limits {
	struct cgroup_limit {
		uint64_t id;			/* the cgroup directory's inode number */
		char path[256];			/* below the cgroup2 root, "/" for it */
		char cpu_max_start[32], cpu_max_end[32];	/* "QUOTA PERIOD" or "max" */
	} v[CGROUP_LIMITS_MAX];
	uint32_t n;
	bool v1;				/* cgroup v1's cpu hierarchy, not v2 */
};

void cgroup_limits_read(struct cgroup_limits *cl, bool at_end);
void cgroup_limits_write(const struct cgroup_limits *cl, struct fxt_writer *w, uint64_t ts);

/*
 * cgroup_paths.c: every cgroup v2 directory, by id (as the recorders give a
 * thread's cgroup), read at the end of a recording.
 */
struct cgroup_paths {
	struct cgroup_path {
		uint64_t id;
		char *path;			/* below the cgroup2 root, "/" for it */
	} *v;					/* sorted by id */
	uint32_t n, cap;
	bool walked;				/* a cgroup2 hierarchy is mounted: listed */
};

void cgroup_paths_read(struct cgroup_paths *cp);
/* @id's path, NULL if no cgroup has it now (removed, or nothing is mounted). */
const char *cgroup_paths_find(const struct cgroup_paths *cp, uint64_t id);
void cgroup_paths_free(struct cgroup_paths *cp);
/* The mount point of cgroup v2 (to be freed), or NULL. */
char *cgroup2_mount(void);
/* A cgroup directory's id (its kernfs node's, the inode number on 64-bit), 0 if none. */
uint64_t cgroup_dir_id(const char *path);
/* A /proc/self/mountinfo line's mount point (PATH_MAX), type (64) and options (1024). */
bool cgroup_mount_parse(const char *line, char *mnt, char *fstype, char *opts);

/* archive.c: the trace's first time where every wrapped ring has data (0: none wrapped). */
uint64_t ring_common_start(const struct spool *spools, unsigned int n);
/* What write_archive() wrote. */
struct archive_stats {
	uint64_t bytes;
	uint64_t records;	/* every record, as `ktrace dump --stats` counts them */
	uint64_t untraced;	/* context switches the kernel did not trace, marked */
	uint64_t untraced_wakeups;	/* wakeups the kernel did not trace, as the recorder marked them */
	uint64_t unnamed;	/* threads that ran and have no name anywhere */
};

/*
 * The span of a recording, CLOCK_MONOTONIC ns: from @start to @stop every
 * kind of record was recorded on every CPU (the recorder's span, in a ring
 * from where every CPU's window has data, up to the latency trigger's
 * stop), and the archive keeps no record of a recorder outside it.
 */
struct record_span {
	uint64_t start, stop;
};

/*
 * The archive into @fd, timed from @span's start: records timed before
 * @from left out, and the recorders' records outside @span; @end_names:
 * the names of the threads alive when recording stopped (a spool of thread
 * and process records, empty when there are none); @cgroups: the paths of
 * the cgroup ids the names give.
 */
int write_archive(int fd, const struct source_ops *ops, void *priv, const struct record_opts *ro,
		  const struct record_span *span, struct spool *spools, unsigned int n, uint64_t from,
		  struct spool *end_names, const struct cgroup_limits *limits,
		  const struct cgroup_paths *cgroups, struct archive_stats *st);
/* The output could not be written: the archive where there is room, and where. */
void rescue(const struct source_ops *ops, void *priv, const struct record_opts *ro,
	    const struct record_span *span, struct spool *spools, unsigned int n, uint64_t from, struct spool *end_names,
	    const struct cgroup_limits *limits, const struct cgroup_paths *cgroups);

/* Names of every process and thread alive now, as kernel object records. */
int statedump_write(struct fxt_writer *w, uint64_t *threads);

struct probe_spec {
	bool duration;		/* duration:SYMBOL, else kprobe:SYMBOL */
	char symbol[128];
};

/*
 * The default per-CPU buffer size for @ncpus CPUs (possible ones: each has
 * its buffer): 4 MiB each up to a 128 MiB total, then less, 512 KiB at least.
 */
#define RECORD_BUFFER_BUDGET		(128ULL << 20)
#define RECORD_MIN_DEFAULT_BUFFER	(512ULL << 10)
uint64_t record_default_buffer_size(unsigned int ncpus);

struct record_opts {
	uint64_t buffer_size;	/* per CPU, bytes */
	struct probe_spec probes[64];
	unsigned int nprobes;
	bool ring;		/* flight recorder: keep the newest data */
	bool verbose;
	const char *ftrace;	/* --ftrace: SYSTEM:EVENT globs, for source_ftrace */
	/* --stop-on-latency: stop after_ns after a wakeup latency of trigger_ns */
	uint64_t trigger_ns, after_ns;
	uint32_t trigger_pid;	/* --pid: its tid or tgid; 0 any */
	char trigger_comm[16];	/* --comm; empty: any */
	bool trigger_rt;	/* --rt: real-time threads' waits only */
	/* --cgroup: threads in this cgroup or below only (its id; 0: any), of v1's cpu hierarchy */
	uint64_t trigger_cgroup;
	bool trigger_cgroup_v1;
	bool trigger_preempted;	/* a preemption's wait fires it too (watch), not only a wakeup's */
	/*
	 * Where threads blocked: stack frames walked at the switch-in that
	 * ends a block in S or D (0: none), if the thread was off the CPU
	 * for blocked_min_ns or more (KTRACE_KSTACK_MIN_OFF_NS by default).
	 */
	uint32_t stack_depth;
	uint64_t blocked_min_ns;
	bool stacks;		/* --stacks: the whole stacks into the archive too */
	bool raw_stacks;	/* --raw-stacks: addresses, not names */
	bool irqs;		/* interrupt handlers' runs (off with --no-irq) */
	/* --compact-wakeups: a wakeup by the thread its CPU runs without its waker argument */
	bool compact_wakeups;
};

/* The wait that fired the latency trigger, and when recording stops. */
struct trigger_report {
	uint64_t ts, latency, stop_at;
	uint32_t tid, cpu;
};

struct record_stats {
	/*
	 * The recorder's span (CLOCK_MONOTONIC ns): from span_start to
	 * span_stop every kind of record was recorded on every CPU, and
	 * nothing outside it was; set by the recorder's stop().
	 */
	uint64_t span_start, span_stop;
	uint64_t records, bytes;
	uint64_t dropped;	/* lost in the recorder's buffers */
	uint64_t rejected;	/* malformed, not written */
};

/*
 * A source of records: a recorder backend (module or BPF), or ftrace beside
 * it.  Opened (and so checked) before anything records; started; polled
 * into its spools while recording, except in ring mode, where everything
 * is read when it stops; stopped and drained; closed on every path.
 */
struct source_ops {
	const char *name;
	bool statedump_in_kernel;	/* names every live task itself */
	/* Whether it can run here with these options: 0, or -errno and @why (backends). */
	int (*probe)(const struct record_opts *o, char *why, size_t len);
	int (*open)(void **priv, const struct record_opts *o, struct spool *spools,
		    unsigned int nspools);
	int (*start)(void *priv);
	int (*poll)(void *priv, int timeout_ms);
	/* Stop recording, drain everything, write final loss records. */
	int (*stop)(void *priv, struct record_stats *st);
	/* 1 and @t once the latency trigger fired, 0 before, -errno on error. */
	int (*trigger)(void *priv, struct trigger_report *t);
	/*
	 * Ring mode with a latency trigger, once the trigger's window has
	 * passed (every writer drops records after its stop): the rings into
	 * the spools, as stop() leaves them, and the trigger armed again,
	 * recording on from *@rearmed (CLOCK_MONOTONIC ns).  NULL for a
	 * source without the trigger.
	 */
	int (*window)(void *priv, struct record_stats *st, uint64_t *rearmed);
	/* A source on its own clock: a sync marker in its buffers, and alignment at the end. */
	int (*marker)(void *priv, const char *id);
	/*
	 * Takes no more events, called from another thread while a poll may
	 * be running, so that its pass ends; what is buffered is still read.
	 */
	void (*quiesce)(void *priv);
	void (*align)(void *priv, const struct sync_point *points, unsigned int n);
	/*
	 * Whether it records CFS bandwidth throttling here, and in which
	 * model (KTRACE_THROTTLING_*), else why not: trace_info's "throttling".
	 */
	const char *(*throttling)(void *priv);
	/* Records the archive needs before any event (the stacks' names), after stop. */
	void (*head)(void *priv, struct fxt_writer *w, uint64_t ts);
	void (*close)(void *priv);
};

extern const struct source_ops source_bpf_ops;
extern const struct source_ops source_kmod_ops;
extern const struct source_ops source_ftrace_ops;

#define KTRACE_DEVICE	"/dev/ktrace"

/*
 * Whether CFS bandwidth throttling can be recorded here: 0 and its model
 * (trace_info's "throttling") in @what, else -errno and why not; with @l,
 * what the module needs to record it (throttle_layout.c).
 */
struct btf;
int throttle_layout_read(const struct btf *vmlinux, struct ktrace_throttle_layout *l,
			 char *what, size_t len);

/* The BPF recorder built to read interrupt wakers from the preempt count. */
const void *bpf_exact_elf(size_t *size);

#endif
