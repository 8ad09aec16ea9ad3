/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduling records of a ktrace archive, decoded once: context
 * switches with the Linux state decided, wakeups with their waker, moves
 * between run queues, allowed-CPU changes, timer expiries, interrupt
 * handlers, and the ktrace:meta records that say what the trace lacks
 * (losses, the kernel's untraced switches, CPUs off line).  Every analysis,
 * the timeline check, dump and the JSON converter read records through it.
 */
#ifndef KTRACE_TRACE_SCHED_H
#define KTRACE_TRACE_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/ktrace_fxt.h>

#include "fxt/fxt_reader.h"

enum sched_kind {
	SCHED_NONE,		/* not one of the below */
	SCHED_SWITCH,		/* either layout */
	SCHED_WAKEUP,
	SCHED_MIGRATE,		/* ktrace:sched "migrate" */
	SCHED_AFFINITY,		/* ktrace:sched "affinity" */
	SCHED_TIMER_EXPIRE,	/* ktrace:timer "timer_expire" */
	SCHED_IRQ,		/* on an interrupt track: a handler, or ftrace's entry or exit */
	SCHED_LOSS,		/* ktrace:meta "dropped" */
	SCHED_UNTRACED,		/* ktrace:meta "untraced_switch" */
	SCHED_CPU_OFFLINE,	/* ktrace:meta "cpu_offline" */
	SCHED_CPU_ONLINE,	/* ktrace:meta "cpu_online" */
};

#define SCHED_CPU_NONE	UINT32_MAX

struct sched_switch {
	uint64_t out_tid, in_tid;
	uint64_t out_pid, in_pid;	/* the legacy layout's, else 0 */
	bool has_pids;			/* the legacy layout: both sides' processes */
	uint32_t out_state;		/* KTRACE_LINUX_*, see sched_linux_state() */
	int32_t in_weight;		/* incoming priority or weight */
	uint32_t kstack;		/* where the outgoing thread blocked, 0: not given */
	uint32_t in_kstack;		/* where the incoming one had, given at its switch-in */
};

struct sched_wakeup {
	uint64_t tid;
	uint32_t ctx;			/* KTRACE_CTX_*: what woke it */
	bool has_waker;
	uint64_t waker;			/* the thread, or the one an interrupt interrupted */
	uint64_t cpus;			/* allowed CPUs 0-63, 0: every CPU (all: cpu_mask.h) */
};

struct sched_migrate {
	uint64_t tid;
	int32_t from, to;		/* -1 (as UINT32_MAX) when not given */
};

struct sched_affinity {
	uint64_t tid;
	uint64_t cpus;			/* allowed CPUs 0-63, 0: every CPU (all: cpu_mask.h) */
};

struct sched_timer_expire {
	uint64_t tid;
	uint64_t due;			/* ns; the expiry itself when not given */
	uint32_t cpu;			/* SCHED_CPU_NONE when not given */
};

struct sched_loss {
	uint64_t first, last;		/* ns: the time range the records were lost in */
	uint64_t count;
	bool ftrace;			/* ftrace's own events, not the recorder's */
	bool hides_switches;		/* it may hide a switch, a wakeup or a hotplug record */
};

struct sched_untraced {
	uint32_t cpu;			/* SCHED_CPU_NONE when not given */
	uint64_t tid, switched_out;	/* the stranded thread, and the one switched out */
	uint64_t first, last;		/* ns */
};

struct sched_cpu_line {
	uint32_t cpu;			/* SCHED_CPU_NONE when not given */
};

struct sched_event {
	enum sched_kind kind;
	uint64_t ts;			/* ns */
	uint32_t cpu;			/* the record's CPU (switch, wakeup, interrupt track) */
	union {
		struct sched_switch sw;
		struct sched_wakeup wake;
		struct sched_migrate mig;
		struct sched_affinity aff;
		struct sched_timer_expire timer;
		struct sched_loss loss;
		struct sched_untraced untraced;
		struct sched_cpu_line line;
	};
};

/*
 * Decodes @rec into @ev; false (ev->kind SCHED_NONE) when it is none of
 * the records above.  Arguments a record lacks or has of the wrong type
 * take the defaults above.
 */
bool sched_decode(const struct fxt_reader *r, const struct fxt_record *rec,
		  struct sched_event *ev);

/* The switch @rec (either layout), for a reader that wants no more. */
void sched_switch_of(const struct fxt_record *rec, struct sched_switch *sw);

/*
 * The Linux state a switch left its outgoing thread in: its linux_state
 * argument, else the closest the FXT state allows (suspended is stopped,
 * dying a zombie, dead dead, anything else not running an interruptible
 * sleep).
 */
uint32_t sched_linux_state(const struct fxt_record *rec);

/* The ktrace:sched instant @name ("migrate", "affinity"). */
bool sched_is_instant(const struct fxt_record *rec, const char *name);

#endif
