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
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>
#include <tracefs.h>

#include "agg.h"
#include "comm.h"
#include "decode.h"
#include "tfs.h"
#include "tpctl.h"

/* Longest string key kept; longer ones are cut (and so merged) there. */
#define KEY_STR_MAX 256
/* Frames of a stack key kept; deeper ones are cut (the kernel records up to 64 or so). */
#define STACK_MAX 128
#define KEY_MAX (4 + AGG_MAX_KEYS * (2 + KEY_STR_MAX) + 2 + STACK_MAX * 8 + 8)
/* The kernel's hist triggers take at most three keys (TRACING_MAP_KEYS_MAX). */
#define KERNEL_KEYS_MAX 3
#define TASK_COMM 16

/* ---------------------------------------------------------------- rows */

struct row {
	uint64_t hash;
	uint32_t koff, klen;
	uint64_t count, sum, min, max;
};

struct tab {
	struct row *rows;
	size_t n, alloc;
	uint32_t *slot;		/* row index + 1; 0: empty.  A power of two in size. */
	size_t nslot;
	unsigned char *keys;
	size_t klen, kalloc;
	size_t max;		/* rows at most (0: no bound) */
	bool full;		/* the last tab_get() refused a new row: max reached */
};

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	if (n) {
		w = 0;
		memcpy(&w, p, n);
		h = (h ^ w) * 0x94d049bb133111ebULL;
	}
	return h ^ (h >> 29);
}

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
static struct row *tab_get(struct tab *t, const void *key, uint32_t klen, uint64_t h)
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

static void tab_clear(struct tab *t)
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

/* ---------------------------------------------------------------- set-up */

enum kk_type { KK_EXECNAME, KK_PID, KK_NUM, KK_STR };

/* One key of the kernel's hist trigger for an event. */
struct kkey {
	const char *name;	/* as the trigger names it */
	enum kk_type type;
};

struct col {
	enum agg_key_kind kind;
	const struct dec_field *f;	/* AGG_KEY_FIELD */
	bool str;			/* a string field */
	enum dec_sym sym;		/* printed as a kernel symbol */
	bool sysname;			/* a syscall number printed by name (--by syscall) */
	int kk;				/* the kernel key it comes from */
};

struct ev {
	char *sys, *name, *label;
	int id;
	struct col col[AGG_MAX_KEYS];
	const struct dec_field *vf;	/* hist: the value field */
	struct kkey kk[KERNEL_KEYS_MAX + 1];
	int nkk;
	int vkk;			/* the kernel key of the value */
	const char *kwhy;		/* why the kernel cannot aggregate it, or NULL */
	bool kplanned;
	char *fmt;			/* latency: its format text (symbolic names) */
	int8_t jside[2];		/* latency: its sides (index + 1), the END first */
	bool strings;			/* a --strings probe: its strings may be faults */
};

/* ---------------------------------------------------------------- latency */

/* Where a latency key comes from and how its slot of the row key is made. */
enum lk {
	LK_INT,		/* a number field: 8 bytes */
	LK_STR,		/* a string field: 2-byte length and bytes */
	LK_NAMES,	/* a number field shown by name (__print_symbolic, syscalls) */
	LK_PID,		/* the pair's task: 4 bytes */
	LK_COMM,	/* its name: a string field, or its pid (4 bytes) looked up later */
	LK_CPU,		/* the END's CPU: 4 bytes */
	LK_EVENT,	/* the START's event name */
};

struct names {
	const char **v;		/* value -> name, NULL where there is none */
	size_t n;
};

struct jside {
	int ev;				/* a->ev index */
	bool end;
	const struct dec_field *m[AGG_MATCH_MAX];
	int nm;
	const struct dec_field *pid, *comm, *cond;
	const struct dec_field *kf[AGG_MAX_KEYS];	/* key k's field here (its role's sides) */
	struct names kn[AGG_MAX_KEYS];
	bool task;			/* a START of it waits on its task (matched on the pid) */
};

/* A START waiting for its END. */
struct jopen {
	uint64_t hash;
	uint64_t ts;
	uint32_t chain;			/* next in the hash bucket, index + 1 */
	uint32_t older, newer;		/* insertion order, index + 1 */
	uint8_t mlen;
	bool used;
	unsigned char mkey[AGG_MATCH_MAX * 8 + 4];
	unsigned char *skey;		/* the START's part of the row key */
	uint32_t slen, salloc;
	unsigned char *srec;		/* --over: the START's record */
	uint32_t sreclen, srecalloc;
	int scpu;
	int32_t tpid;			/* the task it waits on (its match is the pid); 0: none */
	bool orphan;			/* its task was gone at the last reap */
};

#define JOIN_OPEN_DEFAULT 65536

struct agg;
static void join_free(struct agg *a);
static void join_record(struct agg *a, const struct ev *e, const struct tep_record *rec);

struct pcomm {
	int pid;
	bool used;
	char comm[TASK_COMM + 1];
	unsigned long long start;	/* when the task began (/proc); 0: gone when met */
};

/* The name of the tasks that are gone, folded into one pid of their own (-1 - index). */
struct dname {
	char comm[TASK_COMM + 1];
};

struct agg {
	const struct agg_spec *spec;
	unsigned long long faults;	/* --strings keys the kernel could not fetch */
	struct tep_handle *tep;
	struct decoder *dec;
	struct ev *ev;
	int nev;
	uint32_t *by_id;		/* event id -> index + 1 */
	int nid;
	enum agg_col_type type[AGG_MAX_KEYS];
	bool vsign;
	struct tab cur, total;
	struct tab kprev;		/* kernel engine: the counts last read, exact keys */
	bool kcomm;			/* kernel engine: a comm key is the entry's name, not a pid */
	struct pcomm *pc;		/* pid -> its name when first counted (pcomm_set) */
	size_t npc, npcused;
	struct dname *dn;		/* the names of the tasks gone (agg_tasks_reap) */
	uint32_t *dnslot;		/* index + 1, hashed by name; a power of two in size */
	size_t ndn, adn, ndnslot;
	struct comm_saved names;	/* saved_cmdlines as last read (comm_of) */
	uint64_t lost_cur, lost_total;
	uint64_t refused;		/* events not counted: their row would pass the bound */
	int (*comm_fn)(struct tep_handle *tep, void *ctx);
	void *comm_ctx;
	/* a stack key: the events waiting for their stack record, per CPU */
	int stack_col;			/* the key that is the stack, -1: none */
	int kstack_id;			/* ftrace:kernel_stack */
	const struct dec_event *kstack;
	struct pend *pend;
	int npend;
	/* latency (spec->join) */
	struct jside js[AGG_SIDES_MAX];
	int njs;
	int jev;			/* the rows' own ev: the layout of their keys */
	enum lk lk[AGG_MAX_KEYS];
	bool kend[AGG_MAX_KEYS];	/* key k comes from the END */
	struct jopen *open;
	uint32_t *heads;
	size_t cap, maxopen, nbucket, nopen;
	uint32_t oldest, newest, free_list;
	uint64_t unmatched;
	uint64_t vdiv;			/* log2 buckets of latency count microseconds */
	uint64_t runnable_mask;		/* prev_state bits that say "not runnable" */
	struct names sysnames;
	bool sysnames_read;
	agg_pair_fn pair_fn;		/* --over */
	void *pair_ctx;
	uint64_t over;
};

