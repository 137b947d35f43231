// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * output_table - the tables of count, hist and latency (agg.h) and of
 * latency sched (output.h), as text or one JSON object: the same walk of a
 * table writes either (print.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg.h"
#include "errname.h"
#include "output_local.h"
#include "print.h"
#include "util.h"

#define BAR_WIDTH 52
/* Linear buckets: empty ones between two others are shown up to this many lines. */
#define GAP_LINES_MAX 200

/* A key cell as text; control bytes of strings become '?' so a terminal stays sane. */
static void agg_cell_text(char *buf, size_t size, enum agg_col_type type, const struct agg_cell *c)
{
	const char *name;
	size_t i;

	switch (type) {
	case AGG_COL_STR:
		if (!c->s) {
			snprintf(buf, size, "?");	/* nothing knows it */
			break;
		}
		for (i = 0; c->s[i] && i < size - 1; i++)
			buf[i] = (unsigned char)c->s[i] < 0x20 || c->s[i] == 0x7f ? '?' : c->s[i];
		buf[i] = '\0';
		break;
	case AGG_COL_INT:
		snprintf(buf, size, "%lld", (long long)c->v);
		break;
	case AGG_COL_ERRNO:
		/* "-2 ENOENT", as strace names it */
		name = errname_ret((int64_t)c->v);
		snprintf(buf, size, "%lld%s%s", (long long)c->v, name ? " " : "", name ? name : "");
		break;
	default:
		snprintf(buf, size, "%llu", (unsigned long long)c->v);
	}
}

/* A frame of a stack key: "name+0xoff" (the kernel's sym-offset form), a marker, or the address. */
static void agg_frame_text(struct print *p, uint64_t addr)
{
	unsigned long long off = 0;
	const char *name;
	bool sym;

	name = frame_name(addr, &off, &sym);
	if (sym)
		print_text(p, "    %s+0x%llx\n", name, off);
	else if (name)
		print_text(p, "    %s\n", name);
	else
		print_text(p, "    0x%016llx\n", (unsigned long long)addr);
}

/* The frames of the stack keys of a row printed as a block, in the text after its line. */
static void agg_block_frames(struct print *p, const struct agg_table *t, const struct agg_group *g)
{
	size_t i;
	int k;

	for (k = 0; k < t->spec->nkeys; k++) {
		if (t->type[k] != AGG_COL_STACK)
			continue;
		if (!g->key[k].v)
			print_text(p, "    (no stack)\n");
		for (i = 0; i < g->key[k].v; i++)
			agg_frame_text(p, g->key[k].frames[i]);
	}
}

static void agg_value_text(char *buf, size_t size, bool sign, uint64_t v)
{
	if (sign)
		snprintf(buf, size, "%lld", (long long)v);
	else
		snprintf(buf, size, "%llu", (unsigned long long)v);
}

/* A log2 bound as bpftrace writes it: 512, 1K, 4M, 16E. */
static void pow2_text(char *buf, size_t size, __int128 v)
{
	static const char sfx[] = "KMGTPE";
	char tmp[JSON_I128_LEN];
	int i = -1;

	while (v >= 1024 && !(v % 1024) && i < 5) {
		v /= 1024;
		i++;
	}
	if (i >= 0)
		snprintf(buf, size, "%s%c", json_i128_digits(tmp + sizeof(tmp), v), sfx[i]);
	else
		snprintf(buf, size, "%s", json_i128_digits(tmp + sizeof(tmp), v));
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
		snprintf(buf, size, "[%s, ", json_i128_digits(lo + sizeof(lo), b->lo));
		snprintf(buf + strlen(buf), size - strlen(buf), "%s)",
			 json_i128_digits(hi + sizeof(hi), b->hi));
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
static void hist_line(struct print *p, const char *label, size_t lw, uint64_t count, size_t cw,
		      uint64_t maxc)
{
	size_t len = maxc ? (size_t)((unsigned __int128)count * BAR_WIDTH / maxc) : 0;
	char bar[BAR_WIDTH + 1];

	memset(bar, '@', len);
	memset(bar + len, ' ', BAR_WIDTH - len);
	bar[BAR_WIDTH] = '\0';
	print_text(p, "%-*s %*llu |%s|\n", (int)lw, label, (int)cw, (unsigned long long)count, bar);
}

/* --buckets: every bucket of the list from the first that holds values to the last. */
static void list_hist_group(struct print *p, const struct agg_table *t, const struct agg_group *g)
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
		hist_line(p, label, lw, all[k - first].count, cw, maxc);
	}
}

