// SPDX-License-Identifier: GPL-2.0
/*
 * JSON as strict parsers read it (browsers', Python's): one value, no NaN,
 * no infinity, no leading zero, no control character in a string.  The
 * analyses fuzzer checks every report and file with it.  It is built
 * without coverage instrumentation: it is the checker, not what is checked
 * (with its comparisons traced, it took a sixth of the fuzzer's time).
 */
#include <stdbool.h>
#include <string.h>

#include "json_valid.h"

struct json_in {
	const char *p, *end;
	int depth;
};

static void ws(struct json_in *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
		j->p++;
}

static bool lit(struct json_in *j, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, s, n))
		return false;
	j->p += n;
	return true;
}

static bool digits(struct json_in *j)
{
	const char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > s;
}

/* No NaN, no infinity, no leading zero, no bare point. */
static bool number(struct json_in *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (!digits(j))
		return false;
	if (j->p < j->end && *j->p == '.' && (j->p++, !digits(j)))
		return false;
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!digits(j))
			return false;
	}
	return true;
}

static bool string(struct json_in *j)
{
	if (j->p >= j->end || *j->p++ != '"')
		return false;
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = *j->p++;

		if (c < 0x20)
			return false;
		if (c != '\\')
			continue;
		if (j->p >= j->end)
			return false;
		c = *j->p++;
		if (c == 'u') {
			for (int i = 0; i < 4; i++, j->p++)
				if (j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p) ||
				    !*j->p)
					return false;
		} else if (!strchr("\"\\/bfnrt", c) || !c) {
			return false;
		}
	}
	return j->p < j->end && *j->p++ == '"';
}

static bool value(struct json_in *j)
{
	bool ok = true, obj;

	ws(j);
	if (j->p >= j->end)
		return false;
	if (*j->p == '"')
		return string(j);
	if (*j->p != '{' && *j->p != '[')
		return lit(j, "true") || lit(j, "false") || lit(j, "null") || number(j);
	if (++j->depth > 64)
		return false;
	obj = *j->p++ == '{';
	ws(j);
	if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
		j->p++;
		j->depth--;
		return true;
	}
	do {
		ws(j);
		if (obj) {
			ok = string(j);
			ws(j);
			ok = ok && j->p < j->end && *j->p++ == ':';
		}
		ok = ok && value(j);
		ws(j);
	} while (ok && j->p < j->end && *j->p == ',' && j->p++);
	j->depth--;
	return ok && j->p < j->end && *j->p++ == (obj ? '}' : ']');
}

bool json_valid(const char *buf, size_t len, size_t *bad_at)
{
	struct json_in j = { buf, buf + len, 0 };
	bool ok = value(&j);

	ws(&j);
	*bad_at = (size_t)(j.p - buf);
	return ok && j.p == j.end;
}
