// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel API (ktrace_api.h): events from other kernel code, written
 * like the scheduler records into the calling CPU's buffer.  Strings get
 * indices from KTRACE_FXT_STR_FIRST_KERNEL on; the first use in a session
 * writes the string record, on the same CPU and so before the event.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/export.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "internal.h"
#include "ktrace_api.h"

/* API strings longer than this are cut (the record stays small). */
#define API_STRING_MAX	120

DEFINE_STATIC_KEY_FALSE(ktrace_recording);
EXPORT_SYMBOL_GPL(ktrace_recording);

static atomic_t ktrace_next_string = ATOMIC_INIT(KTRACE_FXT_STR_FIRST_KERNEL);
/* Bumped at each session start: every string is written again per session. */
unsigned long ktrace_session_gen;

u64 ktrace_clock(void)
{
	return ktrace_now();
}
EXPORT_SYMBOL_GPL(ktrace_clock);

/* The string's ref in this session; 0 (empty) if it cannot be had. */
static u16 string_ref(struct ktrace_cpu_buf *b, struct ktrace_string *s, u64 ts)
{
	u64 rec[1 + API_STRING_MAX / 8];
	unsigned long gen = READ_ONCE(ktrace_session_gen), old;
	u32 len = min_t(u32, s->len, API_STRING_MAX);
	u16 idx = READ_ONCE(s->index);

	if (!idx) {
		int n = atomic_inc_return(&ktrace_next_string) - 1;

		if (n > KTRACE_FXT_MAX_STRING_LEN)
			return 0;	/* table full: the event goes without this string */
		idx = cmpxchg(&s->index, 0, (u16)n) ?: (u16)n;
	}
	old = READ_ONCE(s->gen);
	if (old != gen && cmpxchg(&s->gen, old, gen) == old) {
		u64 pos, *dst;

		rec[0] = ktrace_fxt_string_hdr(idx, len);
		ktrace_fxt_put_stream(&rec[1], s->text, len);
		dst = ktrace_buf_reserve(b, (1 + ktrace_fxt_str_words(len)) * 8, ts, &pos);
		if (!dst) {
			WRITE_ONCE(s->gen, 0);	/* lost: write it again next time */
			return 0;
		}
		memcpy(dst, rec, (1 + ktrace_fxt_str_words(len)) * 8);
		ktrace_buf_commit(b, pos, (1 + ktrace_fxt_str_words(len)) * 8);
	}
	return idx;
}

void __ktrace_event(unsigned int type, struct ktrace_string *cat, struct ktrace_string *name,
		    u64 extra, const struct ktrace_arg *args, unsigned int nargs)
{
	u64 rec[5 + 2 * KTRACE_MAX_API_ARGS], ts;
	struct ktrace_session *s;
	struct ktrace_cpu_buf *b;
	u16 cref, nref;
	u32 n, i;

	if (type > KTRACE_FXT_EV_MAX || nargs > KTRACE_MAX_API_ARGS)
		return;
	preempt_disable_notrace();
	s = rcu_dereference_sched(ktrace_active);
	if (!s)
		goto out;
	b = s->bufs[smp_processor_id()];
	ts = ktrace_now();
	cref = string_ref(b, cat, ts);
	nref = string_ref(b, name, ts);
	/* A complete event began at @extra and ends now. */
	n = ktrace_fxt_event_head(rec, type == KTRACE_FXT_EV_DURATION_COMPLETE ? extra : ts, 0,
				  current->tgid, current->pid, cref, NULL, nref, NULL);
	for (i = 0; i < nargs; i++) {
		const struct ktrace_arg *a = &args[i];
		u16 aref = string_ref(b, a->name, ts);

		n += ktrace_fxt_put_arg(&rec[n], a->type, aref,
					a->type == KTRACE_FXT_ARG_STRING ?
					string_ref(b, a->str, ts) : a->u);
	}
	n = ktrace_fxt_event_finish(rec, n, type, nargs, 0, cref, nref,
				    type == KTRACE_FXT_EV_DURATION_COMPLETE ? ts : extra);
	ktrace_buf_write(b, rec, n, ts);
out:
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(__ktrace_event);
