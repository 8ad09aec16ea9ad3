// SPDX-License-Identifier: GPL-2.0
/* The BPF recorder: loads bpf/sched.bpf.c and drains its per-CPU buffers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <linux/ktrace_fxt.h>
#include "sched.bpf.h"
#include "sched.skel.h"

#include "lib/utils.h"
#include "record/drain_stats.h"
#include "record/kstacks.h"
#include "record/record.h"

struct source_bpf {
	struct sched_bpf *skel;
	struct ktrace_bpf_ctl *ctl;	/* mmap of the control blocks */
	uint64_t *data;			/* mmap of the buffers */
	size_t ctl_len, data_len;
	uint64_t words;			/* per buffer, a power of two */
	struct spool *spools;		/* one per buffer */
	unsigned int ncpus;
	unsigned int nbufs;		/* per CPU: scheduler, then probes if -p */
	uint64_t uncommitted;		/* bytes reserved but never published */
	const struct record_opts *opts;
	struct bpf_link *probe_links[2 * 64];	/* -p: kprobes and kretprobes */
	unsigned int nlinks;
	struct kstack_table kstacks;	/* where threads blocked, read at stop */
	uint64_t start_ns, stop_ns;	/* the span: every program records (struct ktrace_bpf_span) */
	struct drain_stats drain;
	char throttling[160];		/* trace_info's "throttling" */
	int err;
};

/* Distinct stacks a session interns before it records no more. */
#define KSTACK_IDS	16384

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	fputs("ktrace: libbpf: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/*
 * Whether this kernel can run the BPF recorder with @o: -ENOTSUP when it
 * cannot (too old, no BTF, no kprobes for -p), -EPERM when it may lack
 * the privileges; @why says which.
 */
static int bpf_probe(const struct record_opts *o, char *why, size_t len)
{
	struct utsname u;

	uname(&u);
	/* BPF atomics (5.12) and bpf_get_current_task_btf() (5.11). */
	if (kernel_older_than(u.release, 5, 12)) {
		snprintf(why, len,
			 "the kernel (%s) is older than 5.12: the BPF backend needs Linux 5.12 or later",
			 u.release);
		return -ENOTSUP;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, len,
			 "the kernel (%s) has no BTF (/sys/kernel/btf/vmlinux): the BPF backend needs CONFIG_DEBUG_INFO_BTF=y",
			 u.release);
		return -ENOTSUP;
	}
	if (o->nprobes && access("/sys/kernel/tracing/kprobe_events", F_OK) &&
	    access("/sys/kernel/debug/tracing/kprobe_events", F_OK) &&
	    access("/sys/bus/event_source/devices/kprobe", F_OK)) {
		snprintf(why, len,
			 "-p needs kprobes, and this kernel (%s) has none: record on a kernel with CONFIG_KPROBES",
			 u.release);
		return -ENOTSUP;
	}
	/* The probes name their events through BPF attach cookies. */
	if (o->nprobes && kernel_older_than(u.release, 5, 15)) {
		snprintf(why, len,
			 "-p with the BPF backend needs Linux 5.15 or later (BPF attach cookies), and this is %s: load the module (insmod ktrace.ko)",
			 u.release);
		return -ENOTSUP;
	}
	if (geteuid() != 0) {
		/* Capabilities may still allow it: the load will say. */
		snprintf(why, len, "not root: the BPF backend needs root, or CAP_BPF and CAP_PERFMON");
		return -EPERM;
	}
	return 0;
}

static void *map_shared(struct bpf_map *map, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);

	return p == MAP_FAILED ? NULL : p;
}

static size_t page_round(size_t n)
{
	size_t page = sysconf(_SC_PAGESIZE);

	return (n + page - 1) / page * page;
}

static int attach_probe(struct source_bpf *s, struct bpf_program *prog, const char *sym,
			unsigned int index, bool ret)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = index, .retprobe = ret);
	struct bpf_link *link = bpf_program__attach_kprobe_opts(prog, sym, &opts);

	if (!link)
		return -errno;
	s->probe_links[s->nlinks++] = link;
	return 0;
}

