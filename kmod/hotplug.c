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
#include <linux/irq_work.h>
#include <linux/preempt.h>

#include "internal.h"

static enum cpuhp_state ktrace_cpuhp_state, ktrace_cpuhp_online_state;

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

/*
 * On the CPU going down, in its hotplug thread, once it is no longer
 * active (ktrace_buf_complete() queues no reader wakeup there any more)
 * and while its irq_work thread still runs: the wakeup queued before
 * then is run now.  Left pending, the dying CPU's last irq_work_run()
 * (smpcfd_dying_cpu()) would wake irq_work/N on it on PREEMPT_RT, after
 * its tasks were moved away, and 5.10-rt's sched_cpu_dying() BUGs on a
 * task left there.  A session stopped meanwhile is not freed before its
 * stop's flush, which takes cpus_read_lock(): not before this returns.
 */
static int ktrace_cpu_going_down(unsigned int cpu)
{
	struct ktrace_session *s;

	preempt_disable();
	s = rcu_dereference_sched(ktrace_active);
	preempt_enable();
	if (s)
		irq_work_sync(&s->bufs[cpu]->wakeup);
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
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "trace/ktrace:online", NULL,
					ktrace_cpu_going_down);
	if (ret < 0) {
		cpuhp_remove_state_nocalls(ktrace_cpuhp_state);
		return ret;
	}
	ktrace_cpuhp_online_state = ret;
	return 0;
}

void ktrace_hotplug_exit(void)
{
	cpuhp_remove_state_nocalls(ktrace_cpuhp_online_state);
	cpuhp_remove_state_nocalls(ktrace_cpuhp_state);
}