/* A group's histogram in the text: a bar per bucket, the empty ones between shown. */
static void text_hist_group(struct print *p, const struct agg_table *t, const struct agg_group *g)
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
		list_hist_group(p, t, g);
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
		hist_line(p, label, lw, all[i].count, cw, maxc);
	}
	free(all);
}

/* A stack key in JSON as the stacks of events are: [{"addr":N,"sym":"name","off":N},...] */
static void agg_frames_json(struct print *p, const char *key, const struct agg_cell *c)
{
	unsigned long long off;
	const char *name;
	size_t i;
	bool sym;

	print_open_array(p, key);
	for (i = 0; i < c->v; i++) {
		off = 0;
		name = frame_name(c->frames[i], &off, &sym);
		print_open_object(p, NULL);
		print_uint(p, PRINT_JSON, "addr", NULL, c->frames[i]);
		print_string(p, PRINT_JSON, "sym", NULL, name);
		if (sym)
			print_uint(p, PRINT_JSON, "off", NULL, off);
		else
			print_null(p, PRINT_JSON, "off", NULL, NULL);
		print_close_object(p);
	}
	print_close_array(p);
}

/*
 * Key k of a row: a member of its "key" object in JSON (a task nothing
 * knows the name of is null), its text through fmt; a stack is JSON's here,
 * the text has its frames below the row's line (agg_block_frames).
 */
static void agg_key_cell(struct print *p, const struct agg_table *t, const struct agg_group *g,
			 int k, const char *fmt)
{
	const struct agg_spec *s = t->spec;
	const struct agg_cell *c = &g->key[k];
	char buf[512];

	if (t->type[k] == AGG_COL_STACK) {
		agg_frames_json(p, s->name[k], c);
		return;
	}
	if (s->kind[k] == AGG_KEY_COMM && c->s && !strcmp(c->s, "<...>"))
		print_null(p, PRINT_JSON, s->name[k], NULL, NULL);
	else if (t->type[k] == AGG_COL_STR)
		print_string(p, PRINT_JSON, s->name[k], NULL, c->s);
	else if (t->type[k] == AGG_COL_INT || t->type[k] == AGG_COL_ERRNO)
		print_int(p, PRINT_JSON, s->name[k], NULL, (int64_t)c->v);
	else
		print_uint(p, PRINT_JSON, s->name[k], NULL, c->v);
	/* a syscall's return value: its errno name beside it, null for none */
	if (t->type[k] == AGG_COL_ERRNO)
		print_string(p, PRINT_JSON, "errno", NULL, errname_ret((int64_t)c->v));
	agg_cell_text(buf, sizeof(buf), t->type[k], c);
	print_string(p, PRINT_TEXT, NULL, fmt, buf);
}

/* The keys of a row printed as a block: "k=v k=v" and two spaces in the text, if any. */
static void agg_block_keys(struct print *p, const struct agg_table *t, const struct agg_group *g)
{
	int k, n = 0;

	for (k = 0; k < t->spec->nkeys; k++) {
		if (t->type[k] != AGG_COL_STACK)
			print_text(p, "%s%s=", n++ ? " " : "", t->spec->name[k]);
		agg_key_cell(p, t, g, k, "%s");
	}
	if (n)
		print_text(p, "  ");
}

/* A value of the rows (sum, min, max): signed as the table says; the text through fmt. */
static void agg_stat(struct print *p, const struct agg_table *t, bool dur, const char *key,
		     const char *fmt, uint64_t v)
{
	char buf[32];

	if (t->vsign)
		print_int(p, PRINT_JSON, key, NULL, (int64_t)v);
	else
		print_uint(p, PRINT_JSON, key, NULL, v);
	if (dur)
		dur_text(buf, sizeof(buf), v);
	else
		agg_value_text(buf, sizeof(buf), t->vsign, v);
	print_string(p, PRINT_TEXT, NULL, fmt, buf);
}

/*
 * A group of hist or latency after its keys: "count=N sum=S min=M max=X"
 * (latency: avg= and durations) in the text, its frames and its histogram
 * below; count, sum, min, max and the non-empty buckets in JSON.
 */
