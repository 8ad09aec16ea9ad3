// SPDX-License-Identifier: GPL-2.0
/*
 * Interface fuzzer for ktrace.ko: random ioctls (the real ones, near misses
 * and random numbers) with size-first structs of 0 to 4096 bytes, mmap,
 * mprotect, mremap, munmap and touches of the per-CPU buffers, poll, and
 * writes to /dev/ktrace-mark, from several threads on one or two fds of a
 * session.  Each thread's calls follow from --seed and its number, so a
 * run with --threads 1 repeats its call sequence exactly.
 *
 * Every refused call must return -1 with an errno (counted per kind and
 * errno).  Calls that must fail and succeed, calls that must succeed and
 * fail with EINVAL, and wrong results of successful calls are failures,
 * printed as they happen; the exit status is 1 if there was any.
 *
 * --regressions instead replays, as fixed sequences, the bugs it found.
 *
 * usage: fuzz_kmod [--seed N] [--calls N] [--seconds S] [--threads T]
 *                  [--max-buffer BYTES] [--log]
 *        fuzz_kmod --regressions
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/ktrace.h>

#define KTRACE_DEVICE	"/dev/ktrace"
#define ARG_AREA	8192		/* argument buffers, a guard page after them */
#define MAX_USIZE	4096		/* the module's PAGE_SIZE bound on struct sizes */
#define NR_SLOTS	2		/* fds: the second is a dup() of the first */
#define MAX_MAPS	32
#define MAX_ERRNO	160
#define MAX_THREADS	64

enum kind {
	K_OPEN, K_DUP, K_CLOSE, K_ABI, K_CONFIGURE, K_GEOMETRY, K_START, K_STOP, K_FLUSH, K_REARM,
	K_CONSUME, K_STATS, K_ADD_PROBE, K_NEAR_MISS, K_RANDOM_IOCTL, K_MMAP, K_MPROTECT,
	K_MREMAP, K_MUNMAP, K_TOUCH, K_POLL, K_READ_WRITE, K_MARK, K_MARK_REOPEN, NR_KINDS
};

static const char *const kind_name[NR_KINDS] = {
	"open", "dup", "close", "ioctl ABI_VERSION", "ioctl CONFIGURE", "ioctl GEOMETRY",
	"ioctl START", "ioctl STOP", "ioctl FLUSH", "ioctl REARM", "ioctl CONSUME", "ioctl STATS",
	"ioctl ADD_PROBE", "ioctl near miss", "ioctl random", "mmap", "mprotect", "mremap",
	"munmap", "touch mapping", "poll", "read/write/lseek", "mark write", "mark reopen",
};

/*
 * Relative frequency of each kind.  Under TCG a START or STOP takes about
 * 0.3 s (tracepoint registration patches code on every CPU) and holds the
 * session lock, which every other ioctl but ABI_VERSION waits for: the
 * calls that change the session's state are rare, so that the cheap ones
 * (a fraction of a millisecond) make up most of the run.
 */
static const unsigned int kind_weight[NR_KINDS] = {
	[K_OPEN] = 25, [K_DUP] = 10, [K_CLOSE] = 8, [K_ABI] = 100, [K_CONFIGURE] = 40,
	[K_GEOMETRY] = 300, [K_START] = 4, [K_STOP] = 3, [K_FLUSH] = 20, [K_REARM] = 20, [K_CONSUME] = 800,
	[K_STATS] = 300, [K_ADD_PROBE] = 5, [K_NEAR_MISS] = 1500, [K_RANDOM_IOCTL] = 600,
	[K_MMAP] = 300, [K_MPROTECT] = 100, [K_MREMAP] = 60, [K_MUNMAP] = 120,
	[K_TOUCH] = 1200, [K_POLL] = 300, [K_READ_WRITE] = 300, [K_MARK] = 3000,
	[K_MARK_REOPEN] = 30,
};

static atomic_ulong calls[NR_KINDS], succeeded[NR_KINDS], errnos[NR_KINDS][MAX_ERRNO];
static atomic_ulong total_calls, failures, kind_ns[NR_KINDS];
static unsigned long max_calls = 100000, max_buffer = 16U << 20;
static double max_seconds;
static unsigned int nr_threads = 4;
static uint64_t seed = 1;
static bool log_calls;
static struct timespec t_start;

/* The session's fds.  @lock: ops hold it shared, close holds it exclusive. */
struct slot {
	pthread_rwlock_t lock;
	int fd;			/* -1: closed */
	unsigned int file;	/* which open() this fd comes from */
	/* The file's geometry, once GEOMETRY told it (geo_lock). */
	bool have_geo;
	struct ktrace_geometry geo;
};

struct mapping {
	void *addr;
	size_t len;
	int prot;
	unsigned int file;
	unsigned int cpu;	/* when it maps a whole CPU at its offset */
	bool whole;
};

/*
 * @fd_lock orders open, close and whole unmaps, so that "is the device
 * held" (an fd or a mapping of ours) is known when open() answers.
 */
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot slots[NR_SLOTS];
static unsigned int next_file = 1;
/* Lock order: fd_lock, a slot's lock, maps_lock; geo_lock is innermost. */
static pthread_rwlock_t maps_lock;
static struct mapping maps[MAX_MAPS];
static unsigned int nr_maps;
/* Guards each slot's @have_geo and @geo, which threads sharing it update. */
static pthread_mutex_t geo_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t mark_fd_lock;
static int mark_fd = -1;

static const char *const probe_symbols[] = {
	"__x64_sys_getppid", "vfs_read", "do_sys_poll", "ksys_write", "schedule_timeout",
	"ktrace_mark_write", "no_such_function_xyz",
};

struct thread {
	unsigned int id;
	uint64_t rng;
	unsigned long n;		/* calls made */
	unsigned char *arg;		/* ARG_AREA bytes, then a PROT_NONE page */
	bool arg_faults;		/* the last arg_struct() runs into a fault */
	char desc[256];
	pthread_t tid;
};

static __thread struct thread *self;
static __thread sigjmp_buf touch_jmp;
static __thread volatile sig_atomic_t touching;

static uint64_t rnd(struct thread *t)
{
	uint64_t z = (t->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(struct thread *t, uint64_t n)
{
	return n ? rnd(t) % n : 0;
}

static bool chance(struct thread *t, unsigned int one_in)
{
	return below(t, one_in) == 0;
}

static void fill(struct thread *t, void *p, size_t len)
{
	unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		b[i] = rnd(t);
}

static double elapsed(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - t_start.tv_sec + (now.tv_nsec - t_start.tv_nsec) / 1e9;
}

static void __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
	unsigned long n = atomic_fetch_add(&failures, 1);
	va_list ap;

	if (n >= 50)
		return;
	flockfile(stdout);
	printf("FAIL thread %u call %lu (seed %llu): ", self->id, self->n,
	       (unsigned long long)seed);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" [%s]\n", self->desc);
	fflush(stdout);
	funlockfile(stdout);
}

static void __attribute__((format(printf, 2, 3))) describe(struct thread *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->desc, sizeof(t->desc), fmt, ap);
	va_end(ap);
}

