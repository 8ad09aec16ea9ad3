/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * /dev/ktrace: the ABI between ktrace.ko and its readers.
 *
 * A session is one open file.  KTRACE_IOC_CONFIGURE sets it up, START and
 * STOP switch recording, and each CPU's buffer is mapped read-only at
 * offset cpu * ktrace_geometry.cpu_stride: one meta page (struct
 * ktrace_meta) followed by the buffer.  The buffer is nr_subbufs
 * sub-buffers of subbuf_size bytes; each holds whole FXT records from its
 * start up to meta->subbuf[i].data_len.  The reader consumes whole
 * sub-buffers in order and tells the module with KTRACE_IOC_CONSUME.
 */
#ifndef _UAPI_LINUX_KTRACE_H
#define _UAPI_LINUX_KTRACE_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define KTRACE_ABI_VERSION	2

/*
 * Per-CPU buffer sizes: a power of two from 8 KiB (two sub-buffers of the
 * smallest size) to 1 GiB, for the module, the BPF recorder and ftrace's
 * buffers alike.
 */
#define KTRACE_DEFAULT_BUFFER_SIZE	(4U << 20)
#define KTRACE_MIN_BUFFER_SIZE		(8U << 10)
#define KTRACE_MAX_BUFFER_SIZE		(1U << 30)

static inline int ktrace_buffer_size_valid(__u64 size)
{
	return size >= KTRACE_MIN_BUFFER_SIZE && size <= KTRACE_MAX_BUFFER_SIZE &&
	       !(size & (size - 1));
}

#define KTRACE_DEFAULT_SUBBUF_SIZE	(64U << 10)
#define KTRACE_MIN_SUBBUF_SIZE		4096U
#define KTRACE_MAX_SUBBUFS		256U

/* ktrace_config.flags */
#define KTRACE_CFG_RING		(1U << 0)	/* overwrite the oldest data */
#define KTRACE_CFG_TRIGGER	(1U << 1)	/* stop on a wakeup latency (ring only) */
/*
 * Where tasks block: at the switch-in that ends a block in S or D, if the
 * task was off the CPU for ktrace_config.blocked_min_ns or more, its
 * kernel stack (at most KTRACE_KSTACK_BLOCKED_DEPTH frames, or
 * KTRACE_KSTACK_MAX_DEPTH with KTRACE_CFG_STACKS) is interned in a table
 * of KTRACE_STACK_SLOTS, read with KTRACE_IOC_STACKS, and its id is the
 * switch record's incoming_kstack.
 */
#define KTRACE_CFG_BLOCKED_IN	(1U << 2)
#define KTRACE_CFG_STACKS	(1U << 3)	/* whole stacks; implies BLOCKED_IN */
/* CFS bandwidth throttling, found through ktrace_config.throttle. */
#define KTRACE_CFG_THROTTLE	(1U << 4)
/* Interrupt handlers' runs (ktrace_fxt_put_irq()). */
#define KTRACE_CFG_IRQ		(1U << 5)
/* With KTRACE_CFG_TRIGGER: only real-time (and deadline) threads' waits fire it. */
#define KTRACE_CFG_TRIGGER_RT	(1U << 6)
/* With ktrace_config.trigger_cgroup: a cgroup of v1's cpu hierarchy, not of v2. */
#define KTRACE_CFG_TRIGGER_CGROUP_V1	(1U << 7)
/*
 * With KTRACE_CFG_TRIGGER: a preemption (switched out running, to its
 * switch-in) fires it too, not only a wakeup's wait.
 */
#define KTRACE_CFG_TRIGGER_PREEMPTED	(1U << 8)
#define KTRACE_CFG_FLAGS	(KTRACE_CFG_RING | KTRACE_CFG_TRIGGER | \
				 KTRACE_CFG_BLOCKED_IN | KTRACE_CFG_STACKS | \
				 KTRACE_CFG_THROTTLE | KTRACE_CFG_IRQ | KTRACE_CFG_TRIGGER_RT | \
				 KTRACE_CFG_TRIGGER_CGROUP_V1 | KTRACE_CFG_TRIGGER_PREEMPTED)

#define KTRACE_STACK_SLOTS	8192

#define KTRACE_COMM_LEN		16

/*
 * What the "throttle" and "cfs_refill" records (ktrace_fxt.h) need of the
 * scheduler's private structures (kernel/sched/sched.h, which modules
 * cannot include): byte offsets of fields, which user space reads from the
 * kernel's BTF (/sys/kernel/btf/vmlinux), and the functions of a cgroup's
 * CFS bandwidth timers, static, from /proc/kallsyms.  The module checks
 * that the two addresses are those functions and that the offsets are
 * below KTRACE_THROTTLE_OFFSET_MAX and aligned, and reads every private
 * field through them with faults caught: a wrong offset costs records,
 * never the kernel.  task_throttled, task_struct's flag in the task-based
 * throttle model (Linux 6.18), is 0 for the older, whole-cfs_rq model;
 * tg_css may be 0 (the css leads task_group); every other one is not.
 */
