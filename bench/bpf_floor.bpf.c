// SPDX-License-Identifier: GPL-2.0
/*
 * The floor under any BPF recorder of context switches and wakeups: the
 * same two tp_btf programs ktrace attaches, doing nothing (the kernel's
 * dispatch alone), or, built with FLOOR_CLOCK, reading the clock and
 * storing it per CPU (the least a record needs).  bench-sched.sh runs them
 * beside ktrace and ftrace.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#ifdef FLOOR_CLOCK
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} last SEC(".maps");

static __always_inline int stamp(void)
{
	__u32 zero = 0;
	__u64 *t = bpf_map_lookup_elem(&last, &zero);

	if (t)
		*t = bpf_ktime_get_ns();
	return 0;
}
#else
static __always_inline int stamp(void)
{
	return 0;
}
#endif

SEC("tp_btf/sched_switch")
int floor_switch(void *ctx)
{
	return stamp();
}

SEC("tp_btf/sched_waking")
int floor_waking(void *ctx)
{
	return stamp();
}

char LICENSE[] SEC("license") = "GPL";
