// SPDX-License-Identifier: GPL-2.0
/* The module recorder: a /dev/ktrace session, its buffers mapped read-only. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/ktrace.h>

#include "lib/utils.h"
#include "record/drain_stats.h"
#include "record/kstacks.h"
#include "record/record.h"

#define FLUSH_INTERVAL_NS	500000000ULL

struct kmod_cpu {
	const struct ktrace_meta *meta;
	const uint8_t *data;
	void *map;
	uint64_t next;			/* next sub-buffer to read, in bytes */
};

struct source_kmod {
	int fd;
	struct ktrace_geometry geo;
	struct kmod_cpu *cpus;
	struct spool *spools;
	bool ring, started;
	uint64_t start_ns;		/* just after START: the span's start if the module gives none */
	uint64_t last_flush;
	uint64_t overwritten;
	const struct record_opts *opts;
	struct kstack_table kstacks;	/* where tasks blocked, read at stop */
	struct drain_stats drain;
	char throttling[160];		/* trace_info's "throttling" */
	int err;
};

/* Whether the module is loaded: -ENOENT, and @why, if not. */
static int kmod_probe(const struct record_opts *o, char *why, size_t len)
{
	(void)o;
	if (access(KTRACE_DEVICE, F_OK) == 0)
		return 0;
	snprintf(why, len, "%s does not exist: load the module (insmod ktrace.ko)", KTRACE_DEVICE);
	return -ENOENT;
}

/*
 * CONFIGURE, with CFS bandwidth throttling where the kernel's BTF and
 * kallsyms say where the module finds it.  A module that refuses that part
 * (older than this ktrace, or it finds the layout wrong) records without
 * it, and the trace says why.
 */
static int configure_throttle(struct source_kmod *s, struct ktrace_config *cfg)
{
	int err;

	if (throttle_layout_read(NULL, &cfg->throttle, s->throttling, sizeof(s->throttling)))
		return ioctl(s->fd, KTRACE_IOC_CONFIGURE, cfg);
	cfg->flags |= KTRACE_CFG_THROTTLE;
	if (!ioctl(s->fd, KTRACE_IOC_CONFIGURE, cfg))
		return 0;
	err = errno;
	cfg->flags &= ~KTRACE_CFG_THROTTLE;
	memset(&cfg->throttle, 0, sizeof(cfg->throttle));
	if (ioctl(s->fd, KTRACE_IOC_CONFIGURE, cfg))
		return -1;
	if (err == E2BIG)
		snprintf(s->throttling, sizeof(s->throttling),
			 "not recorded: the module is older than this ktrace (load the one built with it)");
	else
		snprintf(s->throttling, sizeof(s->throttling),
			 "not recorded: the module refused the scheduler's layout from BTF and kallsyms: %s",
			 strerror(err));
	pr_warn("throttling %s", s->throttling);
	return 0;
}

/* The module's configuration for @o, but throttling (configure_throttle()). */
static void config_of(const struct record_opts *o, struct ktrace_config *cfg)
{
	cfg->buffer_size = o->buffer_size;
	cfg->flags = o->ring ? KTRACE_CFG_RING : 0;
	if (o->stacks)
		cfg->flags |= KTRACE_CFG_STACKS;
	else if (o->stack_depth)
		cfg->flags |= KTRACE_CFG_BLOCKED_IN;
	cfg->blocked_min_ns = o->blocked_min_ns;
	if (o->irqs)
		cfg->flags |= KTRACE_CFG_IRQ;
	if (o->trigger_ns) {
		cfg->flags |= KTRACE_CFG_TRIGGER;
		cfg->trigger_ns = o->trigger_ns;
		cfg->after_ns = o->after_ns;
		cfg->trigger_pid = o->trigger_pid;
		memcpy(cfg->trigger_comm, o->trigger_comm, sizeof(cfg->trigger_comm));
		if (o->trigger_rt)
			cfg->flags |= KTRACE_CFG_TRIGGER_RT;
		cfg->trigger_cgroup = o->trigger_cgroup;
		if (o->trigger_cgroup_v1)
			cfg->flags |= KTRACE_CFG_TRIGGER_CGROUP_V1;
		if (o->trigger_preempted)
			cfg->flags |= KTRACE_CFG_TRIGGER_PREEMPTED;
	}
	/* Sixteen or more sub-buffers, 4 KiB to 64 KiB each, at most 256. */
	cfg->subbuf_size = o->buffer_size / 16;
	if (cfg->subbuf_size > KTRACE_DEFAULT_SUBBUF_SIZE)
		cfg->subbuf_size = KTRACE_DEFAULT_SUBBUF_SIZE;
	if (cfg->subbuf_size < KTRACE_MIN_SUBBUF_SIZE)
		cfg->subbuf_size = KTRACE_MIN_SUBBUF_SIZE;
	if (o->buffer_size / cfg->subbuf_size > KTRACE_MAX_SUBBUFS)
		cfg->subbuf_size = o->buffer_size / KTRACE_MAX_SUBBUFS;
}

