// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduler recorder as BPF programs: the same FXT records as ktrace.ko,
 * through the shared encoders, into lock-free per-CPU buffers (see struct
 * ktrace_bpf_ctl).  tp_btf task pointers are BTF-typed, so task fields are
 * plain loads with CO-RE relocations.
 *
 * Each CPU has a buffer for the scheduler's records and, when -p asks for
 * probes, another for theirs.  Probes fire anywhere, NMIs included, and
 * so reserve space with a compare-and-swap; keeping them out of the
 * scheduler's buffer lets its busiest writers (see reserve()) do without.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include <linux/ktrace_fxt.h>

#include "sched.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Set before load: chunks in each buffer (a power of two), CPUs, and ring
 * mode (a flight recorder: writers overwrite the oldest chunks instead of
 * dropping; nothing is read until the end).
 */
const volatile __u32 nchunks = 1;
const volatile __u32 nr_cpus = 1;
const volatile bool ring = false;

/*
 * The latency trigger (ring mode): a wakeup latency of at least trigger_ns,
 * of a thread whose tid or tgid is trigger_pid (0: any) and whose name is
 * trigger_comm (empty: any), stops the recording after_ns later.
 */
const volatile __u64 trigger_ns = 0;
const volatile __u64 after_ns = 0;
const volatile __u32 trigger_pid = 0;
const volatile char trigger_comm[16] = {};
/* Only real-time (and deadline) threads' waits fire it: prio below 100. */
const volatile bool trigger_rt = false;
/*
 * Only threads in this cgroup or below it (KTRACE_TRIGGER_CGROUP_DEPTH
 * levels at most): its kernfs id, in cgroup v2, or with trigger_cgroup_v1
 * in the hierarchy of v1's cpu controller; 0: any.
 */
const volatile __u64 trigger_cgroup = 0;
const volatile bool trigger_cgroup_v1 = false;
/* A preemption's wait (switched out running, to its switch-in) fires it too. */
const volatile bool trigger_preempted = false;

struct ktrace_bpf_trigger trigger = {};

struct ktrace_bpf_span span = {};

/* Whether a record of time @ts lies in the recording's span (struct ktrace_bpf_span). */
static __always_inline bool in_span(__u64 ts)
{
	__u64 start = *(volatile __u64 *)&span.start, stop = *(volatile __u64 *)&span.stop;

	return start && ts >= start && (!stop || ts <= stop);
}

/*
 * Where threads block (see KTRACE_KSTACK_MIN_OFF_NS): at the switch-in
 * that ends a block in S or D of at least blocked_min_ns, the incoming
 * task's kernel stack, at most stack_depth frames (0: not recorded),
 * interned in kstack_ids by its frames.  The ids are handed out from
 * kstack_next, 1 up; a stack that finds the table full gets 0 and is
 * counted in kstack_full.  User space sets the key size to stack_depth
 * words and the table's size before load, and reads the table at the end.
 */
const volatile __u32 stack_depth = 0;
const volatile __u64 blocked_min_ns = 0;

__u32 kstack_next = 0;
__u64 kstack_full = 0;

struct kstack {
	__u64 ip[KTRACE_KSTACK_MAX_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kstack);
} kstack_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* set by user space */
	/* Resized to stack_depth words: sizes, not BTF types, which would not match. */
	__uint(key_size, sizeof(struct kstack));
	__uint(value_size, sizeof(__u32));
} kstack_ids SEC(".maps");

/* Each watched thread's latest wakeup (see ktrace_wake_slot()). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* KTRACE_WAKE_SLOTS when armed */
	__type(key, __u32);
	__type(value, __u64);
} wake_slots SEC(".maps");

/*
 * What the programs keep per thread, in one table indexed by pid (the
 * three tables of the module, all of 2^16 words, in one here: a switch
 * looks up two entries, not six, and loads two cache lines, not six).
 */
struct thread_slot {
	__u64 block;		/* between a block and its wakeup (ktrace_block_slot()) */
	__u64 affinity;		/* allowed CPUs last written (ktrace_affinity_slot()) */
	__u64 off;		/* last switch-out, when stacks are recorded (ktrace_off_slot()) */
	__u64 pad;
};

_Static_assert(KTRACE_BLOCK_SLOTS == KTRACE_AFFINITY_SLOTS &&
	       KTRACE_BLOCK_SLOTS == KTRACE_WAKE_SLOTS, "one pid index for the thread slots");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KTRACE_BLOCK_SLOTS);
	__type(key, __u32);
	__type(value, struct thread_slot);
} thread_slots SEC(".maps");

/* @pid's entry. */
static __always_inline struct thread_slot *thread_slot(__u32 pid)
{
	__u32 key = pid & (KTRACE_BLOCK_SLOTS - 1);

	return bpf_map_lookup_elem(&thread_slots, &key);
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);		/* set to the number of buffers */
	__type(key, __u32);
	__type(value, struct ktrace_bpf_ctl);
} ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);		/* set to buffers * nchunks */
	__type(key, __u32);
	__type(value, struct ktrace_bpf_chunk);
} data SEC(".maps");

#define CHUNK_BYTES	(KTRACE_BPF_CHUNK_WORDS * 8)
#define CHUNK_MASK	(KTRACE_BPF_CHUNK_WORDS - 1)

static __always_inline struct ktrace_bpf_chunk *chunk_of(__u32 buf, __u64 word)
{
	__u32 idx = buf * nchunks + ((word / KTRACE_BPF_CHUNK_WORDS) & (nchunks - 1));

	return bpf_map_lookup_elem(&data, &idx);
}

/*
 * Makes @v the word at @p for the reader, after every store before it.
 * x86 keeps stores in order, so a compiler barrier is enough there.
 */
static __always_inline void publish_word(__u64 *p, __u64 v)
{
#ifdef __TARGET_ARCH_x86
	asm volatile("" ::: "memory");
	*(volatile __u64 *)p = v;
#else
	__atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
#endif
}

/*
 * Reserves @words at the head of buffer @buf; returns the word position, or
 * -1 if full (never in ring mode: the oldest chunks are written over).
 * The record starts a new chunk unless @room words fit in this one (@room
 * >= @words: a writer in place needs its largest record's room, see
 * emit_begin()).
 * @alone: no other writer of this buffer can run on this CPU until the
 * caller is done, so a plain store of the new head will do.
 * That holds for sched_switch, sched_waking of another task and
 * sched_wakeup_new, which run with interrupts off, while no other
 * scheduler event fires in NMI context.  Everyone else uses a
 * compare-and-swap, which a writer interrupting it makes fail and retry.
 */
static __always_inline __s64 reserve_room(__u32 buf, struct ktrace_bpf_ctl *c, __u32 words,
					  __u32 room, bool alone)
{
	__u64 bytes = words * 8, total = (__u64)nchunks * CHUNK_BYTES;

	for (int i = 0; i < 4; i++) {
		__u64 head = *(volatile __u64 *)&c->head;
		__u64 tail = *(volatile __u64 *)&c->tail;
		__u64 off = head & (CHUNK_BYTES - 1), start, end;
		struct ktrace_bpf_chunk *ch;

		start = off + room * 8 > CHUNK_BYTES ? head - off + CHUNK_BYTES : head;
		end = start + bytes;
		if (!ring && end - tail > total)
			return -1;
		if (alone)
			c->head = end;
		else if (__sync_val_compare_and_swap(&c->head, head, end) != head)
			continue;
		if (start != head) {
			/* Close the chunk: the reader skips to the next one. */
			ch = chunk_of(buf, head / 8);
			if (ch)
				publish_word(&ch->w[(head / 8) & CHUNK_MASK], KTRACE_BPF_PAD);
		}
		return start / 8;
	}
	return -1;
}

static __always_inline __s64 reserve(__u32 buf, struct ktrace_bpf_ctl *c, __u32 words,
				     bool alone)
{
	return reserve_room(buf, c, words, words, alone);
}

/*
 * Writes the body, then publishes the record with its header word; @max
 * bounds @words for the verifier (a constant: KTRACE_BPF_MAX_WORDS, or
 * KTRACE_BPF_WIDE_MAX_WORDS from the functions that write wide masks).
 */