/* Counts a call's outcome; a refusal must be -1 with an errno. */
static void account(enum kind k, long ret, int err)
{
	atomic_fetch_add(&calls[k], 1);
	atomic_fetch_add(&total_calls, 1);
	if (ret >= 0) {
		atomic_fetch_add(&succeeded[k], 1);
	} else if (ret != -1 || err <= 0 || err >= MAX_ERRNO) {
		fail("%s returned %ld with errno %d", kind_name[k], ret, err);
	} else {
		atomic_fetch_add(&errnos[k][err], 1);
	}
	if (log_calls) {
		flockfile(stdout);
		printf("T%u #%lu %s: %s -> %ld%s%s\n", self->id, self->n, kind_name[k], self->desc,
		       ret, ret < 0 ? " " : "", ret < 0 ? strerrorname_np(err) ?: "?" : "");
		funlockfile(stdout);
	}
}

/*
 * A size for a struct whose real size is @real: the real one, older or
 * newer ones, the bounds the module checks, or anything up to 4096 + 8.
 */
static uint32_t pick_usize(struct thread *t, uint32_t real)
{
	switch (below(t, 12)) {
	case 0:
		return below(t, MAX_USIZE + 9);
	case 1:
		return below(t, 9);
	case 2:
		return real - 8 + below(t, 17);
	case 3:
		return MAX_USIZE - 1 + below(t, 3);
	case 4:
		return rnd(t);
	case 5:
		return real + 8 * below(t, 8);
	default:
		return real;
	}
}

/*
 * Lays out a size-first struct in the argument area: @body (@real bytes,
 * its size field overwritten with the chosen usize) then a tail, zero or
 * not.  It goes at the start of the area, or with only its first bytes
 * before the guard page, or at an address that is not user memory.
 * Returns the pointer to pass; @effective gets what the module sees after
 * copy_struct_from_user() (its size field is the usize); @verdict is 0
 * when copying in succeeds, else the errno it must give.
 */
static void *arg_struct(struct thread *t, const void *body, uint32_t real, void *effective,
			int *verdict)
{
	static void *const bad_ptr[] = {
		NULL, (void *)(uintptr_t)0xffff888000000000ULL, (void *)(uintptr_t)-8,
	};
	uint32_t usize = pick_usize(t, real), span, room = ARG_AREA;
	unsigned char *buf = t->arg, *p = buf;
	bool tail_dirty = false;
	const char *where = "start";

	memset(buf, 0, ARG_AREA);
	memcpy(buf, body, real);
	memcpy(buf, &usize, sizeof(usize));
	if (usize > real && usize <= MAX_USIZE && chance(t, 4)) {
		buf[real + below(t, usize - real)] = 1 + below(t, 255);
		tail_dirty = true;
	}
	span = usize < real ? real : usize;
	if (span > ARG_AREA)
		span = ARG_AREA;
	memset(effective, 0, real);
	memcpy(effective, buf, usize < real ? usize : real);
	*verdict = usize < 8 || usize > MAX_USIZE ? EINVAL : tail_dirty ? E2BIG : 0;
	t->arg_faults = false;

	switch (below(t, 24)) {
	case 0:
		p = bad_ptr[below(t, 3)];
		*verdict = EFAULT;
		t->arg_faults = true;
		where = "a bad address";
		break;
	case 1:
	case 2:
		/* Only @room bytes before the guard page. */
		room = 4 + below(t, span - 3);
		p = t->arg + ARG_AREA - room;
		memmove(p, buf, room);
		/*
		 * copy_struct_from_user() may meet the non-zero tail before
		 * the fault: E2BIG stands for "E2BIG or EFAULT".
		 */
		if (usize > room && !(usize < 8 || usize > MAX_USIZE)) {
			*verdict = tail_dirty ? E2BIG : EFAULT;
			t->arg_faults = true;
		}
		where = "the guard page";
		break;
	}
	describe(t, "usize %u at %s (%u bytes)%s", usize, where, room,
		 tail_dirty ? ", non-zero tail" : "");
	return p;
}

/* ---- the fds ----------------------------------------------------------- */

/* Takes a slot with an open fd, shared; NULL if none is open. */
static struct slot *slot_get(struct thread *t)
{
	unsigned int first = below(t, NR_SLOTS);

	for (unsigned int i = 0; i < NR_SLOTS; i++) {
		struct slot *s = &slots[(first + i) % NR_SLOTS];

		pthread_rwlock_rdlock(&s->lock);
		if (s->fd >= 0)
			return s;
		pthread_rwlock_unlock(&s->lock);
	}
	return NULL;
}

static void slot_put(struct slot *s)
{
	pthread_rwlock_unlock(&s->lock);
}

/* The file's geometry as GEOMETRY last told it; false if not yet. */
static bool slot_geo(struct slot *s, struct ktrace_geometry *g)
{
	bool have;

	pthread_mutex_lock(&geo_lock);
	have = s->have_geo;
	*g = s->geo;
	pthread_mutex_unlock(&geo_lock);
	return have;
}

/* Records the geometry; false if it differs from what the file said before. */
static bool slot_geo_set(struct slot *s, const struct ktrace_geometry *g)
{
	bool same;

	pthread_mutex_lock(&geo_lock);
	same = !s->have_geo || !memcmp(g, &s->geo, sizeof(*g));
	s->geo = *g;
	s->have_geo = true;
	pthread_mutex_unlock(&geo_lock);
	return same;
}

static bool device_held_locked(void)
{
	bool held = false;

	for (unsigned int i = 0; i < NR_SLOTS; i++)
		held |= slots[i].fd >= 0;
	pthread_rwlock_rdlock(&maps_lock);
	held |= nr_maps > 0;
	pthread_rwlock_unlock(&maps_lock);
	return held;
}

static void do_open(struct thread *t)
{
	static const int modes[] = { O_RDWR, O_RDWR, O_RDWR, O_RDONLY, O_WRONLY };
	int flags = modes[below(t, 5)] | (chance(t, 4) ? O_NONBLOCK : 0) | O_CLOEXEC;
	struct slot *s = NULL;
	bool held;
	int fd, err;

	pthread_mutex_lock(&fd_lock);
	for (unsigned int i = 0; i < NR_SLOTS && !s; i++)
		if (slots[i].fd < 0)
			s = &slots[i];
	held = device_held_locked();
	describe(t, "flags %#x, device %s", flags, held ? "held" : "free");
	fd = open(KTRACE_DEVICE, flags);
	err = errno;
	account(K_OPEN, fd, err);
	if (fd >= 0 && held)
		fail("a second open() of %s succeeded", KTRACE_DEVICE);
	if (fd >= 0 && !s) {
		close(fd);
	} else if (fd >= 0) {
		pthread_rwlock_wrlock(&s->lock);
		s->fd = fd;
		s->file = next_file++;
		pthread_mutex_lock(&geo_lock);
		s->have_geo = false;
		pthread_mutex_unlock(&geo_lock);
		pthread_rwlock_unlock(&s->lock);
	} else if (!held && err != EBUSY && err != ENOENT && err != ENODEV && err != ENXIO) {
		/* EBUSY: a recorder outside; ENOENT..: the module is being reloaded. */
		fail("open() of a free device: %s", strerror(err));
	}
	pthread_mutex_unlock(&fd_lock);
}

/* A second fd on the same session. */
static void do_dup(struct thread *t)
{
	struct slot *from = NULL, *to = NULL;
	int fd;

	pthread_mutex_lock(&fd_lock);
	for (unsigned int i = 0; i < NR_SLOTS; i++) {
		if (slots[i].fd >= 0 && !from)
			from = &slots[i];
		else if (slots[i].fd < 0 && !to)
			to = &slots[i];
	}
	if (from && to) {
		describe(t, "fd %d", from->fd);
		fd = fcntl(from->fd, F_DUPFD_CLOEXEC, 3);
		account(K_DUP, fd, errno);
		if (fd >= 0) {
			pthread_rwlock_wrlock(&to->lock);
			to->fd = fd;
			to->file = from->file;
			pthread_mutex_lock(&geo_lock);
			to->have_geo = from->have_geo;
			to->geo = from->geo;
			pthread_mutex_unlock(&geo_lock);
			pthread_rwlock_unlock(&to->lock);
		}
	}
	pthread_mutex_unlock(&fd_lock);
}

