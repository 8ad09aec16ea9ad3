// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace spikes DIR: what `ktrace watch` caught, from its index
 * (DIR/spikes.jsonl): the spikes by thread and by main cause, the worst
 * ones with their verdicts, and a count per hour.  Read first in the
 * morning.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "commands.h"
#include "lib/utils.h"
#include "watch.h"

#define WORST		10

/* One line of the index, the fields the summary needs. */
struct spike {
	double time;			/* wall clock, seconds */
	uint64_t latency;		/* ns */
	uint32_t tid;
	char comm[32];
	char status[16];		/* saved, over_rate, not_saved, in_window */
	uint32_t merged;		/* its thread's spikes of its cause in its window */
	char cause[24];			/* its main cause, "" if not explained */
	char txt[128];			/* its report, "" if not saved */
	char verdict[512];
};

/*
 * The value of top-level @key in the JSON object @line, into @out: a
 * string unescaped (\" and \\, others kept as written), anything else as
 * written.  False if the line has no such key.
 */
static bool field(const char *line, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key), n = 0;
	int depth = 0;
	const char *p;

	for (p = line; *p; p++) {
		if (*p == '"') {
			const char *s = ++p;

			while (*p && *p != '"')
				p += *p == '\\' && p[1] ? 2 : 1;
			if (!*p)
				return false;
			if (depth == 1 && (size_t)(p - s) == klen && !strncmp(s, key, klen) &&
			    p[1] == ':')
				break;
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
	}
	if (!*p)
		return false;
	p += 2;
	if (*p == '"') {
		for (p++; *p && *p != '"' && n + 1 < len; p++) {
			if (*p == '\\' && p[1])
				p++;
			out[n++] = *p;
		}
	} else {
		while (*p && *p != ',' && *p != '}' && n + 1 < len)
			out[n++] = *p++;
	}
	out[n] = 0;
	return true;
}

static bool parse_line(const char *line, struct spike *s)
{
	char num[32];

	memset(s, 0, sizeof(*s));
	if (!field(line, "time", num, sizeof(num)))
		return false;
	s->time = strtod(num, NULL);
	if (!field(line, "latency", num, sizeof(num)))
		return false;
	s->latency = strtoull(num, NULL, 10);
	if (!field(line, "tid", num, sizeof(num)))
		return false;
	s->tid = strtoul(num, NULL, 10);
	field(line, "comm", s->comm, sizeof(s->comm));
	if (!field(line, "status", s->status, sizeof(s->status)))
		return false;
	if (field(line, "merged", num, sizeof(num)))
		s->merged = strtoul(num, NULL, 10);
	field(line, "main_cause", s->cause, sizeof(s->cause));
	field(line, "txt", s->txt, sizeof(s->txt));
	field(line, "verdict", s->verdict, sizeof(s->verdict));
	return true;
}

/* @t (wall clock) as local time, to the second or (@hour) the hour. */
static void put_time(struct obuf *o, double t, bool hour)
{
	time_t sec = (time_t)t;
	struct tm tm;
	char buf[32];

	localtime_r(&sec, &tm);
	if (hour)
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:00", &tm);
	else
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	obuf_puts(o, buf);
}

/* Per thread: spikes, the worst, and how many each main cause led. */
struct by_thread {
	uint32_t tid;
	char comm[32];
	uint64_t n, worst;
	uint64_t causes[16];
};

static const char *const cause_names[] = {
	"higher_priority", "not_preempted", "same_class", "interrupts", "throttled", "timer_late",
	"cpu_idle", "unknown",
};

static int cause_index(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(cause_names); i++)
		if (!strcmp(name, cause_names[i]))
			return i;
	return -1;
}

static int cmp_worst(const void *x, const void *y)
{
	const struct spike *a = x, *b = y;

	return a->latency < b->latency ? 1 : a->latency > b->latency ? -1 : 0;
}

static int cmp_thread(const void *x, const void *y)
{
	const struct by_thread *a = x, *b = y;

	return a->n < b->n ? 1 : a->n > b->n ? -1 : 0;
}

struct spikes_args {
	bool json;
};

static int spikes_opt(void *ctx, const struct cli_arg *a)
{
	struct spikes_args *sa = ctx;

	if (a->c == 'j')
		sa->json = true;
	return 0;
}

static const struct option spikes_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ 0 }
};

static const struct cli_command spikes_cmd = {
	.name = "spikes",
	.usage = "usage: ktrace spikes DIR [--json]\n"
		 "\n"
		 "What ktrace watch caught in DIR (its index, DIR/spikes.jsonl): the spikes\n"
		 "by thread and by main cause, the worst ones with the first line of their\n"
		 "reports, and a count per hour.\n"
		 "\n"
		 "  --json                 the summary as JSON\n",
	.examples = "  ktrace spikes /var/log/ktrace\n"
		    "  ktrace spikes ktrace-spikes --json\n",
	.shortopts = "",
	.longopts = spikes_options,
	.min_args = 1,
	.max_args = 1,
	.opt = spikes_opt,
};

