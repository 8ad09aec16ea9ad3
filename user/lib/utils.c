// SPDX-License-Identifier: GPL-2.0
/* Buffered output, fast number formatting and diagnostics for the ktrace CLI. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/utils.h"

int obuf_init(struct obuf *o, int fd, size_t cap)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->chunk = cap ? cap : 1 << 20;
	o->cap = o->chunk < OBUF_INITIAL ? o->chunk : OBUF_INITIAL;
	o->buf = malloc(o->cap);
	return o->buf ? 0 : -ENOMEM;
}

int obuf_flush(struct obuf *o)
{
	size_t off = 0;

	if (o->fd < 0)
		return o->err;
	while (off < o->len && !o->err) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->err = n < 0 ? -errno : -EIO;
			break;
		}
		off += n;
	}
	o->total += off;
	o->len = 0;
	return o->err;
}

/* Memory buffers (fd < 0) grow; file buffers flush first. */
void obuf_grow(struct obuf *o, size_t need)
{
	if (o->fd >= 0) {
		obuf_flush(o);
		/* Empty now: a larger buffer needs no copy. */
		if (o->cap < o->chunk) {
			o->cap = o->cap * 2 < o->chunk ? o->cap * 2 : o->chunk;
			free(o->buf);
			o->buf = xrealloc(NULL, o->cap, "an output buffer");
		}
		if (o->len + need <= o->cap)
			return;
	}
	while (o->len + need > o->cap)
		o->cap *= 2;
	o->buf = xrealloc(o->buf, o->cap, "an output buffer");
}

void out_of_memory(const char *what)
{
	pr_err("out of memory for %s", what);
	exit(1);
}

void *xrealloc(void *p, size_t n, const char *what)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		out_of_memory(what);
	return p;
}

void *xcalloc(size_t n, size_t size, const char *what)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		out_of_memory(what);
	return p;
}

char *xstrndup(const char *s, size_t n, const char *what)
{
	char *p = strndup(s, n);

	if (!p)
		out_of_memory(what);
	return p;
}

void obuf_free(struct obuf *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = o->cap = 0;
}

void obuf_puts(struct obuf *o, const char *s)
{
	obuf_put(o, s, strlen(s));
}

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/*
 * Number formatting is most of what convert does, and traces repeat their
 * numbers (pids, tids, CPU track ids, the current microsecond): a small
 * direct-mapped cache of formatted values saves most of the divisions.
 */
#define NUM_CACHE	512

static struct {
	uint64_t v;
	uint8_t len;
	char s[20];
} num_cache[NUM_CACHE];

static size_t format_u64(char *tmp, uint64_t v);

void obuf_u64(struct obuf *o, uint64_t v)
{
	unsigned int slot = (v * 0x9e3779b97f4a7c15ULL) >> 55;

	obuf_reserve(o, 20);
	if (num_cache[slot].v != v || !num_cache[slot].len) {
		num_cache[slot].len = format_u64(num_cache[slot].s, v);
		num_cache[slot].v = v;
	}
	memcpy(o->buf + o->len, num_cache[slot].s, 20);
	o->len += num_cache[slot].len;
}

/* Formats @v at the start of @out (20 bytes); two digits per division. */
static size_t format_u64(char *out, uint64_t v)
{
	char tmp[20];
	int i = sizeof(tmp);

	while (v >= 100) {
		unsigned int d = (v % 100) * 2;

		v /= 100;
		tmp[--i] = digit_pairs[d + 1];
		tmp[--i] = digit_pairs[d];
	}
	if (v >= 10) {
		tmp[--i] = digit_pairs[v * 2 + 1];
		tmp[--i] = digit_pairs[v * 2];
	} else {
		tmp[--i] = '0' + v;
	}
	memcpy(out, tmp + i, sizeof(tmp) - i);
	return sizeof(tmp) - i;
}

void obuf_i64(struct obuf *o, int64_t v)
{
	if (v < 0) {
		obuf_putc(o, '-');
		obuf_u64(o, -(uint64_t)v);
	} else {
		obuf_u64(o, v);
	}
}

