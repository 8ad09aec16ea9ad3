// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the analyses: the input bytes are a program that
 * builds a valid FXT archive out of what recordings contain (switches in
 * every state, wakeups from tasks and every interrupt context, names and
 * renames, reused tids, interrupt entries and exits in any order or half
 * missing, timer events, losses, untraced switches, CPUs going offline,
 * stacks, triggers, latency annotations, odd clocks and timestamps), maybe
 * truncated.  Each archive goes through the commands themselves, in this
 * process: ktrace latency in every report and selector, with -o, ktrace
 * dump, dump --check and convert.  None may crash, hang or read out of
 * bounds; a failure must say what was wrong; a trace cut inside a record
 * must be analysed up to the cut and say so.  A broken rule aborts, so
 * libFuzzer keeps the input.
 *
 * An input that starts with the FXT magic is taken as an archive, and gets
 * every command: the corpus of findings (tests/corpus/) replays so.
 *
 * FUZZ_ANALYSES_PRINT=DIR writes each generated archive into DIR (to turn
 * a finding into a corpus file: run the fuzzer on the finding with it set);
 * FUZZ_ANALYSES_COMMANDS=1 runs the commands on every program, not one in
 * 32, and =0 on none.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/critical_path.h"
#include "analyze/latency.h"
#include "analyze/latency_run.h"
#include "analyze/timeline_check.h"
#include "commands.h"
#include "fxt/fxt_writer.h"
#include "lib/json_valid.h"
#include "trace/json_writer.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the program: the fuzzer's bytes, taken a few bits at a time -------- */

struct prog {
	const uint8_t *p;
	size_t n;
};

/* The next byte of the program; 0 once it is used up, which ends the trace. */
static uint8_t byte(struct prog *g)
{
	if (!g->n)
		return 0;
	g->n--;
	return *g->p++;
}

static uint64_t u64(struct prog *g)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | byte(g);
	return v;
}

/* One of @n choices. */
static uint32_t pick(struct prog *g, uint32_t n)
{
	return byte(g) % n;
}

#define PICK(g, arr)	((arr)[pick(g, sizeof(arr) / sizeof((arr)[0]))])

/* ---- the trace's world --------------------------------------------------- */

#define NCPU_SLOTS	8

/*
 * Tids: idle, a few ordinary ones that the program reuses, a thread of
 * another's process, the largest pid Linux has, one past it, an interrupt
 * track's koid and the top of the range.
 */
static const uint32_t tids[] = { 0, 100, 101, 102, 103, 200, 4194304, 4194305,
				 (uint32_t)KTRACE_FXT_IRQ_TID(0), 0xffffffffU };
/*
 * CPUs far apart: every analysis's table of CPUs grows to the highest, so
 * the highest a scheduling record may hold (16 bits: 65535) would cost
 * each trace megabytes of memset; 4095 tells as much.  The others reach
 * the analyses as arguments, which they check before using.
 */
static const uint32_t far_cpus[] = { 63, 4095, 65536, 0xffffffffU };
static const int prios[] = { 120, 120, 49, 0, 1, 139, 140, -1, 100000 };
static const char *const comms[] = {
	"victim", "hog", "waker", "", "fifteen-chars-x", "sixteen-chars-xx",
	"quo\"te\\back", "new\nline", "\xc3\xa9t\xc3\xa9", "\xff\xfe",
};
static const char *const cgroups[] = {
	"/", "/system.slice/cron.service", "/user.slice/user-0.slice", "", "relative",
	"/system.slice/", "//", "/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z",
};
/* Interrupt handlers as the ftrace import names them, and some it does not. */
static const char *const irqs[] = {
	"irq 27 eth0", "softirq TIMER", "softirq RCU", "local_timer 236", "irq -1",
	"softirq ", "softirq", "", "irq 1 i8042 with a much longer name than usual",
};
static const char *const blocked_fns[] = {
	"do_nanosleep", "hrtimer_nanosleep", "schedule_timeout", "pipe_read", "?", "",
	"futex_wait_queue",
};
static const char *const timer_events[] = {
	"hrtimer_start", "hrtimer_expire_entry", "hrtimer_expire_exit", "hrtimer_cancel",
	"timer_start", "timer_expire_entry", "timer_expire_exit",
};
static const uint64_t ticks[] = { 1000000000ULL, 1, 1000, 3000000000ULL, 1ULL << 63,
				  UINT64_MAX, 0 };

struct world {
	struct fxt_writer w;
	uint64_t ts;
	uint32_t running[NCPU_SLOTS];
	uint64_t some_ts;		/* a time in the trace, for --at */
	uint32_t some_tid;		/* a thread in it, for --tid, --pid */
	bool truncated;			/* cut inside a record */
};

static uint32_t tid_of(struct prog *g)
{
	return PICK(g, tids);
}

