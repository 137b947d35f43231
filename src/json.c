// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Streaming JSON writer; see json.h.
 */
#include <inttypes.h>
#include <string.h>

#include "json.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
	j->first[0] = true;
}

size_t json_utf8_len(const unsigned char *s, size_t left)
{
	unsigned char c = s[0];
	size_t n, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (left < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates and values past U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void json_write_string(FILE *f, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	putc('"', f);
	while (i < len) {
		unsigned char c = s[i];
		size_t n;

		/* plain printable ASCII is copied in runs */
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			run++;
			continue;
		}
		if (run) {
			fwrite(s + i - run, 1, run, f);
			run = 0;
		}
		switch (c) {
		case '"':  fputs("\\\"", f); i++; continue;
		case '\\': fputs("\\\\", f); i++; continue;
		case '\n': fputs("\\n", f); i++; continue;
		case '\t': fputs("\\t", f); i++; continue;
		case '\r': fputs("\\r", f); i++; continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		n = json_utf8_len(s + i, len - i);
		if (n == 0) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			i++;
			continue;
		}
		fwrite(s + i, 1, n, f);
		i += n;
	}
	if (run)
		fwrite(s + i - run, 1, run, f);
	putc('"', f);
}

static void indent(struct json *j)
{
	int i;

	putc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Comma, indentation and "key": before a value. */
static void member(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			putc(',', j->f);
		j->first[j->depth] = false;
		if (j->pretty)
			indent(j);
	}
	if (key) {
		json_write_string(j->f, key, strlen(key));
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void open_level(struct json *j, const char *key, int ch)
{
	member(j, key);
	putc(ch, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_level(struct json *j, int ch)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (j->pretty && !empty)
		indent(j);
	putc(ch, j->f);
}

void json_obj_open(struct json *j, const char *key)
{
	open_level(j, key, '{');
}

void json_obj_close(struct json *j)
{
	close_level(j, '}');
}

void json_arr_open(struct json *j, const char *key)
{
	open_level(j, key, '[');
}

void json_arr_close(struct json *j)
{
	close_level(j, ']');
}

void json_strn(struct json *j, const char *key, const char *s, size_t len)
{
	member(j, key);
	json_write_string(j->f, s, len);
}

void json_str(struct json *j, const char *key, const char *s)
{
	if (!s) {
		json_null(j, key);
		return;
	}
	json_strn(j, key, s, strlen(s));
}

void json_int(struct json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_uint(struct json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

char *json_i128_digits(char *end, __int128 v)
{
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;

	*--end = '\0';
	do {
		*--end = '0' + (int)(u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--end = '-';
	return end;
}

void json_i128(struct json *j, const char *key, __int128 v)
{
	char buf[JSON_I128_LEN];

	member(j, key);
	fputs(json_i128_digits(buf + sizeof(buf), v), j->f);
}

void json_bool(struct json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void json_end_line(struct json *j)
{
	putc('\n', j->f);
	j->depth = 0;
	j->first[0] = true;
}
