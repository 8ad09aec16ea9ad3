// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduler recorder as BPF programs: the same FXT records as ktrace.ko,
 * through the shared encoders, into one BPF ring buffer per CPU (an array
 * of maps indexed by CPU), so no CPU ever takes another CPU's lock.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include <linux/ktrace_fxt.h>

#include "sched.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set before load: wake the reader once a buffer holds this many bytes. */
const volatile __u64 wakeup_bytes = 256 * 1024;

struct ringbuf {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 21);	/* replaced per CPU by user space */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);		/* set to the number of possible CPUs */
	__type(key, __u32);
	__array(values, struct ringbuf);
} buffers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ktrace_bpf_drops);
} drops SEC(".maps");

/*
 * Write one record into this CPU's buffer.  A record that does not fit is
 * counted; the next record that fits is preceded by a loss record with the
 * count and time range, so a viewer shows where data is missing.
 */
static __always_inline void emit(void *rec, __u32 words, __u64 ts)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0;
	struct ktrace_bpf_drops *d = bpf_map_lookup_elem(&drops, &zero);
	void *rb = bpf_map_lookup_elem(&buffers, &cpu);
	__u64 loss[KTRACE_FXT_DROP_WORDS];
	__u64 flags;

	if (!d)
		return;
	if (!rb)
		goto dropped;
	flags = bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	if (d->pending) {
		ktrace_fxt_put_drop(loss, ts, cpu, d->pending, d->first_ts, d->last_ts);
		if (bpf_ringbuf_output(rb, loss, sizeof(loss), flags))
			goto dropped;
		d->written++;
		d->reported += d->pending;
		d->pending = 0;
	}
	if (words > 0 && words <= KTRACE_BPF_MAX_WORDS &&
	    !bpf_ringbuf_output(rb, rec, words * 8, flags)) {
		d->written++;
		return;
	}
dropped:
	if (!d->pending)
		d->first_ts = ts;
	d->pending++;
	d->last_ts = ts;
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

static __always_inline void emit_names(struct task_struct *p, const char *comm, __u64 ts)
{
	__u64 rec[KTRACE_FXT_KOBJ_THREAD_MAX_WORDS];
	__u32 pid = BPF_CORE_READ(p, pid), tgid = BPF_CORE_READ(p, tgid);
	__u32 len = comm_len(comm);

	emit(rec, ktrace_fxt_put_kobj_thread(rec, pid, tgid, comm, len), ts);
	if (pid == tgid)
		emit(rec, ktrace_fxt_put_kobj_process(rec, tgid, comm, len), ts);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(ktrace_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u64 rec[KTRACE_FXT_CSWITCH_WORDS], ts = bpf_ktime_get_ns();
	__u32 state = ktrace_linux_state(preempt, prev_state, BPF_CORE_READ(prev, exit_state));

	emit(rec, ktrace_fxt_put_cswitch(rec, bpf_get_smp_processor_id(), ts,
					 BPF_CORE_READ(prev, pid), BPF_CORE_READ(prev, prio), state,
					 BPF_CORE_READ(next, pid), BPF_CORE_READ(next, prio)), ts);
	return 0;
}

/*
 * sched_waking runs in the waker's context, so current is the waker;
 * sched_wakeup may run later on the target CPU from an IPI, where current
 * is whoever was running there.
 */
static __always_inline void wakeup(struct task_struct *p)
{
	__u64 rec[KTRACE_FXT_WAKEUP_WORDS], ts = bpf_ktime_get_ns();
	struct task_struct *waker = bpf_get_current_task_btf();

	emit(rec, ktrace_fxt_put_wakeup(rec, bpf_get_smp_processor_id(), ts,
					BPF_CORE_READ(p, pid), BPF_CORE_READ(p, prio),
					BPF_CORE_READ(waker, pid)), ts);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(ktrace_sched_waking, struct task_struct *p)
{
	wakeup(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(ktrace_sched_wakeup_new, struct task_struct *p)
{
	wakeup(p);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(ktrace_sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	char comm[16];

	BPF_CORE_READ_STR_INTO(&comm, child, comm);
	emit_names(child, comm, bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(ktrace_sched_process_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	char comm[16];

	BPF_CORE_READ_STR_INTO(&comm, p, comm);
	emit_names(p, comm, bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(ktrace_task_rename, struct task_struct *task, const char *comm)
{
	char name[16] = {};

	bpf_probe_read_kernel_str(name, sizeof(name), comm);
	emit_names(task, name, bpf_ktime_get_ns());
	return 0;
}
