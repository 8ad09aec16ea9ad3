// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel stacks of blocked threads: names from /proc/kallsyms, the rule
 * that picks the function a thread blocked in, and the archive's table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/utils.h"
#include "record/kstacks.h"

int kstacks_add(struct kstack_table *t, uint32_t id, const uint64_t *ip, uint32_t nframes)
{
	struct kstack_entry *e;

	while (nframes && !ip[nframes - 1])
		nframes--;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 256;
		struct kstack_entry *more = realloc(t->e, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		t->e = more;
		t->cap = cap;
	}
	e = &t->e[t->n];
	e->id = id;
	e->nframes = nframes;
	e->names = NULL;
	e->ip = malloc((nframes ? nframes : 1) * sizeof(*e->ip));
	if (!e->ip)
		return -ENOMEM;
	memcpy(e->ip, ip, nframes * sizeof(*e->ip));
	t->n++;
	return 0;
}

struct ksym {
	uint64_t addr;
	char *name;
};

static int cmp_ksym(const void *x, const void *y)
{
	const struct ksym *p = x, *q = y;

	return p->addr < q->addr ? -1 : p->addr > q->addr;
}

/*
 * Text symbols from /proc/kallsyms, sorted; 0 and a reason when there are
 * none to use (unreadable, or every address hidden by kptr_restrict).
 */
static size_t load_kallsyms(struct ksym **out, const char **why)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	struct ksym *v = NULL;
	size_t n = 0, cap = 0;
	char line[512], name[256], type;
	unsigned long long addr;

	*out = NULL;
	if (!f) {
		*why = strerror(errno);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		char *dot;

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (n == cap) {
			struct ksym *more;

			cap = cap ? 2 * cap : 65536;
			more = realloc(v, cap * sizeof(*v));
			if (!more)
				break;
			v = more;
		}
		/* Compiler clones (.constprop.0, .isra.0, .cold) are their function. */
		dot = strchr(name, '.');
		if (dot && dot != name)
			*dot = 0;
		v[n].addr = addr;
		v[n].name = strdup(name);
		if (!v[n].name)
			break;
		n++;
	}
	fclose(f);
	if (!n) {
		free(v);
		*why = "every address is hidden (kernel.kptr_restrict, or not root)";
		return 0;
	}
	qsort(v, n, sizeof(*v), cmp_ksym);
	*out = v;
	return n;
}

static const char *ksym_name(const struct ksym *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	if (!n || addr < v[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return v[lo].name;
}

/*
 * The kernel's .sched.text: schedule() and what is marked __sched (the
 * waits with timeouts, do_nanosleep(), the sleeping locks' slow paths).
 * The BPF backend's stacks never have those frames (bpf_get_task_stack()
 * leaves them out); the module's are made alike here.  Empty if unknown.
 */
static void sched_text(const struct ksym *v, size_t n, uint64_t *lo, uint64_t *hi)
{
	*lo = *hi = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(v[i].name, "__sched_text_start"))
			*lo = v[i].addr;
		else if (!strcmp(v[i].name, "__sched_text_end"))
			*hi = v[i].addr;
	}
	if (*hi <= *lo)
		*lo = *hi = 0;
}

/*
 * The kernel's text symbols, read once per process: `ktrace watch` names
 * the stacks of every window, and reading /proc/kallsyms took most of its
 * time.  (A module loaded since is not named.)
 */
static struct ksym *cached_syms;
static size_t ncached_syms;
static bool syms_read;

void kstacks_resolve(struct kstack_table *t, bool raw)
{
	const char *why = NULL;
	struct ksym *syms = NULL;
	size_t nsyms = 0;
	uint64_t sched_lo, sched_hi;

	if (!t->n)
		return;
	if (!raw && !syms_read) {
		ncached_syms = load_kallsyms(&cached_syms, &why);
		syms_read = true;
		if (!ncached_syms)
			pr_warn("cannot name the kernel functions threads blocked in: /proc/kallsyms: %s; they are written as \"?\" (record as root with kernel.kptr_restrict below 2, or with --raw-stacks to keep the addresses)",
				why);
	}
	if (!raw) {
		syms = cached_syms;
		nsyms = ncached_syms;
	}
	t->resolved = nsyms > 0;
	sched_text(syms, nsyms, &sched_lo, &sched_hi);
	for (uint32_t i = 0; i < t->n; i++) {
		struct kstack_entry *e = &t->e[i];
		uint32_t kept = 0;

		for (uint32_t j = 0; j < e->nframes; j++)
			if (e->ip[j] < sched_lo || e->ip[j] >= sched_hi)
				e->ip[kept++] = e->ip[j];
		e->nframes = kept;
		e->names = calloc(e->nframes ? e->nframes : 1, sizeof(*e->names));
		for (uint32_t j = 0; e->names && j < e->nframes; j++) {
			const char *s = ksym_name(syms, nsyms, e->ip[j]);
			char hex[24];

			/* No kernel address unless asked for: "?" where no name is known. */
			if (!s && raw) {
				snprintf(hex, sizeof(hex), "0x%" PRIx64, e->ip[j]);
				s = hex;
			} else if (!s) {
				s = "?";
			}
			e->names[j] = strdup(s);
		}
	}
}

