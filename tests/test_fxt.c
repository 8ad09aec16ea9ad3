// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the FXT formats: every record and argument type through the
 * shared encoders and the archive writer, read back by the reader; and one
 * hand-made input per kind of spec violation, caught with field and offset.
 * TAP output; no root needed.
 */
#include <math.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt_compact.h"
#include "fxt/fxt_reader.h"
#include "fxt/fxt_writer.h"
#include "fxt/irq_names.h"
#include "lib/tap.h"


#define CHECK(cond) do { if (!(cond)) { printf("#   failed: %s (line %d)\n", #cond, __LINE__); \
		return 0; } } while (0)

/* ---- helpers --------------------------------------------------------- */

static struct fxt_writer *writer_new(bool inline_strings)
{
	struct fxt_writer *w = malloc(sizeof(*w));

	if (!w || fxt_writer_init(w, -1))
		abort();
	w->inline_strings = inline_strings;
	return w;
}

/* Read the writer's bytes; records after the first @skip go to @recs. */
struct readback {
	struct fxt_reader r;
	struct fxt_writer *w;
};

static void rb_open(struct readback *rb, struct fxt_writer *w)
{
	rb->w = w;
	fxt_reader_open_mem(&rb->r, w->out.buf, w->out.len);
}

static void rb_close(struct readback *rb)
{
	fxt_reader_close(&rb->r);
	fxt_writer_finish(rb->w);
	obuf_free(&rb->w->out);
	free(rb->w);
}

/* Next record that is not metadata/init/string (the preamble). */
static int next_body(struct fxt_reader *r, struct fxt_record *rec)
{
	int ret;

	while ((ret = fxt_reader_next(r, rec)) > 0)
		if (rec->type != KTRACE_FXT_REC_METADATA && rec->type != KTRACE_FXT_REC_INIT &&
		    rec->type != KTRACE_FXT_REC_STRING)
			return 1;
	return ret;
}

/* ---- round trips ------------------------------------------------------ */

static int t_magic(void)
{
	CHECK(ktrace_fxt_magic() == KTRACE_FXT_MAGIC);
	CHECK(KTRACE_FXT_MAGIC == 0x0016547846040010ULL);
	return 1;
}

static int t_preamble(void)
{
	struct fxt_writer *w = writer_new(false);
	struct readback rb;
	struct fxt_record rec;
	int strings = 0;

	fxt_write_preamble(w, 7, "ktrace-test");
	rb_open(&rb, w);
	CHECK(fxt_reader_next(&rb.r, &rec) == 1 && rec.w[0] == KTRACE_FXT_MAGIC);
	CHECK(fxt_reader_next(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_METADATA);
	CHECK(rec.sub == KTRACE_FXT_META_PROVIDER_INFO && rec.provider == 7);
	CHECK(fxt_str_eq(rec.name, "ktrace-test"));
	CHECK(fxt_reader_next(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_INIT);
	CHECK(rec.ticks_per_sec == 1000000000ULL);
	while (fxt_reader_next(&rb.r, &rec) == 1) {
		CHECK(rec.type == KTRACE_FXT_REC_STRING);
		if (rec.index == KTRACE_FXT_STR_INCOMING_WEIGHT)
			CHECK(fxt_str_eq(rec.msg, "incoming_weight"));
		strings++;
	}
	CHECK(strings >= 20);
	CHECK(rb.r.violations == 0 && rb.r.skipped == 0);
	rb_close(&rb);
	return 1;
}

static int t_events(bool inline_strings, bool indexed_thread)
{
	struct fxt_writer *w = writer_new(inline_strings);
	struct readback rb;
	struct fxt_record rec;

	fxt_write_preamble(w, 1, "t");
	if (indexed_thread)
		fxt_write_thread(w, 5, 100, 101);
	for (unsigned int t = 0; t <= KTRACE_FXT_EV_MAX; t++) {
		char name[32];

		snprintf(name, sizeof(name), "event-%u", t);
		if (indexed_thread)
			fxt_write_event_tref(w, t, 1000 + t, 5, "cat", name, NULL, 0, 5000 + t);
		else
			fxt_write_event(w, t, 1000 + t, 100, 101, "cat", name, NULL, 0, 5000 + t);
	}
	rb_open(&rb, w);
	if (indexed_thread) {
		CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_THREAD);
		CHECK(rec.index == 5 && rec.pid == 100 && rec.tid == 101);
	}
	for (unsigned int t = 0; t <= KTRACE_FXT_EV_MAX; t++) {
		char name[32];

		snprintf(name, sizeof(name), "event-%u", t);
		CHECK(next_body(&rb.r, &rec) == 1);
		CHECK(rec.type == KTRACE_FXT_REC_EVENT && rec.sub == t);
		CHECK(rec.ts == 1000 + t && rec.pid == 100 && rec.tid == 101);
		CHECK(fxt_str_eq(rec.cat, "cat") && fxt_str_eq(rec.name, name));
		if (ktrace_fxt_event_extra_words(t))
			CHECK(rec.extra == 5000 + t);
		/* Inline strings live in the record, indexed ones in the table. */
		CHECK(ktrace_fxt_sref_is_inline(ktrace_fxt_get(rec.w[0], 48, 63)) ==
		      inline_strings);
	}
	CHECK(next_body(&rb.r, &rec) == 0);
	CHECK(rb.r.violations == 0);
	rb_close(&rb);
	return 1;
}

static int t_args(bool inline_strings)
{
	struct fxt_writer *w = writer_new(inline_strings);
	struct fxt_arg args[10];
	struct readback rb;
	struct fxt_record rec;
	int n = 0;

	args[n++] = (struct fxt_arg){ .type = KTRACE_FXT_ARG_NULL, .name = { "null", 4 } };
	args[n++] = fxt_arg_int(KTRACE_FXT_ARG_INT32, "i32", -123456);
	args[n++] = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "u32", 0xfedcba98);
	args[n++] = fxt_arg_int(KTRACE_FXT_ARG_INT64, "i64", -1234567890123LL);
	args[n++] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "u64", 0xfedcba9876543210ULL);
	args[n++] = fxt_arg_double("double", -3.25e-7);
	args[n++] = fxt_arg_str("string", "a longer string value, \"quoted\"");
	args[n++] = fxt_arg_int(KTRACE_FXT_ARG_POINTER, "pointer", 0xffff888012345678ULL);
	args[n++] = fxt_arg_int(KTRACE_FXT_ARG_KOID, "koid", 4242);
	args[n++] = fxt_arg_int(KTRACE_FXT_ARG_BOOL, "bool", 1);
	fxt_write_preamble(w, 1, "t");
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, 1, 2, 3, "c", "args", args, n, 0);
	fxt_write_kobj(w, KTRACE_FXT_OBJ_THREAD, 3, "thread-args", args, n);
	rb_open(&rb, w);
	for (int k = 0; k < 2; k++) {
		CHECK(next_body(&rb.r, &rec) == 1);
		CHECK((int)rec.nargs == n);
		for (int i = 0; i < n; i++) {
			const struct fxt_arg *a = &rec.args[i];

			CHECK(a->type == args[i].type);
			CHECK(a->name.len == args[i].name.len &&
			      !memcmp(a->name.p, args[i].name.p, a->name.len));
		}
		CHECK(rec.args[1].i == -123456);
		CHECK(rec.args[2].u == 0xfedcba98);
		CHECK(rec.args[3].i == -1234567890123LL);
		CHECK(rec.args[4].u == 0xfedcba9876543210ULL);
		CHECK(rec.args[5].d == -3.25e-7);
		CHECK(fxt_str_eq(rec.args[6].s, "a longer string value, \"quoted\""));
		CHECK(rec.args[7].u == 0xffff888012345678ULL);
		CHECK(rec.args[8].u == 4242);
		CHECK(rec.args[9].u == 1);
	}
	CHECK(rec.type == KTRACE_FXT_REC_KERNEL_OBJ && rec.koid == 3);
	CHECK(fxt_str_eq(rec.name, "thread-args"));
	CHECK(rb.r.violations == 0);
	rb_close(&rb);
	return 1;
}

/* The records the recorders write, from the shared encoders. */
/* Writes @text into @root/@rel, its directories made. */
static int put_file(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd))
		return 0;
	f = fopen(path, "w");
	if (!f)
		return 0;
	fputs(text, f);
	return !fclose(f);
}

/*
 * Interrupt records: each kind round-trips, and the archive's names for
 * them are the ftrace path's, device names from /sys/kernel/irq/N/actions
 * or, without it, /proc/interrupts' last column.
 */
