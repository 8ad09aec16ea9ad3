/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hrtimers across kernels.  Setting up a sleeper's hrtimer:
 * hrtimer_init_sleeper_on_stack() became hrtimer_setup_sleeper_on_stack()
 * in 6.13 (Kbuild defines KTRACE_HAVE_HRTIMER_SETUP_SLEEPER when the
 * headers have it).  The timer's function became __private (read it with
 * ACCESS_PRIVATE(), which older kernels have too), and hrtimer_expire_entry
 * passes its base's time by value instead of by pointer (Kbuild defines
 * KTRACE_HRTIMER_EXPIRE_NOW_BY_VALUE); a probe's prototype must match.
 */
#ifndef _KTRACE_COMPAT_HRTIMER_H
#define _KTRACE_COMPAT_HRTIMER_H

#include <linux/compiler_types.h>
#include <linux/hrtimer.h>
#include <linux/uaccess.h>

/* hrtimer_expire_entry's last parameter, as a probe declares it. */
#ifdef KTRACE_HRTIMER_EXPIRE_NOW_BY_VALUE
#define KTRACE_HRTIMER_EXPIRE_NOW	ktime_t now
#else
#define KTRACE_HRTIMER_EXPIRE_NOW	ktime_t *now
#endif

static inline void *ktrace_hrtimer_function(struct hrtimer *timer)
{
	return (void *)ACCESS_PRIVATE(timer, function);
}

/* The same, from a timer that may be gone: NULL if it cannot be read. */
static inline void *ktrace_hrtimer_function_nofault(struct hrtimer *timer)
{
	void *fn;

	if (get_kernel_nofault(fn, (void **)&ACCESS_PRIVATE(timer, function)))
		return NULL;
	return fn;
}

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
	fn = ktrace_hrtimer_function(&sl.timer);
	destroy_hrtimer_on_stack(&sl.timer);
	return fn;
}

#endif /* _KTRACE_COMPAT_HRTIMER_H */
