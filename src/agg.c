// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * agg - count/hist rows from either engine; see agg.h.
 *
 * Rows live in a hash table keyed by raw bytes: the index of the event,
 * then one slot per --by key in the order given (pid as 4 bytes for comm
 * and pid, the CPU as 4 bytes, integer fields as 8, strings as a 2-byte
 * length and their bytes, a stack as a 2-byte count and its return
 * addresses), then for hist the bucket of the value (8 bytes).
 * The user engine builds that key from a record with a few loads and
 * copies; names (events, tasks, symbols) are looked up only when a table
 * is printed, once per row instead of once per event.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "agg_local.h"
#include "names.h"
#include "near.h"
#include "util.h"

/* ---------------------------------------------------------------- rows */

static int tab_rehash(struct tab *t, size_t nslot)
{
	uint32_t *s = calloc(nslot, sizeof(*s));
	size_t i, j;

	if (!s)
		return -1;
	for (i = 0; i < t->n; i++) {
		for (j = t->rows[i].hash & (nslot - 1); s[j]; j = (j + 1) & (nslot - 1))
			;
		s[j] = i + 1;
	}
	free(t->slot);
	t->slot = s;
	t->nslot = nslot;
	return 0;
}

/* The row of key, made (all zero) when it is not there; NULL when out of memory. */
struct row *agg_tab_get(struct tab *t, const void *key, uint32_t klen, uint64_t h)
{
	struct row *r;
	size_t i;

	t->full = false;
	if (t->n * 2 >= t->nslot && tab_rehash(t, t->nslot ? t->nslot * 2 : 256))
		return NULL;
	for (i = h & (t->nslot - 1); t->slot[i]; i = (i + 1) & (t->nslot - 1)) {
		r = &t->rows[t->slot[i] - 1];
		if (r->hash == h && r->klen == klen && !memcmp(t->keys + r->koff, key, klen))
			return r;
	}
	if (t->max && t->n >= t->max) {
		t->full = true;
		return NULL;
	}
	if (t->n == t->alloc) {
		size_t na = t->alloc ? t->alloc * 2 : 128;
		struct row *nr = realloc(t->rows, na * sizeof(*nr));

		if (!nr)
			return NULL;
		t->rows = nr;
		t->alloc = na;
	}
	/* >=: the key store exists even when every key is empty (hist without --by) */
	if (t->klen + klen >= t->kalloc) {
		size_t na = (t->klen + klen) * 2 + 4096;
		unsigned char *nk = realloc(t->keys, na);

		if (!nk)
			return NULL;
		t->keys = nk;
		t->kalloc = na;
	}
	r = &t->rows[t->n];
	memset(r, 0, sizeof(*r));
	r->hash = h;
	r->koff = t->klen;
	r->klen = klen;
	memcpy(t->keys + t->klen, key, klen);
	t->klen += klen;
	t->slot[i] = ++t->n;
	return r;
}

void agg_tab_clear(struct tab *t)
{
	if (t->slot)
		memset(t->slot, 0, t->nslot * sizeof(*t->slot));
	t->n = 0;
	t->klen = 0;
}

static void tab_free(struct tab *t)
{
	free(t->rows);
	free(t->slot);
	free(t->keys);
	memset(t, 0, sizeof(*t));
}


static const struct {
	const char *name;
	enum agg_key_kind kind;
} reserved[] = {
	{ "event", AGG_KEY_EVENT },
	{ "comm", AGG_KEY_COMM },
	{ "pid", AGG_KEY_PID },
	{ "cpu", AGG_KEY_CPU },
	{ "stack", AGG_KEY_STACK },
};

static bool ident_valid(const char *s)
{
	return names_ident_valid(s, strlen(s), NAMES_FIELD_MAX, false);
}

