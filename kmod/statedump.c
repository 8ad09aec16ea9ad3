// SPDX-License-Identifier: GPL-2.0
/*
 * State dump at session start: names of every process and thread alive,
 * so a trace of a long-running system names everything it shows.  Runs
 * after the probes are registered, so a task forked meanwhile is named by
 * the fork probe if the walk misses it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "internal.h"

void ktrace_statedump(struct ktrace_session *s)
{
	struct task_struct *g, *t;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		/* Each record goes to the buffer of the CPU we are on. */
		preempt_disable();
		ktrace_write_names(s->bufs[smp_processor_id()], t);
		preempt_enable();
	}
	rcu_read_unlock();
}
