// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * agg_join - latency: the START/END join (see agg.h): the sides and keys of
 * a pair resolved (agg_ready), the table of STARTs waiting for their END,
 * and the pairs counted into the rows (agg.c) as they close.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "agg_local.h"
#include "util.h"

/*
 * The names a print fmt gives a field's values, the list after pat:
 * __print_symbolic(REC->F, { 0, "HI" }, { 1, "TIMER" }, ...) or
 * __print_flags(...), read from the format itself, so that softirq vectors
 * are named as the kernel's text names them.  The names are copied; the
 * table is empty when the print fmt has none.
 */
static void names_listed(struct names *n, const char *fmt, const char *pat)
{
	const char *p, *q;

	p = fmt ? strstr(fmt, pat) : NULL;
	if (!p)
		return;
	for (p += strlen(pat); (p = strchr(p, '{')); ) {
		unsigned long long v;
		char *end;

		v = strtoull(p + 1, &end, 0);
		q = end;
		while (*q == ' ' || *q == ',')
			q++;
		if (end == p + 1 || *q != '"')
			break;
		p = strchr(q + 1, '"');
		if (!p)
			break;
		if (agg_names_set(n, v, q + 1, p - q - 1) < 0)
			break;
		/* the list ends with the call's closing parenthesis */
		q = p + 1;
		while (*q == ' ' || *q == '}' || *q == ',')
			q++;
		if (*q == ')')
			break;
		p = q;
	}
}

/* __print_symbolic(REC->field, ...)'s names */
static void names_symbolic(struct names *n, const char *fmt, const char *field)
{
	char pat[300];

	snprintf(pat, sizeof(pat), "__print_symbolic(REC->%s,", field);
	names_listed(n, fmt, pat);
}

/*
 * sched_switch's prev_state: a task switched out while it could still run
 * has no state bit below TASK_REPORT_MAX set (preempted tasks have that bit
 * itself: "R+" in the kernel's text, not 0).  The bound is read from the
 * print fmt, "(((0x0000 | 0x0001 | ... | 0x0040) + 1) << 1)", which differs
 * between kernels; 0x100 (Linux 5.14 and later) when it cannot be read.
 */
static uint64_t runnable_mask(const char *fmt)
{
	const char *p = fmt ? strstr(fmt, "REC->prev_state & ((((") : NULL;
	unsigned long long bits = 0, v;
	char *end;

	if (!p)
		return 0xff;
	for (p += strlen("REC->prev_state & (((("); *p; p = end) {
		while (*p == ' ' || *p == '|')
			p++;
		v = strtoull(p, &end, 0);
		if (end == p)
			break;
		bits |= v;
	}
	if (strncmp(p, ") + 1) << 1)", 12))
		return 0xff;
	return ((bits + 1) << 1) - 1;
}

/*
 * --state S,D: the prev_state bits of these letters, from the print fmt's
 * __print_flags() table (the bits differ between kernels); R is a task that
 * could still run.  A letter this kernel's table lacks is an error.
 */
static int state_bits(struct agg *a, const char *fmt, const char *letters)
{
	struct names n = { NULL, 0 };
	const char *p;
	size_t v;
	int ret = TP_OK;

	names_listed(&n, fmt, "__print_flags(REC->prev_state ");
	for (p = letters; *p && !ret; p++) {
		if (*p == ',')
			continue;
		if (*p == 'R') {
			a->state_runnable = true;
			continue;
		}
		for (v = 0; v < n.n && !(n.v[v] && n.v[v][0] == *p && !n.v[v][1]); v++)
			;
		if (v < n.n) {
			a->state_keep |= v;
			continue;
		}
		tp_error("this kernel's sched_switch has no task state '%c' (its print fmt names "
			 "the states)", *p);
		ret = TP_USAGE;
	}
	for (v = 0; v < n.n; v++)
		free((char *)n.v[v]);
	free(n.v);
	return ret;
}

