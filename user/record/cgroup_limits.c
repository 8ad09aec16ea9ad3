// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU bandwidth limits (cpu.max) of the cgroups that have one, at the
 * start and at the end of a recording, by cgroup id: the recorders give a
 * throttled group by its id only, and the analysis names it by path and
 * limit ("throttled: cgroup /path (cpu.max Q/P)").  The cgroups are those
 * of the hierarchy that has the cpu controller: cgroup v2's, or on hybrid
 * systems cgroup v1's "cpu" one.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/utils.h"
#include "record/record.h"

/* nftw() takes no context: one walk at a time, in the recording's thread. */
static struct cgroup_limits *walking;
static const char *walking_root;
static bool walking_end, walking_v1;

static struct cgroup_limit *limit_of(struct cgroup_limits *cl, uint64_t id)
{
	for (uint32_t i = 0; i < cl->n; i++)
		if (cl->v[i].id == id)
			return &cl->v[i];
	return NULL;
}

/* A file of @dir into @buf, without its newline; false if it cannot be read. */
static bool read_line(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return true;
}

/*
 * A cgroup's limit as cpu.max has it, "QUOTA PERIOD", in @buf; false if it
 * has none.  Under cgroup v1 the same limit is cpu.cfs_quota_us (-1: none)
 * and cpu.cfs_period_us.
 */
static bool read_cpu_max(const char *dir, char *buf, size_t size)
{
	char quota[15], period[15];	/* "QUOTA PERIOD" fits cpu_max_start */

	if (!walking_v1)
		return read_line(dir, "cpu.max", buf, size) && strncmp(buf, "max", 3);
	if (!read_line(dir, "cpu.cfs_quota_us", quota, sizeof(quota)) || quota[0] == '-' ||
	    !read_line(dir, "cpu.cfs_period_us", period, sizeof(period)))
		return false;
	snprintf(buf, size, "%s %s", quota, period);
	return true;
}

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct cgroup_limits *cl = walking;
	struct cgroup_limit *l;
	char max[sizeof(l->cpu_max_start)];
	const char *rel = path + strlen(walking_root);
	uint64_t id;

	(void)st;
	(void)ftw;
	if (flag != FTW_D || !read_cpu_max(path, max, sizeof(max)))
		return 0;
	id = cgroup_dir_id(path);
	l = limit_of(cl, id);
	if (!l) {
		if (cl->n == CGROUP_LIMITS_MAX)
			return 0;
		l = &cl->v[cl->n++];
		memset(l, 0, sizeof(*l));
		l->id = id;
		snprintf(l->path, sizeof(l->path), "%s", *rel ? rel : "/");
		/* Limited only at the end: unlimited (or not there) at the start. */
		strcpy(l->cpu_max_start, walking_end ? "max" : max);
	}
	strcpy(walking_end ? l->cpu_max_end : l->cpu_max_start, max);
	return 0;
}

/* Whether @word is one of @list's words, separated by spaces or commas. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; *p; p += strcspn(p, " ,"), p += strspn(p, " ,"))
		if (!strncmp(p, word, n) && (!p[n] || p[n] == ' ' || p[n] == ','))
			return true;
	return false;
}

/*
 * Where the cpu controller is, which throttles: the cgroup v2 root if it
 * has it, else cgroup v1's "cpu" hierarchy (hybrid systems); NULL if none.
 */
static char *cpu_hierarchy(bool *v1)
{
	char line[4096], *root = NULL, *v2 = NULL;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	while (f && !root && fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX], fstype[64], opts[1024];

		if (!cgroup_mount_parse(line, mnt, fstype, opts))
			continue;
		if (!strcmp(fstype, "cgroup2") && !v2) {
			char ctl[1024];

			if (read_line(mnt, "cgroup.controllers", ctl, sizeof(ctl)) &&
			    has_word(ctl, "cpu"))
				v2 = strdup(mnt);
		} else if (!strcmp(fstype, "cgroup") && has_word(opts, "cpu")) {
			root = strdup(mnt);
			*v1 = true;
		}
	}
	if (f)
		fclose(f);
	if (v2) {
		free(root);
		*v1 = false;
		return v2;
	}
	return root;
}

/*
 * Every cgroup with a CPU limit now, into @cl: at the start, or (@at_end)
 * at the end, where a group limited at the start and no longer is keeps
 * "max".  A cgroup's id is its directory's inode number, as the kernel
 * gives it (kernfs_node.id) and the recorders record it.
 */
void cgroup_limits_read(struct cgroup_limits *cl, bool at_end)
{
	bool v1 = false;
	char *root = cpu_hierarchy(&v1);

	if (!root)
		return;
	if (at_end)
		for (uint32_t i = 0; i < cl->n; i++)
			strcpy(cl->v[i].cpu_max_end, "max");
	cl->v1 = v1;
	walking = cl;
	walking_root = root;
	walking_end = at_end;
	walking_v1 = v1;
	if (nftw(root, visit, 16, FTW_PHYS | FTW_MOUNT))
		pr_warn("cannot read every cgroup's CPU limit under %s: %s", root, strerror(errno));
	walking = NULL;
	free(root);
}

/*
 * One "ktrace:meta" "cgroup_limit" instant per cgroup: its cgroup_id, path,
 * cpu_max (at the start) and cpu_max_end, each "QUOTA PERIOD" in usecs or
 * "max".
 */
void cgroup_limits_write(const struct cgroup_limits *cl, struct fxt_writer *w, uint64_t ts)
{
	for (uint32_t i = 0; cl && i < cl->n; i++) {
		const struct cgroup_limit *l = &cl->v[i];
		struct fxt_arg args[5] = {
			fxt_arg_int(KTRACE_FXT_ARG_UINT64, "cgroup_id", (int64_t)l->id),
			fxt_arg_str("path", l->path),
			fxt_arg_str("cpu_max", l->cpu_max_start),
			fxt_arg_str("cpu_max_end", l->cpu_max_end[0] ? l->cpu_max_end : "?"),
			fxt_arg_str("hierarchy", cl->v1 ? "v1 cpu" : "v2"),
		};

		fxt_write_event(w, KTRACE_FXT_EV_INSTANT, ts, 0, 0, "ktrace:meta", "cgroup_limit",
				args, 5, 0);
	}
}
