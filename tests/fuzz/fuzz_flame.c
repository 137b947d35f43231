// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target 5: the folded and SVG writers (src/flame.c).  The input is a
 * list of stacks: frames of any bytes and kinds, and weights.  The folded
 * text must split back into the same frames (each name with ';' as ':' and
 * control bytes as '?', an empty one "[unknown]", as flame.h says) and the
 * same weights, summed per stack; the SVG must be well-formed XML (a strict
 * checker below: names, nesting, quoting, entities, XML characters only),
 * hold one <svg> and only the elements the writer makes, and every <title>
 * must name a frame of the input as flame.h's SVG rule writes it.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "fuzz_common.h"

#ifndef FUZZ_ENTRY
#define FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

#define FF_STACKS 64
#define FF_FRAMES 12
#define FF_NAME 32

static void ff_fail(const char *why, const char *doc, size_t len)
{
	fprintf(stderr, "fuzz_flame: %s\n%.*s\n", why, (int)(len > 2000 ? 2000 : len), doc);
	abort();
}

/* ---- folded: a line per stack, "frames weight", compared as sorted lists ---- */

struct ff_line {
	char *text;		/* the frames joined by ';' */
	unsigned long long w;
};

static int ff_line_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ff_line *)a)->text, ((const struct ff_line *)b)->text);
}

/* Sort and sum the weights of equal lines (own: free the texts merged away); how many are left. */
static size_t ff_merge(struct ff_line *l, size_t n, bool own)
{
	size_t i, m = 0;

	qsort(l, n, sizeof(*l), ff_line_cmp);
	for (i = 0; i < n; i++) {
		if (m && !strcmp(l[m - 1].text, l[i].text)) {
			l[m - 1].w += l[i].w;
			if (own)
				free(l[i].text);
		} else {
			l[m++] = l[i];
		}
	}
	return m;
}

static void ff_folded_check(struct ff_line *want, size_t nwant, char *out, size_t len)
{
	struct ff_line got[FF_STACKS];
	size_t ngot = 0, i;
	char *p = out, *nl, *sp, *end;

	while (p < out + len) {
		nl = memchr(p, '\n', out + len - p);
		if (!nl)
			ff_fail("folded: a line without its newline", out, len);
		*nl = '\0';
		sp = strrchr(p, ' ');
		if (!sp || sp == p || ngot == FF_STACKS)
			ff_fail("folded: a line without frames and weight, or too many lines", out, len);
		*sp = '\0';
		got[ngot].w = strtoull(sp + 1, &end, 10);
		if (*end || !got[ngot].w)
			ff_fail("folded: a weight that is not a number above 0", out, len);
		got[ngot++].text = p;
		p = nl + 1;
	}
	/* names that differ may be written alike: their lines are summed on both sides */
	if (ff_merge(got, ngot, false) != nwant)
		ff_fail("folded: not the stacks written", out, 0);
	for (i = 0; i < nwant; i++)
		if (strcmp(got[i].text, want[i].text) || got[i].w != want[i].w)
			ff_fail("folded: a stack split or weighed differently", want[i].text,
				strlen(want[i].text));
}

/* ---- SVG: a strict check of well-formed XML, the few things it may hold ---- */

struct ff_xml {
	const char *p, *end;
	const char *stack[16];
	size_t nstack, nsvg, ntitle;
	char text[4096];	/* the text of the element open now, decoded */
	size_t ntext;
	char **names;		/* the input's names as the SVG must write them, and "all" */
	size_t nnames;
};

/* One XML character of valid UTF-8 at p: its length, else 0. */
static size_t ff_xml_char(const unsigned char *p, size_t left)
{
	unsigned c;
	size_t n;

	if (p[0] < 0x80)
		return p[0] >= 0x20 || p[0] == '\t' || p[0] == '\n' || p[0] == '\r';
	n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;
	if (p[0] < 0xc2 || p[0] > 0xf4 || n > left)
		return 0;
	c = p[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c < 0xe000) || c == 0xfffe || c == 0xffff)
		return 0;
	return n;
}

static const char *ff_xml_name(struct ff_xml *x)
{
	const char *s = x->p;

	if (x->p == x->end || !(isalpha((unsigned char)*x->p) || *x->p == '_' || *x->p == ':'))
		return NULL;
	while (x->p < x->end && (isalnum((unsigned char)*x->p) || strchr("._:-", *x->p)))
		x->p++;
	return s;
}

