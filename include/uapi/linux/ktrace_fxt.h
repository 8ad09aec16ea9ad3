/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * FXT (Fuchsia trace format) word layout and freestanding encoders.
 *
 * The one place that knows how FXT records are laid out: the kernel module,
 * the BPF program and the ktrace CLI all encode through these helpers.  They
 * only compute words and store them; they never allocate or lock, so they
 * are safe in any context (tracepoint probes, NMI, BPF programs).
 *
 * Layout reference: Fuchsia trace format, "Record Types" and "Argument types".
 */
#ifndef _UAPI_LINUX_KTRACE_FXT_H
#define _UAPI_LINUX_KTRACE_FXT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define KTRACE_FXT_MAGIC		0x0016547846040010ULL
#define KTRACE_FXT_MAGIC_NUMBER		0x16547846U
#define KTRACE_FXT_MAX_RECORD_WORDS	0xfffU
#define KTRACE_FXT_MAX_LARGE_WORDS	0xffffffffULL
#define KTRACE_FXT_MAX_ARGS		15U
#define KTRACE_FXT_MAX_STRING_LEN	0x7fffU
#define KTRACE_FXT_TICKS_PER_SEC	1000000000ULL

/* Record types, header bits 0..3. */
enum ktrace_fxt_record_type {
	KTRACE_FXT_REC_METADATA		= 0,
	KTRACE_FXT_REC_INIT		= 1,
	KTRACE_FXT_REC_STRING		= 2,
	KTRACE_FXT_REC_THREAD		= 3,
	KTRACE_FXT_REC_EVENT		= 4,
	KTRACE_FXT_REC_BLOB		= 5,
	KTRACE_FXT_REC_USERSPACE_OBJ	= 6,
	KTRACE_FXT_REC_KERNEL_OBJ	= 7,
	KTRACE_FXT_REC_SCHED		= 8,
	KTRACE_FXT_REC_LOG		= 9,
	KTRACE_FXT_REC_LARGE		= 15,
};

/* Metadata record types, header bits 16..19. */
enum ktrace_fxt_metadata_type {
	KTRACE_FXT_META_PROVIDER_INFO		= 1,
	KTRACE_FXT_META_PROVIDER_SECTION	= 2,
	KTRACE_FXT_META_PROVIDER_EVENT		= 3,
	KTRACE_FXT_META_TRACE_INFO		= 4,
};

#define KTRACE_FXT_PROVIDER_EVENT_BUFFER_FULL	0U

/* Event record types, header bits 16..19. */
enum ktrace_fxt_event_type {
	KTRACE_FXT_EV_INSTANT		= 0,
	KTRACE_FXT_EV_COUNTER		= 1,
	KTRACE_FXT_EV_DURATION_BEGIN	= 2,
	KTRACE_FXT_EV_DURATION_END	= 3,
	KTRACE_FXT_EV_DURATION_COMPLETE	= 4,
	KTRACE_FXT_EV_ASYNC_BEGIN	= 5,
	KTRACE_FXT_EV_ASYNC_INSTANT	= 6,
	KTRACE_FXT_EV_ASYNC_END		= 7,
	KTRACE_FXT_EV_FLOW_BEGIN	= 8,
	KTRACE_FXT_EV_FLOW_STEP		= 9,
	KTRACE_FXT_EV_FLOW_END		= 10,
	KTRACE_FXT_EV_MAX		= 10,
};

/* Scheduling record types (record type 8), header bits 60..63. */
enum ktrace_fxt_sched_type {
	KTRACE_FXT_SCHED_CSWITCH	= 0,	/* the spec's context switch */
	KTRACE_FXT_SCHED_CSWITCH_ARGS	= 1,	/* context switch with arguments */
	KTRACE_FXT_SCHED_WAKEUP		= 2,	/* thread wakeup */
};

/* Argument types, argument header bits 0..3. */
enum ktrace_fxt_arg_type {
	KTRACE_FXT_ARG_NULL	= 0,
	KTRACE_FXT_ARG_INT32	= 1,
	KTRACE_FXT_ARG_UINT32	= 2,
	KTRACE_FXT_ARG_INT64	= 3,
	KTRACE_FXT_ARG_UINT64	= 4,
	KTRACE_FXT_ARG_DOUBLE	= 5,
	KTRACE_FXT_ARG_STRING	= 6,
	KTRACE_FXT_ARG_POINTER	= 7,
	KTRACE_FXT_ARG_KOID	= 8,
	KTRACE_FXT_ARG_BOOL	= 9,
	KTRACE_FXT_ARG_MAX	= 9,
};

/* Thread states of the context switch record (ZX_THREAD_STATE_*). */
enum ktrace_fxt_thread_state {
	KTRACE_FXT_THREAD_NEW		= 0,
	KTRACE_FXT_THREAD_RUNNING	= 1,	/* preempted, still runnable */
	KTRACE_FXT_THREAD_SUSPENDED	= 2,
	KTRACE_FXT_THREAD_BLOCKED	= 3,
	KTRACE_FXT_THREAD_DYING		= 4,
	KTRACE_FXT_THREAD_DEAD		= 5,
};

/* Kernel object types (ZX_OBJ_TYPE_*) the recorders name. */
#define KTRACE_FXT_OBJ_PROCESS	1U
#define KTRACE_FXT_OBJ_THREAD	2U

#define KTRACE_FXT_BLOB_DATA	1U

/*
 * Exact Linux state of an outgoing task, carried as the uint32 argument
 * "linux_state" of the context switch record with arguments.  The values are
 * the kernel's task_state_index() ordering, which is what sched_switch's
 * "prev_state" letters come from (TASK_REPORT): index 0 is running, then
 * S, D, T, t, X, Z, P, I.
 */
enum ktrace_linux_state {
	KTRACE_LINUX_RUNNING		= 0,	/* R, preempted */
	KTRACE_LINUX_INTERRUPTIBLE	= 1,	/* S */
	KTRACE_LINUX_UNINTERRUPTIBLE	= 2,	/* D */
	KTRACE_LINUX_STOPPED		= 3,	/* T */
	KTRACE_LINUX_TRACED		= 4,	/* t */
	KTRACE_LINUX_DEAD		= 5,	/* X */
	KTRACE_LINUX_ZOMBIE		= 6,	/* Z */
	KTRACE_LINUX_PARKED		= 7,	/* P */
	KTRACE_LINUX_IDLE		= 8,	/* I */
	KTRACE_LINUX_STATE_MAX		= 8,
};

#define KTRACE_LINUX_STATE_LETTERS	"RSDTtXZPI"

/*
 * Linux task state bits as sched_switch reports them (TASK_REPORT and the
 * two special cases of __task_state_index()); stable since Linux 4.14.
 */
#define KTRACE_TASK_REPORT		0x7fU
#define KTRACE_TASK_IDLE		0x402U	/* TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
#define KTRACE_TASK_RTLOCK_WAIT		0x1000U
#define KTRACE_TASK_UNINTERRUPTIBLE	0x2U

/*
 * The exact state of an outgoing task, from sched_switch's preempt and
 * prev_state arguments and the task's exit_state.  A task that leaves the
 * CPU in TASK_RUNNING without being preempted (a voluntary schedule()) stays
 * runnable, exiting or not: only its last switch, in TASK_DEAD, shows its
 * exit_state.  (The kernel's own sched_switch event says Z for the first
 * too; on PREEMPT_RT a task past exit_notify() was seen to leave the CPU so
 * and run again, which read as a dying task that came back unwoken.)
 */
static inline __u32 ktrace_linux_state(int preempt, __u32 state, __u32 exit_state)
{
	__u32 bits, index = 0;

	if (preempt || !state)
		return KTRACE_LINUX_RUNNING;
	if (state == KTRACE_TASK_IDLE)
		return KTRACE_LINUX_IDLE;
	if (state == KTRACE_TASK_RTLOCK_WAIT)
		return KTRACE_LINUX_UNINTERRUPTIBLE;
	bits = (state | exit_state) & KTRACE_TASK_REPORT;
	while (bits) {		/* fls(): at most 7 iterations */
		index++;
		bits >>= 1;
	}
	return index;
}

/* Whether a switch-out in @linux_state is the task's last (it is exiting). */
static inline int ktrace_linux_state_exits(__u32 linux_state)
{
	return linux_state == KTRACE_LINUX_DEAD || linux_state == KTRACE_LINUX_ZOMBIE;
}

/* The FXT outgoing state shown by viewers for each Linux state. */
static inline __u32 ktrace_fxt_state_from_linux(__u32 linux_state)
{
	switch (linux_state) {
	case KTRACE_LINUX_RUNNING:
		return KTRACE_FXT_THREAD_RUNNING;
	case KTRACE_LINUX_STOPPED:
	case KTRACE_LINUX_TRACED:
		return KTRACE_FXT_THREAD_SUSPENDED;
	case KTRACE_LINUX_ZOMBIE:
		return KTRACE_FXT_THREAD_DYING;
	case KTRACE_LINUX_DEAD:
		return KTRACE_FXT_THREAD_DEAD;
	default:	/* S, D, P, I */
		return KTRACE_FXT_THREAD_BLOCKED;
	}
}

/*
 * Idle tasks are written as tid 0.  In the context switch record with
 * arguments a side whose weight is INT32_MIN is idle; every real task gets
 * weight 140 - prio, which is 1..140, higher is more urgent (as in Zircon).
 */
#define KTRACE_FXT_IDLE_WEIGHT		(-2147483647 - 1)
#define KTRACE_FXT_PRIO_BASE		140

/*
 * Well-known strings.  Every archive the CLI writes registers these indices
 * first, so recorders reference them without a string table of their own.
 * Indices from KTRACE_FXT_STR_FIRST_DYNAMIC on are assigned per archive.
 */
