/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal TAP producer for the C test programs. */
#ifndef KTRACE_TESTS_TAP_H
#define KTRACE_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_test_no, tap_failures;

static void __attribute__((format(printf, 2, 3))) ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_test_no);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failures++;
}

/* The plan and totals; returns the exit status. */
static int tap_finish(void)
{
	printf("1..%d\n# %d passed, %d failed\n", tap_test_no, tap_test_no - tap_failures,
	       tap_failures);
	return tap_failures ? 1 : 0;
}

#endif
