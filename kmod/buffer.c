// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU buffers of FXT records.
 *
 * Writers on a CPU reserve space by advancing meta->head with a local
 * compare-and-swap, write their record, and commit by adding its size to
 * the commit count of the sub-buffer it lies in.  An interrupt or NMI that
 * writes in between simply wins the compare-and-swap first, so nesting
 * needs no lock.  A record never straddles two sub-buffers: the writer
 * that finds no room closes the sub-buffer (its data ends there, the rest
 * is committed as padding) and reserves at the start of the next.  A
 * sub-buffer is complete, and may be read, when its commit count reaches
 * a whole sub-buffer for the lap it is in.
 *
 * PREEMPT_RT: writers take no lock and allocate nothing, so nothing here can
 * sleep.  They only need to stay on their CPU: tracepoint probes run under
 * preempt_disable_notrace() on every kernel, RT included; the API, marks
 * and the state dump disable preemption themselves, because on RT neither
 * a spinlock_t nor BH-off does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "internal.h"

/*
 * Wakes the reader, outside the probe that filled a sub-buffer: probes run
 * under the runqueue or pi_lock, where a wake_up() could deadlock.  On
 * PREEMPT_RT this irq_work runs in the per-CPU irq_work/N thread (SCHED_FIFO
 * 1), which is right, since the wait queue's spinlock_t sleeps there, and it
 * must not become IRQ_WORK_INIT_HARD.  A busier SCHED_FIFO task on that CPU
 * delays it; the reader also polls every 100 ms, so the wakeup is late, not
 * lost, and a stream buffer that fills meanwhile counts its losses.
 *
 * Never queued from a CPU going offline (no longer active): there the
 * hotplug code runs what is queued (smpcfd_dying_cpu() -> irq_work_run())
 * after the CPU was emptied of tasks, which on PREEMPT_RT wakes irq_work/N
 * on it, and 5.10-rt's sched_cpu_dying() BUGs on a task left there; one
 * queued before is run by then (ktrace_cpu_going_down()).  The reader's
 * poll picks the sub-buffer up.
 */
static void ktrace_wakeup(struct irq_work *work)
{
	struct ktrace_cpu_buf *b = container_of(work, struct ktrace_cpu_buf, wakeup);

	wake_up_interruptible(&b->session->wq);
}

int ktrace_bufs_alloc_locked(struct ktrace_session *s)
{
	unsigned int cpu;

	lockdep_assert_held(&s->lock);
	s->bufs = kcalloc(nr_cpu_ids, sizeof(*s->bufs), GFP_KERNEL);
	if (!s->bufs)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ktrace_cpu_buf *b = kzalloc(sizeof(*b), GFP_KERNEL);

		if (!b)
			goto err_free;
		s->bufs[cpu] = b;
		b->area = vmalloc_user(s->cpu_stride);
		if (!b->area)
			goto err_free;
		b->session = s;
		b->meta = b->area;
		b->data = b->area + s->meta_size;
		b->size = s->buffer_size;
		b->subbuf_size = s->subbuf_size;
		b->nr_subbufs = s->nr_subbufs;
		b->size_shift = ilog2(s->buffer_size);
		b->subbuf_shift = ilog2(s->subbuf_size);
		b->cpu = cpu;
		b->ring = s->flags & KTRACE_CFG_RING;
		b->trigger = s->wake_slots;
		local64_set(&b->pending_lost, 0);
		init_irq_work(&b->wakeup, ktrace_wakeup);
	}
	return 0;

err_free:
	ktrace_bufs_free(s);
	return -ENOMEM;
}

void ktrace_bufs_free(struct ktrace_session *s)
{
	unsigned int cpu;

	if (!s->bufs)
		return;
	for_each_possible_cpu(cpu) {
		struct ktrace_cpu_buf *b = s->bufs[cpu];

		if (!b)
			continue;
		irq_work_sync(&b->wakeup);
		vfree(b->area);
		kfree(b);
	}
	kfree(s->bufs);
	s->bufs = NULL;
}

/* Ends the sub-buffer starting at @start after @len bytes of records. */
static void close_subbuf(struct ktrace_cpu_buf *b, u64 start, u32 len)
{
	struct ktrace_subbuf_meta *sm = &b->meta->subbuf[ktrace_buf_slot(b, start)];

	WRITE_ONCE(sm->data_len, len);
	if (len < b->subbuf_size)
		ktrace_buf_commit(b, start + len, b->subbuf_size - len);
}

void ktrace_buf_count_loss(struct ktrace_cpu_buf *b, u64 ts)
{
	if (local64_add_return(1, &b->pending_lost) == 1)
		WRITE_ONCE(b->meta->lost_first_ts, ts);
	WRITE_ONCE(b->meta->lost_last_ts, ts);
	local64_inc(ktrace_meta_local(&b->meta->lost));
}

/*
 * A reservation from @old to [@start, @new) that closed the sub-buffer
 * @old was in (no room left there), began one, or filled one exactly.
 */
