// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target 1: raw ring-buffer pages through the reader's merge
 * (src/reader.c), the decode core (src/decode.c) and the output layer
 * (src/output.c), against the real format files of a saved fixture.
 *
 * Input: one flag byte, then the pages (zero-padded to whole sub-buffers).
 *   bit 0: NDJSON instead of text (and the NDJSON must parse)
 *   bit 1: the 6.1 VM kernel's formats instead of the host's
 *   bit 2: split the pages between two CPUs (exercises the merge)
 *   bit 3: NDJSON events held for their stacks (output_set_stacks)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "decode.h"
#include "fuzz_common.h"
#include "output.h"
#include "reader.h"

#ifndef FUZZ_ENTRY
#define FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

#define FP_MAX_PAGES 16

int FUZZ_ENTRY(const uint8_t *data, size_t size);
int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct tep_handle *tep;
	struct tep_record rec;
	struct output *o;
	struct reader *r;
	size_t sub, npages, half, olen = 0;
	char *pages, *obuf = NULL;
	long long lost;
	unsigned flags;
	FILE *f;
	int n = 0;

	if (size < 2)
		return 0;
	flags = data[0];
	data++;
	size--;
	tep = fuzz_fixture_tep(flags & 2 ? "vm-6.1" : "host");
	sub = tep_get_sub_buffer_size(tep);
	if (sub < 64)
		sub = 4096;
	npages = (size + sub - 1) / sub;
	if (npages > FP_MAX_PAGES)
		npages = FP_MAX_PAGES;
	if (size > npages * sub)
		size = npages * sub;
	/* exactly the input's bytes, so that ASan sees any read past them */
	pages = calloc(npages, sub);
	if (!pages)
		abort();
	memcpy(pages, data, size);

	r = reader_new(sub);
	if (!r)
		abort();
	half = (flags & 4) && npages > 1 ? npages / 2 : npages;
	reader_add_mem(r, 0, pages, half * sub);
	if (half < npages)
		reader_add_mem(r, 1, pages + half * sub, (npages - half) * sub);

	f = open_memstream(&obuf, &olen);
	if (!f)
		abort();
	o = output_new(tep, f, flags & 1 ? OUTPUT_JSON : OUTPUT_TEXT);
	if (!o || output_set_stacks(o, flags & 8) < 0)
		abort();
	while (reader_next(r, &rec, &lost) > 0 && n++ < 100000) {
		if (lost)
			output_lost(o, rec.cpu, lost);
		output_record(o, &rec);
	}
	output_flush(o);
	output_free(o);
	fclose(f);
	if (flags & 1)
		fuzz_ndjson_check(obuf, olen);
	free(obuf);
	reader_free(r);
	free(pages);
	return 0;
}