static uint32_t cpu_of(struct prog *g)
{
	uint8_t b = byte(g);

	return b < 252 ? b & 3 : far_cpus[b & 3];
}

/* A scheduling record's CPU. */
static uint32_t sched_cpu_of(struct prog *g)
{
	return cpu_of(g) & 0xfff;
}

static void words(struct world *wd, const __u64 *buf, uint32_t n)
{
	fxt_write_words(&wd->w, buf, n);
}

/* Time: mostly forward a little, sometimes not at all, back, or very far. */
static void step_time(struct world *wd, struct prog *g)
{
	uint8_t how = byte(g);

	if (how < 160)
		wd->ts += how * 37;
	else if (how < 200)
		wd->ts += (uint64_t)(how - 160) * 1000000;
	else if (how < 224)
		wd->ts -= (uint64_t)(how - 199) * 100;	/* backwards, maybe below 0 */
	else if (how < 232)
		wd->ts = 0;
	else if (how < 240)
		wd->ts = UINT64_MAX - (how - 232) * 1000;
	else
		wd->ts = u64(g);
}

static void op_switch(struct world *wd, struct prog *g)
{
	__u64 buf[KTRACE_FXT_CSWITCH_MAX_WORDS];
	uint32_t cpu = sched_cpu_of(g), slot = cpu % NCPU_SLOTS, in = tid_of(g), out;
	uint32_t state = pick(g, KTRACE_LINUX_STATE_MAX + 3);	/* and two unknown */
	uint32_t kstack = byte(g) < 64 ? pick(g, 6) : 0;

	/* Mostly the thread that is on that CPU; sometimes a stranger. */
	out = byte(g) < 200 ? wd->running[slot] : tid_of(g);
	words(wd, buf, ktrace_fxt_put_cswitch(buf, cpu, wd->ts, out, PICK(g, prios), state, in,
					      PICK(g, prios), kstack == 5 ? 0xffffffffU : kstack));
	wd->running[slot] = in;
	if (in && in <= 4194304)	/* one --pid and --tid take */
		wd->some_tid = in;
}

static void op_wakeup(struct world *wd, struct prog *g)
{
	__u64 buf[KTRACE_FXT_WAKEUP_MAX_WORDS];
	uint32_t cpu = sched_cpu_of(g), ctx = pick(g, KTRACE_CTX_MAX + 2);	/* and one unknown */

	words(wd, buf, ktrace_fxt_put_wakeup(buf, cpu, wd->ts, tid_of(g), PICK(g, prios),
					     byte(g) < 200 ? wd->running[cpu % NCPU_SLOTS] :
					     tid_of(g), ctx, byte(g) < 40 ? u64(g) : 0));
}

/* Migrations (sched_migrate_task), from and to any CPU, known or not. */
static void op_migrate(struct world *wd, struct prog *g)
{
	__u64 buf[KTRACE_FXT_MIGRATE_WORDS];
	uint32_t tid = tid_of(g);

	words(wd, buf, ktrace_fxt_put_migrate(buf, wd->ts, tid, tid, byte(g) < 240 ? cpu_of(g) :
					      (uint32_t)u64(g), byte(g) < 240 ? cpu_of(g) :
					      (uint32_t)u64(g)));
}

/*
 * A change of allowed CPUs: none (every CPU), one CPU, or any mask, of one
 * word or of up to 70 (CPUs above 63, a cut mask, more than 4096 CPUs).
 */
static void op_affinity(struct world *wd, struct prog *g)
{
	__u64 buf[KTRACE_FXT_AFFINITY_WIDE_MAX_WORDS], mask[KTRACE_FXT_CPUS_MAX_WORDS] = { 0 };
	uint32_t tid = tid_of(g), b = byte(g), cpu, nwords;

	if (b >= 230) {
		nwords = 1 + pick(g, 70);
		for (uint32_t i = 0; i < nwords && i < KTRACE_FXT_CPUS_MAX_WORDS; i++)
			mask[i] = byte(g) < 128 ? 0 : u64(g);
		cpu = cpu_of(g);
		if (cpu / 64 < KTRACE_FXT_CPUS_MAX_WORDS)
			mask[cpu / 64] |= 1ULL << cpu % 64;
		words(wd, buf, ktrace_fxt_put_affinity_wide(buf, wd->ts, tid, tid,
							    byte(g) < 20 ? NULL : mask, nwords));
		return;
	}
	words(wd, buf, ktrace_fxt_put_affinity(buf, wd->ts, tid, tid, b < 80 ? 0 :
					       b < 200 ? 1ULL << cpu_of(g) % 64 : u64(g)));
}