/* -p probes, with their name's string index as the cookie; before START. */
static int attach_probes(struct source_bpf *s)
{
	const struct record_opts *o = s->opts;

	for (unsigned int i = 0; i < o->nprobes; i++) {
		const char *sym = o->probes[i].symbol;
		unsigned int idx = KTRACE_FXT_STR_FIRST_PROBE + i;
		int ret;

		if (o->probes[i].duration) {
			ret = attach_probe(s, s->skel->progs.ktrace_probe_entry, sym, idx, false);
			if (!ret)
				ret = attach_probe(s, s->skel->progs.ktrace_probe_return, sym, idx,
						   true);
		} else {
			ret = attach_probe(s, s->skel->progs.ktrace_kprobe, sym, idx, false);
		}
		if (ret) {
			pr_err("-p %s:%s: %s", o->probes[i].duration ? "duration" : "kprobe", sym,
			       ret == -ENOENT ? "no such symbol in this kernel (see /proc/kallsyms)" :
			       ret == -EINVAL ? "cannot be probed (inlined, notrace or blacklisted)" :
			       strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static void detach_probes(struct source_bpf *s)
{
	while (s->nlinks)
		bpf_link__destroy(s->probe_links[--s->nlinks]);
}

/*
 * The kernel's static functions and per-CPU variable the recorder needs
 * the addresses of, found in one pass over /proc/kallsyms (a slow file:
 * under emulation each pass costs seconds, libbpf's own included).
 */
enum { KSYM_PREEMPT_COUNT, KSYM_HRTIMER_WAKEUP, KSYM_CFS_PERIOD, KSYM_CFS_SLACK, NKSYMS };

static void find_ksyms(uint64_t *addrs)
{
	static const char *const names[NKSYMS] = {
		[KSYM_PREEMPT_COUNT] = "__preempt_count",
		[KSYM_HRTIMER_WAKEUP] = "hrtimer_wakeup",
		[KSYM_CFS_PERIOD] = "sched_cfs_period_timer",
		[KSYM_CFS_SLACK] = "sched_cfs_slack_timer",
	};

	if (kallsyms_find(names, addrs, NKSYMS) < 0)
		memset(addrs, 0, NKSYMS * sizeof(*addrs));
}

/*
 * Whether the exact build of the recorder can load here.  arm64 keeps the
 * preempt count in each task's thread_info, which the recorder reads
 * through the current task's BTF: any arm64 kernel with BTF has it.
 * Elsewhere vmlinux BTF must have the per-CPU preempt count (else libbpf
 * would search module BTF, which needs CAP_SYS_ADMIN) and kallsyms must
 * list it (the verifier needs its address).
 */
static bool preempt_count_usable(const struct btf *vmlinux, const uint64_t *ksyms)
{
#ifdef __aarch64__
	(void)vmlinux;
	(void)ksyms;
	return true;
#else
	return vmlinux && ksyms[KSYM_PREEMPT_COUNT] &&
	       btf__find_by_name_kind(vmlinux, "__preempt_count", BTF_KIND_VAR) >= 0;
#endif
}

/* Whether the kernel has raw tracepoint @name: libbpf_find_vmlinux_btf_id() on loaded BTF. */
static bool has_tracepoint(const struct btf *vmlinux, const char *name)
{
	char type[128];

	snprintf(type, sizeof(type), "btf_trace_%s", name);
	return vmlinux && btf__find_by_name_kind(vmlinux, type, BTF_KIND_TYPEDEF) >= 0;
}

/*
 * Opens the recorder: the exact build where it can load, else the one that
 * counts interrupts from their tracepoints (the programs for the vectors
 * this kernel lacks are left out).  The kernel's BTF is parsed once here,
 * and what throttling this kernel allows is noted in @throttling.
 */
static struct sched_bpf *open_recorder(char *throttling, size_t len, bool record_irqs)
{
	static const char *const vector_tps[] = {
		"local_timer_entry", "local_timer_exit", "irq_work_entry", "irq_work_exit",
	};
	struct sched_bpf *skel = calloc(1, sizeof(*skel));
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct bpf_program *depth_progs[8];
	uint64_t ksyms[NKSYMS];
	bool exact;
	int ret;

	find_ksyms(ksyms);
	exact = preempt_count_usable(vmlinux, ksyms);
	throttle_layout_read(vmlinux, NULL, throttling, len);
	if (!skel) {
		btf__free(vmlinux);
		return NULL;
	}
	ret = sched_bpf__create_skeleton(skel);
	if (!ret && exact)
		skel->skeleton->data = bpf_exact_elf(&skel->skeleton->data_sz);
	if (!ret)
		ret = bpf_object__open_skeleton(skel->skeleton, NULL);
	if (ret) {
		btf__free(vmlinux);
		sched_bpf__destroy(skel);
		errno = -ret;
		return NULL;
	}
	skel->rodata->hrtimer_wakeup_fn = ksyms[KSYM_HRTIMER_WAKEUP];
	/* Both timers or neither. */
	if (ksyms[KSYM_CFS_PERIOD] && ksyms[KSYM_CFS_SLACK]) {
		skel->rodata->cfs_period_timer_fn = ksyms[KSYM_CFS_PERIOD];
		skel->rodata->cfs_slack_timer_fn = ksyms[KSYM_CFS_SLACK];
	}
	depth_progs[0] = skel->progs.ktrace_irq_enter;
	depth_progs[1] = skel->progs.ktrace_irq_exit;
	depth_progs[2] = skel->progs.ktrace_softirq_enter;
	depth_progs[3] = skel->progs.ktrace_softirq_exit;
	depth_progs[4] = skel->progs.ktrace_timer_enter;
	depth_progs[5] = skel->progs.ktrace_timer_exit;
	depth_progs[6] = skel->progs.ktrace_irq_work_enter;
	depth_progs[7] = skel->progs.ktrace_irq_work_exit;
	/*
	 * The interrupt programs count the depth in the build without the
	 * preempt count, and record handlers' runs with @record_irqs;
	 * irq_work's only count.
	 */
	skel->rodata->irq_depth_on = !exact;
	for (size_t i = 0; i < ARRAY_SIZE(depth_progs); i++)
		bpf_program__set_autoload(depth_progs[i], (!exact || (i < 6 && record_irqs)) &&
					  (i < 4 || has_tracepoint(vmlinux, vector_tps[i - 4])));
	/* A kernel without CPU hotplug has no cpuhp tracepoints, and no hotplug to record. */
	bpf_program__set_autoload(skel->progs.ktrace_cpuhp_enter,
				  has_tracepoint(vmlinux, "cpuhp_enter"));
	bpf_program__set_autoload(skel->progs.ktrace_cpuhp_exit,
				  has_tracepoint(vmlinux, "cpuhp_exit"));
	btf__free(vmlinux);
	return skel;
}

static int bpf_open(void **out, const struct record_opts *o, struct spool *spools,
		    unsigned int nspools)
{
	struct source_bpf *s = calloc(1, sizeof(*s));
	struct utsname u;
	int ret, ncpus;

	if (!s)
		return -ENOMEM;
	*out = s;
	libbpf_set_print(o->verbose ? libbpf_print : quiet_print);
	uname(&u);
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0 || (unsigned int)ncpus * (o->nprobes ? 2 : 1) > nspools) {
		pr_err("cannot count the possible CPUs (%d)", ncpus);
		return -EINVAL;
	}
	s->nbufs = ncpus * (o->nprobes ? 2 : 1);
	s->ncpus = ncpus;
	s->spools = spools;
	s->words = o->buffer_size / 8;
	if ((uint64_t)s->nbufs * s->words > UINT32_MAX) {
		pr_err("--buffer-size %llu is too large for %d CPUs",
		       (unsigned long long)o->buffer_size, ncpus);
		return -E2BIG;
	}
	s->skel = open_recorder(s->throttling, sizeof(s->throttling), o->irqs);
	if (!s->skel) {
		ret = -errno;
		pr_err("cannot open the BPF recorder: %s", strerror(-ret));
		return ret;
	}
	s->skel->rodata->nchunks = s->words / KTRACE_BPF_CHUNK_WORDS;
	s->skel->rodata->nr_cpus = ncpus;
	s->skel->rodata->ring = o->ring;
	s->skel->rodata->record_irqs = o->irqs;
	if (o->trigger_ns) {
		s->skel->rodata->trigger_ns = o->trigger_ns;
		s->skel->rodata->after_ns = o->after_ns;
		s->skel->rodata->trigger_pid = o->trigger_pid;
		memcpy((char *)s->skel->rodata->trigger_comm, o->trigger_comm,
		       sizeof(s->skel->rodata->trigger_comm));
		s->skel->rodata->trigger_rt = o->trigger_rt;
		s->skel->rodata->trigger_cgroup = o->trigger_cgroup;
		s->skel->rodata->trigger_cgroup_v1 = o->trigger_cgroup_v1;
		s->skel->rodata->trigger_preempted = o->trigger_preempted;
		bpf_map__set_max_entries(s->skel->maps.wake_slots, KTRACE_WAKE_SLOTS);
	}
	if (o->stack_depth) {
		s->skel->rodata->stack_depth = o->stack_depth;
		s->skel->rodata->blocked_min_ns = o->blocked_min_ns;
		bpf_map__set_key_size(s->skel->maps.kstack_ids, o->stack_depth * 8);
		bpf_map__set_max_entries(s->skel->maps.kstack_ids, KSTACK_IDS);
	}
	s->opts = o;
	/* Probe programs load only when asked for (a kernel may lack kprobes). */
	if (!o->nprobes) {
		bpf_program__set_autoload(s->skel->progs.ktrace_kprobe, false);
		bpf_program__set_autoload(s->skel->progs.ktrace_probe_entry, false);
		bpf_program__set_autoload(s->skel->progs.ktrace_probe_return, false);
	}
	bpf_map__set_max_entries(s->skel->maps.ctl, s->nbufs);
	bpf_map__set_max_entries(s->skel->maps.data, s->nbufs * (s->words / KTRACE_BPF_CHUNK_WORDS));
	ret = sched_bpf__load(s->skel);
	if (ret) {
		pr_err("cannot load the BPF recorder into kernel %s: %s%s", u.release,
		       strerror(-ret),
		       ret == -EPERM ? " (needs root, or CAP_BPF and CAP_PERFMON)" :
		       " (run with -v for the verifier's log)");
		return ret;
	}
	ret = attach_probes(s);
	if (ret)
		return ret;
	s->ctl_len = page_round(s->nbufs * sizeof(*s->ctl));
	s->data_len = page_round(s->nbufs * s->words * 8);
	s->ctl = map_shared(s->skel->maps.ctl, s->ctl_len);
	s->data = map_shared(s->skel->maps.data, s->data_len);
	if (!s->ctl || !s->data) {
		ret = -errno;
		pr_err("cannot map the recorder's buffers: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

/* Moves @words at word @pos (a run of whole records) to the spool, then clears them. */
static void spool_run(struct source_bpf *s, unsigned int buf, uint64_t *d, uint64_t pos,
		      uint64_t words)
{
	uint64_t *p = &d[pos & (s->words - 1)];

	if (!words)
		return;
	if (spool_add_run(&s->spools[buf], p, words) == -EIO)
		s->err = -EIO;
	memset(p, 0, words * 8);
}

/*
 * Moves one buffer's committed records to its spool, in runs: records lie
 * back to back until a chunk's padding or the buffer's end.  At the end
 * (@final), space reserved but never published is counted and skipped.
 */
static void drain_buf(struct source_bpf *s, unsigned int buf, bool final)
{
	struct ktrace_bpf_ctl *c = &s->ctl[buf];
	uint64_t *d = s->data + buf * s->words, mask = s->words - 1;
	uint64_t head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
	uint64_t tail = c->tail, run = tail / 8;

	while (tail < head) {
		uint64_t pos = tail / 8, h = __atomic_load_n(&d[pos & mask], __ATOMIC_ACQUIRE);
		uint32_t words = ktrace_fxt_rec_words(h);

		if (!(pos & mask)) {
			/* The buffer's end: a run cannot wrap. */
			spool_run(s, buf, d, run, pos - run);
			run = pos;
		}
		if (!h && !final)
			break;		/* a writer is between reserve and publish */
		if (h == KTRACE_BPF_PAD) {
			/* The rest of this chunk holds nothing. */
			spool_run(s, buf, d, run, pos - run);
			d[pos & mask] = 0;
			tail = (tail | (KTRACE_BPF_CHUNK_WORDS * 8 - 1)) + 1;
			run = tail / 8;
			continue;
		}
		if (!h || words == 0 || words > KTRACE_BPF_WIDE_MAX_WORDS || words * 8 > head - tail ||
		    ktrace_fxt_rec_type(h) == KTRACE_FXT_REC_LARGE) {
			/* Never published, or not a record: skip what is left. */
			spool_run(s, buf, d, run, pos - run);
			s->uncommitted += head - tail;
			for (uint64_t i = pos; i < head / 8; i++)
				d[i & mask] = 0;
			tail = head;
			run = tail / 8;
			break;
		}
		tail += words * 8;
	}
	spool_run(s, buf, d, run, tail / 8 - run);
	__atomic_store_n(&c->tail, tail, __ATOMIC_RELEASE);
}

/*
 * The interrupt-counting programs, every exit before any entry: an
 * interrupt that began before its entry program was attached is never
 * counted in, so none is counted in without being counted out.  The
 * skeleton leaves programs attached here alone.
 */
static int attach_irq_depth(struct sched_bpf *skel)
{
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} order[] = {
		{ skel->progs.ktrace_irq_exit, &skel->links.ktrace_irq_exit },
		{ skel->progs.ktrace_softirq_exit, &skel->links.ktrace_softirq_exit },
		{ skel->progs.ktrace_timer_exit, &skel->links.ktrace_timer_exit },
		{ skel->progs.ktrace_irq_work_exit, &skel->links.ktrace_irq_work_exit },
		{ skel->progs.ktrace_irq_enter, &skel->links.ktrace_irq_enter },
		{ skel->progs.ktrace_softirq_enter, &skel->links.ktrace_softirq_enter },
		{ skel->progs.ktrace_timer_enter, &skel->links.ktrace_timer_enter },
		{ skel->progs.ktrace_irq_work_enter, &skel->links.ktrace_irq_work_enter },
	};

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		if (!bpf_program__autoload(order[i].prog))
			continue;
		*order[i].link = bpf_program__attach(order[i].prog);
		if (!*order[i].link)
			return -errno;
	}
	return 0;
}

/*
 * The wakeup programs before the switch program: a thread seen blocking
 * is then never woken unseen, so every timeline checks from its first
 * switch on (the skeleton attaches the rest).
 */
static int attach_wakeups(struct sched_bpf *skel)
{
	skel->links.ktrace_sched_waking = bpf_program__attach(skel->progs.ktrace_sched_waking);
	if (!skel->links.ktrace_sched_waking)
		return -errno;
	skel->links.ktrace_sched_wakeup_new =
		bpf_program__attach(skel->progs.ktrace_sched_wakeup_new);
	return skel->links.ktrace_sched_wakeup_new ? 0 : -errno;
}

/*
 * The span's start, stored a little ahead of its instant: a program that
 * reads its clock at or after the start then reads the start too, as the
 * store (a full barrier) was done half a millisecond or more before that
 * instant, far longer than any CPU executes a load ahead of a clock read.
 * Stored at once, a program that read the clock just after it could still
 * have read a start of 0 and dropped its record.  A thread that lost its
 * CPU between reading the clock and storing stores a later start (the
 * archive keeps nothing before it).  Returns once the start has passed.
 */
#define SPAN_LEAD_NS	1000000ULL

static uint64_t start_span(struct source_bpf *s)
{
	uint64_t start, now;

	do {
		start = now_mono_ns() + SPAN_LEAD_NS;
		__atomic_store_n(&s->skel->bss->span.start, start, __ATOMIC_SEQ_CST);
	} while (now_mono_ns() > start - SPAN_LEAD_NS / 2);
	while ((now = now_mono_ns()) < start)
		usleep((start - now) / 1000 + 1);
	return start;
}

/* Every program attached, then the span's start. */
static int bpf_start(void *priv)
{
	struct source_bpf *s = priv;
	int ret = attach_irq_depth(s->skel);

	if (!ret)
		ret = attach_wakeups(s->skel);
	if (!ret)
		ret = sched_bpf__attach(s->skel);
	if (ret) {
		pr_err("cannot attach the BPF recorder to the scheduler tracepoints: %s",
		       strerror(-ret));
		return ret;
	}
	s->start_ns = start_span(s);
	return 0;
}

/* The reader polls: writers never wake it, which keeps them cheap. */
static int bpf_poll(void *priv, int timeout_ms)
{
	struct source_bpf *s = priv;
	bool busy = false;

	drain_stats_pass(&s->drain);
	for (unsigned int buf = 0; buf < s->nbufs; buf++) {
		struct ktrace_bpf_ctl *c = &s->ctl[buf];

		drain_stats_fill(&s->drain, buf, __atomic_load_n(&c->head, __ATOMIC_RELAXED) - c->tail);
		drain_buf(s, buf, false);
		if (__atomic_load_n(&c->head, __ATOMIC_RELAXED) - c->tail > s->words * 2)
			busy = true;	/* a quarter full already: come back at once */
	}
	if (!busy)
		usleep((timeout_ms < 10 ? timeout_ms : 10) * 1000);
	return s->err;
}

/* What each program records, for the loss records of the runs the kernel skipped. */
static const char *const prog_records[][2] = {
	{ "ktrace_sched_switch", "context switch" },
	{ "ktrace_sched_waking", "wakeup" },
	{ "ktrace_sched_wakeup_new", "wakeup of a new task" },
	{ "ktrace_sched_migrate_task", "migration" },
	{ "ktrace_sched_process_fork", "thread name (fork)" },
	{ "ktrace_sched_process_exec", "thread name (exec)" },
	{ "ktrace_task_rename", "thread name (rename)" },
	{ "ktrace_kprobe", "probe event" },
	{ "ktrace_probe_entry", "probe duration begin" },
	{ "ktrace_probe_return", "probe duration end" },
	{ "ktrace_cpuhp_enter", "CPU offline or online" },
	{ "ktrace_cpuhp_exit", "CPU offline or online" },
	/* Runs for every hrtimer: a skipped run lost a record only for a sleeper's. */
	{ "ktrace_hrtimer_expire_entry", "timer expiry" },
	/* Runs for every hrtimer: a skipped run lost a record only for a bandwidth timer's. */
	{ "ktrace_hrtimer_expire_exit", "run queues still throttled after a refill" },
};

static const char *records_of(const char *prog)
{
	for (size_t i = 0; i < ARRAY_SIZE(prog_records); i++)
		if (!strcmp(prog, prog_records[i][0]))
			return prog_records[i][1];
	/* The interrupt counters: a wakeup from an interrupt may look like a task's. */
	return "interrupt nesting count";
}

/*
 * Runs the kernel skipped because a BPF program was already running on
 * that CPU (its recursion protection), per program, as loss records: the
 * kernel counts them per program, not per CPU nor in time, so the record
 * names no CPU and covers the whole recording.
 */
static uint64_t recursion_misses(struct source_bpf *s, uint64_t stop_ns)
{
	struct fxt_writer *w = spool_writer_new(&s->spools[0]);
	struct bpf_program *prog;
	uint64_t n = 0;

	bpf_object__for_each_program(prog, s->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		struct fxt_arg args[6];

		if (bpf_program__fd(prog) < 0 ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) ||
		    !info.recursion_misses)
			continue;
		n += info.recursion_misses;
		args[0] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "count", info.recursion_misses);
		args[1] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "first_ts", s->start_ns);
		args[2] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "last_ts", stop_ns);
		args[3] = fxt_arg_str("program", bpf_program__name(prog));
		args[4] = fxt_arg_str("lost", records_of(bpf_program__name(prog)));
		args[5] = fxt_arg_str("why", "the kernel skipped the program: another BPF program was running on that CPU; which CPU and when are unknown");
		if (w)
			fxt_write_event(w, KTRACE_FXT_EV_INSTANT, stop_ns, 0, 0, "ktrace:meta",
					"dropped", args, ARRAY_SIZE(args), 0);
		pr_warn("%llu %s records were not recorded: the kernel skipped %s while another BPF program ran on that CPU",
			(unsigned long long)info.recursion_misses,
			records_of(bpf_program__name(prog)), bpf_program__name(prog));
	}
	if (!w || w->sink_err)
		s->err = w ? w->sink_err : -ENOMEM;
	spool_writer_free(w);
	return n;
}

