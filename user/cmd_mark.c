// SPDX-License-Identifier: GPL-2.0
/* ktrace mark: an instant, duration or counter event from the command line. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/ktrace.h>

#include "commands.h"
#include "utils.h"

static void usage(FILE *f)
{
	fputs("usage: ktrace mark [-c CATEGORY] [--begin | --end | --counter VALUE] NAME\n"
	      "\n"
	      "Write an event into the running recording (module backend), on this\n"
	      "thread and with the recorder's clock.  Without a recording it is dropped.\n"
	      "\n"
	      "  -c, --category CAT   the event's category (default: mark)\n"
	      "  -b, --begin          begin a duration named NAME\n"
	      "  -e, --end            end the duration\n"
	      "  -C, --counter VALUE  a counter sample\n"
	      "\n"
	      "EXAMPLES\n"
	      "  ktrace mark checkpoint\n"
	      "  ktrace mark -b build; make; ktrace mark -e build\n"
	      "  ktrace mark -C 42 queue_depth\n", f);
}

int cmd_mark(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "category", required_argument, NULL, 'c' },
		{ "begin", no_argument, NULL, 'b' },
		{ "end", no_argument, NULL, 'e' },
		{ "counter", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct ktrace_mark m = { .size = sizeof(m), .type = KTRACE_MARK_INSTANT };
	const char *cat = "mark", *name;
	char buf[sizeof(m) + 2 * KTRACE_MARK_MAX_LEN];
	char *end;
	int c, fd;
	ssize_t n;

	while ((c = getopt_long(argc, argv, "c:beC:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cat = optarg;
			break;
		case 'b':
			m.type = KTRACE_MARK_BEGIN;
			break;
		case 'e':
			m.type = KTRACE_MARK_END;
			break;
		case 'C':
			m.type = KTRACE_MARK_COUNTER;
			errno = 0;
			m.value = strtoll(optarg, &end, 0);
			if (errno || *end || end == optarg) {
				pr_err("--counter %s: give an integer", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	name = argv[optind];
	m.cat_len = strlen(cat);
	m.name_len = strlen(name);
	if (!m.name_len || m.name_len > KTRACE_MARK_MAX_LEN || m.cat_len > KTRACE_MARK_MAX_LEN) {
		pr_err("the name (1 to %d bytes) or category (up to %d) is too long or empty",
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
