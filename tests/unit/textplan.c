// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text plans (src/textplan.c) against libtraceevent, on made-up formats
 * that use what plans do: widths, precisions, lengths and signs, hex and
 * octal, char arrays, __data_loc strings, __print_flags and
 * __print_symbolic (with and without their tables), conditions and
 * arithmetic.  Each plan writes random records into a buffer of exactly
 * textplan_bound() bytes and a guard after it: the text must be
 * libtraceevent's, byte for byte, and the guard untouched; records cut
 * short must keep the guard too.  TAP.
 */
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "textplan.h"
#include "tap.h"


#define FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n" \
	"\tfield:int pid;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:unsigned int flags;\toffset:28;\tsize:4;\tsigned:0;\n" \
	"\tfield:long state;\toffset:32;\tsize:8;\tsigned:1;\n" \
	"\tfield:u64 big;\toffset:40;\tsize:8;\tsigned:0;\n" \
	"\tfield:__data_loc char[] name;\toffset:48;\tsize:4;\tsigned:1;\n" \
	"\tfield:short s;\toffset:52;\tsize:2;\tsigned:1;\n" \
	"\tfield:unsigned char c;\toffset:54;\tsize:1;\tsigned:0;\n" \
	"\tfield:signed char sc;\toffset:55;\tsize:1;\tsigned:1;\n" \
	"\tfield:unsigned long addr;\toffset:56;\tsize:8;\tsigned:0;\n"
#define FIXED 64		/* the fields' end; a __data_loc string follows */

#define STATE_MASK "((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004) + 1) << 1) - 1)"

static const char *const fmts[] = {
	/* sched_switch's way: a condition, a table of flags, a "+" */
	"\"comm=%s pid=%d state=%s%s big=%llu\", REC->comm, REC->pid, (REC->state & "
	STATE_MASK ") ? __print_flags(REC->state & " STATE_MASK ", \"|\", { 0x00000001, \"S\" }, "
	"{ 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }) : \"R\", "
	"REC->state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004) + 1) << 1) ? \"+\" : "
	"\"\", REC->big",
	/* strings: widths, precisions, arrays and __data_loc */
	"\"[%-16s|%16s|%.3s|%-5.2s|%s|%8s]\", REC->comm, REC->comm, REC->comm, __get_str(name), "
	"__get_str(name), __get_str(name)",
	/* numbers of every length, sign, base and width */
	"\"%5d %-5d %05d %x %X %08x %-8x| %#x %o %#o %lu %ld %llx %hd %hhu %hhd %u %i %3u %03d "
	"%.4d %-3hhd| %lld %20llu %-20lld|\", REC->pid, REC->pid, REC->pid, REC->flags, REC->flags, "
	"REC->flags, REC->flags, REC->flags, REC->flags, REC->flags, REC->addr, REC->state, "
	"REC->big, REC->s, REC->c, REC->sc, REC->flags, REC->pid, REC->c, REC->sc, REC->pid, "
	"REC->sc, REC->big, REC->big, REC->big",
	/* a text at its longest, then a short text copied 16 bytes at once: the slack */
	"\"%s]\", REC->comm",
	/* flags plans leave to libtraceevent */
	"\"%+d % d\", REC->pid, REC->pid",
	/* flags with several bits in one, a high bit, no table (wide); symbols */
	"\"f=%s s=%s\", __print_flags(REC->flags, \"|\", { 0x1, \"A\" }, { 0x2, \"B\" }, "
	"{ 0x6, \"BC\" }, { 0x100, \"HIGH\" }, { 0xff0000, \"MULTI\" }), "
	"__print_symbolic(REC->pid, { 0, \"zero\" }, { 1, \"one\" }, { 2, \"two\" }, "
	"{ 300, \"three hundred\" })",
	/* a flag of no bit, an empty delimiter, a width on each flag (no table) */
	"\"%s/%10s/%s\", __print_flags(REC->c, \"\", { 0, \"NONE\" }, { 0x1, \"x\" }, "
	"{ 0x2, \"y\" }), __print_flags(REC->c & 3, \",\", { 0x1, \"one\" }, { 0x2, \"two\" }), "
	"__print_symbolic(REC->c, { 1, \"a-name-longer-than-a-table-slot-takes-by-far-0123456789\" }, "
	"{ 2, \"b\" })",
	/* arithmetic, casts, conditions of numbers and of strings */
	"\"%d %u %llu %d %s %u %d\", REC->pid + 5, REC->flags >> 2, REC->big / 3, "
	"(REC->pid & 0xf) ? 1 : 0, REC->pid ? \"yes\" : \"no\", (unsigned char)REC->flags, "
	"(int)(REC->s * 2 - REC->sc)",
};
#define NFMT (sizeof(fmts) / sizeof(fmts[0]))