/* The interned stacks, named: the archive's table of where threads blocked. */
static void read_kstacks(struct source_bpf *s)
{
	int fd = bpf_map__fd(s->skel->maps.kstack_ids);
	uint64_t key[KTRACE_KSTACK_MAX_DEPTH] = { 0 }, next[KTRACE_KSTACK_MAX_DEPTH] = { 0 };
	void *prev = NULL;
	__u32 id;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		if (!bpf_map_lookup_elem(fd, next, &id) &&
		    kstacks_add(&s->kstacks, id, next, s->opts->stack_depth)) {
			pr_err("out of memory reading the kernel stacks");
			break;
		}
		memcpy(key, next, sizeof(key));
		prev = key;
	}
	if (s->skel->bss->kstack_full)
		pr_warn("%llu switches found the table of %u kernel stacks full: where they blocked is not recorded",
			(unsigned long long)s->skel->bss->kstack_full, KSTACK_IDS);
	kstacks_resolve(&s->kstacks, s->opts->raw_stacks);
}

static void bpf_head(void *priv, struct fxt_writer *w, uint64_t ts)
{
	struct source_bpf *s = priv;

	kstacks_write(&s->kstacks, w, ts, s->opts->stacks);
}
/*
 * Every buffer into its spool once no program writes more (after the
 * stop, or a trigger's window): in ring mode its last buffer's worth, from
 * its first whole chunk; losses after the last record that fitted written
 * at the end.  Returns the bytes a ring wrote over.
 */
