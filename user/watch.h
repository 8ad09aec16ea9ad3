/* SPDX-License-Identifier: GPL-2.0 */
/* What `ktrace watch` writes and `ktrace spikes` reads. */
#ifndef KTRACE_WATCH_H
#define KTRACE_WATCH_H

/* The index of a watch's directory: one JSON object a line, one line a spike. */
#define WATCH_INDEX		"spikes.jsonl"
/* --max-rate's largest value, per minute. */
#define WATCH_MAX_RATE		1000

#endif
