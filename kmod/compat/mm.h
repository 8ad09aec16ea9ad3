/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm_flags became read-only to modules in 6.3: vm_flags_clear() replaced
 * writing them.  Kbuild defines KTRACE_HAVE_VM_FLAGS_CLEAR when the
 * kernel's headers have it.
 */
#ifndef _KTRACE_COMPAT_MM_H
#define _KTRACE_COMPAT_MM_H

#include <linux/mm.h>

static inline void ktrace_vma_make_readonly(struct vm_area_struct *vma)
{
#ifdef KTRACE_HAVE_VM_FLAGS_CLEAR
	vm_flags_clear(vma, VM_MAYWRITE);
#else
	vma->vm_flags &= ~VM_MAYWRITE;
#endif
}

#endif /* _KTRACE_COMPAT_MM_H */