static uint64_t drain_all(struct source_bpf *s, struct record_stats *st)
{
	uint64_t overwritten = 0;

	drain_stats_pass(&s->drain);
	for (unsigned int buf = 0; buf < s->nbufs; buf++) {
		struct ktrace_bpf_ctl *c = &s->ctl[buf];
		__u64 rec[KTRACE_FXT_DROP_WORDS], total = s->words * 8;

		drain_stats_fill(&s->drain, buf, c->head - c->tail);
		if (s->opts->ring && c->head - c->tail > total) {
			/* The last buffer's worth, from its first whole chunk. */
			uint64_t from = (c->head - total + KTRACE_BPF_CHUNK_WORDS * 8 - 1) &
					~(uint64_t)(KTRACE_BPF_CHUNK_WORDS * 8 - 1);

			overwritten += from - c->tail;
			c->tail = from;
			s->spools[buf].wrapped = true;
		}
		drain_buf(s, buf, true);
		st->dropped += c->pending + c->reported;
		/* Losses after the last record that fitted are written here. */
		if (c->pending)
			spool_add(&s->spools[buf], rec,
				  8 * ktrace_fxt_put_drop(rec, c->last_ts, buf % s->ncpus,
							  c->pending, c->first_ts, c->last_ts));
	}
	return overwritten;
}