static int t_irq_records(void)
{
	struct fxt_writer *w = writer_new(false);
	char root[] = "/tmp/ktrace-test-irq-XXXXXX", name[160];
	struct irq_actions ia;
	struct readback rb;
	struct fxt_record rec;
	__u64 buf[16];
	uint32_t cpu;

	CHECK(mkdtemp(root));
	CHECK(put_file(root, "sys/kernel/irq/27/actions", "eth0\n"));
	CHECK(put_file(root, "sys/kernel/irq/16/actions", "ehci_hcd:usb1,snd_hda_intel\n"));
	CHECK(put_file(root, "proc/interrupts",
		       "           CPU0       CPU1\n"
		       "  0:         41          0   IO-APIC   2-edge      timer\n"
		       " 28:          0       1234   PCI-MSI 524288-edge      nvme0q1\n"
		       " 29:          0          0   PCI-MSI 1-edge\n"
		       "NMI:          0          0   Non-maskable interrupts\n"));
	irq_actions_init(&ia, root);
	fxt_write_preamble(w, 1, "t");
	CHECK(ktrace_fxt_put_irq(buf, 1, KTRACE_IRQ_HANDLER, 27, 1000, 1500) ==
	      KTRACE_FXT_IRQ_WORDS);
	fxt_write_words(w, buf, KTRACE_FXT_IRQ_WORDS);
	fxt_write_words(w, buf, ktrace_fxt_put_irq(buf, 0, KTRACE_IRQ_SOFTIRQ, 1, 2000, 2600));
	fxt_write_words(w, buf, ktrace_fxt_put_irq(buf, 3, KTRACE_IRQ_LOCAL_TIMER, 236, 3000, 3010));
	fxt_write_words(w, buf, ktrace_fxt_put_irq(buf, 0, KTRACE_IRQ_SOFTIRQ, 12, 4000, 4001));
	fxt_write_words(w, buf, ktrace_fxt_put_irq(buf, 0, KTRACE_IRQ_HANDLER, 16, 5000, 5001));
	fxt_write_words(w, buf, ktrace_fxt_put_irq(buf, 0, KTRACE_IRQ_HANDLER, 28, 5000, 5001));
	fxt_write_words(w, buf, ktrace_fxt_put_irq(buf, 0, KTRACE_IRQ_HANDLER, 29, 5000, 5001));
	fxt_write_words(w, buf, ktrace_fxt_put_irq(buf, 0, KTRACE_IRQ_HANDLER, 30, 5000, 5001));
	/* Another complete event on the track is not the recorders'. */
	fxt_write_event(w, KTRACE_FXT_EV_DURATION_COMPLETE, 6000, KTRACE_FXT_IRQ_PID,
			KTRACE_FXT_IRQ_TID(0), "irq", "irq 27 eth0", NULL, 0, 6100);
	rb_open(&rb, w);

	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_EVENT);
	CHECK(rec.sub == KTRACE_FXT_EV_DURATION_COMPLETE && rec.ts == 1000 && rec.extra == 1500);
	CHECK(rec.pid == KTRACE_FXT_IRQ_PID && rec.tid == KTRACE_FXT_IRQ_TID(1));
	CHECK(fxt_str_eq(rec.cat, "ktrace:irq") && fxt_str_eq(rec.name, "irq"));
	CHECK(rec.nargs == 1 && fxt_find_arg(&rec, "irq")->u == 27);
	CHECK(irq_record_name(&rec, &ia, name, sizeof(name), &cpu) && cpu == 1);
	CHECK(!strcmp(name, "irq 27 eth0"));

	CHECK(next_body(&rb.r, &rec) == 1 && rec.ts == 2000 && rec.extra == 2600);
	CHECK(fxt_str_eq(rec.name, "softirq") && fxt_find_arg(&rec, "vec")->u == 1);
	CHECK(irq_record_name(&rec, &ia, name, sizeof(name), &cpu) && cpu == 0);
	CHECK(!strcmp(name, "softirq TIMER"));

	CHECK(next_body(&rb.r, &rec) == 1 && rec.ts == 3000 && rec.extra == 3010);
	CHECK(fxt_str_eq(rec.name, "local_timer") && fxt_find_arg(&rec, "vector")->u == 236);
	CHECK(irq_record_name(&rec, &ia, name, sizeof(name), &cpu) && cpu == 3);
	CHECK(!strcmp(name, "local_timer 236"));

	CHECK(next_body(&rb.r, &rec) == 1);
	CHECK(irq_record_name(&rec, &ia, name, sizeof(name), &cpu) && !strcmp(name, "softirq 12"));
	CHECK(next_body(&rb.r, &rec) == 1);
	CHECK(irq_record_name(&rec, &ia, name, sizeof(name), &cpu));
	CHECK(!strcmp(name, "irq 16 ehci_hcd:usb1,snd_hda_intel"));
	CHECK(next_body(&rb.r, &rec) == 1);
	CHECK(irq_record_name(&rec, &ia, name, sizeof(name), &cpu) && !strcmp(name, "irq 28 nvme0q1"));
	/* No device in /proc/interrupts, none anywhere: the number alone. */
	CHECK(next_body(&rb.r, &rec) == 1);
	CHECK(irq_record_name(&rec, &ia, name, sizeof(name), &cpu) && !strcmp(name, "irq 29"));
	CHECK(next_body(&rb.r, &rec) == 1);
	CHECK(irq_record_name(&rec, &ia, name, sizeof(name), &cpu) && !strcmp(name, "irq 30"));
	CHECK(next_body(&rb.r, &rec) == 1 && rec.ts == 6000);
	CHECK(!irq_record_name(&rec, &ia, name, sizeof(name), &cpu));
	CHECK(next_body(&rb.r, &rec) == 0);
	rb_close(&rb);
	irq_actions_free(&ia);
	snprintf(name, sizeof(name), "rm -rf '%s'", root);
	CHECK(!system(name));
	return 1;
}

