// SPDX-License-Identifier: GPL-2.0
/*
 * What ktrace record's drain and merge cost as the CPU count grows, from
 * synthetic per-CPU buffers: the same number of scheduler records (context
 * switches and wakeups, as the recorders write them) spread over 2 to 256
 * CPUs, drained in chunks into one spool per CPU (spool_add_run(), as the
 * drain loop does) and merged by time into an archive written to /dev/null
 * (merge_spools(), a heap over the CPUs).  Each count is the best of
 * --rounds runs.  Also the default buffer memory for each CPU count
 * (record_default_buffer_size()).
 * usage: drain_merge [--records N] [--rounds N] [CPUS...]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/ktrace_fxt.h>

#include "fxt/fxt_writer.h"
#include "record/record.h"
#include "record/spool.h"

/* A drain reads at most this much of a CPU's buffer at a time. */
#define CHUNK_WORDS	(64 << 10 >> 3)

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * One CPU's records: @n alternating switches and wakeups, every CPU's
 * interleaved in time with the others' (event i of CPU c at i * ncpus + c
 * microseconds), so the merge takes from every spool in turn.
 */
static uint64_t *cpu_records(unsigned int cpu, unsigned int ncpus, uint64_t n, size_t *nwords)
{
	__u64 *w = malloc(n * KTRACE_FXT_CSWITCH_WORDS * 8), *p = w;

	if (!w)
		return NULL;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t ts = 1000000000ULL + (i * ncpus + cpu) * 1000;
		uint32_t tid = 1000 + cpu * 2 + (i & 1);

		if (i & 1)
			p += ktrace_fxt_put_wakeup(p, cpu, ts, tid ^ 1, 120, tid, 0);
		else
			p += ktrace_fxt_put_cswitch(p, cpu, ts, tid, 120, 1, tid ^ 1, 120, 0);
	}
	*nwords = p - w;
	return (uint64_t *)w;	/* the same 64-bit words */
}

struct result {
	double drain, merge;
};

static int run(unsigned int ncpus, uint64_t records, struct result *r)
{
	struct spool *spools = calloc(ncpus, sizeof(*spools));
	uint64_t **bufs = calloc(ncpus, sizeof(*bufs));
	size_t *nwords = calloc(ncpus, sizeof(*nwords)), *pos = calloc(ncpus, sizeof(*pos)), left = 0;
	struct fxt_writer w;
	int fd = -1, ret = -ENOMEM;
	double t0;

	if (!spools || !bufs || !nwords || !pos)
		goto out;
	for (unsigned int c = 0; c < ncpus; c++) {
		bufs[c] = cpu_records(c, ncpus, records / ncpus, &nwords[c]);
		if (!bufs[c])
			goto out;
		left += nwords[c];
		ret = spool_open(&spools[c]);
		if (ret)
			goto out;
	}
	/* The drain: up to a chunk of whole records from each CPU in turn, until all are read. */
	t0 = now();
	while (left) {
		for (unsigned int c = 0; c < ncpus; c++) {
			size_t start = pos[c], end = start;

			while (end < nwords[c] && end + ktrace_fxt_rec_words(bufs[c][end]) - start <= CHUNK_WORDS)
				end += ktrace_fxt_rec_words(bufs[c][end]);
			if (end == start)
				continue;
			ret = spool_add_run(&spools[c], bufs[c] + start, end - start);
			if (ret)
				goto out;
			left -= end - start;
			pos[c] = end;
		}
	}
	r->drain = now() - t0;
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	ret = fd < 0 ? -errno : fxt_writer_init(&w, fd);
	if (ret)
		goto out;
	t0 = now();
	ret = merge_spools(spools, ncpus, &w, 0);
	if (!ret)
		ret = fxt_writer_finish(&w);
	else
		fxt_writer_finish(&w);
	r->merge = now() - t0;
out:
	for (unsigned int c = 0; c < ncpus; c++) {
		if (spools && spools[c].f)
			spool_close(&spools[c]);
		if (bufs)
			free(bufs[c]);
	}
	if (fd >= 0)
		close(fd);
	free(spools);
	free(bufs);
	free(nwords);
	free(pos);
	return ret;
}

int main(int argc, char **argv)
{
	static const unsigned int default_cpus[] = { 2, 4, 8, 16, 32, 64, 128, 256 };
	unsigned int cpus[64], ncounts = 0, rounds = 3;
	uint64_t records = 2000000;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--records") && i + 1 < argc)
			records = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = strtoul(argv[++i], NULL, 0);
		else if (ncounts < 64 && strtoul(argv[i], NULL, 0) > 0)
			cpus[ncounts++] = strtoul(argv[i], NULL, 0);
		else {
			fprintf(stderr, "usage: drain_merge [--records N] [--rounds N] [CPUS...]\n");
			return 2;
		}
	}
	if (!ncounts) {
		ncounts = sizeof(default_cpus) / sizeof(default_cpus[0]);
		memcpy(cpus, default_cpus, sizeof(default_cpus));
	}
	printf("%5s %10s %9s %9s %12s %12s %12s %14s\n", "cpus", "records", "drain_s", "merge_s",
	       "drain_ns/rec", "merge_ns/rec", "buffer/CPU", "buffers_total");
	for (unsigned int i = 0; i < ncounts; i++) {
		struct result best = { 1e9, 1e9 }, r;
		uint64_t per_cpu = record_default_buffer_size(cpus[i]);
		uint64_t n = records / cpus[i] * cpus[i];

		for (unsigned int k = 0; k < rounds; k++) {
			int ret = run(cpus[i], n, &r);

			if (ret) {
				fprintf(stderr, "drain_merge: %u CPUs: %s\n", cpus[i], strerror(-ret));
				return 1;
			}
			if (r.drain < best.drain)
				best.drain = r.drain;
			if (r.merge < best.merge)
				best.merge = r.merge;
		}
		printf("%5u %10llu %9.3f %9.3f %12.1f %12.1f %9llu KiB %10llu MiB\n", cpus[i],
		       (unsigned long long)n, best.drain, best.merge, best.drain * 1e9 / n,
		       best.merge * 1e9 / n, (unsigned long long)per_cpu >> 10,
		       (unsigned long long)(per_cpu * cpus[i]) >> 20);
	}
	return 0;
}
