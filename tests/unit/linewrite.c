// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The in-place writers of output_local.h against libc's printf and
 * strnlen: decimal and hex numbers, eight-digit stamps, the length of a
 * string, plain JSON strings (and which strings are not plain), and
 * lines built in a FILE's buffer or, when it has no room, in the output's
 * own (line_begin, line_need, line_end).  TAP.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_local.h"
#include "tap.h"


/* values where digit counts change, the extremes, and random ones of every width */
static int numbers(uint64_t *v, int max)
{
	uint64_t p = 1;
	int n = 0, i;

	for (i = 0; i < 20; i++, p *= 10) {
		v[n++] = p;
		v[n++] = p - 1;
		v[n++] = p + 1;
	}
	v[n++] = UINT64_MAX;
	v[n++] = UINT64_MAX - 1;
	v[n++] = (uint64_t)INT64_MIN;
	v[n++] = INT64_MAX;
	for (i = 0; i < 64; i++)
		v[n++] = 1ULL << i;
	while (n < max)
		v[n++] = rnd() >> (rnd() % 64);
	return n;
}

static int check_dec(void)
{
	static uint64_t v[200000];
	char a[64], b[64];
	int n = numbers(v, 200000), i, bad = 0;

	for (i = 0; i < 200000 && !bad; i++) {
		uint64_t x = i < n ? v[i] : 0;

		*dec_u64(a, x) = '\0';
		snprintf(b, sizeof(b), "%" PRIu64, x);
		if (strcmp(a, b)) {
			printf("# dec_u64(%" PRIu64 ") = %s\n", x, a);
			bad++;
		}
		*dec_i64(a, (int64_t)x) = '\0';
		snprintf(b, sizeof(b), "%" PRId64, (int64_t)x);
		if (strcmp(a, b)) {
			printf("# dec_i64(%" PRId64 ") = %s\n", (int64_t)x, a);
			bad++;
		}
	}
	for (i = 0; i < 100000 && !bad; i++) {
		*dec_u64(a, i) = '\0';
		snprintf(b, sizeof(b), "%d", i);
		bad += !!strcmp(a, b);
	}
	return !bad;
}

static int check_hex(void)
{
	static uint64_t v[100000];
	char a[64], b[64];
	int n = numbers(v, 100000), i, bad = 0;

	for (i = 0; i < n && !bad; i++) {
		*hex0x_at(a, v[i]) = '\0';
		snprintf(b, sizeof(b), "0x%" PRIx64, v[i]);
		if (strcmp(a, b)) {
			printf("# hex0x_at(%s) = %s\n", b, a);
			bad++;
		}
	}
	return !bad;
}

static int check_fmt8(void)
{
	char a[16], b[16];
	uint32_t x;
	int bad = 0;

	for (x = 0; x < 100000000 && !bad; x += (x < 1000000 ? 1 : 7919)) {
		fmt_8(a, x);
		a[8] = '\0';
		snprintf(b, sizeof(b), "%08u", x);
		if (strcmp(a, b)) {
			printf("# fmt_8(%u) = %s\n", x, a);
			bad++;
		}
	}
	return !bad;
}

static int check_strnlen(void)
{
	char buf[64];
	int bad = 0, len, nul;

	for (len = 0; len <= 40; len++) {
		for (nul = 0; nul <= 41; nul++) {
			int i;

			for (i = 0; i < 64; i++)
				buf[i] = 1 + rnd() % 255;
			if (nul < 64)
				buf[nul] = '\0';
			if (decode_strnlen(buf, len) != strnlen(buf, len)) {
				printf("# decode_strnlen: length %d, NUL at %d: %zu\n", len, nul,
				       decode_strnlen(buf, len));
				bad++;
			}
		}
	}
	return !bad;
}