/* A sleeper's timer expiry, due before, at or (wrongly) after it fired. */
static void op_timer_expire(struct world *wd, struct prog *g)
{
	__u64 buf[KTRACE_FXT_TIMER_EXPIRE_WORDS];
	uint32_t tid = tid_of(g);
	uint64_t due = wd->ts - (int8_t)byte(g) * 1000;

	words(wd, buf, ktrace_fxt_put_timer_expire(buf, wd->ts, tid, tid, due,
						   byte(g) < 8 ? u64(g) : due + byte(g),
						   byte(g) < 240 ? cpu_of(g) : (uint32_t)u64(g)));
}

/*
 * CFS bandwidth throttling: throttle records on a thread, refills (after
 * the timer's function, with the CPUs left throttled, or not), and the
 * CLI's cgroup_limit records, for a few cgroup ids, known or not.
 */
static void op_throttle(struct world *wd, struct prog *g)
{
	__u64 buf[KTRACE_FXT_CFS_REFILL_WORDS];
	uint64_t id = byte(g) < 240 ? 1 + pick(g, 4) : u64(g);
	uint32_t tid = tid_of(g), r = byte(g);
	struct fxt_arg args[5];

	if (r < 110) {
		words(wd, buf, ktrace_fxt_put_throttle(buf, wd->ts, tid, tid,
						       byte(g) < 240 ? cpu_of(g) : (uint32_t)u64(g),
						       id));
	} else if (r < 220) {
		words(wd, buf, ktrace_fxt_put_cfs_refill(buf, wd->ts, cpu_of(g), id,
							 byte(g) < 128 ? u64(g) : 0, r & 1));
	} else {
		args[0] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "cgroup_id", (int64_t)id);
		args[1] = fxt_arg_str("path", PICK(g, cgroups));
		args[2] = fxt_arg_str("cpu_max", byte(g) & 1 ? "10000 100000" : PICK(g, comms));
		args[3] = fxt_arg_str("cpu_max_end", PICK(g, comms));
		args[4] = fxt_arg_str("hierarchy", byte(g) & 1 ? "v2" : "v1 cpu");
		fxt_write_event(&wd->w, KTRACE_FXT_EV_INSTANT, wd->ts, 0, 0, "ktrace:meta",
				"cgroup_limit", args, pick(g, 6), 0);
	}
}

static void op_name(struct world *wd, struct prog *g)
{
	__u64 buf[KTRACE_FXT_KOBJ_THREAD_MAX_WORDS];
	const char *name = PICK(g, comms);
	uint32_t tid = tid_of(g);

	struct fxt_arg args[3];

	if (byte(g) < 24) {
		/* The state dump's thread with its cgroup v2 path (BPF backend). */
		args[0] = fxt_arg_int(KTRACE_FXT_ARG_KOID, "process", tid_of(g));
		args[1] = fxt_arg_str("cgroup", PICK(g, cgroups));
		args[2] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "cpus", u64(g));
		fxt_write_kobj(&wd->w, KTRACE_FXT_OBJ_THREAD, tid, name, args, 1 + pick(g, 3));
	} else if (byte(g) & 1)
		words(wd, buf, ktrace_fxt_put_kobj_process(buf, tid, name, strlen(name), 0));
	else
		words(wd, buf, ktrace_fxt_put_kobj_thread(buf, tid, tid_of(g), name, strlen(name),
							  byte(g) < 30 ? u64(g) : 0,
							  byte(g) < 60 ? 1 + pick(g, 4) : 0));
}

/* An interrupt handler's begin, end or complete event, as the ftrace import writes them. */
static void op_irq(struct world *wd, struct prog *g)
{
	static const unsigned int types[] = { KTRACE_FXT_EV_DURATION_BEGIN,
					      KTRACE_FXT_EV_DURATION_END,
					      KTRACE_FXT_EV_DURATION_COMPLETE };
	unsigned int type = PICK(g, types);
	uint32_t cpu = cpu_of(g);
	uint64_t pid = KTRACE_FXT_IRQ_PID, tid = KTRACE_FXT_IRQ_TID(cpu);
	uint64_t end = wd->ts + (byte(g) < 200 ? byte(g) * 50 : -(uint64_t)byte(g));

	/* Now and then a track that is not an interrupt track of the interrupts process. */
	if (byte(g) < 8)
		tid = byte(g) & 1 ? KTRACE_FXT_IRQ_PID : tid_of(g);
	fxt_write_event(&wd->w, type, wd->ts, pid, tid, byte(g) & 1 ? "irq" : "irq_vectors",
			PICK(g, irqs), NULL, 0, end);
}

/* Timer events as an --ftrace 'timer:*' recording holds them: instants on a thread. */
static void op_timer(struct world *wd, struct prog *g)
{
	struct fxt_arg args[3];
	uint32_t tid = tid_of(g);

	args[0] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "hrtimer", u64(g));
	args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "expires", wd->ts + byte(g) * 1000);
	args[2] = fxt_arg_str("function", "hrtimer_wakeup");
	fxt_write_event(&wd->w, KTRACE_FXT_EV_INSTANT, wd->ts, tid, tid, "timer",
			PICK(g, timer_events), args, pick(g, 4), 0);
}