static int bpf_stop(void *priv, struct record_stats *st)
{
	struct source_bpf *s = priv;
	uint64_t overwritten = 0;

	/*
	 * The span's end before any program is detached: every record timed
	 * up to it is written (each program is still attached then), and
	 * none after it is kept; a program that read the stop as 0 after
	 * this instant is left to the archive, which keeps nothing past it.
	 */
	s->stop_ns = now_mono_ns();
	__atomic_store_n(&s->skel->bss->span.stop, s->stop_ns, __ATOMIC_SEQ_CST);
	st->span_start = s->start_ns;
	st->span_stop = s->stop_ns;
	detach_probes(s);
	sched_bpf__detach(s->skel);
	/*
	 * A detached program may still be running on another CPU, between
	 * reserving its record and publishing it.  Programs run with
	 * preemption off (migration off on PREEMPT_RT, in an RCU read
	 * section), so an RCU grace period (what this membarrier command
	 * waits for) sees them all finish.
	 */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(10000);
	overwritten = drain_all(s, st);
	if (s->opts->verbose && !s->opts->ring)
		drain_stats_report(&s->drain, "bpf", s->words * 8, s->ncpus);
	if (s->uncommitted)
		pr_warn("%llu bytes were reserved in the buffers but never published",
			(unsigned long long)s->uncommitted);
	if (overwritten)
		pr_info("ring mode kept the newest data; %.1f MB of older records were overwritten",
			overwritten / 1e6);
	if (s->opts->stack_depth)
		read_kstacks(s);
	st->dropped += recursion_misses(s, s->stop_ns);
	return s->err;
}