static void do_close(struct thread *t)
{
	struct slot *s = &slots[below(t, NR_SLOTS)];
	int ret;

	pthread_mutex_lock(&fd_lock);
	pthread_rwlock_wrlock(&s->lock);
	if (s->fd >= 0) {
		describe(t, "fd %d", s->fd);
		ret = close(s->fd);
		account(K_CLOSE, ret, errno);
		s->fd = -1;
		pthread_mutex_lock(&geo_lock);
		s->have_geo = false;
		pthread_mutex_unlock(&geo_lock);
	}
	pthread_rwlock_unlock(&s->lock);
	pthread_mutex_unlock(&fd_lock);
}

/* ---- ioctls ------------------------------------------------------------ */

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static uint64_t pick_buffer_size(struct thread *t)
{
	switch (below(t, 10)) {
	case 0:
		return 0;
	case 1:
		return rnd(t);
	case 2:
		return below(t, 1U << 20);
	case 3:
		return 1ULL << below(t, 64);
	default:
		return (uint64_t)KTRACE_MIN_BUFFER_SIZE << below(t, 6);
	}
}

static uint32_t pick_subbuf_size(struct thread *t)
{
	switch (below(t, 8)) {
	case 0:
		return 0;
	case 1:
		return rnd(t);
	case 2:
		return 1U << below(t, 32);
	default:
		return KTRACE_MIN_SUBBUF_SIZE << below(t, 4);
	}
}

/* The module's rules for a configuration (ktrace.h and session.c). */
static bool config_valid(const struct ktrace_config *c)
{
	static const struct ktrace_throttle_layout no_layout;
	static const char no_comm[KTRACE_COMM_LEN];
	uint64_t size = c->buffer_size ? c->buffer_size : KTRACE_DEFAULT_BUFFER_SIZE;
	uint32_t sub = c->subbuf_size ? c->subbuf_size : KTRACE_DEFAULT_SUBBUF_SIZE;

	if (c->flags & ~KTRACE_CFG_FLAGS)
		return false;
	if (!(c->flags & KTRACE_CFG_TRIGGER) &&
	    (c->trigger_pid || c->trigger_ns || c->after_ns ||
	     memcmp(c->trigger_comm, no_comm, KTRACE_COMM_LEN)))
		return false;
	if (c->flags & KTRACE_CFG_TRIGGER &&
	    (!(c->flags & KTRACE_CFG_RING) || !c->trigger_ns || c->trigger_pid > (1U << 22) ||
	     c->after_ns > 3600ULL * 1000000000ULL || !memchr(c->trigger_comm, 0, KTRACE_COMM_LEN)))
		return false;
	/* The fuzzer never names the scheduler's layout, which the flag needs. */
	if (c->flags & KTRACE_CFG_THROTTLE ||
	    memcmp(&c->throttle, &no_layout, sizeof(no_layout)))
		return false;
	return ktrace_buffer_size_valid(size) && pow2(sub) && sub >= KTRACE_MIN_SUBBUF_SIZE &&
	       sub >= (uint32_t)sysconf(_SC_PAGESIZE) && size >= 2ULL * sub &&
	       size / sub <= KTRACE_MAX_SUBBUFS;
}

static void do_configure(struct thread *t)
{
	struct ktrace_config c = { 0 }, eff;
	struct slot *s = slot_get(t);
	int verdict, ret, err;
	void *p;

	if (!s)
		return;
	if (chance(t, 2)) {
		/* What a recorder asks for, so that sessions get configured. */
		c.size = sizeof(c);
		c.flags = chance(t, 3) ? KTRACE_CFG_RING : 0;
		c.buffer_size = (uint64_t)KTRACE_MIN_BUFFER_SIZE << below(t, 6);
		c.subbuf_size = chance(t, 2) ? 0 : KTRACE_MIN_SUBBUF_SIZE;
		if (c.buffer_size < 2ULL * (c.subbuf_size ? c.subbuf_size : KTRACE_DEFAULT_SUBBUF_SIZE))
			c.subbuf_size = KTRACE_MIN_SUBBUF_SIZE;
		describe(t, "flags %#x buffer %llu subbuf %u", c.flags,
			 (unsigned long long)c.buffer_size, c.subbuf_size);
		ret = ioctl(s->fd, KTRACE_IOC_CONFIGURE, &c);
		err = errno;
		account(K_CONFIGURE, ret, err);
		if (ret && err != EBUSY && err != ENOMEM)
			fail("CONFIGURE refused a valid configuration: %s", strerror(err));
		slot_put(s);
		return;
	}
	if (!chance(t, 4)) {
		static const uint32_t flag_choice[] = {
			0, 0, KTRACE_CFG_RING, KTRACE_CFG_RING | KTRACE_CFG_TRIGGER,
			KTRACE_CFG_TRIGGER,
		};
		c.flags = flag_choice[below(t, 5)];
	} else {
		c.flags = rnd(t);
	}
	c.buffer_size = pick_buffer_size(t);
	c.subbuf_size = pick_subbuf_size(t);
	/* Sizes the VM can hold: larger valid ones only exercise the OOM killer. */
	if (ktrace_buffer_size_valid(c.buffer_size) && c.buffer_size > max_buffer)
		c.buffer_size = max_buffer;
	if (c.flags & KTRACE_CFG_TRIGGER || chance(t, 8)) {
		c.trigger_ns = chance(t, 8) ? 0 : 1000000 + below(t, 100000000);
		c.after_ns = chance(t, 8) ? rnd(t) : below(t, 100000000);
		c.trigger_pid = chance(t, 4) ? rnd(t) : below(t, 1000);
		if (chance(t, 2))
			memcpy(c.trigger_comm, "victim", 7);
		else if (chance(t, 4))
			fill(t, c.trigger_comm, sizeof(c.trigger_comm));
	}
	p = arg_struct(t, &c, sizeof(c), &eff, &verdict);
	ret = ioctl(s->fd, KTRACE_IOC_CONFIGURE, p);
	err = errno;
	account(K_CONFIGURE, ret, err);
	if (!ret && (verdict || !config_valid(&eff)))
		fail("CONFIGURE accepted %s (flags %#x buffer %llu subbuf %u)",
		     verdict ? strerror(verdict) : "an invalid configuration", eff.flags,
		     (unsigned long long)eff.buffer_size, eff.subbuf_size);
	if (ret && !verdict && config_valid(&eff) && err != EBUSY && err != ENOMEM)
		fail("CONFIGURE refused a valid configuration: %s (flags %#x buffer %llu subbuf %u)",
		     strerror(err), eff.flags, (unsigned long long)eff.buffer_size, eff.subbuf_size);
	if (ret && verdict && err != verdict && !(verdict == E2BIG && err == EFAULT))
		fail("CONFIGURE: %s where the copy-in gives %s", strerror(err), strerror(verdict));
	slot_put(s);
}

/* Output structs: the module fills min(usize, its size) and zeroes the rest. */
static void check_out(struct thread *t, const char *what, const unsigned char *p, uint32_t usize,
		      uint32_t real)
{
	uint32_t got;

	(void)t;
	memcpy(&got, p, sizeof(got));
	if (got != (usize < real ? usize : real))
		fail("%s: size %u written back for usize %u (struct is %u)", what, got, usize, real);
	for (uint32_t i = real; i < usize && i < ARG_AREA; i++)
		if (p[i]) {
			fail("%s: byte %u past the struct not cleared", what, i);
			break;
		}
}