static const struct dec_field *side_field(struct agg *a, int ev, const char *name)
{
	const struct tep_event *event = tep_find_event(a->tep, a->ev[ev].id);
	const struct dec_event *de = event ? decoder_event(a->dec, event->id) : NULL;

	return de ? agg_field_find(de, name) : NULL;
}

static int side_unknown(struct agg *a, int ev, const char *name)
{
	const struct dec_event *de = decoder_event(a->dec, a->ev[ev].id);

	return agg_field_unknown(de, "field", name, a->ev[ev].label);
}

/* The sides' fields: match, pid, comm, the runnable test. */
static int join_sides(struct agg *a)
{
	const struct agg_join *j = a->spec->join;
	int s, m, i;

	for (s = 0; s < j->nside; s++) {
		const struct agg_side *as = &j->side[s];
		struct jside *js = &a->js[s];

		js->ev = -1;
		for (i = 0; i < a->nev; i++)
			if (!strcmp(a->ev[i].label, as->event))
				js->ev = i;
		if (js->ev < 0) {
			tp_error("no event '%s' to pair", as->event);
			return TP_USAGE;
		}
		js->end = as->end;
		for (m = 0; m < as->nmatch; m++) {
			/* common_pid is decoded from the header of the record (NULL here) */
			if (!strcmp(as->match[m], "common_pid"))
				continue;
			js->m[m] = side_field(a, js->ev, as->match[m]);
			if (!js->m[m])
				return side_unknown(a, js->ev, as->match[m]);
			if (js->m[m]->kind != DK_INT) {
				tp_error("match field '%s' of '%s' is not a number", as->match[m],
					 as->event);
				return TP_USAGE;
			}
		}
		js->nm = as->nmatch;
		if (s && js->nm != a->js[0].nm) {
			tp_error("'%s' is matched on %d field(s), '%s' on %d", as->event, js->nm,
				 j->side[0].event, a->js[0].nm);
			return TP_USAGE;
		}
		if (as->pid && !(js->pid = side_field(a, js->ev, as->pid)))
			return side_unknown(a, js->ev, as->pid);
		if (as->comm && !(js->comm = side_field(a, js->ev, as->comm)))
			return side_unknown(a, js->ev, as->comm);
		/* matched on its task's pid: a START of a task that is gone never ends */
		js->task = js->nm == 1 && !j->per_cpu &&
			   !strcmp(as->match[0], as->pid ? as->pid : "common_pid");
		if (as->cond != AGG_COND_NONE) {
			js->cond = side_field(a, js->ev, "prev_state");
			if (!js->cond)
				return side_unknown(a, js->ev, "prev_state");
			a->runnable_mask = runnable_mask(a->ev[js->ev].fmt);
			a->state_runnable = as->cond == AGG_COND_RUNNABLE;
			if (as->cond == AGG_COND_STATE &&
			    state_bits(a, a->ev[js->ev].fmt, j->state))
				return TP_USAGE;
		}
		/* an event that is both: its END first (the task switched in), then its START */
		i = a->ev[js->ev].jside[0] ? 1 : 0;
		if (i && !as->end) {
			a->ev[js->ev].jside[1] = s + 1;
		} else if (i) {
			a->ev[js->ev].jside[1] = a->ev[js->ev].jside[0];
			a->ev[js->ev].jside[0] = s + 1;
		} else {
			a->ev[js->ev].jside[0] = s + 1;
		}
	}
	return TP_OK;
}