int agg_spec_keys(struct agg_spec *spec, const char *by)
{
	char *tok, *save = NULL, *p;
	size_t i;
	int j;

	spec->nkeys = 0;
	spec->text = strdup(by ? by : "event");
	if (!spec->text)
		return tp_oom();
	p = spec->text;
	if (!*p || *p == ',' || p[strlen(p) - 1] == ',' || strstr(p, ",,")) {
		tp_error("invalid key list '%s': an empty key", by);
		return TP_USAGE;
	}
	for (tok = strtok_r(p, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k = spec->nkeys;

		if (k == AGG_MAX_KEYS) {
			tp_error("invalid key list '%s': at most %d keys", by, AGG_MAX_KEYS);
			return TP_USAGE;
		}
		spec->name[k] = tok;
		spec->kind[k] = AGG_KEY_FIELD;
		spec->field[k] = NULL;
		for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
			if (!strcmp(tok, reserved[i].name))
				spec->kind[k] = reserved[i].kind;
		if (spec->kind[k] == AGG_KEY_FIELD)
			spec->field[k] = strncmp(tok, "fields.", 7) ? tok : tok + 7;
		/* latency: start.FIELD, end.FIELD (agg_ready checks that there is a pair) */
		if (spec->kind[k] == AGG_KEY_FIELD && (!strncmp(tok, "start.", 6) ||
						      !strncmp(tok, "end.", 4)) &&
		    ident_valid(strchr(tok, '.') + 1))
			;
		else if (spec->kind[k] == AGG_KEY_FIELD && !ident_valid(spec->field[k])) {
			tp_error("invalid key '%s': event, comm, pid, cpu, stack or a field name", tok);
			return TP_USAGE;
		}
		for (j = 0; j < k; j++) {
			if (spec->kind[j] == spec->kind[k] &&
			    (spec->kind[k] != AGG_KEY_FIELD || !strcmp(spec->field[j], spec->field[k]))) {
				tp_error("invalid key list '%s': '%s' twice", by, tok);
				return TP_USAGE;
			}
		}
		spec->nkeys++;
	}
	return TP_OK;
}

int agg_spec_bounds(struct agg_spec *spec, const char *list, bool dur)
{
	char *copy = strdup(list ? list : ""), *tok, *save = NULL, *end;
	int n = 0, ret = TP_OK;

	if (!copy)
		return tp_oom();
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		unsigned long long ns;
		long long v = 0;
		bool good;

		if (dur) {
			good = tp_parse_duration(tok, &ns) && ns <= INT64_MAX;
			v = (long long)ns;
		} else {
			errno = 0;
			v = strtoll(tok, &end, 0);
			good = *tok && !*end && !errno;
		}
		if (!good) {
			tp_error(dur ? "invalid bucket bound '%s' in '--buckets': a duration "
				 "(ns, us, ms, s, m, h; seconds when bare), as in 10us,1ms,100ms" :
				 "invalid bucket bound '%s' in '--buckets': an integer", tok);
			ret = TP_USAGE;
		} else if (n == AGG_BOUNDS_MAX) {
			tp_error("too many bucket bounds in '--buckets': at most %d", AGG_BOUNDS_MAX);
			ret = TP_USAGE;
		} else if (n && v <= spec->bounds[n - 1]) {
			tp_error("bucket bounds in '--buckets' must ascend: '%s' after '%lld'", tok,
				 (long long)spec->bounds[n - 1]);
			ret = TP_USAGE;
		} else {
			spec->bounds[n++] = v;
		}
	}
	free(copy);
	if (!ret && !n) {
		tp_error("no bucket bound in '--buckets'");
		ret = TP_USAGE;
	}
	spec->nbounds = ret ? 0 : n;
	if (!ret)
		spec->scale = AGG_SCALE_LIST;
	return ret;
}

void agg_spec_release(struct agg_spec *spec)
{
	free(spec->text);
	spec->text = NULL;
}

struct agg *agg_new(const struct agg_spec *spec, struct tep_handle *tep)
{
	struct agg *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->spec = spec;
	a->tep = tep;
	a->stack_col = -1;
	a->kstack_id = -1;
	a->vdiv = spec->join && spec->scale == AGG_SCALE_LOG2 ? 1000 : 1;
	a->dec = decoder_new(tep);
	if (!a->dec) {
		free(a);
		return NULL;
	}
	return a;
}

static void join_free(struct agg *a);

void agg_free(struct agg *a)
{
	int i;

	if (!a)
		return;
	for (i = 0; i < a->nev; i++) {
		free(a->ev[i].sys);
		free(a->ev[i].name);
		free(a->ev[i].label);
		free(a->ev[i].fmt);
	}
	free(a->ev);
	join_free(a);
	free(a->by_id);
	free(a->pc);
	free(a->dn);
	free(a->dnslot);
	comm_saved_free(&a->names);
	free(a->pend);
	tab_free(&a->cur);
	tab_free(&a->total);
	tab_free(&a->kprev);
	decoder_free(a->dec);
	free(a);
}

void agg_set_comm_loader(struct agg *a, comm_load_fn fn, void *ctx)
{
	a->comm_fn = fn;
	a->comm_ctx = ctx;
}

int agg_nevents(const struct agg *a)
{
	return a->nev;
}



/*
 * "unknown field 'x' in 'sys:ev' (its fields: a, b, c)"; a --by key (what
 * "key"): "unknown key 'x' in 'sys:ev' (the keys: event, comm, ..., a, b)";
 * with the closest name first when one is close.
 */
int agg_field_unknown(const struct dec_event *de, const char *what, const char *name,
			 const char *label)
{
	static const char *const keys[] = { "event", "comm", "pid", "cpu", "stack" };
	bool key = !strcmp(what, "key");
	char list[512], hint[160] = "";
	size_t len = 0, k;
	struct near near;
	const char *best;
	int i;

	list[0] = '\0';
	near_init(&near, name, 1);
	for (k = 0; key && k < sizeof(keys) / sizeof(keys[0]); k++) {
		len += snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", keys[k]);
		near_add(&near, keys[k], strlen(keys[k]));
	}
	for (i = 0; i < de->nfields && len < sizeof(list) - 1; i++) {
		if (!strncmp(de->fields[i].name, "common_", 7))
			continue;
		len += snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
				de->fields[i].name);
		near_add(&near, de->fields[i].name, strlen(de->fields[i].name));
	}
	if (len >= sizeof(list) - 1)
		strcpy(list + sizeof(list) - 5, "...");
	/* a suggestion only where it is close: at most a third of the name changed */
	best = near_best(&near, (strlen(name) + 2) / 3);
	if (best)
		snprintf(hint, sizeof(hint), "did you mean '%.100s'? ", best);
	tp_error("unknown %s '%s' in '%s' (%s%s: %s)", what, name, label, hint,
		 key ? "the keys" : "its fields", len ? list : "none");
	near_free(&near);
	return TP_USAGE;
}

/*
 * A key that is a pointer (a syscall's const char *filename): its values
 * are addresses, not the strings; said once, with how to have the strings.
 */
