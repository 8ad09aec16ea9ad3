// SPDX-License-Identifier: GPL-2.0
/*
 * FXT records to Chrome trace-event JSON (object format), streaming.
 *
 * Memory is bounded by the number of threads and CPUs, never by the number
 * of records: a slice is written when it ends, a wakeup's flow arrow waits
 * in the woken thread's slot until that thread next runs.
 */
#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/u64map.h"
#include "trace/json_writer.h"
#include "trace/kstack_names.h"
#include "trace/sched.h"

#define NAME_MAX_LEN	96	/* escaped JSON bytes of a thread name */

struct thread {
	uint64_t tid;
	uint64_t pid;
	uint64_t pending_flow;		/* flow id of a wakeup not yet run, 0 if none */
	char name[NAME_MAX_LEN];
	uint8_t name_len;
};

struct cpu {
	uint64_t tid;			/* running thread, 0 = idle */
	uint64_t since;			/* when it was switched in */
	int32_t weight;
	uint64_t after_kstack;		/* where it blocked before it was switched in, 0 */
	bool seen;
};

struct json_writer {
	struct obuf *o;
	struct obuf scratch;		/* in memory, for escaping names */
	bool first_event;
	struct thread *threads;		/* in the order first seen */
	uint32_t nthreads, cap_threads;
	struct u64map thread_map;	/* tid to index into threads */
	struct cpu *cpus;
	uint32_t ncpus;
	uint64_t next_flow;
	uint64_t first_ts, last_ts;
	bool have_ts;

	/* otherData */
	char host[NAME_MAX_LEN], kernel[NAME_MAX_LEN], backend[32], clock[32];
	uint64_t dropped;
	uint64_t *dropped_cpu;
	uint32_t ndropped_cpu;
	uint64_t buffer_full_events;
	uint64_t skipped_blobs;
	uint64_t records;
	struct kstack_names kstacks;	/* where threads blocked, by stack id */
};

static struct thread *thread_get(struct json_writer *j, uint64_t tid)
{
	bool added;
	struct thread *t = u64map_vec_get(&j->thread_map, tid, &j->threads, &j->nthreads,
					  &j->cap_threads, sizeof(*t), &added);

	if (!t)
		out_of_memory("the JSON writer's threads");
	if (added) {
		t->tid = tid;
		t->pid = tid;	/* until a kernel object says otherwise */
	}
	return t;
}

static struct cpu *cpu_get(struct json_writer *j, unsigned int cpu)
{
	if (cpu >= j->ncpus) {
		uint32_t n = cpu + 1 > j->ncpus * 2 ? cpu + 1 : j->ncpus * 2;
		struct cpu *c = xrealloc(j->cpus, n * sizeof(*c), "the JSON writer's CPUs");

		memset(c + j->ncpus, 0, (n - j->ncpus) * sizeof(*c));
		j->cpus = c;
		j->ncpus = n;
	}
	return &j->cpus[cpu];
}

struct json_writer *json_writer_new(struct obuf *out)
{
	struct json_writer *j = xcalloc(1, sizeof(*j), "the JSON writer");