/* Key k, of the given name, from the sides of one role (START or END): its field there. */
static int join_key_field(struct agg *a, int k, const char *name, bool end, struct col *c)
{
	int s, n = 0;

	for (s = 0; s < a->njs; s++) {
		struct jside *js = &a->js[s];
		const struct dec_field *f;

		if (js->end != end)
			continue;
		f = side_field(a, js->ev, name);
		if (!f)
			return side_unknown(a, js->ev, name);
		if (f->kind != DK_INT && f->kind != DK_STR) {
			tp_error("field '%s' of '%s' is an array: keys are numbers or strings", name,
				 a->ev[js->ev].label);
			return TP_USAGE;
		}
		if (n++ && (f->kind == DK_STR) != (c->f->kind == DK_STR)) {
			tp_error("key '%s' is a string in one event and a number in another", name);
			return TP_USAGE;
		}
		js->kf[k] = f;
		if (f->kind == DK_INT)
			names_symbolic(&js->kn[k], a->ev[js->ev].fmt, name);
		if (n == 1) {
			c->f = f;
			c->str = f->kind == DK_STR;
			c->sym = f->kind == DK_INT ?
				 decode_format_field_sym(a->ev[js->ev].fmt, strlen(a->ev[js->ev].fmt), name) :
				 DEC_SYM_NONE;
		}
	}
	a->kend[k] = end;
	a->lk[k] = c->str ? LK_STR : LK_INT;
	for (s = 0; s < a->njs; s++)
		if (a->js[s].end == end && a->js[s].kn[k].n)
			a->lk[k] = LK_NAMES;
	if (a->lk[k] == LK_NAMES) {
		c->str = true;
		c->sym = DEC_SYM_NONE;
	}
	return TP_OK;
}

/* Does every side of the role have the field? */
static bool role_has(struct agg *a, bool end, const char *name)
{
	int s;

	for (s = 0; s < a->njs; s++)
		if (a->js[s].end == end && !side_field(a, a->js[s].ev, name))
			return false;
	return true;
}

static void join_record(struct agg *a, const struct ev *e, const struct tep_record *rec);
static void join_stack(struct agg *a, const struct tep_record *rec);

/* infer_in: the wakeups' task woken (a kernel or recording without the field: none) */
static void join_woken(struct agg *a)
{
	const struct agg_join *j = a->spec->join;
	int s, k;

	for (s = 0; j->infer_in && s < AGG_ALSO_MAX; s++)
		for (k = 0; j->also[s].woken && k < a->nev; k++)
			if (!strcmp(a->ev[k].label, j->also[s].event))
				a->ev[k].woken = side_field(a, k, j->also[s].woken);
}

/* Key k, a field's (or the syscall's name), from the side that has it. */
static int field_key(struct agg *a, int k, struct col *c)
{
	const struct agg_join *j = a->spec->join;
	const struct agg_spec *spec = a->spec;
	const char *name = spec->name[k];
	int s, ret;

	if (!strcmp(name, "syscall")) {
		ret = join_key_field(a, k, "id", false, c);
		if (ret)
			return ret;
		if (!a->sysnames_read) {
			a->sysnames_read = true;
			agg_names_syscalls(&a->sysnames);
		}
		for (s = 0; s < a->njs; s++)
			if (!a->js[s].end)
				a->js[s].kn[k] = a->sysnames;
		a->lk[k] = LK_NAMES;
		c->str = true;
		c->sym = DEC_SYM_NONE;
		return TP_OK;
	}
	if (!strncmp(name, "start.", 6) || !strncmp(name, "end.", 4))
		return join_key_field(a, k, strchr(name, '.') + 1, name[0] == 'e', c);
	if (role_has(a, false, spec->field[k]))
		return join_key_field(a, k, spec->field[k], false, c);
	if (role_has(a, true, spec->field[k]))
		return join_key_field(a, k, spec->field[k], true, c);
	tp_error("unknown key '%s': no field of that name on either side ('%s', '%s')", name,
		 j->start, j->end);
	return TP_USAGE;
}