#define KTRACE_THROTTLE_OFFSET_MAX	(1U << 16)

struct ktrace_throttle_layout {
	__u64 period_timer_fn;		/* sched_cfs_period_timer() */
	__u64 slack_timer_fn;		/* sched_cfs_slack_timer() */
	__u32 task_throttled;		/* task_struct.throttled: bool */
	__u32 cfs_rq_throttle_count;	/* cfs_rq.throttle_count: int */
	__u32 cfs_rq_throttled_list;	/* cfs_rq.throttled_list: list_head */
	__u32 cfs_rq_runtime_remaining;	/* cfs_rq.runtime_remaining: s64 */
	__u32 cfs_rq_rq;		/* cfs_rq.rq: struct rq * */
	__u32 cfs_rq_tg;		/* cfs_rq.tg: struct task_group * */
	__u32 rq_cpu;			/* rq.cpu: int */
	__u32 tg_css;			/* task_group.css */
	__u32 tg_cfs_bandwidth;		/* task_group.cfs_bandwidth */
	__u32 cfs_b_period_timer;	/* cfs_bandwidth.period_timer: hrtimer */
	__u32 cfs_b_slack_timer;	/* cfs_bandwidth.slack_timer: hrtimer */
	__u32 cfs_b_throttled_cfs_rq;	/* cfs_bandwidth.throttled_cfs_rq: list_head */
};

/*
 * Every struct starts with its size, so it can grow; reserved must be 0.
 * A struct from an older ktrace, smaller, is taken as if the fields it
 * lacks were 0; a larger one from a newer ktrace, only if what this module
 * does not know of it is 0 (else E2BIG).
 */
struct ktrace_config {
	__u32 size;
	__u32 flags;
	__u64 buffer_size;	/* per CPU, power of two; 0: the module's default */
	__u32 subbuf_size;	/* power of two, at least 4 KiB; 0: 64 KiB */
	/*
	 * KTRACE_CFG_TRIGGER, else all 0: the first switch-in whose wait
	 * since its wakeup reaches trigger_ns, of a thread whose tid or tgid
	 * is trigger_pid (0: any) and whose name is trigger_comm (empty: any),
	 * writes a trigger record; every CPU records after_ns more, then stops.
	 */
	__u32 trigger_pid;
	__u64 trigger_ns;
	__u64 after_ns;
	char trigger_comm[KTRACE_COMM_LEN];	/* NUL-terminated */
	__u64 blocked_min_ns;	/* KTRACE_CFG_BLOCKED_IN or _STACKS: 0 for every block */
	/* Up to here: KTRACE_CONFIG_SIZE_VER1 bytes. */
	struct ktrace_throttle_layout throttle;	/* KTRACE_CFG_THROTTLE, else all 0 */
	/*
	 * With KTRACE_CFG_TRIGGER: only waits of threads in this cgroup or
	 * below it (up to KTRACE_TRIGGER_CGROUP_DEPTH levels) fire it; the
	 * cgroup directory's kernfs id (its inode number), in cgroup v2, or in
	 * v1's cpu hierarchy with KTRACE_CFG_TRIGGER_CGROUP_V1; 0: any.
	 */
	__u64 trigger_cgroup;
};

/*
 * KTRACE_IOC_CONFIGURE's number carries ktrace_config's size up to
 * blocked_min_ns, whatever its size now, so that readers and modules built
 * with a smaller or a larger struct still agree on the command;
 * ktrace_config.size says which struct it is.
 */
#define KTRACE_CONFIG_SIZE_VER1	64

/* Read with KTRACE_IOC_GEOMETRY once configured. */
struct ktrace_geometry {
	__u32 size;
	__u32 nr_cpus;		/* possible CPUs: mappings 0 .. nr_cpus - 1 */
	__u64 buffer_size;	/* per CPU */
	__u32 subbuf_size;
	__u32 nr_subbufs;
	__u64 cpu_stride;	/* mmap offset of CPU n is n * cpu_stride */
	__u64 meta_size;	/* the meta page(s) before each buffer */
	__u64 reserved[4];
};

struct ktrace_subbuf_meta {
	__u64 commit;		/* bytes committed into this slot, all laps added */
	__u32 data_len;		/* bytes of records in the slot's latest lap */
	__u32 reserved;
};