/* An event waiting for its stack: its key before and after the stack's place. */
struct pend {
	bool on;
	int pid;
	uint64_t v;
	uint32_t pre, post;		/* bytes of key before and after the stack */
	unsigned char key[KEY_MAX];
};

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
	if (!*s || strlen(s) > 255)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

int agg_spec_keys(struct agg_spec *spec, const char *by)
{
	char *tok, *save = NULL, *p;
	size_t i;
	int j;

	spec->nkeys = 0;
	spec->text = strdup(by ? by : "event");
	if (!spec->text) {
		tp_error("out of memory");
		return TP_FAIL;
	}
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

void agg_set_comm_loader(struct agg *a, int (*fn)(struct tep_handle *tep, void *ctx), void *ctx)
{
	a->comm_fn = fn;
	a->comm_ctx = ctx;
}

int agg_nevents(const struct agg *a)
{
	return a->nev;
}

static const struct dec_field *field_find(const struct dec_event *de, const char *name)
{
	int i;

	for (i = 0; i < de->nfields; i++)
		if (!strcmp(de->fields[i].name, name))
			return &de->fields[i];
	return NULL;
}

static void names_syscalls(struct names *n);

/* "unknown field 'x' in 'sys:ev' (its fields: a, b, c)" */
static int field_unknown(const struct dec_event *de, const char *what, const char *name,
			 const char *label)
{
	char list[512];
	size_t len = 0;
	int i;

	list[0] = '\0';
	for (i = 0; i < de->nfields && len < sizeof(list) - 1; i++) {
		if (!strncmp(de->fields[i].name, "common_", 7))
			continue;
		len += snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
				de->fields[i].name);
	}
	if (len >= sizeof(list) - 1)
		strcpy(list + sizeof(list) - 5, "...");
	tp_error("unknown %s '%s' in '%s' (its fields: %s)", what, name, label,
		 len ? list : "none");
	return TP_USAGE;
}

static enum agg_col_type col_type(const struct col *c)
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
		return c->f->sign ? AGG_COL_INT : AGG_COL_UINT;
	default:
		return AGG_COL_STR;
	}
}

/* Room for one more ev at a->ev[a->nev], zeroed (a->nev unchanged); NULL: said why. */
static struct ev *ev_append(struct agg *a)
{
	struct ev *nv = realloc(a->ev, (a->nev + 1) * sizeof(*nv));

	if (!nv) {
		tp_error("out of memory");
		return NULL;
	}
	a->ev = nv;
	memset(&nv[a->nev], 0, sizeof(*nv));
	return &nv[a->nev];
}

int agg_add_event(struct agg *a, const char *sys, const char *name, const char *fmt,
		  size_t fmtlen)
{
	const struct agg_spec *spec = a->spec;
	struct tep_event *event = tep_find_event_by_name(a->tep, sys, name);
	struct dec_event *de;
	struct ev *e;
	int k;

	if (!event || !(de = decoder_event(a->dec, event->id))) {
		tp_error("cannot read the format of '%s:%s'", sys, name);
		return TP_FAIL;
	}
	e = ev_append(a);
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
		tp_error("out of memory");
		return TP_FAIL;
	}
	/* from here on the event is a->ev[a->nev] whatever happens: agg_free frees it */
	a->nev++;
	/* latency: the keys are the pairs', resolved once every side is there (agg_ready) */
	if (spec->join) {
		e->fmt = strndup(fmt, fmtlen);
		if (!e->fmt) {
			tp_error("out of memory");
			return TP_FAIL;
		}
		goto by_id;
	}
	for (k = 0; k < spec->nkeys; k++) {
		struct col *c = &e->col[k];

		c->kind = spec->kind[k];
		if (c->kind == AGG_KEY_STACK && !a->kstack) {
			struct tep_event *ks = tep_find_event_by_name(a->tep, "ftrace", "kernel_stack");

			a->kstack = ks ? decoder_event(a->dec, ks->id) : NULL;
			if (!a->kstack || a->kstack->special != DS_KSTACK) {
				tp_error("cannot read the format of 'ftrace:kernel_stack'");
				return TP_FAIL;
			}
			a->kstack_id = ks->id;
			a->stack_col = k;
		}
		if (c->kind != AGG_KEY_FIELD)
			goto typed;
		c->f = field_find(de, spec->field[k]);
		/* syscall: the number of a syscall event, by name, as latency's key */
		if (!c->f && !strcmp(spec->name[k], "syscall")) {
			if (!strcmp(de->system, "raw_syscalls"))
				c->f = field_find(de, "id");
			else if (!strcmp(de->system, "syscalls"))
				c->f = field_find(de, "__syscall_nr");
			if (c->f && c->f->kind == DK_INT) {
				c->sysname = true;
				if (!a->sysnames_read) {
					a->sysnames_read = true;
					names_syscalls(&a->sysnames);
				}
				goto typed;
			}
			tp_error("unknown key 'syscall' for '%s': it needs raw_syscalls or "
				 "syscalls events", e->label);
			return TP_USAGE;
		}
		if (!c->f)
			return field_unknown(de, "field", spec->field[k], e->label);
		if (c->f->kind == DK_STR) {
			c->str = true;
		} else if (c->f->kind == DK_INT) {
			c->sym = decode_format_field_sym(fmt, fmtlen, c->f->name);
		} else {
			tp_error("field '%s' of '%s' is an array: keys are numbers or strings",
				 c->f->name, e->label);
			return TP_USAGE;
		}
typed:
		if (a->nev == 1) {
			a->type[k] = col_type(c);
		} else if ((a->type[k] == AGG_COL_STR) != (col_type(c) == AGG_COL_STR)) {
			tp_error("key '%s' is a %s in '%s' but not in '%s'", spec->name[k],
				 a->type[k] == AGG_COL_STR ? "string" : "number", a->ev[0].label,
				 e->label);
			return TP_USAGE;
		}
	}
	if (spec->value) {
		e->vf = field_find(de, spec->value);
		if (!e->vf)
			return field_unknown(de, "field", spec->value, e->label);
		if (e->vf->kind != DK_INT) {
			tp_error("field '%s' of '%s' is not a number", spec->value, e->label);
			return TP_USAGE;
		}
		if (a->nev == 1)
			a->vsign = e->vf->sign;
	}
