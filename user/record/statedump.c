// SPDX-License-Identifier: GPL-2.0
/*
 * Names of every process and thread alive at the start, from /proc, the
 * allowed CPUs of each thread that may not run on every CPU, and each
 * thread's (and process's) cgroup (v2): its path and id.
 */
#include <ctype.h>
#include <sched.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record.h"

/* Reads /proc/PID[/task/TID]/comm; returns its length, 0 if it is gone. */
static size_t read_comm(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return 0;
	if (buf[n - 1] == '\n')
		n--;
	buf[n] = 0;
	return n;
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* What the dump reads once: the CPUs, where cgroup v2 is, the latest cgroup's id. */
struct statedump {
	long ncpus;
	uint32_t mask_words;		/* of an allowed-CPU mask, at most 64 */
	cpu_set_t *set;			/* for ncpus */
	size_t set_size;
	char *cgroup_root;		/* NULL: cgroup v2 is not mounted */
	char last_path[512];
	uint64_t last_id;
};

/* @tid's cgroup v2 path ("/system.slice/x.service") into @buf; false if it is gone. */
static bool read_cgroup(unsigned long pid, unsigned long tid, char *buf, size_t size)
{
	char path[64], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%lu/task/%lu/cgroup", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	/* The unified hierarchy's line is "0::PATH". */
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(buf, size, "%s", line + 3);
		found = true;
	}
	fclose(f);
	/*
	 * No such line: the unified hierarchy was never mounted (the kernel
	 * shows it only once it has been), so nobody can have moved a task
	 * from its root.
	 */
	if (!found)
		snprintf(buf, size, "/");
	return true;
}

/* The id of cgroup @path (as /proc gives it), 0 if it cannot be had. */
static uint64_t cgroup_id_of(struct statedump *sd, const char *path)
{
	char dir[PATH_MAX];

	if (!strcmp(path, sd->last_path))
		return sd->last_id;	/* a process's threads share theirs, mostly */
	snprintf(sd->last_path, sizeof(sd->last_path), "%s", path);
	sd->last_id = 0;
	if (!strcmp(path, "/"))
		sd->last_id = 1;
	else if (sd->cgroup_root &&
		 snprintf(dir, sizeof(dir), "%s%s", sd->cgroup_root, path) < (int)sizeof(dir))
		sd->last_id = cgroup_dir_id(dir);
	return sd->last_id;
}

/*
 * @tid's allowed CPUs into @mask (sd->mask_words words) when it may not
 * run on every CPU: false when it may, or is gone.  The wakeup records
 * carry the same ("cpus", and above CPU 63 "cpus1" ...), for threads woken
 * later.
 */
static bool restricted_mask(struct statedump *sd, pid_t tid, __u64 *mask)
{
	if (sched_getaffinity(tid, sd->set_size, sd->set) ||
	    CPU_COUNT_S(sd->set_size, sd->set) >= sd->ncpus)
		return false;
	memset(mask, 0, sd->mask_words * sizeof(*mask));
	for (uint32_t i = 0; i < sd->mask_words * 64; i++)
		if (CPU_ISSET_S(i, sd->set_size, sd->set))
			mask[i / 64] |= 1ULL << (i % 64);
	return true;
}

/*
 * A thread (@tid) or process (@tid 0) record, from the recorders' encoders;
 * with a cgroup, written by the archive writer instead (its name interned),
 * with "cgroup_id" and "cgroup" (its path), as a process its main thread's.
 */