static void key_pointer_note(const struct dec_field *f, const char *label)
{
	static bool said;
	const char *type = f->field ? f->field->type : NULL;

	if (said || !type || !strchr(type, '*'))
		return;
	said = true;
	if (strstr(type, "char") && !strncmp(label, "syscalls:", 9))
		tp_note("key '%s' of '%s' is a pointer (%s): its values are the addresses the "
			"process passed, not the strings; '--strings' reads the strings where the "
			"kernel has event probes", f->name, label, type);
	else
		tp_note("key '%s' of '%s' is a pointer (%s): its values are addresses",
			f->name, label, type);
}

enum agg_col_type agg_col_type_of(const struct col *c)
{
	switch (c->kind) {
	case AGG_KEY_STACK:
		return AGG_COL_STACK;
	case AGG_KEY_PID:
		return AGG_COL_INT;
	case AGG_KEY_CPU:
		return AGG_COL_UINT;
	case AGG_KEY_FIELD:
		if (c->str || c->sym != DEC_SYM_NONE || c->sysname)
			return AGG_COL_STR;
		if (c->f->err)
			return AGG_COL_ERRNO;
		return c->f->sign ? AGG_COL_INT : AGG_COL_UINT;
	default:
		return AGG_COL_STR;
	}
}

/* Room for one more ev at a->ev[a->nev], zeroed (a->nev unchanged); NULL: said why. */
struct ev *agg_ev_append(struct agg *a)
{
	struct ev *nv = realloc(a->ev, (a->nev + 1) * sizeof(*nv));

	if (!nv) {
		tp_oom();
		return NULL;
	}
	a->ev = nv;
	memset(&nv[a->nev], 0, sizeof(*nv));
	return &nv[a->nev];
}

/* The stack key: ftrace:kernel_stack's decoder, found once. */
int agg_stack_key(struct agg *a, int k)
{
	struct tep_event *ks;

	if (a->kstack)
		return TP_OK;
	ks = tep_find_event_by_name(a->tep, "ftrace", "kernel_stack");
	a->kstack = ks ? decoder_event(a->dec, ks->id) : NULL;
	if (!a->kstack || a->kstack->special != DS_KSTACK) {
		tp_error("cannot read the format of 'ftrace:kernel_stack'");
		return TP_FAIL;
	}
	a->kstack_id = ks->id;
	a->stack_col = k;
	return TP_OK;
}

/*
 * The key "syscall" of an event without such a field: the number of a
 * syscall event, by name, as latency's key.
 */
static int syscall_key(struct agg *a, struct col *c, const struct dec_event *de,
		       const struct ev *e)
{
	if (!strcmp(de->system, "raw_syscalls"))
		c->f = agg_field_find(de, "id");
	else if (!strcmp(de->system, "syscalls"))
		c->f = agg_field_find(de, "__syscall_nr");
	if (c->f && c->f->kind == DK_INT) {
		c->sysname = true;
		if (!a->sysnames_read) {
			a->sysnames_read = true;
			agg_names_syscalls(&a->sysnames);
		}
		return TP_OK;
	}
	tp_error("unknown key 'syscall' for '%s': it needs raw_syscalls or syscalls events",
		 e->label);
	return TP_USAGE;
}

/* A key that is a field of the event: the field, and a string or a number with its symbols. */
static int field_key(struct agg *a, struct col *c, const struct dec_event *de,
		     const struct ev *e, int k, const char *fmt, size_t fmtlen)
{
	const struct agg_spec *spec = a->spec;

	c->f = agg_field_find(de, spec->field[k]);
	if (!c->f && !strcmp(spec->name[k], "syscall"))
		return syscall_key(a, c, de, e);
	if (!c->f)
		return agg_field_unknown(de, "key", spec->field[k], e->label);
	if (c->f->kind == DK_STR) {
		c->str = true;
	} else if (c->f->kind == DK_INT) {
		c->sym = decode_format_field_sym(fmt, fmtlen, c->f->name);
		if (c->sym == DEC_SYM_NONE)
			key_pointer_note(c->f, e->label);
	} else {
		tp_error("field '%s' of '%s' is an array: keys are numbers or strings",
			 c->f->name, e->label);
		return TP_USAGE;
	}
	return TP_OK;
}

/* Key k of the event just added, typed as the first event's key k is. */
static int event_key(struct agg *a, struct ev *e, const struct dec_event *de, int k,
		     const char *fmt, size_t fmtlen)
{
	const struct agg_spec *spec = a->spec;
	struct col *c = &e->col[k];
	int ret = TP_OK;

	c->kind = spec->kind[k];
	if (c->kind == AGG_KEY_STACK)
		ret = agg_stack_key(a, k);
	else if (c->kind == AGG_KEY_FIELD)
		ret = field_key(a, c, de, e, k, fmt, fmtlen);
	if (ret)
		return ret;
	if (a->nev == 1) {
		a->type[k] = agg_col_type_of(c);
	} else if ((a->type[k] == AGG_COL_STR) != (agg_col_type_of(c) == AGG_COL_STR)) {
		tp_error("key '%s' is a %s in '%s' but not in '%s'", spec->name[k],
			 a->type[k] == AGG_COL_STR ? "string" : "number", a->ev[0].label,
			 e->label);
		return TP_USAGE;
	}
	return TP_OK;
}

/* The value field of the event just added: a number. */
static int event_value(struct agg *a, struct ev *e, const struct dec_event *de)
{
	const char *value = a->spec->value;

	e->vf = agg_field_find(de, value);
	if (!e->vf)
		return agg_field_unknown(de, "field", value, e->label);
	if (e->vf->kind != DK_INT) {
		tp_error("field '%s' of '%s' is not a number", value, e->label);
		return TP_USAGE;
	}
	if (a->nev == 1)
		a->vsign = e->vf->sign;
	return TP_OK;
}