/*
 * `ktrace watch`: the trigger's window has passed, so every program drops
 * what it would write.  The rings go into the spools, and the trigger is
 * armed again, the programs attached all along: what they dropped from
 * the window's stop to *@rearmed is the gap between two windows.
 */
static int bpf_window(void *priv, struct record_stats *st, uint64_t *rearmed)
{
	struct source_bpf *s = priv;
	struct ktrace_bpf_trigger *tr = &s->skel->bss->trigger;
	uint64_t stop = __atomic_load_n(&tr->stop_at, __ATOMIC_ACQUIRE);

	if (!stop || now_mono_ns() <= stop)
		return -EAGAIN;
	/* A program that read the clock before the stop may still be writing (see bpf_stop()). */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(10000);
	st->span_start = s->start_ns;
	st->span_stop = stop;
	drain_all(s, st);
	/* Said in this window's loss records; the programs write none meanwhile. */
	for (unsigned int buf = 0; buf < s->nbufs; buf++) {
		s->ctl[buf].pending = 0;
		s->ctl[buf].reported = 0;
	}
	if (s->opts->stack_depth) {
		kstacks_free(&s->kstacks);
		read_kstacks(s);
	}
	/*
	 * Recording again before the re-arm's time is read: a record timed
	 * after *rearmed found the stop cleared, so the stretch the next
	 * window may mark as not recorded ends at *rearmed.  The trigger,
	 * still fired meanwhile, cannot set a new stop until armed.
	 */
	__atomic_store_n(&tr->stop_at, 0, __ATOMIC_SEQ_CST);
	*rearmed = now_mono_ns();
	__atomic_store_n(&tr->armed_at, *rearmed, __ATOMIC_SEQ_CST);
	__atomic_store_n(&tr->fired, 0, __ATOMIC_SEQ_CST);
	return s->err;
}

