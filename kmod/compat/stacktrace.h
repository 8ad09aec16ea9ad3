/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel stack of a task that is not running: sched_switch's next,
 * switched out where it blocked and not yet switched in (its on_cpu is
 * set after the tracepoint), so its saved stack stays put while the run
 * queue's lock is held, and it is alive, so its stack is not freed.
 * stack_trace_save_tsk() is not exported to modules.  x86 exports the
 * unwinder that its arch_stack_walk() drives, and it is driven the same
 * way here; arm64 always keeps frame records, walked here within the
 * task's stack, as its unwinder does for a blocked task.  Elsewhere no
 * frame is saved.  Neither takes a lock (PREEMPT_RT included) or sleeps.
 * Kbuild defines KTRACE_HAVE_PTRAUTH_STRIP_INSN_PAC when arm64's headers
 * have that name (6.4 renamed it ptrauth_strip_kernel_insn_pac()).
 */
#ifndef _KTRACE_COMPAT_STACKTRACE_H
#define _KTRACE_COMPAT_STACKTRACE_H

#include <linux/compiler.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>

#if defined(CONFIG_X86)
#include <asm/unwind.h>

static inline unsigned int ktrace_stack_save_tsk(struct task_struct *tsk, unsigned long *store,
						 unsigned int size)
{
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;

	for (unwind_start(&state, tsk, NULL, NULL); n < size && !unwind_done(&state);
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		store[n++] = addr;
	}
	return n;
}
#elif defined(CONFIG_ARM64)
#include <asm/pointer_auth.h>
#include <asm/processor.h>

static inline unsigned long ktrace_strip_pac(unsigned long lr)
{
#ifdef KTRACE_HAVE_PTRAUTH_STRIP_INSN_PAC
	return ptrauth_strip_insn_pac(lr);
#else
	return ptrauth_strip_kernel_insn_pac(lr);
#endif
}

static inline unsigned int ktrace_stack_save_tsk(struct task_struct *tsk, unsigned long *store,
						 unsigned int size)
{
	unsigned long low = (unsigned long)task_stack_page(tsk), high = low + THREAD_SIZE;
	unsigned long fp = thread_saved_fp(tsk), next_fp, lr;
	unsigned int n = 0;

	if (size)
		store[n++] = thread_saved_pc(tsk);
	/* Each frame record is {fp, lr}, 16-byte aligned, higher than the last. */
	while (n < size && fp >= low && fp <= high - 16 && !(fp & 0xf)) {
		next_fp = READ_ONCE_NOCHECK(*(unsigned long *)fp);
		lr = ktrace_strip_pac(READ_ONCE_NOCHECK(*(unsigned long *)(fp + 8)));
		if (!lr)
			break;
		store[n++] = lr;
		if (next_fp <= fp)
			break;
		fp = next_fp;
	}
	return n;
}
#else
static inline unsigned int ktrace_stack_save_tsk(struct task_struct *tsk, unsigned long *store,
						 unsigned int size)
{
	return 0;
}
#endif

#endif /* _KTRACE_COMPAT_STACKTRACE_H */