static void write_kobj(struct fxt_writer *w, struct statedump *sd, unsigned long tid,
		       unsigned long pid, const char *comm, size_t len)
{
	__u64 rec[KTRACE_FXT_KOBJ_THREAD_WIDE_MAX_WORDS], mask[KTRACE_FXT_CPUS_MAX_WORDS];
	__u64 raw[2 + KTRACE_FXT_CPUS_EXTRA_MAX_WORDS];
	bool restricted = tid && restricted_mask(sd, tid, mask);
	bool wide = restricted && sd->ncpus > 64;
	uint64_t cpus = restricted && !wide ? mask[0] : 0, id;
	char cgroup[512], name[KTRACE_FXT_COMM_LEN + 1];
	uint32_t nraw = 0, raw_words = 0;
	struct fxt_arg args[4];
	unsigned int n = 0;

	if (!read_cgroup(pid, tid ?: pid, cgroup, sizeof(cgroup))) {
		fxt_write_words(w, rec, !tid ? ktrace_fxt_put_kobj_process(rec, pid, comm, len, 0) :
				wide ? ktrace_fxt_put_kobj_thread_wide(rec, tid, pid, comm, len,
								       mask, sd->mask_words, 0) :
				ktrace_fxt_put_kobj_thread(rec, tid, pid, comm, len, cpus, 0));
		return;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(len < KTRACE_FXT_COMM_LEN ? len :
						   KTRACE_FXT_COMM_LEN), comm);
	if (tid)
		args[n++] = fxt_arg_int(KTRACE_FXT_ARG_KOID, "process", pid);
	if (cpus)
		args[n++] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "cpus", cpus);
	id = cgroup_id_of(sd, cgroup);
	if (id)
		args[n++] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "cgroup_id", id);
	args[n++] = fxt_arg_str("cgroup", cgroup);
	if (wide) {
		raw_words = ktrace_fxt_put_arg(raw, KTRACE_FXT_ARG_UINT64, KTRACE_FXT_STR_CPUS,
					       mask[0]);
		nraw = 1;
		raw_words += ktrace_fxt_put_cpus_extra(raw + raw_words, mask, sd->mask_words,
						       &nraw);
	}
	fxt_write_kobj_raw(w, tid ? KTRACE_FXT_OBJ_THREAD : KTRACE_FXT_OBJ_PROCESS, tid ?: pid,
			   name, args, n, raw, raw_words, nraw);
}

int statedump_write(struct fxt_writer *w, uint64_t *threads)
{
	struct statedump sd = { .ncpus = sysconf(_SC_NPROCESSORS_CONF) };
	DIR *proc = opendir("/proc");
	struct dirent *pe, *te;
	char path[64], comm[64];

	long set_cpus = sd.ncpus > CPU_SETSIZE ? sd.ncpus : CPU_SETSIZE;

	*threads = 0;
	if (!proc)
		return -errno;
	sd.mask_words = sd.ncpus > 0 ? (sd.ncpus + 63) / 64 : 1;
	if (sd.mask_words > KTRACE_FXT_CPUS_MAX_WORDS)
		sd.mask_words = KTRACE_FXT_CPUS_MAX_WORDS;
	sd.set = CPU_ALLOC(set_cpus);
	if (!sd.set) {
		closedir(proc);
		return -ENOMEM;
	}
	sd.set_size = CPU_ALLOC_SIZE(set_cpus);
	sd.cgroup_root = cgroup2_mount();
	while ((pe = readdir(proc))) {
		unsigned long pid;
		size_t len;
		DIR *task;

		if (!is_number(pe->d_name))
			continue;
		pid = strtoul(pe->d_name, NULL, 10);
		snprintf(path, sizeof(path), "/proc/%lu/comm", pid);
		len = read_comm(path, comm, sizeof(comm));
		if (!len)
			continue;	/* exited meanwhile */
		write_kobj(w, &sd, 0, pid, comm, len);
		snprintf(path, sizeof(path), "/proc/%lu/task", pid);
		task = opendir(path);
		if (!task)
			continue;
		while ((te = readdir(task))) {
			unsigned long tid;

			if (!is_number(te->d_name))
				continue;
			tid = strtoul(te->d_name, NULL, 10);
			snprintf(path, sizeof(path), "/proc/%lu/task/%lu/comm", pid, tid);
			len = read_comm(path, comm, sizeof(comm));
			if (!len)
				continue;
			write_kobj(w, &sd, tid, pid, comm, len);
			(*threads)++;
		}
		closedir(task);
	}
	closedir(proc);
	free(sd.cgroup_root);
	CPU_FREE(sd.set);
	return 0;
}