static __always_inline void publish(__u32 buf, __u64 pos, const __u64 *rec, __u32 words,
				    __u32 max)
{
	struct ktrace_bpf_chunk *ch = chunk_of(buf, pos);
	__u32 off = pos & CHUNK_MASK;

	if (!ch)
		return;
	for (__u32 i = 1; i < max; i++) {
		if (i >= words)
			break;
		ch->w[(off + i) & CHUNK_MASK] = rec[i];
	}
	publish_word(&ch->w[off], rec[0]);
}

static __always_inline void count_loss(struct ktrace_bpf_ctl *c, __u64 ts)
{
	if (__sync_fetch_and_add(&c->pending, 1) == 0)
		c->first_ts = ts;
	c->last_ts = ts;
}

/*
 * Buffer @buf's control block if a record of time @ts is to be written
 * there, after the loss record owed, if any.  A record that does not fit
 * is counted; the next one that fits is preceded by a loss record with the
 * count and time range, so a viewer shows where data is missing.
 */
static __always_inline struct ktrace_bpf_ctl *emit_ctl(__u32 buf, __u32 cpu, __u64 ts,
							bool alone)
{
	struct ktrace_bpf_ctl *c = bpf_map_lookup_elem(&ctl, &buf);
	__u64 loss[KTRACE_FXT_DROP_WORDS], n, stop;
	__s64 pos;

	if (!c || !in_span(ts))
		return NULL;
	/* After a latency trigger's window: the recording is over, nothing is lost. */
	if (trigger_ns) {
		stop = *(volatile __u64 *)&trigger.stop_at;
		if (stop && ts > stop)
			return NULL;
	}
	if (c->pending) {
		n = __sync_lock_test_and_set(&c->pending, 0);
		if (n) {
			pos = reserve(buf, c, KTRACE_FXT_DROP_WORDS, alone);
			if (pos < 0) {
				__sync_fetch_and_add(&c->pending, n);
				count_loss(c, ts);
				return NULL;
			}
			ktrace_fxt_put_drop(loss, ts, cpu, n, c->first_ts, c->last_ts);
			publish(buf, pos, loss, KTRACE_FXT_DROP_WORDS, KTRACE_FXT_DROP_WORDS);
			__sync_fetch_and_add(&c->reported, n);
		}
	}
	return c;
}

/*
 * Writes one record, built in @rec, into buffer @buf of this CPU, @cpu; @max
 * as for publish().
 */
static __always_inline bool emit_to_max(__u32 buf, __u32 cpu, const __u64 *rec, __u32 words,
					__u64 ts, bool alone, __u32 max)
{
	struct ktrace_bpf_ctl *c = emit_ctl(buf, cpu, ts, alone);
	__s64 pos;

	if (!c)
		return false;
	pos = reserve(buf, c, words, alone);
	if (pos < 0) {
		count_loss(c, ts);
		return false;
	}
	publish(buf, pos, rec, words, max);
	return true;
}

static __always_inline bool emit_to(__u32 buf, __u32 cpu, const __u64 *rec, __u32 words,
				    __u64 ts, bool alone)
{
	return emit_to_max(buf, cpu, rec, words, ts, alone, KTRACE_BPF_MAX_WORDS);
}

/*
 * Reserves @words in buffer @buf of this CPU, @cpu, and returns where the
 * record goes in its chunk, or NULL: the caller writes its words there but
 * the header, then publishes it with publish_word() on the first word.
 * No copy from the stack.  @room, a constant, is the largest record of the
 * caller's kind: reserve_room() starts a new chunk where it would not fit,
 * so that the verifier sees every word the caller may write inside it.
 */
static __always_inline __u64 *emit_begin(__u32 buf, __u32 cpu, __u32 words, const __u32 room,
					 __u64 ts, bool alone)
{
	struct ktrace_bpf_ctl *c = emit_ctl(buf, cpu, ts, alone);
	struct ktrace_bpf_chunk *ch;
	__u32 off;
	__s64 pos;

	if (!c)
		return NULL;
	pos = reserve_room(buf, c, words, room, alone);
	if (pos < 0) {
		count_loss(c, ts);
		return NULL;
	}
	ch = chunk_of(buf, pos);
	off = pos & CHUNK_MASK;
	/* Never true (see reserve_room()); it bounds @off for the verifier. */
	if (!ch || off > KTRACE_BPF_CHUNK_WORDS - room)
		return NULL;
	return &ch->w[off];
}

/*
 * A record for emit_rec(): the largest size, zeroed by rec_clear() (the
 * verifier checks that the whole of it is initialised) only once the
 * program knows it writes one, so a timer that is no sleeper's costs no
 * zeroing.
 */
struct bpf_rec {
	__u64 w[KTRACE_BPF_MAX_WORDS];
};

static __always_inline __u64 *rec_clear(struct bpf_rec *rec)
{
	__builtin_memset(rec, 0, sizeof(*rec));
	return rec->w;
}

/*
 * emit_to() as a global function, which the verifier checks once, not at
 * each call: every record but the context switch and the wakeup (whose
 * programs inline emit_to() for speed) goes through here.  Inlined at
 * every call in every program (the names alone in four), with the name
 * records' sixteen name lengths each a path of its own, it made the
 * verifier walk some 370,000 instructions on 6.18: seconds of a
 * recording's start, minutes under emulation.
 */
__noinline int emit_rec(__u32 buf, struct bpf_rec *rec, __u32 words, __u64 ts, int alone)
{
	/* Buffers 0 to nr_cpus - 1 are the CPUs', then the probes' (one per CPU). */
	__u32 cpu = buf < nr_cpus ? buf : buf - nr_cpus;

	if (!rec || words == 0 || words > KTRACE_BPF_MAX_WORDS)
		return 0;
	return emit_to(buf, cpu, rec->w, words, ts, alone);
}

/* A scheduler record, from a writer that may be interrupted by another; 1 if written. */
static __always_inline int emit(struct bpf_rec *rec, __u32 words, __u64 ts)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return emit_rec(cpu, rec, words, ts, false);
}

/* Length of a task name (at most TASK_COMM_LEN - 1). */
static __always_inline __u32 comm_len(const char *comm)
{
	__u32 i;

	for (i = 0; i < KTRACE_FXT_COMM_LEN; i++)
		if (!comm[i])
			break;
	return i;
}

/*
 * @p's allowed CPUs 0..63 if it may not run on every CPU, else 0: plain
 * loads through the BTF-typed pointer (a bpf_probe_read_kernel() pair
 * cost 85 ns more per wakeup of a pinned thread).
 */
/* Whether the records give masks of more than one word: more than 64 possible CPUs. */
static __always_inline bool wide_masks(void)
{
	return nr_cpus > 64;
}

static __always_inline bool cpus_restricted(struct task_struct *p)
{
	return p->nr_cpus_allowed < nr_cpus;
}

static __always_inline __u64 restricted_cpus(struct task_struct *p)
{
	if (cpus_restricted(p) && !wide_masks())
		return p->cpus_ptr->bits[0];
	return 0;
}

/*
 * The "affinity" record, out of line: written once per thread and change,
 * it costs the switch and migrate programs a call, not their inlined copy.
 */
__noinline int emit_affinity(__u32 tgid, __u32 pid, __u64 cpus, __u64 ts)
{
	struct bpf_rec rec;

	return emit(&rec, ktrace_fxt_put_affinity(rec_clear(&rec), ts, tgid, pid, cpus), ts);
}

/*
 * A record now in the trace gives @pid's allowed CPUs as @cpus (a wakeup,
 * a thread record; @restricted: it may not run on every CPU, @cpus is its
 * mask folded by ktrace_affinity_fold()): the slot follows it, so that a
 * later change is told against what the trace last said.
 */
static __always_inline void affinity_said_in(struct thread_slot *t, __u32 pid, int restricted,
					     __u64 cpus)
{
	__u64 v = ktrace_affinity_slot(pid, restricted, cpus);

	if (pid && t && t->affinity != v)
		t->affinity = v;
}

static __always_inline void affinity_said(__u32 pid, int restricted, __u64 cpus)
{
	affinity_said_in(thread_slot(pid), pid, restricted, cpus);
}

