/* SPDX-License-Identifier: GPL-2.0 */
/* ftrace text dumps (tracefs `trace`, trace-cmd report) into the converter. */
#ifndef KTRACE_FTRACE_TEXT_H
#define KTRACE_FTRACE_TEXT_H

#include <stdbool.h>

#include "record/ftrace_convert.h"

/*
 * Parses a tracefs `trace` text dump into @c.  Malformed lines are
 * reported with their number and skipped; returns the number of them, or
 * -errno when the file cannot be read.  *@mono is set when the header says
 * the dump used the monotonic clock.
 */
int ftrace_text_import(struct ftrace_conv *c, const char *path, bool *mono);

#endif
