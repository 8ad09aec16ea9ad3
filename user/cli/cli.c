// SPDX-License-Identifier: GPL-2.0
/* The options every ktrace command parses the same way, and how each opens its input trace. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/utils.h"

/* The first spec violations are shown, the rest only counted. */
#define MAX_REPORTED	10

static const char *verb = "?";

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ktrace %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

static void usage(const struct cli_command *cmd, FILE *f)
{
	fputs(cmd->usage, f);
	fputs("  -h, --help             this text\n", f);
	if (cmd->durations)
		fputs("\n"
		      "A duration DUR is a number and a unit: ns, us (or µs), ms, s, m or h, as\n"
		      "in 300ms, 1.5s or 2m.  A bare number is seconds where an option says so\n"
		      "(-d 5); elsewhere it needs a unit, save 0.\n", f);
	fprintf(f, "\nEXAMPLES\n%s", cmd->examples);
}

void cli_usage_hint(const struct cli_command *cmd)
{
	const char *end = strstr(cmd->usage, "\n\n");

	fprintf(stderr, "%.*s\n'ktrace %s --help' describes every option.\n",
		end ? (int)(end - cmd->usage) : (int)strlen(cmd->usage), cmd->usage, cmd->name);
}

/* The option getopt_long() just returned, as written: the long name, else the letter. */
static void opt_name(char *buf, size_t len, const struct option *longopts, int longindex, int c)
{
	if (longindex >= 0)
		snprintf(buf, len, "--%s", longopts[longindex].name);
	else
		snprintf(buf, len, "-%c", c);
}

/* The option of @longopts that @arg ("--name" or "--name=value") names and getopt refused. */
static const struct option *long_option(const struct option *longopts, const char *arg)
{
	size_t n = strcspn(arg + 2, "=");

	/* getopt_long() sets optopt to the value of a known option it refused. */
	for (const struct option *o = longopts; o->name; o++)
		if (o->val == optopt && !strncmp(o->name, arg + 2, n))
			return o;
	return NULL;
}

/* What getopt_long() refused: @c is '?' (unknown, or a value it takes not) or ':' (missing). */
static int bad_option(const struct cli_command *cmd, const struct option *longopts, char **argv,
		      int c)
{
	const char *arg = argv[optind - 1];
	const struct option *o = NULL;
	char name[64];

	/* An unknown long option leaves optopt 0; a short one, or a known long one, sets it. */
	if (!strncmp(arg, "--", 2) && (!optopt || (o = long_option(longopts, arg))))
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	else
		snprintf(name, sizeof(name), "-%c", optopt);
	if (c == ':')
		cli_usage_error("%s needs an argument", name);
	else if (o && strchr(arg, '='))
		cli_usage_error("%s takes no argument", name);
	else
		cli_usage_error("unknown option '%s'", name);
	cli_usage_hint(cmd);
	return 2;
}

static unsigned int count_options(const struct option *o)
{
	unsigned int n = 0;

	while (o[n].name)
		n++;
	return n;
}

int cli_parse_options(const struct cli_command *cmd, int argc, char **argv, void *ctx)
{
	unsigned int nopts = count_options(cmd->longopts), nargs;
	struct option longopts[nopts + 2];
	bool stop_at_operand = cmd->shortopts[0] == '+';
	char shortopts[64];
	char name[64];
	int c, longindex;

	verb = cmd->name;
	memcpy(longopts, cmd->longopts, nopts * sizeof(*longopts));
	longopts[nopts] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[nopts + 1] = (struct option){ 0 };
	/* ':' first: a missing argument is told apart from an unknown option. */
	snprintf(shortopts, sizeof(shortopts), "%s:%sh", stop_at_operand ? "+" : "",
		 cmd->shortopts + stop_at_operand);
	opterr = 0;
	for (;;) {
		longindex = -1;
		optopt = 0;
		c = getopt_long(argc, argv, shortopts, longopts, &longindex);
		if (c == -1)
			break;
		if (c == 'h') {
			usage(cmd, stdout);
			return 0;
		}
		if (c == '?' || c == ':')
			return bad_option(cmd, longopts, argv, c);
		opt_name(name, sizeof(name), longopts, longindex, c);
		if (cmd->opt(ctx, &(struct cli_arg){ .c = c, .name = name, .text = optarg }))
			return 2;
	}
	nargs = argc - optind;
	if (nargs < cmd->min_args || nargs > cmd->max_args) {
		if (nargs < cmd->min_args)
			cli_usage_error("%u operand%s missing", cmd->min_args - nargs,
					cmd->min_args - nargs > 1 ? "s are" : " is");
		else
			cli_usage_error("unexpected operand '%s'", argv[optind + cmd->max_args]);
		cli_usage_hint(cmd);
		return 2;
	}
	return -1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int cli_parse_duration(const char *opt, const char *text, uint64_t default_unit, uint64_t *ns)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "\u00b5s", 1000 }, { "\u03bcs", 1000 },
		{ "ms", 1000000 }, { "s", CLI_NSEC_PER_SEC }, { "m", 60 * CLI_NSEC_PER_SEC },
		{ "h", 3600 * CLI_NSEC_PER_SEC },
	};
	unsigned __int128 whole = 0, frac = 0, scale = 1, total;
	const char *p = text;
	uint64_t unit = 0;

	if (*p == '-')
		return cli_usage_error("%s '%s': a duration cannot be negative", opt, text);
	if (!is_digit(*p) && !(*p == '.' && is_digit(p[1])))
		return cli_usage_error("%s '%s': give a number and a unit, as in 300ms or 5s", opt, text);
	for (; is_digit(*p); p++) {
		whole = whole * 10 + (*p - '0');
		if (whole > UINT64_MAX)
			return cli_usage_error("%s '%s': too long", opt, text);
	}
	if (*p == '.')
		/* Digits past the 19th are below a nanosecond in any unit. */
		for (p++; is_digit(*p); p++)
			if (scale < 10000000000000000000ULL) {
				frac = frac * 10 + (*p - '0');
				scale *= 10;
			}
	if (!*p && default_unit)
		unit = default_unit;
	else if (!*p && !whole && !frac)
		unit = 1;	/* 0 is 0 in any unit */
	else if (!*p)
		return cli_usage_error("%s '%s': give a unit, as in %sus or %sms (ns, us, ms, s, m or h)",
				       opt, text, text, text);
	for (size_t i = 0; !unit && i < ARRAY_SIZE(units); i++)
		if (!strcmp(p, units[i].name))
			unit = units[i].ns;
	if (!unit)
		return cli_usage_error("%s '%s': unknown unit '%s' (use ns, us, ms, s, m or h)",
				       opt, text, p);
	total = whole * unit + (frac * unit + scale / 2) / scale;
	if (total > UINT64_MAX)
		return cli_usage_error("%s '%s': too long", opt, text);
	*ns = total;
	return 0;
}

