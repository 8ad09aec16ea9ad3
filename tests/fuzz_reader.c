// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary bytes through the FXT reader, the JSON
 * converter, the latency analysis and the critical path with their reports,
 * and the timeline check (also fed one record at a time, as the archive
 * writer decodes them).  None may crash, hang, leak or read out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/critical_path.h"
#include "analyze/latency.h"
#include "analyze/latency_run.h"
#include "analyze/timeline_check.h"
#include "fxt/fxt_reader.h"
#include "trace/json_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Both passes of ktrace latency and the critical path, every report, and the blame lines. */
static void analyse(const void *data, size_t size)
{
	struct lat_opts o = { .pid = -1, .cpu = -1, .top = 4, .hist = true, .unit_ns = 1000 };
	struct cp_opts co = { .tid = -1, .top = 3 };
	struct lat_analysis *a = lat_new(&o);
	struct cp_analysis *cp;
	const struct lat_wait *w;
	struct obuf out;
	uint32_t n;

	cp = cp_new(a, &co);
	lat_run_mem(&(struct lat_run){ a, cp }, data, size);
	if (obuf_init(&out, -1, 4096) == 0) {
		lat_report_text(a, &out, "fuzz");
		lat_report_json(a, &out, "fuzz");
		lat_report_folded(a, &out);
		cp_report_text(cp, &out, "fuzz");
		cp_report_json(cp, &out, "fuzz");
		w = lat_waits_by_start(a, &n);
		for (uint32_t i = 0; i < n; i++)
			lat_blame_line(a, &w[i], &out);
		obuf_free(&out);
	}
	cp_free(cp);
	lat_free(a);
}

/* ktrace dump --check, and the same records decoded one by one. */
static void check(const uint64_t *data, size_t size)
{
	struct tl_check *c = tl_check_new();
	struct fxt_reader r, one;
	struct fxt_record rec, again;
	FILE *f = fopen("/dev/null", "w");

	if (!c || !f) {
		tl_check_free(c);
		if (f)
			fclose(f);
		return;
	}
	fxt_reader_open_mem(&r, data, size);
	fxt_reader_open_mem(&one, NULL, 0);
	while (fxt_reader_next(&r, &rec) == 1 && !tl_check_record(c, &r, &rec))
		if (rec.nwords <= KTRACE_FXT_MAX_RECORD_WORDS)
			fxt_reader_decode(&one, rec.w, rec.nwords, &again);
	tl_check_finish(c, &r, f);
	fxt_reader_close(&one);
	fxt_reader_close(&r);
	tl_check_free(c);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The reader expects 8-byte aligned input, as read() into its buffer gives. */
	uint64_t *copy = malloc(size + 8);
	struct fxt_reader r;
	struct obuf out;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fxt_reader_open_mem(&r, copy, size);
	if (obuf_init(&out, -1, 4096) == 0) {
		json_convert(&r, &out, NULL);
		obuf_free(&out);
	}
	fxt_reader_close(&r);
	analyse(copy, size);
	check(copy, size);
	free(copy);
	return 0;
}
