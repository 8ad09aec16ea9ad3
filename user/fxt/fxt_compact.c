// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling records in fewer bytes: the writer's half of the rules in
 * fxt_compact.h, for the archive `ktrace record` writes.  A pipe
 * ping-pong's switch and wakeup take 56 + 48 bytes as the recorders write
 * them, 16 + 24 here; a switch that ends a block the recorder took the
 * stack of 64, here 24; a wakeup from an interrupt 56, here 24.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt_compact.h"
#include "fxt/fxt_writer.h"
#include "lib/utils.h"

static struct fxt_compact_thread *thread_get(struct fxt_compact *ac, uint64_t tid)
{
	struct fxt_compact_thread *t;
	bool added;

	t = u64map_vec_get(&ac->map, tid, &ac->threads, &ac->nthreads, &ac->cap_threads,
			   sizeof(*t), &added);
	/* No record names its process yet: 0, the process the readers do not know. */
	return t;
}

void fxt_compact_init(struct fxt_compact *ac, struct fxt_writer *w)
{
	ac->interrupt = fxt_string_ref(w, FXT_COMPACT_INTERRUPT, strlen(FXT_COMPACT_INTERRUPT));
}

int fxt_compact_named(struct fxt_compact *ac, uint64_t tid, uint64_t pid)
{
	struct fxt_compact_thread *t = thread_get(ac, tid);

	if (!t)
		return -ENOMEM;
	t->pid = pid;
	return 0;
}

static void write_thread_record(struct fxt_writer *w, unsigned int index, uint64_t pid,
				uint64_t tid)
{
	uint64_t words[3] = { ktrace_fxt_thread_hdr(index), pid, tid };

	obuf_put(&w->out, words, sizeof(words));
	w->records++;
}

/*
 * @tid's thread-table index, declared by a thread record first where the
 * table does not hold it (in the least recently used index) or holds it
 * with another process; -ENOMEM.
 */
static int thread_ref(struct fxt_compact *ac, struct fxt_writer *w, uint64_t tid)
{
	struct fxt_compact_thread *t = thread_get(ac, tid);
	struct fxt_compact_slot *s;
	unsigned int i, lru = 1;
	uint32_t old;

	if (!t)
		return -ENOMEM;
	if (!t->slot) {
		for (i = 1; i < FXT_COMPACT_SLOTS; i++) {
			if (!ac->slots[i].set) {
				lru = i;
				break;
			}
			if (ac->slots[i].used < ac->slots[lru].used)
				lru = i;
		}
		s = &ac->slots[lru];
		if (s->set) {
			old = u64map_find(&ac->map, s->tid);
			if (old != U64MAP_NONE)
				ac->threads[old].slot = 0;
		}
		s->set = false;
		s->tid = tid;
		t->slot = lru;
	}
	s = &ac->slots[t->slot];
	if (!s->set || s->pid != t->pid) {
		write_thread_record(w, t->slot, t->pid, tid);
		s->pid = t->pid;
		s->set = true;
	}
	s->used = ++ac->clock;
	return t->slot;
}

int fxt_compact_event_ref(struct fxt_compact *ac, struct fxt_writer *w, uint64_t pid,
			  uint64_t tid)
{
	struct fxt_compact_thread *t = thread_get(ac, tid);

	if (!t)
		return -ENOMEM;
	if (!tid || tid > UINT32_MAX || t->pid != pid)
		return 0;
	return thread_ref(ac, w, tid);
}

int fxt_compact_event(struct fxt_compact *ac, struct fxt_writer *w, const struct fxt_record *rec)
{
	uint64_t h = rec->w[0];
	int ref;

	if (rec->type != KTRACE_FXT_REC_EVENT || ktrace_fxt_get(h, 24, 31) || rec->nwords < 4)
		return 0;
	ref = fxt_compact_event_ref(ac, w, rec->pid, rec->tid);
	if (ref <= 0)
		return ref;
	h &= ~(ktrace_fxt_field(~0ULL, 4, 15) | ktrace_fxt_field(~0ULL, 24, 31));
	h |= ktrace_fxt_field(rec->nwords - 2, 4, 15) | ktrace_fxt_field(ref, 24, 31);
	obuf_put(&w->out, &h, 8);
	obuf_put(&w->out, &rec->w[1], 8);
	obuf_put(&w->out, &rec->w[4], (size_t)(rec->nwords - 4) * 8);
	return 1;
}

