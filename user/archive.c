// SPDX-License-Identifier: GPL-2.0
/*
 * The archive ktrace record writes: preamble, trace information, the names
 * of the threads alive, then every spool merged in time order; and, when
 * the output cannot be written, the same kept where there is room.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "record.h"
#include "utils.h"

static void trace_info(struct fxt_writer *w, const char *backend, uint64_t ts)
{
	struct fxt_arg args[4];
	struct utsname u;

	uname(&u);
	args[0] = fxt_arg_str("host", u.nodename);
	args[1] = fxt_arg_str("kernel", u.release);
	args[2] = fxt_arg_str("backend", backend);
	args[3] = fxt_arg_str("clock", "CLOCK_MONOTONIC");
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, ts, 0, 0, "ktrace:meta", "trace_info", args, 4, 0);
}

/*
 * A ring keeps each CPU's newest records, so the window of a CPU whose ring
 * wrapped starts late, and each at a different time; the archive starts
 * where they all have data.  (A ring that never wrapped has everything.)
 */
uint64_t ring_common_start(const struct spool *spools, unsigned int n)
{
	uint64_t from = 0, t;

	for (unsigned int i = 0; i < n; i++) {
		if (!spools[i].wrapped || !spools[i].timed_records)
			continue;
		t = spools[i].min_ts + spools[i].offset;
		if (t > from)
			from = t;
	}
	return from;
}

/* @records: every record in the archive, as `ktrace dump --stats` counts them. */
int write_archive(int fd, const struct source_ops *ops, void *priv, const struct record_opts *ro,
			 uint64_t start, struct spool *spools, unsigned int n, uint64_t from,
			 uint64_t *bytes, uint64_t *records)
{
	uint64_t threads;
	struct fxt_writer *w = malloc(sizeof(*w));
	int ret;

	if (!w || fxt_writer_init(w, fd)) {
		free(w);
		return -ENOMEM;
	}
	fxt_write_preamble(w, 1, "ktrace");
	trace_info(w, ops->name, start);
	/* The BPF probes name their events by these indices. */
	if (!ops->statedump_in_kernel)
		for (unsigned int i = 0; i < ro->nprobes; i++)
			fxt_write_string(w, KTRACE_FXT_STR_FIRST_PROBE + i, ro->probes[i].symbol);
	/*
	 * The threads alive now, first: the names recorded (those alive at
	 * the start, then fork, exec and rename) come later and win, and a
	 * thread whose events were lost, or written over in a ring, still
	 * gets one.
	 */
	if (!ops->statedump_in_kernel || ro->ring)
		statedump_write(w, &threads);
	if (ops->head)
		ops->head(priv, w, start);
	ret = merge_spools(spools, n, w, from);
	*bytes = w->out.total + w->out.len;
	*records = w->records;
	if (!ret)
		ret = fxt_writer_finish(w);
	else
		fxt_writer_finish(w);
	free(w);
	return ret;
}

/*
 * Writing the output failed (a full disk, say): the recording is still in
 * the spools, so write it as FXT where there is room and say where.
 */
void rescue(const struct source_ops *ops, void *priv, const struct record_opts *ro, uint64_t start,
		   struct spool *spools, unsigned int n, uint64_t from)
{
	const char *dirs[] = { getenv("TMPDIR"), "/var/tmp", "/tmp", "." };
	uint64_t bytes, records;
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int fd;

		if (!dirs[i] || !*dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/ktrace-%d.fxt", dirs[i], getpid());
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			continue;
		if (!write_archive(fd, ops, priv, ro, start, spools, n, from, &bytes, &records) &&
		    !close(fd)) {
			pr_err("the recording was kept in %s (%.1f MB; `ktrace convert` turns it into JSON)",
			       path, bytes / 1e6);
			return;
		}
		close(fd);
		unlink(path);
	}
	pr_err("the recording could not be written anywhere: tried $TMPDIR, /var/tmp, /tmp and .");
}