static int t_recorder_records(void)
{
	struct fxt_writer *w = writer_new(false);
	struct readback rb;
	struct fxt_record rec;
	__u64 buf[16];
	const struct fxt_arg *a;

	fxt_write_preamble(w, 1, "t");
	CHECK(ktrace_fxt_put_cswitch(buf, 3, 5000, 1234, 120, KTRACE_LINUX_UNINTERRUPTIBLE,
				     0, 120, 42) == KTRACE_FXT_CSWITCH_WORDS + 1);
	fxt_write_words(w, buf, KTRACE_FXT_CSWITCH_WORDS + 1);
	CHECK(ktrace_fxt_put_cswitch(buf, 3, 5500, 0, 120, KTRACE_LINUX_RUNNING, 1234, 120, 0) ==
	      KTRACE_FXT_CSWITCH_WORDS);
	fxt_write_words(w, buf, KTRACE_FXT_CSWITCH_WORDS);
	CHECK(ktrace_fxt_put_cswitch_stacks(buf, 3, 5600, 0, 120, KTRACE_LINUX_RUNNING, 1234, 120,
					    0, 43) == KTRACE_FXT_CSWITCH_WORDS + 1);
	fxt_write_words(w, buf, KTRACE_FXT_CSWITCH_WORDS + 1);
	CHECK(ktrace_fxt_put_cswitch_stacks(buf, 3, 5700, 1234, 120, KTRACE_LINUX_INTERRUPTIBLE,
					    1235, 120, 44, 45) == KTRACE_FXT_CSWITCH_MAX_WORDS);
	fxt_write_words(w, buf, KTRACE_FXT_CSWITCH_MAX_WORDS);
	fxt_write_words(w, buf, ktrace_fxt_put_wakeup(buf, 1, 6000, 1234, 99, 77, 0, 0));
	CHECK(ktrace_fxt_put_wakeup(buf, 0, 6100, 1234, 99, 55, KTRACE_CTX_HARDIRQ, 0) ==
	      KTRACE_FXT_WAKEUP_WORDS + 1);
	fxt_write_words(w, buf, KTRACE_FXT_WAKEUP_WORDS + 1);
	CHECK(ktrace_fxt_put_wakeup(buf, 0, 6150, 1234, 99, 55, KTRACE_CTX_HARDIRQ, 0x6) ==
	      KTRACE_FXT_WAKEUP_MAX_WORDS);
	fxt_write_words(w, buf, KTRACE_FXT_WAKEUP_MAX_WORDS);
	fxt_write_words(w, buf, ktrace_fxt_put_trigger(buf, 6200, 1200, 1234, 100, 6100, 0));
	fxt_write_words(w, buf, ktrace_fxt_put_kobj_thread(buf, 1234, 1200, "worker-with-long-name", 21,
							   0, 0));
	CHECK(ktrace_fxt_put_kobj_thread(buf, 1235, 1200, "pinned", 6, 0x8, 0) ==
	      KTRACE_FXT_KOBJ_THREAD_MAX_WORDS - 3);
	fxt_write_words(w, buf, KTRACE_FXT_KOBJ_THREAD_MAX_WORDS - 3);
	/* The longest: a long name, allowed CPUs and a cgroup. */
	CHECK(ktrace_fxt_put_kobj_thread(buf, 1236, 1200, "pinned-in-group", 15, 0x3,
					 0x100000001234ULL) == KTRACE_FXT_KOBJ_THREAD_MAX_WORDS);
	fxt_write_words(w, buf, KTRACE_FXT_KOBJ_THREAD_MAX_WORDS);
	fxt_write_words(w, buf, ktrace_fxt_put_kobj_thread(buf, 1237, 1200, "grouped", 7, 0, 77));
	fxt_write_words(w, buf, ktrace_fxt_put_kobj_process(buf, 1200, "proc", 4, 0));
	CHECK(ktrace_fxt_put_kobj_process(buf, 1201, "process-long-name", 17, 77) ==
	      KTRACE_FXT_KOBJ_PROCESS_MAX_WORDS);
	fxt_write_words(w, buf, KTRACE_FXT_KOBJ_PROCESS_MAX_WORDS);
	fxt_write_words(w, buf, ktrace_fxt_put_drop(buf, 7000, 1, 55, 6500, 6900));
	CHECK(ktrace_fxt_put_migrate(buf, 7100, 1200, 1234, 1, 0) == KTRACE_FXT_MIGRATE_WORDS);
	fxt_write_words(w, buf, KTRACE_FXT_MIGRATE_WORDS);
	CHECK(ktrace_fxt_put_affinity(buf, 7100, 1200, 1234, 0x2) == KTRACE_FXT_AFFINITY_WORDS);
	fxt_write_words(w, buf, KTRACE_FXT_AFFINITY_WORDS);
	CHECK(ktrace_fxt_put_timer_expire(buf, 7100, 1200, 1234, 7000, 7050, 2) ==
	      KTRACE_FXT_TIMER_EXPIRE_WORDS);
	fxt_write_words(w, buf, KTRACE_FXT_TIMER_EXPIRE_WORDS);

	rb_open(&rb, w);
	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_SCHED);
	CHECK(rec.sub == KTRACE_FXT_SCHED_CSWITCH_ARGS && rec.cpu == 3 && rec.ts == 5000);
	CHECK(rec.out_tid == 1234 && rec.in_tid == 0);
	CHECK(rec.out_state == KTRACE_FXT_THREAD_BLOCKED);
	a = fxt_find_arg(&rec, "linux_state");
	CHECK(a && a->type == KTRACE_FXT_ARG_UINT32 && a->u == KTRACE_LINUX_UNINTERRUPTIBLE);
	a = fxt_find_arg(&rec, "outgoing_weight");
	CHECK(a && a->type == KTRACE_FXT_ARG_INT32 && a->i == 20);
	a = fxt_find_arg(&rec, "incoming_weight");
	CHECK(a && a->i == KTRACE_FXT_IDLE_WEIGHT);
	a = fxt_find_arg(&rec, "kstack");
	CHECK(rec.nargs == 4 && a && a->type == KTRACE_FXT_ARG_UINT32 && a->u == 42);
	CHECK(next_body(&rb.r, &rec) == 1 && rec.ts == 5500 && rec.nargs == 3);
	CHECK(!fxt_find_arg(&rec, "kstack") && !fxt_find_arg(&rec, "incoming_kstack"));
	/* Where the incoming thread blocked, given at its switch-in. */
	CHECK(next_body(&rb.r, &rec) == 1 && rec.ts == 5600 && rec.nargs == 4);
	a = fxt_find_arg(&rec, "incoming_kstack");
	CHECK(a && a->type == KTRACE_FXT_ARG_UINT32 && a->u == 43 && !fxt_find_arg(&rec, "kstack"));
	CHECK(next_body(&rb.r, &rec) == 1 && rec.ts == 5700 && rec.nargs == 5);
	a = fxt_find_arg(&rec, "kstack");
	CHECK(a && a->u == 44);
	a = fxt_find_arg(&rec, "incoming_kstack");
	CHECK(a && a->u == 45);
	a = fxt_find_arg(&rec, "linux_state");
	CHECK(a && a->u == KTRACE_LINUX_INTERRUPTIBLE);

	CHECK(next_body(&rb.r, &rec) == 1 && rec.sub == KTRACE_FXT_SCHED_WAKEUP);
	CHECK(rec.cpu == 1 && rec.ts == 6000 && rec.tid == 1234);
	a = fxt_find_arg(&rec, "waker");
	CHECK(a && a->type == KTRACE_FXT_ARG_KOID && a->u == 77);
	a = fxt_find_arg(&rec, "weight");
	CHECK(a && a->type == KTRACE_FXT_ARG_INT32 && a->i == 41);

	/* From an interrupt: no waker, the interrupted task named as such. */
	CHECK(next_body(&rb.r, &rec) == 1 && rec.sub == KTRACE_FXT_SCHED_WAKEUP);
	CHECK(rec.ts == 6100 && rec.tid == 1234 && rec.nargs == 3 && !fxt_find_arg(&rec, "waker"));
	a = fxt_find_arg(&rec, "irq_context");
	CHECK(a && a->type == KTRACE_FXT_ARG_UINT32 && a->u == KTRACE_CTX_HARDIRQ);
	a = fxt_find_arg(&rec, "interrupted");
	CHECK(a && a->type == KTRACE_FXT_ARG_KOID && a->u == 55);
	CHECK(!fxt_find_arg(&rec, "cpus"));
	/* A thread that may run on CPUs 1 and 2 only. */
	CHECK(next_body(&rb.r, &rec) == 1 && rec.ts == 6150 && rec.nargs == 4);
	a = fxt_find_arg(&rec, "cpus");
	CHECK(a && a->type == KTRACE_FXT_ARG_UINT64 && a->u == 0x6);
	a = fxt_find_arg(&rec, "interrupted");
	CHECK(a && a->type == KTRACE_FXT_ARG_KOID && a->u == 55);
	CHECK(ktrace_irq_context(0x10001) == KTRACE_CTX_HARDIRQ);
	CHECK(ktrace_irq_context(0x100201) == KTRACE_CTX_NMI);
	CHECK(ktrace_irq_context(0x301) == KTRACE_CTX_SOFTIRQ);
	CHECK(ktrace_irq_context(0x201) == KTRACE_CTX_TASK);	/* bh disabled only */

	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_EVENT);
	CHECK(rec.sub == KTRACE_FXT_EV_INSTANT && rec.ts == 6200 && rec.tid == 1234);
	CHECK(fxt_str_eq(rec.cat, "ktrace:latency") && fxt_str_eq(rec.name, "trigger"));
	a = fxt_find_arg(&rec, "latency");
	CHECK(a && a->type == KTRACE_FXT_ARG_UINT64 && a->u == 100);
	a = fxt_find_arg(&rec, "wake_ts");
	CHECK(a && a->u == 6100);

	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_KERNEL_OBJ);
	CHECK(rec.obj_type == KTRACE_FXT_OBJ_THREAD && rec.koid == 1234);
	CHECK(fxt_str_eq(rec.name, "worker-with-lon"));	/* TASK_COMM_LEN - 1 */
	a = fxt_find_arg(&rec, "process");
	CHECK(a && a->type == KTRACE_FXT_ARG_KOID && a->u == 1200);
	CHECK(rec.nargs == 1);
	CHECK(next_body(&rb.r, &rec) == 1 && rec.obj_type == KTRACE_FXT_OBJ_THREAD && rec.koid == 1235);
	a = fxt_find_arg(&rec, "cpus");
	CHECK(rec.nargs == 2 && a && a->type == KTRACE_FXT_ARG_UINT64 && a->u == 0x8);
	CHECK(fxt_find_arg(&rec, "process")->u == 1200 && fxt_str_eq(rec.name, "pinned"));
	CHECK(!fxt_find_arg(&rec, "cgroup_id"));
	/* Its cgroup v2 id, beside the allowed CPUs or alone. */
	CHECK(next_body(&rb.r, &rec) == 1 && rec.obj_type == KTRACE_FXT_OBJ_THREAD && rec.koid == 1236);
	CHECK(rec.nargs == 3 && fxt_str_eq(rec.name, "pinned-in-group"));
	CHECK(fxt_find_arg(&rec, "process")->u == 1200 && fxt_find_arg(&rec, "cpus")->u == 0x3);
	a = fxt_find_arg(&rec, "cgroup_id");
	CHECK(a && a->type == KTRACE_FXT_ARG_UINT64 && a->u == 0x100000001234ULL);
	CHECK(next_body(&rb.r, &rec) == 1 && rec.obj_type == KTRACE_FXT_OBJ_THREAD && rec.koid == 1237);
	a = fxt_find_arg(&rec, "cgroup_id");
	CHECK(rec.nargs == 2 && a && a->type == KTRACE_FXT_ARG_UINT64 && a->u == 77);
	CHECK(!fxt_find_arg(&rec, "cpus") && fxt_find_arg(&rec, "process")->u == 1200);

	CHECK(next_body(&rb.r, &rec) == 1 && rec.obj_type == KTRACE_FXT_OBJ_PROCESS);
	CHECK(rec.koid == 1200 && fxt_str_eq(rec.name, "proc") && rec.nargs == 0);
	CHECK(next_body(&rb.r, &rec) == 1 && rec.obj_type == KTRACE_FXT_OBJ_PROCESS);
	CHECK(rec.koid == 1201 && fxt_str_eq(rec.name, "process-long-na") && rec.nargs == 1);
	a = fxt_find_arg(&rec, "cgroup_id");
	CHECK(a && a->type == KTRACE_FXT_ARG_UINT64 && a->u == 77);

	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_EVENT);
	CHECK(fxt_str_eq(rec.cat, "ktrace:meta") && fxt_str_eq(rec.name, "dropped"));
	CHECK(fxt_find_arg(&rec, "count")->u == 55 && fxt_find_arg(&rec, "cpu")->u == 1);
	CHECK(fxt_find_arg(&rec, "first_ts")->u == 6500);
	CHECK(fxt_find_arg(&rec, "last_ts")->u == 6900);

	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_EVENT);
	CHECK(rec.sub == KTRACE_FXT_EV_INSTANT && rec.ts == 7100);
	CHECK(rec.pid == 1200 && rec.tid == 1234);
	CHECK(fxt_str_eq(rec.cat, "ktrace:sched") && fxt_str_eq(rec.name, "migrate"));
	a = fxt_find_arg(&rec, "orig_cpu");
	CHECK(a && a->type == KTRACE_FXT_ARG_UINT32 && a->u == 1);
	a = fxt_find_arg(&rec, "dest_cpu");
	CHECK(a && a->type == KTRACE_FXT_ARG_UINT32 && a->u == 0);

	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_EVENT);
	CHECK(rec.sub == KTRACE_FXT_EV_INSTANT && rec.ts == 7100);
	CHECK(rec.pid == 1200 && rec.tid == 1234 && rec.nargs == 1);
	CHECK(fxt_str_eq(rec.cat, "ktrace:sched") && fxt_str_eq(rec.name, "affinity"));
	a = fxt_find_arg(&rec, "cpus");
	CHECK(a && a->type == KTRACE_FXT_ARG_UINT64 && a->u == 0x2);
	/* A thread's slot word: another mask or pid is another word, every CPU is 0. */
	CHECK(ktrace_affinity_slot(1234, 1, 0x2) != ktrace_affinity_slot(1234, 1, 0x3));
	CHECK(ktrace_affinity_slot(1234, 1, 0x2) != ktrace_affinity_slot(1235, 1, 0x2));
	CHECK(ktrace_affinity_slot(1234, 0, 0) == 1234ULL << 32);
	CHECK(ktrace_affinity_slot(1234, 1, 1ULL << 63) != ktrace_affinity_slot(1234, 0, 0));

	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_EVENT);
	CHECK(rec.sub == KTRACE_FXT_EV_INSTANT && rec.ts == 7100);
	CHECK(rec.pid == 1200 && rec.tid == 1234);
	CHECK(fxt_str_eq(rec.cat, "ktrace:timer") && fxt_str_eq(rec.name, "timer_expire"));
	a = fxt_find_arg(&rec, "due");
	CHECK(a && a->type == KTRACE_FXT_ARG_UINT64 && a->u == 7000);
	a = fxt_find_arg(&rec, "hard_due");
	CHECK(a && a->type == KTRACE_FXT_ARG_UINT64 && a->u == 7050);
	a = fxt_find_arg(&rec, "cpu");
	CHECK(a && a->type == KTRACE_FXT_ARG_UINT32 && a->u == 2);
	CHECK(rb.r.violations == 0);
	rb_close(&rb);
	return 1;
}

/*
 * One thread's block slot through a sequence of events, as both recorders
 * apply them; counts the records they write.
 */
struct block_sim {
	__u64 v;
	int late, untraced;
};