int agg_ready(struct agg *a)
{
	const struct agg_join *j = a->spec->join;
	const struct agg_spec *spec = a->spec;
	struct ev *e;
	int k, s, ret;
	bool owner_comm = true;

	agg_nameev_find(a);
	if (!j)
		return TP_OK;
	a->njs = j->nside;
	ret = join_sides(a);
	if (ret)
		return ret;
	join_woken(a);
	/* the rows' own ev: the layout of the pair's keys */
	e = agg_ev_append(a);
	if (!e)
		return TP_FAIL;
	e->id = -1;
	if (asprintf(&e->label, "%s -> %s", j->start, j->end) < 0) {
		e->label = NULL;
		return tp_oom();
	}
	a->jev = a->nev++;
	for (s = 0; s < a->njs; s++)
		if (a->js[s].end == j->end_owns && !a->js[s].comm)
			owner_comm = false;
	for (k = 0; k < spec->nkeys; k++) {
		struct col *c = &e->col[k];

		c->kind = AGG_KEY_FIELD;
		switch (spec->kind[k]) {
		case AGG_KEY_COMM:
			/* the name the records carry, else the task table's at print time */
			a->kend[k] = j->end_owns;
			a->lk[k] = LK_COMM;
			if (owner_comm)
				c->str = true;
			else
				c->kind = AGG_KEY_COMM;
			break;
		case AGG_KEY_PID:
			a->kend[k] = j->end_owns;
			a->lk[k] = LK_PID;
			c->kind = AGG_KEY_PID;
			break;
		case AGG_KEY_CPU:
			a->kend[k] = true;
			a->lk[k] = LK_CPU;
			c->kind = AGG_KEY_CPU;
			break;
		case AGG_KEY_EVENT:
			a->kend[k] = false;
			a->lk[k] = LK_EVENT;
			c->str = true;
			break;
		case AGG_KEY_STACK:
			/* the START's: where the task was when it began (switched out) */
			a->kend[k] = false;
			a->lk[k] = LK_STACK;
			c->kind = AGG_KEY_STACK;
			ret = agg_stack_key(a, k);
			if (ret)
				return ret;
			break;
		default:
			ret = field_key(a, k, c);
			if (ret)
				return ret;
		}
		a->type[k] = agg_col_type_of(c);
	}
	/* the table of waiting STARTs grows as they come (open_grow), up to its bound */
	a->maxopen = j->max_open ? j->max_open : JOIN_OPEN_DEFAULT;
	a->join_record = join_record;
	a->join_stack = join_stack;
	return TP_OK;
}

/* Room for more waiting STARTs: twice the entries, the buckets made again; -1: none. */
static int open_grow(struct agg *a)
{
	size_t cap = a->cap ? a->cap * 2 : 64, nb, i;
	struct jopen *no;
	uint32_t *nh;

	if (cap > a->maxopen)
		cap = a->maxopen;
	if (cap <= a->cap)
		return -1;
	for (nb = 64; nb < cap * 2; nb *= 2)
		;
	no = realloc(a->open, cap * sizeof(*no));
	if (!no)
		return -1;
	a->open = no;
	nh = calloc(nb, sizeof(*nh));
	if (!nh)
		return -1;
	memset(no + a->cap, 0, (cap - a->cap) * sizeof(*no));
	/* the new entries on the free list */
	for (i = a->cap; i < cap; i++)
		no[i].chain = i + 1 < cap ? i + 2 : a->free_list;
	a->free_list = a->cap + 1;
	/* the waiting ones in the new buckets */
	for (i = 0; i < a->cap; i++) {
		if (!no[i].used)
			continue;
		no[i].chain = nh[no[i].hash & (nb - 1)];
		nh[no[i].hash & (nb - 1)] = i + 1;
	}
	free(a->heads);
	a->heads = nh;
	a->nbucket = nb;
	a->cap = cap;
	return 0;
}

void agg_open_unlink(struct agg *a, uint32_t idx)
{
	struct jopen *o = &a->open[idx - 1];
	uint32_t *pp = &a->heads[o->hash & (a->nbucket - 1)];

	while (*pp != idx)
		pp = &a->open[*pp - 1].chain;
	*pp = o->chain;
	if (o->older)
		a->open[o->older - 1].newer = o->newer;
	else
		a->oldest = o->newer;
	if (o->newer)
		a->open[o->newer - 1].older = o->older;
	else
		a->newest = o->older;
	o->used = false;
	o->chain = a->free_list;
	a->free_list = idx;
	a->nopen--;
}