by_id:
	if (event->id >= a->nid) {
		int nn = event->id + 64;
		uint32_t *nb = realloc(a->by_id, nn * sizeof(*nb));

		if (!nb) {
			tp_error("out of memory");
			return TP_FAIL;
		}
		memset(nb + a->nid, 0, (nn - a->nid) * sizeof(*nb));
		a->by_id = nb;
		a->nid = nn;
	}
	a->by_id[event->id] = a->nev;
	return TP_OK;
}

/* ---------------------------------------------------------------- adding */

/*
 * pid -> the task's name when it was first counted: what the kernel's
 * execname key saw (kernel engine), or /proc/PID/comm when the user engine
 * first meets the pid (saved_cmdlines, read when a table is printed, holds
 * only the last names it saw, and loses short-lived tasks on a busy system).
 * An empty name: not known, saved_cmdlines is asked then.
 */
static struct pcomm *pcomm_slot(struct pcomm *pc, size_t n, int pid)
{
	size_t i;

	for (i = (unsigned)pid & (n - 1); pc[i].used && pc[i].pid != pid; i = (i + 1) & (n - 1))
		;
	return &pc[i];
}

static void pcomm_set(struct agg *a, int pid, const char *comm, size_t len,
		      unsigned long long start)
{
	struct pcomm *p;

	if (a->npcused * 2 >= a->npc) {
		/* grow; past 64K tasks start over: the names are a preference */
		size_t n = a->npc && a->npc < 65536 ? a->npc * 2 : 1024, i;
		struct pcomm *np = calloc(n, sizeof(*np));

		if (!np)
			return;
		a->npcused = 0;
		for (i = 0; n > a->npc && i < a->npc; i++) {
			if (!a->pc[i].used)
				continue;
			*pcomm_slot(np, n, a->pc[i].pid) = a->pc[i];
			a->npcused++;
		}
		free(a->pc);
		a->pc = np;
		a->npc = n;
	}
	p = pcomm_slot(a->pc, a->npc, pid);
	if (!p->used)
		a->npcused++;
	if (len > TASK_COMM)
		len = TASK_COMM;
	p->used = true;
	p->pid = pid;
	p->start = start;
	memcpy(p->comm, comm, len);
	p->comm[len] = '\0';
}

static const struct pcomm *pcomm_find(const struct agg *a, int pid)
{
	const struct pcomm *p;

	if (!a->npc)
		return NULL;
	p = pcomm_slot(a->pc, a->npc, pid);
	return p->used ? p : NULL;
}

/* User engine: the name of a pid met for the first time, while it (likely) still runs. */
static void pcomm_learn(struct agg *a, int pid, unsigned long long ts)
{
	char buf[COMM_MAX + 2];
	unsigned long long start;
	size_t len = comm_proc(pid, ts, buf, sizeof(buf), &start);

	pcomm_set(a, pid, buf, len, start);
}


/* The bucket a value falls in, as 8 key bytes (signed or not as the bounds are). */
static uint64_t bucket_of(const struct agg *a, uint64_t v)
{
	const struct agg_spec *s = a->spec;

	if (s->scale == AGG_SCALE_LOG2) {
		if (a->vsign && (int64_t)v < 0)
			return (uint64_t)-1;
		return v ? 64 - __builtin_clzll(v) : 0;
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
static void rows_add(struct agg *a, struct tab *t, unsigned char *key, size_t k, uint64_t v,
		     uint64_t n)
{
	struct row *r;

	if (a->spec->value || a->spec->join) {
		uint64_t b = bucket_of(a, a->vdiv > 1 ? v / a->vdiv : v);

		memcpy(key + k, &b, 8);
		k += 8;
	}
	r = tab_get(t, key, k, hash_bytes(key, k));
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

static size_t put_str(unsigned char *key, const char *s, size_t len)
{
	uint16_t l = len > KEY_STR_MAX ? KEY_STR_MAX : len;

	memcpy(key, &l, 2);
	memcpy(key + 2, s, l);
	return 2 + l;
}

/* Count a waiting event with the frames given (n 0: its stack never came). */
static void pend_count(struct agg *a, struct pend *p, const struct dec_event *de,
		       const void *data, int n)
{
	unsigned char key[KEY_MAX];
	uint16_t n16 = n;
	size_t k = p->pre;
	int i;

	memcpy(key, p->key, p->pre);
	memcpy(key + k, &n16, 2);
	k += 2;
	for (i = 0; i < n; i++, k += 8) {
		uint64_t addr = decode_frame(de, data, i);

		memcpy(key + k, &addr, 8);
	}
	memcpy(key + k, p->key + p->pre, p->post);
	k += p->post;
	p->on = false;
	rows_add(a, &a->cur, key, k, p->v, 1);
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

/* ---------------------------------------------------------------- latency */

static void names_free(struct names *n)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		free((char *)n->v[i]);
	free(n->v);
	memset(n, 0, sizeof(*n));
}

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
	for (s = 0; s < a->njs; s++)
		for (k = 0; k < AGG_MAX_KEYS; k++)
			if (a->js[s].kn[k].v != a->sysnames.v)
				names_free(&a->js[s].kn[k]);
	names_free(&a->sysnames);
}

static int names_set(struct names *n, unsigned long long v, const char *name, size_t len)
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
 * The names a print fmt gives a field's values: __print_symbolic(REC->F,
 * { 0, "HI" }, { 1, "TIMER" }, ...), read from the format itself, so that
 * softirq vectors are named as the kernel's text names them.  The names
 * point into fmt... no: they are copied; the table is empty when the print
 * fmt has none.
 */
static void names_symbolic(struct names *n, const char *fmt, const char *field)
{
	char pat[300];
	const char *p, *q;

	snprintf(pat, sizeof(pat), "__print_symbolic(REC->%s,", field);
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
		if (names_set(n, v, q + 1, p - q - 1) < 0)
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

/*
 * Syscall numbers -> names for this machine.  The kernel exports no table
 * (raw_syscalls carry the number only, and the syscalls:sys_enter_* events
 * do not say theirs), so the C library's kernel headers for the running
 * architecture are read: "#define __NR_read 0".  A number they lack is shown
 * as "sys_N".
 */
static void names_syscalls(struct names *n)
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
		    names_set(n, v, name, strlen(name)) < 0)
			break;
	}
	fclose(f);
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

static const struct dec_field *side_field(struct agg *a, int ev, const char *name)
{
	const struct tep_event *event = tep_find_event(a->tep, a->ev[ev].id);
	const struct dec_event *de = event ? decoder_event(a->dec, event->id) : NULL;

	return de ? field_find(de, name) : NULL;
}

