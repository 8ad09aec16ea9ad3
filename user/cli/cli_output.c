// SPDX-License-Identifier: GPL-2.0
/* A command's output file: written beside its target, converted to JSON, renamed into place. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/utils.h"
#include "trace/json_writer.h"

int cli_output_format(const char *format, const char *path, bool *json)
{
	if (format && strcmp(format, "fxt") && strcmp(format, "json"))
		return cli_usage_error("--format '%s': use fxt or json", format);
	*json = format ? !strcmp(format, "json") : str_ends_with(path, ".json");
	return 0;
}

/* The file itself: standard output, a device or FIFO in place, else a temporary beside it. */
static int open_file(struct cli_output *o, const char *path)
{
	const char *slash;
	struct stat st;
	int n, ret;

	if (!strcmp(path, "-")) {
		o->file_fd = STDOUT_FILENO;
		return 0;
	}
	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode)) {
			pr_err("cannot create %s: it is a directory", path);
			return -EISDIR;
		}
		/* A device or a pipe (/dev/null, a FIFO) is written in place, never replaced. */
		if (!S_ISREG(st.st_mode)) {
			o->file_fd = open(path, O_WRONLY | O_CLOEXEC);
			if (o->file_fd < 0) {
				ret = -errno;
				pr_err("cannot write %s: %s", path, strerror(-ret));
				return ret;
			}
			return 0;
		}
		/* Replacing a file one could not write would be a surprise. */
		if (access(path, W_OK)) {
			ret = -errno;
			pr_err("cannot write %s: %s", path, strerror(-ret));
			return ret;
		}
	}
	/* Through a symbolic link, the file it names is the one replaced. */
	o->target = realpath(path, NULL);
	if (!o->target)
		o->target = strdup(path);
	if (!o->target)
		return -ENOMEM;
	slash = strrchr(o->target, '/');
	n = slash ? (int)(slash - o->target + 1) : 0;
	if (asprintf(&o->tmp, "%.*s.%s.XXXXXX", n, o->target, slash ? slash + 1 : o->target) < 0) {
		o->tmp = NULL;
		return -ENOMEM;
	}
	o->file_fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->file_fd < 0) {
		ret = -errno;
		pr_err("cannot create %s: %s", path, strerror(-ret));
		free(o->tmp);
		o->tmp = NULL;
		return ret;
	}
	/* mkostemp() makes it 0600; an output file is 0644 less the umask. */
	n = umask(0);
	umask(n);
	if (fchmod(o->file_fd, 0644 & ~n))
		pr_warn("%s: cannot set its mode: %s", o->tmp, strerror(errno));
	return 0;
}

/* JSON is converted from an FXT archive written here first. */
static int scratch_fd(void)
{
	FILE *tmp = tmpfile();
	int fd;

	if (!tmp)
		return -errno;
	fd = dup(fileno(tmp));
	fclose(tmp);
	return fd < 0 ? -errno : fd;
}

int cli_output_open(struct cli_output *o, const char *path, bool json)
{
	int ret;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->json = json;
	o->open = true;
	o->fd = o->file_fd = -1;
	ret = open_file(o, path);
	if (!ret && json) {
		o->fd = scratch_fd();
		if (o->fd < 0) {
			ret = o->fd;
			pr_err("cannot create a temporary file for %s: %s", path, strerror(-ret));
		}
	} else {
		o->fd = o->file_fd;
	}
	if (ret == -ENOMEM)
		pr_err("out of memory opening %s", path);
	if (ret)
		cli_output_abort(o);
	return ret;
}

int cli_output_commit(struct cli_output *o, uint64_t *bytes)
{
	uint64_t json_bytes;
	int ret = 0;

	if (!o->open)
		return -EBADF;
	if (o->json) {
		ret = json_convert_fd(o->fd, o->file_fd, o->embedded_ftrace, &json_bytes);
		if (!ret && bytes)
			*bytes = json_bytes;
		close(o->fd);
	}
	o->fd = -1;
	if (o->file_fd != STDOUT_FILENO && close(o->file_fd) && !ret)
		ret = -errno;
	o->file_fd = -1;
	if (!ret && o->tmp && rename(o->tmp, o->target))
		ret = -errno;
	if (ret) {
		pr_err("writing %s: %s", o->path, strerror(-ret));
		cli_output_abort(o);
		return ret;
	}
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
	o->open = false;
	return 0;
}

void cli_output_abort(struct cli_output *o)
{
	if (!o->open)
		return;
	if (o->fd >= 0 && o->fd != o->file_fd)
		close(o->fd);
	if (o->file_fd >= 0 && o->file_fd != STDOUT_FILENO)
		close(o->file_fd);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
	o->fd = o->file_fd = -1;
	o->open = false;
}
