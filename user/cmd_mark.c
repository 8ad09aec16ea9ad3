// SPDX-License-Identifier: GPL-2.0
/* ktrace mark: an instant, duration or counter event from the command line. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/ktrace.h>

#include "cli/cli.h"
#include "commands.h"
#include "lib/utils.h"

struct mark_args {
	struct ktrace_mark m;
	const char *cat;
};

static int mark_opt(void *ctx, const struct cli_arg *a)
{
	struct mark_args *o = ctx;
	char *end;

	switch (a->c) {
	case 'c':
		o->cat = a->text;
		break;
	case 'b':
		o->m.type = KTRACE_MARK_BEGIN;
		break;
	case 'e':
		o->m.type = KTRACE_MARK_END;
		break;
	case 'C':
		o->m.type = KTRACE_MARK_COUNTER;
		errno = 0;
		o->m.value = strtoll(a->text, &end, 0);
		if (errno || *end || end == a->text)
			return cli_usage_error("%s '%s': give an integer", a->name, a->text);
		break;
	}
	return 0;
}

static const struct option mark_options[] = {
	{ "category", required_argument, NULL, 'c' },
	{ "begin", no_argument, NULL, 'b' },
	{ "end", no_argument, NULL, 'e' },
	{ "counter", required_argument, NULL, 'C' },
	{ 0 }
};

static const struct cli_command mark_cmd = {
	.name = "mark",
	.usage = "usage: ktrace mark [-c CATEGORY] [--begin | --end | --counter VALUE] NAME\n"
		 "\n"
		 "Write an event into the running recording (module backend), on this\n"
		 "thread and with the recorder's clock.  Without a recording it is dropped.\n"
		 "\n"
		 "  -c, --category CAT     the event's category (default: mark)\n"
		 "  -b, --begin            begin a duration named NAME\n"
		 "  -e, --end              end the duration\n"
		 "  -C, --counter VALUE    a counter sample\n",
	.examples = "  ktrace mark checkpoint\n"
		    "  ktrace mark -b build; make; ktrace mark -e build\n"
		    "  ktrace mark -C 42 queue_depth\n",
	.shortopts = "c:beC:",
	.longopts = mark_options,
	.min_args = 1,
	.max_args = 1,
	.opt = mark_opt,
};

int cmd_mark(int argc, char **argv)
{
	struct mark_args o = { .m = { .size = sizeof(o.m), .type = KTRACE_MARK_INSTANT },
			       .cat = "mark" };
	struct ktrace_mark m;
	const char *cat, *name;
	char buf[sizeof(m) + 2 * KTRACE_MARK_MAX_LEN];
	int ret, fd;
	ssize_t n;

	ret = cli_parse_options(&mark_cmd, argc, argv, &o);
	if (ret >= 0)
		return ret;
	m = o.m;
	cat = o.cat;
	name = argv[optind];
	m.cat_len = strlen(cat);
	m.name_len = strlen(name);
	if (!m.name_len || m.name_len > KTRACE_MARK_MAX_LEN || m.cat_len > KTRACE_MARK_MAX_LEN) {
		cli_usage_error("the name (1 to %d bytes) or category (up to %d) is too long or empty",
				KTRACE_MARK_MAX_LEN, KTRACE_MARK_MAX_LEN);
		return 2;
	}
	memcpy(buf, &m, sizeof(m));
	memcpy(buf + sizeof(m), cat, m.cat_len);
	memcpy(buf + sizeof(m) + m.cat_len, name, m.name_len);
	fd = open(KTRACE_MARK_DEVICE, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			pr_err("%s does not exist: marks need the module (insmod ktrace.ko)",
			       KTRACE_MARK_DEVICE);
		else if (errno == EACCES)
			pr_err("%s: permission denied: root, or the group set by the module's mark_gid parameter",
			       KTRACE_MARK_DEVICE);
		else
			pr_err("cannot open %s: %s", KTRACE_MARK_DEVICE, strerror(errno));
		return 1;
	}
	n = write(fd, buf, sizeof(m) + m.cat_len + m.name_len);
	close(fd);
	if (n < 0) {
		pr_err("writing the mark: %s", strerror(errno));
		return 1;
	}
	return 0;
}