/* Character data up to stop ('<' or a quote): entities decoded into x->text. */
static const char *ff_xml_chars(struct ff_xml *x, char stop, bool keep)
{
	static const char *ent[] = { "lt;<", "gt;>", "amp;&", "quot;\"", "apos;'" };
	size_t n, i;

	while (x->p < x->end && *x->p != stop) {
		if (*x->p == '<')
			return "'<' in an attribute";
		if (x->end - x->p >= 3 && !memcmp(x->p, "]]>", 3))
			return "']]>' in text";
		if (*x->p == '&') {
			for (i = 0; i < 5; i++) {
				n = strlen(ent[i]) - 1;
				if ((size_t)(x->end - x->p - 1) >= n && !memcmp(x->p + 1, ent[i], n))
					break;
			}
			if (i == 5)
				return "'&' that is not one of the five entities";
			if (keep && x->ntext < sizeof(x->text))
				x->text[x->ntext++] = ent[i][n];
			x->p += n + 1;
			continue;
		}
		n = ff_xml_char((const unsigned char *)x->p, x->end - x->p);
		if (!n)
			return "a byte that is not an XML character";
		if (keep && x->ntext + n <= sizeof(x->text))
			memcpy(x->text + x->ntext, x->p, n), x->ntext += n;
		x->p += n;
	}
	return NULL;
}

static const char *ff_xml_skip_to(struct ff_xml *x, const char *end)
{
	const char *e = memmem(x->p, x->end - x->p, end, strlen(end));

	if (!e)
		return "a comment, processing instruction or CDATA left open";
	for (; x->p < e;) {
		size_t n = ff_xml_char((const unsigned char *)x->p, e - x->p);

		if (!n)
			return "a byte that is not an XML character";
		x->p += n;
	}
	x->p = e + strlen(end);
	return NULL;
}

/* A <title>'s text: "NAME (WEIGHT UNIT, SHARE%)" with NAME one of the input's. */
static const char *ff_xml_title(struct ff_xml *x)
{
	char *sfx;
	size_t i;

	x->text[x->ntext < sizeof(x->text) ? x->ntext : sizeof(x->text) - 1] = '\0';
	sfx = strrchr(x->text, '(');
	if (!sfx || sfx < x->text + 1 || sfx[-1] != ' ')
		return "a title without its weight";
	sfx[-1] = '\0';
	for (i = 0; i < x->nnames; i++)
		if (!strcmp(x->names[i], x->text))
			return NULL;
	return "a title that names no frame of the input";
}

static const char *ff_xml_tag(struct ff_xml *x)
{
	static const char *known = " svg style script rect text g title ";
	const char *name, *e;
	char buf[16];
	size_t n;

	name = ff_xml_name(x);
	n = name ? (size_t)(x->p - name) : 0;
	if (!n || n >= 14)
		return "an element without a name, or not one the writer makes";
	snprintf(buf, sizeof(buf), " %.*s ", (int)n, name);
	if (!strstr(known, buf))
		return "an element the writer does not make";
	x->nsvg += n == 3 && !memcmp(name, "svg", 3);
	if (!x->nstack && x->nsvg != 1)
		return "a second root element";
	for (;;) {
		while (x->p < x->end && strchr(" \t\n\r", *x->p))
			x->p++;
		if (x->p < x->end && (*x->p == '>' || *x->p == '/'))
			break;
		if (!ff_xml_name(x) || x->p == x->end || *x->p++ != '=' || x->p == x->end ||
		    (*x->p != '"' && *x->p != '\''))
			return "an attribute that is not NAME=\"VALUE\"";
		e = x->p++;
		if ((e = ff_xml_chars(x, *e, false)))
			return e;
		if (x->p++ == x->end)
			return "an attribute value left open";
	}
	if (*x->p == '/') {
		return x->end - x->p >= 2 && x->p[1] == '>' ? (x->p += 2, NULL) : "'/' not before '>'";
	}
	x->p++;
	if (x->nstack == 16)
		return "too deep";
	x->stack[x->nstack++] = name;
	x->ntext = 0;
	return NULL;
}

static const char *ff_xml_close(struct ff_xml *x)
{
	const char *name = ff_xml_name(x), *open;
	size_t n = name ? (size_t)(x->p - name) : 0;

	if (!n || !x->nstack || x->p == x->end || *x->p++ != '>')
		return "a bad end tag";
	open = x->stack[--x->nstack];
	if (strncmp(open, name, n) || (isalnum((unsigned char)open[n]) || strchr("._:-", open[n])))
		return "an end tag that does not match";
	if (n == 5 && !memcmp(name, "title", 5)) {
		x->ntitle++;
		return ff_xml_title(x);
	}
	return NULL;
}

static const char *ff_xml_check(struct ff_xml *x)
{
	const char *err;

	while (x->p < x->end) {
		if (*x->p != '<') {
			if (!x->nstack && !strchr(" \t\n\r", *x->p))
				return "text outside the root element";
			if ((err = ff_xml_chars(x, '<', true)))
				return err;
			continue;
		}
		x->p++;
		if (x->p < x->end && *x->p == '?')
			err = ff_xml_skip_to(x, "?>");
		else if (x->end - x->p >= 3 && !memcmp(x->p, "!--", 3))
			err = ff_xml_skip_to(x, "-->");
		else if (x->end - x->p >= 8 && !memcmp(x->p, "![CDATA[", 8))
			err = x->nstack ? ff_xml_skip_to(x, "]]>") : "CDATA outside the root";
		else if (x->p < x->end && *x->p == '/')
			x->p++, err = ff_xml_close(x);
		else
			err = ff_xml_tag(x);
		if (err)
			return err;
	}
	if (x->nstack || x->nsvg != 1)
		return "elements left open, or not one <svg>";
	return NULL;
}