/* Every spike of the index, and the bad lines counted: 0 or -errno said. */
static int read_index(const char *dir, struct spike **out, size_t *n, uint64_t *bad)
{
	char path[4096], *line = NULL;
	size_t cap = 0, lcap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, WATCH_INDEX);
	f = fopen(path, "r");
	if (!f) {
		pr_err("%s: %s%s", path, strerror(errno),
		       errno == ENOENT ? " (no spike yet, or not a directory ktrace watch wrote)" : "");
		return -errno;
	}
	*out = NULL;
	*n = 0;
	while (getline(&line, &lcap, f) > 0) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			*out = xrealloc(*out, cap * sizeof(**out), "spikes");
		}
		if (parse_line(line, &(*out)[*n]))
			(*n)++;
		else
			(*bad)++;	/* a line cut by a crash, or not the index's */
	}
	free(line);
	fclose(f);
	return 0;
}

static void report_text(struct obuf *o, const char *dir, struct spike *s, size_t n,
			struct by_thread *th, size_t nth, const uint64_t *by_cause, uint64_t bad)
{
	uint64_t saved = 0, over = 0, unsaved = 0, merged = 0, in_window = 0;

	for (size_t i = 0; i < n; i++) {
		saved += !strcmp(s[i].status, "saved");
		over += !strcmp(s[i].status, "over_rate");
		unsaved += !strcmp(s[i].status, "not_saved");
		in_window += !strcmp(s[i].status, "in_window");
		merged += s[i].merged;
	}
	obuf_printf(o, "%s: %zu spikes", dir, n);
	if (n) {
		obuf_lit(o, ", ");
		put_time(o, s[0].time, false);
		obuf_lit(o, " to ");
		put_time(o, s[n - 1].time, false);
	}
	obuf_printf(o, ": %llu saved, %llu over --max-rate (counted only), %llu could not be saved",
		    (unsigned long long)saved, (unsigned long long)over,
		    (unsigned long long)unsaved);
	if (in_window)
		obuf_printf(o, ", %llu more in a saved window (with its files)",
			    (unsigned long long)in_window);
	if (merged)
		obuf_printf(o, "; %llu more merged into a saved one (same thread and main cause, same window)",
			    (unsigned long long)merged);
	if (bad)
		obuf_printf(o, "; %llu lines of the index unreadable", (unsigned long long)bad);
	obuf_lit(o, "\n\nby thread:\n     TID COMM              SPIKES        WORST  MAIN CAUSES\n");
	for (size_t i = 0; i < nth; i++) {
		bool first = true;

		obuf_printf(o, "%8u %-16s %7llu %9.3f ms  ", th[i].tid, th[i].comm,
			    (unsigned long long)th[i].n, th[i].worst / 1e6);
		for (size_t k = 0; k < ARRAY_SIZE(cause_names); k++)
			if (th[i].causes[k]) {
				obuf_printf(o, "%s%s %llu", first ? "" : ", ", cause_names[k],
					    (unsigned long long)th[i].causes[k]);
				first = false;
			}
		obuf_puts(o, first ? "not explained\n" : "\n");
	}
	obuf_lit(o, "\nby main cause:");
	for (size_t k = 0; k < ARRAY_SIZE(cause_names) + 1; k++)
		if (by_cause[k])
			obuf_printf(o, " %s %llu", k < ARRAY_SIZE(cause_names) ? cause_names[k] :
				    "not explained", (unsigned long long)by_cause[k]);
	obuf_lit(o, "\n\nthe worst:\n");
}

static void worst_text(struct obuf *o, struct spike *s, size_t n)
{
	size_t shown = 0;

	for (size_t i = 0; i < n && shown < WORST; i++) {
		if (strcmp(s[i].status, "saved"))
			continue;
		obuf_printf(o, "%3zu. ", ++shown);
		put_time(o, s[i].time, false);
		obuf_printf(o, "  %s\n     %s\n", s[i].verdict[0] ? s[i].verdict : "(no verdict)",
			    s[i].txt);
	}
	if (!shown)
		obuf_lit(o, "  none saved\n");
}

static void hours_text(struct obuf *o, const struct spike *s, size_t n)
{
	obuf_lit(o, "\nper hour:\n");
	for (size_t i = 0; i < n;) {
		long hour = (long)(s[i].time / 3600);
		size_t j = i;

		while (j < n && (long)(s[j].time / 3600) == hour)
			j++;
		obuf_lit(o, "  ");
		put_time(o, hour * 3600.0, true);
		obuf_printf(o, "  %zu\n", j - i);
		i = j;
	}
}