void ktrace_buf_edge(struct ktrace_cpu_buf *b, u64 old, u64 start, u64 new)
{
	u64 mask = b->subbuf_size - 1;

	if (start != old)
		close_subbuf(b, old & ~mask, old & mask);
	if ((start & mask) == 0 && b->ring && start >= b->size)
		local64_inc(ktrace_meta_local(&b->meta->overwritten));
	if ((new & mask) == 0)
		WRITE_ONCE(b->meta->subbuf[ktrace_buf_slot(b, start)].data_len, b->subbuf_size);
}

/*
 * ktrace_buf_reserve() with a latency trigger, or with losses to report
 * first: a loss record before the record, if there is room for both.
 */
void *ktrace_buf_reserve_slow(struct ktrace_cpu_buf *b, u32 bytes, u64 ts, u64 *pos)
{
	u64 n, lpos, *loss, stop;
	void *rec;

	/* After a latency trigger's window: the recording is over, nothing is lost. */
	if (b->trigger) {
		stop = READ_ONCE(b->session->stop_at);
		if (stop && ts > stop)
			return NULL;
	}
	if (local64_read(&b->pending_lost)) {
		n = local64_xchg(&b->pending_lost, 0);
		if (n) {
			loss = ktrace_buf_reserve_room(b, KTRACE_FXT_DROP_WORDS * 8, &lpos);
			if (!loss) {
				local64_add(n, &b->pending_lost);
				ktrace_buf_count_loss(b, ts);
				return NULL;
			}
			ktrace_fxt_put_drop(loss, ts, b->cpu, n, b->meta->lost_first_ts,
					    b->meta->lost_last_ts);
			ktrace_buf_commit(b, lpos, KTRACE_FXT_DROP_WORDS * 8);
			local64_add(n, ktrace_meta_local(&b->meta->lost_reported));
			local64_inc(ktrace_meta_local(&b->meta->records));
		}
	}
	rec = ktrace_buf_reserve_room(b, bytes, pos);
	if (rec)
		local64_inc(ktrace_meta_local(&b->meta->records));
	else
		ktrace_buf_count_loss(b, ts);
	return rec;
}

/* A sub-buffer just completed (ktrace_buf_commit()): wake a waiting reader. */
void ktrace_buf_complete(struct ktrace_cpu_buf *b)
{
	if (wq_has_sleeper(&b->session->wq) && cpu_active(smp_processor_id()))
		irq_work_queue(&b->wakeup);
}

/* Copies an encoded record into the buffer. */
bool ktrace_buf_write(struct ktrace_cpu_buf *b, const u64 *rec, u32 words, u64 ts)
{
	u64 pos, *dst = ktrace_buf_reserve(b, words * 8, ts, &pos);

	if (!dst)
		return false;
	memcpy(dst, rec, words * 8);
	ktrace_buf_commit(b, pos, words * 8);
	return true;
}

/*
 * Runs on the buffer's CPU (or with the CPU offline): close the current
 * sub-buffer.  An IPI's handler runs in hard interrupt context on RT too,
 * where only lock-free work is allowed: local64 operations and irq_work.
 */
static void flush_cpu(void *arg)
{
	struct ktrace_cpu_buf *b = arg;
	local64_t *head = ktrace_meta_local(&b->meta->head);
	u64 old, off, mask = b->subbuf_size - 1;

	do {
		old = local64_read(head);
		off = old & mask;
		if (!off)
			return;
	} while (local64_cmpxchg(head, old, old - off + b->subbuf_size) != old);
	close_subbuf(b, old - off, off);
}

void ktrace_bufs_flush(struct ktrace_session *s)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu)) {
			smp_call_function_single(cpu, flush_cpu, s->bufs[cpu], 1);
		} else {
			preempt_disable();
			flush_cpu(s->bufs[cpu]);
			preempt_enable();
		}
	}
	cpus_read_unlock();
}

static bool cpu_readable(struct ktrace_cpu_buf *b)
{
	u64 next = READ_ONCE(b->meta->consumed);

	return next < local64_read(ktrace_meta_local(&b->meta->head)) &&
	       READ_ONCE(b->meta->subbuf[ktrace_buf_slot(b, next)].commit) >=
	       ktrace_buf_complete_at(b, next);
}

bool ktrace_bufs_readable(struct ktrace_session *s)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (cpu_readable(s->bufs[cpu]))
			return true;
	return false;
}

/*
 * Releases whole, complete sub-buffers up to @consumed.  A complete
 * sub-buffer ends at or before the head, so a release past the head would
 * free the sub-buffer writers are filling, and in stream mode turn
 * reserve()'s room check (new head - consumed) negative: every later record
 * on the CPU would be lost.
 */
int ktrace_buf_consume_locked(struct ktrace_session *s, unsigned int cpu, u64 consumed)
{
	struct ktrace_cpu_buf *b;
	u64 head;

	lockdep_assert_held(&s->lock);
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu) || !s->bufs)
		return -EINVAL;
	b = s->bufs[cpu];
	head = local64_read(ktrace_meta_local(&b->meta->head));
	if (consumed & (b->subbuf_size - 1) || consumed < READ_ONCE(b->meta->consumed) ||
	    consumed > head)
		return -EINVAL;
	/* Pairs with the acquire in reserve(): the reader is done with the bytes. */
	smp_store_release(&b->meta->consumed, consumed);
	return 0;
}
