// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace events as FXT records: instants with typed arguments, well-known
 * begin/end pairs as durations, and the clock-sync markers kept aside.
 * Also the parser of tracefs `trace` text dumps (with or without the tgid
 * and irq-info columns).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ftrace_import.h"
#include "utils.h"

int ftrace_conv_init(struct ftrace_conv *c, struct spool *spools, unsigned int n)
{
	memset(c, 0, sizeof(*c));
	c->spools = spools;
	c->nspools = n;
	c->w = malloc(sizeof(*c->w));
	if (!c->w || fxt_writer_init(c->w, -1))
		return -ENOMEM;
	/* Records land in a spool among others': no string table of their own. */
	c->w->inline_strings = true;
	return 0;
}

void ftrace_conv_free(struct ftrace_conv *c)
{
	if (c->w) {
		fxt_writer_finish(c->w);
		obuf_free(&c->w->out);
		free(c->w);
	}
	free(c->markers);
	c->w = NULL;
	c->markers = NULL;
}

static void add_marker(struct ftrace_conv *c, const char *text, uint64_t ts)
{
	struct sync_point p;

	if (!clock_sync_marker(text, ts, &p))
		return;
	if (c->nmarkers == c->markers_cap) {
		unsigned int cap = c->markers_cap ? c->markers_cap * 2 : 16;
		struct sync_point *m = realloc(c->markers, cap * sizeof(*m));

		if (!m)
			return;
		c->markers = m;
		c->markers_cap = cap;
	}
	c->markers[c->nmarkers++] = p;
}

static const struct fxt_arg *arg(const struct ftrace_event *e, const char *name)
{
	for (unsigned int i = 0; i < e->nargs; i++)
		if (fxt_str_eq(e->args[i].name, name))
			return &e->args[i];
	return NULL;
}

static void irq_track(struct ftrace_conv *c, int cpu)
{
	char name[32];
	struct fxt_arg proc;

	if (cpu < 0 || cpu >= 65536 || c->cpu_named[cpu / 64] & (1ULL << (cpu % 64)))
		return;
	c->cpu_named[cpu / 64] |= 1ULL << (cpu % 64);
	if (!c->irq_process_named) {
		fxt_write_kobj(c->w, KTRACE_FXT_OBJ_PROCESS, KTRACE_FXT_IRQ_PID, "interrupts", NULL,
			       0);
		c->irq_process_named = true;
	}
	snprintf(name, sizeof(name), "CPU %d irq", cpu);
	proc = fxt_arg_int(KTRACE_FXT_ARG_KOID, "process", KTRACE_FXT_IRQ_PID);
	fxt_write_kobj(c->w, KTRACE_FXT_OBJ_THREAD, KTRACE_FXT_IRQ_TID(cpu), name, &proc, 1);
}

/*
 * Begin/end pairs that become durations, named "LABEL TEXT" from a string
 * argument or else "LABEL N" from a number; interrupts go on their CPU's
 * interrupt track, syscalls on their own thread.
 */
static const struct duration_pair {
	const char *begin, *end, *label, *text_arg, *num_arg;
	bool on_thread;
} pairs[] = {
	{ "irq_handler_entry", "irq_handler_exit", "irq", "name", "irq", false },
	{ "softirq_entry", "softirq_exit", "softirq", "action", "vec", false },
	{ "sys_enter", "sys_exit", "syscall", NULL, "id", true },
};

/* The softirq tracepoints give only the vector: its name (kernel/softirq.c). */
static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

/* Writes @e as a duration's begin or end if it is one; the rest become instants. */
static bool duration(struct ftrace_conv *c, const struct ftrace_event *e)
{
	const struct duration_pair *p = NULL;
	const struct fxt_arg *a;
	unsigned int type;
	char name[64];

	for (size_t i = 0; i < ARRAY_SIZE(pairs) && !p; i++)
		if (!strcmp(e->name, pairs[i].begin) || !strcmp(e->name, pairs[i].end))
			p = &pairs[i];
	if (!p)
		return false;
	type = !strcmp(e->name, p->begin) ? KTRACE_FXT_EV_DURATION_BEGIN : KTRACE_FXT_EV_DURATION_END;
	a = p->text_arg ? arg(e, p->text_arg) : NULL;
	if (a && a->type == KTRACE_FXT_ARG_STRING) {
		snprintf(name, sizeof(name), "%s %.*s", p->label, (int)a->s.len, a->s.p);
	} else if (!strcmp(p->label, "softirq") && (a = arg(e, p->num_arg)) &&
		   a->i >= 0 && a->i < (int64_t)ARRAY_SIZE(softirq_names)) {
		snprintf(name, sizeof(name), "softirq %s", softirq_names[a->i]);
	} else {
		a = arg(e, p->num_arg);
		snprintf(name, sizeof(name), "%s %lld", p->label, a ? (long long)a->i : -1LL);
	}
	if (p->on_thread) {
		fxt_write_event(c->w, type, e->ts, e->pid, e->pid, p->label, name, e->args,
				e->nargs, 0);
	} else {
		irq_track(c, e->cpu);
		fxt_write_event(c->w, type, e->ts, KTRACE_FXT_IRQ_PID, KTRACE_FXT_IRQ_TID(e->cpu),
				e->system, name, e->args, e->nargs, 0);
	}
	c->durations++;
	return true;
}

int ftrace_conv_event(struct ftrace_conv *c, const struct ftrace_event *e)
{
	c->events++;
	if (e->ts > c->last_ts)
		c->last_ts = e->ts;
	if (e->text && (!strcmp(e->name, "tracing_mark_write") || !strcmp(e->name, "print")))
		add_marker(c, e->text, e->ts);
	if (!duration(c, e))
		fxt_write_event(c->w, KTRACE_FXT_EV_INSTANT, e->ts, e->pid, e->pid, e->system,
				e->name, e->args, e->nargs, 0);
	return spool_add_encoded(&c->spools[e->cpu % c->nspools], &c->w->out);
}

int ftrace_conv_loss(struct ftrace_conv *c, int cpu, uint64_t count)
{
	/*
	 * ftrace does not say when: the record goes at the latest event seen,
	 * whose time the merge moves onto the recorder's clock.
	 */
	struct fxt_arg args[] = {
		fxt_arg_int(KTRACE_FXT_ARG_UINT32, "cpu", cpu),
		fxt_arg_int(KTRACE_FXT_ARG_UINT64, "count", count),
		fxt_arg_str("source", "ftrace"),
	};

	c->lost += count;
	fxt_write_event(c->w, KTRACE_FXT_EV_INSTANT, c->last_ts, 0, 0, "ktrace:meta", "dropped",
			args, ARRAY_SIZE(args), 0);
	return spool_add_encoded(&c->spools[cpu % c->nspools], &c->w->out);
}

/* ---- text dumps -------------------------------------------------------- */

/*
 * The kernel's "CPU:1 [LOST 42 EVENTS]" and trace-cmd report's "CPU:1 [42
 * EVENTS DROPPED]", either without the count when it is not known (0).
 */
static bool lost_line(const char *line, int *cpu, uint64_t *lost)
{
	unsigned long long n = 0;
	int end = 0;

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
