// SPDX-License-Identifier: GPL-2.0
/*
 * What recording CFS bandwidth throttling needs of the running kernel:
 * whether it can be recorded and in which throttle model, and for the
 * module the offsets of the scheduler's private fields (vmlinux BTF) and
 * the bandwidth timers' functions (/proc/kallsyms), which it cannot find
 * itself (ktrace.h, struct ktrace_throttle_layout).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>

#include "lib/utils.h"
#include "record/record.h"

/* A field the module reads: struct, member, its size in bytes (0: any). */
struct field {
	const char *type, *name;
	unsigned int size;
	__u32 *off;
};

/*
 * The byte offset of member @name in struct @type, looking into anonymous
 * structs and unions; -ENOENT if it has none, -EINVAL if it is a bit field
 * or not @size bytes.
 */
static int member_offset(const struct btf *btf, __s32 id, const char *name, unsigned int size,
			 unsigned int base, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	if (!t || !(btf_is_struct(t) || btf_is_union(t)) || depth > 8)
		return -ENOENT;
	m = btf_members(t);
	for (unsigned int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		unsigned int bits = btf_member_bit_offset(t, i);
		int ret;

		if (n && *n) {
			if (strcmp(n, name))
				continue;
			if (btf_member_bitfield_size(t, i) || bits % 8 ||
			    (size && btf__resolve_size(btf, m->type) != size))
				return -EINVAL;
			return base + bits / 8;
		}
		ret = member_offset(btf, btf__resolve_type(btf, m->type), name, size,
				    base + bits / 8, depth + 1);
		if (ret != -ENOENT)
			return ret;
	}
	return -ENOENT;
}

/* Fills in every field's offset: 0, or -errno and @why. */
static int read_offsets(const struct btf *btf, const struct field *f, size_t n, char *why,
			size_t len)
{
	for (size_t i = 0; i < n; i++) {
		__s32 id = btf__find_by_name_kind(btf, f[i].type, BTF_KIND_STRUCT);
		int off = id < 0 ? -ENOENT : member_offset(btf, id, f[i].name, f[i].size, 0, 0);

		if (off < 0 || off >= (int)KTRACE_THROTTLE_OFFSET_MAX) {
			snprintf(why, len, "not recorded: the kernel's BTF has %s %s.%s",
				 off == -ENOENT ? "no" : "an unexpected", f[i].type, f[i].name);
			return off < 0 ? off : -ERANGE;
		}
		*f[i].off = off;
	}
	return 0;
}

/* The addresses of the bandwidth timers' functions in /proc/kallsyms: 0, or -errno and @why. */
static int read_timer_functions(struct ktrace_throttle_layout *l, char *why, size_t len)
{
	static const char *const names[] = { "sched_cfs_period_timer", "sched_cfs_slack_timer" };
	uint64_t addrs[2];
	int ret = kallsyms_find(names, addrs, 2);

	if (ret < 0) {
		snprintf(why, len, "not recorded: cannot read /proc/kallsyms: %s", strerror(-ret));
		return ret;
	}
	l->period_timer_fn = addrs[0];
	l->slack_timer_fn = addrs[1];
	if (l->period_timer_fn && l->slack_timer_fn)
		return 0;
	snprintf(why, len, "not recorded: /proc/kallsyms gives no address of %s (kernel.kptr_restrict?)",
		 l->period_timer_fn ? "sched_cfs_slack_timer" : "sched_cfs_period_timer");
	return -ENOENT;
}

/*
 * Whether throttling can be recorded on this kernel: 0 and in @what its
 * model (KTRACE_THROTTLING_*, trace_info's "throttling"), else -errno and
 * in @what why not.  The model is the task-based one where task_struct
 * has its "throttled" flag (Linux 6.18), the one the recorders read.
 * With @l, also what the module needs to record it.  @vmlinux: the
 * kernel's BTF if the caller has it loaded, else NULL.
 */
int throttle_layout_read(const struct btf *vmlinux, struct ktrace_throttle_layout *l,
			 char *what, size_t len)
{
	struct btf *own = vmlinux ? NULL : btf__load_vmlinux_btf();
	const struct btf *btf = vmlinux ? vmlinux : own;
	__s32 task = -1;
	int ret = 0;

	if (!btf) {
		snprintf(what, len, "not recorded: the kernel has no BTF (/sys/kernel/btf/vmlinux)");
		return -ENOENT;
	}
	if (btf__find_by_name_kind(btf, "sched_cfs_period_timer", BTF_KIND_FUNC) < 0) {
		snprintf(what, len, "not recorded: the kernel has no CFS bandwidth control");
		ret = -EOPNOTSUPP;
		goto out;
	}
	task = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	ret = task < 0 ? -ENOENT : member_offset(btf, task, "throttled", 1, 0, 0);
	if (ret < 0 && ret != -ENOENT) {
		snprintf(what, len, "not recorded: the kernel's BTF has an unexpected task_struct.throttled");
		goto out;
	}
	if (l) {
		const struct field fields[] = {
			{ "cfs_rq", "throttle_count", 4, &l->cfs_rq_throttle_count },
			{ "cfs_rq", "throttled_list", 2 * sizeof(void *), &l->cfs_rq_throttled_list },
			{ "cfs_rq", "runtime_remaining", 8, &l->cfs_rq_runtime_remaining },
			{ "cfs_rq", "rq", sizeof(void *), &l->cfs_rq_rq },
			{ "cfs_rq", "tg", sizeof(void *), &l->cfs_rq_tg },
			{ "rq", "cpu", 4, &l->rq_cpu },
			{ "task_group", "css", 0, &l->tg_css },
			{ "task_group", "cfs_bandwidth", 0, &l->tg_cfs_bandwidth },
			{ "cfs_bandwidth", "period_timer", 0, &l->cfs_b_period_timer },
			{ "cfs_bandwidth", "slack_timer", 0, &l->cfs_b_slack_timer },
			{ "cfs_bandwidth", "throttled_cfs_rq", 2 * sizeof(void *),
			  &l->cfs_b_throttled_cfs_rq },
		};

		memset(l, 0, sizeof(*l));
		l->task_throttled = ret > 0 ? ret : 0;
		ret = read_offsets(btf, fields, sizeof(fields) / sizeof(fields[0]), what, len);
		if (!ret)
			ret = read_timer_functions(l, what, len);
		if (ret) {
			memset(l, 0, sizeof(*l));
			goto out;
		}
		ret = l->task_throttled;
	}
	snprintf(what, len, "%s", ret > 0 ? KTRACE_THROTTLING_TASK : KTRACE_THROTTLING_CFS_RQ);
	ret = 0;
out:
	btf__free(own);
	return ret;
}
