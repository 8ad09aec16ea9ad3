// SPDX-License-Identifier: GPL-2.0
/* ktrace dump: one readable line per FXT record, spec checks and statistics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/timeline_check.h"
#include "cli/cli.h"
#include "commands.h"
#include "fxt/fxt_reader.h"
#include "lib/u64map.h"
#include "lib/utils.h"
#include "trace/kstack_names.h"
#include "trace/sched.h"

/* Thread names seen so far, by tid, for the lines that name threads. */
#define NAME_LEN	32

struct name_map {
	struct u64map map;
	char (*names)[NAME_LEN];
	uint32_t n, cap;
};

static void name_set(struct name_map *m, uint64_t tid, struct fxt_str name)
{
	char *dst;
	bool added;
	uint32_t n;

	if (!tid)
		return;
	/* Out of memory, a name is left out: the lines say "<unnamed TID>". */
	dst = u64map_vec_get(&m->map, tid, &m->names, &m->n, &m->cap, sizeof(*m->names), &added);
	if (!dst)
		return;
	n = name.len < NAME_LEN - 1 ? name.len : NAME_LEN - 1;
	for (uint32_t i = 0; i < n; i++)
		dst[i] = (unsigned char)name.p[i] < 0x20 ? '?' : name.p[i];
	dst[n] = 0;
}

static bool name_known(struct name_map *m, uint64_t tid)
{
	return !tid || u64map_find(&m->map, tid) != U64MAP_NONE;
}

/* @tid's name so far; one that no record named says so, in @buf. */
static const char *name_of(struct name_map *m, uint64_t tid, char buf[NAME_LEN])
{
	uint32_t i;

	if (!tid)
		return "idle";
	i = u64map_find(&m->map, tid);
	if (i != U64MAP_NONE)
		return m->names[i];
	snprintf(buf, NAME_LEN, "<unnamed %llu>", (unsigned long long)tid);
	return buf;
}

