// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * output_table - the tables of count, hist and latency (agg.h) and of
 * latency sched (schedlat.h), as text or one JSON object.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "json.h"
#include "output_local.h"
#include "util.h"

#define BAR_WIDTH 52
/* Linear buckets: empty ones between two others are shown up to this many lines. */
#define GAP_LINES_MAX 200

/* A key cell as text; control bytes of strings become '?' so a terminal stays sane. */
static void agg_cell_text(char *buf, size_t size, enum agg_col_type type, const struct agg_cell *c)
{
	size_t i;

	switch (type) {
	case AGG_COL_STR:
		for (i = 0; c->s[i] && i < size - 1; i++)
			buf[i] = (unsigned char)c->s[i] < 0x20 || c->s[i] == 0x7f ? '?' : c->s[i];
		buf[i] = '\0';
		break;
	case AGG_COL_INT:
		snprintf(buf, size, "%lld", (long long)c->v);
		break;
	default:
		snprintf(buf, size, "%llu", (unsigned long long)c->v);
	}
}

/* A frame of a stack key: "name+0xoff" (the kernel's sym-offset form), a marker, or the address. */
static void agg_frame_text(FILE *f, uint64_t addr)
{
	unsigned long long off = 0;
	const char *name;
	bool sym;

	name = frame_name(addr, &off, &sym);
	if (sym)
		fprintf(f, "    %s+0x%llx\n", name, off);
	else if (name)
		fprintf(f, "    %s\n", name);
	else
		fprintf(f, "    0x%016llx\n", (unsigned long long)addr);
}

/* The keys of a group or row that is printed as a block: "k=v k=v" and the frames after. */
static int agg_block_keys(FILE *f, const struct agg_table *t, const struct agg_group *g)
{
	const struct agg_spec *s = t->spec;
	char buf[512];
	int k, n = 0;

	for (k = 0; k < s->nkeys; k++) {
		if (t->type[k] == AGG_COL_STACK)
			continue;
		agg_cell_text(buf, sizeof(buf), t->type[k], &g->key[k]);
		fprintf(f, "%s%s=%s", n++ ? " " : "", s->name[k], buf);
	}
	return n;
}

static void agg_block_frames(FILE *f, const struct agg_table *t, const struct agg_group *g)
{
	size_t i;
	int k;

	for (k = 0; k < t->spec->nkeys; k++) {
		if (t->type[k] != AGG_COL_STACK)
			continue;
		if (!g->key[k].v)
			fputs("    (no stack)\n", f);
		for (i = 0; i < g->key[k].v; i++)
			agg_frame_text(f, g->key[k].frames[i]);
	}
}

static void agg_value_text(char *buf, size_t size, bool sign, uint64_t v)
{
	if (sign)
		snprintf(buf, size, "%lld", (long long)v);
	else
		snprintf(buf, size, "%llu", (unsigned long long)v);
}

static char *i128_text(char *end, __int128 v)
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

/* A log2 bound as bpftrace writes it: 512, 1K, 4M, 16E. */
static void pow2_text(char *buf, size_t size, __int128 v)
{
	static const char sfx[] = "KMGTPE";
	char tmp[48];
	int i = -1;

	while (v >= 1024 && !(v % 1024) && i < 5) {
		v /= 1024;
		i++;
	}
	if (i >= 0)
		snprintf(buf, size, "%s%c", i128_text(tmp + sizeof(tmp), v), sfx[i]);
	else
		snprintf(buf, size, "%s", i128_text(tmp + sizeof(tmp), v));
}

/*
 * A time in ns as a reader wants it: the largest unit it reaches, three
 * significant digits at most (64us, 1.02ms, 2.5s); exact below a microsecond.
 */
static void dur_text(char *buf, size_t size, __int128 ns)
{
	static const struct {
		const char *unit;
		double div;
	} u[] = { { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 } };
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		double v = (double)ns / u[i].div;

		if (v >= 1) {
			snprintf(buf, size, v >= 100 ? "%.0f%s" : v >= 10 ? "%.3g%s" : "%.3g%s", v,
				 u[i].unit);
			return;
		}
	}
	snprintf(buf, size, "%lldns", (long long)ns);
}

