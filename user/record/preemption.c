// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's preemption model, for trace_info's "preemption": a real-time
 * thread kept off its CPU by a lower-priority one ("not_preempted" in
 * ktrace latency) is read against it.  PREEMPT_RT is "rt"; otherwise
 * "none", "voluntary", "full" or "lazy", with " (dynamic)" where
 * PREEMPT_DYNAMIC lets the boot command line or debugfs change it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "record/record.h"

static const char *const models[] = { "none", "voluntary", "full", "lazy" };

/* @word if it names a model, else NULL. */
static const char *model_named(const char *word, size_t len)
{
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (strlen(models[i]) == len && !strncmp(word, models[i], len))
			return models[i];
	return NULL;
}

/* debugfs's sched/preempt: "none voluntary (full) lazy", the current one in parentheses. */
static const char *debugfs_model(void)
{
	char buf[128], *open, *close;
	FILE *f = fopen("/sys/kernel/debug/sched/preempt", "r");

	if (!f)
		return NULL;
	open = fgets(buf, sizeof(buf), f) ? strchr(buf, '(') : NULL;
	fclose(f);
	close = open ? strchr(open, ')') : NULL;
	return close ? model_named(open + 1, close - open - 1) : NULL;
}

/* "preempt=MODEL" on the kernel's command line: PREEMPT_DYNAMIC's boot choice. */
static const char *cmdline_model(void)
{
	char buf[4096], *p;
	FILE *f = fopen("/proc/cmdline", "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (p = strstr(buf, "preempt="); p; p = strstr(p + 1, "preempt="))
		if (p == buf || p[-1] == ' ')
			return model_named(p + 8, strcspn(p + 8, " \n"));
	return NULL;
}

/*
 * The kernel config's model and whether it is dynamic: /boot/config-RELEASE
 * or /proc/config.gz (gzread reads plain files too).  False if neither.
 */
static bool config_model(const char *release, const char **model, bool *rt, bool *dynamic)
{
	char path[512], line[256];
	gzFile f;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	f = gzopen(path, "r");
	if (!f)
		f = gzopen("/proc/config.gz", "r");
	if (!f)
		return false;
	while (gzgets(f, line, sizeof(line))) {
		if (!strcmp(line, "CONFIG_PREEMPT_RT=y\n"))
			*rt = true;
		else if (!strcmp(line, "CONFIG_PREEMPT_DYNAMIC=y\n"))
			*dynamic = true;
		else if (!strcmp(line, "CONFIG_PREEMPT_NONE=y\n"))
			*model = "none";
		else if (!strcmp(line, "CONFIG_PREEMPT_VOLUNTARY=y\n"))
			*model = "voluntary";
		else if (!strcmp(line, "CONFIG_PREEMPT=y\n"))
			*model = "full";
		else if (!strcmp(line, "CONFIG_PREEMPT_LAZY=y\n"))
			*model = "lazy";
	}
	gzclose(f);
	return true;
}

void preemption_model(char *out, size_t len)
{
	const char *model = NULL, *now;
	bool rt = false, dynamic = false, config;
	struct utsname u;

	uname(&u);
	config = config_model(u.release, &model, &rt, &dynamic);
	if (rt || strstr(u.version, "PREEMPT_RT")) {
		snprintf(out, len, "rt");
		return;
	}
	dynamic |= strstr(u.version, "PREEMPT_DYNAMIC") != NULL;
	if (dynamic) {
		now = debugfs_model();
		if (!now)
			now = cmdline_model();
		if (now)
			model = now;
	}
	if (model)
		snprintf(out, len, "%s%s", model, dynamic ? " (dynamic)" : "");
	else if (!config && !dynamic && strstr(u.version, "PREEMPT "))
		snprintf(out, len, "full");
	else
		snprintf(out, len, dynamic ? "unknown (dynamic)" : "unknown");
}