/*
 * Masks above CPU 63 (a machine of more than 64 possible CPUs): the mask
 * is copied from the task, by the program that has it, into a per-CPU
 * scratch area with the rest of what the record needs, and a function of
 * its own, which the verifier checks once, builds the record there and
 * writes it.  One area per context that can be interrupted by another
 * writer of wide masks: WIDE_IRQS_OFF (switch, migrate, a wakeup of
 * another task: interrupts are off, and no scheduler event fires in NMI
 * context), WIDE_TASK and WIDE_SOFTIRQ (a task's names, a task waking
 * itself, with interrupts on).
 */
enum { WIDE_IRQS_OFF, WIDE_TASK, WIDE_SOFTIRQ, WIDE_AREAS };

/*
 * Only bench/bench-sched.sh's build of the recorder sets this: its
 * switches and moves skip note_affinity(), so that the check's cost can be
 * measured against this build's.
 */
#ifndef KTRACE_BENCH_NO_AFFINITY
#define KTRACE_BENCH_NO_AFFINITY	0
#endif

struct ktrace_bpf_wide {
	__u64 mask[KTRACE_FXT_CPUS_MAX_WORDS];	/* the first mask_words() */
	__u64 rec[KTRACE_BPF_WIDE_MAX_WORDS];
	char name[KTRACE_FXT_COMM_LEN + 1];
	__u64 cgroup_id;
	__u32 pid, tgid, waker, irq_ctx, wcpu;
	int prio;
	bool restricted;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WIDE_AREAS);
	__type(key, __u32);
	__type(value, struct ktrace_bpf_wide);
} wide_areas SEC(".maps");

/* Words of an allowed-CPU mask. */
static __always_inline __u32 mask_words(void)
{
	return (nr_cpus + 63) / 64;
}

/*
 * Area @area with @p's ids and whether it may not run on every CPU, and
 * then its mask, copied (at most KTRACE_FXT_CPUS_MAX_WORDS words); NULL
 * if the mask cannot be read.
 */
static __always_inline struct ktrace_bpf_wide *wide_area(__u32 area, struct task_struct *p)
{
	__u32 bytes = mask_words() * 8;
	struct ktrace_bpf_wide *x = bpf_map_lookup_elem(&wide_areas, &area);

	if (!x)
		return NULL;
	x->pid = p->pid;
	x->tgid = p->tgid;
	x->restricted = p->nr_cpus_allowed < nr_cpus;
	if (!x->restricted)
		return x;
	if (bytes > sizeof(x->mask))
		bytes = sizeof(x->mask);
	if (bpf_probe_read_kernel(x->mask, bytes, p->cpus_ptr->bits))
		return NULL;
	return x;
}

/* Area @area's mask folded, 0 if its task may run on every CPU (ktrace_affinity_fold()). */
static __always_inline __u64 wide_fold(struct ktrace_bpf_wide *x)
{
	return x->restricted ? ktrace_affinity_fold(x->mask, mask_words()) : 0;
}

/* The wakeup of area @area's task, one that may not run on every CPU: its slot follows. */
__noinline int emit_wakeup_wide(__u32 area, __u32 cpu, __u64 ts, int alone)
{
	struct ktrace_bpf_wide *x = bpf_map_lookup_elem(&wide_areas, &area);
	__u32 words;

	if (!x || !x->restricted)
		return 0;
	words = ktrace_fxt_put_wakeup_wide(x->rec, x->wcpu, ts, x->pid, x->prio, x->waker,
					   x->irq_ctx, x->mask, mask_words());
	if (!emit_to_max(cpu, cpu, x->rec, words, ts, alone, KTRACE_BPF_WIDE_MAX_WORDS))
		return 0;
	affinity_said(x->pid, 1, wide_fold(x));
	return 1;
}

/* Area @area's task was switched out or moved: its "affinity" record if it changed. */
__noinline int note_affinity_wide(__u32 area, __u64 ts)
{
	struct ktrace_bpf_wide *x = bpf_map_lookup_elem(&wide_areas, &area);
	__u32 cpu = bpf_get_smp_processor_id(), words;
	struct thread_slot *t;
	__u64 v;

	if (!x || !x->pid)
		return 0;
	v = ktrace_affinity_slot(x->pid, x->restricted, wide_fold(x));
	t = thread_slot(x->pid);
	if (!t || t->affinity == v)
		return 0;
	words = ktrace_fxt_put_affinity_wide(x->rec, ts, x->tgid, x->pid,
					     x->restricted ? x->mask : NULL, mask_words());
	/* Only once written: a record lost, or before the span, is tried again. */
	if (!emit_to_max(cpu, cpu, x->rec, words, ts, false, KTRACE_BPF_WIDE_MAX_WORDS))
		return 0;
	t->affinity = v;
	return 1;
}

/*
 * The thread record of area @area's task, one that may not run on every
 * CPU, named by its name: its slot follows.
 */
__noinline int emit_thread_wide(__u32 area, __u64 ts)
{
	struct ktrace_bpf_wide *x = bpf_map_lookup_elem(&wide_areas, &area);
	__u32 cpu = bpf_get_smp_processor_id(), words, len;

	if (!x || !x->restricted)
		return 0;
	len = comm_len(x->name);
	words = ktrace_fxt_put_kobj_thread_wide(x->rec, x->pid, x->tgid, x->name, len, x->mask,
						mask_words(), x->cgroup_id);
	if (!emit_to_max(cpu, cpu, x->rec, words, ts, false, KTRACE_BPF_WIDE_MAX_WORDS))
		return 0;
	affinity_said(x->pid, 1, wide_fold(x));
	return 1;
}

/*
 * @p is switched out or moved: if its allowed CPUs are not those last
 * written for it, write them.  sched_setaffinity() on a running thread (a
 * thread pinning itself), a cpuset change and a hotplug move change them
 * with no wakeup to carry them; a switch-out or a move is before any wait
 * that they bear on.  Never called for one task on two CPUs at once: a
 * task is moved only once off its CPU, and switched out only on it.
 */
static __always_inline void note_affinity(struct task_struct *p, struct thread_slot *t, __u64 ts)
{
	__u32 pid = p->pid;
	__u64 cpus, v;

	if (KTRACE_BENCH_NO_AFFINITY)
		return;
	if (wide_masks()) {
		if (pid && wide_area(WIDE_IRQS_OFF, p))
			note_affinity_wide(WIDE_IRQS_OFF, ts);
		return;
	}
	cpus = restricted_cpus(p);
	v = ktrace_affinity_slot(pid, cpus != 0, cpus);
	if (!pid || !t || t->affinity == v)
		return;
	/* Only once written: a record lost, or before the span, is tried again. */
	if (emit_affinity(p->tgid, pid, cpus, ts))
		t->affinity = v;
}

/*
 * @p's cgroup v2 id: the kernfs node id of its default-hierarchy cgroup,
 * which is the cgroup directory's inode number (the root's is 1).  The id
 * has been a u64 since Linux 5.5 (a union of ino and generation before);
 * this program needs 5.12 or later.  Read at fork, exec, rename and exit
 * only, never on a switch or a wakeup, by plain loads through the
 * BTF-typed pointers, as restricted_cpus() reads (not a chain of
 * bpf_probe_read_kernel() calls).
 */
static __always_inline __u64 task_cgroup_id(struct task_struct *p)
{
	return p->cgroups->dfl_cgrp->kn->id;
}

/*
 * @p's thread record, and its process record if it leads one, named @comm
 * (kernel memory).  The name is copied to the stack first, by a helper.
 * Read in place, clang unrolls the copy into byte loads at negative offsets
 * from a pointer into the task; Linux 6.1's x86 JIT (its PROBE_MEM check,
 * "add r11, off" then "jnc") takes any such load for a faulting one and
 * gives 0, which zeroed the first three bytes of every name.
 */