int agg_add_event(struct agg *a, const char *sys, const char *name, const char *fmt,
		  size_t fmtlen)
{
	const struct agg_spec *spec = a->spec;
	struct tep_event *event = tep_find_event_by_name(a->tep, sys, name);
	struct dec_event *de;
	struct ev *e;
	int k, ret;

	if (!event || !(de = decoder_event(a->dec, event->id))) {
		tp_error("cannot read the format of '%s:%s'", sys, name);
		return TP_FAIL;
	}
	e = agg_ev_append(a);
	if (!e)
		return TP_FAIL;
	e->id = event->id;
	e->sys = strdup(sys);
	e->name = strdup(name);
	/* a --strings probe is labelled as the syscall event it stands for */
	e->strings = de->strings;
	if (!e->sys || !e->name || asprintf(&e->label, "%s:%s", de->system, de->name) < 0) {
		free(e->sys);
		free(e->name);
		return tp_oom();
	}
	/* from here on the event is a->ev[a->nev] whatever happens: agg_free frees it */
	a->nev++;
	/* latency: the keys are the pairs', resolved once every side is there (agg_ready) */
	if (spec->join) {
		e->fmt = strndup(fmt, fmtlen);
		if (!e->fmt)
			return tp_oom();
	} else {
		for (k = 0; k < spec->nkeys; k++) {
			ret = event_key(a, e, de, k, fmt, fmtlen);
			if (ret)
				return ret;
		}
		if (spec->value) {
			ret = event_value(a, e, de);
			if (ret)
				return ret;
		}
	}
	if (event->id >= a->nid &&
	    !tp_array_grow(&a->by_id, &a->nid, event->id + 64, sizeof(*a->by_id)))
		return tp_oom();
	a->by_id[event->id] = a->nev;
	return TP_OK;
}

/* ---------------------------------------------------------------- adding */

/* The bucket a value falls in, as 8 key bytes (signed or not as the bounds are). */
static uint64_t bucket_of(const struct agg *a, uint64_t v)
{
	const struct agg_spec *s = a->spec;

	if (s->scale == AGG_SCALE_LOG2) {
		if (a->vsign && (int64_t)v < 0)
			return (uint64_t)-1;
		return v ? 64 - __builtin_clzll(v) : 0;
	}
	if (s->scale == AGG_SCALE_LIST) {
		/* the first bound the value does not pass: value <= bound */
		__int128 x = a->vsign ? (__int128)(int64_t)v : (__int128)v;
		int lo = 0, hi = s->nbounds, m;

		while (lo < hi) {
			m = (lo + hi) / 2;
			if (s->bounds[m] < x)
				lo = m + 1;
			else
				hi = m;
		}
		return lo;
	}
	if (s->scale == AGG_SCALE_LINEAR) {
		if (a->vsign) {
			int64_t sv = (int64_t)v, q = sv / (int64_t)s->step;

			if (sv % (int64_t)s->step && sv < 0)
				q--;
			return (uint64_t)q;
		}
		return v / s->step;
	}
	return 0;
}

/* key holds k bytes of keys; the bucket goes after them (room for it is there). */
void agg_rows_add(struct agg *a, struct tab *t, unsigned char *key, size_t k, uint64_t v,
		     uint64_t n)
{
	struct row *r;

	if (a->spec->value || a->spec->join) {
		uint64_t b = bucket_of(a, a->vdiv > 1 ? v / a->vdiv : v);

		memcpy(key + k, &b, 8);
		k += 8;
	}
	r = agg_tab_get(t, key, k, hash_bytes(key, k));
	if (!r) {
		if (t->full)
			a->refused += n;
		return;
	}
	if (!r->count) {
		r->min = r->max = v;
	} else if (a->vsign) {
		if ((int64_t)v < (int64_t)r->min)
			r->min = v;
		if ((int64_t)v > (int64_t)r->max)
			r->max = v;
	} else {
		if (v < r->min)
			r->min = v;
		if (v > r->max)
			r->max = v;
	}
	r->count += n;
	r->sum += v * n;
}

size_t agg_stack_slot(unsigned char *out, const struct dec_event *de, const void *data, int n)
{
	uint16_t n16 = n;
	size_t k = 2;
	int i;

	memcpy(out, &n16, 2);
	for (i = 0; i < n; i++, k += 8) {
		uint64_t addr = decode_frame(de, data, i);

		memcpy(out + k, &addr, 8);
	}
	return k;
}

/* Count a waiting event with the frames given (n 0: its stack never came). */
static void pend_count(struct agg *a, struct pend *p, const struct dec_event *de,
		       const void *data, int n)
{
	unsigned char key[KEY_MAX];
	size_t k = p->pre;

	memcpy(key, p->key, p->pre);
	k += agg_stack_slot(key + k, de, data, n);
	memcpy(key + k, p->key + p->pre, p->post);
	k += p->post;
	p->on = false;
	agg_rows_add(a, &a->cur, key, k, p->v, 1);
}