static void op_loss(struct world *wd, struct prog *g)
{
	__u64 buf[KTRACE_FXT_DROP_WORDS];
	static const uint64_t counts[] = { 1, 0, 7, 1000000, UINT64_MAX };
	uint64_t first = wd->ts - byte(g) * 100, last = wd->ts + (int8_t)byte(g) * 100;
	struct fxt_arg args[3];

	switch (pick(g, 3)) {
	case 0:
		words(wd, buf, ktrace_fxt_put_drop(buf, wd->ts, cpu_of(g), PICK(g, counts), first,
						   last));
		break;
	case 1:	/* ftrace's own: no time range */
		args[0] = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "cpu", cpu_of(g));
		args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "count", PICK(g, counts));
		args[2] = fxt_arg_str("source", "ftrace");
		fxt_write_event(&wd->w, KTRACE_FXT_EV_INSTANT, wd->ts, 0, 0, "ktrace:meta",
				"dropped", args, 3, 0);
		break;
	default: /* arguments missing or of another type */
		args[0] = fxt_arg_str("cpu", "zero");
		args[1] = fxt_arg_int(KTRACE_FXT_ARG_INT64, "count", -5);
		fxt_write_event(&wd->w, KTRACE_FXT_EV_INSTANT, wd->ts, 0, 0, "ktrace:meta",
				"dropped", args, pick(g, 3), 0);
		break;
	}
}

static void op_untraced(struct world *wd, struct prog *g)
{
	struct fxt_arg args[5];
	uint32_t cpu = cpu_of(g);

	timeline_untraced_args(args, cpu, wd->running[cpu % NCPU_SLOTS], tid_of(g),
			       wd->ts - byte(g) * 10, wd->ts + (int8_t)byte(g) * 10);
	fxt_write_event(&wd->w, KTRACE_FXT_EV_INSTANT, wd->ts, 0, 0, "ktrace:meta",
			"untraced_switch", args, 1 + pick(g, 5), 0);
}

static void op_cpu_state(struct world *wd, struct prog *g)
{
	__u64 buf[KTRACE_FXT_CPU_STATE_WORDS];

	words(wd, buf, ktrace_fxt_put_cpu_state(buf, wd->ts, cpu_of(g), byte(g) & 1));
}

/* A stack's name, as the archive writer gives it before any event (or not). */
static void op_kstack(struct world *wd, struct prog *g)
{
	struct fxt_arg args[3];
	/* Ids far apart are rare: every reader's table of names grows to the highest. */
	static const uint64_t far_ids[] = { 1000, (1U << 20) + 1, 0xffffffffU, 1ULL << 32 };
	uint8_t id = byte(g);

	args[0] = fxt_arg_int(byte(g) < 240 ? KTRACE_FXT_ARG_UINT32 : KTRACE_FXT_ARG_UINT64,
			      "kstack", id < 252 ? id % 6 : far_ids[id & 3]);
	args[1] = fxt_arg_str("blocked_in", PICK(g, blocked_fns));
	args[2] = fxt_arg_str("frames", byte(g) & 1 ? "ret_from_fork;kthread;schedule" : ";;");
	fxt_write_event(&wd->w, KTRACE_FXT_EV_INSTANT, wd->ts, 0, 0, "ktrace:meta", "kstack",
			args, 1 + pick(g, 3), 0);
}

static void op_trigger(struct world *wd, struct prog *g)
{
	__u64 buf[KTRACE_FXT_TRIGGER_WORDS];
	uint32_t tid = tid_of(g);

	words(wd, buf, ktrace_fxt_put_trigger(buf, wd->ts, tid, tid, byte(g) * 1000ULL,
					      wd->ts - byte(g) * 1000ULL, cpu_of(g)));
}

/* A slice ktrace latency -o wrote, read back in: a trace annotated twice. */
static void op_annotation(struct world *wd, struct prog *g)
{
	static const char *const names[] = { "wakeup latency", "preemption latency",
					     "runnable", "S", "wakeup" };
	struct fxt_arg args[3];
	uint32_t tid = tid_of(g);

	args[0] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "latency", byte(g) * 100ULL);
	args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "cpu", cpu_of(g));
	args[2] = fxt_arg_str("blame", "CPU 0 meanwhile: idle 1 us");
	fxt_write_event(&wd->w, byte(g) & 1 ? KTRACE_FXT_EV_DURATION_COMPLETE :
			KTRACE_FXT_EV_FLOW_BEGIN, wd->ts, tid, tid,
			byte(g) & 1 ? "ktrace:latency" : "ktrace:critical_path", PICK(g, names),
			args, pick(g, 4), wd->ts + byte(g) * 100ULL);
}

