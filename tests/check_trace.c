// SPDX-License-Identifier: GPL-2.0
/*
 * Checks a recorded trace of tests/known_workload.c record by record: names,
 * states, CPU numbers, per-CPU timeline consistency, wakeups followed by a
 * switch-in, ping-pong switch counts, time order.  TAP output.
 * usage: check_trace TRACE.fxt EXPECT_FILE
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "fxt/fxt_reader.h"
#include "lib/tap.h"

#define MAX_CPUS	4096
#define MAX_TID		(1 << 22)	/* pid_max's limit */

struct expect {
	long pid, ping, pong, sleeper, renamer, child, iterations, cpus;
	long moved_to;		/* the CPU the renamer moved itself to, -1 if none */
};

static int read_expect(const char *path, struct expect *e)
{
	FILE *f = fopen(path, "r");
	char key[32];
	long v;

	if (!f)
		return -1;
	while (fscanf(f, "%31[^=]=%ld\n", key, &v) == 2) {
		if (!strcmp(key, "pid")) e->pid = v;
		else if (!strcmp(key, "ping")) e->ping = v;
		else if (!strcmp(key, "pong")) e->pong = v;
		else if (!strcmp(key, "sleeper")) e->sleeper = v;
		else if (!strcmp(key, "renamer")) e->renamer = v;
		else if (!strcmp(key, "child")) e->child = v;
		else if (!strcmp(key, "iterations")) e->iterations = v;
		else if (!strcmp(key, "cpus")) e->cpus = v;
		else if (!strcmp(key, "moved_to")) e->moved_to = v;
	}
	fclose(f);
	return 0;
}

/* Per watched thread. */
struct watch {
	long tid;
	const char *name;
	bool named, named_in_process;
	long switch_in, sleeps_s, woken, woken_then_ran;
	long woken_by_task, woken_by_irq;	/* waker named, or irq_context */
	long woken_by_peer;			/* by ping (for pong), by pong (for ping) */
	long woken_by_main;			/* by the workload's own threads */
	long woken_by_pid;			/* by its main thread */
	bool pending_wake;
	bool on_cpu;			/* switched in, not out since */
	bool woken_on_cpu;		/* woken while on the CPU, not out since */
	int last_out_state;		/* linux_state of the last switch-out */
	/* switched in after sleeping, with no wakeup: one the kernel did not trace */
	long unwoken;
};