static void agg_group(struct print *p, const struct agg_table *t, const struct agg_group *g,
		      bool dur)
{
	char avg[32];
	size_t b;

	print_uint(p, PRINT_ANY, "count", "count=%llu", g->count);
	dur_text(avg, sizeof(avg), g->count ? g->sum / g->count : 0);
	if (dur)
		print_string(p, PRINT_TEXT, NULL, " avg=%s", avg);
	agg_stat(p, t, dur, "sum", dur ? NULL : " sum=%s", g->sum);
	agg_stat(p, t, dur, "min", " min=%s", g->min);
	agg_stat(p, t, dur, "max", " max=%s\n", g->max);
	agg_block_frames(p, t, g);
	text_hist_group(p, t, g);
	print_open_array(p, "buckets");
	for (b = 0; b < g->nbuckets; b++) {
		print_open_object(p, NULL);
		print_i128(p, PRINT_JSON, "min", NULL, g->buckets[b].lo);
		print_i128(p, PRINT_JSON, "max", NULL, g->buckets[b].hi);
		print_uint(p, PRINT_JSON, "count", NULL, g->buckets[b].count);
		print_close_object(p);
	}
	print_close_array(p);
}

/*
 * hist and latency (groups), and count with a stack key (a stack does not
 * fit a column): a block per row, an empty line between them.
 */
static void agg_blocks(struct print *p, const struct agg_table *t, const struct output_agg *o,
		       bool groups)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		print_open_object(p, NULL);
		print_open_object(p, "key");
		agg_block_keys(p, t, &t->g[i]);
		print_close_object(p);
		if (groups) {
			agg_group(p, t, &t->g[i], o->start != NULL);
		} else {
			print_uint(p, PRINT_ANY, "count", "count=%llu\n", t->g[i].count);
			agg_block_frames(p, t, &t->g[i]);
		}
		print_close_object(p);
		if (i + 1 < t->n)
			print_nl(p);
	}
	if (groups && !t->n)
		print_text(p, "count=0\n");
}

/*
 * count: a column per key (strings left-aligned), then COUNT; the text's
 * widths from the header and every cell.  fmt[k]: column k's text format.
 */
static void agg_columns(struct print *p, const struct agg_table *t)
{
	const struct agg_spec *s = t->spec;
	char fmt[AGG_MAX_KEYS + 1][16], buf[512];
	size_t w[AGG_MAX_KEYS + 1], i;
	int k;

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
	for (k = 0; k < s->nkeys; k++) {
		snprintf(fmt[k], sizeof(fmt[k]),
			 t->type[k] == AGG_COL_STR ? "%%-%zus  " : "%%%zus  ", w[k]);
		print_string(p, PRINT_TEXT, NULL, fmt[k], s->name[k]);
	}
	print_text(p, "%*s\n", (int)w[k], "COUNT");
	snprintf(fmt[k], sizeof(fmt[k]), "%%%zullu\n", w[k]);
	for (i = 0; i < t->n; i++) {
		print_open_object(p, NULL);
		print_open_object(p, "key");
		for (k = 0; k < s->nkeys; k++)
			agg_key_cell(p, t, &t->g[i], k, fmt[k]);
		print_close_object(p);
		print_uint(p, PRINT_ANY, "count", fmt[k], t->g[i].count);
		print_close_object(p);
	}
}

/* What the table is: the text's title and START -> END line; JSON's type, times and keys. */
static void agg_head(struct print *p, const struct agg_table *t, const struct output_agg *o)
{
	int k;

	if (o->clear)
		print_text(p, "\033[H\033[2J");
	if (o->title)
		print_text(p, "%s\n", o->title);
	print_string(p, PRINT_JSON, "type", NULL, o->start ? "latency" : o->hist ? "hist" : "count");
	print_uint(p, PRINT_JSON, "ts_ns", NULL, o->ts_ns);
	print_uint(p, PRINT_JSON, "interval_ns", NULL, o->interval_ns);
	if (o->start) {
		print_string(p, PRINT_ANY, "start", "%s -> ", o->start);
		print_string(p, PRINT_ANY, "end", "%s", o->end);
		print_string(p, PRINT_JSON, "unit", NULL, "ns");
		if (t->unmatched)
			print_text(p, " (%llu without an end)", (unsigned long long)t->unmatched);
		print_text(p, "\n\n");
	} else if (o->hist) {
		print_string(p, PRINT_JSON, "field", NULL, o->field);
	}
	print_open_array(p, "by");
	for (k = 0; k < t->spec->nkeys; k++)
		print_string(p, PRINT_JSON, NULL, NULL, t->spec->name[k]);
	print_close_array(p);
}

