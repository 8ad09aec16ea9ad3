// SPDX-License-Identifier: GPL-2.0
/*
 * Names of every process and thread alive at the start, from /proc, the
 * allowed CPUs of each thread that may not run on every CPU, and each
 * thread's cgroup (v2).
 */
#include <ctype.h>
#include <sched.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

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

/*
 * @tid's allowed CPUs 0..63 when it may not run on all @ncpus, else 0: the
 * wakeup records carry the same ("cpus"), for threads woken later.
 */
static uint64_t restricted_cpus(pid_t tid, long ncpus)
{
	uint64_t mask = 0;
	cpu_set_t set;

	if (sched_getaffinity(tid, sizeof(set), &set) || CPU_COUNT(&set) >= ncpus)
		return 0;
	for (int i = 0; i < 64 && i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			mask |= 1ULL << i;
	return mask;
}

/* @tid's cgroup v2 path ("/system.slice/x.service") into @buf; false if none. */
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
	return found;
}

/*
 * A thread record from the recorders' encoder; with a cgroup, written by
 * the archive writer instead (its name interned), with "cgroup" as well.
 */
static void write_thread(struct fxt_writer *w, unsigned long tid, unsigned long pid,
			 const char *comm, size_t len, long ncpus)
{
	__u64 rec[KTRACE_FXT_KOBJ_THREAD_MAX_WORDS];
	uint64_t cpus = restricted_cpus(tid, ncpus);
	char cgroup[512], name[KTRACE_FXT_COMM_LEN + 1];
	struct fxt_arg args[3];
	unsigned int n = 0;

	if (!read_cgroup(pid, tid, cgroup, sizeof(cgroup))) {
		fxt_write_words(w, rec, ktrace_fxt_put_kobj_thread(rec, tid, pid, comm, len, cpus, 0));
		return;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(len < KTRACE_FXT_COMM_LEN ? len :
						   KTRACE_FXT_COMM_LEN), comm);
	args[n++] = fxt_arg_int(KTRACE_FXT_ARG_KOID, "process", pid);
	if (cpus)
		args[n++] = fxt_arg_int(KTRACE_FXT_ARG_UINT64, "cpus", cpus);
	args[n++] = fxt_arg_str("cgroup", cgroup);
	fxt_write_kobj(w, KTRACE_FXT_OBJ_THREAD, tid, name, args, n);
}

int statedump_write(struct fxt_writer *w, uint64_t *threads)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	__u64 rec[KTRACE_FXT_KOBJ_THREAD_MAX_WORDS];
	DIR *proc = opendir("/proc");
	struct dirent *pe, *te;
	char path[64], comm[64];

	*threads = 0;
	if (!proc)
		return -errno;
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
		fxt_write_words(w, rec, ktrace_fxt_put_kobj_process(rec, pid, comm, len, 0));
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
			write_thread(w, tid, pid, comm, len, ncpus);
			(*threads)++;
		}
		closedir(task);
	}
	closedir(proc);
	return 0;
}