/* --buckets: (bound k-1, bound k], the first from the least value, the last open */
static void list_label(char *buf, size_t size, const struct agg_spec *s, bool dur,
		       const struct agg_bucket *b)
{
	char lo[48] = "", hi[48] = "";
	int k = (int)b->index;

	if (k && dur)
		dur_text(lo, sizeof(lo), s->bounds[k - 1]);
	else if (k)
		snprintf(lo, sizeof(lo), "%lld", (long long)s->bounds[k - 1]);
	if (k < s->nbounds && dur)
		dur_text(hi, sizeof(hi), s->bounds[k]);
	else if (k < s->nbounds)
		snprintf(hi, sizeof(hi), "%lld", (long long)s->bounds[k]);
	if (!k)
		snprintf(buf, size, b->lo == 0 ? "[0, %s]" : "(..., %s]", hi);
	else if (k == s->nbounds)
		snprintf(buf, size, "(%s, ...)", lo);
	else
		snprintf(buf, size, "(%s, %s]", lo, hi);
}

static void bucket_label(char *buf, size_t size, bool log2, bool dur, const struct agg_bucket *b)
{
	char lo[48], hi[48];

	if (dur) {
		dur_text(lo, sizeof(lo), b->lo);
		dur_text(hi, sizeof(hi), b->hi);
		snprintf(buf, size, "[%s, %s)", b->lo ? lo : "0", hi);
		return;
	}
	if (log2 && b->hi == 0) {
		snprintf(buf, size, "(..., 0)");
	} else if (log2 && b->hi - b->lo == 1) {
		pow2_text(lo, sizeof(lo), b->lo);
		snprintf(buf, size, "[%s]", lo);
	} else if (log2) {
		pow2_text(lo, sizeof(lo), b->lo);
		pow2_text(hi, sizeof(hi), b->hi);
		snprintf(buf, size, "[%s, %s)", lo, hi);
	} else {
		snprintf(buf, size, "[%s, ", i128_text(lo + sizeof(lo), b->lo));
		snprintf(buf + strlen(buf), size - strlen(buf), "%s)",
			 i128_text(hi + sizeof(hi), b->hi));
	}
}

/* The bucket after b, for the empty ones shown between two others. */
static struct agg_bucket bucket_next(bool log2, __int128 unit, const struct agg_bucket *b)
{
	struct agg_bucket n = { .lo = b->hi, .count = 0 };

	if (!log2)
		n.hi = b->hi + (b->hi - b->lo);
	else
		n.hi = n.lo ? n.lo * 2 : unit;
	return n;
}

/* One bar of a histogram: label, count, '@' as many as count is of maxc. */
static void hist_line(FILE *f, const char *label, size_t lw, uint64_t count, size_t cw,
		      uint64_t maxc)
{
	size_t len = maxc ? (size_t)((unsigned __int128)count * BAR_WIDTH / maxc) : 0;
	char bar[BAR_WIDTH + 1];

	memset(bar, '@', len);
	memset(bar + len, ' ', BAR_WIDTH - len);
	bar[BAR_WIDTH] = '\0';
	fprintf(f, "%-*s %*llu |%s|\n", (int)lw, label, (int)cw, (unsigned long long)count, bar);
}

/* --buckets: every bucket of the list from the first that holds values to the last. */
static void list_hist_group(FILE *f, const struct agg_table *t, const struct agg_group *g)
{
	const struct agg_spec *s = t->spec;
	int first = (int)g->buckets[0].index, last = (int)g->buckets[g->nbuckets - 1].index, k;
	struct agg_bucket all[AGG_BOUNDS_MAX + 1];
	char label[112], num[32];
	size_t lw = 0, cw = 8, i;
	uint64_t maxc = 0;

	for (k = first; k <= last; k++) {
		agg_list_bucket(s, t->vsign, k, &all[k - first]);
		all[k - first].count = 0;
	}
	for (i = 0; i < g->nbuckets; i++)
		all[g->buckets[i].index - first].count += g->buckets[i].count;
	for (k = first; k <= last; k++) {
		list_label(label, sizeof(label), s, s->join != NULL, &all[k - first]);
		if (strlen(label) > lw)
			lw = strlen(label);
		if (all[k - first].count > maxc)
			maxc = all[k - first].count;
		if ((size_t)snprintf(num, sizeof(num), "%llu",
				     (unsigned long long)all[k - first].count) > cw)
			cw = strlen(num);
	}
	for (k = first; k <= last; k++) {
		list_label(label, sizeof(label), s, s->join != NULL, &all[k - first]);
		hist_line(f, label, lw, all[k - first].count, cw, maxc);
	}
}