/* every byte value at every place of a string of each length up to 24 */
static int check_plain(void)
{
	char s[64], out[128], want[128];
	int bad = 0, len, at, c;

	for (len = 0; len <= 24; len++) {
		for (at = 0; at <= len; at++) {
			for (c = 1; c < 256; c++) {
				bool plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
				char *e;
				int i;

				for (i = 0; i < 64; i++)
					s[i] = 'a' + i % 26;
				if (at < len)
					s[at] = c;
				s[len] = '\0';
				/* the field is longer than the string: bytes after the NUL are not read */
				s[len + 1] = '"';
				e = json_plain_at(out, s, len + 8);
				snprintf(want, sizeof(want), "\"%s\"", s);
				if (at < len && !plain ? e != NULL :
				    !e || (size_t)(e - out) != strlen(want) || memcmp(out, want, e - out)) {
					printf("# json_plain_at: length %d, byte 0x%02x at %d: %s\n", len, c,
					       at, e ? "written" : "refused");
					bad++;
				}
			}
		}
	}
	/* a field with no NUL: the whole field */
	memcpy(s, "abcdefghijklmnop", 16);
	{
		char *e = json_plain_at(out, s, 16);

		bad += !e || e - out != 18 || memcmp(out, "\"abcdefghijklmnop\"", 18);
	}
	return !bad;
}

/*
 * Lines of pieces of every size through a FILE with a small buffer, so that
 * some lines start in its buffer and some in the output's own, and pieces
 * larger than what is left start again: the file holds them in order.
 */
static int check_lines(void)
{
	struct output o;
	char fbuf[300], piece[LINE_ROOM], *got, *want;
	size_t want_len = 0, got_len, cap = 2000 * (LINE_ROOM + 6 * 200 + 1);
	FILE *f = tmpfile();
	int line, bad = 0;

	if (!f)
		return 0;
	memset(&o, 0, sizeof(o));
	o.f = f;
	o.lbuf = malloc(LINE_ROOM);
	want = malloc(cap);
	setvbuf(f, fbuf, _IOFBF, sizeof(fbuf));
	for (line = 0; line < 2000; line++) {
		int pieces = 1 + rnd() % 6, k;
		char *w = line_begin(&o, 16);

		for (k = 0; k < pieces; k++) {
			size_t n = rnd() % (k == 3 ? LINE_ROOM - LINE_SLACK : 200);
			size_t i;

			for (i = 0; i < n; i++)
				piece[i] = 'A' + (line + k + i) % 26;
			w = line_need(&o, w, n);
			/* the room promised, inside the buffer it is in */
			if ((size_t)(o.lend - w) < n ||
#ifdef __GLIBC__
			    (o.lstart != o.lbuf && o.lend + LINE_SLACK != f->_IO_write_end) ||
#endif
			    (o.lstart == o.lbuf && o.lend + LINE_SLACK != o.lbuf + LINE_ROOM)) {
				printf("# line %d piece %d: %zu bytes asked, %td there\n", line, k, n,
				       o.lend - w);
				bad++;
				break;
			}
			memcpy(w, piece, n);
			w += n;
			memcpy(want + want_len, piece, n);
			want_len += n;
		}
		*w++ = '\n';
		want[want_len++] = '\n';
		line_end(&o, w);
	}
	fflush(f);
	got_len = ftell(f);
	got = malloc(got_len ? got_len : 1);
	rewind(f);
	if (fread(got, 1, got_len, f) != got_len)
		bad++;
	if (got_len != want_len || memcmp(got, want, want_len)) {
		printf("# lines: %zu bytes written, %zu expected\n", got_len, want_len);
		bad++;
	}
	fclose(f);
	free(got);
	free(want);
	free(o.lbuf);
	return !bad;
}

int main(void)
{
	printf("1..6\n");
	ok(check_dec(), "dec_u64 and dec_i64 write what printf writes");
	ok(check_hex(), "hex0x_at writes what 0x%llx writes");
	ok(check_fmt8(), "fmt_8 writes what %08u writes");
	ok(check_strnlen(), "decode_strnlen finds what strnlen finds");
	ok(check_plain(), "json_plain_at writes plain strings and refuses the rest");
	ok(check_lines(), "lines built in place reach the file whole and in order");
	return 0;
}
