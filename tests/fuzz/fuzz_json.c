// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target 4: the JSON writer (src/json.c).  The input is a small program
 * of writer calls (open/close object or array, strings of arbitrary bytes as
 * values and member names, integers, booleans, nulls, ends of line) that
 * always respects the writer's contract; the output must be one valid JSON
 * value per line (per document in pretty mode), and every string must
 * decode to what docs/DESIGN.md section 2 promises for its bytes: valid UTF-8
 * kept, each invalid byte turned into U+FFFD, control bytes kept (escaped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "json.h"

#ifndef FUZZ_ENTRY
#define FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

/* Deeper than this the writer's contract (JSON_MAX_DEPTH) does not hold. */
#define FJ_DEPTH (JSON_MAX_DEPTH - 1)
#define FJ_MAXSTR 8192

struct fj {
	const unsigned char *p, *end;
	char **want;		/* expected decoded strings, in document order */
	size_t *wlen;
	size_t nwant, awant, next;
};

static unsigned fj_byte(struct fj *s)
{
	return s->p < s->end ? *s->p++ : 0;
}

/* n bytes of the input (fewer at its end) into a fresh buffer. */
static size_t fj_take(struct fj *s, size_t n, char **out)
{
	size_t left = s->end - s->p;

	if (n > left)
		n = left;
	*out = malloc(n + 1);
	if (!*out)
		abort();
	memcpy(*out, s->p, n);
	(*out)[n] = '\0';
	s->p += n;
	return n;
}

static void fj_expect(struct fj *s, const char *bytes, size_t n)
{
	char *e = malloc(n * 3 + 1);

	if (!e)
		abort();
	if (s->nwant == s->awant) {
		s->awant = s->awant ? s->awant * 2 : 64;
		s->want = realloc(s->want, s->awant * sizeof(*s->want));
		s->wlen = realloc(s->wlen, s->awant * sizeof(*s->wlen));
		if (!s->want || !s->wlen)
			abort();
	}
	s->wlen[s->nwant] = fuzz_expected_utf8((const unsigned char *)bytes, n, e);
	s->want[s->nwant++] = e;
}

static void fj_got(const char *str, size_t len, void *ctx)
{
	struct fj *s = ctx;

	if (s->next >= s->nwant) {
		fprintf(stderr, "fuzz_json: more strings in the output than written\n");
		abort();
	}
	if (len != s->wlen[s->next] || memcmp(str, s->want[s->next], len)) {
		fprintf(stderr, "fuzz_json: string %zu decodes to %zu bytes, want %zu\n",
			s->next, len, s->wlen[s->next]);
		abort();
	}
	s->next++;
}

/* A member name inside an object (a C string: it stops at a NUL), else NULL. */
static char *fj_key(struct fj *s, bool in_obj)
{
	char *k;

	if (!in_obj)
		return NULL;
	fj_take(s, fj_byte(s) % 24, &k);
	fj_expect(s, k, strlen(k));
	return k;
}

static void fj_close_one(struct json *j, bool *obj, int *depth)
{
	if (obj[*depth])
		json_obj_close(j);
	else
		json_arr_close(j);
	(*depth)--;
}

static void fj_bound(FILE *f, size_t *len, size_t **bounds, size_t *nb, size_t *ab)
{
	fflush(f);
	if (*nb == *ab) {
		*ab = *ab ? *ab * 2 : 16;
		*bounds = realloc(*bounds, *ab * sizeof(**bounds));
		if (!*bounds)
			abort();
	}
	(*bounds)[(*nb)++] = *len;
}

int FUZZ_ENTRY(const uint8_t *data, size_t size);
int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct fj s = { .p = data, .end = data + size };
	bool obj[FJ_DEPTH + 2] = { false };
	size_t *bounds = NULL, nb = 0, ab = 0, len = 0, i, start;
	char *out = NULL, *k, *v;
	int depth = 0, steps = 0;
	bool pretty, top_done = false;
	struct json j;
	FILE *f;

	if (!size)
		return 0;
	pretty = fj_byte(&s) & 1;
	f = open_memstream(&out, &len);
	if (!f)
		abort();
	json_init(&j, f, pretty);
	while (s.p < s.end && steps++ < 4096) {
		unsigned op = fj_byte(&s) % 12;

		if (op == 9) {
			if (depth > 0)
				top_done = true;
			while (depth > 0)
				fj_close_one(&j, obj, &depth);
			if (top_done) {
				json_end_line(&j);
				fj_bound(f, &len, &bounds, &nb, &ab);
				top_done = false;
			}
			continue;
		}
		if (op == 2) {
			if (depth > 0) {
				fj_close_one(&j, obj, &depth);
				if (depth == 0)
					top_done = true;
			}
			continue;
		}
		/* at the top level: one value per line */
		if (depth == 0 && top_done) {
			json_end_line(&j);
			fj_bound(f, &len, &bounds, &nb, &ab);
			top_done = false;
		}
		if (op <= 1 && depth >= FJ_DEPTH)
			op = 8;
		k = fj_key(&s, depth > 0 && obj[depth]);
		switch (op) {
		case 0:
			json_obj_open(&j, k);
			obj[++depth] = true;
			break;
		case 1:
			json_arr_open(&j, k);
			obj[++depth] = false;
			break;
		case 3:
		case 4: {
			size_t n = fj_byte(&s);

			n = op == 3 ? n * 16 + fj_byte(&s) % 16 : n % 64;

			n = fj_take(&s, n, &v);
			if (op == 3) {
				fj_expect(&s, v, n);
				json_strn(&j, k, v, n);
			} else {
				/* a C string: what follows a NUL is not part of it */
				fj_expect(&s, v, strlen(v));
				json_str(&j, k, v);
			}
			free(v);
			break;
		}
		case 5: {
			uint64_t x = 0;

			for (i = 0; i < 8; i++)
				x = x << 8 | fj_byte(&s);
			json_int(&j, k, (int64_t)x);
			break;
		}
		case 6: {
			uint64_t x = 0;

			for (i = 0; i < 8; i++)
				x = x << 8 | fj_byte(&s);
			json_uint(&j, k, x);
			break;
		}
		case 7:
			json_bool(&j, k, fj_byte(&s) & 1);
			break;
		case 10:
			json_str(&j, k, NULL);
			break;
		case 11:
			fj_expect(&s, "", 0);
			json_strn(&j, k, "", 0);
			break;
		default:
			json_null(&j, k);
			break;
		}
		free(k);
		if (depth == 0)
			top_done = true;
	}
	while (depth > 0) {
		fj_close_one(&j, obj, &depth);
		top_done = true;
	}
	if (top_done) {
		json_end_line(&j);
		fj_bound(f, &len, &bounds, &nb, &ab);
	}
	fclose(f);

	for (i = 0, start = 0; i < nb; start = bounds[i++]) {
		const char *doc = out + start, *err;
		size_t dlen = bounds[i] - start;

		if (!dlen || doc[dlen - 1] != '\n') {
			fprintf(stderr, "fuzz_json: document %zu does not end in a newline\n", i);
			abort();
		}
		if (!pretty && memchr(doc, '\n', dlen - 1)) {
			fprintf(stderr, "fuzz_json: a raw newline inside an NDJSON line\n");
			abort();
		}
		err = fuzz_json_check(doc, dlen, fj_got, &s);
		if (err) {
			fprintf(stderr, "fuzz_json: document %zu does not parse (%s): %.*s\n", i,
				err, (int)(dlen > 300 ? 300 : dlen), doc);
			abort();
		}
	}
	if (start != len) {
		fprintf(stderr, "fuzz_json: output after the last document\n");
		abort();
	}
	if (s.next != s.nwant) {
		fprintf(stderr, "fuzz_json: %zu strings written, %zu in the output\n", s.nwant,
			s.next);
		abort();
	}
	for (i = 0; i < s.nwant; i++)
		free(s.want[i]);
	free(s.want);
	free(s.wlen);
	free(bounds);
	free(out);
	return 0;
}