static bool prefixed(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Frames of the recorder itself, below the scheduler: the tracepoint, the
 * BPF trampolines and helpers, the module's probe and stack walk.
 */
static bool tracing_frame(const char *s)
{
	static const char *const p[] = {
		"bpf_", "__bpf_", "___bpf_", "__traceiter_", "trace_", "__trace_",
		"perf_", "ktrace_", "probe_sched_switch", "stack_trace_save", "arch_stack_walk",
	};

	for (size_t i = 0; i < ARRAY_SIZE(p); i++)
		if (prefixed(s, p[i]))
			return true;
	return false;
}

/*
 * The scheduler and what only waits on its behalf: schedule() and its
 * variants with timeouts, the generic waits for a completion, and the
 * slow paths of the sleeping locks (mutex, rw-semaphore, semaphore,
 * rt_mutex and PREEMPT_RT's spinlocks), so a lock wait is reported at the
 * lock's caller: pipe_read, not __mutex_lock.
 */
static bool scheduler_frame(const char *s)
{
	static const char *const p[] = {
		"__schedule", "schedule", "preempt_schedule", "io_schedule",
		"__cond_resched", "wait_for_completion", "__wait_for_common",
		"do_wait_for_common", "__mutex_lock", "mutex_lock", "__mutex_lock_slowpath",
		"rwsem_down_", "down_read", "down_write", "__down", "down",
		"rt_mutex_", "__rt_mutex_", "rt_spin_lock", "rtlock_", "rwbase_",
		"__percpu_down_", "percpu_down_", "__rt_spin_lock", "__wait_rcu_gp",
	};

	for (size_t i = 0; i < ARRAY_SIZE(p); i++)
		if (prefixed(s, p[i]))
			return true;
	return false;
}

/*
 * Innermost first, the stack goes: the recorder's frames, the scheduler's,
 * maybe a wait helper or a lock's slow path, then the function that
 * decided to wait.  That one is the answer; a stack with nothing past the
 * scheduler (cut short) gets its last frame.
 */
const char *kstack_blocked_in(char *const *names, uint32_t n)
{
	uint32_t i = 0;

	while (i < n && names[i] && tracing_frame(names[i]))
		i++;
	while (i < n && names[i] && scheduler_frame(names[i]))
		i++;
	if (i < n && names[i])
		return names[i];
	return n && names[n - 1] ? names[n - 1] : "?";
}

void kstacks_write(const struct kstack_table *t, struct fxt_writer *w, uint64_t ts, bool frames)
{
	struct obuf o;

	if (obuf_init(&o, -1, 1024))
		return;
	for (uint32_t i = 0; i < t->n; i++) {
		const struct kstack_entry *e = &t->e[i];
		struct fxt_arg args[3];
		unsigned int nargs = 2;

		if (!e->names)
			continue;
		args[0] = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "kstack", e->id);
		args[1] = fxt_arg_str("blocked_in", kstack_blocked_in(e->names, e->nframes));
		if (frames) {
			uint32_t first = 0;

			/* The recorder's own frames are not where the thread blocked. */
			while (first < e->nframes && e->names[first] &&
			       tracing_frame(e->names[first]))
				first++;
			o.len = 0;
			for (uint32_t j = e->nframes; j-- > first;)
				obuf_printf(&o, "%s%s", e->names[j] ? e->names[j] : "?",
					    j > first ? ";" : "");
			obuf_printf(&o, "%c", 0);
			args[nargs++] = fxt_arg_str("frames", o.buf ? o.buf : "");
		}
		fxt_write_event(w, KTRACE_FXT_EV_INSTANT, ts, 0, 0, "ktrace:meta", "kstack", args,
				nargs, 0);
	}
	free(o.buf);
}

void kstacks_free(struct kstack_table *t)
{
	for (uint32_t i = 0; i < t->n; i++) {
		for (uint32_t j = 0; t->e[i].names && j < t->e[i].nframes; j++)
			free(t->e[i].names[j]);
		free(t->e[i].names);
		free(t->e[i].ip);
	}
	free(t->e);
	memset(t, 0, sizeof(*t));
}