static __always_inline void emit_names(struct task_struct *p, const char *comm, __u64 ts,
				       __u32 area)
{
	struct bpf_rec rec;
	__u32 pid = p->pid, tgid = p->tgid, len;
	char name[KTRACE_FXT_COMM_LEN + 1] = {};
	__u64 cgroup_id = task_cgroup_id(p), cpus = restricted_cpus(p);
	struct ktrace_bpf_wide *x;

	bpf_probe_read_kernel_str(name, sizeof(name), comm);
	len = comm_len(name);
	/* A mask above CPU 63 out of line; a task freed meanwhile as any other. */
	x = wide_masks() && cpus_restricted(p) ? wide_area(area, p) : NULL;
	if (x && x->restricted) {
		__builtin_memcpy(x->name, name, sizeof(name));
		x->cgroup_id = cgroup_id;
		emit_thread_wide(area, ts);
	} else if (emit(&rec, ktrace_fxt_put_kobj_thread(rec_clear(&rec), pid, tgid, name, len,
							 cpus, cgroup_id), ts)) {
		affinity_said(pid, cpus != 0, cpus);
	}
	if (pid == tgid)
		emit(&rec, ktrace_fxt_put_kobj_process(rec.w, tgid, name, len, cgroup_id), ts);
}

/* Whether @p is in trigger_cgroup or below it (see there). */
static __always_inline bool task_in_trigger_cgroup(struct task_struct *p)
{
	struct cgroup *cgrp;

	if (trigger_cgroup_v1) {
		if (!bpf_core_enum_value_exists(enum cgroup_subsys_id, cpu_cgrp_id))
			return false;
		cgrp = p->cgroups->subsys[bpf_core_enum_value(enum cgroup_subsys_id,
							      cpu_cgrp_id)]->cgroup;
	} else {
		cgrp = p->cgroups->dfl_cgrp;
	}
	for (int level = 0; level <= KTRACE_TRIGGER_CGROUP_DEPTH && cgrp; level++) {
		struct cgroup_subsys_state *parent;

		if (cgrp->kn->id == trigger_cgroup)
			return true;
		parent = cgrp->self.parent;
		if (!parent)
			break;
		cgrp = parent->cgroup;
	}
	return false;
}

/* Whether the latency trigger watches @p (its --pid, --rt, --comm and --cgroup). */
static __always_inline bool trigger_watches(struct task_struct *p)
{
	if (trigger_pid && p->pid != trigger_pid && p->tgid != trigger_pid)
		return false;
	if (trigger_rt && p->prio >= 100)
		return false;
	/* No --comm: any name (the loop would take an empty name for one to match). */
	for (int i = 0; i < 16 && trigger_comm[0]; i++) {
		if (p->comm[i] != trigger_comm[i])
			return false;
		if (!trigger_comm[i])
			break;
	}
	return !trigger_cgroup || task_in_trigger_cgroup(p);
}

static __always_inline void trigger_note_wakeup(struct task_struct *p, __u64 ts)
{
	__u32 key = p->pid & (KTRACE_WAKE_SLOTS - 1);
	__u64 *slot;

	if (!p->pid || !trigger_watches(p))
		return;
	slot = bpf_map_lookup_elem(&wake_slots, &key);
	if (slot)
		*(volatile __u64 *)slot = ktrace_wake_slot(p->pid, ts);
}

/*
 * @prev is preempted at @ts: a wakeup noted for it came as it was about to
 * sleep and set it running again (sched_waking fires only for a task that
 * is not running), so it starts no wait, as ktrace latency counts them: the
 * next switch-in ends a preemption, which with trigger_preempted is a wait
 * of its own, from now.  (Switched out asleep instead, the wakeup raced its
 * switch-out, and its wait starts there.)
 */
static __always_inline void trigger_preempt(struct task_struct *prev, __u64 ts)
{
	__u32 pid = prev->pid, key = pid & (KTRACE_WAKE_SLOTS - 1);
	__u64 *slot, v;

	slot = bpf_map_lookup_elem(&wake_slots, &key);
	if (!pid || !slot)
		return;
	if (trigger_preempted && trigger_watches(prev)) {
		*(volatile __u64 *)slot = ktrace_wake_slot(pid, ts);
		return;
	}
	v = *(volatile __u64 *)slot;
	if (v >> KTRACE_WAKE_TS_BITS == pid)
		__sync_val_compare_and_swap(slot, v, 0);
}

/*
 * @next is switched in at @ts on @cpu: if it waited since a wakeup for the
 * trigger's latency, the first such wait anywhere fires the trigger, is
 * marked in the trace, and sets when recording stops.
 */
static __always_inline void trigger_check(struct task_struct *next, __u64 ts, __u32 cpu)
{
	__u32 pid = next->pid, key = pid & (KTRACE_WAKE_SLOTS - 1);
	struct bpf_rec rec;
	__u64 *slot, v, lat;

	slot = bpf_map_lookup_elem(&wake_slots, &key);
	if (!pid || !slot)
		return;
	v = *(volatile __u64 *)slot;
	if (v >> KTRACE_WAKE_TS_BITS != pid)
		return;
	/* One wait per wakeup or preemption: a later switch-in is not one. */
	if (__sync_val_compare_and_swap(slot, v, 0) != v)
		return;
	lat = ktrace_wake_latency(v, pid, ts);
	if (lat < trigger_ns || ts - lat < *(volatile __u64 *)&trigger.armed_at ||
	    !trigger_watches(next) || __sync_val_compare_and_swap(&trigger.fired, 0, 1))
		return;
	trigger.ts = ts;
	trigger.latency = lat;
	trigger.tid = pid;
	trigger.cpu = cpu;
	emit_rec(cpu, &rec, ktrace_fxt_put_trigger(rec_clear(&rec), ts, next->tgid, pid, lat,
						   ts - lat, cpu), ts, true);
	__sync_lock_test_and_set(&trigger.stop_at, ts + after_ns);
}

/*
 * The interned id of @p's kernel stack, or 0.  @p is sched_switch's next:
 * not running anywhere (its on_cpu is set after the tracepoint, by
 * prepare_task()), so its stack is the one it switched out with, and
 * stays put while the run queue's lock is held.  bpf_get_task_stack()
 * pins the stack with try_get_task_stack() and walks it with
 * stack_trace_save_tsk(), which leaves out the scheduler's own frames
 * (.sched.text); neither takes a lock, PREEMPT_RT included.  Bounded: one
 * walk of at most stack_depth frames, one lookup, and on a first
 * sighting one insert.
 */
static __always_inline __u32 kstack_id(struct task_struct *p)
{
	__u32 zero = 0, id, *found;
	struct kstack *st = bpf_map_lookup_elem(&kstack_scratch, &zero);
	__u32 size = stack_depth * 8;

	if (!st || size > sizeof(st->ip))
		return 0;
	/*
	 * Frames past the stack's end are part of the key: the helper
	 * zeroes the rest of @size itself (kernel/bpf/stackmap.c, since it
	 * was added), so the scratch area is not cleared here first.
	 */
	if (bpf_get_task_stack(p, st->ip, size, 0) <= 0)
		return 0;
	found = bpf_map_lookup_elem(&kstack_ids, st);
	if (found)
		return *found;
	id = __sync_fetch_and_add(&kstack_next, 1) + 1;
	if (bpf_map_update_elem(&kstack_ids, st, &id, BPF_NOEXIST)) {
		/* Another CPU inserted it first, or the table is full. */
		found = bpf_map_lookup_elem(&kstack_ids, st);
		if (found)
			return *found;
		__sync_fetch_and_add(&kstack_full, 1);
		return 0;
	}
	return id;
}

/*
 * Notes when @prev left the CPU and how, and returns the stack @next
 * blocked with if it was off the CPU for blocked_min_ns or more, else 0.
 * A thread's switch-out and its next switch-in never run at once, so
 * plain stores do; two threads that share a slot only cost a walk.
 */
static __always_inline __u32 blocked_kstack(struct task_struct *prev, struct thread_slot *pt,
					    __u32 state, struct task_struct *next,
					    struct thread_slot *nt, __u64 ts)
{
	if (pt && prev->pid)
		pt->off = ktrace_off_slot(prev->pid, ts, state);
	if (!nt || !next->pid || !ktrace_off_long(nt->off, next->pid, ts, blocked_min_ns))
		return 0;
	return kstack_id(next);
}

/*
 * CFS bandwidth throttling.  No tracepoint covers it, so the switch-out
 * that shows it is recognised.  In the task-based throttle model (Linux
 * 6.18) a throttled task leaves the CPU, runnable, on its way back to user
 * space, marked throttled; the others of its cgroup there still run until
 * they get there, so only that task waits for the refill.  Before, a
 * throttled cfs_rq is dequeued whole as its running task leaves, whether
 * that task sleeps or stays runnable, and every task queued on it waits;
 * each cfs_rq counts in throttle_count the throttled ones at or above it.
 */