static int side_unknown(struct agg *a, int ev, const char *name)
{
	const struct dec_event *de = decoder_event(a->dec, a->ev[ev].id);

	return field_unknown(de, "field", name, a->ev[ev].label);
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
		if (as->cond == AGG_COND_RUNNABLE) {
			js->cond = side_field(a, js->ev, "prev_state");
			if (!js->cond)
				return side_unknown(a, js->ev, "prev_state");
			a->runnable_mask = runnable_mask(a->ev[js->ev].fmt);
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

int agg_ready(struct agg *a)
{
	const struct agg_join *j = a->spec->join;
	const struct agg_spec *spec = a->spec;
	struct ev *e;
	int k, s, ret;
	bool owner_comm = true;

	if (!j)
		return TP_OK;
	a->njs = j->nside;
	ret = join_sides(a);
	if (ret)
		return ret;
	/* the rows' own ev: the layout of the pair's keys */
	e = ev_append(a);
	if (!e)
		return TP_FAIL;
	e->id = -1;
	if (asprintf(&e->label, "%s -> %s", j->start, j->end) < 0) {
		e->label = NULL;
		tp_error("out of memory");
		return TP_FAIL;
	}
	a->jev = a->nev++;
	for (s = 0; s < a->njs; s++)
		if (a->js[s].end == j->end_owns && !a->js[s].comm)
			owner_comm = false;
	for (k = 0; k < spec->nkeys; k++) {
		struct col *c = &e->col[k];
		const char *name = spec->name[k];

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
			tp_error("latency has no stack key");
			return TP_USAGE;
		default:
			if (!strcmp(name, "syscall")) {
				ret = join_key_field(a, k, "id", false, c);
				if (ret)
					return ret;
				if (!a->sysnames_read) {
					a->sysnames_read = true;
					names_syscalls(&a->sysnames);
				}
				for (s = 0; s < a->njs; s++)
					if (!a->js[s].end)
						a->js[s].kn[k] = a->sysnames;
				a->lk[k] = LK_NAMES;
				c->str = true;
				c->sym = DEC_SYM_NONE;
			} else if (!strncmp(name, "start.", 6) || !strncmp(name, "end.", 4)) {
				bool end = name[0] == 'e';

				ret = join_key_field(a, k, strchr(name, '.') + 1, end, c);
			} else if (role_has(a, false, spec->field[k])) {
				ret = join_key_field(a, k, spec->field[k], false, c);
			} else if (role_has(a, true, spec->field[k])) {
				ret = join_key_field(a, k, spec->field[k], true, c);
			} else {
				tp_error("unknown key '%s': no field of that name on either side "
					 "('%s', '%s')", name, j->start, j->end);
				return TP_USAGE;
			}
			if (ret)
				return ret;
		}
		a->type[k] = col_type(c);
	}
	/* the table of waiting STARTs grows as they come (open_grow), up to its bound */
	a->maxopen = j->max_open ? j->max_open : JOIN_OPEN_DEFAULT;
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

static void open_unlink(struct agg *a, uint32_t idx)
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
	struct jopen *o;
	uint32_t idx = open_find(a, mkey, mlen, h);

	if (idx) {
		a->unmatched++;
		open_unlink(a, idx);
	}
	if (!a->free_list && open_grow(a) < 0) {
		if (!a->oldest)
			return;
		a->unmatched++;
		open_unlink(a, a->oldest);
	}
	idx = a->free_list;
	o = &a->open[idx - 1];
	if (buf_keep(&o->skey, &o->salloc, skey, slen) < 0 ||
	    (a->pair_fn && buf_keep(&o->srec, &o->srecalloc, rec->data, rec->size) < 0))
		return;
	a->free_list = o->chain;
	o->slen = slen;
	o->sreclen = a->pair_fn ? rec->size : 0;
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
				pcomm_learn(a, pid, rec->ts);
			/* fall through */
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
		}
	}
	return k;
}

/* The length of key k's slot at p. */
static size_t slot_len(const struct agg *a, int k, const unsigned char *p)
{
	const struct col *c = &a->ev[a->jev].col[k];
	uint16_t l16;

	if (c->kind != AGG_KEY_FIELD)
		return 4;
	if (!c->str)
		return 8;
	memcpy(&l16, p, 2);
	return 2 + l16;
}

static void join_side(struct agg *a, const struct jside *js, const struct tep_record *rec)
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
		return;
	if (js->cond) {
		decode_int(js->cond, data, rec->size, &v);
		if (v & a->runnable_mask)
			return;
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
			pcomm_learn(a, pid, rec->ts);
		open_add(a, mkey, mlen, h, rec, part, plen, js->task && pid > 0 ? pid : 0);
		return;
	}
	idx = open_find(a, mkey, mlen, h);
	if (!idx)
		return;
	{
		struct jopen *o = &a->open[idx - 1];

		/* stamped earlier than its START (two CPUs' clocks, a reused key): no pair */
		if (rec->ts < o->ts) {
			a->unmatched++;
			open_unlink(a, idx);
			return;
		}
		plen = join_slots(a, js, rec, pid, part);
		jidx = a->jev + 1;
		memcpy(key, &jidx, 4);
		k = 4;
		for (i = 0, sp = 0, ep = 0; i < a->spec->nkeys; i++) {
			const unsigned char *src = a->kend[i] ? part + ep : o->skey + sp;
			size_t n = slot_len(a, i, src);

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
		open_unlink(a, idx);
	}
	rows_add(a, &a->cur, key, k, v, 1);
}

void agg_set_pair_fn(struct agg *a, uint64_t over_ns, agg_pair_fn fn, void *ctx)
{
	a->pair_fn = fn;
	a->pair_ctx = ctx;
	a->over = over_ns;
}