enum ktrace_fxt_well_known_string {
	KTRACE_FXT_STR_PROCESS		= 1,
	KTRACE_FXT_STR_WAKER		= 2,
	KTRACE_FXT_STR_WEIGHT		= 3,
	KTRACE_FXT_STR_INCOMING_WEIGHT	= 4,
	KTRACE_FXT_STR_OUTGOING_WEIGHT	= 5,
	KTRACE_FXT_STR_LINUX_STATE	= 6,
	KTRACE_FXT_STR_CAT_META		= 7,
	KTRACE_FXT_STR_DROPPED		= 8,
	KTRACE_FXT_STR_CPU		= 9,
	KTRACE_FXT_STR_COUNT		= 10,
	KTRACE_FXT_STR_FIRST_TS		= 11,
	KTRACE_FXT_STR_LAST_TS		= 12,
	KTRACE_FXT_STR_CAT_CLOCK	= 13,
	KTRACE_FXT_STR_CLOCK_SYNC	= 14,
	KTRACE_FXT_STR_SYNC_ID		= 15,
	KTRACE_FXT_STR_ISSUE_TS		= 16,
	KTRACE_FXT_STR_TRACE_INFO	= 17,
	KTRACE_FXT_STR_PARENT		= 18,
	KTRACE_FXT_STR_SUCCESS		= 19,
	KTRACE_FXT_STR_CAT_KPROBE	= 20,
	KTRACE_FXT_STR_IRQ_CONTEXT	= 21,
	KTRACE_FXT_STR_INTERRUPTED	= 22,
	KTRACE_FXT_STR_CAT_LATENCY	= 23,
	KTRACE_FXT_STR_TRIGGER		= 24,
	KTRACE_FXT_STR_LATENCY		= 25,
	KTRACE_FXT_STR_WAKE_TS		= 26,
	KTRACE_FXT_STR_VALUE		= 27,
	KTRACE_FXT_STR_CPU_OFFLINE	= 28,
	KTRACE_FXT_STR_CPU_ONLINE	= 29,
	KTRACE_FXT_STR_KSTACK		= 30,
	KTRACE_FXT_STR_BLOCKED_IN	= 31,
	KTRACE_FXT_STR_FRAMES		= 32,
	/* Timer expiries (ktrace_fxt_put_timer_expire()). */
	KTRACE_FXT_STR_CAT_TIMER	= 33,
	KTRACE_FXT_STR_TIMER_EXPIRE	= 34,
	KTRACE_FXT_STR_DUE		= 35,
	KTRACE_FXT_STR_HARD_DUE		= 36,
	/* CFS bandwidth throttling (ktrace_fxt_put_throttle(), _put_cfs_refill()). */
	KTRACE_FXT_STR_AFTER		= 37,	/* cfs_refill */
	KTRACE_FXT_STR_THROTTLE		= 38,
	KTRACE_FXT_STR_CFS_REFILL	= 39,
	/* Where a wait was spent (migrations) and where a thread may run. */
	KTRACE_FXT_STR_CAT_SCHED	= 40,
	KTRACE_FXT_STR_MIGRATE		= 41,
	KTRACE_FXT_STR_ORIG_CPU		= 42,
	KTRACE_FXT_STR_DEST_CPU		= 43,
	KTRACE_FXT_STR_CPUS		= 44,
	KTRACE_FXT_STR_CGROUP_ID	= 45,	/* throttle, cfs_refill, names */
	KTRACE_FXT_STR_INCOMING_KSTACK	= 46,
	KTRACE_FXT_STR_AFFINITY		= 47,
	/* Interrupt handlers (ktrace_fxt_put_irq()). */
	KTRACE_FXT_STR_CAT_IRQ		= 48,
	KTRACE_FXT_STR_IRQ		= 49,	/* a device handler; its irq number */
	KTRACE_FXT_STR_SOFTIRQ		= 50,
	KTRACE_FXT_STR_VEC		= 51,	/* a softirq's vector */
	KTRACE_FXT_STR_LOCAL_TIMER	= 52,
	KTRACE_FXT_STR_VECTOR		= 53,	/* an x86 system vector */
	KTRACE_FXT_STR_UNTRACED_WAKEUP	= 54,
	KTRACE_FXT_STR_FIRST_DYNAMIC	= 55,	/* archive writers: 55 .. 0x3eff */
	KTRACE_FXT_STR_FIRST_PROBE	= 0x3f00,	/* BPF probe names, set by the CLI */
	KTRACE_FXT_STR_FIRST_KERNEL	= 0x4000,	/* ktrace.ko's interned strings */
};

/*
 * Interrupt handlers, recorded (ktrace_fxt_put_irq()) or captured through
 * ftrace, are drawn as durations on one pseudo thread per CPU, in a pseudo
 * process named "interrupts".
 */
#define KTRACE_FXT_IRQ_PID		(1ULL << 30)
#define KTRACE_FXT_IRQ_TID(cpu)		(KTRACE_FXT_IRQ_PID + 1 + (cpu))

#if !defined(__KERNEL__) && !defined(__bpf__)
/*
 * trace_info's "throttling" when throttling is recorded: the model says
 * which waits a throttle holds (the throttled task's own, or every one on
 * the throttled cfs_rq).  Otherwise it says why it is not recorded.
 */
#define KTRACE_THROTTLING_TASK		"recorded (task-based model)"
#define KTRACE_THROTTLING_CFS_RQ	"recorded (whole cfs_rq model)"

/* The texts of the well-known strings, by index (archive writers only). */
static const char *const ktrace_fxt_well_known[KTRACE_FXT_STR_FIRST_DYNAMIC] = {
	[KTRACE_FXT_STR_PROCESS]		= "process",
	[KTRACE_FXT_STR_WAKER]			= "waker",
	[KTRACE_FXT_STR_WEIGHT]			= "weight",
	[KTRACE_FXT_STR_INCOMING_WEIGHT]	= "incoming_weight",
	[KTRACE_FXT_STR_OUTGOING_WEIGHT]	= "outgoing_weight",
	[KTRACE_FXT_STR_LINUX_STATE]		= "linux_state",
	[KTRACE_FXT_STR_CAT_META]		= "ktrace:meta",
	[KTRACE_FXT_STR_DROPPED]		= "dropped",
	[KTRACE_FXT_STR_CPU]			= "cpu",
	[KTRACE_FXT_STR_COUNT]			= "count",
	[KTRACE_FXT_STR_FIRST_TS]		= "first_ts",
	[KTRACE_FXT_STR_LAST_TS]		= "last_ts",
	[KTRACE_FXT_STR_CAT_CLOCK]		= "ktrace:clock",
	[KTRACE_FXT_STR_CLOCK_SYNC]		= "clock_sync",
	[KTRACE_FXT_STR_SYNC_ID]		= "sync_id",
	[KTRACE_FXT_STR_ISSUE_TS]		= "issue_ts",
	[KTRACE_FXT_STR_TRACE_INFO]		= "trace_info",
	[KTRACE_FXT_STR_PARENT]			= "parent",
	[KTRACE_FXT_STR_SUCCESS]		= "success",
	[KTRACE_FXT_STR_CAT_KPROBE]		= "kprobe",
	[KTRACE_FXT_STR_IRQ_CONTEXT]		= "irq_context",
	[KTRACE_FXT_STR_INTERRUPTED]		= "interrupted",
	[KTRACE_FXT_STR_CAT_LATENCY]		= "ktrace:latency",
	[KTRACE_FXT_STR_TRIGGER]		= "trigger",
	[KTRACE_FXT_STR_LATENCY]		= "latency",
	[KTRACE_FXT_STR_WAKE_TS]		= "wake_ts",
	[KTRACE_FXT_STR_VALUE]			= "value",
	[KTRACE_FXT_STR_CPU_OFFLINE]		= "cpu_offline",
	[KTRACE_FXT_STR_CPU_ONLINE]		= "cpu_online",
	[KTRACE_FXT_STR_KSTACK]			= "kstack",
	[KTRACE_FXT_STR_BLOCKED_IN]		= "blocked_in",
	[KTRACE_FXT_STR_FRAMES]			= "frames",
	[KTRACE_FXT_STR_CAT_TIMER]		= "ktrace:timer",
	[KTRACE_FXT_STR_TIMER_EXPIRE]		= "timer_expire",
	[KTRACE_FXT_STR_DUE]			= "due",
	[KTRACE_FXT_STR_HARD_DUE]		= "hard_due",
	[KTRACE_FXT_STR_AFTER]			= "after",
	[KTRACE_FXT_STR_CAT_SCHED]		= "ktrace:sched",
	[KTRACE_FXT_STR_MIGRATE]		= "migrate",
	[KTRACE_FXT_STR_ORIG_CPU]		= "orig_cpu",
	[KTRACE_FXT_STR_DEST_CPU]		= "dest_cpu",
	[KTRACE_FXT_STR_CPUS]			= "cpus",
	[KTRACE_FXT_STR_INCOMING_KSTACK]	= "incoming_kstack",
	[KTRACE_FXT_STR_THROTTLE]		= "throttle",
	[KTRACE_FXT_STR_CFS_REFILL]		= "cfs_refill",
	[KTRACE_FXT_STR_CGROUP_ID]		= "cgroup_id",
	[KTRACE_FXT_STR_AFFINITY]		= "affinity",
	[KTRACE_FXT_STR_CAT_IRQ]		= "ktrace:irq",
	[KTRACE_FXT_STR_IRQ]			= "irq",
	[KTRACE_FXT_STR_SOFTIRQ]		= "softirq",
	[KTRACE_FXT_STR_VEC]			= "vec",
	[KTRACE_FXT_STR_LOCAL_TIMER]		= "local_timer",
	[KTRACE_FXT_STR_VECTOR]			= "vector",
	[KTRACE_FXT_STR_UNTRACED_WAKEUP]	= "untraced_wakeup",
};
#endif

/* ---- bit fields -------------------------------------------------------- */

static inline __u64 ktrace_fxt_field(__u64 value, unsigned int lo, unsigned int hi)
{
	__u64 mask = hi - lo >= 63 ? ~0ULL : (1ULL << (hi - lo + 1)) - 1;

	return (value & mask) << lo;
}

static inline __u64 ktrace_fxt_get(__u64 word, unsigned int lo, unsigned int hi)
{
	__u64 mask = hi - lo >= 63 ? ~0ULL : (1ULL << (hi - lo + 1)) - 1;

	return (word >> lo) & mask;
}

/* Words needed for a stream of @len bytes, padded to 8 bytes. */
static inline __u32 ktrace_fxt_str_words(__u32 len)
{
	return (len + 7) / 8;
}

/* String ref of an inline string of @len bytes (0 for the empty string). */
static inline __u16 ktrace_fxt_sref_inline(__u32 len)
{
	return len ? (__u16)(0x8000 | (len & 0x7fff)) : 0;
}

static inline int ktrace_fxt_sref_is_inline(__u16 ref)
{
	return (ref & 0x8000) != 0;
}

/* Stream words an (inline or indexed) string ref takes in a record. */
static inline __u32 ktrace_fxt_sref_words(__u16 ref)
{
	return ktrace_fxt_sref_is_inline(ref) ? ktrace_fxt_str_words(ref & 0x7fff) : 0;
}