struct task_struct___throttle {
	bool throttled;
} __attribute__((preserve_access_index));

static __always_inline bool throttled_out(struct task_struct *prev)
{
	struct task_struct___throttle *t = (void *)prev;
	struct cfs_rq *cfs_rq;

	if (bpf_core_field_exists(t->throttled))
		return t->throttled;
	if (!bpf_core_field_exists(struct cfs_rq, throttle_count))
		return false;	/* no CFS bandwidth control */
	cfs_rq = prev->se.cfs_rq;
	return cfs_rq && cfs_rq->throttle_count > 0;
}

#define THROTTLE_DEPTH	16	/* cgroup levels searched for the throttled one */

/*
 * The cgroup id of the lowest throttled cfs_rq above @p, 0 if none.  Each
 * cfs_rq counts in throttle_count the throttled ones at or above it, so
 * the lowest throttled one counts more than its parent.  (Its "throttled"
 * flag became a bit field in 6.18, which CO-RE cannot read here.)  Each
 * group's entity on this CPU leads to its parent group's cfs_rq.
 */
static __always_inline __u64 throttled_cgroup(struct task_struct *p)
{
	struct sched_entity *se = &p->se, *parent;
	struct cfs_rq *cfs_rq = BPF_CORE_READ(se, cfs_rq), *up;

	for (int i = 0; i < THROTTLE_DEPTH && cfs_rq; i++) {
		int count = BPF_CORE_READ(cfs_rq, throttle_count);

		if (count <= 0)
			return 0;
		parent = BPF_CORE_READ(se, parent);
		up = parent ? BPF_CORE_READ(parent, cfs_rq) : NULL;
		if (!up || BPF_CORE_READ(up, throttle_count) < count)
			return BPF_CORE_READ(cfs_rq, tg, css.cgroup, kn, id);
		se = parent;
		cfs_rq = up;
	}
	return 0;
}

static __always_inline void record_throttle(struct task_struct *prev, __u32 cpu, __u64 ts)
{
	struct bpf_rec rec;
	__u64 id = throttled_cgroup(prev);

	if (id)
		emit_rec(cpu, &rec, ktrace_fxt_put_throttle(rec_clear(&rec), ts, prev->tgid,
							    prev->pid, cpu, id), ts, true);
}

/* Before 5.14 the task's state was a long named state. */
struct task_struct___state_long {
	long state;
} __attribute__((preserve_access_index));

#define TASK_WAKING	0x0200	/* the same from 4.14 to 7.x */

/*
 * How a try_to_wake_up() of @p is under way, if it is (KTRACE_WAKING_*):
 * it holds @p's pi_lock (a queued spin lock, locked or waited for while
 * its word is not 0), or it has set TASK_WAKING.
 */
static __always_inline int wakeup_in_flight(struct task_struct *p)
{
	struct task_struct___state_long *old = (void *)p;
	long state;

	if (p->pi_lock.raw_lock.val.counter)
		return KTRACE_WAKING_HELD;
	if (bpf_core_field_exists(p->__state))
		state = p->__state;
	else
		state = BPF_CORE_READ(old, state);
	return state == TASK_WAKING ? KTRACE_WAKING_QUEUED : KTRACE_WAKING_NONE;
}

/*
 * @next is switched in at @ts: if it blocked and no sched_waking of it
 * fired since, the trace says so, before the switch (kmod/probes_sched.c,
 * block_check()).
 */
static __always_inline void block_check(struct task_struct *next, struct thread_slot *t,
					__u32 cpu, __u64 ts)
{
	__u32 pid = next->pid;
	struct bpf_rec rec;
	__u64 v, nv;
	int untraced;

	if (!t)
		return;
	v = *(volatile __u64 *)&t->block;
	nv = ktrace_block_on_switch_in(v, pid, &untraced);
	if (nv == v)
		return;
	*(volatile __u64 *)&t->block = nv;
	if (untraced)
		emit_rec(cpu, &rec, ktrace_fxt_put_untraced_wakeup(rec_clear(&rec), ts, next->tgid,
								   pid), ts, true);
}

/* From 6.12: a fair thread that blocks owing CPU time stays queued, its dequeue delayed. */
struct sched_entity___delayed {
	unsigned char sched_delayed;
} __attribute__((preserve_access_index));

/*
 * Whether @p, switched out, is still on its run queue to run: it found a
 * signal pending as it went to sleep, and a kernel such as 6.1 still hands
 * sched_switch the state it meant to sleep in (kmod/compat/sched.h).
 */
static __always_inline bool task_queued(struct task_struct *t)
{
	struct sched_entity___delayed *se = (void *)&t->se;

	/* on_rq is an int before 7.x, a u8 since (as on_cpu): read at the kernel's size. */
	if (!BPF_CORE_READ_BITFIELD(t, on_rq))
		return false;
	return !bpf_core_field_exists(se->sched_delayed) || !se->sched_delayed;
}

/* Whether @t waits on a run queue, not on a CPU. */
static __always_inline bool queued_off_cpu(struct task_struct *t)
{
	/* on_cpu is an int before 7.x, a u8 since: read at the kernel's size. */
	return !BPF_CORE_READ_BITFIELD(t, on_cpu) && task_queued(t);
}

/*
 * The wakeup of @p at @ts, by @waker_tid on @wcpu in interrupt context
 * @irq_ctx (@wcpu is this CPU but for a wakeup written again at a block),
 * into this CPU's buffer; @alone as for reserve_room(); @t: @p's entry.
 */
static __always_inline void put_wakeup(struct task_struct *p, struct thread_slot *t,
				       __u32 waker_tid, __u32 wcpu, __u32 irq_ctx, __u64 ts,
				       bool alone)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 cpus = restricted_cpus(p), *w;
	struct ktrace_bpf_wide *x = NULL;
	__u32 area = WIDE_IRQS_OFF;

	/* A mask above CPU 63 out of line; a task freed meanwhile as any other. */
	if (wide_masks() && cpus_restricted(p)) {
		area = alone || irq_ctx == KTRACE_CTX_HARDIRQ ? WIDE_IRQS_OFF :
		       irq_ctx == KTRACE_CTX_SOFTIRQ ? WIDE_SOFTIRQ : WIDE_TASK;
		x = wide_area(area, p);
	}
	if (x && x->restricted) {
		x->prio = p->prio;
		x->waker = waker_tid;
		x->irq_ctx = irq_ctx;
		x->wcpu = wcpu;
		emit_wakeup_wide(area, cpu, ts, alone);
	} else {
		w = emit_begin(cpu, cpu, ktrace_fxt_wakeup_words(irq_ctx, cpus),
			       KTRACE_FXT_WAKEUP_MAX_WORDS, ts, alone);
		if (w) {
			ktrace_fxt_put_wakeup_body(w, ts, p->pid, p->prio, waker_tid, irq_ctx,
						   cpus);
			publish_word(w, ktrace_fxt_wakeup_record_hdr(wcpu, irq_ctx, cpus));
			affinity_said_in(t, p->pid, cpus != 0, cpus);
		}
	}
	/*
	 * A wakeup the trace does not have starts no wait the trigger counts;
	 * nor does one of a thread preempted in its sleeping state, still
	 * queued: its wait began at its preemption (trigger_preempt()).
	 */
	if (trigger_ns && in_span(ts) && !queued_off_cpu(p))
		trigger_note_wakeup(p, ts);
}

/*
 * @prev is switched out blocked: its block slot says so.  Returns how its
 * wakeup is under way (KTRACE_WAKING_*, its slot's word before in *@v) if
 * the wakeup is to be written again, after the switch record (it was woken
 * before it last ran: ktrace_block_on_block()), else KTRACE_WAKING_NONE.
 * As early in the switch as it can be: a sched_waking that stores between
 * its load and store gives an untraced_wakeup record too many, and the
 * wakers of a thread on its way off store at about the time the switch's
 * program ends.
 */