/* An event with a stack key: its stack record comes next on its CPU. */
static void stack_wait(struct agg *a, const struct tep_record *rec, const unsigned char *key,
		       size_t at, size_t k, uint64_t v)
{
	struct pend *p;

	if (rec->cpu < 0)
		return;
	if (rec->cpu >= a->npend) {
		int n = rec->cpu + 8;
		struct pend *np = realloc(a->pend, n * sizeof(*np));

		if (!np)
			return;
		memset(np + a->npend, 0, (n - a->npend) * sizeof(*np));
		a->pend = np;
		a->npend = n;
	}
	p = &a->pend[rec->cpu];
	/* the one before got no stack (lost with the buffer, or none was made) */
	if (p->on)
		pend_count(a, p, NULL, NULL, 0);
	p->on = true;
	p->pid = decode_pid(rec->data);
	p->v = v;
	p->pre = at;
	p->post = k - at;
	memcpy(p->key, key, k);
}

static void stack_record(struct agg *a, const struct tep_record *rec)
{
	struct pend *p = rec->cpu >= 0 && rec->cpu < a->npend ? &a->pend[rec->cpu] : NULL;
	int n;

	/* a stack of an event that was not ours, or whose event was lost */
	if (!p || !p->on || p->pid != decode_pid(rec->data))
		return;
	n = decode_frames(a->kstack, rec->data, rec->size);
	pend_count(a, p, a->kstack, rec->data, n < STACK_MAX ? n : STACK_MAX);
}

void agg_flush(struct agg *a)
{
	int i;

	for (i = 0; i < a->npend; i++)
		if (a->pend[i].on)
			pend_count(a, &a->pend[i], NULL, NULL, 0);
}

/* ---------------------------------------------------------------- names of values */

static void names_free(struct names *n)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		free((char *)n->v[i]);
	free(n->v);
	memset(n, 0, sizeof(*n));
}

int agg_names_set(struct names *n, unsigned long long v, const char *name, size_t len)
{
	if (v > 65535)
		return 0;
	if (v >= n->n) {
		size_t nn = v + 1;
		const char **nv = realloc(n->v, nn * sizeof(*nv));

		if (!nv)
			return -1;
		memset(nv + n->n, 0, (nn - n->n) * sizeof(*nv));
		n->v = nv;
		n->n = nn;
	}
	if (!n->v[v])
		n->v[v] = strndup(name, len);
	return 0;
}

/*
 * Syscall numbers -> names for this machine.  The kernel exports no table
 * (raw_syscalls carry the number only, and the syscalls:sys_enter_* events
 * do not say theirs), so the C library's kernel headers for the running
 * architecture are read: "#define __NR_read 0".  A number they lack is shown
 * as "sys_N".
 */
void agg_names_syscalls(struct names *n)
{
	static const char *const paths[] = {
		"/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
		"/usr/include/asm/unistd_64.h",
		"/usr/include/aarch64-linux-gnu/asm/unistd.h",
		"/usr/include/asm-generic/unistd.h",
	};
	char line[256];
	size_t i;
	FILE *f = NULL;

	for (i = 0; !f && i < sizeof(paths) / sizeof(paths[0]); i++)
		f = fopen(paths[i], "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char name[128];
		unsigned long long v;

		if (sscanf(line, "#define __NR_%127[A-Za-z0-9_] %llu", name, &v) == 2 &&
		    agg_names_set(n, v, name, strlen(name)) < 0)
			break;
	}
	fclose(f);
}

/* The join's waiting STARTs and names (agg_join.c fills them), freed with the rest. */
static void join_free(struct agg *a)
{
	size_t i;
	int s, k;

	for (i = 0; i < a->cap; i++) {
		free(a->open[i].skey);
		free(a->open[i].srec);
	}
	free(a->open);
	free(a->heads);
	free(a->own);
	oncpu_free(&a->on);
	free(a->jpend);
	for (s = 0; s < a->njs; s++)
		for (k = 0; k < AGG_MAX_KEYS; k++)
			if (a->js[s].kn[k].v != a->sysnames.v)
				names_free(&a->js[s].kn[k]);
	names_free(&a->sysnames);
}

/* ---------------------------------------------------------------- records */

void agg_record(struct agg *a, const struct tep_record *rec)
{
	unsigned char key[KEY_MAX];
	const void *data = rec->data;
	const struct ev *e;
	uint64_t v = 0;
	uint32_t idx;
	int32_t pid;
	size_t k;
	int id, i, stack_at = -1;

	if (rec->size < 8)
		return;
	id = decode_type(data);
	/* a fork, exec or rename: the task's name from now on (counted only if an EVENT) */
	if (a->nnameev && agg_nameev_record(a, id, rec) && (id >= a->nid || !a->by_id[id]))
		return;
	if (id == a->kstack_id) {
		if (a->join_stack)
			a->join_stack(a, rec);
		else
			stack_record(a, rec);
		return;
	}
	if (id >= a->nid || !(idx = a->by_id[id]))
		return;
	e = &a->ev[idx - 1];
	if (a->spec->join) {
		/* agg_ready() set it: the join (agg_join.c) takes the record */
		if (a->join_record)
			a->join_record(a, e, rec);
		return;
	}
	if (e->vf && !decode_int(e->vf, data, rec->size, &v))
		return;
	memcpy(key, &idx, 4);
	k = 4;
	for (i = 0; i < a->spec->nkeys; i++) {
		const struct col *c = &e->col[i];

		switch (c->kind) {
		case AGG_KEY_COMM:
			pid = decode_pid(data);
			/* live (a loader of cmdlines is set): learn the name while the task runs */
			if (a->comm_fn && !pcomm_find(a, pid))
				agg_pcomm_learn(a, pid, rec->ts);
			pid = agg_comm_key(a, pid);
			memcpy(key + k, &pid, 4);
			k += 4;
			break;
		case AGG_KEY_PID:
			pid = decode_pid(data);
			memcpy(key + k, &pid, 4);
			k += 4;
			break;
		case AGG_KEY_CPU:
			pid = rec->cpu;
			memcpy(key + k, &pid, 4);
			k += 4;
			break;
		case AGG_KEY_FIELD:
			if (c->str) {
				const char *p = "";
				size_t len;

				if (!decode_span(c->f, data, rec->size, &p, &len))
					len = 0;
				/* the kernel could not fetch it: its own word for that */
				if (e->strings && decode_str_fault(c->f, data, rec->size)) {
					p = "(fault)";
					len = 7;
					a->faults++;
				}
				k += put_str(key + k, p, len);
			} else {
				uint64_t fv = 0;

				decode_int(c->f, data, rec->size, &fv);
				memcpy(key + k, &fv, 8);
				k += 8;
			}
			break;
		case AGG_KEY_STACK:
			stack_at = k;
			break;
		default:
			break;
		}
	}
	if (stack_at >= 0)
		stack_wait(a, rec, key, stack_at, k, v);
	else
		agg_rows_add(a, &a->cur, key, k, v, 1);
}

