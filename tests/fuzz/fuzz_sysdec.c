// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target 5: the syscall decoder (src/sysdec.c).  The input is a call:
 * its number (2 bytes), six raw arguments and a return value (8 bytes each,
 * little endian), -s (1 byte), a mask of the arguments that have a fetched
 * string (1 byte), then the strings' bytes, split evenly.  The text must fit
 * the room sysdec.h promises and hold no NUL before its end; the format
 * types of a syscall no table knows come from the input too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysdec.h"

#ifndef FUZZ_ENTRY
#define FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

static uint64_t fs_u64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void fs_check(const char *buf, size_t n, size_t size)
{
	if (n >= size || strlen(buf) != n)
		abort();
}

int FUZZ_ENTRY(const uint8_t *data, size_t size);
int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	static const char *const types[] = { "int", "const char *", "unsigned long", "u32",
					     "size_t", "long" };
	struct sysdec_call c = { 0 };
	unsigned strsize, mask, i, nstr = 0;
	size_t room, each, n, ends[SYSDEC_MAX_ARGS];
	struct sysdec *d;
	const char *rest;
	char *buf;
	int nargs;

	if (size < 2 + 7 * 8 + 2)
		return 0;
	c.nr = (data[0] | data[1] << 8) % (sysdec_nr_count() + 8);
	for (i = 0; i < SYSDEC_MAX_ARGS; i++)
		c.args[i] = fs_u64(data + 2 + 8 * i);
	c.ret = (int64_t)fs_u64(data + 50);
	c.has_ret = data[58] & 1;
	strsize = data[58] >> 1;
	mask = data[59];
	rest = (const char *)data + 60;
	for (i = 0; i < SYSDEC_MAX_ARGS; i++)
		nstr += mask >> i & 1;
	each = nstr ? (size - 60) / nstr : 0;
	for (i = 0; i < SYSDEC_MAX_ARGS; i++) {
		if (!(mask >> i & 1))
			continue;
		c.str[i] = rest;
		c.strlen[i] = each;
		rest += each;
	}
	d = sysdec_new(strsize);
	if (!d)
		return 0;
	sysdec_proto(d, c.nr, mask % 7, types);
	room = SYSDEC_ROOM + SYSDEC_MAX_ARGS * (4 * (size_t)(strsize > 4096 ? strsize : 4096) + 8);
	buf = malloc(room);
	if (buf) {
		n = sysdec_args(d, &c, buf, room, ends, &nargs);
		fs_check(buf, n, room);
		for (i = 0; i < (unsigned)nargs; i++)
			if (ends[i] > n)
				abort();
		n = sysdec_ret(d, &c, buf, SYSDEC_ROOM);
		fs_check(buf, n, SYSDEC_ROOM);
	}
	free(buf);
	sysdec_free(d);
	return 0;
}