/*
 * Store @len bytes of @s as a zero-padded stream at @w; returns the words
 * written.  Words are assembled byte by byte (no memcpy, which BPF lacks);
 * the loops are bounded by @len, which callers bound.
 */
static inline __u32 ktrace_fxt_put_stream(__u64 *w, const char *s, __u32 len)
{
	__u32 words = ktrace_fxt_str_words(len);
	__u32 i, j;

	for (i = 0; i < words; i++) {
		__u64 v = 0;

		for (j = 0; j < 8 && i * 8 + j < len; j++) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			v |= (__u64)(unsigned char)s[i * 8 + j] << (56 - 8 * j);
#else
			v |= (__u64)(unsigned char)s[i * 8 + j] << (8 * j);
#endif
		}
		w[i] = v;
	}
	return words;
}

/* ---- record headers ---------------------------------------------------- */

static inline __u64 ktrace_fxt_rec_hdr(__u32 type, __u32 words)
{
	return ktrace_fxt_field(type, 0, 3) | ktrace_fxt_field(words, 4, 15);
}

/* Header fields every record has: its type, and its size in words. */
static inline __u32 ktrace_fxt_rec_type(__u64 h)
{
	return h & 15;
}

static inline __u64 ktrace_fxt_rec_words(__u64 h)
{
	return ktrace_fxt_get(h, 4, ktrace_fxt_rec_type(h) == KTRACE_FXT_REC_LARGE ? 35 : 15);
}

/* A scheduling record's kind (enum ktrace_fxt_sched_type). */
static inline __u32 ktrace_fxt_sched_type(__u64 h)
{
	return ktrace_fxt_get(h, 60, 63);
}

/* Whether a record has a timestamp in its second word (events, scheduling, logs). */
static inline int ktrace_fxt_rec_timed(__u64 h)
{
	__u32 type = ktrace_fxt_rec_type(h);

	return type == KTRACE_FXT_REC_EVENT || type == KTRACE_FXT_REC_SCHED ||
	       type == KTRACE_FXT_REC_LOG;
}

static inline __u64 ktrace_fxt_magic(void)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_METADATA, 1) |
	       ktrace_fxt_field(KTRACE_FXT_META_TRACE_INFO, 16, 19) |
	       ktrace_fxt_field(0, 20, 23) |
	       ktrace_fxt_field(KTRACE_FXT_MAGIC_NUMBER, 24, 55);
}

static inline __u64 ktrace_fxt_provider_info_hdr(__u32 provider, __u32 name_len)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_METADATA, 1 + ktrace_fxt_str_words(name_len)) |
	       ktrace_fxt_field(KTRACE_FXT_META_PROVIDER_INFO, 16, 19) |
	       ktrace_fxt_field(provider, 20, 51) |
	       ktrace_fxt_field(name_len, 52, 59);
}

static inline __u64 ktrace_fxt_provider_section_hdr(__u32 provider)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_METADATA, 1) |
	       ktrace_fxt_field(KTRACE_FXT_META_PROVIDER_SECTION, 16, 19) |
	       ktrace_fxt_field(provider, 20, 51);
}

static inline __u64 ktrace_fxt_provider_event_hdr(__u32 provider, __u32 event)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_METADATA, 1) |
	       ktrace_fxt_field(KTRACE_FXT_META_PROVIDER_EVENT, 16, 19) |
	       ktrace_fxt_field(provider, 20, 51) |
	       ktrace_fxt_field(event, 52, 55);
}

/* Initialization record: header word, then ticks per second. */
static inline __u64 ktrace_fxt_init_hdr(void)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_INIT, 2);
}

/* String record: header word, then the string stream. */
static inline __u64 ktrace_fxt_string_hdr(__u32 index, __u32 len)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_STRING, 1 + ktrace_fxt_str_words(len)) |
	       ktrace_fxt_field(index, 16, 30) |
	       ktrace_fxt_field(len, 32, 46);
}

/* Thread record: header word, process koid, thread koid. */
static inline __u64 ktrace_fxt_thread_hdr(__u32 index)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_THREAD, 3) | ktrace_fxt_field(index, 16, 23);
}

/*
 * Event record: header word, timestamp, [process koid, thread koid],
 * [category stream], [name stream], arguments, event-type specific word.
 */
static inline __u64 ktrace_fxt_event_hdr(__u32 words, __u32 event_type, __u32 nargs,
					 __u32 thread_ref, __u16 cat, __u16 name)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_EVENT, words) |
	       ktrace_fxt_field(event_type, 16, 19) |
	       ktrace_fxt_field(nargs, 20, 23) |
	       ktrace_fxt_field(thread_ref, 24, 31) |
	       ktrace_fxt_field(cat, 32, 47) |
	       ktrace_fxt_field(name, 48, 63);
}

/* Words of the event-type specific data that follows the arguments. */
static inline __u32 ktrace_fxt_event_extra_words(__u32 event_type)
{
	return event_type == KTRACE_FXT_EV_INSTANT ||
	       event_type == KTRACE_FXT_EV_DURATION_BEGIN ||
	       event_type == KTRACE_FXT_EV_DURATION_END ? 0 : 1;
}

/*
 * An event record in two steps.  ktrace_fxt_event_head() writes from w[1]:
 * the timestamp, the thread's koids unless @thread_ref indexes a thread
 * record, and the category and name streams of inline refs (indexed refs
 * take no words; their text may be NULL); it returns the words so far.
 * The caller appends the arguments (ktrace_fxt_put_arg() for indexed
 * names); ktrace_fxt_event_finish() appends the word the event type needs
 * (@extra: counter id, end time or correlation id) and writes the header.
 * Nothing is checked: callers size @w for what they put in.
 */
static inline __u32 ktrace_fxt_event_head(__u64 *w, __u64 ts, __u32 thread_ref, __u64 pid,
					  __u64 tid, __u16 cat, const char *cat_text, __u16 name,
					  const char *name_text)
{
	__u32 n = 1;

	w[n++] = ts;
	if (!thread_ref) {
		w[n++] = pid;
		w[n++] = tid;
	}
	if (ktrace_fxt_sref_is_inline(cat))
		n += ktrace_fxt_put_stream(&w[n], cat_text, cat & 0x7fff);
	if (ktrace_fxt_sref_is_inline(name))
		n += ktrace_fxt_put_stream(&w[n], name_text, name & 0x7fff);
	return n;
}

static inline __u32 ktrace_fxt_event_finish(__u64 *w, __u32 n, __u32 event_type, __u32 nargs,
					    __u32 thread_ref, __u16 cat, __u16 name, __u64 extra)
{
	if (ktrace_fxt_event_extra_words(event_type))
		w[n++] = extra;
	w[0] = ktrace_fxt_event_hdr(n, event_type, nargs, thread_ref, cat, name);
	return n;
}

/* Blob record: header word, [name stream], payload stream. */
static inline __u64 ktrace_fxt_blob_hdr(__u32 words, __u16 name, __u32 size, __u32 blob_type)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_BLOB, words) |
	       ktrace_fxt_field(name, 16, 31) |
	       ktrace_fxt_field(size, 32, 46) |
	       ktrace_fxt_field(blob_type, 48, 55);
}

/* Kernel object record: header word, koid, [name stream], arguments. */
static inline __u64 ktrace_fxt_kobj_hdr(__u32 words, __u32 obj_type, __u16 name, __u32 nargs)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_KERNEL_OBJ, words) |
	       ktrace_fxt_field(obj_type, 16, 23) |
	       ktrace_fxt_field(name, 24, 39) |
	       ktrace_fxt_field(nargs, 40, 43);
}

/*
 * The spec's context switch record: header word, timestamp, then for each
 * thread ref that is 0 (outgoing first) the process and thread koids.
 */
static inline __u64 ktrace_fxt_cswitch_hdr(__u32 words, __u32 cpu, __u32 out_state,
					   __u32 out_ref, __u32 in_ref,
					   __u32 out_prio, __u32 in_prio)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_SCHED, words) |
	       ktrace_fxt_field(cpu, 16, 23) |
	       ktrace_fxt_field(out_state, 24, 27) |
	       ktrace_fxt_field(out_ref, 28, 35) |
	       ktrace_fxt_field(in_ref, 36, 43) |
	       ktrace_fxt_field(out_prio, 44, 51) |
	       ktrace_fxt_field(in_prio, 52, 59) |
	       ktrace_fxt_field(KTRACE_FXT_SCHED_CSWITCH, 60, 63);
}

/*
 * Context switch with arguments: header word, timestamp, outgoing thread
 * koid, incoming thread koid, arguments.
 */
static inline __u64 ktrace_fxt_cswitch_args_hdr(__u32 words, __u32 nargs, __u32 cpu,
						__u32 out_state)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_SCHED, words) |
	       ktrace_fxt_field(nargs, 16, 19) |
	       ktrace_fxt_field(cpu, 20, 35) |
	       ktrace_fxt_field(out_state, 36, 39) |
	       ktrace_fxt_field(KTRACE_FXT_SCHED_CSWITCH_ARGS, 60, 63);
}

/* Thread wakeup: header word, timestamp, woken thread koid, arguments. */
static inline __u64 ktrace_fxt_wakeup_hdr(__u32 words, __u32 nargs, __u32 cpu)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_SCHED, words) |
	       ktrace_fxt_field(nargs, 16, 19) |
	       ktrace_fxt_field(cpu, 20, 35) |
	       ktrace_fxt_field(KTRACE_FXT_SCHED_WAKEUP, 60, 63);
}

/* Log record: header word, timestamp, [process, thread koids], message stream. */
static inline __u64 ktrace_fxt_log_hdr(__u32 words, __u32 len, __u32 thread_ref)
{
	return ktrace_fxt_rec_hdr(KTRACE_FXT_REC_LOG, words) |
	       ktrace_fxt_field(len, 16, 30) |
	       ktrace_fxt_field(thread_ref, 32, 39);
}

/*
 * Large BLOB record header (record type 15, large type 0).  Format 0 is
 * followed by a format header word, [category], [name], timestamp,
 * [process, thread koids], arguments, blob size, payload; format 1 by a
 * format header word, [category], [name], blob size, payload.
 */
static inline __u64 ktrace_fxt_large_blob_hdr(__u64 words, __u32 format)
{
	return ktrace_fxt_field(KTRACE_FXT_REC_LARGE, 0, 3) |
	       ktrace_fxt_field(words, 4, 35) |
	       ktrace_fxt_field(0, 36, 39) |
	       ktrace_fxt_field(format, 40, 43);
}