static void sim_waking(struct block_sim *b, __u32 pid, int on_cpu, int queued)
{
	b->v = ktrace_block_waking(b->v, pid, on_cpu, queued, 77, 3, KTRACE_CTX_SOFTIRQ);
}

static void sim_block(struct block_sim *b, __u32 pid, int in_flight)
{
	int late;

	b->v = ktrace_block_on_block(b->v, pid, in_flight, &late);
	b->late += late;
}

static void sim_switch_in(struct block_sim *b, __u32 pid)
{
	int untraced;

	b->v = ktrace_block_on_switch_in(b->v, pid, &untraced);
	b->untraced += untraced;
}

/*
 * Block slots: a block with no sched_waking before its switch-in is
 * marked; a wakeup still under way at a block, whose sched_waking came
 * before the thread was last switched in, is written again.
 */
static int t_block_slots(void)
{
	const __u32 pid = 4321;
	struct block_sim b = { 0 };
	__u64 v;

	/* Blocked, woken, switched in: nothing more. */
	sim_block(&b, pid, 0);
	sim_waking(&b, pid, 0, 0);
	sim_switch_in(&b, pid);
	CHECK(!b.late && !b.untraced && b.v == 0);
	/* Blocked and switched in with no sched_waking: untraced_wakeup. */
	sim_block(&b, pid, 0);
	sim_switch_in(&b, pid);
	CHECK(!b.late && b.untraced == 1 && b.v == 0);
	/* Woken on its CPU as it blocks (the usual race): its record stands. */
	b = (struct block_sim){ 0 };
	sim_waking(&b, pid, 1, 0);
	sim_block(&b, pid, 1);
	sim_switch_in(&b, pid);
	CHECK(!b.late && !b.untraced);
	/*
	 * Woken still on its CPU once its block is noted (the switch is not
	 * done): the wakeup of that block, the switch-in ends it.
	 */
	b = (struct block_sim){ 0 };
	sim_block(&b, pid, 0);
	sim_waking(&b, pid, 1, 0);
	CHECK(b.v == ktrace_block_slot(pid, KTRACE_BLOCK_WOKEN));
	sim_switch_in(&b, pid);
	sim_block(&b, pid, 1);
	CHECK(!b.late && !b.untraced && b.v == ktrace_block_slot(pid, KTRACE_BLOCK_BLOCKED));
	/* Woken on its CPU, preempted, switched in, blocked before the waker looked. */
	b = (struct block_sim){ 0 };
	sim_waking(&b, pid, 1, 0);
	sim_switch_in(&b, pid);
	v = b.v;
	sim_switch_in(&b, pid);		/* preempted and switched in again */
	CHECK(b.v == v);
	sim_block(&b, pid, 1);
	sim_switch_in(&b, pid);
	CHECK(b.late == 1 && !b.untraced);
	/* Woken queued in its sleeping state, switched in, blocked: again. */
	b = (struct block_sim){ 0 };
	sim_waking(&b, pid, 0, 1);
	sim_switch_in(&b, pid);
	sim_block(&b, pid, 1);
	sim_switch_in(&b, pid);
	CHECK(b.late == 1 && !b.untraced);
	/* The same where the switch-in did not see the sched_waking's store. */
	b = (struct block_sim){ 0 };
	sim_waking(&b, pid, 0, 1);
	sim_block(&b, pid, 1);
	CHECK(b.late == 1);
	/*
	 * Woken while running and the wakeup done at once (ttwu_runnable());
	 * a later block needs a sched_waking of its own.
	 */
	b = (struct block_sim){ 0 };
	sim_waking(&b, pid, 1, 0);
	sim_block(&b, pid, 0);
	sim_switch_in(&b, pid);
	CHECK(!b.late && b.untraced == 1);
	b = (struct block_sim){ 0 };
	sim_waking(&b, pid, 0, 1);
	sim_switch_in(&b, pid);
	sim_block(&b, pid, 0);
	sim_waking(&b, pid, 0, 0);
	sim_switch_in(&b, pid);
	CHECK(!b.late && !b.untraced && b.v == 0);
	/* The waker, its CPU and context, kept for the record written again. */
	v = ktrace_block_waking(0, pid, 1, 0, 0x3fffff, 0x7fff, KTRACE_CTX_HARDIRQ);
	CHECK(ktrace_block_waker(v) == 0x3fffff && ktrace_block_cpu(v) == 0x7fff &&
	      ktrace_block_irq_ctx(v) == KTRACE_CTX_HARDIRQ);
	CHECK(ktrace_block_state(v, pid) == KTRACE_BLOCK_ON_CPU);
	{
		__u32 waker, wcpu, ctx;

		/* Written again: the lock holder, or this CPU's hard interrupt. */
		ktrace_block_late_waker(v, KTRACE_WAKING_HELD, 9, 1, &waker, &wcpu, &ctx);
		CHECK(waker == 0x3fffff && wcpu == 0x7fff && ctx == KTRACE_CTX_HARDIRQ);
		v = ktrace_block_waking(0, pid, 1, 0, 88, 4, KTRACE_CTX_TASK);
		ktrace_block_late_waker(v, KTRACE_WAKING_HELD, 9, 1, &waker, &wcpu, &ctx);
		CHECK(waker == 88 && wcpu == 4 && ctx == KTRACE_CTX_TASK);
		ktrace_block_late_waker(v, KTRACE_WAKING_QUEUED, 9, 1, &waker, &wcpu, &ctx);
		CHECK(waker == 9 && wcpu == 1 && ctx == KTRACE_CTX_HARDIRQ);
	}
	v = ktrace_block_waking(0, 0x3fffff, 1, 0, 1, 2, KTRACE_CTX_TASK);
	CHECK(ktrace_block_state(v, 0x3fffff) == KTRACE_BLOCK_ON_CPU && ktrace_block_waker(v) == 1 &&
	      ktrace_block_cpu(v) == 2 && ktrace_block_irq_ctx(v) == KTRACE_CTX_TASK);
	/* Another thread's word: this one's block is plain, its switch-in nothing. */
	b = (struct block_sim){ .v = v };
	sim_block(&b, pid + 1, 1);
	CHECK(!b.late && b.v == ktrace_block_slot(pid + 1, KTRACE_BLOCK_BLOCKED));
	b = (struct block_sim){ .v = v };
	sim_switch_in(&b, pid + 1);
	CHECK(!b.untraced && b.v == v);
	return 1;
}

/* The recorders' threshold for where a thread blocked: off-CPU time per thread. */
static int t_off_slots(void)
{
	const __u64 ms = 1000000, t0 = 5000 * ms;
	__u64 v = ktrace_off_slot(1234, t0, KTRACE_LINUX_INTERRUPTIBLE);

	/* A block is long from the threshold on, to the nanosecond, and not before. */
	CHECK(ktrace_off_long(v, 1234, t0 + ms / 10, ms / 10));
	CHECK(ktrace_off_long(v, 1234, t0 + 5 * ms, ms / 10));
	CHECK(!ktrace_off_long(v, 1234, t0 + ms / 20, ms / 10));
	CHECK(!ktrace_off_long(v, 1234, t0 + ms / 10 - 2048, ms / 10));
	for (__u64 t = t0; t < t0 + 4096; t += 97)
		CHECK(ktrace_off_long(ktrace_off_slot(1234, t, KTRACE_LINUX_UNINTERRUPTIBLE), 1234,
				      t + ms / 10, ms / 10));
	/* 0: every block. */
	CHECK(ktrace_off_long(v, 1234, t0, 0));
	/* Preempted or dying: no block, however long ago. */
	v = ktrace_off_slot(1234, t0, KTRACE_LINUX_RUNNING);
	CHECK(!ktrace_off_long(v, 1234, t0 + 1000 * ms, 0));
	CHECK(!ktrace_off_long(ktrace_off_slot(1234, t0, KTRACE_LINUX_DEAD), 1234, t0 + ms, 0));
	/* Another thread's slot (or none yet): not known, so walked. */
	CHECK(ktrace_off_long(v, 1234 + KTRACE_WAKE_SLOTS, t0, ms));
	CHECK(ktrace_off_long(0, 1234, t0, ms));
	/* A time whose units look like "not blocked" still counts as a block. */
	v = ktrace_off_slot(1234, KTRACE_OFF_NOT_BLOCKED << KTRACE_WAKE_TS_SHIFT,
			    KTRACE_LINUX_INTERRUPTIBLE);
	CHECK((v & KTRACE_WAKE_TS_MASK) != KTRACE_OFF_NOT_BLOCKED);
	return 1;
}

static int t_state_mapping(void)
{
	CHECK(ktrace_fxt_state_from_linux(KTRACE_LINUX_RUNNING) == KTRACE_FXT_THREAD_RUNNING);
	CHECK(ktrace_fxt_state_from_linux(KTRACE_LINUX_INTERRUPTIBLE) == KTRACE_FXT_THREAD_BLOCKED);
	CHECK(ktrace_fxt_state_from_linux(KTRACE_LINUX_UNINTERRUPTIBLE) ==
	      KTRACE_FXT_THREAD_BLOCKED);
	CHECK(ktrace_fxt_state_from_linux(KTRACE_LINUX_IDLE) == KTRACE_FXT_THREAD_BLOCKED);
	CHECK(ktrace_fxt_state_from_linux(KTRACE_LINUX_STOPPED) == KTRACE_FXT_THREAD_SUSPENDED);
	CHECK(ktrace_fxt_state_from_linux(KTRACE_LINUX_TRACED) == KTRACE_FXT_THREAD_SUSPENDED);
	CHECK(ktrace_fxt_state_from_linux(KTRACE_LINUX_ZOMBIE) == KTRACE_FXT_THREAD_DYING);
	CHECK(ktrace_fxt_state_from_linux(KTRACE_LINUX_DEAD) == KTRACE_FXT_THREAD_DEAD);
	/* sched_switch's (preempt, prev_state, exit_state): TASK_DEAD is 0x80, EXIT_ZOMBIE 0x20. */
	CHECK(ktrace_linux_state(1, 0x1, 0) == KTRACE_LINUX_RUNNING);
	CHECK(ktrace_linux_state(0, 0x1, 0) == KTRACE_LINUX_INTERRUPTIBLE);
	CHECK(ktrace_linux_state(0, KTRACE_TASK_RTLOCK_WAIT, 0) == KTRACE_LINUX_UNINTERRUPTIBLE);
	CHECK(ktrace_linux_state(0, KTRACE_TASK_IDLE, 0) == KTRACE_LINUX_IDLE);
	CHECK(ktrace_linux_state(0, 0x80, 0x20) == KTRACE_LINUX_ZOMBIE);
	CHECK(ktrace_linux_state(0, 0x80, 0x10) == KTRACE_LINUX_DEAD);
	/* An exiting task's voluntary switch in TASK_RUNNING is not its last. */
	CHECK(ktrace_linux_state(0, 0, 0x20) == KTRACE_LINUX_RUNNING);
	CHECK(ktrace_linux_state(1, 0x2, 0x20) == KTRACE_LINUX_RUNNING);
	/* Nobody real gets weight 0 or the idle weight. */
	CHECK(ktrace_fxt_weight(1, 0) == 140 && ktrace_fxt_weight(1, 139) == 1);
	CHECK(ktrace_fxt_weight(0, 120) == KTRACE_FXT_IDLE_WEIGHT);
	return 1;
}

