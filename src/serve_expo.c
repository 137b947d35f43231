// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * serve_expo - the rows of count, hist and latency as the Prometheus text
 * exposition format (0.0.4) or OpenMetrics 1.0, for `tpctl serve`.
 *
 * count is a counter per key, hist and latency a histogram per key, with
 * one fixed bucket layout for every series and the whole life of the
 * exporter, every bucket written from the first scrape on (a layout that
 * grows or differs between series breaks histogram_quantile() and rate()
 * over buckets): latency in seconds, powers of two from 1us to 2^26 us
 * (67.1 s); hist the integers 2^k - 1 for k = 0..32 (0, 1, 3, 7, ...); or
 * the metric's --buckets, exactly (its buckets end at them).
 * Each "le" counts the values at most le: the rows' own buckets
 * ([lo, hi), whose largest value is hi - 1) whose largest value is at most
 * le; a --linear bucket that straddles an le counts from the next one on.
 * Then "+Inf", _sum and _count.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "serve.h"
#include "util.h"

/*
 * A label value: backslash, quote and newline escaped as the format says,
 * bytes that are not UTF-8 written as the text \xNN so that the output is
 * valid UTF-8 and keys that differ stay apart.
 */
void expo_label_value(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		size_t n = 0, i;

		if (*p == '\\' || *p == '"') {
			fputc('\\', f);
			fputc(*p++, f);
			continue;
		}
		if (*p == '\n') {
			fputs("\\n", f);
			p++;
			continue;
		}
		if (*p < 0x80)
			n = 1;
		else if (*p >= 0xc2 && *p <= 0xdf)
			n = 2;
		else if (*p >= 0xe0 && *p <= 0xef)
			n = 3;
		else if (*p >= 0xf0 && *p <= 0xf4)
			n = 4;
		for (i = 1; n && i < n; i++)
			if (p + i >= end || (p[i] & 0xc0) != 0x80)
				n = 0;
		/* overlong, surrogate and beyond U+10FFFF forms are not UTF-8 either */
		if (n == 3 && ((*p == 0xe0 && p[1] < 0xa0) || (*p == 0xed && p[1] >= 0xa0)))
			n = 0;
		if (n == 4 && ((*p == 0xf0 && p[1] < 0x90) || (*p == 0xf4 && p[1] >= 0x90)))
			n = 0;
		if (!n || (n == 1 && *p < 0x20 && *p != '\t')) {
			fprintf(f, "\\\\x%02x", *p++);
			continue;
		}
		fwrite(p, 1, n, f);
		p += n;
	}
}