static int kmod_open(void **out, const struct record_opts *o, struct spool *spools,
		     unsigned int nspools)
{
	struct source_kmod *s = calloc(1, sizeof(*s));
	struct ktrace_config cfg = { .size = sizeof(cfg) };
	int ver;

	if (!s)
		return -ENOMEM;
	*out = s;
	s->spools = spools;
	s->ring = o->ring;
	s->opts = o;
	s->fd = open(KTRACE_DEVICE, O_RDWR | O_CLOEXEC);
	if (s->fd < 0) {
		int err = -errno;

		if (err == -EBUSY)
			pr_err("%s: another ktrace session is running (one at a time)", KTRACE_DEVICE);
		else if (err == -EACCES || err == -EPERM)
			pr_err("%s: permission denied: recording needs root", KTRACE_DEVICE);
		else
			pr_err("cannot open %s: %s", KTRACE_DEVICE, strerror(-err));
		return err;
	}
	ver = ioctl(s->fd, KTRACE_IOC_ABI_VERSION);
	if (ver != KTRACE_ABI_VERSION) {
		pr_err("%s speaks ABI version %d, this ktrace version %d: use the ktrace built with the module",
		       KTRACE_DEVICE, ver, KTRACE_ABI_VERSION);
		return -EPROTO;
	}
	config_of(o, &cfg);
	if (configure_throttle(s, &cfg)) {
		int err = -errno;

		if (o->trigger_cgroup && (err == -E2BIG || err == -EOPNOTSUPP)) {
			pr_err("--cgroup: %s", err == -E2BIG ?
			       "the loaded module is older than this ktrace and has no cgroup filter (load the one built with it)" :
			       "this kernel's configuration has no cgroup to match (CONFIG_CGROUPS, or CONFIG_CGROUP_SCHED for cgroup v1's cpu hierarchy)");
			return err;
		}
		pr_err("cannot set up %llu-byte buffers per CPU: %s%s",
		       (unsigned long long)o->buffer_size, strerror(-err),
		       err == -EINVAL ? " (the module takes a power of two from 8K to 1G)" :
		       err == -ENOMEM ? " (try a smaller --buffer-size)" : "");
		return err;
	}
	for (unsigned int i = 0; i < o->nprobes; i++) {
		struct ktrace_probe p = {
			.size = sizeof(p),
			.type = o->probes[i].duration ? KTRACE_PROBE_DURATION : KTRACE_PROBE_INSTANT,
		};
		const char *spec = o->probes[i].duration ? "duration" : "kprobe";

		snprintf(p.symbol, sizeof(p.symbol), "%s", o->probes[i].symbol);
		if (ioctl(s->fd, KTRACE_IOC_ADD_PROBE, &p)) {
			int err = -errno;

			if (err == -ENOENT)
				pr_err("-p %s:%s: no such symbol in this kernel (see /proc/kallsyms)",
				       spec, p.symbol);
			else if (err == -EINVAL || err == -EILSEQ)
				pr_err("-p %s:%s: cannot be probed (inlined, notrace or on the kprobe blacklist)",
				       spec, p.symbol);
			else if (err == -ENOSYS || err == -EOPNOTSUPP)
				pr_err("-p %s:%s: this kernel has no kprobes (CONFIG_KPROBES)", spec,
				       p.symbol);
			else
				pr_err("-p %s:%s: %s", spec, p.symbol, strerror(-err));
			return err;
		}
	}
	s->geo.size = sizeof(s->geo);
	if (ioctl(s->fd, KTRACE_IOC_GEOMETRY, &s->geo))
		return -errno;
	if (s->geo.nr_cpus > nspools) {
		pr_err("the module reports %u CPUs, more than the %u expected", s->geo.nr_cpus,
		       nspools);
		return -EINVAL;
	}
	s->cpus = calloc(s->geo.nr_cpus, sizeof(*s->cpus));
	if (!s->cpus)
		return -ENOMEM;
	for (unsigned int cpu = 0; cpu < s->geo.nr_cpus; cpu++) {
		void *p = mmap(NULL, s->geo.cpu_stride, PROT_READ, MAP_SHARED, s->fd,
			       cpu * s->geo.cpu_stride);

		if (p == MAP_FAILED) {
			/* Not a possible CPU: nothing to read there. */
			if (errno == EINVAL)
				continue;
			pr_err("cannot map CPU %u's buffer: %s", cpu, strerror(errno));
			return -errno;
		}
		s->cpus[cpu].map = p;
		s->cpus[cpu].meta = p;
		s->cpus[cpu].data = (const uint8_t *)p + s->geo.meta_size;
	}
	return 0;
}