static void text_hist_group(FILE *f, const struct agg_table *t, const struct agg_group *g)
{
	bool log2 = t->spec->scale == AGG_SCALE_LOG2, dur = t->spec->join != NULL;
	/* the first log2 bucket: [0] for values, [0, 1us) for latency (counted in us) */
	__int128 unit = dur && log2 ? 1000 : 1;
	struct agg_bucket *all, cur;
	size_t n = 0, i, lw = 0, cw = 8, maxc = 0;
	char label[112], num[32];
	bool fill = true;

	if (!g->nbuckets)
		return;
	if (t->spec->scale == AGG_SCALE_LIST) {
		list_hist_group(f, t, g);
		return;
	}
	if (!log2) {
		__int128 span = (g->buckets[g->nbuckets - 1].hi - g->buckets[0].lo) /
				(g->buckets[0].hi - g->buckets[0].lo);

		fill = span <= GAP_LINES_MAX;
	}
	all = calloc(fill ? (log2 ? 70 : GAP_LINES_MAX + 2) : g->nbuckets, sizeof(*all));
	if (!all)
		return;
	for (i = 0; i < g->nbuckets; i++) {
		if (fill && n) {
			for (cur = bucket_next(log2, unit, &all[n - 1]); cur.lo < g->buckets[i].lo;
			     cur = bucket_next(log2, unit, &cur))
				all[n++] = cur;
		}
		all[n++] = g->buckets[i];
	}
	for (i = 0; i < n; i++) {
		bucket_label(label, sizeof(label), log2, dur, &all[i]);
		if (strlen(label) > lw)
			lw = strlen(label);
		if (all[i].count > maxc)
			maxc = all[i].count;
		if ((size_t)snprintf(num, sizeof(num), "%llu", (unsigned long long)all[i].count) > cw)
			cw = strlen(num);
	}
	for (i = 0; i < n; i++) {
		bucket_label(label, sizeof(label), log2, dur, &all[i]);
		hist_line(f, label, lw, all[i].count, cw, maxc);
	}
	free(all);
}

static void text_agg(FILE *f, const struct agg_table *t, const struct output_agg *o)
{
	const struct agg_spec *s = t->spec;
	size_t w[AGG_MAX_KEYS + 1], i;
	bool stack = false;
	char buf[512];
	int k;

	for (k = 0; k < s->nkeys; k++)
		stack |= t->type[k] == AGG_COL_STACK;

	if (o->clear)
		fputs("\033[H\033[2J", f);
	if (o->title)
		fprintf(f, "%s\n", o->title);
	if (o->start) {
		fprintf(f, "%s -> %s", o->start, o->end);
		if (t->unmatched)
			fprintf(f, " (%llu without an end)", (unsigned long long)t->unmatched);
		fputs("\n\n", f);
	}
	if (o->hist || o->start) {
		for (i = 0; i < t->n; i++) {
			const struct agg_group *g = &t->g[i];
			char sum[32], min[32], max[32];

			if (agg_block_keys(f, t, g))
				fputs("  ", f);
			if (o->start) {
				dur_text(sum, sizeof(sum), g->count ? g->sum / g->count : 0);
				dur_text(min, sizeof(min), g->min);
				dur_text(max, sizeof(max), g->max);
				fprintf(f, "count=%llu avg=%s min=%s max=%s\n",
					(unsigned long long)g->count, sum, min, max);
			} else {
				agg_value_text(sum, sizeof(sum), t->vsign, g->sum);
				agg_value_text(min, sizeof(min), t->vsign, g->min);
				agg_value_text(max, sizeof(max), t->vsign, g->max);
				fprintf(f, "count=%llu sum=%s min=%s max=%s\n",
					(unsigned long long)g->count, sum, min, max);
			}
			agg_block_frames(f, t, g);
			text_hist_group(f, t, g);
			if (i + 1 < t->n)
				putc('\n', f);
		}
		if (!t->n)
			fprintf(f, "count=0\n");
	} else if (stack) {
		/* a stack does not fit a column: a block per row, as hist has it */
		for (i = 0; i < t->n; i++) {
			if (agg_block_keys(f, t, &t->g[i]))
				fputs("  ", f);
			fprintf(f, "count=%llu\n", (unsigned long long)t->g[i].count);
			agg_block_frames(f, t, &t->g[i]);
			if (i + 1 < t->n)
				putc('\n', f);
		}
	} else {
		/* column widths: the header and every cell */
		for (k = 0; k < s->nkeys; k++)
			w[k] = strlen(s->name[k]);
		w[k] = 5;
		for (i = 0; i < t->n; i++) {
			for (k = 0; k < s->nkeys; k++) {
				agg_cell_text(buf, sizeof(buf), t->type[k], &t->g[i].key[k]);
				if (strlen(buf) > w[k])
					w[k] = strlen(buf);
			}
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t->g[i].count);
			if (strlen(buf) > w[k])
				w[k] = strlen(buf);
		}
		/* keys named as given (a field may be called count), then COUNT */
		for (k = 0; k < s->nkeys; k++)
			fprintf(f, t->type[k] == AGG_COL_STR ? "%-*s  " : "%*s  ", (int)w[k],
				s->name[k]);
		fprintf(f, "%*s\n", (int)w[k], "COUNT");
		for (i = 0; i < t->n; i++) {
			for (k = 0; k < s->nkeys; k++) {
				agg_cell_text(buf, sizeof(buf), t->type[k], &t->g[i].key[k]);
				fprintf(f, t->type[k] == AGG_COL_STR ? "%-*s  " : "%*s  ", (int)w[k],
					buf);
			}
			fprintf(f, "%*llu\n", (int)w[k], (unsigned long long)t->g[i].count);
		}
	}
	if (t->n < t->nall)
		fprintf(f, "... %zu more\n", t->nall - t->n);
}