static void join_record(struct agg *a, const struct ev *e, const struct tep_record *rec)
{
	if (e->jside[0])
		join_side(a, &a->js[e->jside[0] - 1], rec);
	if (e->jside[1])
		join_side(a, &a->js[e->jside[1] - 1], rec);
}

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
	if (id == a->kstack_id) {
		stack_record(a, rec);
		return;
	}
	if (id >= a->nid || !(idx = a->by_id[id]))
		return;
	e = &a->ev[idx - 1];
	if (a->spec->join) {
		join_record(a, e, rec);
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
				pcomm_learn(a, pid, rec->ts);
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
		rows_add(a, &a->cur, key, k, v, 1);
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

/* Row s added to row r (of the same key, or of the key s folds into). */
static void row_merge(const struct agg *a, struct row *r, const struct row *s)
{
	if (!r->count) {
		r->min = s->min;
		r->max = s->max;
	} else if (a->vsign) {
		if ((int64_t)s->min < (int64_t)r->min)
			r->min = s->min;
		if ((int64_t)s->max > (int64_t)r->max)
			r->max = s->max;
	} else {
		if (s->min < r->min)
			r->min = s->min;
		if (s->max > r->max)
			r->max = s->max;
	}
	r->count += s->count;
	r->sum += s->sum;
}

/* The rows of src added to dst's (a's value signedness). */
static void tab_merge(struct agg *a, struct tab *dst, const struct tab *src)
{
	size_t i;

	for (i = 0; i < src->n; i++) {
		const struct row *s = &src->rows[i];
		struct row *r = tab_get(dst, src->keys + s->koff, s->klen, s->hash);

		if (!r) {
			if (dst->full)
				a->refused += s->count;
			continue;
		}
		row_merge(a, r, s);
	}
}

void agg_interval_end(struct agg *a)
{
	tab_merge(a, &a->total, &a->cur);
	tab_clear(&a->cur);
	a->lost_total += a->lost_cur;
	a->lost_cur = 0;
}

void agg_merge(struct agg *a, struct agg *from)
{
	size_t i;

	tab_merge(a, &a->cur, &from->cur);
	tab_clear(&from->cur);
	a->refused += from->refused;
	a->faults += from->faults;
	from->refused = from->faults = 0;
	/* the name a task had when first counted: the first one to know it wins */
	for (i = 0; i < from->npc; i++)
		if (from->pc[i].used && !pcomm_find(a, from->pc[i].pid))
			pcomm_set(a, from->pc[i].pid, from->pc[i].comm, strlen(from->pc[i].comm),
				  from->pc[i].start);
}

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

	for (k = 0; k < s->nkeys; k++) {
		comm |= s->kind[k] == AGG_KEY_COMM;
		pid |= s->kind[k] == AGG_KEY_PID;
		cpu |= s->kind[k] == AGG_KEY_CPU;
		if (s->kind[k] == AGG_KEY_STACK)
			return "the kernel's stack keys are not the stacks tpctl shows";
	}
	/* an event field called cpu hides the kernel's own cpu key */
	if (de && field_find(de, "cpu"))
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
		int c;

		end = memchr(line, '\n', textend - line);
		if (!end)
			end = textend;
		if (!strncmp(skip_spaces(line), "Dropped:", 8)) {
			parse_u64(skip_spaces(line) + 8, dropped);
			continue;
		}
		if (*line != '{')
			continue;
		/* a string key holding a newline (a task may name itself so): the entry goes on */
		if (!memmem(line, end - line, " } hitcount:", 12)) {
			const char *hc = memmem(end, textend - end, " } hitcount:", 12);

			if (hc)
				end = memchr(hc, '\n', textend - hc);
			if (!end)
				end = textend;
		}
		memset(&kv, 0, sizeof(kv));
		if (!parse_entry(e, line, end, &kv)) {
			bad++;
			continue;
		}
		/* the exact key: what this entry counted until now */
		memcpy(xkey, &idx, 4);
		x = 4;
		for (c = 0; c < e->nkk; c++) {
			if (e->kk[c].type == KK_STR) {
				x += put_str(xkey + x, kv.s[c], kv.len[c]);
			} else {
				memcpy(xkey + x, &kv.v[c], 8);
				x += 8;
			}
		}
		r = tab_get(&a->kprev, xkey, x, hash_bytes(xkey, x));
		if (!r || kv.hits <= r->count)
			continue;
		delta = kv.hits - r->count;
		r->count = kv.hits;
		/* the row key, laid out as agg_record lays it out */
		memcpy(key, &idx, 4);
		k = 4;
		if (a->spec->join) {
			k = join_kernel_key(a, e, &kv, key);
			/* the synthetic event's time is in microseconds */
			rows_add(a, &a->cur, key, k, kv.v[e->vkk] * 1000, delta);
			continue;
		}
		for (c = 0; c < a->spec->nkeys; c++) {
			const struct col *cl = &e->col[c];
			int32_t i32;

			switch (cl->kind) {
			case AGG_KEY_COMM:
				k += put_str(key + k, kv.comm, kv.commlen);
				break;
			case AGG_KEY_PID:
			case AGG_KEY_CPU:
				i32 = (int32_t)kv.v[cl->kk];
				memcpy(key + k, &i32, 4);
				k += 4;
				break;
			case AGG_KEY_FIELD:
				if (cl->str) {
					k += put_str(key + k, kv.s[cl->kk], kv.len[cl->kk]);
				} else {
					memcpy(key + k, &kv.v[cl->kk], 8);
					k += 8;
				}
				break;
			default:
				break;
			}
		}
		if (e->vf)
			val = kv.v[e->vkk];
		rows_add(a, &a->cur, key, k, val, delta);
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

const char *agg_kernel_join(struct agg *a, const char *name, const char *filter,
			    struct agg_kjoin *kj)
{
	const struct agg_join *j = a->spec->join;
	const struct agg_side *ss = NULL, *es = NULL;
	struct ev *e = &a->ev[a->jev];
	struct tracefs_synth *syn = NULL;
	char start_sys[256], end_sys[256], path[600], fname[16];
	const char *why = NULL;
	struct trace_seq seq;
	int k, s, m;

	memset(kj, 0, sizeof(*kj));
	for (s = 0; s < j->nside; s++) {
		if (j->side[s].end && !es)
			es = &j->side[s];
		else if (!j->side[s].end && !ss)
			ss = &j->side[s];
		else
			return "several START or END events (the kernel pairs one with one)";
		if (j->side[s].cond)
			return "a START that depends on the task's state";
	}
	if (!ss || !es)
		return "no START or no END";
	if (a->spec->nkeys > KERNEL_KEYS_MAX - 1)
		return "more than two keys (the time is the third)";
	snprintf(kj->name, sizeof(kj->name), "%s", name);
	snprintf(start_sys, sizeof(start_sys), "%.*s", (int)strcspn(ss->event, ":"), ss->event);
	snprintf(end_sys, sizeof(end_sys), "%.*s", (int)strcspn(es->event, ":"), es->event);
	kj->start_sys = a->ev[a->js[0].end ? a->js[1].ev : a->js[0].ev].sys;
	kj->start_ev = a->ev[a->js[0].end ? a->js[1].ev : a->js[0].ev].name;
	kj->end_sys = a->ev[a->js[0].end ? a->js[0].ev : a->js[1].ev].sys;
	kj->end_ev = a->ev[a->js[0].end ? a->js[0].ev : a->js[1].ev].name;
	syn = tracefs_synth_alloc(a->tep, name, kj->start_sys, kj->start_ev, kj->end_sys,
				  kj->end_ev, ss->match[0], es->match[0], "m0");
	if (!syn)
		return "libtracefs cannot pair these fields";
	for (m = 1; m < ss->nmatch && !why; m++) {
		snprintf(fname, sizeof(fname), "m%d", m);
		if (tracefs_synth_add_match_field(syn, ss->match[m], es->match[m], fname) < 0)
			why = "libtracefs cannot pair these fields";
	}
	if (!why && j->per_cpu &&
	    tracefs_synth_add_match_field(syn, "common_cpu", "common_cpu", "mcpu") < 0)
		why = "the kernel cannot pair per CPU";
	/* the keys: what the synthetic event carries, and how its hist is keyed */
	e->nkk = 0;
	for (k = 0; k < a->spec->nkeys && !why; k++) {
		struct col *c = &e->col[k];
		const struct agg_side *side = a->kend[k] ? es : ss;
		const struct jside *js = NULL;
		const char *field = NULL;
		enum kk_type type = KK_NUM;

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
				continue;
			} else if (a->lk[k] == LK_PID) {
				field = "common_pid";
			} else {
				why = "the name of the START's task";
			}
			break;
		default:
			why = "a key the kernel cannot carry (cpu, event)";
			break;
		}
		if (why)
			break;
		if ((a->kend[k] ? tracefs_synth_add_end_field(syn, field, fname) :
				  tracefs_synth_add_start_field(syn, field, fname)) < 0) {
			why = "libtracefs cannot carry a key";
			break;
		}
		c->kk = kkey_add(e, fname, type);
		if (c->kk < 0)
			why = "more than two keys";
	}
	if (!why && tracefs_synth_add_compare_field(syn, TRACEFS_TIMESTAMP_USECS,
						    TRACEFS_TIMESTAMP_USECS,
						    TRACEFS_SYNTH_DELTA_END, "delta") < 0)
		why = "libtracefs cannot take the time";
	if (!why && (e->vkk = kkey_add(e, "delta", KK_NUM)) < 0)
		why = "more than two keys";
	/* the idle task's pairs do not count: the pid fields are not 0 */
	if (!why && j->skip_idle &&
	    (tracefs_synth_append_start_filter(syn, TRACEFS_FILTER_COMPARE,
					       ss->pid ? ss->pid : "common_pid",
					       TRACEFS_COMPARE_NE, "0") < 0 ||
	     tracefs_synth_append_end_filter(syn, TRACEFS_FILTER_COMPARE,
					     es->pid ? es->pid : "common_pid",
					     TRACEFS_COMPARE_NE, "0") < 0))
		why = "libtracefs cannot filter out the idle task";
	if (!why && filter) {
		if (j->skip_idle &&
		    (tracefs_synth_append_start_filter(syn, TRACEFS_FILTER_AND, NULL, 0, NULL) < 0 ||
		     tracefs_synth_append_end_filter(syn, TRACEFS_FILTER_AND, NULL, 0, NULL) < 0))
			why = "the filter cannot be given to the kernel's triggers";
		else if (tfs_filter_walk(filter, synth_start_filter, syn) < 0 ||
			 tfs_filter_walk(filter, synth_end_filter, syn) < 0)
			why = "the filter cannot be given to the kernel's triggers";
	}
	if (why) {
		tracefs_synth_free(syn);
		return why;
	}
	trace_seq_init(&seq);
	tracefs_synth_echo_cmd(&seq, syn);
	trace_seq_terminate(&seq);
	tracefs_synth_free(syn);
	/* "s:NAME FIELDS" for dynamic_events: the fields after the name */
	kj->fields = echo_line(seq.buffer, "dynamic_events");
	/* START's line saves, END's line (onmatch) fires: the same file when one event is both */
	{
		const char *om = strstr(seq.buffer, "onmatch(");
		const char *bol = om;

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
	}
	trace_seq_destroy(&seq);
	if (kj->fields && !strncmp(kj->fields, "s:", 2)) {
		char *f = strchr(kj->fields, ' ');

		memmove(kj->fields, f ? f + 1 : "", strlen(f ? f + 1 : "") + 1);
	}
	{
		/* the rows: keys and the exact time; a table big enough for them */
		char keys[512];
		size_t n = 0;

		keys[0] = '\0';
		for (k = 0; k < e->nkk; k++)
			n += snprintf(keys + n, sizeof(keys) - n, "%s%s%s", k ? "," : "",
				      e->kk[k].name,
				      e->kk[k].type == KK_EXECNAME ? ".execname" : "");
		if (asprintf(&kj->hist_cmd, "hist:keys=%s:size=16384", keys) < 0)
			kj->hist_cmd = NULL;
	}
	if (!kj->fields || !kj->start_cmd || !kj->end_cmd || !kj->hist_cmd) {
		agg_kjoin_release(kj);
		return "libtracefs did not give the synthetic event's commands";
	}
	e->kplanned = true;
	return NULL;
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