static int kmod_start(void *priv)
{
	struct source_kmod *s = priv;

	if (ioctl(s->fd, KTRACE_IOC_START)) {
		pr_err("cannot start recording: %s", strerror(errno));
		return -errno;
	}
	s->started = true;
	s->start_ns = now_mono_ns();
	s->last_flush = s->start_ns;
	return 0;
}

static bool complete(const struct source_kmod *s, const struct kmod_cpu *c, uint64_t pos)
{
	const struct ktrace_subbuf_meta *sm =
		&c->meta->subbuf[(pos / s->geo.subbuf_size) % s->geo.nr_subbufs];

	return __atomic_load_n(&sm->commit, __ATOMIC_ACQUIRE) >=
	       (pos / s->geo.buffer_size + 1) * s->geo.subbuf_size;
}

/* Spools the records of the complete sub-buffer at @pos; checks every header. */
static int read_subbuf(struct source_kmod *s, unsigned int cpu, uint64_t pos)
{
	struct kmod_cpu *c = &s->cpus[cpu];
	uint32_t slot = (pos / s->geo.subbuf_size) % s->geo.nr_subbufs;
	uint32_t len = __atomic_load_n(&c->meta->subbuf[slot].data_len, __ATOMIC_RELAXED);
	const uint8_t *p = c->data + (pos & (s->geo.buffer_size - 1));
	uint32_t off = 0;

	if (len > s->geo.subbuf_size)
		len = s->geo.subbuf_size;
	while (off + 8 <= len) {
		uint64_t h;
		uint32_t bytes;

		memcpy(&h, p + off, 8);
		bytes = ktrace_fxt_rec_words(h) * 8;
		if (!bytes || off + bytes > len || ktrace_fxt_rec_type(h) == KTRACE_FXT_REC_LARGE) {
			pr_warn("CPU %u: malformed record at buffer offset %llu; skipping the rest of its sub-buffer",
				cpu, (unsigned long long)(pos + off));
			s->spools[cpu].rejected++;
			break;
		}
		off += bytes;
	}
	/* Sub-buffers are 8-byte aligned in the mapping, and so are records. */
	return spool_add_run(&s->spools[cpu], (const uint64_t *)p, off / 8) == -EIO ? -EIO : 0;
}

static int drain_cpu(struct source_kmod *s, unsigned int cpu)
{
	struct kmod_cpu *c = &s->cpus[cpu];
	struct ktrace_consume con = { .size = sizeof(con), .cpu = cpu };
	uint64_t head = __atomic_load_n(&c->meta->head, __ATOMIC_ACQUIRE);
	int ret;

	if (!c->map)
		return 0;
	/* Ring mode: only the newest buffer's worth survives. */
	if (head > s->geo.buffer_size && c->next < head - s->geo.buffer_size) {
		uint64_t first = (head - s->geo.buffer_size + s->geo.subbuf_size - 1) &
				 ~((uint64_t)s->geo.subbuf_size - 1);

		s->overwritten += (first - c->next) / s->geo.subbuf_size;
		c->next = first;
		s->spools[cpu].wrapped = true;
	}
	while (c->next < head && complete(s, c, c->next)) {
		ret = read_subbuf(s, cpu, c->next);
		if (ret)
			return ret;
		c->next += s->geo.subbuf_size;
	}
	con.consumed = c->next;
	if (!s->ring && ioctl(s->fd, KTRACE_IOC_CONSUME, &con))
		return -errno;
	return 0;
}

