// SPDX-License-Identifier: GPL-2.0
/* ktrace convert: an FXT archive to Chrome trace-event JSON, streaming. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "fxt_reader.h"
#include "json_writer.h"
#include "utils.h"

struct convert_ctx {
	const char *path;
	uint64_t reported;
};

static void on_violation(void *ctx, const struct fxt_error *e)
{
	struct convert_ctx *c = ctx;

	if (c->reported++ < 10)
		pr_warn("%s: offset %llu (0x%llx): %s: %s", c->path,
			(unsigned long long)e->offset, (unsigned long long)e->offset, e->field,
			e->msg);
}

static void usage(FILE *f)
{
	fputs("usage: ktrace convert IN.fxt -o OUT.json\n"
	      "\n"
	      "Convert an FXT trace to Chrome trace-event JSON (object format) for\n"
	      "chrome://tracing, Perfetto or DevTools.  Memory stays flat as the input grows.\n"
	      "\n"
	      "  -o, --output FILE   where to write the JSON ('-' for standard output)\n"
	      "\n"
	      "EXAMPLES\n"
	      "  ktrace convert sched.fxt -o sched.json\n"
	      "  ktrace convert sched.fxt -o - | gzip > sched.json.gz\n", f);
}

int cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *out_path = NULL;
	struct convert_ctx ctx = { 0 };
	struct fxt_reader r;
	struct out_file of;
	struct obuf out;
	int c, in_fd, ret;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !out_path) {
		usage(stderr);
		return 2;
	}
	ctx.path = argv[optind];
	in_fd = strcmp(ctx.path, "-") ? open(ctx.path, O_RDONLY) : 0;
	if (in_fd < 0) {
		pr_err("cannot open %s: %s", ctx.path, strerror(errno));
		return 1;
	}
	/* Not FXT at all: refused before the output is touched. */
	if (fxt_check_start(in_fd, ctx.path)) {
		if (in_fd)
			close(in_fd);
		return 1;
	}
	/* Written beside and renamed over it when the JSON is complete. */
	if (out_file_open(&of, out_path)) {
		if (in_fd)
			close(in_fd);
		return 1;
	}
	if (fxt_reader_open_fd(&r, in_fd, ctx.path) || obuf_init(&out, of.fd, 4 << 20)) {
		pr_err("out of memory");
		return 1;
	}
	r.on_violation = on_violation;
	r.ctx = &ctx;
	r.require_magic = true;
	ret = json_convert(&r, &out, NULL);
	if (!ret && !r.records) {
		pr_err("%s: the input is empty, not an FXT trace", ctx.path);
		ret = -EINVAL;
	} else if (ret == -EINVAL && r.fatal.msg[0])
		pr_err("%s: offset %llu (0x%llx): %s: %s; the JSON holds the %llu records before it",
		       ctx.path, (unsigned long long)r.fatal.offset,
		       (unsigned long long)r.fatal.offset, r.fatal.field, r.fatal.msg,
		       (unsigned long long)r.records);
	else if (ret == -EINVAL)
		pr_err("%s: %llu unreadable records were left out (first at offset %llu: %s: %s)",
		       ctx.path, (unsigned long long)r.skipped, (unsigned long long)r.first.offset,
		       r.first.field, r.first.msg);
	else if (ret)
		pr_err("%s: %s", ctx.path, strerror(-ret));
	if (r.violations > ctx.reported || ctx.reported > 10)
		pr_warn("%s: %llu spec violations in all", ctx.path,
			(unsigned long long)r.violations);
	if (obuf_flush(&out)) {
		pr_err("writing %s: %s", out_path, strerror(-out.err));
		out_file_abort(&of);
		ret = out.err;
	} else if (out_file_commit(&of) && !ret) {
		/* The JSON of a damaged input is still valid, and kept: the error says what it holds. */
		ret = -EIO;
	}
	obuf_free(&out);
	fxt_reader_close(&r);
	if (in_fd)
		close(in_fd);
	return ret ? 1 : 0;
}
