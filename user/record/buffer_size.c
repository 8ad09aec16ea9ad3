// SPDX-License-Identifier: GPL-2.0
/*
 * The default per-CPU buffer size: KTRACE_DEFAULT_BUFFER_SIZE (4 MiB) per
 * CPU while all of them fit in RECORD_BUFFER_BUDGET, else halved until they
 * do, down to RECORD_MIN_DEFAULT_BUFFER.  A CPU's event rate does not grow
 * with the machine, but the memory pinned for buffers would: 4 MiB on each
 * of 256 CPUs is 1 GiB.  ftrace's default is likewise modest per CPU.
 */
#include <linux/ktrace.h>

#include "record/record.h"

uint64_t record_default_buffer_size(unsigned int ncpus)
{
	uint64_t size = KTRACE_DEFAULT_BUFFER_SIZE;

	while (size > RECORD_MIN_DEFAULT_BUFFER && size * ncpus > RECORD_BUFFER_BUDGET)
		size /= 2;
	return size;
}