static inline __u64 ktrace_fxt_large_blob_fmt0(__u16 cat, __u16 name, __u32 nargs,
					       __u32 thread_ref)
{
	return ktrace_fxt_field(cat, 0, 15) | ktrace_fxt_field(name, 16, 31) |
	       ktrace_fxt_field(nargs, 32, 35) | ktrace_fxt_field(thread_ref, 36, 43);
}

static inline __u64 ktrace_fxt_large_blob_fmt1(__u16 cat, __u16 name)
{
	return ktrace_fxt_field(cat, 0, 15) | ktrace_fxt_field(name, 16, 31);
}

/* ---- arguments --------------------------------------------------------- */

static inline __u64 ktrace_fxt_arg_hdr(__u32 type, __u32 words, __u16 name, __u32 value32)
{
	return ktrace_fxt_field(type, 0, 3) | ktrace_fxt_field(words, 4, 15) |
	       ktrace_fxt_field(name, 16, 31) | ktrace_fxt_field(value32, 32, 63);
}

/* Argument words: header, [name stream], payload. */
static inline __u32 ktrace_fxt_arg_words(__u32 type, __u16 name, __u16 str_value)
{
	__u32 words = 1 + ktrace_fxt_sref_words(name);

	switch (type) {
	case KTRACE_FXT_ARG_INT64:
	case KTRACE_FXT_ARG_UINT64:
	case KTRACE_FXT_ARG_DOUBLE:
	case KTRACE_FXT_ARG_POINTER:
	case KTRACE_FXT_ARG_KOID:
		return words + 1;
	case KTRACE_FXT_ARG_STRING:
		return words + ktrace_fxt_sref_words(str_value);
	default:
		return words;
	}
}

/* One-word argument with an indexed name: int32, uint32 or bool. */
static inline __u64 ktrace_fxt_arg_u32(__u16 name, __u32 value)
{
	return ktrace_fxt_arg_hdr(KTRACE_FXT_ARG_UINT32, 1, name, value);
}

static inline __u64 ktrace_fxt_arg_i32(__u16 name, __s32 value)
{
	return ktrace_fxt_arg_hdr(KTRACE_FXT_ARG_INT32, 1, name, (__u32)value);
}

/* Two-word koid argument with an indexed name: header, value. */
static inline __u32 ktrace_fxt_put_arg_koid(__u64 *w, __u16 name, __u64 koid)
{
	w[0] = ktrace_fxt_arg_hdr(KTRACE_FXT_ARG_KOID, 2, name, 0);
	w[1] = koid;
	return 2;
}

/*
 * One argument with an indexed (or empty) name: @value is the number, the
 * koid or pointer, the bool, or for a string the index of its value.
 * Returns the words written; an unknown type is written as null.
 */
static inline __u32 ktrace_fxt_put_arg(__u64 *w, __u32 type, __u16 name, __u64 value)
{
	switch (type) {
	case KTRACE_FXT_ARG_INT32:
	case KTRACE_FXT_ARG_UINT32:
		w[0] = ktrace_fxt_arg_hdr(type, 1, name, (__u32)value);
		return 1;
	case KTRACE_FXT_ARG_BOOL:
		w[0] = ktrace_fxt_arg_hdr(type, 1, name, !!value);
		return 1;
	case KTRACE_FXT_ARG_STRING:
		w[0] = ktrace_fxt_arg_hdr(type, 1, name, (__u16)value);
		return 1;
	case KTRACE_FXT_ARG_INT64:
	case KTRACE_FXT_ARG_UINT64:
	case KTRACE_FXT_ARG_DOUBLE:
	case KTRACE_FXT_ARG_POINTER:
	case KTRACE_FXT_ARG_KOID:
		w[0] = ktrace_fxt_arg_hdr(type, 2, name, 0);
		w[1] = value;
		return 2;
	default:
		w[0] = ktrace_fxt_arg_hdr(KTRACE_FXT_ARG_NULL, 1, name, 0);
		return 1;
	}
}

/* ---- whole records the recorders write --------------------------------- */

/* Linux prio (0..139) as a context switch weight; the idle task gets none. */
static inline __s32 ktrace_fxt_weight(__u32 tid, int linux_prio)
{
	if (tid == 0)
		return KTRACE_FXT_IDLE_WEIGHT;
	if (linux_prio < 0 || linux_prio >= KTRACE_FXT_PRIO_BASE)
		return 1;
	return KTRACE_FXT_PRIO_BASE - linux_prio;
}

#define KTRACE_FXT_CSWITCH_WORDS	7
#define KTRACE_FXT_CSWITCH_MAX_WORDS	9

/*
 * Where a thread blocked: the kernel stack of a task that was switched
 * out in S or D, interned per session by the recorder.  Id 0 is "not
 * recorded"; the archive says what every other id is (a "ktrace:meta"
 * "kstack" instant per id, before any event, with the function the thread
 * blocked in and, with record --stacks, the whole stack), so no kernel
 * address is kept.  A stack is at most KTRACE_KSTACK_MAX_DEPTH frames,
 * innermost first.
 *
 * The recorders take it at the switch-in that ends the block, from the
 * incoming task's stack (still the one it blocked on), and only when the
 * task was off the CPU for at least the recording's threshold: most blocks
 * are short, and a walk costs several times a switch.  Older recordings
 * took it at the switch-out, from the outgoing task's.
 */
#define KTRACE_KSTACK_MAX_DEPTH		64
#define KTRACE_KSTACK_BLOCKED_DEPTH	16	/* enough to get past the scheduler */
#define KTRACE_KSTACK_MIN_OFF_NS	100000ULL	/* default threshold: 100 us */

/*
 * Whether a switch-out in @linux_state leaves the thread to run again only
 * once woken: any state but R (preempted) and the exit states.
 */
static inline int ktrace_linux_state_sleeps(__u32 linux_state)
{
	return linux_state != KTRACE_LINUX_RUNNING && !ktrace_linux_state_exits(linux_state);
}

/* Whether a switch-out in @linux_state records where the thread blocked. */
static inline int ktrace_linux_state_blocks(__u32 linux_state)
{
	return linux_state == KTRACE_LINUX_INTERRUPTIBLE ||
	       linux_state == KTRACE_LINUX_UNINTERRUPTIBLE;
}

/*
 * Context switch with arguments: outgoing_weight, incoming_weight (int32,
 * as Perfetto reads them), linux_state (the exact task_state_index()),
 * when not 0, kstack (uint32: the interned stack the outgoing thread
 * blocked with, as older recorders wrote it) and, when not 0,
 * incoming_kstack (uint32: the stack the incoming thread blocked with, if
 * its last switch-out was in S or D).  Returns the words:
 * KTRACE_FXT_CSWITCH_WORDS, plus one per stack.
 */
static inline __u32 ktrace_fxt_cswitch_words(__u32 kstack, __u32 in_kstack)
{
	return KTRACE_FXT_CSWITCH_WORDS + (kstack ? 1 : 0) + (in_kstack ? 1 : 0);
}

static inline __u64 ktrace_fxt_cswitch_record_hdr(__u32 words, __u32 cpu, __u32 linux_state)
{
	return ktrace_fxt_cswitch_args_hdr(words, words - 4, cpu,
					   ktrace_fxt_state_from_linux(linux_state));
}

/*
 * The record without its header word, for a writer that must store the
 * header last (in place, where a reader may look at once: the BPF
 * recorder); ktrace_fxt_cswitch_record_hdr() gives the header.
 */
static inline __u32 ktrace_fxt_put_cswitch_body(__u64 *w, __u64 ts, __u32 out_tid,
						int out_prio, __u32 linux_state, __u32 in_tid,
						int in_prio, __u32 kstack, __u32 in_kstack)
{
	__u32 n = KTRACE_FXT_CSWITCH_WORDS;

	w[1] = ts;
	w[2] = out_tid;
	w[3] = in_tid;
	w[4] = ktrace_fxt_arg_i32(KTRACE_FXT_STR_OUTGOING_WEIGHT,
				  ktrace_fxt_weight(out_tid, out_prio));
	w[5] = ktrace_fxt_arg_i32(KTRACE_FXT_STR_INCOMING_WEIGHT,
				  ktrace_fxt_weight(in_tid, in_prio));
	w[6] = ktrace_fxt_arg_u32(KTRACE_FXT_STR_LINUX_STATE, linux_state);
	if (kstack)
		w[n++] = ktrace_fxt_arg_u32(KTRACE_FXT_STR_KSTACK, kstack);
	if (in_kstack)
		w[n++] = ktrace_fxt_arg_u32(KTRACE_FXT_STR_INCOMING_KSTACK, in_kstack);
	return n;
}

static inline __u32 ktrace_fxt_put_cswitch_stacks(__u64 *w, __u32 cpu, __u64 ts,
						  __u32 out_tid, int out_prio, __u32 linux_state,
						  __u32 in_tid, int in_prio, __u32 kstack,
						  __u32 in_kstack)
{
	__u32 n = ktrace_fxt_put_cswitch_body(w, ts, out_tid, out_prio, linux_state, in_tid,
					      in_prio, kstack, in_kstack);

	w[0] = ktrace_fxt_cswitch_record_hdr(n, cpu, linux_state);
	return n;
}

static inline __u32 ktrace_fxt_put_cswitch(__u64 *w, __u32 cpu, __u64 ts,
					   __u32 out_tid, int out_prio, __u32 linux_state,
					   __u32 in_tid, int in_prio, __u32 kstack)
{
	return ktrace_fxt_put_cswitch_stacks(w, cpu, ts, out_tid, out_prio, linux_state,
					     in_tid, in_prio, kstack, 0);
}

/*
 * The context a wakeup ran in, from the waker's preempt count.  In task
 * context the waker is the current task; in an interrupt it is not, and
 * the record names the interrupted task as such instead.
 */
enum ktrace_irq_context {
	KTRACE_CTX_TASK		= 0,
	KTRACE_CTX_SOFTIRQ	= 1,	/* serving a softirq (ksoftirqd included) */
	KTRACE_CTX_HARDIRQ	= 2,
	KTRACE_CTX_NMI		= 3,
	KTRACE_CTX_MAX		= 3,
};

#if !defined(__KERNEL__) && !defined(__bpf__)
/* The name of an irq_context value, as reports and the JSON show it. */
static inline const char *ktrace_irq_context_name(__u64 ctx)
{
	static const char *const names[] = { "task", "softirq", "hardirq", "nmi" };

	return ctx <= KTRACE_CTX_MAX ? names[ctx] : "unknown";
}
#endif