static int bpf_trigger(void *priv, struct trigger_report *t)
{
	struct source_bpf *s = priv;
	const struct ktrace_bpf_trigger *tr = &s->skel->bss->trigger;

	t->stop_at = __atomic_load_n(&tr->stop_at, __ATOMIC_ACQUIRE);
	if (!t->stop_at)
		return 0;
	t->ts = tr->ts;
	t->latency = tr->latency;
	t->tid = tr->tid;
	t->cpu = tr->cpu;
	return 1;
}

static void bpf_close(void *priv)
{
	struct source_bpf *s = priv;

	if (!s)
		return;
	if (s->ctl)
		munmap(s->ctl, s->ctl_len);
	if (s->data)
		munmap(s->data, s->data_len);
	detach_probes(s);
	sched_bpf__destroy(s->skel);
	kstacks_free(&s->kstacks);
	free(s);
}

/*
 * The recorder sees throttling where the kernel has CFS bandwidth control
 * (user space finds the period timer's function in kallsyms, and the
 * fields through CO-RE), in the model its task_struct says.
 */
static const char *bpf_throttling(void *priv)
{
	return ((struct source_bpf *)priv)->throttling;
}

const struct source_ops source_bpf_ops = {
	.name = "bpf",
	.probe = bpf_probe,
	.open = bpf_open,
	.start = bpf_start,
	.poll = bpf_poll,
	.stop = bpf_stop,
	.trigger = bpf_trigger,
	.window = bpf_window,
	.throttling = bpf_throttling,
	.head = bpf_head,
	.close = bpf_close,
};
