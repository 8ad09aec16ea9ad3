/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Setting up a sleeper's hrtimer: hrtimer_init_sleeper_on_stack() became
 * hrtimer_setup_sleeper_on_stack() in 6.13.  Kbuild defines
 * KTRACE_HAVE_HRTIMER_SETUP_SLEEPER when the kernel's headers have it.
 */
#ifndef _KTRACE_COMPAT_HRTIMER_H
#define _KTRACE_COMPAT_HRTIMER_H

#include <linux/hrtimer.h>

/*
 * The function every sleeper's hrtimer calls (hrtimer_wakeup(), static in
 * kernel/time/hrtimer.c and not exported), from a sleeper set up here and
 * never started.
 */
static inline void *ktrace_hrtimer_sleeper_function(void)
{
	struct hrtimer_sleeper sl;
	void *fn;

#ifdef KTRACE_HAVE_HRTIMER_SETUP_SLEEPER
	hrtimer_setup_sleeper_on_stack(&sl, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
#else
	hrtimer_init_sleeper_on_stack(&sl, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
#endif
	fn = sl.timer.function;
	destroy_hrtimer_on_stack(&sl.timer);
	return fn;
}

#endif /* _KTRACE_COMPAT_HRTIMER_H */