static int t_other_records(void)
{
	struct fxt_writer *w = writer_new(false);
	struct fxt_arg arg = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "n", 9);
	static const char payload[] = "0123456789abcdefXYZ";
	struct readback rb;
	struct fxt_record rec;

	fxt_write_preamble(w, 1, "t");
	fxt_write_cswitch(w, 2, KTRACE_FXT_THREAD_SUSPENDED, 900, 10, 11, 20, 0, 0, 0);
	fxt_write_log(w, 901, 10, 11, "hello log", 9);
	fxt_write_blob(w, "blobname", KTRACE_FXT_BLOB_DATA, payload, 19);
	fxt_write_large_blob(w, 0, "lcat", "lname", 902, 10, 11, &arg, 1, payload, 19);
	fxt_write_large_blob(w, 1, "lcat", "lname2", 0, 0, 0, NULL, 0, payload, 16);
	fxt_write_provider_event(w, 1, KTRACE_FXT_PROVIDER_EVENT_BUFFER_FULL);
	fxt_write_provider_section(w, 1);

	rb_open(&rb, w);
	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_SCHED);
	CHECK(rec.sub == KTRACE_FXT_SCHED_CSWITCH && rec.cpu == 2 && rec.ts == 900);
	CHECK(rec.out_state == KTRACE_FXT_THREAD_SUSPENDED && rec.out_pid == 10);
	CHECK(rec.out_tid == 11 && rec.out_prio == 20 && rec.in_tid == 0 && rec.in_prio == 0);
	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_LOG);
	CHECK(rec.ts == 901 && rec.tid == 11 && fxt_str_eq(rec.msg, "hello log"));
	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_BLOB);
	CHECK(fxt_str_eq(rec.name, "blobname") && rec.payload_len == 19);
	CHECK(!memcmp(rec.payload, payload, 19) && rec.blob_type == KTRACE_FXT_BLOB_DATA);
	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_LARGE);
	CHECK(rec.blob_type == 0 && rec.ts == 902 && rec.tid == 11 && rec.nargs == 1);
	CHECK(fxt_str_eq(rec.cat, "lcat") && fxt_str_eq(rec.name, "lname"));
	CHECK(rec.payload_len == 19 && !memcmp(rec.payload, payload, 19));
	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_LARGE);
	CHECK(rec.blob_type == 1 && rec.payload_len == 16 && fxt_str_eq(rec.name, "lname2"));
	CHECK(fxt_reader_next(&rb.r, &rec) == 1 && rec.sub == KTRACE_FXT_META_PROVIDER_EVENT);
	CHECK(rec.meta_event == 0 && rec.provider == 1);
	CHECK(fxt_reader_next(&rb.r, &rec) == 1 && rec.sub == KTRACE_FXT_META_PROVIDER_SECTION);
	CHECK(fxt_reader_next(&rb.r, &rec) == 0);
	CHECK(rb.r.violations == 0 && rb.r.skipped == 0);
	rb_close(&rb);
	return 1;
}

static int t_string_table_full(void)
{
	struct fxt_writer *w = writer_new(false);
	struct readback rb;
	struct fxt_record rec;
	int inl = 0, events = 0;

	fxt_write_preamble(w, 1, "t");
	for (int i = 0; i < 33000; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		fxt_write_event(w, KTRACE_FXT_EV_INSTANT, i, 1, 1, "c", name, NULL, 0, 0);
	}
	rb_open(&rb, w);
	while (next_body(&rb.r, &rec) == 1) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", events++);
		CHECK(fxt_str_eq(rec.name, name));
		inl += ktrace_fxt_sref_is_inline(ktrace_fxt_get(rec.w[0], 48, 63));
	}
	CHECK(events == 33000);
	/* The writer's indices minus "c": the rest go inline. */
	CHECK(inl == 33000 - (KTRACE_FXT_STR_FIRST_PROBE - KTRACE_FXT_STR_FIRST_DYNAMIC - 1));
	CHECK(rb.r.violations == 0);
	rb_close(&rb);
	return 1;
}

/* ---- violations ------------------------------------------------------- */

struct bad {
	uint64_t w[32];
	unsigned int n;
};

static void bad_magic(struct bad *b)
{
	b->w[0] = KTRACE_FXT_MAGIC;
	b->n = 1;
}

static void bad_add(struct bad *b, uint64_t v)
{
	b->w[b->n++] = v;
}

/* Expect a violation of @field at @offset; records framed, nothing fatal. */
static int expect_violation(struct bad *b, const char *field, uint64_t offset, bool skipped)
{
	struct fxt_reader r;
	struct fxt_record rec;
	int ret;

	fxt_reader_open_mem(&r, b->w, b->n * 8);
	while ((ret = fxt_reader_next(&r, &rec)) > 0)
		;
	fxt_reader_close(&r);
	if (r.violations == 0 || ret != 0 || strcmp(r.first.field, field) ||
	    r.first.offset != offset || (r.skipped != 0) != skipped) {
		printf("#   got %llu violations (first: offset %llu field '%s': %s), skipped %llu, ret %d\n",
		       (unsigned long long)r.violations, (unsigned long long)r.first.offset,
		       r.first.field, r.first.msg, (unsigned long long)r.skipped, ret);
		return 0;
	}
	return 1;
}

static int expect_fatal(const void *data, size_t len, const char *field, uint64_t offset)
{
	struct fxt_reader r;
	struct fxt_record rec;
	int ret;

	fxt_reader_open_mem(&r, data, len);
	while ((ret = fxt_reader_next(&r, &rec)) > 0)
		;
	fxt_reader_close(&r);
	if (ret != -22 || strcmp(r.fatal.field, field) || r.fatal.offset != offset) {
		printf("#   got ret %d, fatal at %llu field '%s': %s\n", ret,
		       (unsigned long long)r.fatal.offset, r.fatal.field, r.fatal.msg);
		return 0;
	}
	return 1;
}

static void run_violations(void)
{
	struct bad b;

	b.n = 0;
	bad_add(&b, ktrace_fxt_init_hdr());
	bad_add(&b, 1000000000);
	ok(expect_violation(&b, "magic", 0, false), "violation: first record is not magic");

	bad_magic(&b);
	b.w[0] ^= 1ULL << 60;
	ok(expect_violation(&b, "magic", 0, false), "violation: wrong magic number");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_init_hdr() | 1ULL << 40);
	bad_add(&b, 1000000000);
	ok(expect_violation(&b, "initialization", 8, false), "violation: reserved bits set");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_init_hdr());
	bad_add(&b, 0);
	ok(expect_violation(&b, "ticks per second", 8, true), "violation: zero tick rate");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_string_hdr(40, 3));
	bad_add(&b, 0x00ff000000636261ULL);	/* "abc" then a stray byte */
	ok(expect_violation(&b, "string value", 8, false), "violation: non-zero string padding");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_string_hdr(0, 3));
	bad_add(&b, 0x636261ULL);
	ok(expect_violation(&b, "string index", 8, false), "violation: string index 0");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_thread_hdr(0));
	bad_add(&b, 1);
	bad_add(&b, 2);
	ok(expect_violation(&b, "thread index", 8, false), "violation: thread index 0");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_event_hdr(4, KTRACE_FXT_EV_INSTANT, 0, 0, 0, 77));
	bad_add(&b, 1);
	bad_add(&b, 2);
	bad_add(&b, 3);
	ok(expect_violation(&b, "name", 8, false), "violation: string ref not in the table");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_event_hdr(2, KTRACE_FXT_EV_INSTANT, 0, 9, 0, 0));
	bad_add(&b, 1);
	ok(expect_violation(&b, "thread", 8, false), "violation: thread ref not in the table");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_event_hdr(4, 11, 0, 0, 0, 0));
	bad_add(&b, 1);
	bad_add(&b, 2);
	bad_add(&b, 3);
	ok(expect_violation(&b, "event type", 8, true), "violation: unknown event type skipped");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_event_hdr(5, KTRACE_FXT_EV_INSTANT, 1, 0, 0, 0));
	bad_add(&b, 1);
	bad_add(&b, 2);
	bad_add(&b, 3);
	bad_add(&b, ktrace_fxt_arg_hdr(KTRACE_FXT_ARG_UINT64, 4, 0, 0));
	ok(expect_violation(&b, "argument 0", 8, true), "violation: argument overruns the record");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_event_hdr(6, KTRACE_FXT_EV_INSTANT, 1, 0, 0, 0));
	bad_add(&b, 1);
	bad_add(&b, 2);
	bad_add(&b, 3);
	bad_add(&b, ktrace_fxt_arg_hdr(KTRACE_FXT_ARG_INT32, 2, 0, 5));
	bad_add(&b, 0);
	ok(expect_violation(&b, "argument 0", 8, false), "violation: argument size mismatch");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_event_hdr(5, KTRACE_FXT_EV_INSTANT, 1, 0, 0, 0));
	bad_add(&b, 1);
	bad_add(&b, 2);
	bad_add(&b, 3);
	bad_add(&b, ktrace_fxt_arg_hdr(KTRACE_FXT_ARG_BOOL, 1, 0, 6));
	ok(expect_violation(&b, "argument 0", 8, false), "violation: bool reserved bits");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_event_hdr(5, KTRACE_FXT_EV_INSTANT, 0, 0, 0, 0));
	bad_add(&b, 1);
	bad_add(&b, 2);
	bad_add(&b, 3);
	bad_add(&b, 0);
	ok(expect_violation(&b, "record size", 8, false), "violation: unused trailing words");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_event_hdr(5, KTRACE_FXT_EV_DURATION_COMPLETE, 0, 0, 0, 0));
	bad_add(&b, 100);
	bad_add(&b, 2);
	bad_add(&b, 3);
	bad_add(&b, 50);
	ok(expect_violation(&b, "end time", 8, false), "violation: complete event ends before it begins");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_event_hdr(4, KTRACE_FXT_EV_COUNTER, 0, 0, 0, 0));
	bad_add(&b, 100);
	bad_add(&b, 2);
	bad_add(&b, 3);
	ok(expect_violation(&b, "event data", 8, true), "violation: counter without its id");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_cswitch_hdr(6, 0, 9, 0, 0, 1, 1));
	for (int i = 0; i < 5; i++)
		bad_add(&b, i + 1);
	ok(expect_violation(&b, "outgoing state", 8, false), "violation: unknown thread state");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_cswitch_args_hdr(4, 0, 0, 3) | 1ULL << 45);
	bad_add(&b, 1);
	bad_add(&b, 2);
	bad_add(&b, 3);
	ok(expect_violation(&b, "context switch", 8, false), "violation: context switch reserved bits");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_provider_section_hdr(42));
	ok(expect_violation(&b, "provider id", 8, false), "violation: section of an unknown provider");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_kobj_hdr(3, 2, ktrace_fxt_sref_inline(20), 0));
	bad_add(&b, 1);
	bad_add(&b, 0);
	ok(expect_violation(&b, "name", 8, true), "violation: inline name runs past the record");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_rec_hdr(KTRACE_FXT_REC_EVENT, 0));
	ok(expect_fatal(b.w, b.n * 8, "record size", 8), "fatal: record of size 0");

	bad_magic(&b);
	bad_add(&b, ktrace_fxt_event_hdr(5, 0, 0, 0, 0, 0));
	bad_add(&b, 1);
	ok(expect_fatal(b.w, b.n * 8, "record size", 8), "fatal: truncated record");
	ok(expect_fatal(b.w, 8 + 5, "record header", 8), "fatal: truncated header");
}

