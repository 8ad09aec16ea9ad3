// SPDX-License-Identifier: GPL-2.0
/* ktrace convert: an FXT archive to Chrome trace-event JSON, streaming. */
#include <errno.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "fxt/fxt_reader.h"
#include "lib/utils.h"
#include "trace/json_writer.h"

static int convert_opt(void *ctx, const struct cli_arg *a)
{
	const char **out_path = ctx;

	*out_path = a->text;	/* -o, the only option */
	return 0;
}

static const struct option convert_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ 0 }
};

static const struct cli_command convert_cmd = {
	.name = "convert",
	.usage = "usage: ktrace convert IN.fxt -o OUT.json\n"
		 "\n"
		 "Convert an FXT trace to Chrome trace-event JSON (object format) for\n"
		 "chrome://tracing, Perfetto or DevTools.  Memory stays flat as the input grows.\n"
		 "IN may be '-' for standard input.\n"
		 "\n"
		 "  -o, --output FILE      where to write the JSON ('-' for standard output)\n",
	.examples = "  ktrace convert sched.fxt -o sched.json\n"
		    "  ktrace convert sched.fxt -o - | gzip > sched.json.gz\n",
	.shortopts = "o:",
	.longopts = convert_options,
	.min_args = 1,
	.max_args = 1,
	.opt = convert_opt,
};

int cmd_convert(int argc, char **argv)
{
	const char *out_path = NULL;
	struct cli_output of = { 0 };
	struct cli_input in;
	struct fxt_reader r;
	struct obuf out;
	int ret;

	ret = cli_parse_options(&convert_cmd, argc, argv, &out_path);
	if (ret >= 0)
		return ret;
	if (!out_path) {
		cli_usage_error("-o OUT.json missing");
		cli_usage_hint(&convert_cmd);
		return 2;
	}
	if (cli_open_trace(&in, argv[optind], 0))
		return 1;
	/* The JSON is written straight into it: no FXT to convert on commit. */
	ret = cli_output_open(&of, out_path, false);
	if (!ret)
		ret = cli_trace_reader(&in, &r);
	if (ret) {
		cli_output_abort(&of);
		cli_close_trace(&in);
		return 1;
	}
	if (obuf_init(&out, of.fd, 4 << 20)) {
		pr_err("out of memory writing %s", out_path);
		ret = -ENOMEM;
		goto out;
	}
	ret = json_convert(&r, &out, NULL);
	if (cli_trace_empty(&in, &r, ret))
		ret = -EINVAL;
	else if (ret == -EINVAL && r.fatal.msg[0])
		cli_trace_report(&in, true, &r.fatal, "; the JSON holds the %llu records before it",
				 (unsigned long long)r.records);
	else if (ret == -EINVAL)
		pr_err("%s: %llu unreadable records were left out (first at offset %llu: %s: %s)",
		       in.path, (unsigned long long)r.skipped, (unsigned long long)r.first.offset,
		       r.first.field, r.first.msg);
	else if (ret)
		pr_err("%s: %s", in.path, strerror(-ret));
	if (obuf_flush(&out)) {
		pr_err("writing %s: %s", out_path, strerror(-out.err));
		ret = out.err;
	} else if (cli_output_commit(&of, NULL) && !ret) {
		/* The JSON of a damaged input is still valid, and kept: the error says what it holds. */
		ret = -EIO;
	}
	obuf_free(&out);
out:
	cli_output_abort(&of);	/* nothing once committed */
	fxt_reader_close(&r);
	cli_close_trace(&in);
	return ret ? 1 : 0;
}