int output_agg(FILE *f, enum output_mode mode, const struct agg_table *t,
	       const struct output_agg *o)
{
	bool groups = o->hist || o->start, stack = false;
	struct print p;
	int k;

	for (k = 0; k < t->spec->nkeys; k++)
		stack |= t->type[k] == AGG_COL_STACK;
	print_start(&p, f, mode == OUTPUT_JSON);
	agg_head(&p, t, o);
	print_open_array(&p, groups ? "groups" : "rows");
	if (groups || stack)
		agg_blocks(&p, t, o, groups);
	else
		agg_columns(&p, t);
	print_close_array(&p);
	if (t->n < t->nall)
		print_text(&p, "... %zu more\n", t->nall - t->n);
	if (o->start)
		print_uint(&p, PRINT_JSON, "unmatched", NULL, t->unmatched);
	print_uint(&p, PRINT_JSON, "lost", NULL, t->lost);
	print_end(&p);
	return flush_table(f);
}

void output_agg_title(char *buf, size_t size, bool totals, double secs, unsigned long long lost)
{
	time_t wall = time(NULL);
	struct tm tm;
	size_t n;

	localtime_r(&wall, &tm);
	n = totals ? (size_t)snprintf(buf, size, "totals") : strftime(buf, size, "%H:%M:%S", &tm);
	n += snprintf(buf + n, size - n, " (%.2f s", secs);
	if (lost)
		n += snprintf(buf + n, size - n, ", %llu events lost", lost);
	snprintf(buf + n, size - n, ")");
}

/*
 * ns as perf prints milliseconds ("%9.3f"): rounded to the microsecond, here
 * without a double; in JSON as key (NULL: none), in ns.
 */
static void sched_ms(struct print *p, const char *key, const char *pre, uint64_t ns, int width)
{
	uint64_t us = (ns + 500) / 1000;
	char buf[48];

	if (key)
		print_uint(p, PRINT_JSON, key, NULL, ns);
	snprintf(buf, sizeof(buf), "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
	print_text(p, "%s%*s ms", pre, width, buf);
}

/* A timestamp in seconds (ns_clock false: the counter's raw value); in JSON as key. */
static void sched_s(struct print *p, const char *key, const char *pre, uint64_t ns, int width,
		    bool ns_clock)
{
	char buf[48];

	if (key)
		print_uint(p, PRINT_JSON, key, NULL, ns);
	if (ns_clock)
		snprintf(buf, sizeof(buf), "%" PRIu64 ".%06" PRIu64, (uint64_t)(ns / TP_NS_PER_S),
			 ns / 1000 % 1000000);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, ns);
	print_text(p, "%s%*s s", pre, width, buf);
}

static void sched_rule(struct print *p, int width)
{
	print_text(p, " ");
	while (width--)
		print_text(p, "-");
	print_nl(p);
}

/* A task's row: perf's line in the text, an object in JSON. */
static void sched_task(struct print *p, const struct sched_task *k, bool ns_clock)
{
	char name[64];

	snprintf(name, sizeof(name), "%s:%d", k->comm ? k->comm : "<...>", k->pid);
	print_open_object(p, NULL);
	print_int(p, PRINT_JSON, "pid", NULL, k->pid);
	print_string(p, PRINT_JSON, "comm", NULL, k->comm);
	print_text(p, "  %-22s|", name);
	sched_ms(p, "runtime_ns", "", k->runtime_ns, 10);
	print_uint(p, PRINT_ANY, "switches", " |%9llu |", k->switches);
	sched_ms(p, "avg_delay_ns", " avg:", k->avg_delay_ns, 8);
	sched_ms(p, "max_delay_ns", " | max:", k->max_delay_ns, 8);
	sched_s(p, "max_delay_ts_ns", " | max start:", k->max_delay_ts_ns, 12, ns_clock);
	sched_s(p, NULL, " | max end:", k->max_delay_end_ns, 12, ns_clock);
	print_nl(p);
	print_close_object(p);
}

int output_sched(FILE *f, enum output_mode mode, const struct sched_table *t, bool ns_clock)
{
	struct print p;
	size_t i;

	print_start(&p, f, mode == OUTPUT_JSON);
	print_string(&p, PRINT_JSON, "type", NULL, "sched");
	print_nl(&p);
	sched_rule(&p, 139);
	print_text(&p, "  %-22s|   Runtime ms  | Switches | Avg delay ms    | Max delay ms    |"
		   " Max delay start           | Max delay end          |\n", "Task");
	sched_rule(&p, 139);
	print_open_array(&p, "tasks");
	for (i = 0; i < t->n; i++)
		sched_task(&p, &t->tasks[i], ns_clock);
	print_close_array(&p);
	sched_rule(&p, 139);
	print_text(&p, "  %-22s|", "TOTAL:");
	sched_ms(&p, NULL, "", t->runtime_ns, 10);
	print_text(&p, " |%9" PRIu64 " |\n", t->switches);
	sched_rule(&p, 51);
	print_nl(&p);
	print_end(&p);
	return flush_table(f);
}
