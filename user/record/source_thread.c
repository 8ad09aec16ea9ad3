// SPDX-License-Identifier: GPL-2.0
/*
 * A source drained on a thread of its own.  ftrace's reader parses every
 * event through libtraceevent and reads each CPU until it finds it empty:
 * while a busy CPU keeps producing, one pass can last as long as the
 * workload does.  On the recorder's thread that pass held the recorder's
 * drain back until its buffers overflowed; here it holds back only itself.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "record/source_thread.h"

static void *poll_loop(void *arg)
{
	struct source_thread *t = arg;
	int err = 0;

	while (!err && !__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE))
		err = t->ops->poll(t->priv, t->interval_ms);
	__atomic_store_n(&t->err, err, __ATOMIC_RELEASE);
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int source_thread_start(struct source_thread *t, const struct source_ops *ops, void *priv,
			int interval_ms)
{
	sigset_t all, old;
	int ret;

	memset(t, 0, sizeof(*t));
	t->ops = ops;
	t->priv = priv;
	t->interval_ms = interval_ms;
	/* Signals stay with the main thread, whose handler ends the recording. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&t->thread, NULL, poll_loop, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return -ret;
	t->running = true;
	return 0;
}

int source_thread_error(struct source_thread *t)
{
	return __atomic_load_n(&t->err, __ATOMIC_ACQUIRE);
}

void source_thread_ask_stop(struct source_thread *t)
{
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
}

bool source_thread_busy(struct source_thread *t)
{
	return t->running && !__atomic_load_n(&t->done, __ATOMIC_ACQUIRE);
}

int source_thread_stop(struct source_thread *t)
{
	if (!t->running)
		return 0;
	source_thread_ask_stop(t);
	pthread_join(t->thread, NULL);
	t->running = false;
	return t->err;
}