static void do_geometry(struct thread *t)
{
	struct ktrace_geometry g = { 0 }, eff;
	struct slot *s = slot_get(t);
	int verdict, ret;
	unsigned char *p;
	uint32_t usize;

	if (!s)
		return;
	fill(t, &g, sizeof(g));
	p = arg_struct(t, &g, sizeof(g), &eff, &verdict);
	/* Output only: the tail is cleared, not checked, and a fault is a fault. */
	if (verdict == E2BIG)
		verdict = t->arg_faults ? EFAULT : 0;
	usize = eff.size;
	ret = ioctl(s->fd, KTRACE_IOC_GEOMETRY, p);
	account(K_GEOMETRY, ret, errno);
	if (!ret && verdict) {
		fail("GEOMETRY succeeded where writing back gives %s", strerror(verdict));
	} else if (!ret) {
		check_out(t, "GEOMETRY", p, usize, sizeof(g));
		if (usize >= sizeof(g)) {
			memcpy(&g, p, sizeof(g));
			if (!g.nr_cpus || g.cpu_stride != g.meta_size + g.buffer_size ||
			    (uint64_t)g.nr_subbufs * g.subbuf_size != g.buffer_size ||
			    !ktrace_buffer_size_valid(g.buffer_size) ||
			    g.meta_size < sizeof(struct ktrace_meta) ||
			    g.reserved[0] || g.reserved[1] || g.reserved[2] || g.reserved[3])
				fail("GEOMETRY: inconsistent (cpus %u buffer %llu subbuf %u x %u stride %llu meta %llu)",
				     g.nr_cpus, (unsigned long long)g.buffer_size, g.subbuf_size,
				     g.nr_subbufs, (unsigned long long)g.cpu_stride,
				     (unsigned long long)g.meta_size);
			else if (!slot_geo_set(s, &g))
				fail("GEOMETRY changed for one file");
		}
	}
	slot_put(s);
}

static void do_stats(struct thread *t)
{
	struct ktrace_stats st = { 0 }, eff;
	struct slot *s = slot_get(t);
	int verdict, ret;
	unsigned char *p;

	if (!s)
		return;
	fill(t, &st, sizeof(st));
	p = arg_struct(t, &st, sizeof(st), &eff, &verdict);
	if (verdict == E2BIG)
		verdict = t->arg_faults ? EFAULT : 0;
	ret = ioctl(s->fd, KTRACE_IOC_STATS, p);
	account(K_STATS, ret, errno);
	if (!ret && verdict)
		fail("STATS succeeded where writing back gives %s", strerror(verdict));
	else if (!ret)
		check_out(t, "STATS", p, eff.size, sizeof(st));
	if (ret && !verdict)
		fail("STATS refused: %s", strerror(errno));
	slot_put(s);
}

/* START, STOP, FLUSH, REARM and ABI_VERSION take no argument: give them garbage. */
static void do_noarg(struct thread *t, enum kind k)
{
	static const unsigned long cmd[NR_KINDS] = {
		[K_ABI] = KTRACE_IOC_ABI_VERSION, [K_START] = KTRACE_IOC_START,
		[K_STOP] = KTRACE_IOC_STOP, [K_FLUSH] = KTRACE_IOC_FLUSH,
		[K_REARM] = KTRACE_IOC_REARM,
	};
	struct slot *s = slot_get(t);
	unsigned long arg = chance(t, 2) ? 0 : rnd(t);
	int ret;

	if (!s)
		return;
	describe(t, "arg %#lx", arg);
	ret = ioctl(s->fd, cmd[k], arg);
	account(k, ret, errno);
	if (k == K_ABI && ret != KTRACE_ABI_VERSION)
		fail("ABI_VERSION returned %d", ret);
	slot_put(s);
}

/* The meta page of CPU @cpu of @file, if one is mapped: its consumed position. */
static bool mapped_consumed(unsigned int file, unsigned int cpu, uint64_t *consumed,
			    uint64_t *head)
{
	bool found = false;

	pthread_rwlock_rdlock(&maps_lock);
	for (unsigned int i = 0; i < nr_maps && !found; i++) {
		const struct mapping *m = &maps[i];

		if (m->file == file && m->whole && m->cpu == cpu && (m->prot & PROT_READ)) {
			const volatile struct ktrace_meta *meta = m->addr;

			*head = meta->head;
			*consumed = meta->consumed;
			found = true;
		}
	}
	pthread_rwlock_unlock(&maps_lock);
	return found;
}

static void do_consume(struct thread *t)
{
	struct ktrace_consume c = { 0 }, eff;
	struct slot *s = slot_get(t);
	uint64_t head, consumed, sub;
	struct ktrace_geometry g;
	int verdict, ret;
	bool have_geo;
	void *p;

	if (!s)
		return;
	have_geo = slot_geo(s, &g);
	sub = have_geo ? g.subbuf_size : 4096U << below(t, 5);
	c.cpu = chance(t, 8) ? rnd(t) : below(t, have_geo ? g.nr_cpus + 1 : 4);
	if (mapped_consumed(s->file, c.cpu, &consumed, &head) && !chance(t, 4))
		c.consumed = consumed + sub * below(t, 3);	/* a reader's next release */
	else if (chance(t, 2))
		c.consumed = sub * below(t, 1024);
	else
		c.consumed = rnd(t) >> below(t, 64);
	if (chance(t, 8))
		c.reserved[below(t, 2)] = rnd(t);
	p = arg_struct(t, &c, sizeof(c), &eff, &verdict);
	ret = ioctl(s->fd, KTRACE_IOC_CONSUME, p);
	account(K_CONSUME, ret, errno);
	if (!ret && (verdict || eff.reserved[0] || eff.reserved[1] ||
		     (have_geo && (eff.cpu >= g.nr_cpus || eff.consumed % sub))))
		fail("CONSUME accepted cpu %u consumed %llu reserved %llx/%llx (%s)", eff.cpu,
		     (unsigned long long)eff.consumed, (unsigned long long)eff.reserved[0],
		     (unsigned long long)eff.reserved[1], verdict ? strerror(verdict) : "");
	/* Heads only grow: a release past the head now was past it then. */
	if (!ret && mapped_consumed(s->file, eff.cpu, &consumed, &head) && eff.consumed > head)
		fail("CONSUME released CPU %u up to %llu, past the head at %llu", eff.cpu,
		     (unsigned long long)eff.consumed, (unsigned long long)head);
	slot_put(s);
}

static bool symbol_valid(const char *sym)
{
	size_t len = strnlen(sym, KTRACE_PROBE_SYMBOL_LEN);

	if (!len || len == KTRACE_PROBE_SYMBOL_LEN)
		return false;
	for (; *sym; sym++)
		if (!(*sym >= 'a' && *sym <= 'z') && !(*sym >= 'A' && *sym <= 'Z') &&
		    !(*sym >= '0' && *sym <= '9') && *sym != '_' && *sym != '.')
			return false;
	return true;
}