static void put_str(FILE *f, struct fxt_str s)
{
	fputc('"', f);
	for (uint32_t i = 0; i < s.len; i++) {
		unsigned char c = s.p[i];

		if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void put_args(FILE *f, const struct fxt_record *rec)
{
	for (unsigned int i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *a = &rec->args[i];

		fputc(' ', f);
		fwrite(a->name.p, 1, a->name.len, f);
		fputc('=', f);
		switch (a->type) {
		case KTRACE_FXT_ARG_NULL:
			fputs("null", f);
			break;
		case KTRACE_FXT_ARG_INT32:
		case KTRACE_FXT_ARG_INT64:
			fprintf(f, "%lld", (long long)a->i);
			break;
		case KTRACE_FXT_ARG_UINT32:
		case KTRACE_FXT_ARG_UINT64:
			fprintf(f, "%llu", (unsigned long long)a->u);
			break;
		case KTRACE_FXT_ARG_DOUBLE:
			fprintf(f, "%.17g", a->d);
			break;
		case KTRACE_FXT_ARG_STRING:
			put_str(f, a->s);
			break;
		case KTRACE_FXT_ARG_POINTER:
			fprintf(f, "0x%llx", (unsigned long long)a->u);
			break;
		case KTRACE_FXT_ARG_KOID:
			fprintf(f, "koid:%llu", (unsigned long long)a->u);
			break;
		case KTRACE_FXT_ARG_BOOL:
			fputs(a->u ? "true" : "false", f);
			break;
		default:
			fprintf(f, "<type %u>", a->type);
		}
	}
}

static void put_ts(FILE *f, uint64_t ns)
{
	fprintf(f, "%6llu.%09llu ", (unsigned long long)(ns / 1000000000),
		(unsigned long long)(ns % 1000000000));
}

static void print_metadata(FILE *f, const struct fxt_record *rec)
{
	fprintf(f, "%17s", "");
	switch (rec->sub) {
	case KTRACE_FXT_META_PROVIDER_INFO:
		fprintf(f, "provider_info: id=%u name=", rec->provider);
		put_str(f, rec->name);
		break;
	case KTRACE_FXT_META_PROVIDER_SECTION:
		fprintf(f, "provider_section: id=%u", rec->provider);
		break;
	case KTRACE_FXT_META_PROVIDER_EVENT:
		fprintf(f, "provider_event: id=%u event=%u%s", rec->provider,
			rec->meta_event, rec->meta_event == 0 ? " (buffer full)" : "");
		break;
	case KTRACE_FXT_META_TRACE_INFO:
		fprintf(f, rec->w[0] == KTRACE_FXT_MAGIC ? "magic" : "trace_info");
		break;
	default:
		fprintf(f, "metadata: type=%u", rec->sub);
	}
}

static void print_event(FILE *f, const struct fxt_reader *r, const struct fxt_record *rec,
			struct name_map *names, struct kstack_names *ks)
{
	char buf[NAME_LEN];

	put_ts(f, fxt_ticks_to_ns(r, rec->ts));
	fprintf(f, "%s: %llu/%llu ", fxt_event_type_name(rec->sub),
		(unsigned long long)rec->pid, (unsigned long long)rec->tid);
	put_str(f, rec->cat);
	fputc(':', f);
	put_str(f, rec->name);
	if (rec->sub == KTRACE_FXT_EV_DURATION_COMPLETE)
		fprintf(f, " dur=%llu",
			(unsigned long long)(fxt_ticks_to_ns(r, rec->extra) -
					     fxt_ticks_to_ns(r, rec->ts)));
	else if (ktrace_fxt_event_extra_words(rec->sub))
		fprintf(f, " id=%llu", (unsigned long long)rec->extra);
	put_args(f, rec);
	kstack_names_note(ks, rec);
	if (rec->tid && name_known(names, rec->tid))
		fprintf(f, "  [%s]", name_of(names, rec->tid, buf));
}

static void print_wakeup(FILE *f, const struct fxt_record *rec, struct name_map *names)
{
	const struct fxt_arg *a;
	char buf[2][NAME_LEN];

	fprintf(f, "[%03u] wakeup: tid=%llu", rec->cpu, (unsigned long long)rec->tid);
	put_args(f, rec);
	a = fxt_find_arg(rec, "waker");
	fprintf(f, "  [%s", name_of(names, rec->tid, buf[0]));
	if (a && a->type == KTRACE_FXT_ARG_KOID)
		fprintf(f, " woken by %s", name_of(names, a->u, buf[1]));
	else if ((a = fxt_find_arg(rec, "irq_context")))
		fprintf(f, " woken from %s", ktrace_irq_context_name(a->u));
	fputc(']', f);
}

static void print_switch(FILE *f, const struct fxt_record *rec, struct name_map *names,
			 struct kstack_names *ks)
{
	const struct fxt_arg *a = fxt_find_arg(rec, "linux_state");
	char buf[2][NAME_LEN];
	struct sched_switch sw;

	sched_switch_of(rec, &sw);
	fprintf(f, "[%03u] switch: tid=%llu %s", rec->cpu, (unsigned long long)rec->out_tid,
		fxt_thread_state_name(rec->out_state));
	if (a && a->u <= KTRACE_LINUX_STATE_MAX)
		fprintf(f, " (%c)", KTRACE_LINUX_STATE_LETTERS[a->u]);
	if (sw.kstack)
		fprintf(f, " in %s", kstack_names_blocked_in(ks, sw.kstack) ?: "?");
	fprintf(f, " ==> tid=%llu", (unsigned long long)rec->in_tid);
	/* Where the incoming thread blocked, as recorders give it: at its switch-in. */
	if (sw.in_kstack)
		fprintf(f, " (blocked in %s)", kstack_names_blocked_in(ks, sw.in_kstack) ?: "?");
	/* The spec's record has processes and priorities; the variant, arguments. */
	if (rec->sub == KTRACE_FXT_SCHED_CSWITCH)
		fprintf(f, " out_pid=%llu out_prio=%u in_pid=%llu in_prio=%u",
			(unsigned long long)rec->out_pid, rec->out_prio,
			(unsigned long long)rec->in_pid, rec->in_prio);
	put_args(f, rec);
	fprintf(f, "  [%s ==> %s]", name_of(names, rec->out_tid, buf[0]),
		name_of(names, rec->in_tid, buf[1]));
}

static void print_object(FILE *f, const struct fxt_record *rec, struct name_map *names)
{
	if (rec->type == KTRACE_FXT_REC_USERSPACE_OBJ) {
		fprintf(f, "%17suserspace_object: ptr=0x%llx pid=%llu name=", "",
			(unsigned long long)rec->koid, (unsigned long long)rec->pid);
		put_str(f, rec->name);
		put_args(f, rec);
		return;
	}
	fprintf(f, "%17skernel_object: %s koid=%llu name=", "",
		rec->obj_type == KTRACE_FXT_OBJ_PROCESS ? "process" :
		rec->obj_type == KTRACE_FXT_OBJ_THREAD ? "thread" : "other",
		(unsigned long long)rec->koid);
	put_str(f, rec->name);
	put_args(f, rec);
	if (rec->obj_type == KTRACE_FXT_OBJ_THREAD)
		name_set(names, rec->koid, rec->name);
}

static void print_blob(FILE *f, const struct fxt_reader *r, const struct fxt_record *rec)
{
	if (rec->type == KTRACE_FXT_REC_BLOB) {
		fprintf(f, "%17sblob: name=", "");
		put_str(f, rec->name);
		fprintf(f, " type=%u size=%llu", rec->blob_type,
			(unsigned long long)rec->payload_len);
		return;
	}
	if (rec->sub == 0 && rec->blob_type == 0)
		put_ts(f, fxt_ticks_to_ns(r, rec->ts));
	else
		fprintf(f, "%17s", "");
	fprintf(f, "large_blob: format=%u ", rec->blob_type);
	put_str(f, rec->cat);
	fputc(':', f);
	put_str(f, rec->name);
	fprintf(f, " size=%llu", (unsigned long long)rec->payload_len);
	put_args(f, rec);
}

static void print_record(FILE *f, const struct fxt_reader *r, const struct fxt_record *rec,
			 struct name_map *names, struct kstack_names *ks)
{
	fprintf(f, "@%08llx ", (unsigned long long)rec->offset);
	switch (rec->type) {
	case KTRACE_FXT_REC_METADATA:
		print_metadata(f, rec);
		break;
	case KTRACE_FXT_REC_INIT:
		fprintf(f, "%17sinitialization: ticks_per_second=%llu", "",
			(unsigned long long)rec->ticks_per_sec);
		break;
	case KTRACE_FXT_REC_STRING:
		fprintf(f, "%17sstring: #%u=", "", rec->index);
		put_str(f, rec->msg);
		break;
	case KTRACE_FXT_REC_THREAD:
		fprintf(f, "%17sthread: #%u=%llu/%llu", "", rec->index,
			(unsigned long long)rec->pid, (unsigned long long)rec->tid);
		break;
	case KTRACE_FXT_REC_EVENT:
		print_event(f, r, rec, names, ks);
		break;
	case KTRACE_FXT_REC_KERNEL_OBJ:
	case KTRACE_FXT_REC_USERSPACE_OBJ:
		print_object(f, rec, names);
		break;
	case KTRACE_FXT_REC_SCHED:
		if (rec->sub > KTRACE_FXT_SCHED_WAKEUP) {
			fprintf(f, "%17sscheduling: unknown type %u", "", rec->sub);
			break;
		}
		put_ts(f, fxt_ticks_to_ns(r, rec->ts));
		if (rec->sub == KTRACE_FXT_SCHED_WAKEUP)
			print_wakeup(f, rec, names);
		else
			print_switch(f, rec, names, ks);
		break;
	case KTRACE_FXT_REC_LOG:
		put_ts(f, fxt_ticks_to_ns(r, rec->ts));
		fprintf(f, "log: %llu/%llu ", (unsigned long long)rec->pid,
			(unsigned long long)rec->tid);
		put_str(f, rec->msg);
		break;
	case KTRACE_FXT_REC_BLOB:
	case KTRACE_FXT_REC_LARGE:
		print_blob(f, r, rec);
		break;
	default:
		fprintf(f, "%17s%s: %u words", "", fxt_record_type_name(rec->type), rec->nwords);
	}
	fputc('\n', f);
}

struct stats {
	uint64_t by_type[16];
	uint64_t events[KTRACE_FXT_EV_MAX + 1];
	uint64_t sched[3], sched_bytes[3];
	uint64_t bytes;
	uint64_t first_ts, last_ts;
	bool have_ts;
	struct u64map tids;		/* a set: every value 0 */
	uint64_t cpus[1024];	/* bitmap of CPUs seen, up to 65536 */
	uint64_t dropped, dropped_ftrace, dropped_nocpu, buffer_full, untraced, untraced_wakeups;
	uint64_t unrecorded;	/* loss records of a stretch not recorded at all: no count */
};

static void account(struct stats *s, const struct fxt_reader *r, const struct fxt_record *rec)
{
	uint64_t ts = fxt_ticks_to_ns(r, rec->ts);
	const struct fxt_arg *a;
	bool timed = false;

	s->by_type[rec->type]++;
	s->bytes += rec->nwords * 8ULL;
	switch (rec->type) {
	case KTRACE_FXT_REC_EVENT:
		if (rec->sub < ARRAY_SIZE(s->events))
			s->events[rec->sub]++;
		u64map_add(&s->tids, rec->tid, 0);
		timed = true;
		if (fxt_str_eq(rec->cat, "ktrace:meta") && fxt_str_eq(rec->name, "dropped")) {
			const struct fxt_arg *src = fxt_find_arg(rec, "source");

			a = fxt_find_arg(rec, "count");
			s->dropped += a ? a->u : 0;
			s->unrecorded += a && !a->u;
			if (src && src->type == KTRACE_FXT_ARG_STRING && fxt_str_eq(src->s, "ftrace"))
				s->dropped_ftrace += a ? a->u : 0;
			else if (!fxt_find_arg(rec, "cpu"))
				s->dropped_nocpu += a ? a->u : 0;
		}
		if (fxt_str_eq(rec->cat, "ktrace:meta") && fxt_str_eq(rec->name, "untraced_switch"))
			s->untraced++;
		if (fxt_str_eq(rec->cat, "ktrace:meta") && fxt_str_eq(rec->name, "untraced_wakeup"))
			s->untraced_wakeups++;
		break;
	case KTRACE_FXT_REC_SCHED:
		if (rec->sub > KTRACE_FXT_SCHED_WAKEUP)
			break;
		s->sched[rec->sub]++;
		s->sched_bytes[rec->sub] += rec->nwords * 8ULL;
		s->cpus[(rec->cpu & 0xffff) / 64] |= 1ULL << (rec->cpu % 64);
		timed = true;
		if (rec->sub == KTRACE_FXT_SCHED_WAKEUP) {
			u64map_add(&s->tids, rec->tid, 0);
		} else {
			u64map_add(&s->tids, rec->out_tid, 0);
			u64map_add(&s->tids, rec->in_tid, 0);
		}
		break;
	case KTRACE_FXT_REC_KERNEL_OBJ:
		if (rec->obj_type == KTRACE_FXT_OBJ_THREAD)
			u64map_add(&s->tids, rec->koid, 0);
		break;
	case KTRACE_FXT_REC_LOG:
		timed = true;
		break;
	case KTRACE_FXT_REC_METADATA:
		if (rec->sub == KTRACE_FXT_META_PROVIDER_EVENT &&
		    rec->meta_event == KTRACE_FXT_PROVIDER_EVENT_BUFFER_FULL)
			s->buffer_full++;
		break;
	}
	if (timed) {
		if (!s->have_ts || ts < s->first_ts)
			s->first_ts = ts;
		if (!s->have_ts || ts > s->last_ts)
			s->last_ts = ts;
		s->have_ts = true;
	}
}

static void print_stats(FILE *f, const struct stats *s, const struct fxt_reader *r)
{
	static const char *const sched_names[] = {
		"context switch", "context switch (args)", "thread wakeup",
	};
	unsigned int ncpus = 0;
	uint64_t total = 0;

	for (unsigned int i = 0; i < 16; i++)
		total += s->by_type[i];
	fprintf(f, "records: %llu (%llu bytes)\n", (unsigned long long)total,
		(unsigned long long)s->bytes);
	for (unsigned int i = 0; i < 16; i++) {
		if (!s->by_type[i])
			continue;
		fprintf(f, "  %-22s %llu\n", fxt_record_type_name(i),
			(unsigned long long)s->by_type[i]);
		if (i == KTRACE_FXT_REC_EVENT)
			for (unsigned int e = 0; e <= KTRACE_FXT_EV_MAX; e++)
				if (s->events[e])
					fprintf(f, "    %-20s %llu\n", fxt_event_type_name(e),
						(unsigned long long)s->events[e]);
		if (i == KTRACE_FXT_REC_SCHED)
			for (unsigned int e = 0; e < 3; e++)
				if (s->sched[e])
					fprintf(f, "    %-20s %llu (%.1f bytes each)\n",
						sched_names[e], (unsigned long long)s->sched[e],
						(double)s->sched_bytes[e] / s->sched[e]);
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(s->cpus); i++)
		ncpus += __builtin_popcountll(s->cpus[i]);
	fprintf(f, "threads: %u\n", s->tids.used);
	fprintf(f, "cpus: %u\n", ncpus);
	if (s->have_ts)
		fprintf(f, "time: %llu.%09llu .. %llu.%09llu (%.6f s)\n",
			(unsigned long long)(s->first_ts / 1000000000),
			(unsigned long long)(s->first_ts % 1000000000),
			(unsigned long long)(s->last_ts / 1000000000),
			(unsigned long long)(s->last_ts % 1000000000),
			(s->last_ts - s->first_ts) / 1e9);
	fprintf(f, "dropped: %llu records", (unsigned long long)s->dropped);
	if (s->dropped_ftrace)
		fprintf(f, " (%llu of them ftrace's)", (unsigned long long)s->dropped_ftrace);
	if (s->dropped_nocpu)
		fprintf(f, " (%llu of them on no known CPU)", (unsigned long long)s->dropped_nocpu);
	if (s->buffer_full)
		fprintf(f, ", %llu buffer-full events", (unsigned long long)s->buffer_full);
	if (s->unrecorded)
		fprintf(f, ", %llu CPU stretches not recorded at all", (unsigned long long)s->unrecorded);
	fputc('\n', f);
	fprintf(f, "untraced switches: %llu (the kernel's)\n", (unsigned long long)s->untraced);
	if (s->untraced_wakeups)
		fprintf(f, "untraced wakeups: %llu (wakeups the recorder did not see)\n",
			(unsigned long long)s->untraced_wakeups);
	fprintf(f, "spec violations: %llu, unreadable records: %llu\n",
		(unsigned long long)r->violations, (unsigned long long)r->skipped);
}

struct dump_args {
	bool strict, stats, check, quiet;
};

static int dump_opt(void *ctx, const struct cli_arg *a)
{
	struct dump_args *o = ctx;

	switch (a->c) {
	case 's':
		o->strict = true;
		break;
	case 'S':
		o->stats = true;
		o->quiet = true;	/* the summary is what was asked for */
		break;
	case 'c':
		o->check = true;
		o->quiet = true;
		break;
	case 'q':
		o->quiet = true;
		break;
	}
	return 0;
}

static const struct option dump_options[] = {
	{ "strict", no_argument, NULL, 's' },
	{ "stats", no_argument, NULL, 'S' },
	{ "check", no_argument, NULL, 'c' },
	{ "quiet", no_argument, NULL, 'q' },
	{ 0 }
};

static const struct cli_command dump_cmd = {
	.name = "dump",
	.usage = "usage: ktrace dump [--strict] [--stats] [--check] [--quiet] FILE.fxt\n"
		 "\n"
		 "Print one line per FXT record: offset, timestamp, type and fields.\n"
		 "Lines that involve threads end with their names as recorded so far:\n"
		 "[outgoing ==> incoming] for a switch, [thread woken by waker] for a wakeup.\n"
		 "FILE may be '-' for standard input.\n"
		 "\n"
		 "  -s, --strict           exit non-zero on any spec violation\n"
		 "  -S, --stats            print only counts by record type, threads, CPUs, time\n"
		 "                         span, drops\n"
		 "  -c, --check            check the timelines instead of printing the records: per\n"
		 "                         CPU each switch takes off the thread the one before put\n"
		 "                         on; a thread that blocked is woken before it runs again;\n"
		 "                         no thread runs on two CPUs at once; in a recording,\n"
		 "                         each wakeup is made by the thread the switches have on\n"
		 "                         its CPU (else the CPU's switches ended early or began\n"
		 "                         late) and no switch or wakeup lies outside trace_info's\n"
		 "                         span.  A break is allowed only after a loss,\n"
		 "                         untraced_switch or cpu_offline/cpu_online record on\n"
		 "                         that CPU.  Prints each violation and a summary; exits 1\n"
		 "                         on any that nothing explains\n"
		 "  -q, --quiet            do not print the records (with --strict)\n",
	.examples = "  ktrace dump sched.fxt | less\n"
		    "  ktrace dump --strict --stats sched.fxt\n"
		    "  ktrace dump --check sched.fxt\n",
	.shortopts = "sScq",
	.longopts = dump_options,
	.min_args = 1,
	.max_args = 1,
	.opt = dump_opt,
};

int cmd_dump(int argc, char **argv)
{
	struct dump_args o = { 0 };
	struct tl_check *check = NULL;
	uint64_t unexplained = 0;
	struct stats *st;
	struct name_map names = { 0 };
	struct kstack_names kstacks = { 0 };
	struct cli_input in;
	struct fxt_reader r;
	struct fxt_record rec;
	int ret;

	ret = cli_parse_options(&dump_cmd, argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (o.check) {
		check = tl_check_new();
		if (!check) {
			pr_err("out of memory");
			return 1;
		}
	}
	if (cli_open_trace(&in, argv[optind], 0)) {
		tl_check_free(check);
		return 1;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		pr_err("out of memory");
		tl_check_free(check);
		cli_close_trace(&in);
		return 1;
	}
	if (cli_trace_reader(&in, &r)) {
		tl_check_free(check);
		free(st);
		cli_close_trace(&in);
		return 1;
	}
	while ((ret = fxt_reader_next(&r, &rec)) > 0) {
		if (!o.quiet)
			print_record(stdout, &r, &rec, &names, &kstacks);
		if (o.stats)
			account(st, &r, &rec);
		if (check && tl_check_record(check, &r, &rec))
			break;
	}
	fflush(stdout);
	if (ret < 0)
		cli_trace_report(&in, true, &r.fatal, "; stopped reading there");
	if (cli_trace_empty(&in, &r, ret))
		ret = -EINVAL;
	if (o.stats)
		print_stats(stdout, st, &r);
	if (check)
		unexplained = tl_check_finish(check, &r, stdout);
	if (r.violations && o.strict)
		pr_err("%s: %llu spec violations, the first at offset %llu: %s: %s", in.path,
		       (unsigned long long)r.violations, (unsigned long long)r.first.offset,
		       r.first.field, r.first.msg);
	ret = ret < 0 || r.skipped || (o.strict && r.violations) || unexplained ? 1 : 0;
	tl_check_free(check);
	fxt_reader_close(&r);
	u64map_free(&st->tids);
	free(st);
	u64map_free(&names.map);
	free(names.names);
	kstack_names_free(&kstacks);
	cli_close_trace(&in);
	return ret;
}