/* A record: random fields, a random comm and name, sometimes cut short. */
static int make_record(unsigned char *d, size_t room, int id)
{
	int size = FIXED, n, i;
	uint16_t type = id;
	uint32_t loc;

	for (i = 0; i < (int)room; i++)
		d[i] = rnd();
	memcpy(d, &type, 2);
	/* comm: a name with its NUL, all 16 bytes without one, or empty */
	n = rnd() % 18;
	for (i = 0; i < 16; i++)
		d[8 + i] = i < n ? 'a' + rnd() % 26 : 0;
	/* small numbers are the common case, and the tables' */
	if (rnd() % 2) {
		uint32_t flags = rnd() % 600;
		int64_t state = (int64_t)(rnd() % 20);
		int pid = (int)(rnd() % 5);

		memcpy(d + 28, &flags, 4);
		memcpy(d + 32, &state, 8);
		memcpy(d + 24, &pid, 4);
	}
	/* name: a string of 0..40 bytes after the fields (its NUL counted) */
	n = rnd() % 41;
	for (i = 0; i < n; i++)
		d[FIXED + i] = i == n - 1 ? 0 : ' ' + rnd() % 95;
	loc = (uint32_t)n << 16 | FIXED;
	/* now and then an offset or a length past the record */
	if (rnd() % 16 == 0)
		loc = (uint32_t)(rnd() % 200) << 16 | (uint32_t)(rnd() % 200);
	memcpy(d + 48, &loc, 4);
	size += n;
	/* now and then a record cut short (fields past its end read as 0) */
	if (rnd() % 10 == 0)
		size = rnd() % size;
	return size;
}

int main(void)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev[NFMT];
	char name[32];
	size_t i;
	int r;

	if (!tep)
		return 1;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, __BYTE_ORDER == __BIG_ENDIAN ? TEP_BIG_ENDIAN :
			       TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER == __BIG_ENDIAN ? TEP_BIG_ENDIAN :
				TEP_LITTLE_ENDIAN);
	printf("1..%zu\n", 2 * NFMT + 1);
	for (i = 0; i < NFMT; i++) {
		char *buf;
		int n;

		snprintf(name, sizeof(name), "plan%zu", i);
		n = asprintf(&buf, "name: %s\nID: %zu\nformat:\n" FIELDS "\nprint fmt: %s\n", name,
			     100 + i, fmts[i]);
		if (n < 0)
			return 1;
		ev[i] = tep_parse_event(tep, buf, n, "test") ? NULL :
			tep_find_event_by_name(tep, "test", name);
		free(buf);
	}
	for (i = 0; i < NFMT; i++) {
		struct textplan *p = ev[i] ? textplan_build(ev[i]) : NULL;
		/* a '+' or ' ' flag is libtraceevent's alone */
		bool want = !strstr(fmts[i], "%+d");
		unsigned char data[FIXED + 64];
		struct tep_record rec;
		struct trace_seq seq;
		int bad = 0, guard = 0, k;
		char what[160];

		snprintf(what, sizeof(what), "format %zu: %s", i,
			 want ? "a plan is made" : "no plan (a flag plans do not know)");
		ok(ev[i] && !!p == want, what);
		if (!p) {
			snprintf(what, sizeof(what), "format %zu: nothing to run", i);
			ok(ev[i] != NULL, what);
			continue;
		}
		trace_seq_init(&seq);
		for (k = 0; k < 20000; k++) {
			size_t bound;
			char *out, *e;
			int size = make_record(data, sizeof(data), 100 + i), j;

			memset(&rec, 0, sizeof(rec));
			rec.data = data;
			rec.size = size;
			trace_seq_reset(&seq);
			tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
			trace_seq_terminate(&seq);
			bound = textplan_bound(p, size);
			out = malloc(bound + 64);
			if (!out)
				return 1;
			memset(out, 0xa5, bound + 64);
			e = textplan_write(p, data, size, out);
			for (j = 0; j < 64; j++)
				if ((unsigned char)out[bound + j] != 0xa5)
					break;
			if (j < 64 && !guard++)
				printf("# past the bound (%zu), record %d: %.*s\n", bound, k,
				       (int)(e - out), out);
			/*
			 * a record cut short is tpctl's "[damaged record]" and no plan's
			 * (libtraceevent reads its arrays past the end): the bound only
			 */
			if (size >= FIXED &&
			    ((size_t)(e - out) != seq.len || memcmp(out, seq.buffer, seq.len))) {
				if (!bad++)
					printf("# record %d (size %d)\n#  plan: %.*s\n#  tep:  %s\n", k,
					       size, (int)(e - out), out, seq.buffer);
			}
			free(out);
		}
		trace_seq_destroy(&seq);
		snprintf(what, sizeof(what),
			 "format %zu: 20000 records as libtraceevent writes them (%d differ), "
			 "none past the bound (%d)", i, bad, guard);
		ok(!bad && !guard, what);
		textplan_free(p);
	}
	/* a plan's text through a growing buffer: the same as in place */
	{
		struct textplan *p = textplan_build(ev[0]);
		struct tpbuf b = { 0 };
		unsigned char data[FIXED + 64];
		int size, same = 0, k;

		for (k = 0; k < 1000 && p; k++) {
			char *out;
			size_t before = b.len;

			size = make_record(data, sizeof(data), 100);
			out = malloc(textplan_bound(p, size));
			if (!out || textplan_run(p, data, size, &b))
				break;
			r = textplan_write(p, data, size, out) - out;
			same += (size_t)r == b.len - before && !memcmp(out, b.p + before, r);
			free(out);
		}
		ok(same == 1000, "textplan_run appends what textplan_write writes, 1000 records");
		free(b.p);
		textplan_free(p);
	}
	tep_free(tep);
	return 0;
}