	j->o = out;
	j->first_event = true;
	if (obuf_init(&j->scratch, -1, 1024))
		out_of_memory("the JSON writer");
	strcpy(j->clock, "CLOCK_MONOTONIC");
	obuf_lit(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	return j;
}

void json_writer_free(struct json_writer *j)
{
	if (!j)
		return;
	obuf_free(&j->scratch);
	free(j->threads);
	u64map_free(&j->thread_map);
	free(j->cpus);
	free(j->dropped_cpu);
	kstack_names_free(&j->kstacks);
	free(j);
}

static const char sched_cat[] = "sched";

/* Opens an event object: {"name":...,"cat":...,"ph":"X","ts":...,"pid":..,"tid":.. */
static void ev_begin(struct json_writer *j, const char *name, size_t name_len, const char *cat,
		     size_t cat_len, char ph, uint64_t ts, uint64_t pid, uint64_t tid)
{
	struct obuf *o = j->o;

	if (j->first_event)
		j->first_event = false;
	else
		obuf_lit(o, ",\n");
	obuf_lit(o, "{\"name\":");
	if (cat == sched_cat) {
		/* The converter's own events: names and category need no escaping. */
		obuf_putc(o, '"');
		obuf_put(o, name, name_len);
		obuf_lit(o, "\",\"cat\":\"sched\"");
	} else {
		obuf_json_str(o, name, name_len);
		if (cat_len) {
			obuf_lit(o, ",\"cat\":");
			obuf_json_str(o, cat, cat_len);
		}
	}
	obuf_lit(o, ",\"ph\":\"");
	obuf_putc(o, ph);
	obuf_lit(o, "\",\"ts\":");
	obuf_us(o, ts);
	obuf_lit(o, ",\"pid\":");
	obuf_u64(o, pid);
	obuf_lit(o, ",\"tid\":");
	obuf_u64(o, tid);
}

static void ev_meta(struct json_writer *j, const char *what, uint64_t pid, uint64_t tid,
		    const char *key, const char *val, size_t len, bool is_num, int64_t num)
{
	struct obuf *o = j->o;

	ev_begin(j, what, strlen(what), "__metadata", 10, 'M', 0, pid, tid);
	obuf_lit(o, ",\"args\":{\"");
	obuf_puts(o, key);
	obuf_lit(o, "\":");
	if (is_num)
		obuf_i64(o, num);
	else
		obuf_json_str(o, val, len);
	obuf_lit(o, "}}");
}

static void arg_value(struct obuf *o, const struct fxt_arg *a)
{
	switch (a->type) {
	case KTRACE_FXT_ARG_NULL:
		obuf_lit(o, "null");
		break;
	case KTRACE_FXT_ARG_INT32:
	case KTRACE_FXT_ARG_INT64:
		obuf_i64(o, a->i);
		break;
	case KTRACE_FXT_ARG_UINT32:
	case KTRACE_FXT_ARG_UINT64:
	case KTRACE_FXT_ARG_KOID:
		obuf_u64(o, a->u);
		break;
	case KTRACE_FXT_ARG_DOUBLE:
		obuf_double(o, a->d);
		break;
	case KTRACE_FXT_ARG_STRING:
		obuf_json_str(o, a->s.p, a->s.len);
		break;
	case KTRACE_FXT_ARG_POINTER:
		obuf_putc(o, '"');
		obuf_hex(o, a->u);
		obuf_putc(o, '"');
		break;
	case KTRACE_FXT_ARG_BOOL:
		if (a->u)
			obuf_lit(o, "true");
		else
			obuf_lit(o, "false");
		break;
	default:
		obuf_lit(o, "\"unknown\"");
	}
}

static void args_obj(struct obuf *o, const struct fxt_arg *args, unsigned int nargs)
{
	obuf_lit(o, ",\"args\":{");
	for (unsigned int i = 0; i < nargs; i++) {
		if (i)
			obuf_putc(o, ',');
		obuf_json_str(o, args[i].name.p, args[i].name.len);
		obuf_putc(o, ':');
		arg_value(o, &args[i]);
	}
	obuf_putc(o, '}');
}

static const char *end_state(const struct fxt_record *rec, char *buf)
{
	/* Either layout: a compact archive's legacy switch has it from the reader. */
	const struct fxt_arg *ls = fxt_find_arg(rec, "linux_state");

	if (ls && ls->type == KTRACE_FXT_ARG_UINT32 && ls->u <= KTRACE_LINUX_STATE_MAX) {
		buf[0] = KTRACE_LINUX_STATE_LETTERS[ls->u];
		buf[1] = 0;
		return buf;
	}
	return fxt_thread_state_name(rec->out_state);
}

/* The kernel function a slice's thread blocked in at its end, if recorded. */
static void put_fn(struct obuf *o, const char *key, const char *fn)
{
	if (!fn)
		return;
	obuf_printf(o, ",\"%s\":", key);
	obuf_json_str(o, fn, strlen(fn));
}

/*
 * Where the thread blocked: before this slice (after_blocked_in, as the
 * recorders give it, at the switch-in), or at its end (blocked_in, as
 * older recordings have it).
 */
static void put_blocked_in(struct json_writer *j, const struct cpu *c, const char *blocked_in)
{
	put_fn(j->o, "after_blocked_in", kstack_names_blocked_in(&j->kstacks, c->after_kstack));
	put_fn(j->o, "blocked_in", blocked_in);
}

/* What names a thread no record names: never empty, never a real name. */
static size_t unnamed(char *buf, size_t size, uint64_t tid)
{
	return snprintf(buf, size, "<unnamed %llu>", (unsigned long long)tid);
}

/* The slice a CPU ran @tid for, and the same on the thread's own track. */
static void emit_run(struct json_writer *j, unsigned int cpu, struct cpu *c, uint64_t end,
		     const char *state, const char *blocked_in)
{
	struct thread *t = thread_get(j, c->tid);
	struct obuf *o = j->o;
	uint64_t dur = end > c->since ? end - c->since : 0;
	const char *name = t->name_len ? t->name : NULL;
	char tmp[32];
	size_t len;

	if (!name) {
		len = unnamed(tmp, sizeof(tmp), t->tid);
		name = tmp;
	} else {
		len = t->name_len;
	}
	ev_begin(j, name, len, sched_cat, 5, 'X', c->since, JSON_CPU_PID, JSON_CPU_PID + cpu);
	obuf_lit(o, ",\"dur\":");
	obuf_us(o, dur);
	obuf_lit(o, ",\"args\":{\"tid\":");
	obuf_u64(o, t->tid);
	obuf_lit(o, ",\"pid\":");
	obuf_u64(o, t->pid);
	obuf_lit(o, ",\"prio\":");
	obuf_i64(o, (int64_t)KTRACE_FXT_PRIO_BASE - c->weight);
	obuf_lit(o, ",\"end_state\":\"");
	obuf_puts(o, state);
	obuf_putc(o, '"');
	put_blocked_in(j, c, blocked_in);
	obuf_lit(o, "}}");

	ev_begin(j, "Running", 7, sched_cat, 5, 'X', c->since, t->pid, t->tid);
	obuf_lit(o, ",\"dur\":");
	obuf_us(o, dur);
	obuf_lit(o, ",\"args\":{\"cpu\":");
	obuf_u64(o, cpu);
	obuf_lit(o, ",\"end_state\":\"");
	obuf_puts(o, state);
	obuf_putc(o, '"');
	put_blocked_in(j, c, blocked_in);
	obuf_lit(o, "}}");
}

static void on_cpu_seen(struct json_writer *j, unsigned int cpu)
{
	struct cpu *c = cpu_get(j, cpu);
	char name[32];
	int n;

	if (c->seen)
		return;
	c->seen = true;
	n = snprintf(name, sizeof(name), "CPU %u", cpu);
	ev_meta(j, "thread_name", JSON_CPU_PID, JSON_CPU_PID + cpu, "name", name, n, false, 0);
	ev_meta(j, "thread_sort_index", JSON_CPU_PID, JSON_CPU_PID + cpu, "sort_index", NULL, 0,
		true, cpu);
	if (cpu == 0 || j->ncpus == 1) {
		ev_meta(j, "process_name", JSON_CPU_PID, JSON_CPU_PID, "name", "CPUs", 4, false, 0);
		ev_meta(j, "process_sort_index", JSON_CPU_PID, JSON_CPU_PID, "sort_index", NULL, 0,
			true, -1);
	}
}

static int32_t weight_arg(const struct fxt_record *rec, const char *name, int32_t dflt)
{
	const struct fxt_arg *a = fxt_find_arg(rec, name);

	return a && a->type == KTRACE_FXT_ARG_INT32 ? (int32_t)a->i : dflt;
}

static void on_switch(struct json_writer *j, const struct fxt_record *rec)
{
	struct sched_switch sw;
	struct cpu *c;
	struct thread *in;
	char buf[4];
	int32_t in_w;

	on_cpu_seen(j, rec->cpu);
	c = cpu_get(j, rec->cpu);
	sched_switch_of(rec, &sw);
	if (rec->sub == KTRACE_FXT_SCHED_CSWITCH) {
		/* Process 0 is none known: a kernel object may have said which. */
		if (rec->out_tid && rec->out_pid)
			thread_get(j, rec->out_tid)->pid = rec->out_pid;
		if (rec->in_tid && rec->in_pid)
			thread_get(j, rec->in_tid)->pid = rec->in_pid;
		in_w = rec->in_pid == 0 && rec->in_prio == 0 ? KTRACE_FXT_IDLE_WEIGHT :
		       (int32_t)rec->in_prio;
	} else {
		in_w = weight_arg(rec, "incoming_weight", 0);
	}
	/* The first switch on a CPU: the outgoing thread ran since the trace began. */
	if (!c->tid && rec->out_tid && c->since == 0) {
		c->tid = rec->out_tid;
		c->since = j->first_ts;
		c->weight = rec->sub == KTRACE_FXT_SCHED_CSWITCH ? (int32_t)rec->out_prio :
			    weight_arg(rec, "outgoing_weight", 0);
	}
	if (c->tid)
		emit_run(j, rec->cpu, c, rec->ts, end_state(rec, buf),
			 kstack_names_blocked_in(&j->kstacks, sw.kstack));
	c->tid = rec->in_tid;
	c->since = rec->ts;
	c->weight = in_w;
	c->after_kstack = sw.in_kstack;
	if (!rec->in_tid)
		return;
	in = thread_get(j, rec->in_tid);
	if (in->pending_flow) {
		ev_begin(j, "wakeup", 6, sched_cat, 5, 'f', rec->ts, in->pid, in->tid);
		obuf_lit(j->o, ",\"bp\":\"e\",\"id\":");
		obuf_u64(j->o, in->pending_flow);
		obuf_putc(j->o, '}');
		in->pending_flow = 0;
	}
}

/*
 * A wakeup from an interrupt is drawn on the CPU it happened on, with no
 * flow arrow: the task it interrupted did not wake anyone.
 */
static void on_irq_wakeup(struct json_writer *j, const struct fxt_record *rec, uint64_t ctx)
{
	const struct fxt_arg *ia = fxt_find_arg(rec, "interrupted");
	struct obuf *o = j->o;

	on_cpu_seen(j, rec->cpu);
	/* Whatever wakeup came before is superseded. */
	thread_get(j, rec->tid)->pending_flow = 0;
	ev_begin(j, "wakeup", 6, sched_cat, 5, 'i', rec->ts, JSON_CPU_PID,
		 JSON_CPU_PID + rec->cpu);
	obuf_lit(o, ",\"s\":\"t\",\"args\":{\"tid\":");
	obuf_u64(o, rec->tid);
	obuf_lit(o, ",\"cpu\":");
	obuf_u64(o, rec->cpu);
	obuf_lit(o, ",\"irq_context\":\"");
	obuf_puts(o, ktrace_irq_context_name(ctx));
	obuf_putc(o, '"');
	if (ia && ia->type == KTRACE_FXT_ARG_KOID) {
		obuf_lit(o, ",\"interrupted\":");
		obuf_u64(o, ia->u);
	}
	obuf_lit(o, "}}");
}

static void on_wakeup(struct json_writer *j, const struct fxt_record *rec)
{
	const struct fxt_arg *wa = fxt_find_arg(rec, "waker");
	const struct fxt_arg *ca = fxt_find_arg(rec, "irq_context");
	uint64_t waker = wa && wa->type == KTRACE_FXT_ARG_KOID ? wa->u : 0;
	struct obuf *o = j->o;
	uint64_t id;
	struct thread *w, *t;

	if (ca && ca->type == KTRACE_FXT_ARG_UINT32 && ca->u != KTRACE_CTX_TASK) {
		on_irq_wakeup(j, rec, ca->u);
		return;
	}
	id = ++j->next_flow;
	/* Insert both first: an insert may move the table. */
	thread_get(j, waker);
	t = thread_get(j, rec->tid);
	w = thread_get(j, waker);

	if (waker == 0)
		w->pid = 0;
	ev_begin(j, "wakeup", 6, sched_cat, 5, 'i', rec->ts, w->pid, w->tid);
	obuf_lit(o, ",\"s\":\"t\",\"args\":{\"tid\":");
	obuf_u64(o, t->tid);
	obuf_lit(o, ",\"cpu\":");
	obuf_u64(o, rec->cpu);
	obuf_lit(o, "}}");
	ev_begin(j, "wakeup", 6, sched_cat, 5, 's', rec->ts, w->pid, w->tid);
	obuf_lit(o, ",\"id\":");
	obuf_u64(o, id);
	obuf_putc(o, '}');
	/* A second wakeup before the thread runs supersedes the first. */
	t->pending_flow = id;
}

/*
 * A process_name or thread_name metadata event, with the cgroup (v2) of
 * the thread (of a process, its main thread's) where the record gives it:
 * "cgroup" (its path) and "cgroup_id".
 */
static void ev_name(struct json_writer *j, const char *what, uint64_t pid, uint64_t tid,
		    const struct fxt_record *rec)
{
	const struct fxt_arg *path = fxt_find_arg(rec, "cgroup");
	uint64_t id = fxt_arg_u64(rec, "cgroup_id", 0);
	struct obuf *o = j->o;

	if (!id && (!path || path->type != KTRACE_FXT_ARG_STRING)) {
		ev_meta(j, what, pid, tid, "name", rec->name.p, rec->name.len, false, 0);
		return;
	}
	ev_begin(j, what, strlen(what), "__metadata", 10, 'M', 0, pid, tid);
	obuf_lit(o, ",\"args\":{\"name\":");
	obuf_json_str(o, rec->name.p, rec->name.len);
	if (path && path->type == KTRACE_FXT_ARG_STRING) {
		obuf_lit(o, ",\"cgroup\":");
		obuf_json_str(o, path->s.p, path->s.len);
	}
	if (id) {
		obuf_lit(o, ",\"cgroup_id\":");
		obuf_u64(o, id);
	}
	obuf_lit(o, "}}");
}

static void on_kobj(struct json_writer *j, const struct fxt_record *rec)
{
	const struct fxt_arg *proc;
	struct thread *t;
	uint32_t len;

	if (rec->obj_type == KTRACE_FXT_OBJ_PROCESS) {
		ev_name(j, "process_name", rec->koid, rec->koid, rec);
		return;
	}
	if (rec->obj_type != KTRACE_FXT_OBJ_THREAD)
		return;
	t = thread_get(j, rec->koid);
	proc = fxt_find_arg(rec, "process");
	if (proc && proc->type == KTRACE_FXT_ARG_KOID)
		t->pid = proc->u;
	/* Kept escaped: CPU slices are named after the thread, many times over. */
	len = rec->name.len < NAME_MAX_LEN / 6 ? rec->name.len : NAME_MAX_LEN / 6;
	j->scratch.len = 0;
	obuf_json_str(&j->scratch, rec->name.p, len);
	memcpy(t->name, j->scratch.buf + 1, j->scratch.len - 2);
	t->name_len = j->scratch.len - 2;
	ev_name(j, "thread_name", t->pid, t->tid, rec);
}

static void copy_arg_str(char *dst, size_t size, const struct fxt_record *rec, const char *name)
{
	fxt_arg_copy_str(dst, size, fxt_find_arg(rec, name));
}

static void on_drop(struct json_writer *j, const struct fxt_record *rec)
{
	const struct fxt_arg *cpu = fxt_find_arg(rec, "cpu"), *cnt = fxt_find_arg(rec, "count");
	uint64_t n = cnt ? cnt->u : 0;

	j->dropped += n;
	if (cpu && cpu->u < 65536) {
		if (cpu->u >= j->ndropped_cpu) {
			uint32_t m = cpu->u + 1;
			uint64_t *d = realloc(j->dropped_cpu, m * sizeof(*d));

			if (!d)
				return;
			memset(d + j->ndropped_cpu, 0, (m - j->ndropped_cpu) * sizeof(*d));
			j->dropped_cpu = d;
			j->ndropped_cpu = m;
		}
		j->dropped_cpu[cpu->u] += n;
	}
}

/*
 * The kernel switched on this CPU without tracing it: the thread switched
 * in last ran from its switch-in until some time before the next switch.
 * Its slice ends where that stretch begins, and the stretch is drawn on the
 * CPU as what it is.
 */
static void on_untraced(struct json_writer *j, const struct fxt_reader *r,
			const struct fxt_record *rec)
{
	const struct fxt_arg *cpu = fxt_find_arg(rec, "cpu"), *tid = fxt_find_arg(rec, "tid");
	const struct fxt_arg *first = fxt_find_arg(rec, "first_ts");
	const struct fxt_arg *last = fxt_find_arg(rec, "last_ts");
	uint64_t from, to;
	struct cpu *c;

	if (!cpu || !tid || !first || !last || cpu->u >= 65536)
		return;
	from = fxt_ticks_to_ns(r, first->u);
	to = fxt_ticks_to_ns(r, last->u);
	on_cpu_seen(j, cpu->u);
	c = cpu_get(j, cpu->u);
	if (c->tid && c->tid == tid->u) {
		emit_run(j, cpu->u, c, from, "untraced", NULL);
		c->tid = 0;
	}
	ev_begin(j, "untraced switch", 15, sched_cat, 5, 'X', from, JSON_CPU_PID,
		 JSON_CPU_PID + cpu->u);
	obuf_lit(j->o, ",\"dur\":");
	obuf_us(j->o, to > from ? to - from : 0);
	obuf_lit(j->o, ",\"args\":{\"tid\":");
	obuf_u64(j->o, tid->u);
	obuf_lit(j->o, "}}");
}

/*
 * The CPU went down (a cpu_offline record): the thread switched in there
 * last ran until then at most, since an offline CPU traces nothing, not even
 * its last switch.  Its slice ends here, and the CPU starts afresh when it
 * comes back.
 */
static void on_cpu_offline(struct json_writer *j, const struct fxt_record *rec, uint64_t ts)
{
	const struct fxt_arg *cpu = fxt_find_arg(rec, "cpu");
	struct cpu *c;

	if (!cpu || cpu->u >= 65536)
		return;
	on_cpu_seen(j, cpu->u);
	c = cpu_get(j, cpu->u);
	if (c->tid)
		emit_run(j, cpu->u, c, ts, "cpu offline", NULL);
	c->tid = 0;
	c->since = ts;
}

static const char phase[] = {
	[KTRACE_FXT_EV_INSTANT] = 'i',
	[KTRACE_FXT_EV_COUNTER] = 'C',
	[KTRACE_FXT_EV_DURATION_BEGIN] = 'B',
	[KTRACE_FXT_EV_DURATION_END] = 'E',
	[KTRACE_FXT_EV_DURATION_COMPLETE] = 'X',
	[KTRACE_FXT_EV_ASYNC_BEGIN] = 'b',
	[KTRACE_FXT_EV_ASYNC_INSTANT] = 'n',
	[KTRACE_FXT_EV_ASYNC_END] = 'e',
	[KTRACE_FXT_EV_FLOW_BEGIN] = 's',
	[KTRACE_FXT_EV_FLOW_STEP] = 't',
	[KTRACE_FXT_EV_FLOW_END] = 'f',
};

static void on_event(struct json_writer *j, const struct fxt_reader *r,
		     const struct fxt_record *rec)
{
	struct obuf *o = j->o;
	uint64_t end, ts = fxt_ticks_to_ns(r, rec->ts);
	bool meta = fxt_str_eq(rec->cat, "ktrace:meta");

	/* phase[] has the types the spec knows; the reader refuses others, checked here too. */
	if (rec->sub >= ARRAY_SIZE(phase))
		return;
	/* The table of stacks: kept for the slices' args, not drawn. */
	if (meta && kstack_names_note(&j->kstacks, rec))
		return;
	if (meta && fxt_str_eq(rec->name, "trace_info")) {
		copy_arg_str(j->host, sizeof(j->host), rec, "host");
		copy_arg_str(j->kernel, sizeof(j->kernel), rec, "kernel");
		copy_arg_str(j->backend, sizeof(j->backend), rec, "backend");
		copy_arg_str(j->clock, sizeof(j->clock), rec, "clock");
		return;
	}
	if (fxt_str_eq(rec->cat, "ktrace:clock") && fxt_str_eq(rec->name, "clock_sync")) {
		const struct fxt_arg *id = fxt_find_arg(rec, "sync_id");
		const struct fxt_arg *issue = fxt_find_arg(rec, "issue_ts");

		ev_begin(j, "clock_sync", 10, "__metadata", 10, 'c', ts, rec->pid, rec->tid);
		obuf_lit(o, ",\"args\":{\"sync_id\":");
		if (id && id->type == KTRACE_FXT_ARG_STRING)
			obuf_json_str(o, id->s.p, id->s.len);
		else
			obuf_lit(o, "\"\"");
		if (issue && issue->type == KTRACE_FXT_ARG_UINT64) {
			obuf_lit(o, ",\"issue_ts\":");
			obuf_us(o, fxt_ticks_to_ns(r, issue->u));
		}
		obuf_lit(o, "}}");
		return;
	}
	if (meta && fxt_str_eq(rec->name, "dropped"))
		on_drop(j, rec);
	if (meta && fxt_str_eq(rec->name, "untraced_switch"))
		on_untraced(j, r, rec);
	if (meta && fxt_str_eq(rec->name, "cpu_offline"))
		on_cpu_offline(j, rec, ts);

	/*
	 * Chrome groups the phases of one flow by category, name and id, while
	 * FXT names each flow event after its own slice: name them all "flow".
	 */
	if (rec->sub >= KTRACE_FXT_EV_FLOW_BEGIN)
		ev_begin(j, "flow", 4, rec->cat.p, rec->cat.len, phase[rec->sub], ts, rec->pid,
			 rec->tid);
	else
		ev_begin(j, rec->name.p, rec->name.len, rec->cat.p, rec->cat.len,
			 phase[rec->sub], ts, rec->pid, rec->tid);
	switch (rec->sub) {
	case KTRACE_FXT_EV_INSTANT:
		if (meta)
			obuf_lit(o, ",\"s\":\"g\"");
		else
			obuf_lit(o, ",\"s\":\"t\"");
		break;
	case KTRACE_FXT_EV_COUNTER:
		obuf_lit(o, ",\"id\":");
		obuf_u64(o, rec->extra);
		break;
	case KTRACE_FXT_EV_DURATION_COMPLETE:
		obuf_lit(o, ",\"dur\":");
		end = fxt_ticks_to_ns(r, rec->extra);
		obuf_us(o, end > ts ? end - ts : 0);
		break;
	case KTRACE_FXT_EV_ASYNC_BEGIN:
	case KTRACE_FXT_EV_ASYNC_INSTANT:
	case KTRACE_FXT_EV_ASYNC_END:
		obuf_lit(o, ",\"id\":\"");
		obuf_hex(o, rec->extra);
		obuf_putc(o, '"');
		break;
	case KTRACE_FXT_EV_FLOW_BEGIN:
	case KTRACE_FXT_EV_FLOW_STEP:
	case KTRACE_FXT_EV_FLOW_END:
		obuf_lit(o, ",\"bp\":\"e\",\"id\":\"");
		obuf_hex(o, rec->extra);
		obuf_putc(o, '"');
		break;
	}
	if (rec->nargs)
		args_obj(o, rec->args, rec->nargs);
	obuf_putc(o, '}');
}

void json_writer_record(struct json_writer *j, const struct fxt_reader *r,
			const struct fxt_record *rec)
{
	struct obuf *o = j->o;
	uint64_t ts;

	j->records++;
	switch (rec->type) {
	case KTRACE_FXT_REC_EVENT:
	case KTRACE_FXT_REC_SCHED:
	case KTRACE_FXT_REC_LOG:
		ts = fxt_ticks_to_ns(r, rec->ts);
		if (!j->have_ts || ts < j->first_ts)
			j->first_ts = ts;
		if (!j->have_ts || ts > j->last_ts)
			j->last_ts = ts;
		j->have_ts = true;
		break;
	}
	switch (rec->type) {
	case KTRACE_FXT_REC_EVENT:
		on_event(j, r, rec);
		break;
	case KTRACE_FXT_REC_KERNEL_OBJ:
		on_kobj(j, rec);
		break;
	case KTRACE_FXT_REC_SCHED: {
		struct fxt_record tmp = *rec;

		tmp.ts = fxt_ticks_to_ns(r, rec->ts);
		if (rec->sub == KTRACE_FXT_SCHED_WAKEUP)
			on_wakeup(j, &tmp);
		else if (rec->sub <= KTRACE_FXT_SCHED_CSWITCH_ARGS)
			on_switch(j, &tmp);
		break;
	}
	case KTRACE_FXT_REC_LOG:
		ev_begin(j, "log", 3, "log", 3, 'i', fxt_ticks_to_ns(r, rec->ts), rec->pid,
			 rec->tid);
		obuf_lit(o, ",\"s\":\"t\",\"args\":{\"message\":");
		obuf_json_str(o, rec->msg.p, rec->msg.len);
		obuf_lit(o, "}}");
		break;
	case KTRACE_FXT_REC_METADATA:
		if (rec->sub == KTRACE_FXT_META_PROVIDER_EVENT &&
		    rec->meta_event == KTRACE_FXT_PROVIDER_EVENT_BUFFER_FULL)
			j->buffer_full_events++;
		break;
	case KTRACE_FXT_REC_BLOB:
	case KTRACE_FXT_REC_LARGE:
		j->skipped_blobs++;
		break;
	}
}

static void other_str(struct obuf *o, const char *key, const char *val)
{
	obuf_putc(o, ',');
	obuf_json_str(o, key, strlen(key));
	obuf_putc(o, ':');
	obuf_json_str(o, val, strlen(val));
}

void json_writer_finish(struct json_writer *j, const char *embedded_ftrace)
{
	struct obuf *o = j->o;

	/* Threads still on a CPU at the end ran until the last event. */
	for (uint32_t cpu = 0; cpu < j->ncpus; cpu++)
		if (j->cpus[cpu].tid)
			emit_run(j, cpu, &j->cpus[cpu], j->last_ts, "running", NULL);
	/* A thread no record named gets a track name that says so. */
	for (uint32_t i = 0; i < j->nthreads; i++) {
		struct thread *t = &j->threads[i];
		char name[32];

		if (t->name_len || !t->tid || t->tid >= KTRACE_FXT_IRQ_PID)
			continue;
		ev_meta(j, "thread_name", t->pid, t->tid, "name", name,
			unnamed(name, sizeof(name), t->tid), false, 0);
	}
	obuf_lit(o, "\n],\n\"otherData\":{\"generator\":\"ktrace\"");
	if (j->host[0])
		other_str(o, "host", j->host);
	if (j->kernel[0])
		other_str(o, "kernel", j->kernel);
	if (j->backend[0])
		other_str(o, "backend", j->backend);
	other_str(o, "clock", j->clock);
	obuf_lit(o, ",\"records\":");
	obuf_u64(o, j->records);
	obuf_lit(o, ",\"dropped\":");
	obuf_u64(o, j->dropped);
	obuf_lit(o, ",\"dropped_by_cpu\":{");
	for (uint32_t c = 0, n = 0; c < j->ndropped_cpu; c++) {
		if (!j->dropped_cpu[c])
			continue;
		if (n++)
			obuf_putc(o, ',');
		obuf_putc(o, '"');
		obuf_u64(o, c);
		obuf_lit(o, "\":");
		obuf_u64(o, j->dropped_cpu[c]);
	}
	obuf_lit(o, "},\"buffer_full_events\":");
	obuf_u64(o, j->buffer_full_events);
	obuf_lit(o, "},\n\"metadata\":{\"clock-domain\":\"LINUX_CLOCK_MONOTONIC\"}");
	if (embedded_ftrace) {
		obuf_lit(o, ",\n\"systemTraceEvents\":");
		obuf_json_str(o, embedded_ftrace, strlen(embedded_ftrace));
	}
	obuf_lit(o, "}\n");
}

int json_convert(struct fxt_reader *r, struct obuf *out, const char *embedded_ftrace)
{
	struct json_writer *j = json_writer_new(out);
	struct fxt_record rec;
	int ret;

	while ((ret = fxt_reader_next(r, &rec)) > 0)
		json_writer_record(j, r, &rec);
	json_writer_finish(j, embedded_ftrace);
	json_writer_free(j);
	if (ret < 0)
		return ret;
	return r->skipped ? -EINVAL : 0;
}

int json_convert_fd(int fxt_fd, int out_fd, const char *embedded_ftrace, uint64_t *bytes)
{
	struct fxt_reader r;
	struct obuf o;
	int ret;

	if (lseek(fxt_fd, 0, SEEK_SET) < 0)
		return -errno;
	ret = fxt_reader_open_fd(&r, fxt_fd, "trace");
	if (!ret)
		ret = obuf_init(&o, out_fd, 4 << 20);
	if (!ret) {
		ret = json_convert(&r, &o, embedded_ftrace);
		if (ret == -EINVAL && r.fatal.msg[0])
			pr_err("offset %llu: %s: %s", (unsigned long long)r.fatal.offset,
			       r.fatal.field, r.fatal.msg);
		if (!ret)
			ret = obuf_flush(&o);
		*bytes = o.total;
		obuf_free(&o);
	}
	fxt_reader_close(&r);
	return ret;
}