static uint32_t open_find(struct agg *a, const unsigned char *mkey, size_t mlen, uint64_t h)
{
	uint32_t i;

	if (!a->heads)
		return 0;
	for (i = a->heads[h & (a->nbucket - 1)]; i; i = a->open[i - 1].chain) {
		const struct jopen *o = &a->open[i - 1];

		if (o->hash == h && o->mlen == mlen && !memcmp(o->mkey, mkey, mlen))
			return i;
	}
	return 0;
}

/* Remember a START; a START already waiting under the key, or the oldest, is dropped. */
static int buf_keep(unsigned char **buf, uint32_t *alloc, const void *p, size_t len)
{
	if (len > *alloc) {
		unsigned char *n = realloc(*buf, len);

		if (!n)
			return -1;
		*buf = n;
		*alloc = len;
	}
	if (len)
		memcpy(*buf, p, len);
	return 0;
}

static void open_add(struct agg *a, const unsigned char *mkey, size_t mlen, uint64_t h,
		     const struct tep_record *rec, const unsigned char *skey, size_t slen,
		     int32_t tpid)
{
	/* --over prints it, an inferred END is made of it */
	bool keep = a->pair_fn || a->spec->join->infer_in;
	struct jopen *o;
	uint32_t idx = open_find(a, mkey, mlen, h);

	if (idx) {
		a->unmatched++;
		agg_open_unlink(a, idx);
	}
	if (!a->free_list && open_grow(a) < 0) {
		if (!a->oldest)
			return;
		a->unmatched++;
		agg_open_unlink(a, a->oldest);
	}
	idx = a->free_list;
	o = &a->open[idx - 1];
	if (buf_keep(&o->skey, &o->salloc, skey, slen) < 0 ||
	    (keep && buf_keep(&o->srec, &o->srecalloc, rec->data, rec->size) < 0))
		return;
	a->free_list = o->chain;
	o->slen = slen;
	o->sreclen = keep ? rec->size : 0;
	o->scpu = rec->cpu;
	o->tpid = tpid;
	o->orphan = false;
	o->hash = h;
	o->ts = rec->ts;
	o->mlen = mlen;
	memcpy(o->mkey, mkey, mlen);
	o->used = true;
	o->chain = a->heads[h & (a->nbucket - 1)];
	a->heads[h & (a->nbucket - 1)] = idx;
	o->older = a->newest;
	o->newer = 0;
	if (a->newest)
		a->open[a->newest - 1].newer = idx;
	else
		a->oldest = idx;
	a->newest = idx;
	a->nopen++;
}

/* A pending START made a waiting one, with the frames given (n 0: no stack came). */
static void stack_done(struct agg *a, struct jpend *p, const void *data, int n)
{
	struct tep_record rec = {
		.ts = p->ts, .cpu = p - a->jpend, .size = p->reclen, .data = p->rec,
	};
	unsigned char part[KEY_MAX];
	size_t k = p->at;

	memcpy(part, p->part, p->at);
	k += agg_stack_slot(part + k, a->kstack, data, n);
	memcpy(part + k, p->part + p->at + 2, p->plen - p->at - 2);
	k += p->plen - p->at - 2;
	p->on = false;
	open_add(a, p->mkey, p->mlen, p->h, &rec, part, k, p->tpid);
}

/* A START with a stack key: its stack record comes next on its CPU. */
static void stack_wait(struct agg *a, const struct tep_record *rec, const unsigned char *mkey,
		       size_t mlen, uint64_t h, const unsigned char *part, size_t plen,
		       int32_t tpid)
{
	struct jpend *p;
	size_t at = 0;
	int i;

	if (rec->cpu < 0 || rec->cpu >= 4096 || (size_t)rec->size > sizeof(p->rec) ||
	    !tp_array_grow(&a->jpend, &a->njpend, rec->cpu + 1, sizeof(*a->jpend)))
		return;
	p = &a->jpend[rec->cpu];
	/* the one before got no stack (lost with the buffer, or none was made) */
	if (p->on)
		stack_done(a, p, NULL, 0);
	for (i = 0; i < a->stack_col; i++)
		if (!a->kend[i])
			at += agg_slot_len(a, i, part + at);
	p->on = true;
	p->pid = decode_pid(rec->data);
	p->tpid = tpid;
	p->h = h;
	p->ts = rec->ts;
	p->mlen = mlen;
	memcpy(p->mkey, mkey, mlen);
	p->plen = plen;
	p->at = at;
	memcpy(p->part, part, plen);
	p->reclen = rec->size;
	memcpy(p->rec, rec->data, rec->size);
}