/*
 * Records decoded one at a time as they are written (what the archive
 * writer does) read as the stream reader reads them, strings included.
 */
static int t_decode(void)
{
	struct fxt_writer *w = writer_new(false);
	struct fxt_record a, b;
	struct fxt_reader one;
	struct readback rb;
	struct fxt_arg arg = fxt_arg_int(KTRACE_FXT_ARG_UINT32, "cpu", 3);
	__u64 rec[KTRACE_FXT_DROP_WORDS];
	const uint64_t *p;
	size_t off = 0;
	int n = 0;

	fxt_write_preamble(w, 1, "ktrace");
	fxt_write_words(w, rec, ktrace_fxt_put_drop(rec, 50, 1, 7, 10, 40));
	fxt_write_words(w, rec, ktrace_fxt_put_cswitch(rec, 1, 60, 5, 120, KTRACE_LINUX_RUNNING,
						     6, 120, 0));
	fxt_write_event(w, KTRACE_FXT_EV_INSTANT, 70, 0, 0, "ktrace:meta", "untraced_switch", &arg,
			1, 0);
	rb_open(&rb, w);
	fxt_reader_open_mem(&one, NULL, 0);
	p = (const uint64_t *)w->out.buf;
	while (fxt_reader_next(&rb.r, &a) > 0) {
		CHECK(fxt_reader_decode(&one, p + off / 8, a.nwords, &b) == 1);
		CHECK(b.offset == a.offset && b.type == a.type && b.sub == a.sub && b.ts == a.ts);
		CHECK(b.nargs == a.nargs);
		CHECK(a.type != KTRACE_FXT_REC_SCHED ||
		      (b.cpu == a.cpu && b.out_tid == a.out_tid && b.in_tid == a.in_tid));
		CHECK(b.cat.len == a.cat.len && !memcmp(b.cat.p, a.cat.p, a.cat.len));
		CHECK(b.name.len == a.name.len && !memcmp(b.name.p, a.name.p, a.name.len));
		off += a.nwords * 8;
		n++;
	}
	CHECK(off == w->out.len && n > 3 && one.violations == 0);
	CHECK(fxt_str_eq(b.name, "untraced_switch") && b.nargs == 1 && b.args[0].u == 3);
	CHECK(fxt_reader_decode(&one, p, 2, &b) == -EINVAL);
	fxt_reader_close(&one);
	rb_close(&rb);
	return 1;
}


/* ---- allowed CPUs above 63 ---------------------------------------------- */

/* @rec's uint64 argument @name is @v (and @name is there). */
static bool arg_is(const struct fxt_record *rec, const char *name, unsigned int type, uint64_t v)
{
	const struct fxt_arg *a = fxt_find_arg(rec, name);

	return a && a->type == type && a->u == v;
}

/*
 * Masks above CPU 63: every non-zero word named by its index, in order,
 * "cpus" even when 0, nine words or more cut after the eighth, a machine
 * of more than 4096 CPUs cut at 4096; a one-word mask as the records of a
 * small machine have it; the slot word over every word.
 */
static int t_wide_masks(void)
{
	__u64 mask[KTRACE_FXT_CPUS_MAX_WORDS] = { 0x0, 0x3 }, w[64], one = 0x2;
	__u64 narrow[16], wide[64];
	struct readback rb;
	struct fxt_writer *wr = writer_new(false);
	struct fxt_record rec;
	uint32_t n, nargs = 0;

	/* The slot: one word folds to itself; another word anywhere is another slot. */
	CHECK(ktrace_affinity_fold(&one, 1) == 0x2);
	CHECK(ktrace_affinity_slot(7, 1, ktrace_affinity_fold(mask, 2)) !=
	      ktrace_affinity_slot(7, 1, ktrace_affinity_fold((const __u64[]){ 0x0, 0x1 }, 2)));
	CHECK(ktrace_affinity_slot(7, 1, ktrace_affinity_fold(mask, 2)) !=
	      ktrace_affinity_slot(7, 0, 0));
	CHECK(ktrace_affinity_fold((const __u64[]){ 0x1, 0x0, 0x0 }, 3) !=
	      ktrace_affinity_fold((const __u64[]){ 0x1, 0x0, 0x1 }, 3));
	/* Every CPU: the wide affinity record is the narrow one, byte for byte. */
	n = ktrace_fxt_put_affinity(narrow, 500, 10, 11, 0);
	CHECK(ktrace_fxt_put_affinity_wide(wide, 500, 10, 11, NULL, 2) == n &&
	      !memcmp(narrow, wide, n * 8));
	CHECK(ktrace_fxt_put_cpus_extra(w, mask, 1, &nargs) == 0 && nargs == 0);

	fxt_write_preamble(wr, 1, "t");
	fxt_write_words(wr, w, ktrace_fxt_put_wakeup_wide(w, 3, 100, 11, 120, 12, 0, mask, 2));
	mask[12] = 1ULL << 63;		/* CPU 831: "cpus12" */
	fxt_write_words(wr, w, ktrace_fxt_put_affinity_wide(w, 200, 10, 11, mask, 13));
	fxt_write_words(wr, w, ktrace_fxt_put_kobj_thread_wide(w, 11, 10, "t", 1, mask, 13, 99));
	for (int k = 2; k <= 10; k++)
		mask[k] = k;	/* 10 words above CPU 63: cut at the ninth, word 9 */
	fxt_write_words(wr, w, ktrace_fxt_put_wakeup_wide(w, 3, 300, 11, 120, 12,
							  KTRACE_CTX_HARDIRQ, mask, 13));
	memset(mask, 0, sizeof(mask));
	mask[1] = 1;	/* more than 4096 CPUs: what is above them is not read */
	fxt_write_words(wr, w, ktrace_fxt_put_affinity_wide(w, 400, 10, 11, mask, 65));
	rb_open(&rb, wr);

	CHECK(next_body(&rb.r, &rec) == 1 && rec.sub == KTRACE_FXT_SCHED_WAKEUP);
	CHECK(rec.nargs == 4 && rec.nwords == 11);
	CHECK(arg_is(&rec, "cpus", KTRACE_FXT_ARG_UINT64, 0));
	CHECK(arg_is(&rec, "cpus1", KTRACE_FXT_ARG_UINT64, 3));
	CHECK(arg_is(&rec, "waker", KTRACE_FXT_ARG_KOID, 12));

	CHECK(next_body(&rb.r, &rec) == 1 && fxt_str_eq(rec.name, "affinity") && rec.nargs == 3);
	CHECK(arg_is(&rec, "cpus", KTRACE_FXT_ARG_UINT64, 0));
	CHECK(arg_is(&rec, "cpus1", KTRACE_FXT_ARG_UINT64, 3));
	CHECK(arg_is(&rec, "cpus12", KTRACE_FXT_ARG_UINT64, 1ULL << 63));

	CHECK(next_body(&rb.r, &rec) == 1 && rec.type == KTRACE_FXT_REC_KERNEL_OBJ);
	CHECK(rec.koid == 11 && rec.nargs == 5 && arg_is(&rec, "process", KTRACE_FXT_ARG_KOID, 10));
	CHECK(arg_is(&rec, "cpus12", KTRACE_FXT_ARG_UINT64, 1ULL << 63));
	CHECK(arg_is(&rec, "cgroup_id", KTRACE_FXT_ARG_UINT64, 99));

	CHECK(next_body(&rb.r, &rec) == 1 && rec.sub == KTRACE_FXT_SCHED_WAKEUP);
	/* weight, irq_context, interrupted, cpus, 8 words, the cut: 13 of FXT's 15 */
	CHECK(rec.nargs == 13);
	CHECK(arg_is(&rec, "cpus8", KTRACE_FXT_ARG_UINT64, 8));
	CHECK(!fxt_find_arg(&rec, "cpus9") && !fxt_find_arg(&rec, "cpus12"));
	CHECK(arg_is(&rec, KTRACE_FXT_CPUS_CUT, KTRACE_FXT_ARG_UINT32, 9 * 64));
	CHECK(rec.nwords == KTRACE_FXT_WAKEUP_MAX_WORDS + KTRACE_FXT_CPUS_EXTRA_MAX_WORDS);

	CHECK(next_body(&rb.r, &rec) == 1 && fxt_str_eq(rec.name, "affinity") && rec.nargs == 3);
	CHECK(arg_is(&rec, "cpus1", KTRACE_FXT_ARG_UINT64, 1));
	CHECK(arg_is(&rec, KTRACE_FXT_CPUS_CUT, KTRACE_FXT_ARG_UINT32, 4096));
	CHECK(rb.r.violations == 0);
	rb_close(&rb);
	return 1;
}