/* The header priority of a side with weight @a: 1..255, or 0 for the idle task. */
static bool header_prio(uint64_t tid, const struct fxt_arg *a, unsigned int *prio)
{
	if (!a || a->type != KTRACE_FXT_ARG_INT32)
		return false;
	if (!tid) {
		*prio = 0;
		return a->i == KTRACE_FXT_IDLE_WEIGHT;
	}
	*prio = (unsigned int)a->i;
	return a->i >= 1 && a->i <= 255;
}

/*
 * The legacy record where it says all the recorder's does: the weights,
 * and a Linux state its Zircon state stands for, or in a word more any
 * other and the stack the incoming thread blocked with.  1 when written,
 * 0 when the record must stay as it is, -ENOMEM.
 */
static int compact_switch(struct fxt_compact *ac, struct fxt_writer *w,
			  const struct fxt_record *rec)
{
	const struct fxt_arg *ls = fxt_find_arg(rec, "linux_state");
	const struct fxt_arg *ks = fxt_find_arg(rec, "incoming_kstack");
	unsigned int out_prio, in_prio, n = 2;
	uint64_t words[3];
	int out_ref, in_ref;

	if (rec->nargs != 3 + !!ks || rec->cpu > 255 || rec->out_tid > UINT32_MAX ||
	    rec->in_tid > UINT32_MAX || !ls || ls->type != KTRACE_FXT_ARG_UINT32 ||
	    ls->u > KTRACE_LINUX_STATE_MAX ||
	    ktrace_fxt_state_from_linux(ls->u) != rec->out_state ||
	    (ks && (ks->type != KTRACE_FXT_ARG_UINT32 || !ks->u)) ||
	    !header_prio(rec->out_tid, fxt_find_arg(rec, "outgoing_weight"), &out_prio) ||
	    !header_prio(rec->in_tid, fxt_find_arg(rec, "incoming_weight"), &in_prio))
		return 0;
	out_ref = thread_ref(ac, w, rec->out_tid);
	if (out_ref < 0)
		return out_ref;
	in_ref = thread_ref(ac, w, rec->in_tid);
	if (in_ref < 0)
		return in_ref;
	words[1] = rec->ts;
	if (ks || fxt_compact_linux_state(rec->out_state) != (int64_t)ls->u)
		words[n++] = fxt_compact_switch_word(ls->u, ks ? ks->u : 0);
	words[0] = ktrace_fxt_cswitch_hdr(n, rec->cpu, rec->out_state, out_ref, in_ref,
					  out_prio, in_prio);
	obuf_put(&w->out, words, n * sizeof(words[0]));
	ac->legacy++;
	return 1;
}

/* The uint32 argument "interrupt" at @w: the interrupt's context and the interrupted tid. */
static uint32_t put_interrupt(const struct fxt_compact *ac, uint64_t *w, uint64_t ctx,
			      uint64_t tid)
{
	uint32_t n = 1 + ktrace_fxt_sref_words(ac->interrupt);

	w[0] = ktrace_fxt_arg_hdr(KTRACE_FXT_ARG_UINT32, n, ac->interrupt,
				  ctx << FXT_COMPACT_INTERRUPT_SHIFT | tid);
	if (ktrace_fxt_sref_is_inline(ac->interrupt))
		ktrace_fxt_put_stream((__u64 *)&w[1], FXT_COMPACT_INTERRUPT,
				      strlen(FXT_COMPACT_INTERRUPT));
	return n;
}

/*
 * The wakeup without the weight and allowed CPUs its thread's previous
 * wakeup had, without its waker or interrupted thread where that is what
 * its CPU runs, else an interrupt's context and interrupted thread in one
 * argument.  1 when written, 0 when the record must stay as it is.
 */