static __always_inline int block_note(struct task_struct *prev, struct thread_slot *t, __u64 *v)
{
	__u32 pid = prev->pid;
	int late, in_flight = KTRACE_WAKING_NONE;

	if (!t)
		return KTRACE_WAKING_NONE;
	*v = *(volatile __u64 *)&t->block;
	if (ktrace_block_woken_runnable(ktrace_block_state(*v, pid)))
		in_flight = wakeup_in_flight(prev);
	*(volatile __u64 *)&t->block = ktrace_block_on_block(*v, pid, in_flight, &late);
	return late ? in_flight : KTRACE_WAKING_NONE;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(ktrace_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u64 ts = bpf_ktime_get_ns(), *w;
	/* Still queued, it did not block, whatever state it had set: R. */
	__u32 state = ktrace_linux_state(preempt || task_queued(prev), prev_state,
					 prev->exit_state);
	__u32 cpu = bpf_get_smp_processor_id();
	struct thread_slot *pt = thread_slot(prev->pid), *nt = thread_slot(next->pid);
	__u32 in_kstack = 0, n;
	__u64 woken = 0;
	int late = KTRACE_WAKING_NONE;

	if (prev->pid && ktrace_linux_state_sleeps(state))
		late = block_note(prev, pt, &woken);
	if (stack_depth)
		in_kstack = blocked_kstack(prev, pt, state, next, nt, ts);
	note_affinity(prev, pt, ts);
	if (next->pid)
		block_check(next, nt, cpu, ts);
	n = ktrace_fxt_cswitch_words(0, in_kstack);
	w = emit_begin(cpu, cpu, n, KTRACE_FXT_CSWITCH_MAX_WORDS, ts, true);
	if (w) {
		ktrace_fxt_put_cswitch_body(w, ts, prev->pid, prev->prio, state, next->pid,
					    next->prio, 0, in_kstack);
		publish_word(w, ktrace_fxt_cswitch_record_hdr(n, cpu, state));
	}
	/* After the switch, which the wakeup follows. */
	if (late) {
		__u32 waker, wcpu, ctx;

		ktrace_block_late_waker(woken, late, next->pid, cpu, &waker, &wcpu, &ctx);
		put_wakeup(prev, pt, waker, wcpu, ctx, ts, true);
	}
	/* Fair class: a load or two more; an RT or idle task's switch costs a compare. */
	if (prev->prio >= 100 && prev->pid && throttled_out(prev))
		record_throttle(prev, cpu, ts);
	/* A task's last switch names it again, after it (kmod/probes_sched.c says why). */
	if (ktrace_linux_state_exits(state))
		emit_names(prev, prev->comm, ts, WIDE_IRQS_OFF);
	if (trigger_ns) {
		if (state == KTRACE_LINUX_RUNNING)
			trigger_preempt(prev, ts);
		trigger_check(next, ts, cpu);
	}
	return 0;
}

/*
 * Whether a wakeup comes from an interrupt.  Built twice: with
 * KTRACE_EXACT_IRQ_CONTEXT, from the per-CPU preempt count, which the
 * verifier finds through kallsyms and libbpf through vmlinux BTF (x86:
 * Linux up to 6.1 and from 6.15); user space loads that build only where
 * both have it, since libbpf would otherwise look in module BTF, which
 * needs CAP_SYS_ADMIN.  Else from the interrupt tracepoints (below).
 */
/*
 * On PREEMPT_RT softirqs run in tasks, and what they serve is counted in
 * the task (softirq_disable_cnt, a field only RT kernels have), not in
 * the per-CPU preempt count: in_serving_softirq() reads it there too.
 */
struct task_struct___rt {
	int softirq_disable_cnt;
} __attribute__((preserve_access_index));

#ifdef KTRACE_EXACT_IRQ_CONTEXT
#ifdef __TARGET_ARCH_arm64
/* arm64 keeps the preempt count in the task's thread_info, not per CPU. */
static __always_inline __u32 current_preempt_count(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return (__u32)t->thread_info.preempt_count;
}
#else
extern const int __preempt_count __ksym;

static __always_inline __u32 current_preempt_count(void)
{
	return *(const int *)bpf_this_cpu_ptr(&__preempt_count);
}
#endif

static __always_inline __u32 irq_context(struct task_struct *cur, __u64 now)
{
	__u32 pc = current_preempt_count();
	struct task_struct___rt *t = (void *)cur;

	if (bpf_core_field_exists(t->softirq_disable_cnt))
		pc |= BPF_CORE_READ(t, softirq_disable_cnt) & KTRACE_PC_SOFTIRQ_OFFSET;
	return ktrace_irq_context(pc);
}
#endif

/*
 * Without the preempt count, the interrupt tracepoints keep a per-CPU
 * count of the hardirqs and softirqs being served: device interrupts, the
 * local timer (hrtimer wakeups), irq_work and every softirq.  Interrupts
 * that none of them mark (other IPIs, NMIs) look like the task they hit.
 * An exit whose entry came before the recording leaves the count at 0.
 */
struct irq_depth {
	__s32 hardirq;
	__s32 softirq;
	__u64 hardirq_since;	/* when the outermost one began */
	__u64 softirq_since;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_depth);
} irq_depth SEC(".maps");

/*
 * User space attaches every exit before any entry, so a count never misses
 * an exit; a count older than any interrupt runs is taken as stale anyway.
 */
#define IRQ_DEPTH_STALE_NS	(50 * 1000 * 1000)

static __always_inline int irq_depth_add(bool hard, int delta)
{
	__u32 zero = 0;
	struct irq_depth *d = bpf_map_lookup_elem(&irq_depth, &zero);
	__s32 *n;

	if (!d)
		return 0;
	n = hard ? &d->hardirq : &d->softirq;
	if (delta > 0 && *n <= 0) {
		*n = 0;
		if (hard)
			d->hardirq_since = bpf_ktime_get_ns();
		else
			d->softirq_since = bpf_ktime_get_ns();
	}
	if (delta > 0 || *n > 0)
		*n += delta;
	return 0;
}

#ifndef KTRACE_EXACT_IRQ_CONTEXT
/*
 * On PREEMPT_RT a task serving softirqs can be preempted in the middle,
 * and the CPU's count then stays raised while others run: there the task's
 * own count says whether the waker serves a softirq, as in the exact build.
 */
static __always_inline __u32 irq_context(struct task_struct *cur, __u64 now)
{
	struct task_struct___rt *t = (void *)cur;
	__u32 zero = 0;
	struct irq_depth *d = bpf_map_lookup_elem(&irq_depth, &zero);

	if (!d)
		return KTRACE_CTX_TASK;
	if (d->hardirq > 0 && now - d->hardirq_since < IRQ_DEPTH_STALE_NS)
		return KTRACE_CTX_HARDIRQ;
	if (bpf_core_field_exists(t->softirq_disable_cnt))
		return BPF_CORE_READ(t, softirq_disable_cnt) & KTRACE_PC_SOFTIRQ_OFFSET ?
		       KTRACE_CTX_SOFTIRQ : KTRACE_CTX_TASK;
	if (d->softirq > 0 && now - d->softirq_since < IRQ_DEPTH_STALE_NS)
		return KTRACE_CTX_SOFTIRQ;
	return KTRACE_CTX_TASK;
}
#endif

/*
 * Interrupt handlers' runs (record_irqs): each entry keeps its time and
 * number per CPU, and the exit writes one record for the whole run
 * (ktrace_fxt_put_irq()).  Hardirqs do not nest (handlers run with
 * interrupts off) but may come inside a softirq, so each has its slot.
 * An exit with no entry (before the recording) writes nothing.
 */
struct irq_starts {
	__u64 hard_since;	/* 0: none open */
	__u64 soft_since;
	__u32 hard_number;
	__u32 hard_kind;
	__u32 soft_vec;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_starts);
} irq_starts SEC(".maps");

/* Set before load: count the interrupt depth (the build without the preempt count). */
const volatile bool irq_depth_on = false;
/* Set before load: write a record per interrupt handler run. */
const volatile bool record_irqs = false;

static __always_inline void irq_begin(bool hard, __u32 kind, __u32 number)
{
	__u32 zero = 0;
	struct irq_starts *st = bpf_map_lookup_elem(&irq_starts, &zero);

	if (!st)
		return;
	if (hard) {
		st->hard_since = bpf_ktime_get_ns();
		st->hard_number = number;
		st->hard_kind = kind;
	} else {
		st->soft_since = bpf_ktime_get_ns();
		st->soft_vec = number;
	}
}

