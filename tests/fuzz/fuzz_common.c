// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target helpers; see fuzz_common.h.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "decode.h"
#include "fuzz_common.h"

#ifndef FUZZ_TOP
#define FUZZ_TOP "."
#endif

const char *fuzz_top = FUZZ_TOP;

char *fuzz_slurp(const char *path, size_t *len)
{
	char *buf = NULL, *nb;
	size_t n = 0, alloc = 0, r;
	FILE *f = fopen(path, "rb");

	if (!f)
		return NULL;
	for (;;) {
		if (alloc - n < 4096) {
			alloc = alloc ? alloc * 2 : 65536;
			nb = realloc(buf, alloc + 1);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, alloc - n, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

struct fixture {
	const char *name;
	struct tep_handle *tep;
};

struct tep_handle *fuzz_fixture_tep(const char *name)
{
	static struct fixture fx[4];
	char dir[4096], path[8192];
	struct tep_handle *tep;
	struct dirent *de;
	size_t len;
	char *buf;
	DIR *d;
	int i;

	for (i = 0; i < 4 && fx[i].name; i++)
		if (!strcmp(fx[i].name, name))
			return fx[i].tep;
	if (i == 4)
		return NULL;
	snprintf(dir, sizeof(dir), "%s/tests/unit/fixtures/%s", fuzz_top, name);
	tep = decode_tep_new(false);
	snprintf(path, sizeof(path), "%s/header_page", dir);
	buf = fuzz_slurp(path, &len);
	if (!tep || !buf || decode_header_page(tep, buf, len)) {
		fprintf(stderr, "fuzz: cannot load %s\n", path);
		abort();
	}
	free(buf);
	snprintf(path, sizeof(path), "%s/formats", dir);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "fuzz: no %s\n", path);
		abort();
	}
	while ((de = readdir(d))) {
		char sys[256], *colon;

		if (de->d_name[0] == '.')
			continue;
		snprintf(sys, sizeof(sys), "%s", de->d_name);
		colon = strchr(sys, ':');
		if (!colon)
			continue;
		*colon = '\0';
		snprintf(path, sizeof(path), "%s/formats/%s", dir, de->d_name);
		buf = fuzz_slurp(path, &len);
		if (buf)
			decode_add_format(tep, sys, buf, len);
		free(buf);
	}
	closedir(d);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", dir);
	buf = fuzz_slurp(path, &len);
	if (buf)
		tep_parse_saved_cmdlines(tep, buf);
	free(buf);
	snprintf(path, sizeof(path), "%s/tests/unit/fixtures/host/kallsyms", fuzz_top);
	decode_kallsyms_set_path(strdup(path));
	fx[i].name = name;
	fx[i].tep = tep;
	return tep;
}

/* ------------------------------------------------------------ UTF-8 reference */

/*
 * Length of the well-formed sequence at s, from the table of well-formed
 * byte sequences in the Unicode standard (ch. 3, table 3-7); 0 if none.
 */
static size_t wf_len(const unsigned char *s, size_t left)
{
	static const struct {
		unsigned char lo0, hi0, lo1, hi1;
		int n;
	} t[] = {
		{ 0x00, 0x7f, 0, 0, 1 },
		{ 0xc2, 0xdf, 0x80, 0xbf, 2 },
		{ 0xe0, 0xe0, 0xa0, 0xbf, 3 },
		{ 0xe1, 0xec, 0x80, 0xbf, 3 },
		{ 0xed, 0xed, 0x80, 0x9f, 3 },
		{ 0xee, 0xef, 0x80, 0xbf, 3 },
		{ 0xf0, 0xf0, 0x90, 0xbf, 4 },
		{ 0xf1, 0xf3, 0x80, 0xbf, 4 },
		{ 0xf4, 0xf4, 0x80, 0x8f, 4 },
	};
	size_t i;
	int k;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (s[0] < t[i].lo0 || s[0] > t[i].hi0)
			continue;
		if (t[i].n == 1)
			return 1;
		if (left < (size_t)t[i].n || s[1] < t[i].lo1 || s[1] > t[i].hi1)
			return 0;
		for (k = 2; k < t[i].n; k++)
			if (s[k] < 0x80 || s[k] > 0xbf)
				return 0;
		return t[i].n;
	}
	return 0;
}

