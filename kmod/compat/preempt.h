/* SPDX-License-Identifier: GPL-2.0 */
/*
 * in_hardirq() is 5.11's name for in_irq(); both are macros, so the
 * preprocessor tells which one the kernel's headers have.
 */
#ifndef _KTRACE_COMPAT_PREEMPT_H
#define _KTRACE_COMPAT_PREEMPT_H

#include <linux/preempt.h>

#ifndef in_hardirq
#define in_hardirq()	in_irq()
#endif

#endif /* _KTRACE_COMPAT_PREEMPT_H */