static void do_add_probe(struct thread *t)
{
	struct ktrace_probe pr = { 0 }, eff;
	struct slot *s = slot_get(t);
	int verdict, ret, err;
	void *p;

	if (!s)
		return;
	pr.type = chance(t, 8) ? rnd(t) : below(t, 2);
	switch (below(t, 6)) {
	case 0:
		fill(t, pr.symbol, sizeof(pr.symbol));
		break;
	case 1:
		memset(pr.symbol, 'a', sizeof(pr.symbol));	/* no NUL */
		break;
	case 2:
		break;						/* empty */
	default:
		snprintf(pr.symbol, sizeof(pr.symbol), "%s",
			 probe_symbols[below(t, sizeof(probe_symbols) / sizeof(*probe_symbols))]);
	}
	if (chance(t, 8))
		pr.reserved[below(t, 2)] = rnd(t);
	p = arg_struct(t, &pr, sizeof(pr), &eff, &verdict);
	ret = ioctl(s->fd, KTRACE_IOC_ADD_PROBE, p);
	err = errno;
	account(K_ADD_PROBE, ret, err);
	if (!ret && (verdict || eff.type > KTRACE_PROBE_DURATION || eff.reserved[0] ||
		     eff.reserved[1] || !symbol_valid(eff.symbol)))
		fail("ADD_PROBE accepted type %u symbol %.40s (%s)", eff.type, eff.symbol,
		     verdict ? strerror(verdict) : "invalid");
	slot_put(s);
}

/* ioctl numbers one step away from the real ones: each must give ENOTTY. */
static void do_near_miss(struct thread *t)
{
	static const unsigned long real[] = {
		KTRACE_IOC_ABI_VERSION, KTRACE_IOC_CONFIGURE, KTRACE_IOC_GEOMETRY,
		KTRACE_IOC_START, KTRACE_IOC_STOP, KTRACE_IOC_FLUSH, KTRACE_IOC_CONSUME,
		KTRACE_IOC_STATS, KTRACE_IOC_ADD_PROBE, KTRACE_IOC_REARM,
	};
	unsigned int nreal = sizeof(real) / sizeof(*real);
	unsigned long cmd = real[below(t, nreal)];
	struct slot *s = slot_get(t);
	bool is_real = false;
	void *arg;
	int ret;

	if (!s)
		return;
	switch (below(t, 4)) {
	case 0:	/* direction */
		cmd = (cmd & ~(_IOC_DIRMASK << _IOC_DIRSHIFT)) |
		      ((unsigned long)below(t, 4) << _IOC_DIRSHIFT);
		break;
	case 1:	/* size */
		cmd = (cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		      ((unsigned long)below(t, _IOC_SIZEMASK + 1) << _IOC_SIZESHIFT);
		break;
	case 2:	/* number */
		cmd = (cmd & ~(_IOC_NRMASK << _IOC_NRSHIFT)) |
		      ((unsigned long)below(t, 256) << _IOC_NRSHIFT);
		break;
	default:	/* a bit flipped anywhere */
		cmd ^= 1UL << below(t, 32);
	}
	for (unsigned int i = 0; i < nreal; i++)
		is_real |= cmd == real[i];
	if (is_real) {
		slot_put(s);
		return;
	}
	fill(t, t->arg, 64);
	arg = chance(t, 4) ? (void *)(uintptr_t)rnd(t) : t->arg;
	describe(t, "cmd %#lx", cmd);
	ret = ioctl(s->fd, cmd, arg);
	account(K_NEAR_MISS, ret, errno);
	/* Only the magic's own numbers reach the module; others may be the VFS's. */
	if (_IOC_TYPE(cmd) == KTRACE_IOC_MAGIC && (ret != -1 || errno != ENOTTY))
		fail("near-miss ioctl %#lx gave %d (%s), not ENOTTY", cmd, ret, strerror(errno));
	slot_put(s);
}

/*
 * Random numbers, with the VFS's own commands (FIONBIO, FIOCLEX, ...) left
 * out: they act on the fd, not on the module.
 */
static void do_random_ioctl(struct thread *t)
{
	struct slot *s = slot_get(t);
	unsigned long cmd;
	int ret;

	if (!s)
		return;
	do
		cmd = (uint32_t)rnd(t);
	while (_IOC_TYPE(cmd) == 'T' || _IOC_TYPE(cmd) == 'f' || _IOC_TYPE(cmd) == 'X' ||
	       _IOC_TYPE(cmd) == 0x94 || _IOC_TYPE(cmd) == 0x15 || _IOC_TYPE(cmd) == 0);
	fill(t, t->arg, 256);
	describe(t, "cmd %#lx", cmd);
	ret = ioctl(s->fd, cmd, chance(t, 2) ? t->arg : (void *)(uintptr_t)rnd(t));
	account(K_RANDOM_IOCTL, ret, errno);
	if (_IOC_TYPE(cmd) == KTRACE_IOC_MAGIC && _IOC_NR(cmd) > 8 && cmd != KTRACE_IOC_REARM &&
	    ret != -1)
		fail("unknown ioctl %#lx succeeded", cmd);
	slot_put(s);
}

/* ---- mappings ---------------------------------------------------------- */

static void do_mmap(struct thread *t)
{
	static const int prots[] = {
		PROT_READ, PROT_READ, PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE,
		PROT_READ | PROT_EXEC, PROT_NONE, PROT_READ | PROT_WRITE | PROT_EXEC,
	};
	struct slot *s = slot_get(t);
	long page = sysconf(_SC_PAGESIZE);
	uint64_t stride, off;
	unsigned int cpu, ncpu;
	int prot = prots[below(t, 8)], flags = chance(t, 4) ? MAP_PRIVATE : MAP_SHARED;
	bool whole = false, have_geo;
	struct ktrace_geometry g;
	size_t len;
	void *addr;

	if (!s)
		return;
	have_geo = slot_geo(s, &g);
	stride = have_geo ? g.cpu_stride : (uint64_t)page * (1 + (1ULL << below(t, 12)));
	ncpu = have_geo ? g.nr_cpus : 2;
	cpu = below(t, ncpu + 1);
	switch (below(t, 8)) {
	case 0:
		off = (uint64_t)page * below(t, 4096);
		len = page * (1 + below(t, 2048));
		break;
	case 1:
		off = cpu * stride + below(t, page);	/* unaligned: mmap() refuses */
		len = stride;
		break;
	case 2:
		off = cpu * stride;
		len = stride + page * (below(t, 5) - 2);
		break;
	case 3:
		off = rnd(t) & ~(uint64_t)(page - 1);
		len = chance(t, 2) ? stride : (size_t)(rnd(t) >> below(t, 64));
		break;
	default:
		off = cpu * stride;
		len = stride;
	}
	/* The one kind of mapping the module allows: a CPU's meta page and buffer. */
	whole = have_geo && off % stride == 0 && off / stride < ncpu && len == stride;
	if (whole)
		cpu = off / stride;
	describe(t, "cpu %u off %#llx len %#zx prot %#x %s", cpu, (unsigned long long)off, len,
		 prot, flags == MAP_SHARED ? "shared" : "private");
	pthread_rwlock_wrlock(&maps_lock);
	addr = mmap(NULL, len, prot, flags, s->fd, off);
	account(K_MMAP, addr == MAP_FAILED ? -1 : 0, errno);
	if (addr != MAP_FAILED) {
		if (prot & PROT_WRITE)
			fail("a writable mapping was allowed");
		if (have_geo && !whole)
			fail("a mapping that is not one CPU's buffer was allowed");
		if (nr_maps == MAX_MAPS) {
			munmap(addr, len);
		} else {
			maps[nr_maps++] = (struct mapping){ .addr = addr, .len = len, .prot = prot,
							    .file = s->file, .cpu = cpu,
							    .whole = whole };
		}
	}
	pthread_rwlock_unlock(&maps_lock);
	slot_put(s);
}

static void on_fault(int sig)
{
	if (touching)
		siglongjmp(touch_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Reads random words of a mapping; a fault there is a failure. */
static void do_touch(struct thread *t)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile uint64_t sum = 0;
	struct mapping *m;
	int sig;

	pthread_rwlock_rdlock(&maps_lock);
	if (!nr_maps)
		goto out;
	m = &maps[below(t, nr_maps)];
	if (!(m->prot & PROT_READ))
		goto out;
	describe(t, "%p len %#zx", m->addr, m->len);
	sig = sigsetjmp(touch_jmp, 1);
	if (sig) {
		touching = 0;
		account(K_TOUCH, -1, EFAULT);
		fail("signal %d touching a read-only mapping", sig);
		goto out;
	}
	touching = 1;
	for (unsigned int i = 0; i < 8; i++) {
		size_t off = below(t, m->len / 8) * 8;

		sum += *(volatile uint64_t *)((char *)m->addr + off);
		sum += *(volatile uint64_t *)((char *)m->addr + (off & ~(size_t)(page - 1)));
	}
	touching = 0;
	account(K_TOUCH, 0, 0);
out:
	pthread_rwlock_unlock(&maps_lock);
}

static void drop_map_locked(unsigned int i)
{
	maps[i] = maps[--nr_maps];
}

static void do_mprotect(struct thread *t)
{
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_WRITE, PROT_READ, PROT_NONE, PROT_READ | PROT_EXEC,
	};
	int prot = prots[below(t, 5)], ret;
	struct mapping *m;

	pthread_rwlock_wrlock(&maps_lock);
	if (nr_maps) {
		m = &maps[below(t, nr_maps)];
		describe(t, "%p len %#zx prot %#x", m->addr, m->len, prot);
		ret = mprotect(m->addr, m->len, prot);
		account(K_MPROTECT, ret, errno);
		if (!ret && (prot & PROT_WRITE))
			fail("mprotect() made a buffer mapping writable");
		if (!ret)
			m->prot = prot;
	}
	pthread_rwlock_unlock(&maps_lock);
}

/* Growing a mapping must fail (VM_DONTEXPAND); shrinking is allowed. */
static void do_mremap(struct thread *t)
{
	long page = sysconf(_SC_PAGESIZE);
	struct mapping *m;
	size_t len;
	void *addr;

	pthread_rwlock_wrlock(&maps_lock);
	if (nr_maps) {
		m = &maps[below(t, nr_maps)];
		len = chance(t, 2) || m->len <= (size_t)page ? m->len + page * (1 + below(t, 4)) :
							      m->len - page;
		describe(t, "%p len %#zx to %#zx", m->addr, m->len, len);
		addr = mremap(m->addr, m->len, len, chance(t, 2) ? MREMAP_MAYMOVE : 0);
		account(K_MREMAP, addr == MAP_FAILED ? -1 : 0, errno);
		if (addr != MAP_FAILED) {
			if (len > m->len)
				fail("mremap() grew a buffer mapping");
			m->addr = addr;
			m->len = len;
			m->whole = false;
		}
	}
	pthread_rwlock_unlock(&maps_lock);
}

static void do_munmap(struct thread *t)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned int i;
	struct mapping *m;
	size_t cut;
	int ret;

	pthread_mutex_lock(&fd_lock);
	pthread_rwlock_wrlock(&maps_lock);
	if (nr_maps) {
		i = below(t, nr_maps);
		m = &maps[i];
		cut = chance(t, 4) && m->len > (size_t)page ? page * (1 + below(t, m->len / page - 1)) : 0;
		describe(t, "%p len %#zx%s", m->addr, m->len, cut ? " (the tail)" : "");
		if (cut) {
			ret = munmap((char *)m->addr + m->len - cut, cut);
			if (!ret) {
				m->len -= cut;
				m->whole = false;
			}
		} else {
			ret = munmap(m->addr, m->len);
			if (!ret)
				drop_map_locked(i);
		}
		account(K_MUNMAP, ret, errno);
		if (ret)
			fail("munmap(): %s", strerror(errno));
	}
	pthread_rwlock_unlock(&maps_lock);
	pthread_mutex_unlock(&fd_lock);
}