static void bucket_bounds_raw(const struct agg *a, uint64_t b, struct agg_bucket *out)
{
	const struct agg_spec *s = a->spec;

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

static const char *comm_of(struct agg *a, int pid, bool *reloaded)
{
	const struct pcomm *p;
	const char *c, *n;

	/* the tasks of this name that are gone (agg_tasks_reap) */
	if (pid < 0)
		return (size_t)-1 - pid < a->ndn ? a->dn[-1 - pid].comm : "<...>";
	p = pcomm_find(a, pid);
	/* the COMMAND tpctl ran: its name even when it was gone before it was met */
	c = comm_known(pid);

	if (!c && p && p->comm[0])
		c = p->comm;

	if (c)
		return c;
	/*
	 * Gone before it was met (p with an empty name), or unknown: the
	 * kernel's cmdlines as they are now (once a table), not as they were
	 * when tpctl started.
	 */
	/* read again into handles of their own (comm.h: the session's forgets no pid) */
	c = comm_saved_find(&a->names, pid);
	if (!c)
		c = tep_data_comm_from_pid(a->tep, pid);
	if ((p || !strcmp(c, "<...>")) && !*reloaded && a->comm_fn) {
		*reloaded = true;
		if (!comm_saved_reload(&a->names, a->comm_fn, a->comm_ctx) &&
		    (n = comm_saved_find(&a->names, pid)))
			c = n;
	}
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

/* ---------------------------------------------------------------- tasks gone */

/*
 * A long-running command (serve for weeks) meets every task that ever ran:
 * what it keeps per pid (a name, a START waiting for its END, rows keyed by
 * the pid of a comm key) must go when the task does, or memory grows with
 * every short-lived process.  agg_tasks_reap() asks /proc which tracked
 * tasks are gone (a pid and the start time /proc gave when it was met name
 * one task: a pid used again is another), and then:
 *   - their waiting STARTs are dropped at the next look (unmatched: they
 *     never end: an exit_group has no sys_exit, a killed task's syscall
 *     neither; until then an END not read yet may still come);
 *   - their rows are folded into rows of one pid per name (-1 - index into
 *     a->dn), so that a comm key's series keep their counts and the rows
 *     are as many as the names, not the tasks;
 *   - their names are forgotten.
 */

struct gone {
	int32_t pid, to;		/* a task gone, the pid of its name */
};

static int gone_cmp(const void *x, const void *y)
{
	const struct gone *a = x, *b = y;

	return (a->pid > b->pid) - (a->pid < b->pid);
}

static const struct gone *gone_find(const struct gone *g, size_t n, int32_t pid)
{
	struct gone k = { .pid = pid };

	return pid > 0 && n ? bsearch(&k, g, n, sizeof(*g), gone_cmp) : NULL;
}

/* The pid of the tasks gone under a name, made when new; 0: out of memory. */
static int32_t dname_pid(struct agg *a, const char *comm)
{
	size_t len = strnlen(comm, TASK_COMM), i, j, n;
	uint64_t h = hash_bytes((const unsigned char *)comm, len);

	if (a->ndn * 2 >= a->ndnslot) {
		uint32_t *ns;

		n = a->ndnslot ? a->ndnslot * 2 : 64;
		ns = calloc(n, sizeof(*ns));
		if (!ns)
			return 0;
		for (j = 0; j < a->ndn; j++) {
			const char *c = a->dn[j].comm;

			for (i = hash_bytes((const unsigned char *)c, strlen(c)) & (n - 1); ns[i];
			     i = (i + 1) & (n - 1))
				;
			ns[i] = j + 1;
		}
		free(a->dnslot);
		a->dnslot = ns;
		a->ndnslot = n;
	}
	for (i = h & (a->ndnslot - 1); a->dnslot[i]; i = (i + 1) & (a->ndnslot - 1)) {
		const char *c = a->dn[a->dnslot[i] - 1].comm;

		if (strlen(c) == len && !memcmp(c, comm, len))
			return -(int32_t)a->dnslot[i];
	}
	if (a->ndn == a->adn) {
		struct dname *nd = realloc(a->dn, (a->adn * 2 + 16) * sizeof(*nd));

		if (!nd)
			return 0;
		a->dn = nd;
		a->adn = a->adn * 2 + 16;
	}
	memcpy(a->dn[a->ndn].comm, comm, len);
	a->dn[a->ndn].comm[len] = '\0';
	a->dnslot[i] = ++a->ndn;
	return -(int32_t)a->ndn;
}

/*
 * The comm cells (by pid) of a raw row key whose task is gone, set to the
 * pid of its name in out (NULL: only counted; out may be raw).  The count.
 */
static int key_fold(const struct agg *a, const unsigned char *raw, unsigned char *out,
		    const struct gone *g, size_t ng)
{
	const struct ev *e;
	const struct gone *x;
	size_t r = 4;
	uint32_t idx;
	uint16_t l16;
	int32_t pid;
	int k, n = 0;

	memcpy(&idx, raw, 4);
	e = &a->ev[idx - 1];
	for (k = 0; k < a->spec->nkeys; k++) {
		const struct col *c = &e->col[k];

		switch (c->kind) {
		case AGG_KEY_COMM:
			if (a->kcomm) {
				memcpy(&l16, raw + r, 2);
				r += 2 + l16;
				break;
			}
			memcpy(&pid, raw + r, 4);
			x = gone_find(g, ng, pid);
			if (x) {
				n++;
				if (out)
					memcpy(out + r, &x->to, 4);
			}
			r += 4;
			break;
		case AGG_KEY_PID:
		case AGG_KEY_CPU:
			r += 4;
			break;
		case AGG_KEY_STACK:
			memcpy(&l16, raw + r, 2);
			r += 2 + l16 * 8;
			break;
		case AGG_KEY_FIELD:
			if (c->str) {
				memcpy(&l16, raw + r, 2);
				r += 2 + l16;
			} else {
				r += 8;
			}
			break;
		default:
			break;
		}
	}
	return n;
}

/*
 * The rows of t with their gone tasks' comm cells folded, in place: the
 * rows that fold into one are merged, the rows and the keys' store made
 * compact (a serve does this every second: no memory is asked for).
 */
static void tab_fold(struct agg *a, struct tab *t, const struct gone *g, size_t ng)
{
	size_t i, j, n = 0, klen = 0, s;

	for (i = 0; i < t->n; i++) {
		struct row *r = &t->rows[i];

		if (key_fold(a, t->keys + r->koff, t->keys + r->koff, g, ng)) {
			r->hash = hash_bytes(t->keys + r->koff, r->klen);
			n++;
		}
	}
	if (!n)
		return;
	memset(t->slot, 0, t->nslot * sizeof(*t->slot));
	for (i = j = 0; i < t->n; i++) {
		struct row *r = &t->rows[i];

		for (s = r->hash & (t->nslot - 1); t->slot[s]; s = (s + 1) & (t->nslot - 1)) {
			const struct row *q = &t->rows[t->slot[s] - 1];

			if (q->hash == r->hash && q->klen == r->klen &&
			    !memcmp(t->keys + q->koff, t->keys + r->koff, r->klen))
				break;
		}
		if (t->slot[s]) {
			row_merge(a, &t->rows[t->slot[s] - 1], r);
			continue;
		}
		/* keys are stored in row order: the kept ones only move down */
		memmove(t->keys + klen, t->keys + r->koff, r->klen);
		t->rows[j] = *r;
		t->rows[j].koff = klen;
		klen += r->klen;
		t->slot[s] = ++j;
	}
	t->n = j;
	t->klen = klen;
}

/* A waiting START's comm cells (of its role's keys) whose task is gone, folded too. */
static void open_fold(struct agg *a, struct jopen *o, const struct gone *g, size_t ng)
{
	const struct gone *x;
	size_t sp = 0;
	int32_t pid;
	int k;

	for (k = 0; k < a->spec->nkeys && sp < o->slen; k++) {
		if (a->kend[k])
			continue;
		if (a->ev[a->jev].col[k].kind == AGG_KEY_COMM) {
			memcpy(&pid, o->skey + sp, 4);
			x = gone_find(g, ng, pid);
			if (x)
				memcpy(o->skey + sp, &x->to, 4);
		}
		sp += slot_len(a, k, o->skey + sp);
	}
}

/*
 * The table of waiting STARTs made smaller once most of it is free (a burst
 * of tasks that are gone now): a quarter used at least, the oldest first.
 */
static void open_shrink(struct agg *a)
{
	size_t cap = 64, nb, i, k = 0;
	struct jopen *no;
	uint32_t *nh, idx;

	while (cap < a->nopen * 4)
		cap *= 2;
	if (a->nopen * 8 >= a->cap || cap >= a->cap)
		return;
	for (nb = 64; nb < cap * 2; nb *= 2)
		;
	no = calloc(cap, sizeof(*no));
	nh = calloc(nb, sizeof(*nh));
	if (!no || !nh) {
		free(no);
		free(nh);
		return;
	}
	for (idx = a->oldest; idx; idx = a->open[idx - 1].newer, k++) {
		no[k] = a->open[idx - 1];
		no[k].older = k;
		no[k].newer = 0;
		if (k)
			no[k - 1].newer = k + 1;
		no[k].chain = nh[no[k].hash & (nb - 1)];
		nh[no[k].hash & (nb - 1)] = k + 1;
	}
	/* the buffers of the free entries go; the waiting ones' moved */
	for (i = 0; i < a->cap; i++) {
		if (a->open[i].used)
			continue;
		free(a->open[i].skey);
		free(a->open[i].srec);
	}
	free(a->open);
	free(a->heads);
	a->open = no;
	a->heads = nh;
	a->nbucket = nb;
	a->cap = cap;
	a->oldest = k ? 1 : 0;
	a->newest = k;
	a->free_list = 0;
	for (i = cap; i-- > k;) {
		no[i].chain = a->free_list;
		a->free_list = i + 1;
	}
}

/* Is the task met as p still there (the idle task always is)? */
static bool task_alive(const struct pcomm *p)
{
	char buf[COMM_MAX + 2];
	unsigned long long start;

	if (p->pid <= 0)
		return true;
	return p->start && comm_proc(p->pid, 0, buf, sizeof(buf), &start) && start == p->start;
}

size_t agg_tasks_reap(struct agg *a)
{
	struct gone *g;
	struct pcomm *np;
	size_t ng = 0, i, n, left;
	uint32_t idx, next;
	bool reloaded = false;

	if (!a->npcused && !a->nopen)
		return 0;
	g = malloc((a->npcused + 1) * sizeof(*g));
	if (!g)
		return 0;
	for (i = 0; i < a->npc; i++) {
		const struct pcomm *p = &a->pc[i];

		if (!p->used || task_alive(p))
			continue;
		g[ng].pid = p->pid;
		g[ng].to = dname_pid(a, comm_of(a, p->pid, &reloaded));
		if (!g[ng].to)
			goto out;
		ng++;
	}
	qsort(g, ng, sizeof(*g), gone_cmp);
	/*
	 * A START of a task gone goes at the next look: its END, written before
	 * the task ended, may still be in a sub-buffer not read yet.
	 */
	for (idx = a->oldest; idx; idx = next) {
		struct jopen *o = &a->open[idx - 1];

		next = o->newer;
		if (o->orphan) {
			a->unmatched++;
			open_unlink(a, idx);
			continue;
		}
		if (gone_find(g, ng, o->tpid))
			o->orphan = true;
		open_fold(a, o, g, ng);
	}
	if (a->cap)
		open_shrink(a);
	if (!ng)
		goto out;
	tab_fold(a, &a->cur, g, ng);
	tab_fold(a, &a->total, g, ng);
	/* the names of the tasks there, in a table sized for them */
	left = a->npcused - ng;
	for (n = 1024; n < left * 4 && n < 65536; n *= 2)
		;
	np = calloc(n, sizeof(*np));
	if (!np)
		goto out;
	for (i = 0; i < a->npc; i++)
		if (a->pc[i].used && !gone_find(g, ng, a->pc[i].pid))
			*pcomm_slot(np, n, a->pc[i].pid) = a->pc[i];
	free(a->pc);
	a->pc = np;
	a->npc = n;
	a->npcused = left;
out:
	free(g);
	return ng;
}

size_t agg_tasks_tracked(const struct agg *a)
{
	return a->npcused;
}

size_t agg_open_starts(const struct agg *a)
{
	return a->nopen;
}

/*
 * The cells of one raw key, and the output key they make (strings with
 * their NUL, numbers as 8 bytes) for merging rows.  Returns the length of
 * the output key; *bucket gets the raw bucket.
 */
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
			str = comm_of(a, i32, reloaded);
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
			if (c->sysname) {
				int n;

				if (v < a->sysnames.n && a->sysnames.v[v])
					n = snprintf(sym[k], KEY_STR_MAX, "%s", a->sysnames.v[v]);
				else
					n = snprintf(sym[k], KEY_STR_MAX, "sys_%llu",
						     (unsigned long long)v);
				len = n < KEY_STR_MAX ? (size_t)n : KEY_STR_MAX - 1;
				str = sym[k];
			} else if (c->sym != DEC_SYM_NONE) {
				trace_seq_reset(seq);
				decode_sym_print(seq, v, c->sym);
				trace_seq_terminate(seq);
				len = seq->len < KEY_STR_MAX ? seq->len : KEY_STR_MAX - 1;
				memcpy(sym[k], seq->buffer, len);
				str = sym[k];
			}
			break;
		default:
			break;
		}
		if (str) {
			/* a string key ends at its first NUL, as the kernel prints it */
			const char *z = memchr(str, '\0', len);

			if (z)
				len = z - str;
			/* made permanent by the caller for new groups; v: its length until then */
			cells[k].s = str;
			cells[k].v = len;
			cells[k].frames = NULL;
			memcpy(okey + o, str, len);
			okey[o + len] = '\0';
			o += len + 1;
		} else {
			cells[k].s = NULL;
			cells[k].v = v;
			cells[k].frames = NULL;
			memcpy(okey + o, &v, 8);
			o += 8;
		}
	}
	if (s->value || s->join)
		memcpy(bucket, raw + r, 8);
	return o;
}