static int kmod_poll(void *priv, int timeout_ms)
{
	struct source_kmod *s = priv;
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	int ret;

	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0 && errno != EINTR)
		return -errno;
	/* Quiet CPUs fill sub-buffers slowly: close them now and then. */
	if (now_mono_ns() - s->last_flush > FLUSH_INTERVAL_NS) {
		ioctl(s->fd, KTRACE_IOC_FLUSH);
		s->last_flush = now_mono_ns();
	}
	drain_stats_pass(&s->drain);
	for (unsigned int cpu = 0; cpu < s->geo.nr_cpus; cpu++) {
		if (s->cpus[cpu].meta)
			drain_stats_fill(&s->drain, cpu,
					 __atomic_load_n(&s->cpus[cpu].meta->head, __ATOMIC_RELAXED) -
					 s->cpus[cpu].next);
		ret = drain_cpu(s, cpu);
		if (ret)
			return ret;
	}
	return 0;
}

/* The interned stacks, named: the archive's table of where tasks blocked. */
static void read_kstacks(struct source_kmod *s)
{
	size_t words = 1 + (s->opts->stacks ? KTRACE_KSTACK_MAX_DEPTH : KTRACE_KSTACK_BLOCKED_DEPTH);
	struct ktrace_stacks st = { .size = sizeof(st) };
	uint64_t *buf = calloc(KTRACE_STACK_SLOTS * words, sizeof(*buf));

	st.buf = (uintptr_t)buf;
	st.buf_size = KTRACE_STACK_SLOTS * words * sizeof(*buf);
	if (!buf || ioctl(s->fd, KTRACE_IOC_STACKS, &st)) {
		pr_err("cannot read where tasks blocked from the module: %s",
		       buf ? strerror(errno) : "out of memory");
		free(buf);
		return;
	}
	for (uint32_t i = 0; i < KTRACE_STACK_SLOTS; i++) {
		uint64_t *slot = &buf[i * words];

		if (slot[0] && slot[0] < words &&
		    kstacks_add(&s->kstacks, i + 1, slot + 1, slot[0])) {
			pr_err("out of memory reading the kernel stacks");
			break;
		}
	}
	free(buf);
	if (st.full)
		pr_warn("%llu switches found the module's table of %u kernel stacks full: where they blocked is not recorded",
			(unsigned long long)st.full, KTRACE_STACK_SLOTS);
	kstacks_resolve(&s->kstacks, s->opts->raw_stacks);
}

static void kmod_head(void *priv, struct fxt_writer *w, uint64_t ts)
{
	struct source_kmod *s = priv;

	kstacks_write(&s->kstacks, w, ts, s->opts->stacks);
}

/*
 * The session's span, from the module; one older than the span gives none,
 * and then the times just after START and just before STOP, inside the
 * span it had, stand for it.
 */
static void read_span(struct source_kmod *s, uint64_t stop_ns, struct record_stats *st)
{
	struct ktrace_stats ks = { .size = sizeof(ks) };

	st->span_start = s->start_ns;
	st->span_stop = stop_ns;
	if (ioctl(s->fd, KTRACE_IOC_STATS, &ks) ||
	    ks.size < offsetof(struct ktrace_stats, stop_ts) + sizeof(ks.stop_ts) || !ks.stop_ts)
		return;
	st->span_start = ks.start_ts;
	st->span_stop = ks.stop_ts;
}