/* ---- poll, read, write, marks -------------------------------------------- */

static void do_poll(struct thread *t)
{
	struct slot *s = slot_get(t);
	struct pollfd p = { 0 };
	int ret;

	if (!s)
		return;
	p.fd = s->fd;
	p.events = chance(t, 4) ? (short)rnd(t) : POLLIN;
	describe(t, "events %#x", p.events);
	ret = poll(&p, 1, chance(t, 8) ? 5 : 0);
	account(K_POLL, ret, errno);
	if (ret > 0 && (p.revents & ~(POLLIN | POLLRDNORM | POLLHUP)))
		fail("poll: revents %#x", p.revents);
	slot_put(s);
}

/* /dev/ktrace has no read or write, and no seek. */
static void do_read_write(struct thread *t)
{
	struct slot *s = slot_get(t);
	long ret;

	if (!s)
		return;
	switch (below(t, 3)) {
	case 0:
		describe(t, "read");
		ret = read(s->fd, t->arg, below(t, ARG_AREA));
		break;
	case 1:
		describe(t, "write");
		ret = write(s->fd, t->arg, below(t, ARG_AREA));
		break;
	default:
		describe(t, "lseek");
		ret = lseek(s->fd, rnd(t) >> 1, SEEK_SET);
	}
	account(K_READ_WRITE, ret, errno);
	if (ret >= 0)
		fail("%s on %s succeeded", t->desc, KTRACE_DEVICE);
	slot_put(s);
}

static void do_mark_reopen(struct thread *t)
{
	int fd;

	pthread_rwlock_wrlock(&mark_fd_lock);
	if (mark_fd >= 0)
		close(mark_fd);
	mark_fd = -1;
	if (!chance(t, 3)) {
		describe(t, "open");
		fd = open(KTRACE_MARK_DEVICE, chance(t, 4) ? O_RDWR : O_WRONLY);
		account(K_MARK_REOPEN, fd, errno);
		mark_fd = fd;
	}
	pthread_rwlock_unlock(&mark_fd_lock);
}