/* Out of line: the verifier checks the record's writing once for all exits. */
__noinline int irq_end(bool hard, __u32 number)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id(), kind;
	struct irq_starts *st = bpf_map_lookup_elem(&irq_starts, &zero);
	__u64 since, ts = bpf_ktime_get_ns();
	struct bpf_rec rec;

	if (!st)
		return 0;
	since = hard ? st->hard_since : st->soft_since;
	kind = hard ? st->hard_kind : KTRACE_IRQ_SOFTIRQ;
	if (hard)
		st->hard_since = 0;
	else
		st->soft_since = 0;
	if (!since || (hard ? st->hard_number : st->soft_vec) != number || ts < since)
		return 0;
	emit(&rec, ktrace_fxt_put_irq(rec_clear(&rec), cpu, kind, number, since, ts), since);
	return 0;
}

static __always_inline int irq_enter(bool hard, __u32 kind, __u32 number)
{
	if (irq_depth_on)
		irq_depth_add(hard, 1);
	if (record_irqs)
		irq_begin(hard, kind, number);
	return 0;
}

static __always_inline int irq_exit(bool hard, __u32 number)
{
	if (irq_depth_on)
		irq_depth_add(hard, -1);
	if (record_irqs)
		irq_end(hard, number);
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(ktrace_irq_enter, int irq)
{
	return irq_enter(true, KTRACE_IRQ_HANDLER, irq);
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(ktrace_irq_exit, int irq)
{
	return irq_exit(true, irq);
}

SEC("tp_btf/local_timer_entry")
int BPF_PROG(ktrace_timer_enter, int vector)
{
	return irq_enter(true, KTRACE_IRQ_LOCAL_TIMER, vector);
}

SEC("tp_btf/local_timer_exit")
int BPF_PROG(ktrace_timer_exit, int vector)
{
	return irq_exit(true, vector);
}

SEC("tp_btf/irq_work_entry")
int ktrace_irq_work_enter(void *ctx) { return irq_depth_add(true, 1); }
SEC("tp_btf/irq_work_exit")
int ktrace_irq_work_exit(void *ctx) { return irq_depth_add(true, -1); }

SEC("tp_btf/softirq_entry")
int BPF_PROG(ktrace_softirq_enter, unsigned int vec)
{
	return irq_enter(false, KTRACE_IRQ_SOFTIRQ, vec);
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(ktrace_softirq_exit, unsigned int vec)
{
	return irq_exit(false, vec);
}

/*
 * sched_waking runs in the waker's context, so current is the waker, or
 * the task an interrupt interrupted.  try_to_wake_up() holds the task's
 * pi_lock with interrupts off when waking another task; a task waking
 * itself may have them on.  The block slot says whether @p was running or
 * queued, and who woke it, for a wakeup that completes only after it ran
 * again (ktrace_block_on_block()).
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(ktrace_sched_waking, struct task_struct *p)
{
	struct task_struct *task = p;	/* BPF_CORE_READ_BITFIELD() has a "p" of its own */
	struct task_struct *waker = bpf_get_current_task_btf();
	__u64 ts = bpf_ktime_get_ns();
	__u32 irq_ctx = irq_context(waker, ts), cpu = bpf_get_smp_processor_id();
	struct thread_slot *t = thread_slot(p->pid);
	bool on_cpu;

	put_wakeup(p, t, waker->pid, cpu, irq_ctx, ts, p != waker);
	if (!p->pid || !t)
		return 0;
	/* on_cpu is an int before 7.x, a u8 since: read at the kernel's size. */
	on_cpu = BPF_CORE_READ_BITFIELD(task, on_cpu);
	*(volatile __u64 *)&t->block = ktrace_block_waking(*(volatile __u64 *)&t->block, p->pid,
							   on_cpu, !on_cpu && task_queued(p),
							   waker->pid, cpu, irq_ctx);
	return 0;
}

/* wake_up_new_task() runs in the parent's task context, @p's pi_lock held. */
SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(ktrace_sched_wakeup_new, struct task_struct *p)
{
	struct thread_slot *t = thread_slot(p->pid);

	put_wakeup(p, t, bpf_get_current_task_btf()->pid, bpf_get_smp_processor_id(),
		   KTRACE_CTX_TASK, bpf_ktime_get_ns(), true);
	/* A new thread never blocked: its pid's slot is not a former thread's. */
	if (t)
		*(volatile __u64 *)&t->block = 0;
	return 0;
}

/*
 * A task's CPU is in its thread_info on x86 since Linux 5.16; before, with
 * CONFIG_THREAD_INFO_IN_TASK, it was task_struct.cpu.
 */
struct task_struct___old {
	unsigned int cpu;
} __attribute__((preserve_access_index));

static __always_inline __u32 task_cpu(struct task_struct *p)
{
	struct task_struct___old *old = (void *)p;

	if (bpf_core_field_exists(old->cpu))
		return old->cpu;
	return p->thread_info.cpu;
}

/*
 * set_task_cpu() is about to move @p from its CPU to @dest_cpu: wakeup
 * placement, the balancer, affinity and hotplug moves.  Its callers hold
 * a run queue's lock or @p's pi_lock, interrupts off; the record still
 * reserves with a compare-and-swap, as its callers are many.
 */
SEC("tp_btf/sched_migrate_task")
int BPF_PROG(ktrace_sched_migrate_task, struct task_struct *p, int dest_cpu)
{
	struct bpf_rec rec;
	__u64 ts = bpf_ktime_get_ns();

	note_affinity(p, thread_slot(p->pid), ts);
	emit(&rec, ktrace_fxt_put_migrate(rec_clear(&rec), ts, p->tgid, p->pid, task_cpu(p),
					  dest_cpu), ts);
	return 0;
}

/*
 * Timer wakeups: a sleeper's hrtimer (nanosleep, clock_nanosleep, and the
 * poll, select and epoll timeouts) is about to call hrtimer_wakeup() for
 * its task.  Only those are recorded, so other timers cost a compare.
 * hrtimer_wakeup is static: user space finds it in kallsyms (0 if it is
 * gone), in the same pass as the other functions below, which is cheaper
 * than libbpf's own pass for untyped __ksym externs.
 * The expiry is in the timer's clock base; the base's offset brings it
 * to CLOCK_MONOTONIC, the recorder's clock (0 for monotonic timers).
 */
const volatile __u64 hrtimer_wakeup_fn = 0;

/*
 * A cgroup's CFS bandwidth timers: the period timer refills its quota and
 * the slack timer hands out runtime returned by other CPUs; both then
 * unthrottle the run queues the runtime covers.  Recorded only while the
 * cgroup has throttled run queues, so a limited cgroup that keeps within
 * its quota writes nothing.  Both functions are static: found by user
 * space in kallsyms, 0 where the kernel has no CFS bandwidth control.
 */
const volatile __u64 cfs_period_timer_fn = 0;
const volatile __u64 cfs_slack_timer_fn = 0;

/* The cfs_bandwidth whose timer @timer is, NULL for any other timer. */
static __always_inline struct cfs_bandwidth *cfs_bandwidth_of(struct hrtimer *timer)
{
	__u64 fn = (__u64)timer->function;

	if (!cfs_period_timer_fn)
		return NULL;
	if (fn == cfs_period_timer_fn)
		return (void *)timer - bpf_core_field_offset(struct cfs_bandwidth, period_timer);
	if (fn == cfs_slack_timer_fn)
		return (void *)timer - bpf_core_field_offset(struct cfs_bandwidth, slack_timer);
	return NULL;
}

static __always_inline struct list_head *throttled_list(struct cfs_bandwidth *cfs_b)
{
	return (void *)cfs_b + bpf_core_field_offset(struct cfs_bandwidth, throttled_cfs_rq);
}

static __always_inline __u64 cfs_bandwidth_cgroup(struct cfs_bandwidth *cfs_b)
{
	struct task_group *tg = (void *)cfs_b - bpf_core_field_offset(struct task_group,
								      cfs_bandwidth);

	return BPF_CORE_READ(tg, css.cgroup, kn, id);
}

static __always_inline int cfs_bandwidth_timer(struct hrtimer *timer)
{
	struct bpf_rec rec;
	__u64 ts;
	struct cfs_bandwidth *cfs_b = cfs_bandwidth_of(timer);
	struct list_head *head;

	if (!cfs_b)
		return 0;
	head = throttled_list(cfs_b);
	if (BPF_CORE_READ(head, next) == head)
		return 0;
	ts = bpf_ktime_get_ns();
	emit(&rec, ktrace_fxt_put_cfs_refill(rec_clear(&rec), ts, bpf_get_smp_processor_id(),
					    cfs_bandwidth_cgroup(cfs_b), 0, 0), ts);
	return 0;
}

#define THROTTLED_WALK	64	/* throttled run queues looked at after a refill */

/*
 * The timer's function has handed out the runtime: a throttled cfs_rq that
 * got too little to pay its debt (runtime_remaining still <= 0) stays
 * throttled, which the "cfs_refill" written at the entry cannot know.  The
 * CPUs of those (0..63) follow in a second "cfs_refill", with "after" set;
 * the analysis keeps their spans open.  The list is read without its lock:
 * a cfs_rq added or removed meanwhile may be missed or seen.
 */
SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(ktrace_hrtimer_expire_exit, struct hrtimer *timer)
{
	struct bpf_rec rec;
	__u64 ts, still = 0;
	struct cfs_bandwidth *cfs_b = cfs_bandwidth_of(timer);
	struct list_head *head, *node;

	if (!cfs_b)
		return 0;
	head = throttled_list(cfs_b);
	node = BPF_CORE_READ(head, next);
	for (int i = 0; i < THROTTLED_WALK && node && node != head; i++) {
		struct cfs_rq *cfs_rq = (void *)node - bpf_core_field_offset(struct cfs_rq,
									    throttled_list);
		int cpu = BPF_CORE_READ(cfs_rq, rq, cpu);

		if (BPF_CORE_READ(cfs_rq, runtime_remaining) <= 0 && cpu >= 0 && cpu < 64)
			still |= 1ULL << cpu;
		node = BPF_CORE_READ(node, next);
	}
	if (!still)
		return 0;
	ts = bpf_ktime_get_ns();
	emit(&rec, ktrace_fxt_put_cfs_refill(rec_clear(&rec), ts, bpf_get_smp_processor_id(),
					    cfs_bandwidth_cgroup(cfs_b), still, 1), ts);
	return 0;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(ktrace_hrtimer_expire_entry, struct hrtimer *timer, ktime_t *now)
{
	struct bpf_rec rec;
	__u64 ts, soft, hard, offset;
	struct hrtimer_sleeper *sl;
	struct task_struct *p;

	if (!hrtimer_wakeup_fn || (__u64)timer->function != hrtimer_wakeup_fn)
		return cfs_bandwidth_timer(timer);
	ts = bpf_ktime_get_ns();
	sl = (void *)timer - bpf_core_field_offset(struct hrtimer_sleeper, timer);
	p = BPF_CORE_READ(sl, task);
	if (!p)
		return 0;
	offset = timer->base->offset;
	soft = timer->_softexpires - offset;
	hard = timer->node.expires - offset;
	emit(&rec, ktrace_fxt_put_timer_expire(rec_clear(&rec), ts, BPF_CORE_READ(p, tgid),
					      BPF_CORE_READ(p, pid), soft, hard,
					      bpf_get_smp_processor_id()), ts);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(ktrace_sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	/* Its thread record gives its allowed CPUs, and sets its slot (a reused pid's). */
	emit_names(child, child->comm, bpf_ktime_get_ns(), WIDE_TASK);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(ktrace_sched_process_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	emit_names(p, p->comm, bpf_ktime_get_ns(), WIDE_TASK);
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(ktrace_task_rename, struct task_struct *task, const char *comm)
{
	emit_names(task, comm, bpf_ktime_get_ns(), WIDE_TASK);
	return 0;
}

/*
 * CPU hotplug, as the module records it (kmod/hotplug.c): cpu_online when
 * the task driving the hotplug is about to start the CPU, cpu_offline once
 * takedown_cpu() has seen it die.  Both run on another CPU; the CPU itself
 * writes nothing meanwhile, so its buffer still has one writer at a time.
 * The states' numbers differ between kernels: CO-RE reads them.
 */
static __always_inline void emit_cpu_state(__u32 cpu, bool online)
{
	struct bpf_rec rec;
	__u64 ts = bpf_ktime_get_ns();

	if (cpu < nr_cpus)
		emit_rec(cpu, &rec, ktrace_fxt_put_cpu_state(rec_clear(&rec), ts, cpu, online), ts,
			 false);
}

SEC("tp_btf/cpuhp_enter")
int BPF_PROG(ktrace_cpuhp_enter, unsigned int cpu, int target, int idx,
	     int (*fun)(unsigned int))
{
	if (idx == bpf_core_enum_value(enum cpuhp_state, CPUHP_BRINGUP_CPU) && target > idx)
		emit_cpu_state(cpu, true);
	return 0;
}

/* CPUHP_TEARDOWN_CPU has no startup callback: its exit is a teardown. */
SEC("tp_btf/cpuhp_exit")
int BPF_PROG(ktrace_cpuhp_exit, unsigned int cpu, int state, int idx, int ret)
{
	if (idx == bpf_core_enum_value(enum cpuhp_state, CPUHP_TEARDOWN_CPU) && !ret)
		emit_cpu_state(cpu, false);
	return 0;
}

/*
 * Dynamic probes (-p): attached by user space to the named functions, with
 * the index of the function's name string as the attach cookie.  A
 * duration pairs each return with its entry on a per-thread stack, so
 * recursion nests.
 */
#define PROBE_DEPTH	32

struct probe_stack {
	__u64 ts[PROBE_DEPTH];
	__u32 depth;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct probe_stack);
} probe_stacks SEC(".maps");

static __always_inline void emit_probe(__u32 type, __u64 cookie, __u64 start, __u64 end)
{
	struct bpf_rec rec;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 cpu = bpf_get_smp_processor_id(), words;
	__u16 name = cookie & 0x7fff;	/* an index: the name takes no words */

	words = ktrace_fxt_event_head(rec_clear(&rec), start, 0, pid_tgid >> 32, (__u32)pid_tgid,
				      KTRACE_FXT_STR_CAT_KPROBE, 0, name, 0);
	words = ktrace_fxt_event_finish(rec.w, words, type, 0, 0, KTRACE_FXT_STR_CAT_KPROBE, name,
					end);
	emit_rec(nr_cpus + cpu, &rec, words, start, false);
}

SEC("kprobe")
int ktrace_kprobe(struct pt_regs *ctx)
{
	emit_probe(KTRACE_FXT_EV_INSTANT, bpf_get_attach_cookie(ctx), bpf_ktime_get_ns(), 0);
	return 0;
}

SEC("kprobe")
int ktrace_probe_entry(struct pt_regs *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct probe_stack *st = bpf_map_lookup_elem(&probe_stacks, &tid), fresh = {};

	if (!st) {
		bpf_map_update_elem(&probe_stacks, &tid, &fresh, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&probe_stacks, &tid);
		if (!st)
			return 0;
	}
	if (st->depth < PROBE_DEPTH)
		st->ts[st->depth & (PROBE_DEPTH - 1)] = bpf_ktime_get_ns();
	st->depth++;
	return 0;
}

SEC("kretprobe")
int ktrace_probe_return(struct pt_regs *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct probe_stack *st = bpf_map_lookup_elem(&probe_stacks, &tid);
	__u64 start;

	if (!st || !st->depth)
		return 0;
	st->depth--;
	if (st->depth >= PROBE_DEPTH)
		return 0;	/* deeper than the stack keeps: not timed */
	start = st->ts[st->depth & (PROBE_DEPTH - 1)];
	emit_probe(KTRACE_FXT_EV_DURATION_COMPLETE, bpf_get_attach_cookie(ctx), start,
		   bpf_ktime_get_ns());
	if (!st->depth)
		bpf_map_delete_elem(&probe_stacks, &tid);
	return 0;
}
