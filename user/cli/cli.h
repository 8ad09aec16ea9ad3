/* SPDX-License-Identifier: GPL-2.0 */
/* What every ktrace command shares: options and their values, the input trace, the output file. */
#ifndef KTRACE_CLI_H
#define KTRACE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fxt/fxt_reader.h"

/* ---- options (cli.c) ----------------------------------------------------- */

/* One option as the user gave it. */
struct cli_arg {
	int c;				/* getopt's value for it */
	const char *name;		/* as written: "-d" or "--duration" */
	const char *text;		/* its argument, NULL if it takes none */
};

struct cli_command {
	const char *name;		/* the verb: "record" */
	const char *usage;		/* synopsis, description and options */
	const char *examples;		/* the EXAMPLES block's lines */
	bool durations;			/* it takes durations: say how they are written */
	const char *shortopts;		/* '+' first: options end at the first operand */
	const struct option *longopts;	/* ends with { 0 }; --help is added */
	unsigned int min_args, max_args;	/* operands */
	/* Takes one option: 0, or -EINVAL once it said what is wrong. */
	int (*opt)(void *ctx, const struct cli_arg *a);
};

#define CLI_ANY_ARGS	(~0U)

/*
 * getopt_long over @argv, each option handed to @cmd->opt.  --help prints
 * the usage to stdout; an unknown option, a missing argument or a wrong
 * number of operands is named and the usage follows on stderr.  Returns
 * -1 to go on (the operands start at argv[optind]), else the exit status:
 * 0 after --help, 2 for a usage error.
 */
int cli_parse_options(const struct cli_command *cmd, int argc, char **argv, void *ctx);
/* After a usage error: the synopsis on stderr, and where the rest is. */
void cli_usage_hint(const struct cli_command *cmd);
/* "ktrace VERB: MESSAGE" on stderr, for a usage error (exit status 2); returns -EINVAL. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Values, each refused with the option named and what it takes:
 * "ktrace record: -d '300xs': unknown unit 'xs' (use ns, us, ms, s, m or h)".
 * All return 0 or -EINVAL.
 */
#define CLI_NSEC_PER_SEC	1000000000ULL
/* A bare number has no unit (only 0 may): where one was ambiguous. */
#define CLI_UNIT_REQUIRED	0
/* A number with a unit (ns us µs ms s m h), decimals allowed; bare, @default_unit ns. */
int cli_parse_duration(const char *opt, const char *text, uint64_t default_unit, uint64_t *ns);
/* Bytes: a whole number, with K, M or G for KiB, MiB and GiB. */
int cli_parse_size(const char *opt, const char *text, uint64_t *bytes);
/* The kernel's PID_MAX_LIMIT: no thread or process id is larger. */
#define CLI_PID_MAX		4194304
/* A thread or process id, 1 to CLI_PID_MAX. */
int cli_parse_pid(const char *opt, const char *text, uint32_t *pid);
/* A whole number from 0 to @max. */
int cli_parse_uint(const char *opt, const char *text, uint64_t max, uint64_t *v);

/* ---- the input trace (cli.c) --------------------------------------------- */

/* An FXT trace being read: a file, or "-" for standard input. */
struct cli_input {
	const char *path;
	int fd;
	bool quiet;			/* this pass reports no violations (the first of two) */
	unsigned int passes;
	uint64_t violations, reported;
};

/* The trace is read more than once: it must be a file, not a pipe. */
#define CLI_INPUT_REREAD	1

/*
 * Opens @path and refuses at once what is not FXT (JSON, empty, anything
 * else), saying so.  0, or -errno reported.
 */
int cli_open_trace(struct cli_input *in, const char *path, unsigned int flags);
/*
 * A reader of @in from its start (again, for a second pass) that requires
 * the magic record and reports the first spec violations as warnings
 * ("PATH: offset N (0xN): FIELD: MSG").  0, or -errno reported.
 */
int cli_trace_reader(struct cli_input *in, struct fxt_reader *r);
/* "PATH: offset N (0xN): FIELD: MSG" and what @fmt adds, as an error or a warning. */
void cli_trace_report(const struct cli_input *in, bool error, const struct fxt_error *e,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Whether reading ended (@ret 0) without a record: an empty input (a pipe), said so. */
bool cli_trace_empty(const struct cli_input *in, const struct fxt_reader *r, int ret);
/* Says how many violations there were when not all were shown; closes the file. */
void cli_close_trace(struct cli_input *in);

/* ---- the output file (cli_output.c) -------------------------------------- */

/*
 * An output file that appears only when complete: written as a temporary
 * file beside @path and renamed over it by cli_output_commit(), so a
 * command that fails leaves what was there before.  "-" is standard
 * output; a device or a FIFO is written in place, never replaced.
 * All zero is a closed output.
 */
struct cli_output {
	const char *path;
	int fd;				/* where the command writes: FXT when @json */
	bool json;			/* commit converts the FXT written to @fd to JSON */
	const char *embedded_ftrace;	/* JSON: the text for systemTraceEvents */
	/* private */
	bool open;
	int file_fd;			/* the file itself */
	char *target;			/* the file renamed over (a link's target) */
	char *tmp;			/* NULL when written in place */
};

/* -F fxt|json, else by @path's extension (.json); -EINVAL as a usage error. */
int cli_output_format(const char *format, const char *path, bool *json);
/*
 * Opens the output at @path.  With @json, @o->fd is a scratch file for the
 * FXT the command writes, converted into @path on commit; else @o->fd is
 * @path's.  0, or -errno reported.
 */
int cli_output_open(struct cli_output *o, const char *path, bool json);
/*
 * JSON converted (its size in *@bytes when @bytes), the file closed and
 * renamed into place.  0, or -errno reported, and then nothing is left.
 */
int cli_output_commit(struct cli_output *o, uint64_t *bytes);
/* Closes and removes the temporary file: @path is as it was.  Idempotent, safe after commit. */
void cli_output_abort(struct cli_output *o);

#endif