/* ---- the compact archive ------------------------------------------------ */

/*
 * The same recorder records, as they are and through the compact
 * encoding (what the archive writer does: a trace_info saying so, thread
 * records through fxt_compact_named), each into its own stream.
 */
struct two_streams {
	struct fxt_writer *full, *compact;
	struct fxt_reader follow;	/* the compact writer's input, decoded */
	struct fxt_compact c;
	uint64_t sched_bytes, nsched;	/* of the compact stream's scheduling records */
	uint64_t event_bytes;		/* of its event records, thread records included */
};

static void two_open(struct two_streams *t)
{
	struct fxt_arg enc = fxt_arg_str("encoding", FXT_COMPACT_ENCODING);

	memset(t, 0, sizeof(*t));
	t->full = writer_new(false);
	t->compact = writer_new(false);
	fxt_write_preamble(t->full, 1, "ktrace");
	fxt_write_preamble(t->compact, 1, "ktrace");
	fxt_write_event(t->compact, KTRACE_FXT_EV_INSTANT, 1, 0, 0, "ktrace:meta", "trace_info",
			&enc, 1, 0);
	fxt_compact_init(&t->c, t->compact);
	fxt_reader_open_mem(&t->follow, NULL, 0);
	fxt_reader_learn_well_known(&t->follow);
}

static int two_add(struct two_streams *t, const __u64 *w, uint32_t n)
{
	const struct fxt_arg *proc;
	struct fxt_record rec;
	size_t before = t->compact->out.len;

	fxt_write_words(t->full, w, n);
	if (fxt_reader_decode(&t->follow, (const uint64_t *)w, n, &rec) != 1)
		return -1;
	if (rec.type == KTRACE_FXT_REC_SCHED) {
		if (fxt_compact_sched(&t->c, t->compact, &rec))
			return -1;
		t->sched_bytes += t->compact->out.len - before;
		t->nsched++;
		return 0;
	}
	if (rec.type == KTRACE_FXT_REC_EVENT) {
		int ret = fxt_compact_event(&t->c, t->compact, &rec);

		if (ret < 0)
			return -1;
		if (!ret)
			fxt_write_words(t->compact, w, n);
		t->event_bytes += t->compact->out.len - before;
		return 0;
	}
	proc = fxt_find_arg(&rec, "process");
	if (rec.type == KTRACE_FXT_REC_KERNEL_OBJ && proc &&
	    fxt_compact_named(&t->c, rec.koid, proc->u))
		return -1;
	fxt_write_words(t->compact, w, n);
	return 0;
}

static void two_close(struct two_streams *t)
{
	fxt_reader_close(&t->follow);
	fxt_compact_free(&t->c);
	fxt_writer_finish(t->full);
	fxt_writer_finish(t->compact);
	obuf_free(&t->full->out);
	obuf_free(&t->compact->out);
	free(t->full);
	free(t->compact);
}

static int next_sched(struct fxt_reader *r, struct fxt_record *rec)
{
	int ret;

	while ((ret = fxt_reader_next(r, rec)) > 0)
		if (rec->type == KTRACE_FXT_REC_SCHED)
			return 1;
	return ret;
}

/* A side's weight, from either layout (the legacy record's idle rule). */
static int64_t side_weight(const struct fxt_record *rec, bool out)
{
	const struct fxt_arg *a = fxt_find_arg(rec, out ? "outgoing_weight" : "incoming_weight");

	if (rec->sub == KTRACE_FXT_SCHED_CSWITCH) {
		unsigned int prio = out ? rec->out_prio : rec->in_prio;
		uint64_t pid = out ? rec->out_pid : rec->in_pid;

		return !prio && !pid ? KTRACE_FXT_IDLE_WEIGHT : (int64_t)prio;
	}
	return a && a->type == KTRACE_FXT_ARG_INT32 ? a->i : -1;
}

/* Whether @b has @a's argument @name, of the same type and value. */
static bool same_arg(const struct fxt_record *a, const struct fxt_record *b, const char *name)
{
	const struct fxt_arg *x = fxt_find_arg(a, name), *y = fxt_find_arg(b, name);

	if (!x || !y)
		return !x && !y;
	return x->type == y->type && x->u == y->u;
}

/* A thread that changes process at @ts, from @before to @after. */
struct moved {
	uint64_t tid, ts, before, after;
};

/*
 * Both streams read back: every scheduling record says the same, in the
 * same order, whichever layout it took; @pids: each tid's process, as the
 * kernel objects said it, which the legacy records' thread table must give.
 */
static int two_compare(struct two_streams *t, uint64_t *pids, uint64_t npids,
		       const struct moved *mv)
{
	static const char *const wake_args[] = { "weight", "waker", "irq_context", "interrupted",
						 "cpus", "cpus1", "cpus2", KTRACE_FXT_CPUS_CUT };
	struct fxt_reader rf, rc;
	struct fxt_record a, b;
	uint64_t n = 0;
	int ret;

	fxt_reader_open_mem(&rf, t->full->out.buf, t->full->out.len);
	fxt_reader_open_mem(&rc, t->compact->out.buf, t->compact->out.len);
	while ((ret = next_sched(&rf, &a)) == 1) {
		CHECK(next_sched(&rc, &b) == 1);
		n++;
		CHECK(a.ts == b.ts && a.cpu == b.cpu);
		if (mv && mv->tid < npids)
			pids[mv->tid] = a.ts < mv->ts ? mv->before : mv->after;
		if (a.sub == KTRACE_FXT_SCHED_WAKEUP) {
			CHECK(b.sub == KTRACE_FXT_SCHED_WAKEUP && a.tid == b.tid);
			CHECK(a.nargs == b.nargs);
			for (size_t i = 0; i < ARRAY_SIZE(wake_args); i++)
				CHECK(same_arg(&a, &b, wake_args[i]));
			continue;
		}
		CHECK(a.out_tid == b.out_tid && a.in_tid == b.in_tid && a.out_state == b.out_state);
		CHECK(a.nargs == b.nargs || b.sub == KTRACE_FXT_SCHED_CSWITCH);
		CHECK(same_arg(&a, &b, "linux_state") && same_arg(&a, &b, "kstack") &&
		      same_arg(&a, &b, "incoming_kstack"));
		CHECK(side_weight(&a, true) == side_weight(&b, true));
		CHECK(side_weight(&a, false) == side_weight(&b, false));
		if (b.sub == KTRACE_FXT_SCHED_CSWITCH) {
			CHECK(b.out_tid >= npids || b.out_pid == pids[b.out_tid]);
			CHECK(b.in_tid >= npids || b.in_pid == pids[b.in_tid]);
		}
	}
	CHECK(ret == 0 && next_sched(&rc, &b) == 0 && n == t->nsched);
	CHECK(rf.violations == 0 && rc.violations == 0 && rc.compact && !rf.compact);
	fxt_reader_close(&rf);
	fxt_reader_close(&rc);
	return 1;
}

/* Both streams' event records say the same: time, thread, names, arguments. */
static int same_events(struct two_streams *t, uint64_t *n)
{
	struct fxt_reader rf, rc;
	struct fxt_record a, b;
	int ret;

	*n = 0;
	fxt_reader_open_mem(&rf, t->full->out.buf, t->full->out.len);
	fxt_reader_open_mem(&rc, t->compact->out.buf, t->compact->out.len);
	while ((ret = fxt_reader_next(&rf, &a)) > 0) {
		if (a.type != KTRACE_FXT_REC_EVENT)
			continue;
		do {	/* past the compact stream's own trace_info */
			CHECK(fxt_reader_next(&rc, &b) == 1);
		} while (b.type != KTRACE_FXT_REC_EVENT || fxt_str_eq(b.cat, "ktrace:meta"));
		CHECK(a.ts == b.ts && a.pid == b.pid && a.tid == b.tid && a.sub == b.sub);
		CHECK(fxt_str_eq(b.cat, "ktrace:sched") == fxt_str_eq(a.cat, "ktrace:sched"));
		CHECK(a.name.len == b.name.len && !memcmp(a.name.p, b.name.p, a.name.len));
		CHECK(a.nargs == b.nargs && same_arg(&a, &b, "orig_cpu") &&
		      same_arg(&a, &b, "dest_cpu"));
		(*n)++;
	}
	CHECK(ret == 0 && rf.violations == 0 && rc.violations == 0);
	fxt_reader_close(&rf);
	fxt_reader_close(&rc);
	return 1;
}

/*
 * A pipe ping-pong: a switch and a wakeup in 56 bytes, the waker named as
 * Perfetto reads it; in 40 when a wakeup by the thread its CPU runs leaves
 * it out (record --compact-wakeups); nothing lost either way.
 */