/* Probes and other events on a thread, of every type. */
static void op_event(struct world *wd, struct prog *g)
{
	struct fxt_arg args[2];
	uint32_t tid = tid_of(g);

	args[0] = fxt_arg_int(KTRACE_FXT_ARG_INT64, "ret", (int8_t)byte(g));
	args[1] = fxt_arg_int(KTRACE_FXT_ARG_KOID, "waker", tid_of(g));
	fxt_write_event(&wd->w, pick(g, KTRACE_FXT_EV_MAX + 1), wd->ts, tid, tid,
			byte(g) & 1 ? "kprobe" : "syscall", byte(g) & 1 ? "do_sys_poll" : "read",
			args, pick(g, 3), wd->ts + byte(g) * 10ULL);
}

/* Another initialization record: the clock's rate changes mid-trace. */
static void op_ticks(struct world *wd, struct prog *g)
{
	__u64 buf[2] = { ktrace_fxt_init_hdr(), PICK(g, ticks) };

	words(wd, buf, 2);
}

/* What the recorder writes once, written again or with odd values: clock syncs, trace info. */
static void op_meta(struct world *wd, struct prog *g)
{
	struct fxt_arg args[5];
	uint32_t tid = tid_of(g);

	if (byte(g) & 1) {
		args[0] = fxt_arg_str("sync_id", byte(g) & 1 ? "1" : "");
		args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "issue_ts", wd->ts - byte(g) * 1000ULL);
		fxt_write_event(&wd->w, KTRACE_FXT_EV_INSTANT, wd->ts, tid, tid, "ktrace:clock",
				"clock_sync", args, pick(g, 3), 0);
		return;
	}
	args[0] = fxt_arg_str("host", PICK(g, comms));
	args[1] = fxt_arg_str("kernel", "6.1.0-fuzz");
	args[2] = fxt_arg_str("backend", PICK(g, comms));
	args[3] = fxt_arg_str("clock", byte(g) & 1 ? "CLOCK_MONOTONIC" :
			      "a clock name longer than any buffer it is copied into");
	args[4] = fxt_arg_str("throttling", byte(g) & 1 ? "recorded" : PICK(g, comms));
	fxt_write_event(&wd->w, KTRACE_FXT_EV_INSTANT, wd->ts, 0, 0, "ktrace:meta", "trace_info",
			args, pick(g, 6), 0);
}

static void (*const ops[])(struct world *, struct prog *) = {
	op_switch, op_switch, op_switch, op_switch, op_wakeup, op_wakeup, op_wakeup,
	op_irq, op_irq, op_irq, op_name, op_timer, op_loss, op_untraced, op_cpu_state,
	op_kstack, op_trigger, op_annotation, op_event, op_ticks, op_meta,
	op_migrate, op_migrate, op_timer_expire, op_timer_expire, op_throttle, op_throttle,
	op_affinity,
};

#define MAX_OPS		512

/* Whether @cut bytes of the @len written are not whole records (no large ones here). */
static bool inside_record(const void *buf, size_t len, size_t cut)
{
	size_t off = 0;

	while (off < cut && off + 8 <= len) {
		uint64_t h;

		memcpy(&h, (const char *)buf + off, 8);
		off += (size_t)((h >> 4) & KTRACE_FXT_MAX_RECORD_WORDS) * 8;
		if (!(h >> 4 & KTRACE_FXT_MAX_RECORD_WORDS))
			abort();	/* the writer never writes an empty record */
	}
	return off != cut;
}

/*
 * The archive for @g in @wd->w.out: the preamble (rarely left out), a
 * start time, the program's records with time steps between them, and
 * maybe a cut.  The size of the archive, after the cut.
 */
static size_t generate(struct world *wd, struct prog *g)
{
	static const uint64_t starts[] = { 1000000000000ULL, 0, 1, UINT64_MAX - 100000,
					   1ULL << 63, 5000000000ULL };
	uint8_t flags = byte(g);
	/* Where the cut goes, read before the records use the program up. */
	uint16_t at = flags & 0x80 ? (uint16_t)(byte(g) << 8 | byte(g)) : 0;
	size_t len;

	memset(wd, 0, sizeof(*wd));
	if (fxt_writer_init(&wd->w, -1))
		abort();
	wd->w.inline_strings = flags & 0x40;
	if (flags != 0xff)
		fxt_write_preamble(&wd->w, 1, "ktrace");
	wd->ts = PICK(g, starts);
	for (int i = 0; i < MAX_OPS && g->n; i++) {
		uint8_t op = byte(g);

		if (op & 0x80)
			step_time(wd, g);
		ops[op % (sizeof(ops) / sizeof(ops[0]))](wd, g);
		if (byte(g) < 4)
			wd->some_ts = wd->ts;
	}
	len = wd->w.out.len;
	/* A cut anywhere, as a full disk or a killed recorder leaves a file. */
	if (flags & 0x80 && len > 8) {
		size_t cut = (size_t)((uint64_t)at * (len - 8) >> 16) + 8;

		wd->truncated = inside_record(wd->w.out.buf, len, cut);
		len = cut;
	}
	return len;
}