/* x86 and generic preempt_count layout (include/linux/preempt.h). */
#define KTRACE_PC_SOFTIRQ_OFFSET	0x00000100U
#define KTRACE_PC_HARDIRQ_MASK		0x000f0000U
#define KTRACE_PC_NMI_MASK		0x00f00000U

static inline __u32 ktrace_irq_context(__u32 preempt_count)
{
	if (preempt_count & KTRACE_PC_NMI_MASK)
		return KTRACE_CTX_NMI;
	if (preempt_count & KTRACE_PC_HARDIRQ_MASK)
		return KTRACE_CTX_HARDIRQ;
	if (preempt_count & KTRACE_PC_SOFTIRQ_OFFSET)
		return KTRACE_CTX_SOFTIRQ;
	return KTRACE_CTX_TASK;
}

#define KTRACE_FXT_WAKEUP_WORDS		6
#define KTRACE_FXT_WAKEUP_MAX_WORDS	9

/*
 * Allowed CPUs on a machine with more than 64 possible CPUs.  "cpus"
 * (uint64) holds CPUs 0..63, word 0 of the mask, and is written for every
 * thread that may not run on every CPU, even as 0.  Each non-zero word k
 * of 1..63 (CPUs 64k..64k+63) follows as the uint64 argument "cpus<k>",
 * named inline ("cpus1" .. "cpus63"), in increasing order; a word left
 * out is 0.  A record holds at most KTRACE_FXT_CPUS_MAX_EXTRA of them
 * (FXT allows 15 arguments); where the mask has more, or the machine has
 * CPUs above 4095, "cpus_cut" (uint32) says from which CPU on the record
 * does not describe the mask, and readers take every CPU from there on as
 * allowed.  A machine of 64 CPUs or fewer writes none of these arguments.
 */
#define KTRACE_FXT_CPUS_MAX_WORDS	64	/* CPUs 0..4095 */
#define KTRACE_FXT_CPUS_MAX_EXTRA	8
#define KTRACE_FXT_CPUS_CUT		"cpus_cut"
/* The words the arguments beyond "cpus" can take: 3 per word, 2 for the cut. */
#define KTRACE_FXT_CPUS_EXTRA_MAX_WORDS	(KTRACE_FXT_CPUS_MAX_EXTRA * 3 + 2)

/* The inline name "cpus<@k>" (1 <= @k <= 63) as one stream word, and its length. */
static inline __u64 ktrace_fxt_cpus_word_name(__u32 k)
{
	__u64 s = 'c' | 'p' << 8 | (__u64)'u' << 16 | (__u64)'s' << 24;

	if (k >= 10)
		return s | (__u64)('0' + k / 10) << 32 | (__u64)('0' + k % 10) << 40;
	return s | (__u64)('0' + k) << 32;
}

static inline __u32 ktrace_fxt_cpus_word_name_len(__u32 k)
{
	return k >= 10 ? 6 : 5;
}

/*
 * The arguments after "cpus" for a mask of @nwords words (the machine's
 * possible CPUs; @mask holds the first min(@nwords, 64)): returns the
 * words written at @w and adds the arguments to *@nargs.
 */
static inline __u32 ktrace_fxt_put_cpus_extra(__u64 *w, const __u64 *mask, __u32 nwords,
					      __u32 *nargs)
{
	__u32 n = 0, extra = 0, cut = 0, k;

	for (k = 1; k < KTRACE_FXT_CPUS_MAX_WORDS; k++) {
		if (k >= nwords)
			break;
		if (!mask[k])
			continue;
		if (extra == KTRACE_FXT_CPUS_MAX_EXTRA) {
			cut = k * 64;
			break;
		}
		w[n] = ktrace_fxt_arg_hdr(KTRACE_FXT_ARG_UINT64, 3,
					  ktrace_fxt_sref_inline(ktrace_fxt_cpus_word_name_len(k)),
					  0);
		w[n + 1] = ktrace_fxt_cpus_word_name(k);
		w[n + 2] = mask[k];
		n += 3;
		extra++;
	}
	if (!cut && nwords > KTRACE_FXT_CPUS_MAX_WORDS)
		cut = KTRACE_FXT_CPUS_MAX_WORDS * 64;
	if (cut) {
		w[n] = ktrace_fxt_arg_hdr(KTRACE_FXT_ARG_UINT32, 2, ktrace_fxt_sref_inline(8), cut);
		/* "cpus_cut" */
		w[n + 1] = 'c' | 'p' << 8 | (__u64)'u' << 16 | (__u64)'s' << 24 |
			   (__u64)'_' << 32 | (__u64)'c' << 40 | (__u64)'u' << 48 |
			   (__u64)'t' << 56;
		n += 2;
		extra++;
	}
	*nargs += extra;
	return n;
}

/* Words of a wakeup from @irq_ctx, of a thread restricted to @cpus (0: not). */
static inline __u32 ktrace_fxt_wakeup_words(__u32 irq_ctx, __u64 cpus)
{
	return KTRACE_FXT_WAKEUP_WORDS + (irq_ctx ? 1 : 0) + (cpus ? 2 : 0);
}

/*
 * Thread wakeup with the woken thread's weight.  From a task, the waker's
 * tid follows as "waker"; from an interrupt, "irq_context" says which kind
 * and the task it interrupted is "interrupted", so no viewer takes that
 * task for the waker.  A thread that may not run on every CPU gets "cpus"
 * (uint64), its allowed CPUs 0..63 as a mask: the wait that starts here
 * cannot be blamed on an idle CPU it may not use.
 */
static inline __u64 ktrace_fxt_wakeup_record_hdr(__u32 cpu, __u32 irq_ctx, __u64 cpus)
{
	return ktrace_fxt_wakeup_hdr(ktrace_fxt_wakeup_words(irq_ctx, cpus),
				     2 + (irq_ctx ? 1 : 0) + (cpus ? 1 : 0), cpu);
}

/* The wakeup without its header word (see ktrace_fxt_put_cswitch_body()). */
static inline __u32 ktrace_fxt_put_wakeup_body(__u64 *w, __u64 ts, __u32 tid, int prio,
					       __u32 waker_tid, __u32 irq_ctx, __u64 cpus)
{
	__u32 n = ktrace_fxt_wakeup_words(irq_ctx, cpus), i = 4;

	w[1] = ts;
	w[2] = tid;
	w[3] = ktrace_fxt_arg_i32(KTRACE_FXT_STR_WEIGHT, ktrace_fxt_weight(tid, prio));
	if (irq_ctx) {
		w[i++] = ktrace_fxt_arg_u32(KTRACE_FXT_STR_IRQ_CONTEXT, irq_ctx);
		i += ktrace_fxt_put_arg_koid(&w[i], KTRACE_FXT_STR_INTERRUPTED, waker_tid);
	} else {
		i += ktrace_fxt_put_arg_koid(&w[i], KTRACE_FXT_STR_WAKER, waker_tid);
	}
	if (cpus)
		ktrace_fxt_put_arg(&w[i], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CPUS, cpus);
	return n;
}

static inline __u32 ktrace_fxt_put_wakeup(__u64 *w, __u32 cpu, __u64 ts, __u32 tid,
					  int prio, __u32 waker_tid, __u32 irq_ctx, __u64 cpus)
{
	__u32 n = ktrace_fxt_put_wakeup_body(w, ts, tid, prio, waker_tid, irq_ctx, cpus);

	w[0] = ktrace_fxt_wakeup_record_hdr(cpu, irq_ctx, cpus);
	return n;
}

#define KTRACE_FXT_WAKEUP_WIDE_MAX_WORDS \
	(KTRACE_FXT_WAKEUP_MAX_WORDS + KTRACE_FXT_CPUS_EXTRA_MAX_WORDS)

/*
 * The wakeup of a thread that may not run on every CPU of a machine of
 * more than 64 (@nwords mask words): as ktrace_fxt_put_wakeup(), with
 * "cpus" always and the words above it (ktrace_fxt_put_cpus_extra()).
 */
static inline __u32 ktrace_fxt_put_wakeup_wide(__u64 *w, __u32 cpu, __u64 ts, __u32 tid,
					       int prio, __u32 waker_tid, __u32 irq_ctx,
					       const __u64 *mask, __u32 nwords)
{
	/* The body of a wakeup with no mask, then "cpus" and the words above it. */
	__u32 nargs = 3 + (irq_ctx ? 1 : 0);
	__u32 i = ktrace_fxt_put_wakeup_body(w, ts, tid, prio, waker_tid, irq_ctx, 0);

	i += ktrace_fxt_put_arg(&w[i], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CPUS, mask[0]);
	i += ktrace_fxt_put_cpus_extra(&w[i], mask, nwords, &nargs);
	w[0] = ktrace_fxt_wakeup_hdr(i, nargs, cpu);
	return i;
}

/*
 * Latency trigger (record --stop-on-latency): each thread's latest wakeup,
 * in a table of 2^16 words indexed by pid.  A word packs the pid (22 bits:
 * PID_MAX_LIMIT) with the wakeup time in 1.024 us units (42 bits: 52 days
 * before it wraps), so it is stored and loaded whole: two threads that
 * share a slot lose a measurement, never mix theirs.
 */
#define KTRACE_WAKE_SLOTS		65536U
/* Levels below the trigger's cgroup (--cgroup) a thread may be and still be watched. */
#define KTRACE_TRIGGER_CGROUP_DEPTH	32
#define KTRACE_WAKE_TS_BITS		42
#define KTRACE_WAKE_TS_MASK		((1ULL << KTRACE_WAKE_TS_BITS) - 1)
#define KTRACE_WAKE_TS_SHIFT		10

static inline __u64 ktrace_wake_slot(__u32 pid, __u64 ts)
{
	return (__u64)pid << KTRACE_WAKE_TS_BITS |
	       ((ts >> KTRACE_WAKE_TS_SHIFT) & KTRACE_WAKE_TS_MASK);
}

/* The wait since @pid's wakeup in @slot until @now, in ns; 0 if the slot is not @pid's. */
static inline __u64 ktrace_wake_latency(__u64 slot, __u32 pid, __u64 now)
{
	__u64 then = slot & KTRACE_WAKE_TS_MASK, units;

	if (!pid || slot >> KTRACE_WAKE_TS_BITS != pid)
		return 0;
	units = ((now >> KTRACE_WAKE_TS_SHIFT) - then) & KTRACE_WAKE_TS_MASK;
	return units << KTRACE_WAKE_TS_SHIFT;
}