static void join_stack(struct agg *a, const struct tep_record *rec)
{
	struct jpend *p = rec->cpu >= 0 && rec->cpu < a->njpend ? &a->jpend[rec->cpu] : NULL;
	int n;

	/* a stack of a record that was not a START, or whose START was lost */
	if (!p || !p->on || p->pid != decode_pid(rec->data))
		return;
	n = decode_frames(a->kstack, rec->data, rec->size);
	stack_done(a, p, rec->data, n < STACK_MAX ? n : STACK_MAX);
}

/* The slots of the keys of one role, in key order, from one record. */
static size_t join_slots(struct agg *a, const struct jside *js, const struct tep_record *rec,
			 int pid, unsigned char *out)
{
	const void *data = rec->data;
	size_t k = 0;
	int i;

	for (i = 0; i < a->spec->nkeys; i++) {
		const struct dec_field *f = js->kf[i];
		const char *p = "";
		uint64_t v = 0;
		size_t len = 0;
		int32_t i32;

		if (a->kend[i] != js->end)
			continue;
		switch (a->lk[i]) {
		case LK_INT:
			decode_int(f, data, rec->size, &v);
			memcpy(out + k, &v, 8);
			k += 8;
			break;
		case LK_STR:
			if (!decode_span(f, data, rec->size, &p, &len))
				len = 0;
			k += put_str(out + k, p, len);
			break;
		case LK_NAMES:
			decode_int(f, data, rec->size, &v);
			if (v < js->kn[i].n && js->kn[i].v[v]) {
				p = js->kn[i].v[v];
				k += put_str(out + k, p, strlen(p));
			} else {
				char num[32];

				len = snprintf(num, sizeof(num), f && !strcmp(f->name, "id") &&
					       js->kn[i].v == a->sysnames.v ? "sys_%llu" : "%llu",
					       (unsigned long long)v);
				k += put_str(out + k, num, len);
			}
			break;
		case LK_COMM:
			if (js->comm) {
				if (!decode_span(js->comm, data, rec->size, &p, &len))
					len = 0;
				k += put_str(out + k, p, len);
				break;
			}
			/* live: learn the name while the task runs */
			if (a->comm_fn && !pcomm_find(a, pid))
				agg_pcomm_learn(a, pid, rec->ts);
			i32 = agg_comm_key(a, pid);
			memcpy(out + k, &i32, 4);
			k += 4;
			break;
		case LK_PID:
			memcpy(out + k, &pid, 4);
			k += 4;
			break;
		case LK_CPU:
			i32 = rec->cpu;
			memcpy(out + k, &i32, 4);
			k += 4;
			break;
		case LK_EVENT:
			p = a->ev[js->ev].label;
			k += put_str(out + k, p, strlen(p));
			break;
		case LK_STACK:
			/* no frames yet: agg_join_stack() puts them here */
			memset(out + k, 0, 2);
			k += 2;
			break;
		}
	}
	return k;
}

/* The length of key k's slot at p. */
size_t agg_slot_len(const struct agg *a, int k, const unsigned char *p)
{
	const struct col *c = &a->ev[a->jev].col[k];
	uint16_t l16;

	if (c->kind == AGG_KEY_STACK) {
		memcpy(&l16, p, 2);
		return 2 + (size_t)l16 * 8;
	}
	if (c->kind != AGG_KEY_FIELD)
		return 4;
	if (!c->str)
		return 8;
	memcpy(&l16, p, 2);
	return 2 + l16;
}