static int compact_pingpong(bool implicit)
{
	uint64_t pids[3] = { 0, 0, 0 };
	struct two_streams t;
	__u64 w[16];
	uint64_t bytes;

	two_open(&t);
	t.c.implicit_waker = implicit;
	CHECK(!two_add(&t, w, ktrace_fxt_put_kobj_thread(w, 1, 1, "ping", 4, 0x1, 0)));
	CHECK(!two_add(&t, w, ktrace_fxt_put_kobj_thread(w, 2, 1, "pong", 4, 0x1, 0)));
	pids[1] = pids[2] = 1;
	for (uint64_t i = 0; i < 1000; i++) {
		uint32_t a = 1 + i % 2, b = 2 - i % 2;

		CHECK(!two_add(&t, w, ktrace_fxt_put_wakeup(w, 0, 100 + 10 * i, b, 120, a, 0, 0x1)));
		CHECK(!two_add(&t, w, ktrace_fxt_put_cswitch(w, 0, 105 + 10 * i, a, 120,
							     KTRACE_LINUX_INTERRUPTIBLE, b, 120,
							     0)));
	}
	/*
	 * Two thread records, each thread's first wakeup says its weight and
	 * CPUs, and, leaving wakers out, the first its waker all the same (no
	 * switch has said what CPU 0 runs).
	 */
	bytes = t.sched_bytes - 2 * 24 - 2 * 24 - (implicit ? 16 : 0);
	printf("# ping-pong%s: %.1f bytes per switch and wakeup (the recorders': %u)\n",
	       implicit ? " (wakers left out)" : "", bytes / 1000.0,
	       (KTRACE_FXT_CSWITCH_WORDS + KTRACE_FXT_WAKEUP_WORDS + 2) * 8);
	CHECK(bytes == 1000 * (implicit ? 40 : 56));
	/*
	 * From an interrupt: of the thread CPU 0 runs (1), its context in the
	 * header when wakers are left out; of another, or else, the context
	 * and the interrupted thread in one argument.
	 */
	bytes = t.sched_bytes;
	CHECK(!two_add(&t, w, ktrace_fxt_put_wakeup(w, 0, 100000, 2, 120, 1, KTRACE_CTX_HARDIRQ,
						    0x1)));
	CHECK(t.sched_bytes - bytes == (implicit ? 24 : 32));
	bytes = t.sched_bytes;
	CHECK(!two_add(&t, w, ktrace_fxt_put_wakeup(w, 0, 100001, 1, 120, 2, KTRACE_CTX_SOFTIRQ,
						    0x1)));
	CHECK(t.sched_bytes - bytes == 32);
	/* A switch that ends a block the recorder took the stack of: 24 bytes. */
	bytes = t.sched_bytes;
	CHECK(!two_add(&t, w, ktrace_fxt_put_cswitch_stacks(w, 0, 100002, 1, 120,
							    KTRACE_LINUX_UNINTERRUPTIBLE, 2, 120,
							    0, 9)));
	CHECK(t.sched_bytes - bytes == 24);
	CHECK(two_compare(&t, pids, 3, NULL));
	/*
	 * Events of a named thread name it by its table index, 16 bytes less
	 * than inline; of a thread whose process no record gave, inline.
	 */
	for (uint32_t i = 0; i < 100; i++)
		CHECK(!two_add(&t, w, ktrace_fxt_put_migrate(w, 200000 + i, 1, 1 + i % 2, 0, 1)));
	CHECK(t.event_bytes == 100 * (KTRACE_FXT_MIGRATE_WORDS - 2) * 8);
	bytes = t.event_bytes;
	CHECK(!two_add(&t, w, ktrace_fxt_put_migrate(w, 300000, 7, 7, 1, 0)));
	CHECK(t.event_bytes - bytes == KTRACE_FXT_MIGRATE_WORDS * 8);
	CHECK(same_events(&t, &bytes) && bytes == 101);
	two_close(&t);
	return 1;
}

static int t_compact_pingpong(void)
{
	return compact_pingpong(false);
}

static int t_compact_pingpong_implicit(void)
{
	return compact_pingpong(true);
}

/*
 * What the legacy record cannot say stays in the recorder's record (an
 * outgoing stack, a CPU above 255), or goes in its word more (a Linux
 * state other than the one its Zircon state stands for, the incoming
 * thread's blocked-in stack); the idle task; wakeups from interrupts, by
 * the thread a CPU runs or another, a new weight, allowed CPUs that change
 * and go; more threads than the table holds; and a thread that changes
 * process.
 */
static int t_compact_everything(void)
{
	static const uint32_t states[] = {
		KTRACE_LINUX_RUNNING, KTRACE_LINUX_INTERRUPTIBLE, KTRACE_LINUX_UNINTERRUPTIBLE,
		KTRACE_LINUX_STOPPED, KTRACE_LINUX_TRACED, KTRACE_LINUX_DEAD, KTRACE_LINUX_ZOMBIE,
		KTRACE_LINUX_PARKED, KTRACE_LINUX_IDLE,
	};
	uint64_t pids[700] = { 0 }, cur[4] = { 0 };
	struct moved mv = { .tid = 8, .before = 5000, .after = 42 };
	uint32_t waker;
	struct two_streams t;
	__u64 w[KTRACE_FXT_WAKEUP_WIDE_MAX_WORDS];
	uint64_t ts = 1000;

	two_open(&t);
	for (uint32_t tid = 1; tid < 700; tid++) {
		pids[tid] = tid < 400 ? 5000 + tid / 10 : 0;	/* unnamed: no process known */
		if (tid < 400)
			CHECK(!two_add(&t, w, ktrace_fxt_put_kobj_thread(w, tid, pids[tid], "t", 1,
									  0, 0)));
	}
	for (uint32_t i = 0; i < 6000; i++) {
		uint32_t out = 1 + (i * 7) % 699, in = 1 + (i * 13 + 5) % 699;
		uint32_t cpu = i % 5 == 0 ? 300 : i % 4;
		int prio = i % 11 == 0 ? 0 : i % 3 == 0 ? 50 : 120;

		if (i % 17 == 0)
			in = 0;
		if (i % 19 == 0)
			out = 0;
		CHECK(!two_add(&t, w, ktrace_fxt_put_cswitch_stacks(w, cpu, ts++, out, prio,
								    states[i % ARRAY_SIZE(states)],
								    in, prio, i % 23 == 0 ? 7 : 0,
								    i % 5 == 1 ? i : 0)));
		if (cpu < 4)
			cur[cpu] = in;
		/* Half the wakers run on the wakeup's CPU (after its first switch). */
		waker = i % 2 && i > 8 ? cur[i % 3] : 1 + i % 37;
		if (i % 10 == 7) {	/* CPUs above 63, and a cut mask */
			const __u64 hi[10] = { 0, 0x1, i % 20 == 7 ? 0x6 : 0, 1, 1, 1, 1, 1, 1,
					       i % 30 == 7 };

			CHECK(!two_add(&t, w, ktrace_fxt_put_wakeup_wide(w, i % 3, ts++, 1 + i % 29,
									 120, 1 + i % 37, 0, hi,
									 10)));
			continue;
		}
		CHECK(!two_add(&t, w, ktrace_fxt_put_wakeup(w, i % 3, ts++, 1 + i % 29,
							    i % 31 == 0 ? 100 : 120, waker,
							    i % 13 == 0 ? KTRACE_CTX_HARDIRQ :
							    i % 26 == 1 ? KTRACE_CTX_SOFTIRQ : 0,
							    i % 9 < 3 ? 0 : i % 9 < 6 ? 0x3 : 0x5)));
		if (i == 3000) {	/* a thread in the table moves to another process */
			CHECK(!two_add(&t, w, ktrace_fxt_put_cswitch(w, 0, ts++, 8, 120,
								     KTRACE_LINUX_RUNNING, 9, 120,
								     0)));
			CHECK(!two_add(&t, w, ktrace_fxt_put_kobj_thread(w, 8, 42, "moved", 5, 0, 0)));
			mv.ts = ts;
			CHECK(!two_add(&t, w, ktrace_fxt_put_cswitch(w, 0, ts++, 9, 120,
								     KTRACE_LINUX_RUNNING, 8, 120,
								     0)));
		}
	}
	CHECK(t.c.legacy > 1000 && t.c.full > 1000);
	CHECK(two_compare(&t, pids, ARRAY_SIZE(pids), &mv));
	two_close(&t);
	return 1;
}

int main(void)
{
	printf("TAP version 13\n");
	ok(t_magic(), "magic record is 0x0016547846040010");
	ok(t_preamble(), "preamble: magic, provider info, initialization, well-known strings");
	ok(t_events(false, false), "every event type, indexed strings, inline thread");
	ok(t_events(true, false), "every event type, inline strings, inline thread");
	ok(t_events(false, true), "every event type, indexed strings, indexed thread");
	ok(t_args(false), "every argument type, indexed names, event and kernel object");
	ok(t_args(true), "every argument type, inline names, event and kernel object");
	ok(t_recorder_records(), "recorder records: switch, wakeup, kernel objects, drops");
	ok(t_irq_records(), "interrupt records: each kind read back, named as ftrace's (device names from sysfs or /proc/interrupts)");
	ok(t_state_mapping(), "sched_switch's state to Linux and FXT states (an exiting task's "
	   "voluntary switch included), and weights");
	ok(t_off_slots(), "off-CPU slots: a block is long from the threshold, to the nanosecond");
	ok(t_block_slots(), "block slots: an untraced wakeup is marked; a wakeup under way at a block, from before the thread last ran, is written again");
	ok(t_other_records(), "context switch, log, blob, large blobs, provider records");
	ok(t_string_table_full(), "string table overflow falls back to inline strings");
	ok(t_decode(), "records decoded one at a time as written read as the stream reader reads them");
	ok(t_compact_pingpong(), "compact archive: a ping-pong's switch and wakeup in 56 bytes with the waker Perfetto reads, a wakeup from an interrupt in 32, a switch with a blocked-in stack in 24, an event of a named thread 16 bytes less, read back as recorded");
	ok(t_compact_pingpong_implicit(), "compact archive, wakers left out (record --compact-wakeups): a ping-pong's switch and wakeup in 40 bytes, a wakeup from an interrupt of the CPU's thread in 24, read back as recorded");
	ok(t_compact_everything(), "compact archive: every state, idle, CPUs above 255, stacks, interrupts, wakers that run on the CPU or not, allowed CPUs (above 63 too), 700 threads in 255 slots, read back as recorded");
	ok(t_wide_masks(), "allowed CPUs above 63: each word named by its index, a cut mask, the slot over every word");
	run_violations();
	return tap_finish();
}