struct agg_table *agg_snapshot(struct agg *a, bool totals, size_t top)
{
	struct tab *src = totals ? &a->total : &a->cur, groups = { 0 };
	struct agg_table *t = calloc(1, sizeof(*t));
	struct bref *br = NULL;
	size_t nbr = 0, i, j;
	struct trace_seq seq;
	bool reloaded = false;
	int k;

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
		r = tab_get(&groups, okey, olen, hash_bytes(okey, olen));
		if (!r)
			goto fail;
		g = &t->g[r - groups.rows];
		if (!r->count) {
			for (k = 0; k < a->spec->nkeys; k++) {
				g->key[k] = cells[k];
				if (cells[k].s) {
					g->key[k].s = table_str(t, cells[k].s, cells[k].v);
					g->key[k].v = 0;
				} else if (cells[k].frames) {
					/* the raw key is not aligned for uint64_t: a copy */
					g->key[k].frames = (const uint64_t *)table_dup(t,
						cells[k].frames, cells[k].v * 8);
					if (!g->key[k].frames)
						g->key[k].v = 0;
				}
			}
			g->min = s->min;
			g->max = s->max;
		} else if (a->vsign) {
			if ((int64_t)s->min < (int64_t)g->min)
				g->min = s->min;
			if ((int64_t)s->max > (int64_t)g->max)
				g->max = s->max;
		} else {
			if (s->min < g->min)
				g->min = s->min;
			if (s->max > g->max)
				g->max = s->max;
		}
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
	if (br) {
		/* each group's buckets, ascending, equal ones merged */
		qsort(br, nbr, sizeof(*br), bref_cmp);
		t->bpool = calloc(nbr ? nbr : 1, sizeof(*t->bpool));
		if (!t->bpool)
			goto fail;
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
	}
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
