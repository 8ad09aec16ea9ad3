// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary bytes through the FXT reader and the JSON
 * converter.  Neither may crash, hang, leak or read out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_reader.h"
#include "json_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	free(copy);
	return 0;
}