void agg_add_lost(struct agg *a, uint64_t n)
{
	a->lost_cur += n;
}

void agg_set_max_rows(struct agg *a, size_t max)
{
	a->cur.max = a->total.max = max;
}

uint64_t agg_refused(const struct agg *a)
{
	return a->refused;
}

/* *min and *max with row s's, signed or not as the value is. */
static void minmax_merge(const struct agg *a, uint64_t *min, uint64_t *max, const struct row *s)
{
	if (a->vsign) {
		if ((int64_t)s->min < (int64_t)*min)
			*min = s->min;
		if ((int64_t)s->max > (int64_t)*max)
			*max = s->max;
	} else {
		if (s->min < *min)
			*min = s->min;
		if (s->max > *max)
			*max = s->max;
	}
}

/* Row s added to row r (of the same key, or of the key s folds into). */
void agg_row_merge(const struct agg *a, struct row *r, const struct row *s)
{
	if (!r->count) {
		r->min = s->min;
		r->max = s->max;
	} else {
		minmax_merge(a, &r->min, &r->max, s);
	}
	r->count += s->count;
	r->sum += s->sum;
}

/* The rows of src added to dst's (a's value signedness). */
void agg_tab_merge(struct agg *a, struct tab *dst, const struct tab *src)
{
	size_t i;

	for (i = 0; i < src->n; i++) {
		const struct row *s = &src->rows[i];
		struct row *r = agg_tab_get(dst, src->keys + s->koff, s->klen, s->hash);

		if (!r) {
			if (dst->full)
				a->refused += s->count;
			continue;
		}
		agg_row_merge(a, r, s);
	}
}

void agg_interval_end(struct agg *a)
{
	agg_tab_merge(a, &a->total, &a->cur);
	agg_tab_clear(&a->cur);
	a->lost_total += a->lost_cur;
	a->lost_cur = 0;
}


/* ---------------------------------------------------------------- tables */

static void bucket_bounds_raw(const struct agg *a, uint64_t b, struct agg_bucket *out);

struct bref {
	size_t group;
	struct agg_bucket b;
};

static int bref_cmp(const void *x, const void *y)
{
	const struct bref *a = x, *b = y;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return a->b.lo < b->b.lo ? -1 : a->b.lo > b->b.lo;
}

static void bucket_bounds(const struct agg *a, uint64_t b, struct agg_bucket *out)
{
	bucket_bounds_raw(a, b, out);
	/* latency's log2 buckets count microseconds: their bounds in ns */
	out->lo *= a->vdiv;
	out->hi *= a->vdiv;
}

void agg_list_bucket(const struct agg_spec *s, bool vsign, int k, struct agg_bucket *out)
{
	out->index = k;
	/* [lo, hi) as everywhere: (bound k-1, bound k] of integers */
	if (k)
		out->lo = (__int128)s->bounds[k - 1] + 1;
	else
		out->lo = vsign || s->bounds[0] < 0 ? (__int128)INT64_MIN : 0;
	if (k < s->nbounds)
		out->hi = (__int128)s->bounds[k] + 1;
	else
		out->hi = vsign ? (__int128)INT64_MAX + 1 : (__int128)UINT64_MAX + 1;
}

static void bucket_bounds_raw(const struct agg *a, uint64_t b, struct agg_bucket *out)
{
	const struct agg_spec *s = a->spec;

	out->index = (int64_t)b;
	if (s->scale == AGG_SCALE_LIST) {
		agg_list_bucket(s, a->vsign, (int)b, out);
		return;
	}
	if (s->scale == AGG_SCALE_LOG2) {
		int64_t k = (int64_t)b;

		if (k < 0) {
			out->lo = INT64_MIN;
			out->hi = 0;
		} else if (k == 0) {
			out->lo = 0;
			out->hi = 1;
		} else {
			out->lo = (__int128)1 << (k - 1);
			out->hi = (__int128)1 << k;
		}
	} else if (a->vsign) {
		out->lo = (__int128)(int64_t)b * (__int128)s->step;
		out->hi = out->lo + s->step;
	} else {
		out->lo = (__int128)b * (__int128)s->step;
		out->hi = out->lo + s->step;
	}
}

static const struct agg_table *sort_table;