/* A record of one side; true when it closed a pair. */
static bool join_side(struct agg *a, const struct jside *js, const struct tep_record *rec)
{
	const struct agg_join *j = a->spec->join;
	unsigned char mkey[AGG_MATCH_MAX * 8 + 4], part[KEY_MAX], key[KEY_MAX];
	const void *data = rec->data;
	size_t mlen = 0, plen, k, sp, ep;
	uint64_t v = 0, h;
	uint32_t idx, jidx;
	int32_t pid = decode_pid(data);
	int m, i;

	if (js->pid) {
		decode_int(js->pid, data, rec->size, &v);
		pid = (int32_t)v;
	}
	if (j->skip_idle && pid == 0)
		return false;
	/* the task of a switch the pid filter passed for the other side's sake */
	if (js->pid && pid > 0 && !agg_own_has(a, pid))
		return false;
	if (js->cond) {
		decode_int(js->cond, data, rec->size, &v);
		v &= a->runnable_mask;
		if (!(v & a->state_keep) && !(a->state_runnable && !v))
			return false;
	}
	for (m = 0; m < js->nm; m++) {
		if (js->m[m])
			decode_int(js->m[m], data, rec->size, &v);
		else
			v = (uint32_t)decode_pid(data);
		memcpy(mkey + mlen, &v, 8);
		mlen += 8;
	}
	if (j->per_cpu) {
		memcpy(mkey + mlen, &rec->cpu, 4);
		mlen += 4;
	}
	h = hash_bytes(mkey, mlen);
	if (!js->end) {
		plen = join_slots(a, js, rec, pid, part);
		/* live: the task is tracked, so that its START goes when it does */
		if (js->task && pid > 0 && a->comm_fn && !pcomm_find(a, pid))
			agg_pcomm_learn(a, pid, rec->ts);
		if (a->stack_col >= 0)
			stack_wait(a, rec, mkey, mlen, h, part, plen, js->task && pid > 0 ? pid : 0);
		else
			open_add(a, mkey, mlen, h, rec, part, plen, js->task && pid > 0 ? pid : 0);
		return false;
	}
	idx = open_find(a, mkey, mlen, h);
	if (!idx)
		return false;
	{
		struct jopen *o = &a->open[idx - 1];

		/* stamped earlier than its START (two CPUs' clocks, a reused key): no pair */
		if (rec->ts < o->ts) {
			a->unmatched++;
			agg_open_unlink(a, idx);
			return false;
		}
		plen = join_slots(a, js, rec, pid, part);
		jidx = a->jev + 1;
		memcpy(key, &jidx, 4);
		k = 4;
		for (i = 0, sp = 0, ep = 0; i < a->spec->nkeys; i++) {
			const unsigned char *src = a->kend[i] ? part + ep : o->skey + sp;
			size_t n = agg_slot_len(a, i, src);

			memcpy(key + k, src, n);
			k += n;
			if (a->kend[i])
				ep += n;
			else
				sp += n;
		}
		v = rec->ts - o->ts;
		if (a->pair_fn && v > a->over && o->sreclen) {
			struct tep_record srec = {
				.ts = o->ts, .cpu = o->scpu, .size = o->sreclen, .data = o->srec,
			};

			a->pair_fn(a->pair_ctx, &srec, (struct tep_record *)rec, v);
		}
		agg_open_unlink(a, idx);
	}
	agg_rows_add(a, &a->cur, key, k, v, 1);
	return true;
}

void agg_set_pair_fn(struct agg *a, uint64_t over_ns, agg_pair_fn fn, void *ctx)
{
	a->pair_fn = fn;
	a->pair_ctx = ctx;
	a->over = over_ns;
}

/* ---------------------------------------------------------------- switches not recorded */

/*
 * Kernels can leave switches out (oncpu.h): a task whose switch in was not
 * recorded would keep its START waiting until its next switch in, or for
 * ever when it exits first.  Every record of the session goes to oncpu.c,
 * which says when a task ran without a switch in since its switch out, and
 * where to place that switch; the START waiting for it then ends there: an
 * END made of the START's own record (the switch out), its END fields
 * (next_*) given the START's (prev_*), at the time inferred.  The recipe
 * traces wakeups and exits for it (agg_join.also).
 */
