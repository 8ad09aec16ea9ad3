// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug in the trace: "cpu_offline" once a CPU is down and
 * "cpu_online" before it comes back, written into that CPU's buffer.
 * Tracepoints fire only on online CPUs, so a dying CPU's last context
 * switch is never traced; without these records the last thread switched
 * in there would seem to run until the CPU returned.
 *
 * Both callbacks run in the task driving the hotplug, on another CPU, at
 * CPUHP_BP_PREPARE_DYN: going down after the CPU is dead, coming up before
 * it runs.  So the record follows everything the CPU wrote before and
 * precedes everything it writes after, and nothing else writes that buffer
 * meanwhile: the one-writer-per-buffer rule holds.  A session's FLUSH and
 * stop hold cpus_read_lock(), which excludes these callbacks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/preempt.h>

#include "internal.h"

static enum cpuhp_state ktrace_cpuhp_state;

static void write_cpu_state(unsigned int cpu, bool online)
{
	u64 rec[KTRACE_FXT_CPU_STATE_WORDS], ts;
	struct ktrace_session *s;

	preempt_disable();
	s = rcu_dereference_sched(ktrace_active);
	if (s) {
		ts = ktrace_now();
		ktrace_buf_write(s->bufs[cpu], rec, ktrace_fxt_put_cpu_state(rec, ts, cpu, online),
				 ts);
	}
	preempt_enable();
}

static int ktrace_cpu_up_prepare(unsigned int cpu)
{
	write_cpu_state(cpu, true);
	return 0;
}

static int ktrace_cpu_dead(unsigned int cpu)
{
	write_cpu_state(cpu, false);
	return 0;
}

int ktrace_hotplug_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "trace/ktrace:prepare",
					ktrace_cpu_up_prepare, ktrace_cpu_dead);
	if (ret < 0)
		return ret;
	ktrace_cpuhp_state = ret;
	return 0;
}

void ktrace_hotplug_exit(void)
{
	cpuhp_remove_state_nocalls(ktrace_cpuhp_state);
}
