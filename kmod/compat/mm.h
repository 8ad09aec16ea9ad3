/* SPDX-License-Identifier: GPL-2.0 */
/* vm_flags became read-only to modules in 6.3: vm_flags_clear() replaced writing them. */
#ifndef _KTRACE_COMPAT_MM_H
#define _KTRACE_COMPAT_MM_H

#include <linux/mm.h>
#include <linux/version.h>

static inline void ktrace_vma_make_readonly(struct vm_area_struct *vma)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, VM_MAYWRITE);
#else
	vma->vm_flags &= ~VM_MAYWRITE;
#endif
}

#endif /* _KTRACE_COMPAT_MM_H */
