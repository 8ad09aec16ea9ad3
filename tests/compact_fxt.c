// SPDX-License-Identifier: GPL-2.0
/*
 * compact_fxt IN.fxt OUT.fxt: an archive whose scheduling records are as
 * the recorders write them, rewritten as `ktrace record` writes archives
 * now (fxt_compact.h), so that tests can check that everything reads the
 * two the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fxt/fxt_compact.h"
#include "fxt/fxt_writer.h"

int main(int argc, char **argv)
{
	struct fxt_arg enc = fxt_arg_str("encoding", FXT_COMPACT_ENCODING);
	struct fxt_compact c = { 0 };
	const struct fxt_arg *proc;
	struct fxt_writer *w;
	struct fxt_reader r;
	struct fxt_record rec;
	bool said = false;
	int in, out, ret;

	if (argc != 3) {
		fprintf(stderr, "usage: compact_fxt IN.fxt OUT.fxt\n");
		return 2;
	}
	in = open(argv[1], O_RDONLY);
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	w = malloc(sizeof(*w));
	if (in < 0 || out < 0 || !w || fxt_writer_init(w, out) || fxt_reader_open_fd(&r, in, argv[1])) {
		fprintf(stderr, "compact_fxt: cannot open %s or %s: %s\n", argv[1], argv[2],
			strerror(errno));
		return 1;
	}
	/* Records that name strings by index keep them: ours go inline. */
	w->inline_strings = true;
	while ((ret = fxt_reader_next(&r, &rec)) > 0) {
		if (r.compact) {
			fprintf(stderr, "compact_fxt: %s is compact already\n", argv[1]);
			return 1;
		}
		if (rec.type == KTRACE_FXT_REC_SCHED) {
			if (!said) {
				fxt_write_event(w, KTRACE_FXT_EV_INSTANT, rec.ts, 0, 0, "ktrace:meta",
						"trace_info", &enc, 1, 0);
				fxt_compact_init(&c, w);
				said = true;
			}
			if (fxt_compact_sched(&c, w, &rec))
				return 1;
			continue;
		}
		proc = fxt_find_arg(&rec, "process");
		if (rec.type == KTRACE_FXT_REC_KERNEL_OBJ && rec.obj_type == KTRACE_FXT_OBJ_THREAD &&
		    proc && proc->type == KTRACE_FXT_ARG_KOID && fxt_compact_named(&c, rec.koid, proc->u))
			return 1;
		fxt_write_words(w, rec.w, rec.nwords);
	}
	if (ret < 0) {
		fprintf(stderr, "compact_fxt: %s at byte %llu: %s\n", argv[1],
			(unsigned long long)r.fatal.offset, r.fatal.msg);
		return 1;
	}
	fxt_reader_close(&r);
	fxt_compact_free(&c);
	ret = fxt_writer_finish(w);
	free(w);
	return ret || close(out) ? 1 : 0;
}