static void report_json(struct obuf *o, const char *dir, const struct spike *s, size_t n,
			const struct spike *worst, const struct by_thread *th, size_t nth,
			const uint64_t *by_cause, uint64_t bad)
{
	size_t shown = 0;

	obuf_lit(o, "{\"dir\":");
	obuf_json_str(o, dir, strlen(dir));
	uint64_t merged = 0;

	for (size_t i = 0; i < n; i++)
		merged += s[i].merged;
	obuf_printf(o, ",\"spikes\":%zu,\"merged\":%llu,\"unreadable_lines\":%llu,\"by_thread\":[",
		    n, (unsigned long long)merged, (unsigned long long)bad);
	for (size_t i = 0; i < nth; i++) {
		obuf_printf(o, "%s{\"tid\":%u,\"comm\":", i ? "," : "", th[i].tid);
		obuf_json_str(o, th[i].comm, strlen(th[i].comm));
		obuf_printf(o, ",\"spikes\":%llu,\"worst_ns\":%llu,\"main_causes\":{",
			    (unsigned long long)th[i].n, (unsigned long long)th[i].worst);
		for (size_t k = 0, f = 0; k < ARRAY_SIZE(cause_names); k++)
			if (th[i].causes[k])
				obuf_printf(o, "%s\"%s\":%llu", f++ ? "," : "", cause_names[k],
					    (unsigned long long)th[i].causes[k]);
		obuf_lit(o, "}}");
	}
	obuf_lit(o, "],\"by_main_cause\":{");
	for (size_t k = 0, f = 0; k < ARRAY_SIZE(cause_names) + 1; k++)
		if (by_cause[k])
			obuf_printf(o, "%s\"%s\":%llu", f++ ? "," : "",
				    k < ARRAY_SIZE(cause_names) ? cause_names[k] : "not_explained",
				    (unsigned long long)by_cause[k]);
	obuf_lit(o, "},\"worst\":[");
	for (size_t i = 0; i < n && shown < WORST; i++) {
		if (strcmp(worst[i].status, "saved"))
			continue;
		obuf_printf(o, "%s{\"time\":%.3f,\"tid\":%u,\"latency\":%llu,\"verdict\":",
			    shown++ ? "," : "", worst[i].time, worst[i].tid,
			    (unsigned long long)worst[i].latency);
		obuf_json_str(o, worst[i].verdict, strlen(worst[i].verdict));
		obuf_lit(o, ",\"txt\":");
		obuf_json_str(o, worst[i].txt, strlen(worst[i].txt));
		obuf_putc(o, '}');
	}
	obuf_lit(o, "],\"per_hour\":[");
	for (size_t i = 0, f = 0; i < n;) {
		long hour = (long)(s[i].time / 3600);
		size_t j = i;

		while (j < n && (long)(s[j].time / 3600) == hour)
			j++;
		obuf_printf(o, "%s{\"hour\":%ld,\"spikes\":%zu}", f++ ? "," : "", hour * 3600, j - i);
		i = j;
	}
	obuf_lit(o, "]}\n");
}

int cmd_spikes(int argc, char **argv)
{
	struct spikes_args sa = { 0 };
	uint64_t by_cause[ARRAY_SIZE(cause_names) + 1] = { 0 }, bad = 0;
	struct by_thread *th = NULL;
	struct spike *s = NULL, *worst;
	size_t n = 0, nth = 0;
	struct obuf o;
	int ret;

	ret = cli_parse_options(&spikes_cmd, argc, argv, &sa);
	if (ret >= 0)
		return ret;
	if (read_index(argv[optind], &s, &n, &bad))
		return 1;
	th = xcalloc(n ? n : 1, sizeof(*th), "spikes");
	for (size_t i = 0; i < n; i++) {
		int k = s[i].cause[0] ? cause_index(s[i].cause) : -1;
		size_t j;

		for (j = 0; j < nth && th[j].tid != s[i].tid; j++)
			;
		if (j == nth) {
			th[nth].tid = s[i].tid;
			snprintf(th[nth++].comm, sizeof(th->comm), "%s", s[i].comm);
		}
		th[j].n++;
		if (s[i].latency > th[j].worst)
			th[j].worst = s[i].latency;
		if (k >= 0)
			th[j].causes[k]++;
		by_cause[k >= 0 ? (size_t)k : ARRAY_SIZE(cause_names)] +=
			!strcmp(s[i].status, "saved") || !strcmp(s[i].status, "in_window");
	}
	qsort(th, nth, sizeof(*th), cmp_thread);
	worst = xcalloc(n ? n : 1, sizeof(*worst), "spikes");
	memcpy(worst, s, n * sizeof(*s));
	qsort(worst, n, sizeof(*worst), cmp_worst);
	if (obuf_init(&o, 1, 1 << 16))
		out_of_memory("spikes");
	if (sa.json) {
		report_json(&o, argv[optind], s, n, worst, th, nth, by_cause, bad);
	} else {
		report_text(&o, argv[optind], s, n, th, nth, by_cause, bad);
		worst_text(&o, worst, n);
		hours_text(&o, s, n);
	}
	ret = obuf_flush(&o);
	obuf_free(&o);
	free(worst);
	free(th);
	free(s);
	return ret ? 1 : 0;
}
