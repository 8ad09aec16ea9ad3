// SPDX-License-Identifier: GPL-2.0
/* ktrace merge: a recorded FXT trace plus a saved ftrace text dump, clocks aligned. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "lib/utils.h"
#include "record/ftrace_text.h"
#include "record/record.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	do {
		if (*len + 65536 + 1 > cap) {
			char *b = realloc(buf, cap = cap ? cap * 2 : 1 << 20);

			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		n = fread(buf + *len, 1, 65536, f);
		*len += n;
	} while (n);
	fclose(f);
	buf[*len] = 0;
	return buf;
}

/*
 * Copies every readable record of @path into @sp, in order, and keeps its
 * clock-sync points: one pass over the input.
 */
static int spool_fxt(const char *path, struct spool *sp, struct sync_points *sync,
		     uint64_t *records)
{
	struct cli_input in;
	struct fxt_reader r;
	struct fxt_record rec;
	int ret;

	ret = cli_open_trace(&in, path, 0);
	if (!ret)
		ret = cli_trace_reader(&in, &r);
	if (ret) {
		cli_close_trace(&in);
		return ret;
	}
	while ((ret = fxt_reader_next(&r, &rec)) > 0) {
		ret = spool_add(sp, rec.w, rec.nwords * 8ULL);
		if (ret == -EIO || (ret = sync_point_add(sync, &r, &rec)))
			break;
	}
	*records = r.records;
	if (ret < 0 && r.fatal.msg[0])
		cli_trace_report(&in, true, &r.fatal, "; merging the %llu records before it",
				 (unsigned long long)r.records);
	fxt_reader_close(&r);
	cli_close_trace(&in);
	return ret < 0 ? ret : 0;
}

/* Long-only options. */
enum {
	OPT_EMBED_FTRACE = 256,
};

struct merge_args {
	const char *out_path, *format;
	bool embed;
};

static int merge_opt(void *ctx, const struct cli_arg *a)
{
	struct merge_args *ma = ctx;

	switch (a->c) {
	case 'o':
		ma->out_path = a->text;
		break;
	case 'F':
		ma->format = a->text;
		break;
	case OPT_EMBED_FTRACE:
		ma->embed = true;
		break;
	}
	return 0;
}

static const struct option merge_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, 'F' },
	{ "embed-ftrace", no_argument, NULL, OPT_EMBED_FTRACE },
	{ 0 }
};

static const struct cli_command merge_cmd = {
	.name = "merge",
	.usage = "usage: ktrace merge TRACE.fxt FTRACE.txt -o OUT.fxt|OUT.json [--embed-ftrace]\n"
		 "\n"
		 "Merge a saved ftrace text dump (the format of tracefs's `trace` file, with\n"
		 "or without the tgid and irq-info columns) into a recorded trace, by time.\n"
		 "The clocks are aligned through the `trace_event_clock_sync: name=ID`\n"
		 "markers that `ktrace record` writes into trace_marker and into the trace;\n"
		 "irq, softirq and syscall entry/exit pairs become durations.\n"
		 "\n"
		 "  -o, --output FILE      merged trace, FXT or JSON by extension\n"
		 "  -F, --format FMT       fxt or json\n"
		 "      --embed-ftrace     JSON only: put the ftrace text into systemTraceEvents, for\n"
		 "                         catapult's trace viewer to align, instead of merging it\n",
	.examples = "  ktrace record -o sched.fxt -d 5 & trace-cmd record -e irq sleep 5; wait\n"
		    "  trace-cmd report -R > /dev/null; cat /sys/kernel/tracing/trace > ftrace.txt\n"
		    "  ktrace merge sched.fxt ftrace.txt -o merged.json\n",
	.shortopts = "o:F:",
	.longopts = merge_options,
	.min_args = 2,
	.max_args = 2,
	.opt = merge_opt,
};

/*
 * The offset to add to ftrace's times: from the sync markers both hold,
 * else none when the dump used the recorder's clock; -1 when --embed-ftrace
 * cannot be aligned.
 */
static int align_clocks(const struct sync_points *rec_sync, const struct ftrace_conv *conv,
			bool mono, bool embed, const char *fxt_path, const char *ftrace_path,
			int64_t *offset)
{
	int64_t residual = 0;
	unsigned int matched = 0;

	if (!clock_offset(rec_sync->p, rec_sync->n, conv->markers, conv->nmarkers, offset,
			  &residual, &matched)) {
		pr_info("clocks aligned by %u sync markers: ftrace + %lld ns, residual %lld ns",
			matched, (long long)*offset, (long long)residual);
	} else if (mono) {
		pr_info("no sync marker in common; the dump says it used the monotonic clock, as the recorder does");
	} else {
		pr_warn("no sync marker in common (%u in %s, %u in %s): assuming ftrace used the recorder's clock (trace_clock mono)",
			rec_sync->n, fxt_path, conv->nmarkers, ftrace_path);
		if (embed) {
			pr_err("--embed-ftrace needs sync markers (or a mono clock) for the viewer to align the two");
			return -1;
		}
	}
	return 0;
}

