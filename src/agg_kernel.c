// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * agg_kernel - the kernel engine (see agg.h): hist triggers of the events,
 * and of latency a synthetic event fired by END's trigger; their `hist`
 * files read back into the rows (agg.c).  Made with libtracefs's builders.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "agg_local.h"
#include "tfs.h"
#include "util.h"

/* ---------------------------------------------------------------- kernel engine */

static int kkey_add(struct ev *e, const char *name, enum kk_type type)
{
	int i;

	for (i = 0; i < e->nkk; i++)
		if (!strcmp(e->kk[i].name, name))
			return i;
	if (e->nkk == KERNEL_KEYS_MAX)
		return -1;
	e->kk[e->nkk].name = name;
	e->kk[e->nkk].type = type;
	return e->nkk++;
}

/*
 * Which keys the trigger needs, in the order its hist file prints them:
 * the task first, the CPU, numbers, the value, and strings last (a string
 * is printed padded and unquoted, so it is found from what follows it).
 */
static const char *kernel_plan(struct agg *a, struct ev *e)
{
	const struct agg_spec *s = a->spec;
	bool comm = false, pid = false, cpu = false;
	const char *cpu_name = "cpu";
	const struct dec_event *de = decoder_event(a->dec, e->id);
	int k;

	if (s->scale == AGG_SCALE_LIST)
		return "--buckets (the kernel's buckets are powers of two or of one width)";
	for (k = 0; k < s->nkeys; k++) {
		comm |= s->kind[k] == AGG_KEY_COMM;
		pid |= s->kind[k] == AGG_KEY_PID;
		cpu |= s->kind[k] == AGG_KEY_CPU;
		if (s->kind[k] == AGG_KEY_STACK)
			return "the kernel's stack keys are not the stacks tpctl shows";
	}
	/* an event field called cpu hides the kernel's own cpu key */
	if (de && agg_field_find(de, "cpu"))
		cpu_name = "common_cpu";
	e->nkk = 0;
	e->vkk = -1;
	if (comm || pid)
		kkey_add(e, "common_pid", comm ? KK_EXECNAME : KK_PID);
	if (cpu)
		kkey_add(e, cpu_name, KK_NUM);
	for (k = 0; k < s->nkeys; k++) {
		struct col *c = &e->col[k];

		if (c->kind == AGG_KEY_COMM || c->kind == AGG_KEY_PID)
			c->kk = 0;
		else if (c->kind == AGG_KEY_CPU)
			c->kk = comm || pid ? 1 : 0;
		else if (c->kind == AGG_KEY_FIELD && !c->str &&
			 (c->kk = kkey_add(e, c->f->name, KK_NUM)) < 0)
			return "more than three keys";
	}
	if (e->vf && (e->vkk = kkey_add(e, e->vf->name, KK_NUM)) < 0)
		return "more than three keys";
	for (k = 0; k < s->nkeys; k++) {
		struct col *c = &e->col[k];

		if (c->kind == AGG_KEY_FIELD && c->str &&
		    (c->kk = kkey_add(e, c->f->name, KK_STR)) < 0)
			return "more than three keys";
	}
	/* a trigger needs a key: the CPU keeps the table small, and rows are merged anyway */
	if (!e->nkk)
		kkey_add(e, cpu_name, KK_NUM);
	return NULL;
}

struct tracefs_hist *agg_kernel_hist(struct agg *a, int i, const char **why)
{
	struct tracefs_hist_axis axes[KERNEL_KEYS_MAX + 1];
	struct ev *e = &a->ev[i];
	int k;

	/*
	 * The kernel pairs events only through synthetic events (a hist
	 * variable saved at START, onmatch() at END); tpctl does not make them
	 * yet, so latency is the user engine's.
	 */
	/* a latency's trigger is its synthetic event's (agg_kernel_join) */
	if (a->spec->join) {
		*why = "a latency is paired by agg_kernel_join";
		return NULL;
	}
	if (!e->kplanned) {
		e->kwhy = kernel_plan(a, e);
		e->kplanned = true;
	}
	*why = e->kwhy;
	if (e->kwhy)
		return NULL;
	for (k = 0; k < e->nkk; k++) {
		axes[k].key = e->kk[k].name;
		axes[k].type = e->kk[k].type == KK_EXECNAME ? TRACEFS_HIST_KEY_EXECNAME :
			       TRACEFS_HIST_KEY_NORMAL;
	}
	axes[k].key = NULL;
	axes[k].type = 0;
	return tracefs_hist_alloc_nd(a->tep, e->sys, e->name, axes);
}