/*
 * Per-CPU meta page, written by the module only.  Sub-buffer number n
 * (counting from 0 since START) lives in slot n % nr_subbufs and is
 * complete once that slot's commit reaches (n / nr_subbufs + 1) *
 * subbuf_size.
 */
struct ktrace_meta {
	__u64 head;		/* bytes reserved by writers since START */
	__u64 consumed;		/* bytes the reader released (whole sub-buffers) */
	__u64 lost;		/* records lost in stream mode */
	__u64 lost_reported;	/* of those, reported by loss records in the buffer */
	__u64 overwritten;	/* sub-buffers overwritten in ring mode */
	__u64 records;		/* records written */
	__u64 lost_first_ts;	/* time range of the losses not yet reported */
	__u64 lost_last_ts;
	__u64 reserved[8];
	struct ktrace_subbuf_meta subbuf[KTRACE_MAX_SUBBUFS];
};

struct ktrace_consume {
	__u32 size;
	__u32 cpu;
	__u64 consumed;		/* new consumed position, sub-buffer aligned */
	__u64 reserved[2];
};

struct ktrace_stats {
	__u32 size;
	__u32 nr_cpus;
	__u64 records;		/* all CPUs */
	__u64 lost;
	__u64 overwritten;
	__u64 bytes;		/* reserved in all buffers */
	/* The latency trigger, once it fired: nothing is recorded after stop_at. */
	__u64 trigger_ts;	/* the switch-in that ended the wait; 0: not fired */
	__u64 stop_at;
	__u64 trigger_latency;	/* ns, to 1 us */
	__u32 trigger_tid;
	__u32 trigger_cpu;
	/* Up to here: KTRACE_STATS_SIZE_VER1 bytes. */
	/*
	 * The session's span, CLOCK_MONOTONIC ns: from start_ts (every probe
	 * registered) to stop_ts (0 while running) every kind of record was
	 * written on every CPU, and none outside it.  Both 0 before the
	 * first START.  A module older than this gives a smaller size.
	 */
	__u64 start_ts;
	__u64 stop_ts;
};

/* KTRACE_IOC_STATS's number carries this size, as KTRACE_IOC_CONFIGURE's does. */
#define KTRACE_STATS_SIZE_VER1	72

/*
 * The interned stacks, once configured with KTRACE_CFG_BLOCKED_IN or
 * KTRACE_CFG_STACKS: into @buf (@buf_size bytes, at least
 * KTRACE_STACK_SLOTS * (1 + depth) * 8), for slot i (stack id i + 1) the
 * number of frames (0: unused) then depth words of addresses, innermost
 * first.  @depth: the frames per slot; @full: switches that found the
 * table full (their kstack is 0).
 */
struct ktrace_stacks {
	__u32 size;
	__u32 depth;		/* out */
	__u64 buf;		/* user pointer */
	__u64 buf_size;
	__u64 full;		/* out */
	__u64 reserved[2];
};

/* Dynamic probes, added before START and removed by STOP or close. */
#define KTRACE_PROBE_INSTANT	0	/* kprobe: an instant on entry */
#define KTRACE_PROBE_DURATION	1	/* kretprobe: a complete event, entry to return */
#define KTRACE_PROBE_SYMBOL_LEN	128
#define KTRACE_MAX_PROBES	64

struct ktrace_probe {
	__u32 size;
	__u32 type;
	char symbol[KTRACE_PROBE_SYMBOL_LEN];	/* NUL-terminated */
	__u64 reserved[2];
};

/*
 * Marks from user space: write() one struct ktrace_mark followed by the
 * category and the name (cat_len + name_len bytes, no NUL) to
 * /dev/ktrace-mark.  The event lands in the calling CPU's buffer on the
 * calling thread, with the recorder's clock; without a session it is
 * accepted and dropped.  Root, or the group given by the module parameter
 * mark_gid, may write.
 */
#define KTRACE_MARK_DEVICE	"/dev/ktrace-mark"
#define KTRACE_MARK_INSTANT	0
#define KTRACE_MARK_BEGIN	1
#define KTRACE_MARK_END		2
#define KTRACE_MARK_COUNTER	3	/* @value under the name, counter id 0 */
#define KTRACE_MARK_MAX_LEN	255

struct ktrace_mark {
	__u32 size;		/* sizeof(struct ktrace_mark) */
	__u32 type;
	__s64 value;
	__u32 cat_len;
	__u32 name_len;
	__u64 reserved[2];
};