static bool watched(const struct watch *w, uint64_t tid)
{
	for (int i = 0; i < 6; i++)
		if (w[i].tid == (long)tid)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static uint64_t cpu_running[MAX_CPUS];
	static bool cpu_seen[MAX_CPUS], cpu_untraced[MAX_CPUS];
	struct expect e = { .moved_to = -1 };
	struct watch w[6];
	struct fxt_reader r;
	struct fxt_record rec;
	long timeline_breaks = 0, excused = 0, bad_cpu = 0, unsorted = 0, switches = 0, dropped = 0;
	long skipped_runs = 0;
	bool renamed = false, child_named = false, process_named = false, untraced = false;
	long bad_names = 0, moves = 0, moved = 0;
	char bad_name[64] = "";
	uint64_t last_ts = 0;
	int fd, ret;

	if (argc != 3 || read_expect(argv[2], &e)) {
		fprintf(stderr, "usage: check_trace TRACE.fxt EXPECT_FILE\n");
		return 2;
	}
	memset(w, 0, sizeof(w));
	w[0] = (struct watch){ .tid = e.ping, .name = "ping", .last_out_state = -1 };
	w[1] = (struct watch){ .tid = e.pong, .name = "pong", .last_out_state = -1 };
	w[2] = (struct watch){ .tid = e.sleeper, .name = "sleeper", .last_out_state = -1 };
	w[3] = (struct watch){ .tid = e.renamer, .name = "renamer", .last_out_state = -1 };
	w[4] = (struct watch){ .tid = e.child, .name = "child-exit", .last_out_state = -1 };
	w[5] = (struct watch){ .tid = e.pid, .name = "known_workload", .last_out_state = -1 };

	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fxt_reader_open_fd(&r, fd, argv[1])) {
		perror(argv[1]);
		return 2;
	}
	printf("TAP version 13\n");
	while ((ret = fxt_reader_next(&r, &rec)) > 0) {
		const struct fxt_arg *a;

		if (rec.type == KTRACE_FXT_REC_KERNEL_OBJ) {
			/* A task name has no NUL or control byte (a backend's copy that zeroes bytes). */
			for (uint32_t i = 0; i < rec.name.len; i++)
				if ((unsigned char)rec.name.p[i] < 0x20) {
					if (!bad_names++)
						snprintf(bad_name, sizeof(bad_name), "koid %llu at offset %llu",
							 (unsigned long long)rec.koid,
							 (unsigned long long)rec.offset);
					break;
				}
			a = fxt_find_arg(&rec, "process");
			for (int i = 0; i < 6; i++) {
				if ((long)rec.koid != w[i].tid || rec.obj_type != KTRACE_FXT_OBJ_THREAD)
					continue;
				if (fxt_str_eq(rec.name, w[i].name)) {
					w[i].named = true;
					w[i].named_in_process = a && (long)a->u == (i == 4 ? e.child : e.pid);
				}
			}
			if (rec.obj_type == KTRACE_FXT_OBJ_THREAD && (long)rec.koid == e.renamer &&
			    fxt_str_eq(rec.name, "renamed-ok"))
				renamed = true;
			if (rec.obj_type == KTRACE_FXT_OBJ_PROCESS && (long)rec.koid == e.child &&
			    fxt_str_eq(rec.name, "child-exit"))
				child_named = true;
			if (rec.obj_type == KTRACE_FXT_OBJ_PROCESS && (long)rec.koid == e.pid &&
			    fxt_str_eq(rec.name, "known_workload"))
				process_named = true;
			continue;
		}
		if (rec.type == KTRACE_FXT_REC_EVENT && fxt_str_eq(rec.cat, "ktrace:meta") &&
		    fxt_str_eq(rec.name, "dropped")) {
			const struct fxt_arg *prog = fxt_find_arg(&rec, "program");

			a = fxt_find_arg(&rec, "count");
			/*
			 * Runs of a BPF program the kernel skipped, not a full
			 * buffer: the timer expiry program runs for every
			 * hrtimer, and on PREEMPT_RT a soft timer's run can be
			 * interrupted by a hard one's; from Linux 7.x programs
			 * on tracepoints run preemptible, and a task preempted
			 * in one makes the kernel skip the next run on that CPU
			 * (a rename anywhere on the machine).  What they lost is
			 * in the loss record, and the timelines are checked.
			 */
			if (prog && prog->type == KTRACE_FXT_ARG_STRING)
				skipped_runs += a ? (long)a->u : 0;
			else
				dropped += a ? (long)a->u : 0;
		}
		/* The kernel switched on that CPU without tracing it, ftrace included. */
		if (rec.type == KTRACE_FXT_REC_EVENT && fxt_str_eq(rec.cat, "ktrace:meta") &&
		    fxt_str_eq(rec.name, "untraced_switch")) {
			a = fxt_find_arg(&rec, "cpu");
			if (a && a->u < MAX_CPUS)
				cpu_untraced[a->u] = true;
			untraced = true;
		}
		/* The renamer's moves: the one it asked for is among them. */
		if (rec.type == KTRACE_FXT_REC_EVENT && (long)rec.tid == e.renamer &&
		    fxt_str_eq(rec.cat, "ktrace:sched") && fxt_str_eq(rec.name, "migrate")) {
			a = fxt_find_arg(&rec, "dest_cpu");
			moves++;
			moved += a && (long)a->u == e.moved_to;
		}
		if (rec.type != KTRACE_FXT_REC_SCHED && rec.type != KTRACE_FXT_REC_EVENT)
			continue;
		if (rec.type == KTRACE_FXT_REC_SCHED || !fxt_str_eq(rec.name, "trace_info")) {
			if (rec.ts < last_ts)
				unsorted++;
			last_ts = rec.ts;
		}
		if (rec.type != KTRACE_FXT_REC_SCHED)
			continue;
		if ((long)rec.cpu >= e.cpus || rec.cpu >= MAX_CPUS) {
			bad_cpu++;
			continue;
		}
		if (rec.sub == KTRACE_FXT_SCHED_WAKEUP) {
			const struct fxt_arg *waker = fxt_find_arg(&rec, "waker");
			const struct fxt_arg *ctx = fxt_find_arg(&rec, "irq_context");

			for (int i = 0; i < 6; i++)
				if ((long)rec.tid == w[i].tid) {
					w[i].woken++;
					/*
					 * A thread running or already woken needs no switch-in
					 * of its own (PREEMPT_RT wakes running tasks from its
					 * sleeping locks).
					 */
					if (w[i].pending_wake || (w[i].on_cpu && w[i].woken_on_cpu))
						w[i].woken_then_ran++;
					else if (w[i].on_cpu)
						w[i].woken_on_cpu = true;
					else
						w[i].pending_wake = true;
					w[i].woken_by_task += waker && !ctx;
					w[i].woken_by_irq += !waker && ctx && ctx->u != KTRACE_CTX_TASK;
					w[i].woken_by_peer += waker && i < 2 &&
							      (long)waker->u == w[1 - i].tid;
					/* Its own threads: on PREEMPT_RT also through the
					 * sleeping locks they share (mmap_lock at setup). */
					w[i].woken_by_pid += waker && (long)waker->u == e.pid;
					w[i].woken_by_main += waker && ((long)waker->u == e.pid ||
									watched(w, waker->u));
				}
			continue;
		}
		switches++;
		/* Only breaks that involve the workload's threads count. */
		if (cpu_seen[rec.cpu] && cpu_running[rec.cpu] != rec.out_tid &&
		    (watched(w, cpu_running[rec.cpu]) || watched(w, rec.out_tid))) {
			if (cpu_untraced[rec.cpu]) {
				/*
				 * It ran: its switch-in is what the kernel did not
				 * trace, and, if it slept, maybe its wakeup too.
				 */
				for (int i = 0; i < 6; i++) {
					if ((long)rec.out_tid != w[i].tid)
						continue;
					if (w[i].pending_wake)
						w[i].woken_then_ran++;
					else if (w[i].last_out_state == KTRACE_LINUX_INTERRUPTIBLE)
						w[i].unwoken++;
					w[i].pending_wake = false;
				}
				if (excused++ < 5)
					printf("# at offset %llu: CPU %u switches out %llu after %llu, a switch the kernel did not trace (untraced_switch)\n",
					       (unsigned long long)rec.offset, rec.cpu,
					       (unsigned long long)rec.out_tid,
					       (unsigned long long)cpu_running[rec.cpu]);
			} else if (timeline_breaks++ < 5) {
				printf("# timeline break at offset %llu: CPU %u switches out %llu, but %llu was switched in\n",
				       (unsigned long long)rec.offset, rec.cpu,
				       (unsigned long long)rec.out_tid,
				       (unsigned long long)cpu_running[rec.cpu]);
			}
		}
		cpu_seen[rec.cpu] = true;
		cpu_untraced[rec.cpu] = false;
		cpu_running[rec.cpu] = rec.in_tid;
		a = fxt_find_arg(&rec, "linux_state");
		for (int i = 0; i < 6; i++) {
			if ((long)rec.out_tid == w[i].tid) {
				/*
				 * Woken on its way off the CPU, that wakeup ends the
				 * sleep it goes into; else it needed no switch-in.
				 */
				if (w[i].woken_on_cpu && rec.out_state != KTRACE_FXT_THREAD_RUNNING)
					w[i].pending_wake = true;
				else if (w[i].woken_on_cpu)
					w[i].woken_then_ran++;
				w[i].woken_on_cpu = false;
				w[i].on_cpu = false;
				w[i].last_out_state = a ? (int)a->u : -1;
				if (a && a->u == KTRACE_LINUX_INTERRUPTIBLE)
					w[i].sleeps_s++;
			}
			if ((long)rec.in_tid == w[i].tid) {
				w[i].on_cpu = true;
				w[i].switch_in++;
				if (w[i].pending_wake)
					w[i].woken_then_ran++;
				else if (w[i].last_out_state == KTRACE_LINUX_INTERRUPTIBLE)
					w[i].unwoken++;
				w[i].pending_wake = false;
			}
		}
	}
	ok(ret == 0 && r.skipped == 0, "the trace reads to its end (%s)",
	   ret ? r.fatal.msg : "no unreadable record");
	ok(r.violations == 0, "no spec violation (first: %s %s)", r.first.field, r.first.msg);
	ok(dropped == 0, "nothing dropped with the default buffers (%ld; BPF program runs the kernel skipped: %ld)",
	   dropped, skipped_runs);
	ok(unsorted == 0, "records are in time order (%ld out of order)", unsorted);
	ok(switches > 0 && bad_cpu == 0, "%ld switches, all on CPUs below %ld", switches, e.cpus);
	ok(timeline_breaks == 0,
	   "per-CPU timeline: each switch's outgoing thread is the previous incoming one, for the workload's threads (%ld breaks)",
	   timeline_breaks);
	ok(bad_names == 0, "every thread and process name is free of NUL and control bytes (%ld bad%s%s)",
	   bad_names, bad_names ? ", the first: " : "", bad_name);
	ok(process_named, "process %ld is named known_workload", e.pid);
	for (int i = 0; i < 5; i++)
		if (i != 3)
			ok(w[i].named && w[i].named_in_process, "thread %ld is named %s in its process",
			   w[i].tid, w[i].name);
	ok(renamed, "the renamed thread %ld gets the name renamed-ok", e.renamer);
	ok(child_named, "the child process %ld is named child-exit", e.child);
	/*
	 * The renamer pinned itself to another CPU while it ran: the stopper
	 * moved it there (or the balancer did first), a migrate record says so.
	 */
	if (e.moved_to >= 0)
		ok(moved > 0, "the renamer's move to CPU %ld while it ran is recorded (%ld of its %ld migrate records)",
		   e.moved_to, moved, moves);
	ok(w[0].switch_in >= e.iterations && w[1].switch_in >= e.iterations,
	   "ping and pong each switched in at least %ld times (%ld, %ld)", e.iterations,
	   w[0].switch_in, w[1].switch_in);
	/*
	 * Twenty 10 ms sleeps; one whose timer expires while the sleeper is
	 * preempted on its way to sleep (a busy or PREEMPT_RT machine) leaves
	 * the CPU preempted (R) instead, and then needs no sleep at all.
	 */
	ok(w[2].sleeps_s >= 18, "sleeper left the CPU sleeping (S) at least 18 of its 20 times (%ld)",
	   w[2].sleeps_s);
	/*
	 * Each naming its waker: the peer, or its main thread (as often as it
	 * likes: on PREEMPT_RT it wakes them through mmap_lock while it sets
	 * up), or, at most three times, another task such as the migration
	 * thread that moves a thread when it is pinned, or an interrupt (a
	 * page fault's read completing, on a busy machine short of memory).
	 */
	ok(w[1].woken_by_peer + w[1].woken_by_pid >= w[1].woken - 3 &&
	   w[0].woken_by_peer + w[0].woken_by_pid >= w[0].woken - 3,
	   "ping and pong are woken by each other, named as wakers (%ld of %ld, %ld of %ld)",
	   w[1].woken_by_peer, w[1].woken, w[0].woken_by_peer, w[0].woken);
	/*
	 * A timer interrupt that hits a thread whose events the kernel does not
	 * trace (the trace has untraced_switch records then) wakes the sleeper
	 * unseen: it runs again with no wakeup.  ktrace dump --check holds each
	 * such switch-in to an untraced stretch.
	 */
	ok(w[2].woken_by_irq + w[2].unwoken >= 20 && (!w[2].unwoken || untraced) &&
	   w[2].woken_by_irq + w[2].woken_by_main == w[2].woken,
	   "the sleeper's timer wakeups come from interrupts, no task named (%ld of %ld; %ld by the workload's own threads; %ld the kernel did not trace)",
	   w[2].woken_by_irq, w[2].woken, w[2].woken_by_main, w[2].unwoken);
	ok(w[4].last_out_state == KTRACE_LINUX_ZOMBIE || w[4].last_out_state == KTRACE_LINUX_DEAD,
	   "the exiting child left the CPU dying or dead (linux_state %d)", w[4].last_out_state);
	{
		long woken = 0, ran = 0;

		for (int i = 0; i < 5; i++) {
			woken += w[i].woken;
			ran += w[i].woken_then_ran;
			/* A thread woken near the end may not have run yet. */
			ran += w[i].pending_wake + w[i].woken_on_cpu;
		}
		ok(woken > 0 && woken == ran,
		   "every wakeup of a workload thread is followed by its switch-in (%ld of %ld)",
		   ran, woken);
	}
	fxt_reader_close(&r);
	close(fd);
	return tap_finish();
}
