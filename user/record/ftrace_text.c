// SPDX-License-Identifier: GPL-2.0
/*
 * The parser of ftrace text dumps: tracefs's `trace` file (with or without
 * the tgid and irq-info columns) or `trace-cmd report` output, line by
 * line into ftrace events for the converter.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/utils.h"
#include "record/ftrace_text.h"

/*
 * The kernel's "CPU:1 [LOST 42 EVENTS]" and trace-cmd report's "CPU:1 [42
 * EVENTS DROPPED]", either without the count when it is not known (0).
 */
static bool lost_line(const char *line, int *cpu, uint64_t *lost)
{
	const char *colon = strstr(line, ": CPU:");
	unsigned long long n = 0;
	int end = 0;

	/* trace-cmd report names the instance first: "INSTANCE: CPU:0 [...]". */
	if (colon && !memchr(line, ' ', colon - line))
		line = colon + 2;
	if ((sscanf(line, "CPU:%d [LOST %llu EVENTS]%n", cpu, &n, &end) == 2 && end) ||
	    (sscanf(line, "CPU:%d [%llu EVENTS DROPPED]%n", cpu, &n, &end) == 2 && end) ||
	    (sscanf(line, "CPU:%d [LOST EVENTS]%n", cpu, &end) == 1 && end) ||
	    (sscanf(line, "CPU:%d [EVENTS DROPPED]%n", cpu, &end) == 1 && end)) {
		*lost = n;
		return *cpu >= 0;
	}
	return false;
}

/* "12345.678901" -> ns, exactly; returns the end or NULL. */
static const char *parse_ts(const char *p, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	int digits = 0;

	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		sec = sec * 10 + (*p++ - '0');
	if (*p != '.')
		return NULL;
	p++;
	while (isdigit((unsigned char)*p)) {
		if (digits < 9) {
			frac = frac * 10 + (*p - '0');
			digits++;
		}
		p++;
	}
	if (!digits)
		return NULL;
	while (digits++ < 9)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return p;
}

/* key=value arguments; numbers become integers, the rest strings. */
static void parse_args(struct ftrace_event *e, char *text)
{
	char *p = text;

	e->nargs = 0;
	while (*p && e->nargs < KTRACE_FXT_MAX_ARGS) {
		char *key, *val, *end, *num_end;
		struct fxt_arg *a;

		while (*p == ' ' || *p == '[')
			p++;
		key = p;
		val = strchr(p, '=');
		if (!val)
			break;
		if (memchr(key, ' ', val - key))
			break;	/* not key=value text */
		*val++ = 0;
		/* The value runs to the next " key=" or the end. */
		end = val;
		for (;;) {
			char *sp = strchr(end, ' ');
			char *eq = sp ? strchr(sp + 1, '=') : NULL;
			char *sp2 = sp ? strchr(sp + 1, ' ') : NULL;

			if (!sp) {
				end += strlen(end);
				break;
			}
			if (eq && (!sp2 || eq < sp2)) {
				end = sp;
				break;
			}
			end = sp + 1;
		}
		p = *end ? end + 1 : end;
		*end = 0;
		if (end > val && end[-1] == ']')
			end[-1] = 0;
		a = &e->args[e->nargs++];
		memset(a, 0, sizeof(*a));
		a->name.p = key;
		a->name.len = strlen(key);
		errno = 0;
		a->i = strtoll(val, &num_end, 0);
		if (*val && !*num_end && !errno) {
			a->type = KTRACE_FXT_ARG_INT64;
		} else {
			a->type = KTRACE_FXT_ARG_STRING;
			a->s.p = val;
			a->s.len = strlen(val);
		}
	}
}

/*
 * One line: "COMM-PID [(TGID)] [CPU] [FLAGS] TS: EVENT: ARGS".  COMM may
 * hold spaces and dashes, so the line is anchored on "[NNN]".
 */
static int parse_line(char *line, struct ftrace_event *e, char *argbuf, size_t argsize)
{
	char *cpu = line, *close, *dash, *p, *colon;

	for (;;) {
		cpu = strchr(cpu, '[');
		if (!cpu)
			return -1;
		close = cpu + 1;
		while (isdigit((unsigned char)*close))
			close++;
		if (*close == ']' && close > cpu + 1)
			break;
		cpu++;
	}
	e->cpu = atoi(cpu + 1);
	/* Back over an optional "(  TGID)" to "COMM-PID". */
	p = cpu;
	while (p > line && p[-1] == ' ')
		p--;
	if (p > line && p[-1] == ')') {
		while (p > line && p[-1] != '(')
			p--;
		if (p > line)
			p--;
		while (p > line && p[-1] == ' ')
			p--;
	}
	*p = 0;
	dash = strrchr(line, '-');
	if (!dash || !isdigit((unsigned char)dash[1]))
		return -1;
	*dash = 0;
	e->pid = atoi(dash + 1);
	e->comm = line;
	while (*e->comm == ' ')
		e->comm++;
	/* Optional irq-info flags, then the timestamp. */
	p = close + 1;
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p) || !strchr(p, '.') || strchr(p, ' ') < strchr(p, '.')) {
		while (*p && *p != ' ')
			p++;
		while (*p == ' ')
			p++;
	}
	p = (char *)parse_ts(p, &e->ts);
	if (!p || *p != ':')
		return -1;
	p++;
	while (*p == ' ')
		p++;
	colon = strchr(p, ':');
	if (!colon)
		return -1;
	*colon = 0;
	e->name = p;
	e->system = "ftrace";
	p = colon + 1;
	while (*p == ' ')
		p++;
	snprintf(argbuf, argsize, "%s", p);
	e->text = argbuf;
	/* Marker text stays whole; other events get key=value arguments. */
	if (strcmp(e->name, "tracing_mark_write") && strcmp(e->name, "print"))
		parse_args(e, p);
	else
		e->nargs = 0;
	if (!e->nargs && *argbuf) {
		e->args[0] = fxt_arg_str("text", argbuf);
		e->nargs = 1;
	}
	return 0;
}

int ftrace_text_import(struct ftrace_conv *c, const char *path, bool *mono)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, argbuf[4096];
	size_t cap = 0;
	ssize_t len;
	unsigned long lineno = 0;
	uint64_t lost;
	int bad = 0, ret = 0, cpu;

	*mono = false;
	if (!f)
		return -errno;
	while ((len = getline(&line, &cap, f)) > 0) {
		struct ftrace_event e;

		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (line[0] == '#') {
			if (strstr(line, "clock_type=LINUX_CLOCK_MONOTONIC") ||
			    strstr(line, "trace_clock: mono"))
				*mono = true;
			continue;
		}
		/* trace-cmd report's header is not an event. */
		if (!len || !strncmp(line, "cpus=", 5))
			continue;
		if (lost_line(line, &cpu, &lost)) {
			if (!lost)
				pr_warn("%s:%lu: CPU %d lost events, ftrace does not say how many",
					path, lineno, cpu);
			ret = ftrace_conv_loss(c, cpu, lost);
			if (ret)
				break;
			continue;
		}
		memset(&e, 0, sizeof(e));
		if (parse_line(line, &e, argbuf, sizeof(argbuf))) {
			if (bad++ < 10)
				pr_warn("%s:%lu: not an ftrace event line, skipped: %.80s", path, lineno,
					line);
			continue;
		}
		ret = ftrace_conv_event(c, &e);
		if (ret)
			break;
	}
	if (bad > 10)
		pr_warn("%s: %d malformed lines in all", path, bad);
	free(line);
	if (f != stdin)
		fclose(f);
	return ret ? ret : bad;
}
