/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One recording session, as `ktrace record` and `ktrace watch` run it:
 * sources opened and started, their buffers drained into spools, stopped,
 * and the archive written.
 */
#ifndef KTRACE_SESSION_H
#define KTRACE_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli/cli.h"
#include "record/record.h"
#include "record/source_thread.h"

/* Set by SIGINT, SIGTERM and SIGHUP once record_start() has run: stop. */
extern volatile sig_atomic_t record_stop_requested;

/* One recording: its sources, spools, clock sync, output and command. */
struct record_run {
	struct record_opts *ro;
	struct {
		const struct source_ops *ops;
		void *priv;
		struct spool *spools;
		unsigned int nspools;
		struct source_thread thread;	/* all but the backend's, while recording */
	} src[2];			/* the backend, then ftrace (--ftrace) */
	unsigned int nsrc;
	struct spool *spools;		/* the backend's, ktrace's own (cli), ftrace's */
	unsigned int nspools, cli, nall;
	struct clock_sync sync;
	struct cli_output out;
	uint64_t t0, start;
	pid_t child;
	int go, status;
	struct trigger_report trep;
	bool said_trigger;
	struct record_stats st;
	struct spool end_names;		/* the threads alive as recording stopped */
	struct cgroup_limits *limits;	/* cpu.max of the limited cgroups, start and end */
	struct cgroup_paths cgroups;	/* every cgroup v2 at the end, by id */
};

/* The recorder backend: @name (--backend), or the module when it is loaded, else BPF. */
const struct source_ops *choose_backend(const char *name, const struct record_opts *ro,
					char *why, size_t len);
/* Without -b, the default buffer size for this machine's CPUs, said. */
int choose_buffer_size(struct record_opts *ro);
/* Options shared by record and watch: -b SIZE, -d DUR, --comm NAME; 0 or -EINVAL said. */
int record_parse_buffer_size(const struct cli_arg *a, uint64_t *bytes);
int record_parse_duration(const struct cli_arg *a, uint64_t *ns);
int record_parse_comm(const struct cli_arg *a, char comm[16]);
/*
 * --cgroup PATH: a cgroup directory of v2 or of v1's cpu hierarchy, or a
 * path below v2's root, into @ro's trigger_cgroup; -EINVAL said if none.
 */
int record_parse_cgroup(const struct cli_arg *a, struct record_opts *ro);
/* -ESRCH, said, if no thread or process @pid runs (a trigger could only fire on a reused id). */
int check_trigger_pid(uint32_t pid);
/* @out_path NULL: no output file (`ktrace watch` writes its own, with write_archive()). */
int record_open(struct record_run *rs, const struct source_ops *main_ops,
		struct record_opts *ro, const char *ftrace_spec, const char *out_path,
		bool json, const char *why);
int record_start(struct record_run *rs);
void record_loop(struct record_run *rs, uint64_t duration_ns);
void record_stop(struct record_run *rs);
/* The threads alive now, named into @rs->end_names (a ring may keep none of their names). */
void record_end_names(struct record_run *rs);

/*
 * `ktrace watch`: the names the last window's threads alive had, as
 * kernel object records.  A thread that ran in a window but exited before
 * it was taken (after its stop, so no record of its exit is in it) is
 * named from the window before, if it was alive then.
 */
struct names_carry {
	uint64_t *words;
	uint32_t nwords, cap;
};

/*
 * After record_end_names(): the names in @c of threads and processes gone
 * since added to @rs->end_names, and @c holds this window's alive ones.
 */
int record_end_names_carry(struct record_run *rs, struct names_carry *c);
void names_carry_free(struct names_carry *c);
int record_write(struct record_run *rs, const char *out_path);
void record_close(struct record_run *rs);

#endif
