/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktrace.ko's API for other kernel code: instant, duration, complete,
 * counter, async and flow events into the same per-CPU FXT buffers as the
 * scheduler records, on the calling thread.  Nearly free while no session
 * records: every call is behind a static key.
 *
 *	KTRACE_STRING(cat_io, "io");
 *	KTRACE_STRING(name_submit, "submit");
 *	KTRACE_STRING(arg_bytes, "bytes");
 *
 *	struct ktrace_arg a = KTRACE_ARG_U64(&arg_bytes, len);
 *	ktrace_instant(&cat_io, &name_submit, &a, 1);
 *
 * Strings are interned: records carry an index, and the string record is
 * written into the trace before the first event that uses it.
 */
#ifndef _KTRACE_API_H
#define _KTRACE_API_H

#include <linux/jump_label.h>
#include <linux/types.h>

#include <linux/ktrace_fxt.h>

struct ktrace_string {
	const char *text;
	u16 len;
	u16 index;		/* assigned on first use; 0 until then */
	unsigned long gen;	/* session whose trace holds its string record */
};

#define KTRACE_STRING(var, str) \
	static struct ktrace_string var = { .text = str, .len = sizeof(str) - 1 }

#define KTRACE_MAX_API_ARGS	4

struct ktrace_arg {
	struct ktrace_string *name;
	u8 type;		/* KTRACE_FXT_ARG_INT64, _UINT64, _KOID, _POINTER, _BOOL, _STRING */
	union {
		s64 i;
		u64 u;
		struct ktrace_string *str;
	};
};

#define KTRACE_ARG_S64(n, v)	{ .name = (n), .type = KTRACE_FXT_ARG_INT64, .i = (v) }
#define KTRACE_ARG_U64(n, v)	{ .name = (n), .type = KTRACE_FXT_ARG_UINT64, .u = (v) }
#define KTRACE_ARG_STR(n, v)	{ .name = (n), .type = KTRACE_FXT_ARG_STRING, .str = (v) }

DECLARE_STATIC_KEY_FALSE(ktrace_recording);

void __ktrace_event(unsigned int type, struct ktrace_string *cat, struct ktrace_string *name,
		    u64 extra, const struct ktrace_arg *args, unsigned int nargs);
u64 ktrace_clock(void);

static inline bool ktrace_enabled(void)
{
	return static_branch_unlikely(&ktrace_recording);
}

#define __KTRACE_EVENT(type, cat, name, extra, args, nargs)			\
	do {									\
		if (ktrace_enabled())						\
			__ktrace_event((type), (cat), (name), (extra), (args), (nargs)); \
	} while (0)

#define ktrace_instant(cat, name, args, nargs) \
	__KTRACE_EVENT(KTRACE_FXT_EV_INSTANT, cat, name, 0, args, nargs)
#define ktrace_duration_begin(cat, name, args, nargs) \
	__KTRACE_EVENT(KTRACE_FXT_EV_DURATION_BEGIN, cat, name, 0, args, nargs)
#define ktrace_duration_end(cat, name, args, nargs) \
	__KTRACE_EVENT(KTRACE_FXT_EV_DURATION_END, cat, name, 0, args, nargs)
/* A complete event from @start (ktrace_clock()) until now. */
#define ktrace_complete(cat, name, start, args, nargs) \
	__KTRACE_EVENT(KTRACE_FXT_EV_DURATION_COMPLETE, cat, name, start, args, nargs)
#define ktrace_counter(cat, name, id, args, nargs) \
	__KTRACE_EVENT(KTRACE_FXT_EV_COUNTER, cat, name, id, args, nargs)
#define ktrace_async_begin(cat, name, id, args, nargs) \
	__KTRACE_EVENT(KTRACE_FXT_EV_ASYNC_BEGIN, cat, name, id, args, nargs)
#define ktrace_async_instant(cat, name, id, args, nargs) \
	__KTRACE_EVENT(KTRACE_FXT_EV_ASYNC_INSTANT, cat, name, id, args, nargs)
#define ktrace_async_end(cat, name, id, args, nargs) \
	__KTRACE_EVENT(KTRACE_FXT_EV_ASYNC_END, cat, name, id, args, nargs)
#define ktrace_flow_begin(cat, name, id, args, nargs) \
	__KTRACE_EVENT(KTRACE_FXT_EV_FLOW_BEGIN, cat, name, id, args, nargs)
#define ktrace_flow_step(cat, name, id, args, nargs) \
	__KTRACE_EVENT(KTRACE_FXT_EV_FLOW_STEP, cat, name, id, args, nargs)
#define ktrace_flow_end(cat, name, id, args, nargs) \
	__KTRACE_EVENT(KTRACE_FXT_EV_FLOW_END, cat, name, id, args, nargs)

#endif /* _KTRACE_API_H */