static int compact_wakeup(struct fxt_compact *ac, struct fxt_writer *w,
			  const struct fxt_record *rec)
{
	const struct fxt_arg *weight = NULL, *cpus = NULL, *ctx = NULL, *intr = NULL;
	const struct fxt_arg *waker = NULL;
	uint64_t words[KTRACE_FXT_MAX_RECORD_WORDS], flags = 0;
	uint64_t cur = fxt_compact_current_get(&ac->current, rec->cpu);
	struct fxt_compact_thread *t;
	uint32_t n = 3, nargs = 0, at = 3, size;
	bool put_weight, put_cpus, wide = false;
	uint64_t cpus_v;

	for (unsigned int i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *a = &rec->args[i];

		if (a->type == KTRACE_FXT_ARG_INT32 && fxt_str_eq(a->name, "weight"))
			weight = a;
		else if (a->type == KTRACE_FXT_ARG_UINT64 && fxt_str_eq(a->name, "cpus"))
			cpus = a;
		else if (a->type == KTRACE_FXT_ARG_UINT32 && fxt_str_eq(a->name, "irq_context"))
			ctx = a;
		else if (a->type == KTRACE_FXT_ARG_KOID && fxt_str_eq(a->name, "interrupted"))
			intr = a;
		else if (a->type == KTRACE_FXT_ARG_KOID && fxt_str_eq(a->name, "waker"))
			waker = a;
		else if (a->name.len > 4 && !memcmp(a->name.p, "cpus", 4))
			wide = true;	/* "cpus1" .., "cpus_cut": CPUs above 63 */
	}
	/* Both, or neither: a reader gives back both, from the header or "interrupt". */
	if (!ctx || !intr || !ctx->u || ctx->u > KTRACE_CTX_MAX)
		ctx = intr = NULL;
	if (ac->implicit_waker && ctx && intr->u == cur && cur != FXT_COMPACT_NO_THREAD) {
		flags = FXT_COMPACT_WAKE_CURRENT | ctx->u << FXT_COMPACT_WAKE_CTX_SHIFT;
	} else if (ac->implicit_waker && !ctx && !intr && waker && waker->u == cur &&
		   cur != FXT_COMPACT_NO_THREAD) {
		flags = FXT_COMPACT_WAKE_CURRENT;
	} else {
		waker = NULL;
		if (!ac->interrupt || (intr && intr->u > FXT_COMPACT_INTERRUPT_TID))
			ctx = intr = NULL;
	}
	/*
	 * The reader gives a wakeup without a weight its previous one's; an
	 * explicit "cpus" of 0 may make the record one word longer.
	 */
	if (!weight || rec->nwords + 1 > KTRACE_FXT_MAX_RECORD_WORDS)
		return 0;
	t = thread_get(ac, rec->tid);
	if (!t)
		return -ENOMEM;
	/*
	 * A mask above CPU 63 stays as the recorder wrote it, and the
	 * thread's next wakeup says its weight and mask again: the reader
	 * keeps only "cpus" from one wakeup to the next.
	 */
	if (wide) {
		t->wake.valid = false;
		return 0;
	}
	cpus_v = cpus ? cpus->u : 0;
	put_weight = !t->wake.valid || t->wake.weight != (int32_t)weight->i;
	put_cpus = put_weight ? cpus_v != 0 : cpus_v != t->wake.cpus;
	t->wake = (struct fxt_wake_state){ .cpus = cpus_v, .weight = (int32_t)weight->i,
					   .valid = true };

	words[1] = rec->ts;
	words[2] = rec->tid;
	/* The other arguments as the recorder wrote them, in their order. */
	for (unsigned int i = 0; i < rec->nargs; i++, at += size) {
		size = ktrace_fxt_get(rec->w[at], 4, 15);
		if (&rec->args[i] == cpus || (&rec->args[i] == weight && !put_weight) ||
		    &rec->args[i] == ctx || &rec->args[i] == waker ||
		    (&rec->args[i] == intr && flags))
			continue;
		if (&rec->args[i] == intr) {
			n += put_interrupt(ac, &words[n], ctx->u, intr->u);
			nargs++;
			continue;
		}
		memcpy(&words[n], &rec->w[at], size * 8);
		n += size;
		nargs++;
	}
	if (put_cpus) {
		n += ktrace_fxt_put_arg((__u64 *)&words[n], KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CPUS,
					cpus_v);
		nargs++;
	}
	words[0] = ktrace_fxt_wakeup_hdr(n, nargs, rec->cpu) | flags;
	obuf_put(&w->out, words, n * 8);
	return 1;
}

int fxt_compact_sched(struct fxt_compact *ac, struct fxt_writer *w,
		      const struct fxt_record *rec)
{
	int ret = 0;

	if (rec->sub == KTRACE_FXT_SCHED_CSWITCH_ARGS)
		ret = compact_switch(ac, w, rec);
	else if (rec->sub == KTRACE_FXT_SCHED_WAKEUP)
		ret = compact_wakeup(ac, w, rec);
	if (ret < 0)
		return ret;
	/* Every switch, however written: the reader follows them all. */
	if (rec->sub <= KTRACE_FXT_SCHED_CSWITCH_ARGS &&
	    fxt_compact_current_set(&ac->current, rec->cpu, rec->in_tid))
		return -ENOMEM;
	if (!ret) {
		obuf_put(&w->out, rec->w, (size_t)rec->nwords * 8);
		if (rec->sub == KTRACE_FXT_SCHED_CSWITCH_ARGS)
			ac->full++;
	}
	return 0;
}

void fxt_compact_free(struct fxt_compact *ac)
{
	fxt_compact_current_free(&ac->current);
	u64map_free(&ac->map);
	free(ac->threads);
	memset(ac, 0, sizeof(*ac));
}