void obuf_hex(struct obuf *o, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[18];
	int i = sizeof(tmp);

	do {
		tmp[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	obuf_put(o, tmp + i, sizeof(tmp) - i);
}

void obuf_double(struct obuf *o, double v)
{
	char tmp[40];
	int n;

	if (v != v || v - v != 0) {	/* NaN or infinity: JSON has neither */
		obuf_lit(o, "null");
		return;
	}
	n = snprintf(tmp, sizeof(tmp), "%.17g", v);
	obuf_put(o, tmp, n);
}

void obuf_us(struct obuf *o, uint64_t ns)
{
	uint64_t frac = ns % 1000;

	obuf_u64(o, ns / 1000);
	obuf_reserve(o, 4);
	o->buf[o->len++] = '.';
	o->buf[o->len++] = '0' + frac / 100;
	o->buf[o->len++] = '0' + frac / 10 % 10;
	o->buf[o->len++] = '0' + frac % 10;
}

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (len > n)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

void obuf_json_str(struct obuf *o, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	/* Worst case: every byte becomes a 6-byte escape. */
	obuf_reserve(o, n * 6 + 2);
	o->buf[o->len++] = '"';
	/* Fast path: plain printable ASCII is copied as it is. */
	while (i < n && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' && s[i] != '\\')
		i++;
	memcpy(o->buf + o->len, s, i);
	o->len += i;
	while (i < n) {
		unsigned char c = s[i];
		char *d = o->buf + o->len;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*d = c;
			o->len++;
			i++;
		} else if (c == '"' || c == '\\') {
			d[0] = '\\';
			d[1] = c;
			o->len += 2;
			i++;
		} else if (c < 0x20) {
			memcpy(d, "\\u00", 4);
			d[4] = hex[c >> 4];
			d[5] = hex[c & 15];
			o->len += 6;
			i++;
		} else {
			size_t l = utf8_seq_len(s + i, n - i);

			if (l) {
				memcpy(d, s + i, l);
				o->len += l;
				i += l;
			} else {
				memcpy(d, "\\ufffd", 6);
				o->len += 6;
				i++;
			}
		}
	}
	o->buf[o->len++] = '"';
}

void obuf_json_kv_str(struct obuf *o, const char *key, const char *s)
{
	obuf_printf(o, ",\"%s\":", key);
	obuf_json_str(o, s, strlen(s));
}

void obuf_json_str_or_null(struct obuf *o, const char *s)
{
	if (s)
		obuf_json_str(o, s, strlen(s));
	else
		obuf_lit(o, "null");
}

void obuf_printf(struct obuf *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	obuf_reserve(o, n + 1);
	va_start(ap, fmt);
	vsnprintf(o->buf + o->len, n + 1, fmt, ap);
	va_end(ap);
	o->len += n;
}

static void vpr(const char *level, const char *fmt, va_list ap)
{
	fprintf(stderr, "ktrace: %s", level);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpr("error: ", fmt, ap);
	va_end(ap);
}

void pr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpr("warning: ", fmt, ap);
	va_end(ap);
}

void pr_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpr("", fmt, ap);
	va_end(ap);
}

uint64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

bool kernel_older_than(const char *rel, int major, int minor)
{
	int ma = 0, mi = 0;

	if (sscanf(rel, "%d.%d", &ma, &mi) < 2)
		return false;	/* unknown: let loading tell */
	return ma < major || (ma == major && mi < minor);
}

bool str_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

long peak_rss_kib(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_maxrss;
}

int kallsyms_find(const char *const *names, uint64_t *addrs, size_t n)
{
	char line[512], name[256], type;
	unsigned long long addr;
	uint64_t seen = 0;	/* n is at most 64 */
	int found = 0;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return -errno;
	memset(addrs, 0, n * sizeof(*addrs));
	while ((size_t)found < n && fgets(line, sizeof(line), f)) {
		/* A module's symbols have its name after them, in brackets. */
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || strchr(line, '['))
			continue;
		for (size_t i = 0; i < n && i < 64; i++) {
			if (!(seen & 1ULL << i) && !strcmp(name, names[i])) {
				seen |= 1ULL << i;
				addrs[i] = addr;
				found++;
				break;
			}
		}
	}
	fclose(f);
	return found;
}