/* The trace for the commands, their stderr, and where they write. */
static int trace_fd = -1, err_fd = -1;
static FILE *err_file, *real_stderr, *devnull;
static bool commands_every, commands_never;
static char trace_path[64], dir[64], out_fxt[96], out_json[96];

/* @what in @o must be one JSON value, as browsers' and Python's parsers take it. */
static void check_json(const char *what, struct obuf *o)
{
	size_t at;

	if (json_valid(o->buf, o->len, &at))
		return;
	fprintf(real_stderr, "fuzz_analyses: %s is not JSON at byte %zu of %zu:\n%.*s\n", what,
		at, o->len, (int)(o->len > 4096 ? 4096 : o->len), o->buf);
	abort();
}

/* ---- the commands -------------------------------------------------------- */


/* The command's diagnostics go to err_fd; its report, to standard output, a file too. */
static int run(const char *what, int (*cmd)(int, char **), ...)
{
	char *argv[16], *arg;
	va_list ap;
	int argc = 0, ret;

	va_start(ap, cmd);
	argv[argc++] = (char *)what;
	while ((arg = va_arg(ap, char *)) && argc < 15)
		argv[argc++] = arg;
	va_end(ap);
	argv[argc] = NULL;
	if (ftruncate(err_fd, 0) || ftruncate(STDOUT_FILENO, 0) ||
	    lseek(STDOUT_FILENO, 0, SEEK_SET) < 0)
		abort();
	rewind(err_file);
	optind = 0;	/* glibc: start getopt afresh */
	ret = cmd(argc, argv);
	fflush(stdout);
	fflush(err_file);
	return ret;
}

