// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace.ko: records context switches, wakeups and task names into per-CPU
 * buffers of FXT records, read through /dev/ktrace.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "internal.h"

unsigned long ktrace_buffer_size = KTRACE_DEFAULT_BUFFER_SIZE;
module_param_named(buffer_size, ktrace_buffer_size, ulong, 0644);
MODULE_PARM_DESC(buffer_size, "default per-CPU buffer size in bytes, a power of two (4 MiB)");

static int __init ktrace_init(void)
{
	int ret;

	ret = ktrace_probes_init();
	if (ret)
		return ret;
	ret = ktrace_irq_probes_init();
	if (ret)
		return ret;
	ret = ktrace_hotplug_init();
	if (ret < 0) {
		pr_err("cannot register for CPU hotplug: %d\n", ret);
		return ret;
	}
	ret = ktrace_dev_init();
	if (ret) {
		pr_err("cannot register /dev/ktrace: %d\n", ret);
		goto err_hotplug_exit;
	}
	ret = ktrace_marks_init();
	if (ret) {
		pr_err("cannot register /dev/ktrace-mark: %d\n", ret);
		goto err_dev_exit;
	}
	return 0;

err_dev_exit:
	ktrace_dev_exit();
err_hotplug_exit:
	ktrace_hotplug_exit();
	return ret;
}

static void __exit ktrace_exit(void)
{
	/* An open session holds a module reference: none is left here. */
	ktrace_marks_exit();
	ktrace_dev_exit();
	ktrace_hotplug_exit();
}

module_init(ktrace_init);
module_exit(ktrace_exit);

MODULE_DESCRIPTION("Scheduler tracer writing FXT records into per-CPU buffers");
MODULE_LICENSE("GPL");