static const char *skip_spaces(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/* "NAME: " (the name as the kernel prints it, not checked); the value after it. */
static const char *skip_name(const char *p, const char *end)
{
	const char *c = memchr(p, ':', end - p);

	return c && c + 1 < end && c[1] == ' ' ? c + 2 : NULL;
}

static const char *parse_u64(const char *p, uint64_t *v)
{
	char *end;

	p = skip_spaces(p);
	if (*p < '0' || *p > '9')
		return NULL;
	*v = strtoull(p, &end, 10);
	return end;
}

struct kvals {
	uint64_t v[KERNEL_KEYS_MAX];
	const char *s[KERNEL_KEYS_MAX];
	size_t len[KERNEL_KEYS_MAX];
	const char *comm;
	size_t commlen;
	uint64_t hits;
};

/*
 * One entry of a hist file, "{ common_pid: bash [ 1234], len: 12 } hitcount: 3",
 * the kernel's layout: "%-16s[%10llu]" for a task, "%10llu" for numbers,
 * "%-50s" for strings, then " hitcount: %10llu" and the other values.
 */
static bool parse_entry(const struct ev *e, const char *p, const char *end, struct kvals *kv)
{
	const char *hc = NULL, *q;
	int k;

	/* the last " } hitcount:" ends the keys, whatever a string key holds */
	for (q = p; (q = memmem(q, end - q, " } hitcount:", 12)); q++)
		hc = q;
	if (!hc || strncmp(p, "{ ", 2))
		return false;
	p += 2;
	for (k = 0; k < e->nkk; k++) {
		if (k) {
			if (strncmp(p, ", ", 2))
				return false;
			p += 2;
		}
		p = skip_name(p, hc);
		if (!p)
			return false;
		switch (e->kk[k].type) {
		case KK_EXECNAME:
			q = hc - p > TASK_COMM && p[TASK_COMM] == '[' ? p + TASK_COMM :
			    memchr(p, '[', hc - p);
			if (!q)
				return false;
			kv->comm = p;
			for (kv->commlen = q - p; kv->commlen && p[kv->commlen - 1] == ' ';)
				kv->commlen--;
			p = parse_u64(q + 1, &kv->v[k]);
			if (!p || *p != ']')
				return false;
			p++;
			break;
		case KK_PID:
		case KK_NUM:
			p = parse_u64(p, &kv->v[k]);
			if (!p)
				return false;
			break;
		case KK_STR: {
			const char *stop = hc;
			char next[300];

			if (k + 1 < e->nkk) {
				snprintf(next, sizeof(next), ", %s: ", e->kk[k + 1].name);
				stop = memmem(p, hc - p, next, strlen(next));
				if (!stop)
					return false;
			}
			kv->s[k] = p;
			for (kv->len[k] = stop - p; kv->len[k] && p[kv->len[k] - 1] == ' ';)
				kv->len[k]--;
			p = stop;
			break;
		}
		}
	}
	if (skip_spaces(p) != hc + 1)
		return false;
	return parse_u64(hc + 12, &kv->hits) != NULL;
}

/* A latency row's key from the values of the synthetic event's hist entry. */
static size_t join_kernel_key(struct agg *a, const struct ev *e, const struct kvals *kv,
			      unsigned char *key)
{
	size_t k = 4;
	int c, s;

	for (c = 0; c < a->spec->nkeys; c++) {
		const struct col *cl = &e->col[c];
		const struct jside *js = NULL;
		const char *p;
		int32_t i32;
		uint64_t v = kv->v[cl->kk];

		for (s = 0; s < a->njs; s++)
			if (a->js[s].end == a->kend[c])
				js = &a->js[s];
		switch (a->lk[c]) {
		case LK_NAMES:
			if (v < js->kn[c].n && js->kn[c].v[v]) {
				p = js->kn[c].v[v];
				k += put_str(key + k, p, strlen(p));
			} else {
				char num[32];
				int n = snprintf(num, sizeof(num), js->kn[c].v == a->sysnames.v ?
						 "sys_%llu" : "%llu", (unsigned long long)v);

				k += put_str(key + k, num, n);
			}
			break;
		case LK_COMM:
			if (cl->str)
				k += put_str(key + k, kv->s[cl->kk], kv->len[cl->kk]);
			else
				k += put_str(key + k, kv->comm, kv->commlen);
			break;
		case LK_PID:
			i32 = (int32_t)v;
			memcpy(key + k, &i32, 4);
			k += 4;
			break;
		case LK_STR:
			k += put_str(key + k, kv->s[cl->kk], kv->len[cl->kk]);
			break;
		default:
			memcpy(key + k, &v, 8);
			k += 8;
			break;
		}
	}
	return k;
}

/*
 * The end of the entry at line (its line's end): a string key holding a
 * newline (a task may name itself so) carries the entry on to the line of
 * its " } hitcount:".
 */
static const char *entry_end(const char *line, const char *end, const char *textend)
{
	const char *hc;

	if (memmem(line, end - line, " } hitcount:", 12))
		return end;
	hc = memmem(end, textend - end, " } hitcount:", 12);
	if (hc)
		end = memchr(hc, '\n', textend - hc);
	return end ? end : textend;
}

/* The exact key of an entry of event idx: what this entry counted until now. */
static size_t exact_key(const struct ev *e, const struct kvals *kv, uint32_t idx,
			unsigned char *xkey)
{
	size_t x = 4;
	int c;

	memcpy(xkey, &idx, 4);
	for (c = 0; c < e->nkk; c++) {
		if (e->kk[c].type == KK_STR) {
			x += put_str(xkey + x, kv->s[c], kv->len[c]);
		} else {
			memcpy(xkey + x, &kv->v[c], 8);
			x += 8;
		}
	}
	return x;
}

/* The row key of an entry of event idx, laid out as agg_record lays it out. */
static size_t row_key(const struct agg *a, const struct ev *e, const struct kvals *kv,
		      uint32_t idx, unsigned char *key)
{
	size_t k = 4;
	int c;

	memcpy(key, &idx, 4);
	for (c = 0; c < a->spec->nkeys; c++) {
		const struct col *cl = &e->col[c];
		int32_t i32;

		switch (cl->kind) {
		case AGG_KEY_COMM:
			k += put_str(key + k, kv->comm, kv->commlen);
			break;
		case AGG_KEY_PID:
		case AGG_KEY_CPU:
			i32 = (int32_t)kv->v[cl->kk];
			memcpy(key + k, &i32, 4);
			k += 4;
			break;
		case AGG_KEY_FIELD:
			if (cl->str) {
				k += put_str(key + k, kv->s[cl->kk], kv->len[cl->kk]);
			} else {
				memcpy(key + k, &kv->v[cl->kk], 8);
				k += 8;
			}
			break;
		default:
			break;
		}
	}
	return k;
}

int agg_kernel_update(struct agg *a, int i, const char *text, uint64_t *dropped)
{
	const struct ev *e = &a->ev[i];
	const char *line, *end, *textend = text + strlen(text);
	unsigned char key[KEY_MAX], xkey[KEY_MAX];
	uint32_t idx = i + 1;
	int bad = 0;

	*dropped = 0;
	/*
	 * A task's name is the entry's own (the execname the kernel saved when
	 * the entry was made), in the row's key: a pid's entries made before
	 * and after an exec, or a pid used again, keep their names, so that a
	 * row's count never moves from one name to another between two reads
	 * (tpctl serve's counters only grow).
	 */
	a->kcomm = true;
	for (line = text; line < textend; line = end + 1) {
		struct kvals kv;
		struct row *r;
		uint64_t delta, val = 0;
		size_t k, x;

		end = memchr(line, '\n', textend - line);
		if (!end)
			end = textend;
		if (!strncmp(skip_spaces(line), "Dropped:", 8)) {
			parse_u64(skip_spaces(line) + 8, dropped);
			continue;
		}
		if (*line != '{')
			continue;
		end = entry_end(line, end, textend);
		memset(&kv, 0, sizeof(kv));
		if (!parse_entry(e, line, end, &kv)) {
			bad++;
			continue;
		}
		x = exact_key(e, &kv, idx, xkey);
		r = agg_tab_get(&a->kprev, xkey, x, hash_bytes(xkey, x));
		if (!r || kv.hits <= r->count)
			continue;
		delta = kv.hits - r->count;
		r->count = kv.hits;
		if (a->spec->join) {
			memcpy(key, &idx, 4);
			k = join_kernel_key(a, e, &kv, key);
			/* the synthetic event's time is in microseconds */
			agg_rows_add(a, &a->cur, key, k, kv.v[e->vkk] * 1000, delta);
			continue;
		}
		k = row_key(a, e, &kv, idx, key);
		if (e->vf)
			val = kv.v[e->vkk];
		agg_rows_add(a, &a->cur, key, k, val, delta);
	}
	return bad ? -1 : 0;
}

/* ---------------------------------------------------------------- kernel engine of latency */

static int synth_start_filter(void *ctx, enum tracefs_filter type, const char *field,
			      enum tracefs_compare cmp, const char *val)
{
	return tracefs_synth_append_start_filter(ctx, type, field, cmp, val);
}

static int synth_end_filter(void *ctx, enum tracefs_filter type, const char *field,
			    enum tracefs_compare cmp, const char *val)
{
	return tracefs_synth_append_end_filter(ctx, type, field, cmp, val);
}

void agg_kjoin_release(struct agg_kjoin *kj)
{
	free(kj->fields);
	free(kj->start_cmd);
	free(kj->end_cmd);
	free(kj->hist_cmd);
	memset(kj, 0, sizeof(*kj));
}

unsigned long long agg_faults(const struct agg *a)
{
	return a->faults;
}

int agg_kernel_join_ev(const struct agg *a)
{
	return a->jev;
}

/*
 * libtracefs 1.6.4 writes a synth's triggers only at the top level
 * (tracefs_synth_create has no instance), so its commands are taken from
 * tracefs_synth_echo_cmd() and written into the private instance by the
 * caller: "echo 'CMD' >> PATH" lines, the synthetic event first.
 */
static char *echo_line(const char *text, const char *path_end)
{
	const char *line, *q;

	for (line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *eol = strchr(line, '\n') ? strchr(line, '\n') : line + strlen(line);

		if (strncmp(line, "echo '", 6))
			continue;
		q = memmem(line, eol - line, "' >> ", 5);
		if (!q || (size_t)(eol - (q + 5)) < strlen(path_end) ||
		    memcmp(eol - strlen(path_end), path_end, strlen(path_end)))
			continue;
		return strndup(line + 6, q - (line + 6));
	}
	return NULL;
}

/* The join's one START and one END side; why the kernel cannot pair them, or NULL. */
static const char *join_sides(const struct agg *a, const struct agg_side **ss,
			      const struct agg_side **es)
{
	const struct agg_join *j = a->spec->join;
	int s;

	*ss = *es = NULL;
	if (a->spec->scale == AGG_SCALE_LIST)
		return "--buckets (the kernel's buckets are powers of two or of one width)";
	for (s = 0; s < j->nside; s++) {
		if (j->side[s].end && !*es)
			*es = &j->side[s];
		else if (!j->side[s].end && !*ss)
			*ss = &j->side[s];
		else
			return "several START or END events (the kernel pairs one with one)";
		if (j->side[s].cond)
			return "a START that depends on the task's state";
	}
	if (!*ss || !*es)
		return "no START or no END";
	if (a->spec->nkeys > KERNEL_KEYS_MAX - 1)
		return "more than two keys (the time is the third)";
	return NULL;
}

/* The synthetic event's fields that pair a START with its END. */
static const char *synth_match(const struct agg *a, struct tracefs_synth *syn,
			       const struct agg_side *ss, const struct agg_side *es)
{
	char fname[16];
	int m;

	for (m = 1; m < ss->nmatch; m++) {
		snprintf(fname, sizeof(fname), "m%d", m);
		if (tracefs_synth_add_match_field(syn, ss->match[m], es->match[m], fname) < 0)
			return "libtracefs cannot pair these fields";
	}
	if (a->spec->join->per_cpu &&
	    tracefs_synth_add_match_field(syn, "common_cpu", "common_cpu", "mcpu") < 0)
		return "the kernel cannot pair per CPU";
	return NULL;
}

/* Key k: what the synthetic event carries for it, and how its hist is keyed. */
static const char *synth_key(struct agg *a, struct ev *e, struct tracefs_synth *syn, int k,
			     const struct agg_side *ss, const struct agg_side *es)
{
	struct col *c = &e->col[k];
	const struct agg_side *side = a->kend[k] ? es : ss;
	const struct jside *js = NULL;
	const char *field = NULL;
	enum kk_type type = KK_NUM;
	char fname[16];
	int s;

	for (s = 0; s < a->njs; s++)
		if (a->js[s].end == a->kend[k])
			js = &a->js[s];
	snprintf(fname, sizeof(fname), "k%d", k);
	switch (a->lk[k]) {
	case LK_INT:
	case LK_NAMES:
		field = js->kf[k]->name;
		break;
	case LK_STR:
		field = js->kf[k]->name;
		type = KK_STR;
		break;
	case LK_COMM:
	case LK_PID:
		/* the synthetic event is the END's: its common_pid is the END's task */
		if (a->lk[k] == LK_COMM && side->comm) {
			field = side->comm;
			type = KK_STR;
		} else if (a->kend[k] || !strcmp(ss->match[0], "common_pid")) {
			kkey_add(e, "common_pid", a->lk[k] == LK_COMM ? KK_EXECNAME : KK_PID);
			c->kk = e->nkk - 1;
			return NULL;
		} else if (a->lk[k] == LK_PID) {
			field = "common_pid";
		} else {
			return "the name of the START's task";
		}
		break;
	default:
		return "a key the kernel cannot carry (cpu, event)";
	}
	if ((a->kend[k] ? tracefs_synth_add_end_field(syn, field, fname) :
			  tracefs_synth_add_start_field(syn, field, fname)) < 0)
		return "libtracefs cannot carry a key";
	c->kk = kkey_add(e, fname, type);
	if (c->kk < 0)
		return "more than two keys";
	return NULL;
}

/* The idle task's pairs left out, and the command's filter, on both sides. */
static const char *synth_filters(const struct agg_join *j, struct tracefs_synth *syn,
				 const struct agg_side *ss, const struct agg_side *es,
				 const char *filter)
{
	/* the idle task's pairs do not count: the pid fields are not 0 */
	if (j->skip_idle &&
	    (tracefs_synth_append_start_filter(syn, TRACEFS_FILTER_COMPARE,
					       ss->pid ? ss->pid : "common_pid",
					       TRACEFS_COMPARE_NE, "0") < 0 ||
	     tracefs_synth_append_end_filter(syn, TRACEFS_FILTER_COMPARE,
					     es->pid ? es->pid : "common_pid",
					     TRACEFS_COMPARE_NE, "0") < 0))
		return "libtracefs cannot filter out the idle task";
	if (!filter)
		return NULL;
	if (j->skip_idle &&
	    (tracefs_synth_append_start_filter(syn, TRACEFS_FILTER_AND, NULL, 0, NULL) < 0 ||
	     tracefs_synth_append_end_filter(syn, TRACEFS_FILTER_AND, NULL, 0, NULL) < 0))
		return "the filter cannot be given to the kernel's triggers";
	if (tfs_filter_walk(filter, synth_start_filter, syn) < 0 ||
	    tfs_filter_walk(filter, synth_end_filter, syn) < 0)
		return "the filter cannot be given to the kernel's triggers";
	return NULL;
}

/* The synthetic event of the join, with its keys, its time and its filters. */
static const char *synth_build(struct agg *a, struct agg_kjoin *kj, const char *name,
			       const char *filter, const struct agg_side *ss,
			       const struct agg_side *es, struct tracefs_synth **synp)
{
	struct ev *e = &a->ev[a->jev];
	struct tracefs_synth *syn;
	const char *why;
	int k;

	*synp = syn = tracefs_synth_alloc(a->tep, name, kj->start_sys, kj->start_ev, kj->end_sys,
					  kj->end_ev, ss->match[0], es->match[0], "m0");
	if (!syn)
		return "libtracefs cannot pair these fields";
	why = synth_match(a, syn, ss, es);
	/* the keys: what the synthetic event carries, and how its hist is keyed */
	e->nkk = 0;
	for (k = 0; k < a->spec->nkeys && !why; k++)
		why = synth_key(a, e, syn, k, ss, es);
	if (!why && tracefs_synth_add_compare_field(syn, TRACEFS_TIMESTAMP_USECS,
						    TRACEFS_TIMESTAMP_USECS,
						    TRACEFS_SYNTH_DELTA_END, "delta") < 0)
		why = "libtracefs cannot take the time";
	if (!why && (e->vkk = kkey_add(e, "delta", KK_NUM)) < 0)
		why = "more than two keys";
	if (!why)
		why = synth_filters(a->spec->join, syn, ss, es, filter);
	return why;
}

/* The commands of the synthetic event and of its two triggers, from libtracefs's echo lines. */
static void synth_commands(struct agg_kjoin *kj, struct tracefs_synth *syn)
{
	char path[sizeof("events///trigger") + 2 * TFS_NAME_MAX];
	struct trace_seq seq;
	const char *om, *bol;

	trace_seq_init(&seq);
	tracefs_synth_echo_cmd(&seq, syn);
	trace_seq_terminate(&seq);
	/* "s:NAME FIELDS" for dynamic_events: the fields after the name */
	kj->fields = echo_line(seq.buffer, "dynamic_events");
	/* START's line saves, END's line (onmatch) fires: the same file when one event is both */
	om = strstr(seq.buffer, "onmatch(");
	bol = om;
	while (bol && bol > seq.buffer && bol[-1] != '\n')
		bol--;
	snprintf(path, sizeof(path), "events/%s/%s/trigger", kj->end_sys, kj->end_ev);
	kj->end_cmd = bol ? echo_line(bol, path) : NULL;
	snprintf(path, sizeof(path), "events/%s/%s/trigger", kj->start_sys, kj->start_ev);
	kj->start_cmd = echo_line(seq.buffer, path);
	if (kj->start_cmd && strstr(kj->start_cmd, "onmatch(")) {
		free(kj->start_cmd);
		kj->start_cmd = NULL;
	}
	trace_seq_destroy(&seq);
	if (kj->fields && !strncmp(kj->fields, "s:", 2)) {
		char *f = strchr(kj->fields, ' ');

		memmove(kj->fields, f ? f + 1 : "", strlen(f ? f + 1 : "") + 1);
	}
}

/* The hist trigger on the synthetic event: its rows are the keys and the exact time. */
static char *synth_hist_cmd(const struct ev *e)
{
	char keys[512], *cmd;
	size_t n = 0;
	int k;

	keys[0] = '\0';
	for (k = 0; k < e->nkk; k++)
		n += snprintf(keys + n, sizeof(keys) - n, "%s%s%s", k ? "," : "",
			      e->kk[k].name,
			      e->kk[k].type == KK_EXECNAME ? ".execname" : "");
	/* a table big enough for them */
	if (asprintf(&cmd, "hist:keys=%s:size=16384", keys) < 0)
		return NULL;
	return cmd;
}

const char *agg_kernel_join(struct agg *a, const char *name, const char *filter,
			    struct agg_kjoin *kj)
{
	const struct agg_side *ss, *es;
	struct ev *e = &a->ev[a->jev];
	struct tracefs_synth *syn = NULL;
	const char *why;
	int st, en;

	memset(kj, 0, sizeof(*kj));
	why = join_sides(a, &ss, &es);
	if (why)
		return why;
	st = a->js[0].end ? a->js[1].ev : a->js[0].ev;
	en = a->js[0].end ? a->js[0].ev : a->js[1].ev;
	snprintf(kj->name, sizeof(kj->name), "%s", name);
	kj->start_sys = a->ev[st].sys;
	kj->start_ev = a->ev[st].name;
	kj->end_sys = a->ev[en].sys;
	kj->end_ev = a->ev[en].name;
	why = synth_build(a, kj, name, filter, ss, es, &syn);
	if (why) {
		tracefs_synth_free(syn);
		return why;
	}
	synth_commands(kj, syn);
	tracefs_synth_free(syn);
	kj->hist_cmd = synth_hist_cmd(e);
	if (!kj->fields || !kj->start_cmd || !kj->end_cmd || !kj->hist_cmd) {
		agg_kjoin_release(kj);
		return "libtracefs did not give the synthetic event's commands";
	}
	e->kplanned = true;
	return NULL;
}