/* The first @n spools merged in time order into @fd; -1 after saying why. */
static int write_merged(struct spool *spools, unsigned int n, int fd, const char *out_path,
			uint64_t *bytes)
{
	struct fxt_writer *w = malloc(sizeof(*w));
	int ret;

	if (!w || fxt_writer_init(w, fd)) {
		pr_err("out of memory writing %s", out_path);
		free(w);
		return -1;
	}
	/* The input's own preamble and string table come through the merge. */
	ret = merge_spools(spools, n, w, 0);
	*bytes = w->out.total + w->out.len;
	if (!ret)
		ret = fxt_writer_finish(w);
	else
		fxt_writer_finish(w);
	free(w);
	if (ret) {
		pr_err("writing %s: %s", out_path, strerror(-ret));
		return -1;
	}
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	struct merge_args ma = { 0 };
	const char *out_path, *fxt_path, *ftrace_path;
	struct sync_points rec_sync = { 0 };
	struct spool spools[2] = { 0 };
	struct ftrace_conv conv = { 0 };
	uint64_t fxt_records = 0, bytes = 0;
	int64_t offset = 0;
	bool json, embed, mono = false;
	char *text = NULL;
	size_t text_len;
	int ret, bad = 0, status = 1;
	struct cli_output out = { 0 };

	ret = cli_parse_options(&merge_cmd, argc, argv, &ma);
	if (ret >= 0)
		return ret;
	out_path = ma.out_path;
	embed = ma.embed;
	if (!out_path) {
		cli_usage_error("-o OUT.fxt|OUT.json missing");
		cli_usage_hint(&merge_cmd);
		return 2;
	}
	fxt_path = argv[optind];
	ftrace_path = argv[optind + 1];
	if (cli_output_format(ma.format, out_path, &json))
		return 2;
	if (embed && !json) {
		cli_usage_error("--embed-ftrace is for JSON output (systemTraceEvents)");
		return 2;
	}

	if (spool_open(&spools[0]) || spool_open(&spools[1]) ||
	    ftrace_conv_init(&conv, &spools[1], 1)) {
		pr_err("cannot create temporary files: %s", strerror(errno));
		goto out;
	}
	ret = spool_fxt(fxt_path, &spools[0], &rec_sync, &fxt_records);
	if (ret == -EIO || ret == -ENOMEM || (ret && !fxt_records))
		goto out;
	bad = ftrace_text_import(&conv, ftrace_path, &mono);
	if (bad < 0) {
		pr_err("cannot read %s: %s", ftrace_path, strerror(-bad));
		goto out;
	}
	if (!conv.events) {
		pr_err("%s: no ftrace event lines found (a tracefs `trace` file is expected)",
		       ftrace_path);
		goto out;
	}
	if (align_clocks(&rec_sync, &conv, mono, embed, fxt_path, ftrace_path, &offset))
		goto out;
	spools[1].offset = offset;

	/* Written beside and renamed over it when complete. */
	if (cli_output_open(&out, out_path, json))
		goto out;
	if (write_merged(spools, embed ? 1 : 2, out.fd, out_path, &bytes))
		goto out;
	if (embed) {
		text = slurp(ftrace_path, &text_len);
		if (!text) {
			pr_err("cannot read %s: %s", ftrace_path, strerror(errno));
			goto out;
		}
		out.embedded_ftrace = text;
	}
	if (cli_output_commit(&out, &bytes))
		goto out;
	pr_info("wrote %s: %llu records of %s, %llu ftrace events (%llu in durations)%s, %.1f MB",
		out_path, (unsigned long long)fxt_records, fxt_path,
		(unsigned long long)conv.events, (unsigned long long)conv.durations,
		embed ? " embedded as text" : "", bytes / 1e6);
	if (conv.lost)
		pr_warn("%s: ftrace lost %llu events while capturing (in the trace as loss records)",
			ftrace_path, (unsigned long long)conv.lost);
	status = bad ? 1 : 0;
	if (bad)
		pr_err("%s: %d malformed lines were left out (see above)", ftrace_path, bad);
out:
	free(text);
	free(rec_sync.p);
	ftrace_conv_free(&conv);
	spool_close(&spools[0]);
	spool_close(&spools[1]);
	cli_output_abort(&out);	/* nothing if it was renamed into place */
	return status;
}