/*
 * For benchmarks only (root): the recording path's own cost, which a
 * whole-system measurement under emulation cannot separate from its noise.
 * On the calling CPU, with preemption off, @count context-switch records
 * (the calling task switching to itself, preempted) are written through
 * the module's record path, and @count events of the tracepoint
 * ktrace_bench:ktrace_bench_switch, whose fields are sched_switch's,
 * through ftrace when a tracefs instance has it enabled; in alternating
 * batches, each timed.  The session must be running in ring mode (stream
 * mode would stop writing once full, and time a cheaper path).
 *
 * @stage cuts the module's path short, for its floor: the tracepoint call
 * to a probe that does nothing, that and the clock read, those and the
 * reservation and commit of a record (its header stored, the rest left
 * as the ring held it), or (0) the whole record, encoded from the task;
 * and, beside the clock read, the tracepoint call and local_clock(), the
 * scheduler's clock (sched_clock(), which ftrace's default trace clock
 * reads, made one across CPUs), for what that clock would cost.
 * ftrace's events are timed with the whole record only.  A module from
 * before @stage (a reserved word then) refuses a non-zero one with EINVAL.
 */
#define KTRACE_BENCH_MAX_COUNT	(1U << 20)
#define KTRACE_BENCH_BATCH	256	/* records each way per timed batch */

enum ktrace_bench_stage {
	KTRACE_BENCH_RECORD	= 0,	/* the whole record */
	KTRACE_BENCH_CALL	= 1,	/* the tracepoint call to an empty probe */
	KTRACE_BENCH_CLOCK	= 2,	/* and the clock read */
	KTRACE_BENCH_RESERVE	= 3,	/* and reserve and commit, a header stored */
	KTRACE_BENCH_LOCAL_CLOCK = 4,	/* the call and local_clock() */
	KTRACE_BENCH_NR_STAGES	= 5,
};

struct ktrace_bench {
	__u32 size;
	__u32 count;		/* in: 1 to KTRACE_BENCH_MAX_COUNT */
	__u64 ktrace_ns;	/* out: the records through ktrace.ko, in all */
	__u64 ftrace_ns;	/* out: the ftrace events; 0 when none is enabled */
	__u32 ktrace_bytes;	/* out: one record, as written */
	__u32 ftrace_bytes;	/* out: one event's fields, ftrace's common ones included */
	/*
	 * out: the fastest whole batch of KTRACE_BENCH_BATCH, each way: an
	 * interrupt or a host that takes the CPU away only ever adds time.
	 */
	__u64 ktrace_batch_ns;
	__u64 ftrace_batch_ns;
	__u32 stage;		/* in: enum ktrace_bench_stage */
	__u32 reserved32;
	__u64 reserved;
};

#define KTRACE_IOC_MAGIC	0xb7

#define KTRACE_IOC_ABI_VERSION	_IO(KTRACE_IOC_MAGIC, 0)
#define KTRACE_IOC_CONFIGURE	_IOC(_IOC_WRITE, KTRACE_IOC_MAGIC, 1, KTRACE_CONFIG_SIZE_VER1)
#define KTRACE_IOC_GEOMETRY	_IOWR(KTRACE_IOC_MAGIC, 2, struct ktrace_geometry)
#define KTRACE_IOC_START	_IO(KTRACE_IOC_MAGIC, 3)
#define KTRACE_IOC_STOP		_IO(KTRACE_IOC_MAGIC, 4)
/*
 * Close every CPU's current sub-buffer so its records can be read.  Once
 * a latency trigger's window is over (past STATS' stop_at), the writers
 * that took their time before the stop are waited for first: what is read
 * then is the whole window.
 */
#define KTRACE_IOC_FLUSH	_IO(KTRACE_IOC_MAGIC, 5)
#define KTRACE_IOC_CONSUME	_IOW(KTRACE_IOC_MAGIC, 6, struct ktrace_consume)
#define KTRACE_IOC_STATS	_IOC(_IOC_READ | _IOC_WRITE, KTRACE_IOC_MAGIC, 7, \
				     KTRACE_STATS_SIZE_VER1)
#define KTRACE_IOC_ADD_PROBE	_IOW(KTRACE_IOC_MAGIC, 8, struct ktrace_probe)
#define KTRACE_IOC_STACKS	_IOWR(KTRACE_IOC_MAGIC, 9, struct ktrace_stacks)
#define KTRACE_IOC_BENCH	_IOWR(KTRACE_IOC_MAGIC, 20, struct ktrace_bench)
/*
 * A running session with a latency trigger, once its window is over and
 * read (FLUSH, then the buffers): every CPU's records so far are released
 * and the trigger is armed again, the probes registered all along.  The
 * span starts again (STATS' start_ts): nothing is recorded from the
 * window's stop to it, and a wait that began before it does not fire the
 * trigger.  EAGAIN before the window is over, EINVAL without a trigger.
 */
#define KTRACE_IOC_REARM	_IO(KTRACE_IOC_MAGIC, 10)

#endif /* _UAPI_LINUX_KTRACE_H */
