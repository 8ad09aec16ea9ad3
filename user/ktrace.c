// SPDX-License-Identifier: GPL-2.0
/* ktrace: command dispatch only; each verb lives in cmd_<verb>.c. */
#include <stdio.h>
#include <string.h>

#include <linux/ktrace.h>

#include "commands.h"

#ifndef KTRACE_VERSION
#define KTRACE_VERSION	"unknown"
#endif

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "convert", cmd_convert, "convert an FXT trace to Chrome JSON" },
	{ "dump", cmd_dump, "print, check and count the records of an FXT trace" },
	{ "latency", cmd_latency, "wakeup and preemption latency, and why the worst waits waited" },
	{ "mark", cmd_mark, "write an instant, duration or counter event into the recording" },
	{ "watch", cmd_watch, "record until stopped; save and explain every wait past a threshold" },
	{ "spikes", cmd_spikes, "what ktrace watch caught: spikes by thread and cause, the worst" },
	{ "merge", cmd_merge, "merge a saved ftrace text dump into a trace, clocks aligned" },
	{ "record", cmd_record, "record context switches, wakeups and names" },
};

static void usage(FILE *f)
{
	fputs("usage: ktrace <command> [options]\n       ktrace --version\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fputs("\n'ktrace <command> --help' describes a command.\n", f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("ktrace %s (module ABI %d)\n", KTRACE_VERSION, KTRACE_ABI_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "ktrace: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