static int cell_cmp(const struct agg_cell *x, const struct agg_cell *y, enum agg_col_type t)
{
	size_t i;

	switch (t) {
	case AGG_COL_STR:
		return strcmp(x->s, y->s);
	case AGG_COL_STACK:
		for (i = 0; i < x->v && i < y->v; i++)
			if (x->frames[i] != y->frames[i])
				return x->frames[i] < y->frames[i] ? -1 : 1;
		return x->v < y->v ? -1 : x->v > y->v;
	case AGG_COL_INT:
	case AGG_COL_ERRNO:
		return (int64_t)x->v < (int64_t)y->v ? -1 : (int64_t)x->v > (int64_t)y->v;
	default:
		return x->v < y->v ? -1 : x->v > y->v;
	}
}

static int group_cmp(const void *x, const void *y)
{
	const struct agg_group *a = x, *b = y;
	int k, c;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	for (k = 0; k < sort_table->spec->nkeys; k++) {
		c = cell_cmp(&a->key[k], &b->key[k], sort_table->type[k]);
		if (c)
			return c;
	}
	return 0;
}

static const char *table_str(struct agg_table *t, const char *s, size_t len)
{
	char **n, *c;

	if (t->nstrs == t->astrs) {
		n = realloc(t->strs, (t->astrs * 2 + 16) * sizeof(*n));
		if (!n)
			return "";
		t->strs = n;
		t->astrs = t->astrs * 2 + 16;
	}
	c = strndup(s, len);
	if (!c)
		return "";
	t->strs[t->nstrs++] = c;
	return c;
}

static const void *table_dup(struct agg_table *t, const void *p, size_t len)
{
	char **n, *c;

	if (t->nstrs == t->astrs) {
		n = realloc(t->strs, (t->astrs * 2 + 16) * sizeof(*n));
		if (!n)
			return NULL;
		t->strs = n;
		t->astrs = t->astrs * 2 + 16;
	}
	c = malloc(len ? len : 1);
	if (!c)
		return NULL;
	memcpy(c, p, len);
	t->strs[t->nstrs++] = c;
	return c;
}

/* A string cell of a raw key at *r (2-byte length, the bytes); *r moves past it. */
static const char *raw_str(const unsigned char *raw, size_t *r, size_t *len)
{
	uint16_t l16;

	memcpy(&l16, raw + *r, 2);
	*len = l16;
	*r += 2 + l16;
	return (const char *)raw + *r - l16;
}

/*
 * The name a number key prints as, in buf (KEY_STR_MAX bytes), its length in
 * *len: a syscall's name, or the symbol of a field printed as one; NULL: the
 * number itself.
 */
static const char *num_name(const struct agg *a, const struct col *c, uint64_t v,
			    struct trace_seq *seq, char *buf, size_t *len)
{
	int n;

	if (c->sysname) {
		if (v < a->sysnames.n && a->sysnames.v[v])
			n = snprintf(buf, KEY_STR_MAX, "%s", a->sysnames.v[v]);
		else
			n = snprintf(buf, KEY_STR_MAX, "sys_%llu", (unsigned long long)v);
		*len = n < KEY_STR_MAX ? (size_t)n : KEY_STR_MAX - 1;
		return buf;
	}
	if (c->sym == DEC_SYM_NONE)
		return NULL;
	trace_seq_reset(seq);
	decode_sym_print(seq, v, c->sym);
	trace_seq_terminate(seq);
	*len = seq->len < KEY_STR_MAX ? seq->len : KEY_STR_MAX - 1;
	memcpy(buf, seq->buffer, *len);
	return buf;
}

/*
 * A key's cell, a string (str, len bytes) or else the number v, and its part
 * of the output key at okey; returns the length of that part.
 */
static size_t cell_put(struct agg_cell *cell, unsigned char *okey, const char *str, size_t len,
		       uint64_t v)
{
	cell->frames = NULL;
	if (str) {
		/* a string key ends at its first NUL, as the kernel prints it */
		const char *z = memchr(str, '\0', len);

		if (z)
			len = z - str;
		/* made permanent by the caller for new groups; v: its length until then */
		cell->s = str;
		cell->v = len;
		memcpy(okey, str, len);
		okey[len] = '\0';
		return len + 1;
	}
	cell->s = NULL;
	cell->v = v;
	memcpy(okey, &v, 8);
	return 8;
}

static size_t key_cells(struct agg *a, const unsigned char *raw, struct agg_cell *cells,
			unsigned char *okey, uint64_t *bucket, struct trace_seq *seq,
			char (*sym)[KEY_STR_MAX], bool *reloaded)
{
	const struct agg_spec *s = a->spec;
	const struct ev *e;
	uint32_t idx;
	size_t r = 4, o = 0, len;
	int k;

	memcpy(&idx, raw, 4);
	e = &a->ev[idx - 1];
	for (k = 0; k < s->nkeys; k++) {
		const struct col *c = &e->col[k];
		const char *str = NULL;
		int32_t i32;
		uint16_t l16;
		uint64_t v = 0;

		switch (c->kind) {
		case AGG_KEY_EVENT:
			str = e->label;
			len = strlen(str);
			break;
		case AGG_KEY_COMM:
			if (a->kcomm) {
				str = raw_str(raw, &r, &len);
				break;
			}
			memcpy(&i32, raw + r, 4);
			r += 4;
			str = agg_comm_of(a, i32, reloaded);
			len = strlen(str);
			break;
		case AGG_KEY_PID:
		case AGG_KEY_CPU:
			memcpy(&i32, raw + r, 4);
			r += 4;
			v = c->kind == AGG_KEY_PID ? (uint64_t)(int64_t)i32 : (uint32_t)i32;
			break;
		case AGG_KEY_STACK:
			/* the frames as they are in the raw key, also in the output key */
			memcpy(&l16, raw + r, 2);
			cells[k].s = NULL;
			cells[k].v = l16;
			cells[k].frames = (const uint64_t *)(raw + r + 2);
			memcpy(okey + o, raw + r, 2 + l16 * 8);
			o += 2 + l16 * 8;
			r += 2 + l16 * 8;
			continue;
		case AGG_KEY_FIELD:
			if (c->str) {
				str = raw_str(raw, &r, &len);
				break;
			}
			memcpy(&v, raw + r, 8);
			r += 8;
			str = num_name(a, c, v, seq, sym[k], &len);
			break;
		default:
			break;
		}
		o += cell_put(&cells[k], okey + o, str, len, v);
	}
	if (s->value || s->join)
		memcpy(bucket, raw + r, 8);
	return o;
}