/* What the last command said on stderr, NUL-terminated. */
static const char *said(void)
{
	static char buf[1 << 16];
	ssize_t n = pread(err_fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = 0;
	return buf;
}

/* Whether the last command's report (its standard output) holds @what. */
static bool reported(const char *what)
{
	static char buf[1 << 20];
	ssize_t n = pread(STDOUT_FILENO, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, what);
}

/* A broken rule: the command line, what it said, and an abort for libFuzzer. */
static void __attribute__((noreturn)) broken(const char *rule, const char *cmd, int ret)
{
	fprintf(real_stderr, "fuzz_analyses: %s: '%s' exited %d; it said:\n%s\n", rule, cmd, ret,
		said());
	abort();
}

/*
 * Every command exits 0 or 1 (2 would be this program's mistake); a 1
 * comes with an error that says what was wrong.
 */
static void check_exit(const char *cmd, int ret)
{
	if (ret != 0 && ret != 1)
		broken("exit status not 0 or 1", cmd, ret);
	if (ret == 1 && !strstr(said(), "ktrace: error: ") && !strstr(said(), "ktrace: warning: "))
		broken("failed without an error message", cmd, ret);
}

/*
 * A trace cut inside a record: a latency report that succeeds says that
 * it analysed what came before the cut, on stderr and in the report itself
 * (text or JSON; --folded is flamegraph.pl's input, with no room for it).
 */
static void check_partial(const struct world *wd, const char *cmd, int ret)
{
	check_exit(cmd, ret);
	if (!wd->truncated || ret != 0)
		return;
	if (!strstr(said(), "input ends inside") && !strstr(said(), "warning: "))
		broken("a truncated trace analysed without saying so", cmd, ret);
	if (!strstr(cmd, "--folded") && !reported("partial answer: the trace stops at offset") &&
	    !reported("\"cut\":{\"offset\":"))
		broken("a truncated trace's report does not say it is partial", cmd, ret);
}

/* The JSON a command wrote to out_json, if it wrote one; it goes after the check. */
static void check_json_file(const char *what)
{
	struct obuf o;
	char chunk[65536];
	ssize_t n;
	int fd = open(out_json, O_RDONLY);

	if (fd < 0)
		return;
	if (obuf_init(&o, -1, sizeof(chunk)))
		abort();
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		obuf_put(&o, chunk, n);
	close(fd);
	unlink(out_json);
	check_json(what, &o);
	obuf_free(&o);
}

#define LATENCY(wd, desc, ...) \
	check_partial(wd, "latency " desc, run("latency", cmd_latency, trace_path, ##__VA_ARGS__, \
					       (char *)NULL))
#define CMD(name, fn, desc, ...) \
	check_exit(name " " desc, run(name, fn, trace_path, ##__VA_ARGS__, (char *)NULL))

static void commands(struct world *wd, struct prog *g)
{
	static const char *const bys[] = { "thread", "process", "cpu", "all", "cgroup" };
	char tid[16], at[32];
	int ret;

	snprintf(tid, sizeof(tid), "%u", wd->some_tid ? wd->some_tid : 1);
	snprintf(at, sizeof(at), "%llu.%09llu", (unsigned long long)(wd->some_ts / 1000000000),
		 (unsigned long long)(wd->some_ts % 1000000000));
	if (!wd->some_ts)
		strcpy(at, "0.000000001");

	LATENCY(wd, "", "--top", "3");
	LATENCY(wd, "--by --hist -m", "--by", (char *)PICK(g, bys), "--hist", "-m");
	LATENCY(wd, "--json --min-latency", "--json", "--top", "8", "--min-latency", "100ns");
	LATENCY(wd, "--folded", "--folded");
	LATENCY(wd, "--pid --json", "--pid", tid, "--json");
	LATENCY(wd, "--critical-path", "--critical-path");
	LATENCY(wd, "--critical-path --tid --json", "--critical-path", "--tid", tid, "--json");
	LATENCY(wd, "--critical-path --at", "--critical-path", "--at", at);
	LATENCY(wd, "--critical-path --comm --cpu", "--critical-path", "--comm",
		(char *)PICK(g, comms), "--cpu", "1");
	LATENCY(wd, "--cgroup --by cgroup --json", "--cgroup", "/system.slice", "--by", "cgroup",
		"--json");
	LATENCY(wd, "-o FXT", "--top", "4", "-o", out_fxt);
	LATENCY(wd, "--critical-path -o JSON", "--critical-path", "-o", out_json);
	check_json_file("latency --critical-path -o JSON");
	LATENCY(wd, "-o JSON", "--top", "2", "-o", out_json);
	check_json_file("latency -o JSON");
	CMD("dump", cmd_dump, "");
	/* Unexplained breaks in the timeline are its verdict, not an error. */
	ret = run("dump", cmd_dump, trace_path, "--check", (char *)NULL);
	if (ret != 0 && ret != 1)
		broken("exit status not 0 or 1", "dump --check", ret);
	CMD("dump", cmd_dump, "--strict --stats", "--strict", "--stats");
	CMD("convert", cmd_convert, "-o JSON", "-o", out_json);
	check_json_file("convert -o JSON");
}

/* ---- the same analyses, called as the commands call them ---------------- */

/*
 * ktrace latency with options the program picks, with or without the
 * critical path; every report and every blame line; the JSON converter;
 * the timeline check.  In memory, without the commands' files.
 */
static void analyses(struct world *wd, struct prog *g, const void *buf, size_t len)
{
	static const uint64_t mins[] = { 0, 0, 1, 1000, UINT64_MAX };
	uint8_t how = byte(g);
	struct lat_opts o = { .by = (how & 3) + ((how & 3) == 3 && byte(g) & 1),
			      .pid = how & 4 ? wd->some_tid : -1,
			      .cgroup = byte(g) < 32 ? PICK(g, cgroups) : NULL,
			      .cpu = how & 8 ? (int64_t)(byte(g) & 3) : -1,
			      .comm = how & 16 ? PICK(g, comms) : NULL,
			      .top = pick(g, 8), .hist = how & 32, .min_ns = PICK(g, mins),
			      .unit_ns = how & 64 ? 1000000 : 1000 };
	struct cp_opts co = { .tid = byte(g) & 1 ? wd->some_tid : -1,
			      .at = byte(g) & 1 ? wd->some_ts : 0, .top = o.top };
	bool critical = how & 128;
	struct cp_analysis *cp;
	struct lat_analysis *a;
	struct fxt_reader r, one;
	struct fxt_record rec, again;
	struct tl_check *c;
	const struct lat_wait *w;
	struct lat_matches m;
	struct obuf out;
	uint32_t n;

	if (obuf_init(&out, -1, 4096))
		abort();
	if (critical)
		o.top = 0;
	a = lat_new(&o);
	cp = critical ? cp_new(a, &co) : NULL;
	lat_run_mem(&(struct lat_run){ a, cp }, buf, len);
	lat_matches(a, &m);
	if (cp) {
		cp_report_text(cp, &out, "fuzz");
		out.len = 0;
		cp_report_json(cp, &out, "fuzz");
		check_json("latency --critical-path --json", &out);
		cp_free(cp);
	}
	lat_report_text(a, &out, "fuzz");
	out.len = 0;
	lat_report_json(a, &out, "fuzz");
	check_json("latency --json", &out);
	lat_report_folded(a, &out);
	w = lat_waits_by_start(a, &n);
	for (uint32_t i = 0; i < n; i++)
		lat_blame_line(a, &w[i], &out);
	lat_free(a);

	out.len = 0;
	fxt_reader_open_mem(&r, buf, len);
	/* Complete JSON even when the input ends early: it holds the records before. */
	json_convert(&r, &out, NULL);
	check_json("convert", &out);
	fxt_reader_close(&r);
	obuf_free(&out);

	/* dump --check, and each record decoded alone as the archive writer does. */
	c = tl_check_new();
	if (!c)
		abort();
	fxt_reader_open_mem(&r, buf, len);
	fxt_reader_open_mem(&one, NULL, 0);
	while (fxt_reader_next(&r, &rec) == 1 && !tl_check_record(c, &r, &rec))
		if (rec.nwords <= KTRACE_FXT_MAX_RECORD_WORDS)
			fxt_reader_decode(&one, rec.w, rec.nwords, &again);
	tl_check_finish(c, &r, devnull);
	fxt_reader_close(&one);
	fxt_reader_close(&r);
	tl_check_free(c);
}

/* The outputs of the last run go: the directory is left empty. */
static void clean_dir(void)
{
	unlink(out_fxt);
	unlink(out_json);
}

/* At exit, the directory goes too. */
static void remove_dir(void)
{
	clean_dir();
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int out = memfd_create("stdout", 0);

	(void)argc;
	(void)argv;
	/*
	 * The commands' outputs are created and removed a dozen times per
	 * program that reaches them: in memory (tmpfs) where there is one, as
	 * creating inodes on a disk's filesystem took a tenth of the time.
	 */
	if (!mkdtemp(strcpy(dir, "/dev/shm/fuzz_analyses.XXXXXX")) &&
	    !mkdtemp(strcpy(dir, "/tmp/fuzz_analyses.XXXXXX")))
		abort();
	trace_fd = memfd_create("trace.fxt", 0);
	err_fd = memfd_create("stderr", 0);
	if (trace_fd < 0 || err_fd < 0 || out < 0 || atexit(remove_dir))
		abort();
	snprintf(trace_path, sizeof(trace_path), "/proc/self/fd/%d", trace_fd);
	snprintf(out_fxt, sizeof(out_fxt), "%s/out.fxt", dir);
	snprintf(out_json, sizeof(out_json), "%s/out.json", dir);
	/* Reports and diagnostics to files this program reads back. */
	if (dup2(out, STDOUT_FILENO) < 0)
		abort();
	close(out);
	err_file = fdopen(err_fd, "w");
	real_stderr = stderr;
	if (!err_file)
		abort();
	stderr = err_file;
	commands_every = getenv("FUZZ_ANALYSES_COMMANDS") &&
			 !strcmp(getenv("FUZZ_ANALYSES_COMMANDS"), "1");
	commands_never = getenv("FUZZ_ANALYSES_COMMANDS") &&
			 !strcmp(getenv("FUZZ_ANALYSES_COMMANDS"), "0");
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	return 0;
}


/* FNV-1a */
static uint32_t hash(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261U;

	while (n--)
		h = (h ^ *p++) * 16777619U;
	return h;
}

/* An input that is an FXT archive already (tests/corpus/) goes in as it is. */
static bool is_archive(const uint8_t *data, size_t size)
{
	uint64_t magic = ktrace_fxt_magic();

	return size >= 8 && !memcmp(data, &magic, 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct world wd;
	struct prog g = { data, size };
	const char *print = getenv("FUZZ_ANALYSES_PRINT");
	bool archive = is_archive(data, size);
	size_t len;
	void *trace;

	if (archive) {
		memset(&wd, 0, sizeof(wd));
		len = size;
		g.n = 0;
		trace = malloc(len + 8);
		if (trace)
			memcpy(trace, data, len);
	} else {
		len = generate(&wd, &g);
		/* The reader wants 8-byte aligned words, as its own buffer gives them. */
		trace = malloc(len + 8);
		if (trace)
			memcpy(trace, wd.w.out.buf, len);
		fxt_writer_finish(&wd.w);
		obuf_free(&wd.w.out);
	}
	if (!trace || ftruncate(trace_fd, 0) || pwrite(trace_fd, trace, len, 0) != (ssize_t)len)
		abort();
	if (print && !archive) {
		char path[4096];
		int fd;

		snprintf(path, sizeof(path), "%s/%08x.fxt", print, hash(data, size));
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, trace, len) != (ssize_t)len || close(fd))
			fprintf(real_stderr, "fuzz_analyses: cannot write %s\n", path);
	}
	analyses(&wd, &g, trace, len);
	/*
	 * The commands themselves, files and all, on one program in 32: by a
	 * hash, so that a finding reproduces, and so that the programs which
	 * reach the commands' code do not breed only their like.  On every
	 * archive given as such.
	 */
	if (commands_every || archive || (!commands_never && !(hash(data, size) & 31))) {
		commands(&wd, &g);
		clean_dir();
	}
	free(trace);
	return 0;
}