/*
 * Allowed CPUs last written per thread, so that a switch-out or a move
 * writes an "affinity" record only when they changed: a table of 2^16
 * words indexed by pid, a word packing the pid with a hash of the mask
 * (0: every CPU), stored and loaded whole.  A thread that shares its slot
 * with another writes its mask again (a record too many, never one too
 * few); two masks of one thread are taken for one once in 2^31 changes.
 */
#define KTRACE_AFFINITY_SLOTS		65536U

/*
 * A mask of more than one word folded into one for ktrace_affinity_slot():
 * @mask holds the first min(@nwords, 64) words of the mask, which are the
 * words the records give.  A one-word mask is its own fold.
 */
static inline __u64 ktrace_affinity_fold(const __u64 *mask, __u32 nwords)
{
	__u64 h = mask[0];
	__u32 k;

	for (k = 1; k < KTRACE_FXT_CPUS_MAX_WORDS; k++) {
		if (k >= nwords)
			break;
		h = (h ^ h >> 29) * 0xbf58476d1ce4e5b9ULL ^ mask[k];
	}
	return h;
}

/* @restricted: the thread may not run on every CPU; @cpus: its mask (folded). */
static inline __u64 ktrace_affinity_slot(__u32 pid, int restricted, __u64 cpus)
{
	/* Multiplicative hashing: the product's high half depends on every bit. */
	__u64 h = cpus * 0x9e3779b97f4a7c15ULL;

	return (__u64)pid << 32 | (restricted ? (h >> 32) | 1 : 0);
}

/*
 * Each thread's last switch-out, for the threshold: a pid-indexed slot
 * (ktrace_wake_slot()) holding when it blocked, or KTRACE_OFF_NOT_BLOCKED
 * in place of the time when it was switched out runnable or dying.
 */
#define KTRACE_OFF_NOT_BLOCKED		KTRACE_WAKE_TS_MASK

static inline __u64 ktrace_off_slot(__u32 pid, __u64 ts, __u32 linux_state)
{
	__u64 v = ktrace_wake_slot(pid, ts);

	if (!ktrace_linux_state_blocks(linux_state))
		v |= KTRACE_OFF_NOT_BLOCKED;
	else if ((v & KTRACE_WAKE_TS_MASK) == KTRACE_OFF_NOT_BLOCKED)
		v--;	/* once in 52 days: a microsecond early */
	return v;
}

/*
 * Whether @pid, switched in at @now, may end a block of at least @min_ns,
 * by its @slot: yes if it blocked that long ago, and also when the slot is
 * another thread's (pids that share it, or its first switch-in of the
 * recording), so that no block that long goes unnamed.
 */
static inline int ktrace_off_long(__u64 slot, __u32 pid, __u64 now, __u64 min_ns)
{
	if (slot >> KTRACE_WAKE_TS_BITS != pid)
		return 1;
	if ((slot & KTRACE_WAKE_TS_MASK) == KTRACE_OFF_NOT_BLOCKED)
		return 0;
	/* The slot keeps time in 1024 ns units: round so that none is missed. */
	return ktrace_wake_latency(slot, pid, now) + (1ULL << KTRACE_WAKE_TS_SHIFT) > min_ns;
}

#define KTRACE_FXT_TRIGGER_WORDS	9

/*
 * The wait that stopped a latency-triggered flight recording: an instant
 * in "ktrace:latency" named "trigger" on the waiting thread, at its
 * switch-in, with the latency, the wakeup time and the CPU.
 */
static inline __u32 ktrace_fxt_put_trigger(__u64 *w, __u64 ts, __u32 pid, __u32 tid,
					   __u64 latency, __u64 wake_ts, __u32 cpu)
{
	__u32 n = ktrace_fxt_event_head(w, ts, 0, pid, tid, KTRACE_FXT_STR_CAT_LATENCY, 0,
					KTRACE_FXT_STR_TRIGGER, 0);

	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_LATENCY, latency);
	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_WAKE_TS, wake_ts);
	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT32, KTRACE_FXT_STR_CPU, cpu);
	return ktrace_fxt_event_finish(w, n, KTRACE_FXT_EV_INSTANT, 3, 0,
				       KTRACE_FXT_STR_CAT_LATENCY, KTRACE_FXT_STR_TRIGGER, 0);
}

#define KTRACE_FXT_TIMER_EXPIRE_WORDS	9

/*
 * A sleeping thread's hrtimer expired (hrtimer_expire_entry for a timer
 * whose function is hrtimer_wakeup): an instant in "ktrace:timer" named
 * "timer_expire" on the sleeper, at the time its timer's function is
 * called (@ts, "fired"), with "due" (the soft expiry: the time the thread
 * asked for), "hard_due" (the hard expiry: due plus the thread's timer
 * slack, the latest the kernel meant to fire it) in the recorder's clock,
 * and the "cpu" the timer fired on.
 */
static inline __u32 ktrace_fxt_put_timer_expire(__u64 *w, __u64 ts, __u32 pid, __u32 tid,
						__u64 due, __u64 hard_due, __u32 cpu)
{
	__u32 n = ktrace_fxt_event_head(w, ts, 0, pid, tid, KTRACE_FXT_STR_CAT_TIMER, 0,
					KTRACE_FXT_STR_TIMER_EXPIRE, 0);

	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_DUE, due);
	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_HARD_DUE, hard_due);
	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT32, KTRACE_FXT_STR_CPU, cpu);
	return ktrace_fxt_event_finish(w, n, KTRACE_FXT_EV_INSTANT, 3, 0,
				       KTRACE_FXT_STR_CAT_TIMER, KTRACE_FXT_STR_TIMER_EXPIRE, 0);
}

#define KTRACE_FXT_MIGRATE_WORDS	6

/*
 * A task moved to another CPU's run queue (sched_migrate_task, from
 * set_task_cpu(): wakeup placement, the load balancer, affinity and
 * hotplug moves): an instant in "ktrace:sched" named "migrate" on the
 * task, with orig_cpu and dest_cpu.  A waiting thread's wait is spent on
 * the run queue of its latest destination, which only these records say.
 */
static inline __u32 ktrace_fxt_put_migrate(__u64 *w, __u64 ts, __u32 pid, __u32 tid,
					   __u32 orig_cpu, __u32 dest_cpu)
{
	__u32 n = ktrace_fxt_event_head(w, ts, 0, pid, tid, KTRACE_FXT_STR_CAT_SCHED, 0,
					KTRACE_FXT_STR_MIGRATE, 0);

	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT32, KTRACE_FXT_STR_ORIG_CPU, orig_cpu);
	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT32, KTRACE_FXT_STR_DEST_CPU, dest_cpu);
	return ktrace_fxt_event_finish(w, n, KTRACE_FXT_EV_INSTANT, 2, 0,
				       KTRACE_FXT_STR_CAT_SCHED, KTRACE_FXT_STR_MIGRATE, 0);
}

#define KTRACE_FXT_AFFINITY_WORDS	6

/*
 * A task's allowed CPUs changed while it ran or sat on a run queue, where
 * no wakeup carries them (sched_setaffinity() on a running thread, a
 * cpuset change, a hotplug move): an instant in "ktrace:sched" named
 * "affinity" on the task, with "cpus", its allowed CPUs 0..63 if it may
 * not run on every CPU, else 0 (as a wakeup's "cpus").  Written at the
 * task's next switch-out or move at the latest, before that record.
 */
static inline __u32 ktrace_fxt_put_affinity(__u64 *w, __u64 ts, __u32 pid, __u32 tid,
					    __u64 cpus)
{
	__u32 n = ktrace_fxt_event_head(w, ts, 0, pid, tid, KTRACE_FXT_STR_CAT_SCHED, 0,
					KTRACE_FXT_STR_AFFINITY, 0);

	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CPUS, cpus);
	return ktrace_fxt_event_finish(w, n, KTRACE_FXT_EV_INSTANT, 1, 0,
				       KTRACE_FXT_STR_CAT_SCHED, KTRACE_FXT_STR_AFFINITY, 0);
}

/*
 * "untraced_wakeup" (ktrace:meta), on the thread: it is switched in, it
 * was switched out blocked, and the recorder saw no sched_waking of it
 * since on any CPU (the kernel fires none on a CPU outside
 * cpu_online_mask, as CPU hotplug makes them).  Written just before that
 * switch, at its time.
 */
#define KTRACE_FXT_UNTRACED_WAKEUP_WORDS	4

static inline __u32 ktrace_fxt_put_untraced_wakeup(__u64 *w, __u64 ts, __u32 pid, __u32 tid)
{
	__u32 n = ktrace_fxt_event_head(w, ts, 0, pid, tid, KTRACE_FXT_STR_CAT_META, 0,
					KTRACE_FXT_STR_UNTRACED_WAKEUP, 0);

	return ktrace_fxt_event_finish(w, n, KTRACE_FXT_EV_INSTANT, 0, 0, KTRACE_FXT_STR_CAT_META,
				       KTRACE_FXT_STR_UNTRACED_WAKEUP, 0);
}