static void do_mark(struct thread *t)
{
	struct ktrace_mark m = { .size = sizeof(m) };
	size_t count, real;
	bool valid, bad = false;
	unsigned char *p = t->arg;
	int fd, own = -1;
	long ret;

	pthread_rwlock_rdlock(&mark_fd_lock);
	fd = mark_fd;
	if (fd < 0 || chance(t, 16)) {
		own = open(KTRACE_MARK_DEVICE, O_WRONLY);
		fd = own;
	}
	if (fd < 0)
		goto out;
	m.type = chance(t, 8) ? rnd(t) : below(t, 4);
	m.value = rnd(t);
	m.cat_len = chance(t, 8) ? rnd(t) >> below(t, 32) : below(t, KTRACE_MARK_MAX_LEN + 2);
	m.name_len = chance(t, 8) ? rnd(t) >> below(t, 32) : below(t, KTRACE_MARK_MAX_LEN + 2);
	if (chance(t, 8))
		m.size = pick_usize(t, sizeof(m));
	if (chance(t, 12))
		m.reserved[below(t, 2)] = rnd(t);
	real = sizeof(m) + (size_t)m.cat_len + m.name_len;
	switch (below(t, 8)) {
	case 0:
		count = below(t, ARG_AREA);
		break;
	case 1:
		count = real + below(t, 3) - 1;
		break;
	default:
		count = real;
	}
	if (count > ARG_AREA)
		count = ARG_AREA;
	memcpy(p, &m, sizeof(m));
	fill(t, p + sizeof(m), count > sizeof(m) ? count - sizeof(m) : 0);
	switch (below(t, 16)) {
	case 0:
		p = NULL;
		bad = true;
		break;
	case 1:
		/* Up against the guard page: the strings fault if count lies. */
		memmove(t->arg + ARG_AREA - count, p, count);
		p = t->arg + ARG_AREA - count;
		break;
	}
	valid = !bad && m.size == sizeof(m) && m.type <= KTRACE_MARK_COUNTER && m.name_len &&
		m.cat_len <= KTRACE_MARK_MAX_LEN && m.name_len <= KTRACE_MARK_MAX_LEN &&
		count == real && !m.reserved[0] && !m.reserved[1];
	describe(t, "type %u cat %u name %u size %u count %zu%s", m.type, m.cat_len, m.name_len,
		 m.size, count, bad ? " bad address" : "");
	ret = write(fd, p, count);
	account(K_MARK, ret, errno);
	if (ret >= 0 && !valid)
		fail("an invalid mark was accepted");
	else if (ret >= 0 && (size_t)ret != count)
		fail("mark write returned %ld for %zu bytes", ret, count);
	else if (ret < 0 && valid)
		fail("a valid mark was refused: %s", strerror(errno));
out:
	if (own >= 0)
		close(own);
	pthread_rwlock_unlock(&mark_fd_lock);
}

/* ---- regressions: fixed sequences for bugs the fuzzer found ---------------- */

static bool pin_cpu(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !sched_setaffinity(0, sizeof(set), &set);
}

static void write_marks(int fd, unsigned int n)
{
	struct {
		struct ktrace_mark m;
		char text[8];
	} mark = { .m = { .size = sizeof(mark.m), .cat_len = 4, .name_len = 4 } };

	memcpy(mark.text, "testmark", 8);
	for (unsigned int i = 0; i < n; i++)
		if (write(fd, &mark, sizeof(mark)) != sizeof(mark))
			break;
}

/*
 * consume-past-head: CONSUME took any position up to the head rounded up
 * to a sub-buffer, so a reader could release the sub-buffer writers were
 * still filling, past the head.  In stream mode the room check (new head
 * minus consumed, unsigned) then wrapped, and every later record on that
 * CPU was refused and counted lost.  The fuzzer found it as "CONSUME
 * released CPU n up to X, past the head at Y" (--seed 1 --seconds 30, in
 * do_consume()'s releases of a sub-buffer past the mapped consumed
 * position, eight times in the first 6000 calls of each thread).
 * Returns 0 if the module refuses such a release, 1 if not, -1 if the
 * sequence could not be set up.
 */
static int regress_consume_past_head(void)
{
	struct ktrace_config cfg = { .size = sizeof(cfg), .buffer_size = 16384,
				     .subbuf_size = 4096 };
	struct ktrace_geometry geo = { .size = sizeof(geo) };
	struct ktrace_consume con = { .size = sizeof(con), .cpu = 0 };
	volatile struct ktrace_meta *meta = MAP_FAILED;
	uint64_t head, lost, sub = cfg.subbuf_size;
	int fd, mfd, ret = -1;

	fd = open(KTRACE_DEVICE, O_RDWR | O_CLOEXEC);
	mfd = open(KTRACE_MARK_DEVICE, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || mfd < 0 || !pin_cpu(0) || ioctl(fd, KTRACE_IOC_CONFIGURE, &cfg) ||
	    ioctl(fd, KTRACE_IOC_GEOMETRY, &geo)) {
		printf("REGRESSION consume-past-head: SKIP setting up: %s\n", strerror(errno));
		goto out;
	}
	meta = mmap(NULL, geo.cpu_stride, PROT_READ, MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED || ioctl(fd, KTRACE_IOC_START)) {
		printf("REGRESSION consume-past-head: SKIP mapping or starting: %s\n", strerror(errno));
		goto out;
	}
	/* A head inside a sub-buffer, and a release to that sub-buffer's end. */
	for (unsigned int try = 0; try < 100 && ret < 0; try++) {
		write_marks(mfd, 1);
		head = meta->head;
		if (!(head % sub)) {
			/* Room for more: release what is written, as a reader does. */
			con.consumed = head;
			ioctl(fd, KTRACE_IOC_CONSUME, &con);
			continue;
		}
		con.consumed = (head + sub - 1) / sub * sub;
		if (ioctl(fd, KTRACE_IOC_CONSUME, &con)) {
			ret = errno == EINVAL ? 0 : -1;
			if (ret)
				printf("REGRESSION consume-past-head: SKIP CONSUME: %s\n", strerror(errno));
			else
				printf("REGRESSION consume-past-head: ok: CONSUME to %llu with the head at %llu is refused (EINVAL)\n",
				       (unsigned long long)con.consumed, (unsigned long long)head);
		} else if (con.consumed > meta->head) {
			head = meta->head;
			lost = meta->lost;
			write_marks(mfd, 20);
			printf("REGRESSION consume-past-head: FAIL: CONSUME to %llu accepted with the head at %llu; then 20 marks: head %llu -> %llu, lost %llu -> %llu\n",
			       (unsigned long long)con.consumed, (unsigned long long)head,
			       (unsigned long long)head, (unsigned long long)meta->head,
			       (unsigned long long)lost, (unsigned long long)meta->lost);
			ret = 1;
		}
		/* Else the writers passed the boundary meanwhile: try again. */
	}
	if (ret < 0)
		printf("REGRESSION consume-past-head: SKIP no head inside a sub-buffer in 100 tries\n");
	ioctl(fd, KTRACE_IOC_STOP);
out:
	if (meta != MAP_FAILED)
		munmap((void *)meta, geo.cpu_stride);
	if (fd >= 0)
		close(fd);
	if (mfd >= 0)
		close(mfd);
	return ret;
}

/* Runs every regression sequence; returns the number that failed. */
static int regressions(void)
{
	cpu_set_t all;
	int failed = 0;

	sched_getaffinity(0, sizeof(all), &all);
	failed += regress_consume_past_head() > 0;
	sched_setaffinity(0, sizeof(all), &all);
	return failed;
}

/* ---- the threads --------------------------------------------------------- */

static unsigned int weight_sum;

static enum kind pick_kind(struct thread *t)
{
	unsigned int r = below(t, weight_sum);

	for (unsigned int k = 0; k < NR_KINDS; k++) {
		if (r < kind_weight[k])
			return k;
		r -= kind_weight[k];
	}
	return K_ABI;
}

static bool time_is_up(void)
{
	return max_seconds > 0 && elapsed() >= max_seconds;
}

