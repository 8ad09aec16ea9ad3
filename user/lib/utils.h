/* SPDX-License-Identifier: GPL-2.0 */
/* Buffered output, fast number formatting and diagnostics for the ktrace CLI. */
#ifndef KTRACE_UTILS_H
#define KTRACE_UTILS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * An output buffer flushed to a file descriptor, or in memory (fd < 0);
 * errors stick in @err.  It starts at OBUF_INITIAL bytes at most: a file's
 * doubles, flush by flush, up to @chunk (the largest write); a memory
 * buffer grows as needed.
 */
#define OBUF_INITIAL	(64U << 10)

struct obuf {
	int fd;
	char *buf;
	size_t len;
	size_t cap;
	size_t chunk;
	uint64_t total;		/* bytes written through the buffer */
	int err;		/* first -errno from write(), 0 if none */
};

int obuf_init(struct obuf *o, int fd, size_t cap);
int obuf_flush(struct obuf *o);
void obuf_free(struct obuf *o);
void obuf_grow(struct obuf *o, size_t need);

static inline void obuf_reserve(struct obuf *o, size_t n)
{
	if (o->len + n > o->cap)
		obuf_grow(o, n);
}

static inline void obuf_put(struct obuf *o, const void *p, size_t n)
{
	obuf_reserve(o, n);
	__builtin_memcpy(o->buf + o->len, p, n);
	o->len += n;
}

#define obuf_lit(o, s) obuf_put((o), (s), sizeof(s) - 1)

static inline void obuf_putc(struct obuf *o, char c)
{
	obuf_reserve(o, 1);
	o->buf[o->len++] = c;
}

void obuf_puts(struct obuf *o, const char *s);
void obuf_u64(struct obuf *o, uint64_t v);
void obuf_i64(struct obuf *o, int64_t v);
void obuf_hex(struct obuf *o, uint64_t v);
void obuf_double(struct obuf *o, double v);
/* Nanoseconds as microseconds with three decimals, exact. */
void obuf_us(struct obuf *o, uint64_t ns);
/* A JSON string literal with quotes; invalid UTF-8 bytes become U+FFFD. */
void obuf_json_str(struct obuf *o, const char *s, size_t n);
/* A JSON member after another: ,"key":"value" (the key is written as it is). */
void obuf_json_kv_str(struct obuf *o, const char *key, const char *s);
/* A JSON string literal, or null for NULL. */
void obuf_json_str_or_null(struct obuf *o, const char *s);
void obuf_printf(struct obuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Running out of memory, the one policy:
 *  - What records never ends the program for it: record/, the FXT writer
 *    and its compact encoding, the archive's timelines (trace/timeline.c)
 *    and the commands that record or write an archive (record, watch,
 *    mark, merge).  A function returns -ENOMEM up to its command, which
 *    says what it could not do and writes what it has; where only a name
 *    or an index would be lost, it does without and counts it.  Nothing
 *    already recorded is lost.
 *  - What reads a finished trace into tables (analyze/, the JSON converter
 *    and the kernel-stack names of trace/, ktrace spikes) allocates with
 *    the x*() functions below, which name the table that ran out and end
 *    the program with status 1: a partial analysis is no answer, and the
 *    trace on disk is unharmed.  (The watch saves a spike's trace before
 *    it analyses it; its service restarts it and it carries on in the same
 *    directory.)
 *  - The shared reader and the commands' input and output (fxt/, cli/)
 *    return -ENOMEM and let their caller choose.
 * A file follows one of these, never both.
 */
void *xrealloc(void *p, size_t n, const char *what);
void *xcalloc(size_t n, size_t size, const char *what);
/* @n bytes of @s (or fewer, at its end), with a terminating zero. */
char *xstrndup(const char *s, size_t n, const char *what);
void out_of_memory(const char *what) __attribute__((noreturn));

/* Diagnostics go to stderr, prefixed with "ktrace: ". */
void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

uint64_t now_mono_ns(void);
bool str_ends_with(const char *s, const char *suffix);
/* Whether kernel release @rel ("6.1.0-13-amd64") is older than @major.@minor. */
bool kernel_older_than(const char *rel, int major, int minor);
/* Peak resident set size of this process in KiB (getrusage). */
long peak_rss_kib(void);

/*
 * The addresses of the kernel's own symbols @names (not modules') from
 * /proc/kallsyms into @addrs (0 where absent, or hidden by kptr_restrict);
 * returns how many were listed, or -errno if the file cannot be read.
 */
int kallsyms_find(const char *const *names, uint64_t *addrs, size_t n);

/* FNV-1a, 64 bits: @h is FNV1A_SEED or what an earlier call returned. */
#define FNV1A_SEED	0xcbf29ce484222325ULL

static inline uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

#endif
