// SPDX-License-Identifier: GPL-2.0
/* The BPF recorder: loads bpf/sched.bpf.c, one ring buffer per CPU, drains them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <linux/ktrace_fxt.h>
#include "sched.bpf.h"
#include "sched.skel.h"

#include "record.h"
#include "utils.h"

struct ring_ctx {
	struct spool *spool;
	int err;
};

struct source_bpf {
	struct sched_bpf *skel;
	struct ring_buffer *rb;
	int *ring_fds;
	struct ring_ctx *ctx;
	unsigned int ncpus;
	bool verbose;
};

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

int source_bpf_probe(char *why, size_t len)
{
	struct utsname u;

	uname(&u);
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, len,
			 "the kernel (%s) has no BTF (/sys/kernel/btf/vmlinux): the BPF backend needs CONFIG_DEBUG_INFO_BTF=y",
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

static int on_record(void *priv, void *data, size_t size)
{
	struct ring_ctx *c = priv;
	int ret = spool_add(c->spool, data, size);

	if (ret == -EIO)
		c->err = ret;
	return 0;	/* a malformed record is counted, the rest goes on */
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
	s->verbose = o->verbose;
	libbpf_set_print(o->verbose ? libbpf_print : quiet_print);
	uname(&u);
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0 || (unsigned int)ncpus > nspools) {
		pr_err("cannot count the possible CPUs (%d)", ncpus);
		return -EINVAL;
	}
	s->ncpus = ncpus;
	s->skel = sched_bpf__open();
	if (!s->skel) {
		ret = -errno;
		pr_err("cannot open the BPF recorder: %s", strerror(-ret));
		return ret;
	}
	s->skel->rodata->wakeup_bytes = o->buffer_size / 4;
	bpf_map__set_max_entries(s->skel->maps.buffers, ncpus);
	ret = sched_bpf__load(s->skel);
	if (ret) {
		pr_err("cannot load the BPF recorder into kernel %s: %s%s", u.release,
		       strerror(-ret),
		       ret == -EPERM ? " (needs root, or CAP_BPF and CAP_PERFMON)" :
		       " (run with -v for the verifier's log)");
		return ret;
	}
	s->ring_fds = calloc(ncpus, sizeof(int));
	s->ctx = calloc(ncpus, sizeof(*s->ctx));
	if (!s->ring_fds || !s->ctx)
		return -ENOMEM;
	for (int cpu = 0; cpu < ncpus; cpu++)
		s->ring_fds[cpu] = -1;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		char name[16];

		snprintf(name, sizeof(name), "ktrace_%u", (unsigned int)cpu % 100000U);
		ret = bpf_map_create(BPF_MAP_TYPE_RINGBUF, name, 0, 0, o->buffer_size, NULL);
		if (ret < 0) {
			ret = -errno;
			pr_err("cannot create a %llu-byte ring buffer for CPU %d: %s",
			       (unsigned long long)o->buffer_size, cpu, strerror(-ret));
			return ret;
		}
		s->ring_fds[cpu] = ret;
		if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.buffers), &cpu,
					&s->ring_fds[cpu], BPF_ANY)) {
			ret = -errno;
			pr_err("cannot install CPU %d's ring buffer: %s", cpu, strerror(-ret));
			return ret;
		}
		s->ctx[cpu].spool = &spools[cpu];
		if (!s->rb)
			s->rb = ring_buffer__new(s->ring_fds[cpu], on_record, &s->ctx[cpu], NULL);
		else if (ring_buffer__add(s->rb, s->ring_fds[cpu], on_record, &s->ctx[cpu]))
			return -errno;
		if (!s->rb)
			return -errno;
	}
	return 0;
}

static int bpf_start(void *priv)
{
	struct source_bpf *s = priv;
	int ret = sched_bpf__attach(s->skel);

	if (ret)
		pr_err("cannot attach the BPF recorder to the scheduler tracepoints: %s",
		       strerror(-ret));
	return ret;
}

static int bpf_poll(void *priv, int timeout_ms)
{
	struct source_bpf *s = priv;
	int ret = ring_buffer__poll(s->rb, timeout_ms);

	if (ret == -EINTR)
		ret = 0;
	for (unsigned int i = 0; i < s->ncpus && ret >= 0; i++)
		if (s->ctx[i].err)
			ret = s->ctx[i].err;
	return ret < 0 ? ret : 0;
}

/* Programs that did not run because another BPF program was running. */
static uint64_t recursion_misses(struct source_bpf *s)
{
	struct bpf_program *prog;
	uint64_t n = 0;

	bpf_object__for_each_program(prog, s->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

static int bpf_stop(void *priv, struct record_stats *st)
{
	struct source_bpf *s = priv;
	struct ktrace_bpf_drops *d;
	uint64_t misses;
	int ret;

	sched_bpf__detach(s->skel);
	ret = ring_buffer__consume(s->rb);
	if (ret < 0)
		return ret;
	d = calloc(s->ncpus, sizeof(*d));
	if (!d)
		return -ENOMEM;
	{
		__u32 zero = 0;

		if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.drops), &zero, d)) {
			ret = -errno;
			free(d);
			return ret;
		}
	}
	for (unsigned int cpu = 0; cpu < s->ncpus; cpu++) {
		__u64 rec[KTRACE_FXT_DROP_WORDS];
		struct spool *sp = s->ctx[cpu].spool;

		/* Every record the programs wrote must have reached the spool. */
		if (d[cpu].written != sp->records + sp->rejected)
			pr_warn("CPU %u: the recorder wrote %llu records, %llu were read",
				cpu, (unsigned long long)d[cpu].written,
				(unsigned long long)(sp->records + sp->rejected));
		st->dropped += d[cpu].pending + d[cpu].reported;
		/* Losses after the last record that fitted are written here. */
		if (d[cpu].pending)
			spool_add(s->ctx[cpu].spool, rec,
				  8 * ktrace_fxt_put_drop(rec, d[cpu].last_ts, cpu, d[cpu].pending,
							  d[cpu].first_ts, d[cpu].last_ts));
	}
	free(d);
	misses = recursion_misses(s);
	if (misses)
		pr_warn("%llu events were not recorded because a BPF program was already running on that CPU",
			(unsigned long long)misses);
	return 0;
}

static void bpf_close(void *priv)
{
	struct source_bpf *s = priv;

	if (!s)
		return;
	ring_buffer__free(s->rb);
	for (unsigned int i = 0; s->ring_fds && i < s->ncpus; i++)
		if (s->ring_fds[i] >= 0)
			close(s->ring_fds[i]);
	sched_bpf__destroy(s->skel);
	free(s->ring_fds);
	free(s->ctx);
	free(s);
}

const struct source_ops source_bpf_ops = {
	.name = "bpf",
	.open = bpf_open,
	.start = bpf_start,
	.poll = bpf_poll,
	.stop = bpf_stop,
	.close = bpf_close,
};
