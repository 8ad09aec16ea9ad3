/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTRACE_TESTS_JSON_VALID_H
#define KTRACE_TESTS_JSON_VALID_H

#include <stdbool.h>
#include <stddef.h>

/* Whether @buf is one JSON value; if not, *@bad_at is where it went wrong. */
bool json_valid(const char *buf, size_t len, size_t *bad_at);

#endif