/* A new group of the table: its key cells made permanent, its first min and max. */
static void group_new(const struct agg *a, struct agg_table *t, struct agg_group *g,
		      const struct row *s, const struct agg_cell *cells)
{
	int k;

	for (k = 0; k < a->spec->nkeys; k++) {
		g->key[k] = cells[k];
		if (cells[k].s) {
			g->key[k].s = table_str(t, cells[k].s, cells[k].v);
			g->key[k].v = 0;
		} else if (cells[k].frames) {
			/* the raw key is not aligned for uint64_t: a copy */
			g->key[k].frames = (const uint64_t *)table_dup(t, cells[k].frames,
									cells[k].v * 8);
			if (!g->key[k].frames)
				g->key[k].v = 0;
		}
	}
	g->min = s->min;
	g->max = s->max;
}

/* Each group's buckets, ascending, equal ones merged; -1: out of memory. */
static int groups_buckets(struct agg_table *t, struct bref *br, size_t nbr)
{
	size_t i, j;

	qsort(br, nbr, sizeof(*br), bref_cmp);
	t->bpool = calloc(nbr ? nbr : 1, sizeof(*t->bpool));
	if (!t->bpool)
		return -1;
	for (i = j = 0; i < nbr; i++) {
		struct agg_group *g = &t->g[br[i].group];

		if (g->nbuckets && g->buckets[g->nbuckets - 1].lo == br[i].b.lo) {
			g->buckets[g->nbuckets - 1].count += br[i].b.count;
			continue;
		}
		if (!g->nbuckets)
			g->buckets = &t->bpool[j];
		t->bpool[j++] = br[i].b;
		g->nbuckets++;
	}
	return 0;
}

struct agg_table *agg_snapshot(struct agg *a, bool totals, size_t top)
{
	struct tab *src = totals ? &a->total : &a->cur, groups = { 0 };
	struct agg_table *t = calloc(1, sizeof(*t));
	struct bref *br = NULL;
	size_t nbr = 0, i;
	struct trace_seq seq;
	bool reloaded = false;

	if (!t)
		return NULL;
	trace_seq_init(&seq);
	t->spec = a->spec;
	memcpy(t->type, a->type, sizeof(t->type));
	t->vsign = a->vsign;
	t->lost = totals ? a->lost_total : a->lost_cur;
	t->unmatched = a->unmatched + a->nopen;
	t->g = calloc(src->n ? src->n : 1, sizeof(*t->g));
	if (a->spec->value || a->spec->join)
		br = calloc(src->n ? src->n : 1, sizeof(*br));
	if (!t->g || ((a->spec->value || a->spec->join) && !br))
		goto fail;
	for (i = 0; i < src->n; i++) {
		const struct row *s = &src->rows[i];
		/* output keys are at most as long as raw ones, plus a NUL per string */
		unsigned char okey[KEY_MAX + AGG_MAX_KEYS + 4096];
		struct agg_cell cells[AGG_MAX_KEYS];
		char sym[AGG_MAX_KEYS][KEY_STR_MAX];
		struct agg_group *g;
		uint64_t bucket = 0;
		struct row *r;
		size_t olen;

		olen = key_cells(a, src->keys + s->koff, cells, okey, &bucket, &seq, sym, &reloaded);
		r = agg_tab_get(&groups, okey, olen, hash_bytes(okey, olen));
		if (!r)
			goto fail;
		g = &t->g[r - groups.rows];
		if (!r->count)
			group_new(a, t, g, s, cells);
		else
			minmax_merge(a, &g->min, &g->max, s);
		r->count += s->count;
		g->count += s->count;
		g->sum += s->sum;
		t->count += s->count;
		if (br) {
			br[nbr].group = r - groups.rows;
			bucket_bounds(a, bucket, &br[nbr].b);
			br[nbr].b.count = s->count;
			nbr++;
		}
	}
	t->nall = groups.n;
	if (br && groups_buckets(t, br, nbr) < 0)
		goto fail;
	sort_table = t;
	qsort(t->g, t->nall, sizeof(*t->g), group_cmp);
	t->n = top && top < t->nall ? top : t->nall;
	free(br);
	tab_free(&groups);
	trace_seq_destroy(&seq);
	return t;
fail:
	free(br);
	tab_free(&groups);
	trace_seq_destroy(&seq);
	agg_table_free(t);
	return NULL;
}

void agg_table_free(struct agg_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nstrs; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->bpool);
	free(t->g);
	free(t);
}