static const struct jside *role_side(const struct agg *a, const struct ev *e, bool end)
{
	int i;

	for (i = 0; i < 2; i++)
		if (e->jside[i] && a->js[e->jside[i] - 1].end == end)
			return &a->js[e->jside[i] - 1];
	return NULL;
}

/* f's bytes in rec copied to g's place in buf (same size): false when they cannot be. */
static bool field_copy(unsigned char *buf, const struct tep_record *rec,
		       const struct dec_field *f, const struct dec_field *g)
{
	if (!f || !g || f->dynamic || g->dynamic || f->size != g->size ||
	    f->offset + f->size > rec->size || g->offset + g->size > rec->size)
		return false;
	memcpy(buf + g->offset, (const unsigned char *)rec->data + f->offset, f->size);
	return true;
}

/* The START of pid waiting, if any, ended at ts on cpu; true when it made a pair. */
static bool end_inferred(struct agg *a, int pid, uint64_t ts, int cpu)
{
	const struct jside *ss = NULL, *es = NULL;
	unsigned char mkey[8], buf[512];
	struct tep_record end = { .ts = ts, .cpu = cpu };
	const struct jopen *o;
	uint64_t v = (uint64_t)(int64_t)pid;
	uint32_t idx;
	bool ok;
	int s, m;

	for (s = 0; s < a->njs; s++) {
		if (a->js[s].end)
			es = &a->js[s];
		else
			ss = &a->js[s];
	}
	/* a START matched on its task's pid alone, its record kept */
	if (!ss || !es || !ss->task || !es->pid || ss->nm != 1)
		return false;
	memcpy(mkey, &v, 8);
	idx = open_find(a, mkey, 8, hash_bytes(mkey, 8));
	if (!idx)
		return false;
	o = &a->open[idx - 1];
	if (!o->sreclen || o->sreclen > sizeof(buf))
		return false;
	memcpy(buf, o->srec, o->sreclen);
	end.data = buf;
	end.size = o->sreclen;
	{
		const struct tep_record start = { .data = o->srec, .size = o->sreclen };

		ok = field_copy(buf, &start, ss->pid, es->pid) &&
		     (!es->comm || field_copy(buf, &start, ss->comm, es->comm));
		for (m = 0; ok && m < es->nm; m++)
			ok = field_copy(buf, &start, ss->m[m], es->m[m]);
	}
	return ok && join_side(a, es, &end);
}

static void infer_in(struct agg *a, const struct ev *e, const struct tep_record *rec)
{
	const struct jside *ss = role_side(a, e, false), *es = role_side(a, e, true);
	int pid = decode_pid(rec->data);
	uint64_t v = 0, w = 0, at;

	if (e->woken && decode_int(e->woken, rec->data, rec->size, &v))
		oncpu_wakeup(&a->on, (int)v, rec->ts);
	if (oncpu_record(&a->on, rec->cpu, rec->ts, pid, &at) && pid > 0 &&
	    end_inferred(a, pid, at, rec->cpu))
		oncpu_said(&a->on, rec->cpu);
	if (ss && es && ss->pid && es->pid && decode_int(ss->pid, rec->data, rec->size, &v) &&
	    decode_int(es->pid, rec->data, rec->size, &w))
		oncpu_switch(&a->on, rec->cpu, rec->ts, (int)v, (int)w);
}

unsigned long long agg_inferred(const struct agg *a, char *cpus, size_t size)
{
	return oncpu_inferred(&a->on, cpus, size);
}

static void join_record(struct agg *a, const struct ev *e, const struct tep_record *rec)
{
	if (a->spec->join->infer_in)
		infer_in(a, e, rec);
	if (e->jside[0])
		join_side(a, &a->js[e->jside[0] - 1], rec);
	if (e->jside[1])
		join_side(a, &a->js[e->jside[1] - 1], rec);
}

