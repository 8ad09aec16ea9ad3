// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for ktrace.ko's in-kernel API and dynamic probes.  Writing N
 * to /sys/module/ktrace_api_test/parameters/run emits, N times: an instant
 * "tick" with arguments, a duration "outer" around a duration "inner", a
 * counter, an async begin/end, a flow begin/end, a complete event, and a
 * call of ktrace_api_test_target(3), which recurses to depth 0 (four nested
 * calls for -p kprobe: and -p duration:).  Writing N to .../parameters/spin
 * busy-waits N microseconds in the writing task, in the kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "ktrace_api.h"

KTRACE_STRING(cat_test, "test");
KTRACE_STRING(name_tick, "tick");
KTRACE_STRING(name_outer, "outer");
KTRACE_STRING(name_inner, "inner");
KTRACE_STRING(name_queue, "queue");
KTRACE_STRING(name_request, "request");
KTRACE_STRING(name_handoff, "handoff");
KTRACE_STRING(name_work, "work");
KTRACE_STRING(arg_i, "i");
KTRACE_STRING(arg_label, "label");
KTRACE_STRING(label_value, "hello");
KTRACE_STRING(arg_depth, "depth");

/* Exported so that it keeps its name: a kprobe target the tests call. */
int ktrace_api_test_target(int depth);

/* Through a volatile pointer: the compiler cannot turn the recursion into a loop. */
static int (*volatile recurse)(int depth) = ktrace_api_test_target;

noinline int ktrace_api_test_target(int depth)
{
	if (depth)
		udelay(5);
	return depth ? recurse(depth - 1) + 1 : 0;
}
EXPORT_SYMBOL_GPL(ktrace_api_test_target);

static int run_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i;
	int ret = kstrtouint(val, 0, &n);

	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		struct ktrace_arg args[2] = {
			KTRACE_ARG_U64(&arg_i, i),
			KTRACE_ARG_STR(&arg_label, &label_value),
		};
		struct ktrace_arg depth = KTRACE_ARG_S64(&arg_depth, -(s64)i);
		u64 start = ktrace_clock();

		ktrace_instant(&cat_test, &name_tick, args, 2);
		ktrace_duration_begin(&cat_test, &name_outer, NULL, 0);
		ktrace_duration_begin(&cat_test, &name_inner, &depth, 1);
		ktrace_duration_end(&cat_test, &name_inner, NULL, 0);
		ktrace_duration_end(&cat_test, &name_outer, NULL, 0);
		ktrace_counter(&cat_test, &name_queue, 1, args, 1);
		ktrace_async_begin(&cat_test, &name_request, i, NULL, 0);
		ktrace_async_end(&cat_test, &name_request, i, NULL, 0);
		ktrace_flow_begin(&cat_test, &name_handoff, i, NULL, 0);
		ktrace_flow_end(&cat_test, &name_handoff, i, NULL, 0);
		ktrace_api_test_target(3);
		ktrace_complete(&cat_test, &name_work, start, NULL, 0);
	}
	return 0;
}

/*
 * bench=N: the cost of N calls of the probe target and of N API instants,
 * with whatever records now (nothing, ktrace, ftrace kprobe events).
 */
static int bench_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i;
	u64 t0, t1, t2;
	int ret = kstrtouint(val, 0, &n);

	if (ret || !n)
		return ret ?: -EINVAL;
	t0 = ktrace_clock();
	for (i = 0; i < n; i++)
		recurse(0);
	t1 = ktrace_clock();
	for (i = 0; i < n; i++)
		ktrace_instant(&cat_test, &name_tick, NULL, 0);
	t2 = ktrace_clock();
	pr_info("bench calls=%u target_ns=%llu api_ns=%llu\n", n, div_u64(t1 - t0, n),
		div_u64(t2 - t1, n));
	return 0;
}

/*
 * spin=N: N microseconds of busy-waiting in the kernel, preemption enabled
 * but with no preemption point: on a kernel without full preemption a
 * real-time task woken on this CPU waits until the write returns, on
 * PREEMPT_RT and full preemption it preempts at once.
 */
static int spin_set(const char *val, const struct kernel_param *kp)
{
	unsigned int us, i;
	int ret = kstrtouint(val, 0, &us);

	if (ret || us > USEC_PER_SEC)
		return ret ?: -EINVAL;
	for (i = 0; i < us; i++)
		udelay(1);
	return 0;
}

static const struct kernel_param_ops spin_ops = {
	.set = spin_set,
};
module_param_cb(spin, &spin_ops, NULL, 0200);
MODULE_PARM_DESC(spin, "busy-wait this many microseconds in the kernel");

static const struct kernel_param_ops bench_ops = {
	.set = bench_set,
};
module_param_cb(bench, &bench_ops, NULL, 0200);
MODULE_PARM_DESC(bench, "time this many probe-target calls and API events");

static const struct kernel_param_ops run_ops = {
	.set = run_set,
};
module_param_cb(run, &run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "emit the test events this many times");

MODULE_DESCRIPTION("Test module for ktrace.ko's in-kernel API");
MODULE_LICENSE("GPL");
