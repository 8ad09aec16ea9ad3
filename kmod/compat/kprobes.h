/* SPDX-License-Identifier: GPL-2.0 */
/*
 * get_kretprobe() came in 5.11, when a return probe instance stopped
 * pointing at its kretprobe directly (ri->rp before).  Kbuild defines
 * KTRACE_HAVE_GET_KRETPROBE when the kernel's headers have it.
 */
#ifndef _KTRACE_COMPAT_KPROBES_H
#define _KTRACE_COMPAT_KPROBES_H

#include <linux/kprobes.h>

static inline struct kretprobe *ktrace_get_kretprobe(struct kretprobe_instance *ri)
{
#ifdef KTRACE_HAVE_GET_KRETPROBE
	return get_kretprobe(ri);
#else
	return ri->rp;
#endif
}

#endif /* _KTRACE_COMPAT_KPROBES_H */
