// SPDX-License-Identifier: GPL-2.0
/* Names of every process and thread alive at the start, from /proc. */
#include <ctype.h>
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

int statedump_write(struct fxt_writer *w, uint64_t *threads)
{
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
		fxt_write_words(w, rec, ktrace_fxt_put_kobj_process(rec, pid, comm, len));
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
			fxt_write_words(w, rec, ktrace_fxt_put_kobj_thread(rec, tid, pid, comm, len));
			(*threads)++;
		}
		closedir(task);
	}
	closedir(proc);
	return 0;
}