static void *run(void *arg)
{
	struct thread *t = arg;

	self = t;
	while (atomic_load(&total_calls) < max_calls) {
		enum kind k = pick_kind(t);
		double t0 = elapsed();

		t->n++;
		t->desc[0] = 0;
		if ((t->n & 63) == 0 && time_is_up())
			break;
		switch (k) {
		case K_OPEN:		do_open(t); break;
		case K_DUP:		do_dup(t); break;
		case K_CLOSE:		do_close(t); break;
		case K_ABI:
		case K_START:
		case K_STOP:
		case K_FLUSH:
		case K_REARM:		do_noarg(t, k); break;
		case K_CONFIGURE:	do_configure(t); break;
		case K_GEOMETRY:	do_geometry(t); break;
		case K_CONSUME:		do_consume(t); break;
		case K_STATS:		do_stats(t); break;
		case K_ADD_PROBE:	do_add_probe(t); break;
		case K_NEAR_MISS:	do_near_miss(t); break;
		case K_RANDOM_IOCTL:	do_random_ioctl(t); break;
		case K_MMAP:		do_mmap(t); break;
		case K_MPROTECT:	do_mprotect(t); break;
		case K_MREMAP:		do_mremap(t); break;
		case K_MUNMAP:		do_munmap(t); break;
		case K_TOUCH:		do_touch(t); break;
		case K_POLL:		do_poll(t); break;
		case K_READ_WRITE:	do_read_write(t); break;
		case K_MARK:		do_mark(t); break;
		case K_MARK_REOPEN:	do_mark_reopen(t); break;
		default:		break;
		}
		atomic_fetch_add(&kind_ns[k], (unsigned long)((elapsed() - t0) * 1e9));
	}
	return NULL;
}

/* Leaves the device free: every mapping unmapped, every fd closed. */
static void teardown(void)
{
	for (unsigned int i = 0; i < nr_maps; i++)
		munmap(maps[i].addr, maps[i].len);
	nr_maps = 0;
	for (unsigned int i = 0; i < NR_SLOTS; i++)
		if (slots[i].fd >= 0)
			close(slots[i].fd);
	if (mark_fd >= 0)
		close(mark_fd);
}

static void summary(double secs)
{
	unsigned long all = 0, ok = 0, per_errno[MAX_ERRNO] = { 0 };

	for (unsigned int k = 0; k < NR_KINDS; k++) {
		all += calls[k];
		ok += succeeded[k];
	}
	printf("fuzz_kmod: seed %llu, %u threads: %lu calls in %.1f s (%.0f calls/s), %lu succeeded, %lu failures\n",
	       (unsigned long long)seed, nr_threads, all, secs, secs > 0 ? all / secs : 0.0, ok,
	       (unsigned long)failures);
	printf("%-20s %10s %10s %9s  %s\n", "kind", "calls", "ok", "us/call", "errors (errno: count)");
	for (unsigned int k = 0; k < NR_KINDS; k++) {
		printf("%-20s %10lu %10lu %9.0f ", kind_name[k], (unsigned long)calls[k],
		       (unsigned long)succeeded[k], calls[k] ? kind_ns[k] / 1e3 / calls[k] : 0.0);
		for (unsigned int e = 1; e < MAX_ERRNO; e++) {
			if (!errnos[k][e])
				continue;
			printf(" %s:%lu", strerrorname_np(e) ?: "?", (unsigned long)errnos[k][e]);
			per_errno[e] += errnos[k][e];
		}
		putchar('\n');
	}
	printf("errno histogram:");
	for (unsigned int e = 1; e < MAX_ERRNO; e++)
		if (per_errno[e])
			printf(" %s:%lu", strerrorname_np(e) ?: "?", per_errno[e]);
	printf("\nFUZZ-SUMMARY calls=%lu seconds=%.1f failures=%lu\n", all, secs,
	       (unsigned long)failures);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fuzz_kmod [--seed N] [--calls N] [--seconds S] [--threads T]\n"
		"                 [--max-buffer BYTES] [--log]\n"
		"       fuzz_kmod --regressions\n"
		"Fuzzes /dev/ktrace and /dev/ktrace-mark (ktrace.ko loaded, as root).\n"
		"Stops after --calls calls (default 100000) or --seconds seconds, whichever\n"
		"comes first; --log prints every call.  Exit status 1 if any call gave a\n"
		"wrong result.\n\nEXAMPLES\n"
		"  fuzz_kmod --seed 7 --seconds 30\n"
		"  fuzz_kmod --seed 7 --threads 1 --calls 5000 --log   # a reproducible sequence\n"
		"  fuzz_kmod --regressions   # the fixed sequences of bugs found before\n");
}

static bool parse_num(const char *opt, const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	if (errno || end == s || *end) {
		fprintf(stderr, "fuzz_kmod: %s: '%s' is not a number\n", opt, s);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "calls", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 'd' },
		{ "threads", required_argument, NULL, 't' },
		{ "max-buffer", required_argument, NULL, 'b' },
		{ "log", no_argument, NULL, 'l' },
		{ "regressions", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static struct thread threads[MAX_THREADS];
	struct sigaction sa = { .sa_handler = on_fault };
	pthread_rwlockattr_t writer_first;
	bool calls_given = false, regress_only = false;
	unsigned long v;
	int c;

	while ((c = getopt_long(argc, argv, "s:n:d:t:b:lrh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!parse_num("--seed", optarg, &v))
				return 2;
			seed = v;
			break;
		case 'n':
			if (!parse_num("--calls", optarg, &max_calls))
				return 2;
			calls_given = true;
			break;
		case 'd':
			if (!parse_num("--seconds", optarg, &v))
				return 2;
			max_seconds = v;
			break;
		case 't':
			if (!parse_num("--threads", optarg, &v))
				return 2;
			if (!v || v > MAX_THREADS) {
				fprintf(stderr, "fuzz_kmod: --threads: 1 to %d\n", MAX_THREADS);
				return 2;
			}
			nr_threads = v;
			break;
		case 'b':
			if (!parse_num("--max-buffer", optarg, &max_buffer))
				return 2;
			break;
		case 'l':
			log_calls = true;
			break;
		case 'r':
			regress_only = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fuzz_kmod: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (regress_only)
		return access(KTRACE_DEVICE, F_OK) ? 2 : regressions() ? 1 : 0;
	if (max_seconds > 0 && !calls_given)
		max_calls = ~0UL;
	if (access(KTRACE_DEVICE, F_OK)) {
		fprintf(stderr, "fuzz_kmod: %s: %s (load ktrace.ko first)\n", KTRACE_DEVICE,
			strerror(errno));
		return 2;
	}
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Closes and unmaps must not starve behind a stream of shared holders. */
	pthread_rwlockattr_init(&writer_first);
	pthread_rwlockattr_setkind_np(&writer_first, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	for (unsigned int i = 0; i < NR_SLOTS; i++) {
		pthread_rwlock_init(&slots[i].lock, &writer_first);
		slots[i].fd = -1;
	}
	pthread_rwlock_init(&maps_lock, &writer_first);
	pthread_rwlock_init(&mark_fd_lock, &writer_first);
	for (unsigned int k = 0; k < NR_KINDS; k++)
		weight_sum += kind_weight[k];
	setvbuf(stdout, NULL, _IOLBF, 0);
	clock_gettime(CLOCK_MONOTONIC, &t_start);
	for (unsigned int i = 0; i < nr_threads; i++) {
		struct thread *t = &threads[i];

		t->id = i;
		t->rng = seed * 0x2545f4914f6cdd1dULL + i + 1;
		t->arg = mmap(NULL, ARG_AREA + 4096, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t->arg == MAP_FAILED || mprotect(t->arg + ARG_AREA, 4096, PROT_NONE)) {
			perror("fuzz_kmod: argument area");
			return 2;
		}
		if (nr_threads == 1) {
			run(t);
		} else if (pthread_create(&t->tid, NULL, run, t)) {
			fprintf(stderr, "fuzz_kmod: cannot start thread %u\n", i);
			return 2;
		}
	}
	for (unsigned int i = 0; i < nr_threads && nr_threads > 1; i++)
		pthread_join(threads[i].tid, NULL);
	teardown();
	summary(elapsed());
	return failures ? 1 : 0;
}