size_t fuzz_expected_utf8(const unsigned char *in, size_t len, char *out)
{
	size_t i = 0, o = 0, n;

	while (i < len) {
		n = wf_len(in + i, len - i);
		if (n) {
			memcpy(out + o, in + i, n);
			o += n;
			i += n;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	return o;
}

/* ------------------------------------------------------------ JSON checker */

struct jp {
	const unsigned char *s, *end;
	const char *err;
	char *sbuf;		/* decoded string */
	size_t slen, salloc;
	fuzz_str_fn cb;
	void *ctx;
	int depth;
};

static void jp_ws(struct jp *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
		p->s++;
}

static bool jp_fail(struct jp *p, const char *why)
{
	if (!p->err)
		p->err = why;
	return false;
}

static void jp_put(struct jp *p, const void *b, size_t n)
{
	if (p->slen + n > p->salloc) {
		p->salloc = (p->slen + n) * 2 + 64;
		p->sbuf = realloc(p->sbuf, p->salloc);
		if (!p->sbuf)
			abort();
	}
	memcpy(p->sbuf + p->slen, b, n);
	p->slen += n;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool jp_hex4(struct jp *p, unsigned *v)
{
	int i, h;

	if (p->end - p->s < 4)
		return jp_fail(p, "short \\u escape");
	*v = 0;
	for (i = 0; i < 4; i++) {
		h = hexval(p->s[i]);
		if (h < 0)
			return jp_fail(p, "bad hex digit in \\u escape");
		*v = *v << 4 | h;
	}
	p->s += 4;
	return true;
}

static void jp_put_cp(struct jp *p, unsigned cp)
{
	unsigned char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = 0xc0 | cp >> 6;
		b[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = 0xe0 | cp >> 12;
		b[1] = 0x80 | (cp >> 6 & 0x3f);
		b[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		b[0] = 0xf0 | cp >> 18;
		b[1] = 0x80 | (cp >> 12 & 0x3f);
		b[2] = 0x80 | (cp >> 6 & 0x3f);
		b[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	jp_put(p, b, n);
}

static bool jp_string(struct jp *p)
{
	unsigned cp, lo;
	size_t n;

	p->s++;	/* opening quote */
	p->slen = 0;
	for (;;) {
		if (p->s >= p->end)
			return jp_fail(p, "unterminated string");
		if (*p->s == '"') {
			p->s++;
			break;
		}
		if (*p->s < 0x20)
			return jp_fail(p, "raw control byte in string");
		if (*p->s == '\\') {
			p->s++;
			if (p->s >= p->end)
				return jp_fail(p, "unterminated escape");
			switch (*p->s++) {
			case '"': jp_put(p, "\"", 1); continue;
			case '\\': jp_put(p, "\\", 1); continue;
			case '/': jp_put(p, "/", 1); continue;
			case 'b': jp_put(p, "\b", 1); continue;
			case 'f': jp_put(p, "\f", 1); continue;
			case 'n': jp_put(p, "\n", 1); continue;
			case 'r': jp_put(p, "\r", 1); continue;
			case 't': jp_put(p, "\t", 1); continue;
			case 'u':
				if (!jp_hex4(p, &cp))
					return false;
				if (cp >= 0xdc00 && cp <= 0xdfff)
					return jp_fail(p, "lone low surrogate escape");
				if (cp >= 0xd800 && cp <= 0xdbff) {
					if (p->end - p->s < 6 || p->s[0] != '\\' || p->s[1] != 'u')
						return jp_fail(p, "lone high surrogate escape");
					p->s += 2;
					if (!jp_hex4(p, &lo))
						return false;
					if (lo < 0xdc00 || lo > 0xdfff)
						return jp_fail(p, "bad surrogate pair");
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				}
				jp_put_cp(p, cp);
				continue;
			default:
				return jp_fail(p, "unknown escape");
			}
		}
		n = wf_len(p->s, p->end - p->s);
		if (!n)
			return jp_fail(p, "invalid UTF-8 in string");
		jp_put(p, p->s, n);
		p->s += n;
	}
	if (p->cb)
		p->cb(p->sbuf ? p->sbuf : "", p->slen, p->ctx);
	return true;
}

static bool jp_digits(struct jp *p)
{
	const unsigned char *start = p->s;

	while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
		p->s++;
	return p->s > start;
}

static bool jp_number(struct jp *p)
{
	if (*p->s == '-')
		p->s++;
	if (p->s >= p->end)
		return jp_fail(p, "bad number");
	if (*p->s == '0')
		p->s++;
	else if (!jp_digits(p))
		return jp_fail(p, "bad number");
	if (p->s < p->end && *p->s == '.') {
		p->s++;
		if (!jp_digits(p))
			return jp_fail(p, "bad fraction");
	}
	if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
		p->s++;
		if (p->s < p->end && (*p->s == '+' || *p->s == '-'))
			p->s++;
		if (!jp_digits(p))
			return jp_fail(p, "bad exponent");
	}
	return true;
}

static bool jp_word(struct jp *p, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, w, n))
		return jp_fail(p, "bad literal");
	p->s += n;
	return true;
}

static bool jp_value(struct jp *p);

static bool jp_container(struct jp *p, char close, bool obj)
{
	if (++p->depth > 512)
		return jp_fail(p, "nesting too deep");
	p->s++;
	jp_ws(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		p->depth--;
		return true;
	}
	for (;;) {
		jp_ws(p);
		if (obj) {
			if (p->s >= p->end || *p->s != '"')
				return jp_fail(p, "member name expected");
			if (!jp_string(p))
				return false;
			jp_ws(p);
			if (p->s >= p->end || *p->s != ':')
				return jp_fail(p, "':' expected");
			p->s++;
		}
		if (!jp_value(p))
			return false;
		jp_ws(p);
		if (p->s >= p->end)
			return jp_fail(p, "unterminated container");
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s == close) {
			p->s++;
			p->depth--;
			return true;
		}
		return jp_fail(p, "',' or close expected");
	}
}

static bool jp_value(struct jp *p)
{
	jp_ws(p);
	if (p->s >= p->end)
		return jp_fail(p, "value expected");
	switch (*p->s) {
	case '{':
		return jp_container(p, '}', true);
	case '[':
		return jp_container(p, ']', false);
	case '"':
		return jp_string(p);
	case 't':
		return jp_word(p, "true");
	case 'f':
		return jp_word(p, "false");
	case 'n':
		return jp_word(p, "null");
	default:
		if (*p->s == '-' || (*p->s >= '0' && *p->s <= '9'))
			return jp_number(p);
		return jp_fail(p, "unexpected byte");
	}
}

const char *fuzz_json_check(const char *buf, size_t len, fuzz_str_fn str_cb, void *ctx)
{
	struct jp p = {
		.s = (const unsigned char *)buf, .end = (const unsigned char *)buf + len,
		.cb = str_cb, .ctx = ctx,
	};

	if (jp_value(&p)) {
		jp_ws(&p);
		if (p.s != p.end)
			jp_fail(&p, "trailing bytes after the value");
	}
	free(p.sbuf);
	return p.err;
}

void fuzz_ndjson_check(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl, *err;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl) {
			fprintf(stderr, "fuzz: NDJSON output does not end in a newline\n");
			abort();
		}
		err = fuzz_json_check(p, nl - p, NULL, NULL);
		if (err) {
			fprintf(stderr, "fuzz: NDJSON line does not parse (%s): %.*s\n", err,
				(int)(nl - p), p);
			abort();
		}
		p = nl + 1;
	}
}