/*
 * Where each thread stands between a block and its wakeup: a table of 2^16
 * words indexed by pid, a word packing the pid (bits 42..63: pids are
 * below PID_MAX_LIMIT, 2^22) with a state (KTRACE_BLOCK_*, bits 0..2)
 * and, for a thread woken while it ran or was queued, the waker's tid
 * (bits 20..41), its CPU (bits 5..19) and the interrupt context the
 * wakeup came from (bits 3..4).  It serves two records.
 *
 * "untraced_wakeup": a blocked switch-out sets KTRACE_BLOCK_BLOCKED, every
 * sched_waking one of the woken states, and a switch-in that still reads
 * KTRACE_BLOCK_BLOCKED writes the record (the kernel woke the thread where
 * no tracepoint fired).
 *
 * A wakeup that completes after the woken thread ran again.
 * try_to_wake_up() fires sched_waking (the wakeup record) under the
 * thread's pi_lock before it looks at whether the thread is still queued.
 * A thread that had set a sleeping state but was still running, or was
 * queued (preempted there: PREEMPT_RT does so freely), may meanwhile be
 * switched in and block, and only then does the waker activate it: its
 * wakeup record lies before its last switch-in, and the block seems never
 * woken.  (Seen in virtual machines, whose virtual CPUs stop for
 * milliseconds at a time: a waker on a stopped one.)  So a sched_waking of
 * a thread on a CPU sets KTRACE_BLOCK_ON_CPU, of a queued one
 * KTRACE_BLOCK_QUEUED; its switch-in makes either KTRACE_BLOCK_RAN.  At a
 * block, a thread in one of the three whose wakeup is still under way (a
 * try_to_wake_up() holds its pi_lock, or has set TASK_WAKING, which it does
 * once it found the thread off its run queue) gets its wakeup record again,
 * at the block's time, unless it is
 * KTRACE_BLOCK_ON_CPU: that is the usual race of a wakeup with the
 * switch-out it follows, and the wakeup record already lies since the
 * thread last ran.  If the wakeup is not under way, it completed before
 * (the thread was queued: ttwu_runnable()), and this block needs a
 * sched_waking of its own: KTRACE_BLOCK_BLOCKED.  A pi_lock held for
 * something else (an affinity change) at the block of a thread woken so
 * earlier in its run would give a wakeup record too many.
 *
 * Plain loads and stores, no compare-and-swap (which cost the BPF
 * recorder 37 ns a block, a tenth of its work): a sched_waking between a
 * switch's load and store, or one of another thread of the slot, gives an
 * untraced_wakeup record too many, beside the wakeup record; never one too
 * few.  A thread whose slot another thread takes is not checked.
 *
 * The wakeup written again says who completes it.  A waker that holds the
 * pi_lock (KTRACE_WAKING_HELD) runs on its CPU with interrupts off until
 * it has made the thread runnable, just after its switch: the record names
 * it, its CPU and context, as its sched_waking did.  One that found the
 * thread still on its CPU may instead have queued it for that CPU and let
 * go (KTRACE_WAKING_QUEUED: TASK_WAKING, the lock free); that CPU makes it
 * runnable from an interrupt once the switch is done, and the record says
 * so: the thread's CPU, a hard interrupt, interrupting the thread switched
 * in.  Either way a record on a CPU names what runs there.
 */
#define KTRACE_WAKING_NONE		0
#define KTRACE_WAKING_HELD		1
#define KTRACE_WAKING_QUEUED		2
#define KTRACE_BLOCK_SLOTS		65536U
#define KTRACE_BLOCK_BLOCKED		1U	/* blocked, no sched_waking since */
#define KTRACE_BLOCK_WOKEN		2U	/* a sched_waking since it blocked */
#define KTRACE_BLOCK_ON_CPU		3U	/* a sched_waking while on a CPU */
#define KTRACE_BLOCK_QUEUED		4U	/* a sched_waking while queued */
#define KTRACE_BLOCK_RAN		5U	/* either, and switched in since */
#define KTRACE_BLOCK_STATE_MASK		7ULL
#define KTRACE_BLOCK_PID_SHIFT		42
#define KTRACE_BLOCK_TID_MASK		0x3fffffU
#define KTRACE_BLOCK_CPU_MASK		0x7fffU

static inline __u64 ktrace_block_slot(__u32 pid, __u32 state)
{
	return (__u64)(pid & KTRACE_BLOCK_TID_MASK) << KTRACE_BLOCK_PID_SHIFT | state;
}

/* The state word @v gives @pid, 0 if it is another thread's. */
static inline __u32 ktrace_block_state(__u64 v, __u32 pid)
{
	return v >> KTRACE_BLOCK_PID_SHIFT == pid ? (__u32)(v & KTRACE_BLOCK_STATE_MASK) : 0;
}

/*
 * The word a sched_waking of @pid leaves where it found @v, by @waker_tid
 * on @cpu in interrupt context @irq_ctx; @on_cpu: @pid is on a CPU,
 * @queued: on a run queue.  A thread whose block is noted already is on
 * its way off its CPU: woken, whatever on_cpu says.
 */
static inline __u64 ktrace_block_waking(__u64 v, __u32 pid, int on_cpu, int queued,
					__u32 waker_tid, __u32 cpu, __u32 irq_ctx)
{
	__u32 state = on_cpu ? KTRACE_BLOCK_ON_CPU :
		      queued ? KTRACE_BLOCK_QUEUED : KTRACE_BLOCK_WOKEN;

	if (ktrace_block_state(v, pid) == KTRACE_BLOCK_BLOCKED)
		state = KTRACE_BLOCK_WOKEN;
	if (state == KTRACE_BLOCK_WOKEN)
		return ktrace_block_slot(pid, state);
	return ktrace_block_slot(pid, state) | (__u64)(irq_ctx & 3) << 3 |
	       (__u64)(cpu & KTRACE_BLOCK_CPU_MASK) << 5 |
	       (__u64)(waker_tid & KTRACE_BLOCK_TID_MASK) << 20;
}

/* Whether state @state was left by a sched_waking of a thread running or queued. */
static inline int ktrace_block_woken_runnable(__u32 state)
{
	return state >= KTRACE_BLOCK_ON_CPU && state <= KTRACE_BLOCK_RAN;
}

/* The waker's tid, CPU and interrupt context a woken state word @v holds. */
static inline __u32 ktrace_block_waker(__u64 v)
{
	return (__u32)(v >> 20) & KTRACE_BLOCK_TID_MASK;
}

static inline __u32 ktrace_block_cpu(__u64 v)
{
	return (__u32)(v >> 5) & KTRACE_BLOCK_CPU_MASK;
}

static inline __u32 ktrace_block_irq_ctx(__u64 v)
{
	return (__u32)(v >> 3) & 3;
}

/*
 * The word @pid's block leaves where it found @v; *@late: its wakeup
 * record is to be written again now.  @in_flight (only read for a thread
 * woken while running or queued): a try_to_wake_up() of it is under way
 * (not KTRACE_WAKING_NONE).
 */
static inline __u64 ktrace_block_on_block(__u64 v, __u32 pid, int in_flight, int *late)
{
	__u32 state = ktrace_block_state(v, pid);

	*late = 0;
	if (state == KTRACE_BLOCK_WOKEN)
		return v;
	if (!ktrace_block_woken_runnable(state) || !in_flight)
		return ktrace_block_slot(pid, KTRACE_BLOCK_BLOCKED);
	*late = state != KTRACE_BLOCK_ON_CPU;
	return ktrace_block_slot(pid, KTRACE_BLOCK_WOKEN);
}

/*
 * Who completes a wakeup written again at a block, the slot's word before
 * it @v, under way as @how says (KTRACE_WAKING_HELD or _QUEUED): the waker
 * the word names, on its CPU and in its context, or this CPU @cpu from a
 * hard interrupt that interrupts @next_tid, the thread switched in.
 */
static inline void ktrace_block_late_waker(__u64 v, int how, __u32 next_tid, __u32 cpu,
					   __u32 *waker_tid, __u32 *wcpu, __u32 *irq_ctx)
{
	if (how == KTRACE_WAKING_HELD) {
		*waker_tid = ktrace_block_waker(v);
		*wcpu = ktrace_block_cpu(v);
		*irq_ctx = ktrace_block_irq_ctx(v);
	} else {
		*waker_tid = next_tid;
		*wcpu = cpu;
		*irq_ctx = KTRACE_CTX_HARDIRQ;
	}
}

/*
 * The word @pid's switch-in leaves where it found @v (@v itself: no store);
 * *@untraced: the untraced_wakeup record is to be written.
 */
static inline __u64 ktrace_block_on_switch_in(__u64 v, __u32 pid, int *untraced)
{
	__u32 state = ktrace_block_state(v, pid);

	*untraced = state == KTRACE_BLOCK_BLOCKED;
	if (state == KTRACE_BLOCK_BLOCKED || state == KTRACE_BLOCK_WOKEN)
		return 0;
	if (state == KTRACE_BLOCK_ON_CPU || state == KTRACE_BLOCK_QUEUED)
		return (v & ~KTRACE_BLOCK_STATE_MASK) | KTRACE_BLOCK_RAN;
	return v;
}

#define KTRACE_FXT_AFFINITY_WIDE_MAX_WORDS \
	(KTRACE_FXT_AFFINITY_WORDS + KTRACE_FXT_CPUS_EXTRA_MAX_WORDS)

/*
 * The "affinity" record on a machine of more than 64 CPUs (@nwords mask
 * words): @mask NULL when the task may run on every CPU ("cpus" 0 and
 * nothing more), else its mask, with the words above CPU 63
 * (ktrace_fxt_put_cpus_extra()).
 */
static inline __u32 ktrace_fxt_put_affinity_wide(__u64 *w, __u64 ts, __u32 pid, __u32 tid,
						 const __u64 *mask, __u32 nwords)
{
	__u32 n = ktrace_fxt_event_head(w, ts, 0, pid, tid, KTRACE_FXT_STR_CAT_SCHED, 0,
					KTRACE_FXT_STR_AFFINITY, 0), nargs = 1;

	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CPUS,
				mask ? mask[0] : 0);
	if (mask)
		n += ktrace_fxt_put_cpus_extra(&w[n], mask, nwords, &nargs);
	return ktrace_fxt_event_finish(w, n, KTRACE_FXT_EV_INSTANT, nargs, 0,
				       KTRACE_FXT_STR_CAT_SCHED, KTRACE_FXT_STR_AFFINITY, 0);
}

#define KTRACE_FXT_THROTTLE_WORDS	7

/*
 * A fair-class task left the CPU while CFS bandwidth control throttled its
 * cgroup there (runnable, for that, or asleep as it was throttled): an
 * instant in "ktrace:sched" named "throttle" on the task, at its
 * switch-out, with the CPU and "cgroup_id",
 * the cgroup v2 id (its directory's inode number) of the group whose run
 * queue on that CPU is throttled (the task's own group or a parent).  The
 * group stays throttled there until a "cfs_refill" of it at the earliest.
 */
static inline __u32 ktrace_fxt_put_throttle(__u64 *w, __u64 ts, __u32 pid, __u32 tid,
					    __u32 cpu, __u64 cgroup_id)
{
	__u32 n = ktrace_fxt_event_head(w, ts, 0, pid, tid, KTRACE_FXT_STR_CAT_SCHED, 0,
					KTRACE_FXT_STR_THROTTLE, 0);

	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT32, KTRACE_FXT_STR_CPU, cpu);
	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CGROUP_ID,
				cgroup_id);
	return ktrace_fxt_event_finish(w, n, KTRACE_FXT_EV_INSTANT, 2, 0,
				       KTRACE_FXT_STR_CAT_SCHED, KTRACE_FXT_STR_THROTTLE, 0);
}

#define KTRACE_FXT_CFS_REFILL_WORDS	10

