// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup v2 ids and paths: the recorders give a thread's cgroup by id (its
 * directory's inode number), the archive by path too.  At the end of a
 * recording every directory of the cgroup2 hierarchy is listed by id; a
 * cgroup removed before then has no path, and the archive keeps its id.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/u64map.h"
#include "lib/utils.h"
#include "record/record.h"

bool cgroup_mount_parse(const char *line, char *mnt, char *fstype, char *opts)
{
	const char *sep = strstr(line, " - ");

	return sep && sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
	       sscanf(sep + 3, "%63s %*s %1023s", fstype, opts) == 2;
}

char *cgroup2_mount(void)
{
	char line[4096], mnt[PATH_MAX], fstype[64], opts[1024], *root = NULL;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	while (f && !root && fgets(line, sizeof(line), f))
		if (cgroup_mount_parse(line, mnt, fstype, opts) && !strcmp(fstype, "cgroup2"))
			root = strdup(mnt);
	if (f)
		fclose(f);
	return root;
}

uint64_t cgroup_dir_id(const char *path)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	struct stat st;
	int mount_id;

	/* kernfs's file handle is the node's 64-bit id, whatever the size of ino_t. */
	if (!name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) &&
	    h.fh.handle_bytes == sizeof(uint64_t))
		return h.id;
	return stat(path, &st) ? 0 : st.st_ino;
}

/* nftw() takes no context: one walk at a time, in the recording's thread. */
static struct cgroup_paths *walking;
static size_t walking_root_len;

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct cgroup_paths *cp = walking;
	const char *rel = path + walking_root_len;
	struct cgroup_path *p;

	(void)st;
	(void)ftw;
	if (flag != FTW_D)
		return 0;
	/* Out of memory: the walk stops, and the threads of the rest are named by id. */
	p = vec_add(&cp->v, &cp->n, &cp->cap, sizeof(*p));
	if (!p)
		goto nomem;
	p->id = cgroup_dir_id(path);
	p->path = strdup(*rel ? rel : "/");
	if (!p->path) {
		cp->n--;
		goto nomem;
	}
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}

static int cmp_path(const void *a, const void *b)
{
	const struct cgroup_path *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

void cgroup_paths_read(struct cgroup_paths *cp)
{
	char *root = cgroup2_mount();

	if (!root)
		return;
	walking = cp;
	walking_root_len = strlen(root);
	if (nftw(root, visit, 16, FTW_PHYS | FTW_MOUNT))
		pr_warn("cannot list every cgroup under %s: %s; threads in those not listed are named by cgroup id",
			root, strerror(errno));
	walking = NULL;
	free(root);
	cp->walked = true;
	qsort(cp->v, cp->n, sizeof(*cp->v), cmp_path);
}

const char *cgroup_paths_find(const struct cgroup_paths *cp, uint64_t id)
{
	struct cgroup_path key = { .id = id }, *p;

	/* The root's id is 1, mounted or not. */
	if (id == 1 && (!cp || !cp->walked))
		return "/";
	if (!cp || !cp->n)
		return NULL;
	p = bsearch(&key, cp->v, cp->n, sizeof(*cp->v), cmp_path);
	return p ? p->path : NULL;
}

void cgroup_paths_free(struct cgroup_paths *cp)
{
	for (uint32_t i = 0; i < cp->n; i++)
		free(cp->v[i].path);
	free(cp->v);
	memset(cp, 0, sizeof(*cp));
}