static void json_agg_value(struct json *j, const char *key, bool sign, uint64_t v)
{
	if (sign)
		json_int(j, key, (int64_t)v);
	else
		json_uint(j, key, v);
}

/* A stack key as the stacks of events are (DESIGN.md): [{"addr":N,"sym":"name","off":N},...] */
static void json_agg_frames(struct json *j, const char *key, const struct agg_cell *c)
{
	unsigned long long off;
	const char *name;
	size_t i;
	bool sym;

	json_arr_open(j, key);
	for (i = 0; i < c->v; i++) {
		off = 0;
		name = frame_name(c->frames[i], &off, &sym);
		json_obj_open(j, NULL);
		json_uint(j, "addr", c->frames[i]);
		json_str(j, "sym", name);
		if (sym)
			json_uint(j, "off", off);
		else
			json_null(j, "off");
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void json_agg(FILE *f, const struct agg_table *t, const struct output_agg *o)
{
	const struct agg_spec *s = t->spec;
	struct json j;
	size_t i, b;
	int k;

	bool groups = o->hist || o->start;

	json_init(&j, f, false);
	json_obj_open(&j, NULL);
	json_str(&j, "type", o->start ? "latency" : o->hist ? "hist" : "count");
	json_uint(&j, "ts_ns", o->ts_ns);
	json_uint(&j, "interval_ns", o->interval_ns);
	if (o->start) {
		json_str(&j, "start", o->start);
		json_str(&j, "end", o->end);
		json_str(&j, "unit", "ns");
	} else if (o->hist) {
		json_str(&j, "field", o->field);
	}
	json_arr_open(&j, "by");
	for (k = 0; k < s->nkeys; k++)
		json_str(&j, NULL, s->name[k]);
	json_arr_close(&j);
	json_arr_open(&j, groups ? "groups" : "rows");
	for (i = 0; i < t->n; i++) {
		const struct agg_group *g = &t->g[i];

		json_obj_open(&j, NULL);
		json_obj_open(&j, "key");
		for (k = 0; k < s->nkeys; k++) {
			if (s->kind[k] == AGG_KEY_COMM && !strcmp(g->key[k].s, "<...>"))
				json_null(&j, s->name[k]);	/* nothing knows it */
			else if (t->type[k] == AGG_COL_STR)
				json_str(&j, s->name[k], g->key[k].s);
			else if (t->type[k] == AGG_COL_STACK)
				json_agg_frames(&j, s->name[k], &g->key[k]);
			else
				json_agg_value(&j, s->name[k], t->type[k] == AGG_COL_INT, g->key[k].v);
		}
		json_obj_close(&j);
		json_uint(&j, "count", g->count);
		if (groups) {
			json_agg_value(&j, "sum", t->vsign, g->sum);
			json_agg_value(&j, "min", t->vsign, g->min);
			json_agg_value(&j, "max", t->vsign, g->max);
			json_arr_open(&j, "buckets");
			for (b = 0; b < g->nbuckets; b++) {
				json_obj_open(&j, NULL);
				json_i128(&j, "min", g->buckets[b].lo);
				json_i128(&j, "max", g->buckets[b].hi);
				json_uint(&j, "count", g->buckets[b].count);
				json_obj_close(&j);
			}
			json_arr_close(&j);
		}
		json_obj_close(&j);
	}
	json_arr_close(&j);
	if (o->start)
		json_uint(&j, "unmatched", t->unmatched);
	json_uint(&j, "lost", t->lost);
	json_obj_close(&j);
	json_end_line(&j);
}

int output_agg(FILE *f, enum output_mode mode, const struct agg_table *t,
	       const struct output_agg *o)
{
	if (mode == OUTPUT_JSON)
		json_agg(f, t, o);
	else
		text_agg(f, t, o);
	return flush_table(f);
}

/* ns as perf prints milliseconds ("%9.3f"): rounded to the microsecond, here without a double */
static void text_ms(FILE *f, const char *pre, uint64_t ns, int width)
{
	uint64_t us = (ns + 500) / 1000;
	char buf[48];

	snprintf(buf, sizeof(buf), "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
	fprintf(f, "%s%*s ms", pre, width, buf);
}

static void text_s(FILE *f, const char *pre, uint64_t ns, int width, bool ns_clock)
{
	char buf[48];

	if (ns_clock)
		snprintf(buf, sizeof(buf), "%" PRIu64 ".%06" PRIu64, ns / 1000000000,
			 ns / 1000 % 1000000);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, ns);
	fprintf(f, "%s%*s s", pre, width, buf);
}

static void text_rule(FILE *f, int width)
{
	fputc(' ', f);
	while (width--)
		fputc('-', f);
	fputc('\n', f);
}

static void text_sched(FILE *f, const struct sched_table *t, bool ns_clock)
{
	char name[64];
	size_t i;

	fputc('\n', f);
	text_rule(f, 139);
	fprintf(f, "  %-22s|   Runtime ms  | Switches | Avg delay ms    | Max delay ms    |"
		" Max delay start           | Max delay end          |\n", "Task");
	text_rule(f, 139);
	for (i = 0; i < t->n; i++) {
		const struct sched_task *k = &t->tasks[i];

		snprintf(name, sizeof(name), "%s:%d", k->comm ? k->comm : "<...>", k->pid);
		fprintf(f, "  %-22s|", name);
		text_ms(f, "", k->runtime_ns, 10);
		fprintf(f, " |%9" PRIu64 " |", k->switches);
		text_ms(f, " avg:", k->avg_delay_ns, 8);
		text_ms(f, " | max:", k->max_delay_ns, 8);
		text_s(f, " | max start:", k->max_delay_ts_ns, 12, ns_clock);
		text_s(f, " | max end:", k->max_delay_end_ns, 12, ns_clock);
		fputc('\n', f);
	}
	text_rule(f, 139);
	fprintf(f, "  %-22s|", "TOTAL:");
	text_ms(f, "", t->runtime_ns, 10);
	fprintf(f, " |%9" PRIu64 " |\n", t->switches);
	text_rule(f, 51);
	fputc('\n', f);
}

static void json_sched(FILE *f, const struct sched_table *t)
{
	struct json j;
	size_t i;

	json_init(&j, f, false);
	json_obj_open(&j, NULL);
	json_str(&j, "type", "sched");
	json_arr_open(&j, "tasks");
	for (i = 0; i < t->n; i++) {
		const struct sched_task *k = &t->tasks[i];

		json_obj_open(&j, NULL);
		json_int(&j, "pid", k->pid);
		json_str(&j, "comm", k->comm);
		json_uint(&j, "runtime_ns", k->runtime_ns);
		json_uint(&j, "switches", k->switches);
		json_uint(&j, "avg_delay_ns", k->avg_delay_ns);
		json_uint(&j, "max_delay_ns", k->max_delay_ns);
		json_uint(&j, "max_delay_ts_ns", k->max_delay_ts_ns);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	json_end_line(&j);
}

int output_sched(FILE *f, enum output_mode mode, const struct sched_table *t, bool ns_clock)
{
	if (mode == OUTPUT_JSON)
		json_sched(f, t);
	else
		text_sched(f, t, ns_clock);
	return flush_table(f);
}
