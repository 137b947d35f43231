// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target 2: one format file parsed by the decode core (decode_add_format,
 * with its print fmt rewriting), then one record of that event decoded as
 * text and as NDJSON (which must parse).
 *
 * Input: a flag byte, the format's length (2 bytes, little endian), the
 * format text, then the record's bytes (its common_type is set to the
 * event's id so that the record is decoded with this format).
 *   flag bits 0-1: the system name: "fuzz", "syscalls", "ftrace" or "sched"
 *   (the first two have special text forms)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "decode.h"
#include "fuzz_common.h"
#include "output.h"

#ifndef FUZZ_ENTRY
#define FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

static void ff_decode(struct tep_handle *tep, struct tep_record *rec, enum output_mode mode)
{
	struct output *o;
	char *obuf = NULL;
	size_t olen = 0;
	FILE *f = open_memstream(&obuf, &olen);

	if (!f)
		abort();
	o = output_new(tep, f, mode);
	if (!o)
		abort();
	output_record(o, rec);
	output_flush(o);
	output_free(o);
	fclose(f);
	if (mode == OUTPUT_JSON)
		fuzz_ndjson_check(obuf, olen);
	free(obuf);
}

int FUZZ_ENTRY(const uint8_t *data, size_t size);
int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	static const char *const systems[] = { "fuzz", "syscalls", "ftrace", "sched" };
	static char *header_page;
	static size_t header_len;
	struct tep_handle *tep;
	struct tep_event *ev;
	struct tep_record rec;
	size_t flen, rlen;
	char *fmt, *rdata;
	uint16_t id;

	if (size < 3)
		return 0;
	if (!header_page) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/tests/unit/fixtures/host/header_page", fuzz_top);
		header_page = fuzz_slurp(path, &header_len);
		if (!header_page)
			abort();
		snprintf(path, sizeof(path), "%s/tests/unit/fixtures/host/kallsyms", fuzz_top);
		decode_kallsyms_set_path(strdup(path));
	}
	flen = data[1] | data[2] << 8;
	if (flen > size - 3)
		flen = size - 3;
	/* exact-size copies: ASan catches a read past either */
	fmt = malloc(flen ? flen : 1);
	rlen = size - 3 - flen;
	rdata = malloc(rlen ? rlen : 1);
	if (!fmt || !rdata)
		abort();
	memcpy(fmt, data + 3, flen);
	memcpy(rdata, data + 3 + flen, rlen);

	tep = decode_tep_new(false);
	if (!tep || decode_header_page(tep, header_page, header_len))
		abort();
	if (decode_add_format(tep, systems[data[0] & 3], fmt, flen) == 0 &&
	    tep_get_events_count(tep) > 0 && rlen >= 8) {
		ev = tep_get_event(tep, 0);
		id = ev->id;
		memcpy(rdata, &id, 2);
		memset(&rec, 0, sizeof(rec));
		rec.data = rdata;
		rec.size = rlen;
		rec.record_size = rlen;
		rec.ts = 1234567890123ULL;
		rec.cpu = data[0] >> 4;
		ff_decode(tep, &rec, OUTPUT_TEXT);
		ff_decode(tep, &rec, OUTPUT_JSON);
	}
	tep_free(tep);
	free(fmt);
	free(rdata);
	return 0;
}