/* A label name from a key's name ("fields.pid" -> "fields_pid"). */
static void label_name(FILE *f, const char *name)
{
	const char *p;

	if ((*name >= '0' && *name <= '9') || !strncmp(name, "__", 2))
		fputc('k', f);
	for (p = name; *p; p++)
		fputc((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' ? *p : '_', f);
}

static void print_i128(FILE *f, __int128 v)
{
	char buf[48], *p = buf + sizeof(buf);
	bool neg = v < 0;
	unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;

	*--p = '\0';
	do {
		*--p = '0' + (int)(u % 10);
		u /= 10;
	} while (u);
	if (neg)
		*--p = '-';
	fputs(p, f);
}

/* {key labels[,le="..."]}: the keys of group g of t. */
static void labels(FILE *f, const struct agg_table *t, const struct agg_group *g,
		   const char *le)
{
	const struct agg_spec *s = t->spec;
	int k;
	size_t i;

	if (!s->nkeys && !le)
		return;
	fputc('{', f);
	for (k = 0; k < s->nkeys; k++) {
		const struct agg_cell *c = &g->key[k];

		if (k)
			fputc(',', f);
		label_name(f, s->kind[k] == AGG_KEY_EVENT ? "event" : s->name[k]);
		fputs("=\"", f);
		switch (t->type[k]) {
		case AGG_COL_STR:
			expo_label_value(f, c->s ? c->s : "", c->s ? strlen(c->s) : 0);
			break;
		case AGG_COL_INT:
		case AGG_COL_ERRNO:
			fprintf(f, "%" PRId64, (int64_t)c->v);
			break;
		case AGG_COL_UINT:
			fprintf(f, "%" PRIu64, c->v);
			break;
		case AGG_COL_STACK:
			/* the return addresses, innermost first */
			for (i = 0; i < c->v; i++)
				fprintf(f, "%s0x%" PRIx64, i ? ";" : "", c->frames[i]);
			break;
		}
		fputc('"', f);
	}
	if (le)
		fprintf(f, "%sle=\"%s\"", s->nkeys ? "," : "", le);
	fputc('}', f);
}

/* A number of seconds from nanoseconds, exact in decimal. */
static void seconds(FILE *f, __int128 ns)
{
	bool neg = ns < 0;
	unsigned __int128 u = neg ? -(unsigned __int128)ns : (unsigned __int128)ns;
	char frac[16];
	int n;

	if (neg)
		fputc('-', f);
	print_i128(f, (__int128)(u / TP_NS_PER_S));
	n = snprintf(frac, sizeof(frac), "%09u", (unsigned)(u % TP_NS_PER_S));
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	if (n)
		fprintf(f, ".%s", frac);
}

/* The fixed layout: latency 1us * 2^k, k < LAT_LE_N; hist 2^k - 1, k < HIST_LE_N. */
#define LAT_LE_N 27
#define HIST_LE_N 33

void expo_metric(FILE *f, const struct expo_metric *m, const struct agg_table *t, bool om)
{
	const char *help = m->help;
	size_t i, b;

	if (m->kind == EXPO_COUNTER) {
		/* 0.0.4 names the family with _total, OpenMetrics without */
		fprintf(f, "# HELP %s%s %s\n# TYPE %s%s counter\n", m->name, om ? "" : "_total",
			help, m->name, om ? "" : "_total");
		for (i = 0; i < t->n; i++) {
			fprintf(f, "%s_total", m->name);
			labels(f, t, &t->g[i], NULL);
			fprintf(f, " %" PRIu64 "\n", t->g[i].count);
		}
		return;
	}
	fprintf(f, "# HELP %s %s\n# TYPE %s histogram\n", m->name, help, m->name);
	for (i = 0; i < t->n; i++) {
		const struct agg_group *g = &t->g[i];
		bool list = t->spec->scale == AGG_SCALE_LIST;
		int k, nle = list ? t->spec->nbounds : m->seconds ? LAT_LE_N : HIST_LE_N;
		uint64_t cum = 0;
		char le[64];
		FILE *lf;

		for (k = 0, b = 0; k < nle; k++) {
			__int128 lim = list ? (__int128)t->spec->bounds[k] :
				       m->seconds ? (__int128)1000 << k : ((__int128)1 << k) - 1;
			char *buf = NULL;
			size_t len = 0;

			/* the buckets are in ascending order: add those that end by lim */
			for (; b < g->nbuckets && g->buckets[b].hi - 1 <= lim; b++)
				cum += g->buckets[b].count;
			lf = open_memstream(&buf, &len);
			if (!lf)
				return;
			if (m->seconds)
				seconds(lf, lim);
			else
				print_i128(lf, lim);
			fclose(lf);
			snprintf(le, sizeof(le), "%s", buf);
			free(buf);
			fprintf(f, "%s_bucket", m->name);
			labels(f, t, g, le);
			fprintf(f, " %" PRIu64 "\n", cum);
		}
		fprintf(f, "%s_bucket", m->name);
		labels(f, t, g, "+Inf");
		fprintf(f, " %" PRIu64 "\n", g->count);
		fprintf(f, "%s_sum", m->name);
		labels(f, t, g, NULL);
		fputc(' ', f);
		if (m->seconds)
			seconds(f, t->vsign ? (__int128)(int64_t)g->sum : (__int128)g->sum);
		else
			print_i128(f, t->vsign ? (__int128)(int64_t)g->sum : (__int128)g->sum);
		fprintf(f, "\n%s_count", m->name);
		labels(f, t, g, NULL);
		fprintf(f, " %" PRIu64 "\n", g->count);
	}
}
