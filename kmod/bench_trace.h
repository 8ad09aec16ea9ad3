/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracepoints KTRACE_IOC_BENCH fires: ktrace_bench_switch for ftrace,
 * with sched_switch's fields assigned as sched_switch assigns them, so
 * that ftrace writes the same event per switch; ktrace_bench_record for
 * the module's probe, registered only while the benchmark runs.  Both
 * reach their recorder through the same tracepoint call, as a switch does.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ktrace_bench

#if !defined(KTRACE_BENCH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define KTRACE_BENCH_TRACE_H

#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(ktrace_bench_class,
		    TP_PROTO(struct task_struct *prev, struct task_struct *next),
		    TP_ARGS(prev, next),
		    TP_STRUCT__entry(__array(char, prev_comm, TASK_COMM_LEN)
				     __field(pid_t, prev_pid)
				     __field(int, prev_prio)
				     __field(long, prev_state)
				     __array(char, next_comm, TASK_COMM_LEN)
				     __field(pid_t, next_pid)
				     __field(int, next_prio)),
		    TP_fast_assign(memcpy(__entry->next_comm, next->comm, TASK_COMM_LEN);
				   __entry->prev_pid = prev->pid;
				   __entry->prev_prio = prev->prio;
				   __entry->prev_state = TASK_RUNNING;
				   memcpy(__entry->prev_comm, prev->comm, TASK_COMM_LEN);
				   __entry->next_pid = next->pid;
				   __entry->next_prio = next->prio;),
		    TP_printk("prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%ld ==> next_comm=%s next_pid=%d next_prio=%d",
			      __entry->prev_comm, __entry->prev_pid, __entry->prev_prio,
			      __entry->prev_state, __entry->next_comm, __entry->next_pid,
			      __entry->next_prio));

DEFINE_EVENT(ktrace_bench_class, ktrace_bench_switch,
	     TP_PROTO(struct task_struct *prev, struct task_struct *next),
	     TP_ARGS(prev, next));

DEFINE_EVENT(ktrace_bench_class, ktrace_bench_record,
	     TP_PROTO(struct task_struct *prev, struct task_struct *next),
	     TP_ARGS(prev, next));

#endif /* KTRACE_BENCH_TRACE_H */

/* Out of tree: the header is found beside this file. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE bench_trace
#include <trace/define_trace.h>