/* A whole decimal number at @s, up to @end; -EINVAL if there is none, -ERANGE past 2^64. */
static int parse_whole(const char *s, const char **end, uint64_t *v)
{
	*v = 0;
	if (!is_digit(*s))
		return -EINVAL;
	for (; is_digit(*s); s++) {
		if (*v > (UINT64_MAX - (*s - '0')) / 10)
			return -ERANGE;
		*v = *v * 10 + (*s - '0');
	}
	*end = s;
	return 0;
}

int cli_parse_size(const char *opt, const char *text, uint64_t *bytes)
{
	unsigned int shift = 0;
	const char *p;
	uint64_t v;
	int ret = parse_whole(text, &p, &v);

	if (ret == -EINVAL)
		return cli_usage_error("%s '%s': give a size in bytes, or with K, M or G, as in 4M",
				       opt, text);
	if (!ret && *p) {
		switch (*p) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		}
		if (!shift || p[1])
			return cli_usage_error("%s '%s': unknown unit '%s' (use K, M or G)",
					       opt, text, p);
	}
	if (ret || v > UINT64_MAX >> shift)
		return cli_usage_error("%s '%s': too large", opt, text);
	*bytes = v << shift;
	return 0;
}

int cli_parse_pid(const char *opt, const char *text, uint32_t *pid)
{
	const char *end;
	uint64_t v;

	if (parse_whole(text, &end, &v) || *end || !v || v > CLI_PID_MAX)
		return cli_usage_error("%s '%s': give a thread or process id from 1 to %d",
				       opt, text, CLI_PID_MAX);
	*pid = v;
	return 0;
}

int cli_parse_uint(const char *opt, const char *text, uint64_t max, uint64_t *v)
{
	const char *end;

	if (parse_whole(text, &end, v) || *end || *v > max)
		return cli_usage_error("%s '%s': give a whole number from 0 to %llu", opt, text,
				       (unsigned long long)max);
	return 0;
}

void cli_trace_report(const struct cli_input *in, bool error, const struct fxt_error *e,
		      const char *fmt, ...)
{
	char then[256] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(then, sizeof(then), fmt, ap);
		va_end(ap);
	}
	(error ? pr_err : pr_warn)("%s: offset %llu (0x%llx): %s: %s%s", in->path,
				   (unsigned long long)e->offset, (unsigned long long)e->offset,
				   e->field, e->msg, then);
}

static void on_violation(void *ctx, const struct fxt_error *e)
{
	struct cli_input *in = ctx;

	if (in->quiet)
		return;
	if (in->violations++ < MAX_REPORTED) {
		cli_trace_report(in, false, e, NULL);
		in->reported++;
	}
}

int cli_open_trace(struct cli_input *in, const char *path, unsigned int flags)
{
	int ret;

	memset(in, 0, sizeof(*in));
	in->path = path;
	in->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (in->fd < 0) {
		ret = -errno;
		pr_err("cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	if ((flags & CLI_INPUT_REREAD) && lseek(in->fd, 0, SEEK_CUR) < 0) {
		ret = -errno;
		pr_err("%s: cannot read it twice (%s): give a file, not a pipe", path,
		       strerror(-ret));
		cli_close_trace(in);
		return ret;
	}
	/* Not FXT at all: refused before anything is written. */
	if (fxt_check_start(in->fd, path)) {
		cli_close_trace(in);
		return -EINVAL;
	}
	return 0;
}

int cli_trace_reader(struct cli_input *in, struct fxt_reader *r)
{
	int ret;

	if (in->passes++ && lseek(in->fd, 0, SEEK_SET) < 0) {
		ret = -errno;
		pr_err("%s: cannot read it twice (%s): give a file, not a pipe", in->path,
		       strerror(-ret));
		return ret;
	}
	if (fxt_reader_open_fd(r, in->fd, in->path)) {
		pr_err("out of memory reading %s", in->path);
		return -ENOMEM;
	}
	r->on_violation = on_violation;
	r->ctx = in;
	r->require_magic = true;
	return 0;
}

bool cli_trace_empty(const struct cli_input *in, const struct fxt_reader *r, int ret)
{
	if (ret || r->records)
		return false;
	pr_err("%s: the input is empty, not an FXT trace", in->path);
	return true;
}

void cli_close_trace(struct cli_input *in)
{
	if (in->violations > in->reported)
		pr_warn("%s: %llu spec violations in all; the first %llu are shown above", in->path,
			(unsigned long long)in->violations, (unsigned long long)in->reported);
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	in->fd = -1;
}
