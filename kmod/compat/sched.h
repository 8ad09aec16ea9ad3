/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_switch gained its prev_state argument in 5.18, read by __schedule()
 * before the switch.  Before that the probe reads the outgoing task's state
 * itself, as the tracepoint's own TP_fast_assign did: the field is __state
 * from 5.14, state before.  Kbuild defines KTRACE_HAVE_SWITCH_PREV_STATE,
 * KTRACE_HAVE_TASK___STATE and KTRACE_HAVE_SCHED_DELAYED when the
 * kernel's headers have them, so backports count.
 */
#ifndef _KTRACE_COMPAT_SCHED_H
#define _KTRACE_COMPAT_SCHED_H

#include <linux/sched.h>

#ifdef KTRACE_HAVE_SWITCH_PREV_STATE
#define KTRACE_SCHED_SWITCH_PROTO	bool preempt, struct task_struct *prev, \
					struct task_struct *next, unsigned int prev_state
#define ktrace_switch_prev_state(prev)	(prev_state)
#else
#define KTRACE_SCHED_SWITCH_PROTO	bool preempt, struct task_struct *prev, \
					struct task_struct *next
#define ktrace_switch_prev_state(prev)	ktrace_task_state(prev)
#endif

/* The state @p set before it called schedule(). */
static inline unsigned int ktrace_task_state(const struct task_struct *p)
{
#ifdef KTRACE_HAVE_TASK___STATE
	return READ_ONCE(p->__state);
#else
	return READ_ONCE(p->state);
#endif
}

/*
 * Whether @p, switched out, is still on its run queue to run: a thread
 * that found a signal pending as it went to sleep stays there, and a
 * kernel such as 6.1 still hands sched_switch the state it meant to sleep
 * in.  From 6.12 a fair thread that blocks owing CPU time stays queued too,
 * its dequeue delayed (se.sched_delayed): that one did block.  (So does
 * a thread blocked on a mutex under CONFIG_SCHED_PROXY_EXEC, which stays
 * queued as well; it would read R here.  Debian's kernels do not enable
 * it.)  KTRACE_HAVE_SCHED_DELAYED as above.
 */
static inline bool ktrace_task_queued(const struct task_struct *p)
{
#ifdef KTRACE_HAVE_SCHED_DELAYED
	return READ_ONCE(p->on_rq) && !READ_ONCE(p->se.sched_delayed);
#else
	return READ_ONCE(p->on_rq);
#endif
}

#endif /* _KTRACE_COMPAT_SCHED_H */