/*
 * The bandwidth timer of a cgroup with throttled run queues expired (its
 * period timer, which refills the quota, or its slack timer, which hands
 * out runtime other CPUs returned): an instant in "ktrace:sched" named
 * "cfs_refill" on thread 0, with "cgroup_id" and the timer's CPU.  The
 * timer's function unthrottles what the runtime covers, after this time:
 * no run queue of the cgroup throttled before it is unthrottled earlier
 * (save by a write to its cpu.max).  When the function is done, the CPUs
 * (0..63) whose run queues got too little to be unthrottled follow in
 * another "cfs_refill" with @after set ("after", bool) and "cpus" (uint64
 * mask): those stay throttled until a later refill.
 */
static inline __u32 ktrace_fxt_put_cfs_refill(__u64 *w, __u64 ts, __u32 cpu, __u64 cgroup_id,
					      __u64 still_cpus, __u32 after)
{
	__u32 n = ktrace_fxt_event_head(w, ts, 0, 0, 0, KTRACE_FXT_STR_CAT_SCHED, 0,
					KTRACE_FXT_STR_CFS_REFILL, 0), nargs = 2;

	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT32, KTRACE_FXT_STR_CPU, cpu);
	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CGROUP_ID,
				cgroup_id);
	if (after) {
		n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_BOOL, KTRACE_FXT_STR_AFTER, 1);
		n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CPUS,
					still_cpus);
		nargs += 2;
	}
	return ktrace_fxt_event_finish(w, n, KTRACE_FXT_EV_INSTANT, nargs, 0,
				       KTRACE_FXT_STR_CAT_SCHED, KTRACE_FXT_STR_CFS_REFILL, 0);
}

/* Longest task name (TASK_COMM_LEN - 1) and the words it can take. */
#define KTRACE_FXT_COMM_LEN		15
#define KTRACE_FXT_KOBJ_THREAD_MAX_WORDS	10
#define KTRACE_FXT_KOBJ_PROCESS_MAX_WORDS	6

/*
 * Kernel object record naming a thread, with its process koid: header,
 * koid, inline name (at most two words), "process" koid argument, for a
 * thread that may not run on every CPU "cpus" (uint64: its allowed CPUs
 * 0..63, as on its wakeups; 0 leaves it out), and "cgroup_id" (uint64: the
 * id of its cgroup v2, the cgroup directory's inode number; 0 leaves it
 * out).  @name needs at least @len readable bytes; @len is clamped to 15.
 */
static inline __u32 ktrace_fxt_put_kobj_thread(__u64 *w, __u32 tid, __u32 pid,
					       const char *name, __u32 len, __u64 cpus,
					       __u64 cgroup_id)
{
	__u32 n;

	if (len > KTRACE_FXT_COMM_LEN)
		len = KTRACE_FXT_COMM_LEN;
	n = 2 + ktrace_fxt_str_words(len);
	w[1] = tid;
	ktrace_fxt_put_stream(&w[2], name, len);
	n += ktrace_fxt_put_arg_koid(&w[n], KTRACE_FXT_STR_PROCESS, pid);
	if (cpus)
		n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CPUS, cpus);
	if (cgroup_id)
		n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CGROUP_ID,
					cgroup_id);
	w[0] = ktrace_fxt_kobj_hdr(n, KTRACE_FXT_OBJ_THREAD, ktrace_fxt_sref_inline(len),
				   1 + (cpus ? 1 : 0) + (cgroup_id ? 1 : 0));
	return n;
}

#define KTRACE_FXT_KOBJ_THREAD_WIDE_MAX_WORDS \
	(KTRACE_FXT_KOBJ_THREAD_MAX_WORDS + KTRACE_FXT_CPUS_EXTRA_MAX_WORDS)

/*
 * The thread record of a thread that may not run on every CPU of a
 * machine of more than 64 (@nwords mask words): as
 * ktrace_fxt_put_kobj_thread(), with "cpus" always and the words above it
 * (ktrace_fxt_put_cpus_extra()).
 */
static inline __u32 ktrace_fxt_put_kobj_thread_wide(__u64 *w, __u32 tid, __u32 pid,
						    const char *name, __u32 len,
						    const __u64 *mask, __u32 nwords,
						    __u64 cgroup_id)
{
	__u32 n, nargs = 2;

	if (len > KTRACE_FXT_COMM_LEN)
		len = KTRACE_FXT_COMM_LEN;
	n = 2 + ktrace_fxt_str_words(len);
	w[1] = tid;
	ktrace_fxt_put_stream(&w[2], name, len);
	n += ktrace_fxt_put_arg_koid(&w[n], KTRACE_FXT_STR_PROCESS, pid);
	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CPUS, mask[0]);
	n += ktrace_fxt_put_cpus_extra(&w[n], mask, nwords, &nargs);
	if (cgroup_id) {
		n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CGROUP_ID,
					cgroup_id);
		nargs++;
	}
	w[0] = ktrace_fxt_kobj_hdr(n, KTRACE_FXT_OBJ_THREAD, ktrace_fxt_sref_inline(len), nargs);
	return n;
}

/*
 * Kernel object record naming a process: header, koid, inline name and
 * "cgroup_id", its main thread's (0 leaves it out).
 */
static inline __u32 ktrace_fxt_put_kobj_process(__u64 *w, __u32 pid, const char *name,
						__u32 len, __u64 cgroup_id)
{
	__u32 n;

	if (len > KTRACE_FXT_COMM_LEN)
		len = KTRACE_FXT_COMM_LEN;
	n = 2 + ktrace_fxt_str_words(len);
	w[1] = pid;
	ktrace_fxt_put_stream(&w[2], name, len);
	if (cgroup_id)
		n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CGROUP_ID,
					cgroup_id);
	w[0] = ktrace_fxt_kobj_hdr(n, KTRACE_FXT_OBJ_PROCESS, ktrace_fxt_sref_inline(len),
				   cgroup_id ? 1 : 0);
	return n;
}

#define KTRACE_FXT_DROP_WORDS	11

/*
 * Loss record: an instant event in category "ktrace:meta" named "dropped"
 * on thread 0/0 with cpu, count, first_ts and last_ts, so a viewer shows
 * where and how much was lost.
 */
static inline __u32 ktrace_fxt_put_drop(__u64 *w, __u64 ts, __u32 cpu, __u64 count,
					__u64 first_ts, __u64 last_ts)
{
	__u32 n = ktrace_fxt_event_head(w, ts, 0, 0, 0, KTRACE_FXT_STR_CAT_META, 0,
					KTRACE_FXT_STR_DROPPED, 0);

	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT32, KTRACE_FXT_STR_CPU, cpu);
	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_COUNT, count);
	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_FIRST_TS, first_ts);
	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_LAST_TS, last_ts);
	return ktrace_fxt_event_finish(w, n, KTRACE_FXT_EV_INSTANT, 4, 0, KTRACE_FXT_STR_CAT_META,
				       KTRACE_FXT_STR_DROPPED, 0);
}

#define KTRACE_FXT_CPU_STATE_WORDS	5

/*
 * CPU hotplug: an instant in category "ktrace:meta" named "cpu_offline"
 * (the CPU is down: nothing it ran goes on until it is back) or
 * "cpu_online" (it comes up: what follows on it starts afresh), on thread
 * 0/0 with the cpu.  The kernel traces nothing on an offline CPU, not even
 * its last context switch, so without them the last thread switched in
 * there would seem to run until the CPU came back.
 */
static inline __u32 ktrace_fxt_put_cpu_state(__u64 *w, __u64 ts, __u32 cpu, int online)
{
	__u16 name = online ? KTRACE_FXT_STR_CPU_ONLINE : KTRACE_FXT_STR_CPU_OFFLINE;
	__u32 n = ktrace_fxt_event_head(w, ts, 0, 0, 0, KTRACE_FXT_STR_CAT_META, 0, name, 0);

	n += ktrace_fxt_put_arg(&w[n], KTRACE_FXT_ARG_UINT32, KTRACE_FXT_STR_CPU, cpu);
	return ktrace_fxt_event_finish(w, n, KTRACE_FXT_EV_INSTANT, 1, 0, KTRACE_FXT_STR_CAT_META,
				       name, 0);
}

/* What ran in an interrupt record: the kind of handler. */
enum ktrace_irq_kind {
	KTRACE_IRQ_HANDLER	= 0,	/* irq_handler_entry/exit: a device's */
	KTRACE_IRQ_SOFTIRQ	= 1,	/* softirq_entry/exit */
	KTRACE_IRQ_LOCAL_TIMER	= 2,	/* x86 local_timer_entry/exit */
	KTRACE_IRQ_KINDS	= 3,
};

#define KTRACE_FXT_IRQ_WORDS	6

/*
 * One interrupt handler's run: a complete duration event in "ktrace:irq"
 * on @cpu's interrupt pseudo thread, from @start (its entry) to @end (its
 * exit), named after the kind ("irq", "softirq" or "local_timer"), with
 * the irq number ("irq"), the softirq vector ("vec") or the x86 vector
 * ("vector").  Written at the exit, so the records of a CPU come out of
 * time order by a handler's length; a hardirq that interrupts a softirq
 * is written before it.  The archive names it as the ftrace path does.
 */
static inline __u32 ktrace_fxt_put_irq(__u64 *w, __u32 cpu, __u32 kind, __u32 number,
				       __u64 start, __u64 end)
{
	__u16 name = kind == KTRACE_IRQ_SOFTIRQ ? KTRACE_FXT_STR_SOFTIRQ :
		     kind == KTRACE_IRQ_LOCAL_TIMER ? KTRACE_FXT_STR_LOCAL_TIMER :
		     KTRACE_FXT_STR_IRQ;
	__u16 arg = kind == KTRACE_IRQ_SOFTIRQ ? KTRACE_FXT_STR_VEC :
		    kind == KTRACE_IRQ_LOCAL_TIMER ? KTRACE_FXT_STR_VECTOR : KTRACE_FXT_STR_IRQ;
	__u32 n = ktrace_fxt_event_head(w, start, 0, KTRACE_FXT_IRQ_PID, KTRACE_FXT_IRQ_TID(cpu),
					KTRACE_FXT_STR_CAT_IRQ, 0, name, 0);

	w[n++] = ktrace_fxt_arg_u32(arg, number);
	return ktrace_fxt_event_finish(w, n, KTRACE_FXT_EV_DURATION_COMPLETE, 1, 0,
				       KTRACE_FXT_STR_CAT_IRQ, name, end);
}

#endif /* _UAPI_LINUX_KTRACE_FXT_H */