static int kmod_stop(void *priv, struct record_stats *st)
{
	struct source_kmod *s = priv;
	uint64_t stop_ns = now_mono_ns();
	int ret = 0;

	if (ioctl(s->fd, KTRACE_IOC_STOP)) {
		pr_err("cannot stop recording: %s", strerror(errno));
		return -errno;
	}
	s->started = false;
	read_span(s, stop_ns, st);
	drain_stats_pass(&s->drain);
	for (unsigned int cpu = 0; cpu < s->geo.nr_cpus && !ret; cpu++) {
		const struct ktrace_meta *m = s->cpus[cpu].meta;
		__u64 rec[KTRACE_FXT_DROP_WORDS];
		uint64_t unreported;

		if (m)
			drain_stats_fill(&s->drain, cpu, m->head - s->cpus[cpu].next);
		ret = drain_cpu(s, cpu);
		if (!m)
			continue;
		st->dropped += m->lost;
		/* Losses after the last record that fitted are written here. */
		unreported = m->lost - m->lost_reported;
		if (unreported)
			spool_add(&s->spools[cpu], rec,
				  8 * ktrace_fxt_put_drop(rec, m->lost_last_ts, cpu, unreported,
							  m->lost_first_ts, m->lost_last_ts));
	}
	if (s->opts->verbose && !s->ring)
		drain_stats_report(&s->drain, "kmod", s->geo.buffer_size, s->geo.nr_cpus);
	if (s->overwritten)
		pr_info("ring mode kept the newest data; %llu older sub-buffers were overwritten",
			(unsigned long long)s->overwritten);
	if (s->opts->stack_depth)
		read_kstacks(s);
	return ret;
}

/*
 * `ktrace watch`: the trigger's window is over, so every probe drops what
 * it would write.  FLUSH waits for the writers that came before the stop
 * and closes every sub-buffer; the rings go into the spools, and REARM
 * releases them and arms the trigger again, the probes registered all
 * along: the stretch from the window's stop to the span's new start is
 * the gap between two windows.
 */
static int kmod_window(void *priv, struct record_stats *st, uint64_t *rearmed)
{
	struct source_kmod *s = priv;
	struct ktrace_stats ks = { .size = sizeof(ks) };

	if (ioctl(s->fd, KTRACE_IOC_STATS, &ks))
		return -errno;
	if (!ks.stop_at || now_mono_ns() <= ks.stop_at)
		return -EAGAIN;
	if (ioctl(s->fd, KTRACE_IOC_FLUSH))
		return -errno;
	st->span_start = ks.start_ts;
	st->span_stop = ks.stop_at;
	for (unsigned int cpu = 0; cpu < s->geo.nr_cpus; cpu++) {
		int ret = drain_cpu(s, cpu);

		if (ret)
			return ret;
	}
	if (s->opts->stack_depth) {
		kstacks_free(&s->kstacks);
		read_kstacks(s);
	}
	if (ioctl(s->fd, KTRACE_IOC_REARM))
		return -errno;
	for (unsigned int cpu = 0; cpu < s->geo.nr_cpus; cpu++)
		if (s->cpus[cpu].meta)
			s->cpus[cpu].next = __atomic_load_n(&s->cpus[cpu].meta->consumed,
							    __ATOMIC_ACQUIRE);
	/* The span's new start: STATS' start_ts, which REARM set. */
	if (ioctl(s->fd, KTRACE_IOC_STATS, &ks))
		return -errno;
	*rearmed = ks.start_ts;
	return 0;
}

static int kmod_trigger(void *priv, struct trigger_report *t)
{
	struct source_kmod *s = priv;
	struct ktrace_stats st = { .size = sizeof(st) };

	if (ioctl(s->fd, KTRACE_IOC_STATS, &st))
		return -errno;
	if (!st.stop_at)
		return 0;
	t->ts = st.trigger_ts;
	t->latency = st.trigger_latency;
	t->stop_at = st.stop_at;
	t->tid = st.trigger_tid;
	t->cpu = st.trigger_cpu;
	return 1;
}

static const char *kmod_throttling(void *priv)
{
	return ((struct source_kmod *)priv)->throttling;
}

static void kmod_close(void *priv)
{
	struct source_kmod *s = priv;

	if (!s)
		return;
	for (unsigned int cpu = 0; s->cpus && cpu < s->geo.nr_cpus; cpu++)
		if (s->cpus[cpu].map)
			munmap(s->cpus[cpu].map, s->geo.cpu_stride);
	if (s->fd >= 0)
		close(s->fd);	/* also stops a session still running */
	free(s->cpus);
	kstacks_free(&s->kstacks);
	free(s);
}

const struct source_ops source_kmod_ops = {
	.name = "kmod",
	.probe = kmod_probe,
	.statedump_in_kernel = true,
	.open = kmod_open,
	.start = kmod_start,
	.poll = kmod_poll,
	.stop = kmod_stop,
	.trigger = kmod_trigger,
	.window = kmod_window,
	.throttling = kmod_throttling,
	.head = kmod_head,
	.close = kmod_close,
};
