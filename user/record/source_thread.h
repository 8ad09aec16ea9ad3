/* SPDX-License-Identifier: GPL-2.0 */
/* A source drained on a thread of its own while the recorder's is drained on the main one. */
#ifndef KTRACE_SOURCE_THREAD_H
#define KTRACE_SOURCE_THREAD_H

#include <pthread.h>
#include <stdbool.h>

#include "record/record.h"

/*
 * One source polled in a loop by its own thread, from
 * source_thread_start() until source_thread_ask_stop(): its poll only
 * ever touches its own spools and state, so nothing is shared with the
 * main thread but the flags below.  A pass may last long (as long as a busy
 * CPU keeps producing), so the main thread asks it to stop, goes on
 * draining its own source until it has, then joins it.
 */
struct source_thread {
	const struct source_ops *ops;
	void *priv;
	int interval_ms;	/* passed to each poll */
	pthread_t thread;
	bool running;		/* started and not joined */
	int stop;		/* set by the main thread, atomic */
	int done;		/* set by the thread as its loop ends, atomic */
	int err;		/* the poll's first error, atomic; the thread ends on it */
};

int source_thread_start(struct source_thread *t, const struct source_ops *ops, void *priv,
			int interval_ms);
/* 0 while it polls without error, else the poll's -errno. */
int source_thread_error(struct source_thread *t);
/* Ends the loop after the pass under way, without waiting for it. */
void source_thread_ask_stop(struct source_thread *t);
/* Whether the loop still runs (asked to stop or not). */
bool source_thread_busy(struct source_thread *t);
/* Ends the loop and waits for it; its poll's -errno, if one failed. */
int source_thread_stop(struct source_thread *t);

#endif
