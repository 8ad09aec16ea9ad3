/* SPDX-License-Identifier: GPL-2.0 */
/* The ktrace subcommands; each lives in cmd_<verb>.c and returns an exit status. */
#ifndef KTRACE_COMMANDS_H
#define KTRACE_COMMANDS_H

int cmd_dump(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_mark(int argc, char **argv);
int cmd_latency(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_spikes(int argc, char **argv);

/*
 * Shared by the commands (cmd_latency.c): both passes of the latency
 * analysis @a over @in, and of the critical path @cp with it if not NULL;
 * lat_done() and cp_done() called.  0, or -errno reported.
 */
struct cli_input;
struct lat_analysis;
struct cp_analysis;
int latency_read(struct cli_input *in, struct lat_analysis *a, struct cp_analysis *cp);

#endif