/* ---- the input: stacks of frames and weights ---- */

/* A name as flame.h's folded rule writes it. */
static void ff_folded_name(char *out, const char *in)
{
	if (!*in)
		in = "[unknown]";
	for (; *in; in++, out++)
		*out = *in == ';' ? ':' : (unsigned char)*in < 0x20 || *in == 0x7f ? '?' : *in;
	*out = '\0';
}

/* A name as flame.h's SVG rule writes it, decoded: what the <title> holds. */
static char *ff_svg_name(const char *in)
{
	in = *in ? in : "[unknown]";
	char *u = malloc(strlen(in) * 3 + 1), *r = malloc(strlen(in) * 3 + 1);
	size_t n = fuzz_expected_utf8((const unsigned char *)in, strlen(in), u), i, m = 0;

	if (!u || !r)
		abort();
	for (i = 0; i < n; i++) {
		if ((unsigned char)u[i] < 0x20 || u[i] == 0x7f) {
			r[m++] = '?';
		} else if (i + 2 < n && !memcmp(u + i, "\xef\xbf", 2) &&
			   (unsigned char)u[i + 2] >= 0xbe) {
			memcpy(r + m, "\xef\xbf\xbd", 3);
			m += 3;
			i += 2;
		} else {
			r[m++] = u[i];
		}
	}
	r[m] = '\0';
	free(u);
	return r;
}

struct ff_in {
	const uint8_t *p, *end;
};

static unsigned ff_byte(struct ff_in *in)
{
	return in->p < in->end ? *in->p++ : 0;
}

/* One frame's name: up to FF_NAME bytes of the input, a NUL ending it early. */
static void ff_take_name(struct ff_in *in, char *name)
{
	size_t n = ff_byte(in) % FF_NAME, i;

	for (i = 0; i < n && in->p < in->end && *in->p; i++)
		name[i] = (char)*in->p++;
	name[i] = '\0';
}

static void ff_run(struct flame *fl, struct ff_line *want, size_t nwant, struct ff_xml *x)
{
	struct flame_svg o = { .title = "tpctl <svg onload=1> & \"'\x01]]>", .unit = "us" };
	char *out = NULL;
	size_t len = 0;
	const char *err;
	FILE *f = open_memstream(&out, &len);

	if (!f || flame_write_folded(fl, f) < 0 || fclose(f))
		abort();
	ff_folded_check(want, nwant, out, len);
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	if (!f || flame_write_svg(fl, f, &o) < 0 || fclose(f))
		abort();
	x->p = out;
	x->end = out + len;
	err = ff_xml_check(x);
	if (err)
		ff_fail(err, x->p - out > 200 ? x->p - 200 : out, 400);
	if (x->ntitle > 1 + (size_t)FF_STACKS * FF_FRAMES)
		ff_fail("more frames than the input has", out, len);
	free(out);
}

int FUZZ_ENTRY(const uint8_t *data, size_t size);
int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct ff_in in = { data, data + size };
	struct ff_line want[FF_STACKS];
	struct flame_frame fr[FF_FRAMES];
	char names[FF_FRAMES][FF_NAME], folded[FF_FRAMES * (FF_NAME + 1)];
	struct ff_xml x = { 0 };
	struct flame *fl = flame_new();
	size_t nwant = 0, nstacks = 0, n, k, i;
	unsigned long long w;

	x.names = calloc(1 + FF_STACKS * FF_FRAMES, sizeof(*x.names));
	if (!fl || !x.names)
		abort();
	x.names[x.nnames++] = strdup("all");
	while (in.p < in.end && nstacks++ < FF_STACKS) {
		n = 1 + ff_byte(&in) % FF_FRAMES;
		folded[0] = '\0';
		for (k = 0; k < n; k++) {
			fr[k].kind = (enum flame_kind)(ff_byte(&in) % 3);
			ff_take_name(&in, names[k]);
			fr[k].name = names[k];
			x.names[x.nnames++] = ff_svg_name(names[k]);
			if (k)
				strcat(folded, ";");
			ff_folded_name(folded + strlen(folded), names[k]);
		}
		for (w = 0, i = 0; i < 5; i++)
			w = w << 8 | ff_byte(&in);
		w >>= ff_byte(&in) % 40;
		if (flame_add(fl, fr, n, w) < 0)
			abort();
		if (w) {
			want[nwant].text = strdup(folded);
			want[nwant++].w = w;
		}
	}
	nwant = ff_merge(want, nwant, true);
	ff_run(fl, want, nwant, &x);
	for (i = 0; i < nwant; i++)
		free(want[i].text);
	for (i = 0; i < x.nnames; i++)
		free(x.names[i]);
	free(x.names);
	flame_free(fl);
	return 0;
}
