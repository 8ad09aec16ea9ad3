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

#endif
