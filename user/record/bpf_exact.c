// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF recorder built to read interrupt wakers from the preempt count:
 * its ELF bytes, for source_bpf.c to load under the one skeleton (both
 * builds have the same maps, programs and variables).
 */
#include <stddef.h>
#include <bpf/libbpf.h>

#include <linux/ktrace_fxt.h>

#include "record/record.h"
#include "sched.bpf.h"
#include "sched_exact.skel.h"

const void *bpf_exact_elf(size_t *size)
{
	return sched_bpf__elf_bytes(size);
}
