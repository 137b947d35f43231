// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * agg_gone - tasks gone (see agg.h, agg_tasks_reap): their waiting STARTs
 * dropped, their rows folded into rows of one per name, their names
 * forgotten; and a reader thread's rows folded into the metric's (agg_merge).
 */
#include <stdlib.h>
#include <string.h>

#include "agg_local.h"

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

static int gone_cmp(const void *x, const void *y)
{
	const struct gone *a = x, *b = y;

	return (a->pid > b->pid) - (a->pid < b->pid);
}

static const struct gone *gone_find(const struct gone *g, size_t n, int32_t pid)
{
	struct gone k = { .pid = pid };

	/* a pid, or a name's own (-1 - index: agg_names_from) */
	return pid != 0 && n ? bsearch(&k, g, n, sizeof(*g), gone_cmp) : NULL;
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
			agg_row_merge(a, &t->rows[t->slot[s] - 1], r);
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
		sp += agg_slot_len(a, k, o->skey + sp);
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

		if (!p->used || agg_task_alive(p))
			continue;
		g[ng].pid = p->pid;
		g[ng].to = agg_dname_pid(a, agg_comm_of(a, p->pid, &reloaded));
		if (!g[ng].to)
			goto out;
		ng++;
	}
	qsort(g, ng, sizeof(*g), gone_cmp);
	for (i = 0; i < ng; i++)
		oncpu_forget(&a->on, g[i].pid);
	/*
	 * A START of a task gone goes at the next look: its END, written before
	 * the task ended, may still be in a sub-buffer not read yet.
	 */
	for (idx = a->oldest; idx; idx = next) {
		struct jopen *o = &a->open[idx - 1];

		next = o->newer;
		if (o->orphan) {
			a->unmatched++;
			agg_open_unlink(a, idx);
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

/*
 * from's rows keyed by names of its own (-1 - index into from->dn: names
 * at the event's time, agg_comm_key) made a's: the same names' keys in a.
 */
static void agg_names_from(struct agg *a, struct agg *from)
{
	struct gone *g;
	size_t i;

	if (!from->ndn || !from->cur.n)
		return;
	g = malloc(from->ndn * sizeof(*g));
	if (!g)
		return;
	for (i = 0; i < from->ndn; i++) {
		g[i].pid = -1 - (int32_t)i;
		g[i].to = agg_dname_pid(a, from->dn[i].comm);
		if (!g[i].to) {
			free(g);
			return;
		}
	}
	qsort(g, from->ndn, sizeof(*g), gone_cmp);
	tab_fold(from, &from->cur, g, from->ndn);
	free(g);
}

/* Rows of a reader thread (names translated, agg_names_from) into the metric's. */
void agg_merge(struct agg *a, struct agg *from)
{
	size_t i;

	agg_names_from(a, from);
	agg_tab_merge(a, &a->cur, &from->cur);
	agg_tab_clear(&from->cur);
	a->refused += from->refused;
	a->faults += from->faults;
	from->refused = from->faults = 0;
	/* the tasks' names as known: the first one to know a pid wins */
	for (i = 0; i < from->npc; i++)
		if (from->pc[i].used && !pcomm_find(a, from->pc[i].pid))
			agg_pcomm_set(a, from->pc[i].pid, from->pc[i].comm, strlen(from->pc[i].comm),
				  from->pc[i].start);
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
