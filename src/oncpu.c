// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * oncpu - who runs where by the records, and the switches in that the
 * kernel did not record, inferred (see oncpu.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oncpu.h"
#include "util.h"

enum task_state {
	T_IN,				/* switched in, or seen running, since its switch out */
	T_OUT,				/* switched out, not woken nor seen since */
	T_WOKEN,			/* woken after its switch out (or when first met) */
};

struct oncpu_task {
	int pid;			/* 0: a free slot */
	enum task_state state;
	uint64_t out_ts;		/* T_OUT, T_WOKEN: its switch out (0: not seen) */
	uint64_t wake_ts;		/* T_WOKEN: its first wakeup since */
};

void oncpu_free(struct oncpu *o)
{
	free(o->cpu);
	free(o->t);
	memset(o, 0, sizeof(*o));
}

static size_t slot(const struct oncpu_task *t, size_t n, int pid)
{
	size_t i;

	for (i = ((unsigned)pid * 2654435761u) & (n - 1); t[i].pid && t[i].pid != pid;
	     i = (i + 1) & (n - 1))
		;
	return i;
}

static struct oncpu_task *task_find(const struct oncpu *o, int pid)
{
	size_t i;

	if (!o->n || pid <= 0)
		return NULL;
	i = slot(o->t, o->n, pid);
	return o->t[i].pid ? &o->t[i] : NULL;
}

/* The task pid, made in state st when met for the first time; NULL: no memory. */
static struct oncpu_task *task_get(struct oncpu *o, int pid, enum task_state st)
{
	struct oncpu_task *p;
	size_t i;

	if (pid <= 0)
		return NULL;
	if ((o->used + 1) * 2 > o->n) {
		size_t n = o->n ? o->n * 2 : 256;
		struct oncpu_task *nt = calloc(n, sizeof(*nt));

		if (!nt)
			return NULL;
		for (i = 0; i < o->n; i++)
			if (o->t[i].pid)
				nt[slot(nt, n, o->t[i].pid)] = o->t[i];
		free(o->t);
		o->t = nt;
		o->n = n;
	}
	p = &o->t[slot(o->t, o->n, pid)];
	if (!p->pid) {
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		p->state = st;
		o->used++;
	}
	return p;
}

void oncpu_forget(struct oncpu *o, int pid)
{
	struct oncpu_task *p = task_find(o, pid);
	size_t i, j, k;

	if (!p)
		return;
	/* linear probing: the entries after the hole move back where their slot allows */
	i = p - o->t;
	o->t[i].pid = 0;
	o->used--;
	for (j = (i + 1) & (o->n - 1); o->t[j].pid; j = (j + 1) & (o->n - 1)) {
		k = ((unsigned)o->t[j].pid * 2654435761u) & (o->n - 1);
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			o->t[i] = o->t[j];
			o->t[j].pid = 0;
			i = j;
		}
	}
}

static struct oncpu_cpu *cpu_get(struct oncpu *o, int cpu)
{
	if (cpu < 0 || cpu >= 4096 || !tp_array_grow(&o->cpu, &o->ncpu, cpu + 1, sizeof(*o->cpu)))
		return NULL;
	return &o->cpu[cpu];
}

void oncpu_wakeup(struct oncpu *o, int pid, uint64_t ts)
{
	struct oncpu_task *p = task_find(o, pid);

	/* a task woken while still on its CPU (it was going to sleep) stays in */
	if (!p) {
		p = task_get(o, pid, T_WOKEN);
		if (p)
			p->wake_ts = ts;
	} else if (p->state == T_OUT && ts >= p->out_ts) {
		p->state = T_WOKEN;
		p->wake_ts = ts;
	}
}

bool oncpu_record(struct oncpu *o, int cpu, uint64_t ts, int pid, uint64_t *at)
{
	struct oncpu_cpu *c = cpu_get(o, cpu);
	struct oncpu_task *p = task_find(o, pid);
	bool other, inferred = false;

	if (!c)
		return false;
	/* another task was current there at the CPU's previous record */
	other = c->known && c->cur != pid;
	if (p && p->state == T_WOKEN) {
		*at = other && c->last_ts > p->wake_ts ? c->last_ts : p->wake_ts;
		inferred = true;
	} else if (p && p->state == T_OUT) {
		*at = other && c->last_ts > p->out_ts ? c->last_ts : ts;
		inferred = true;
	}
	if (inferred) {
		if (*at > ts)
			*at = ts;
		p->state = T_IN;
	}
	c->known = true;
	c->cur = pid;
	c->last_ts = ts;
	return inferred;
}

void oncpu_said(struct oncpu *o, int cpu)
{
	if (cpu >= 0 && cpu < o->ncpu)
		o->cpu[cpu].inferred++;
}

void oncpu_switch(struct oncpu *o, int cpu, uint64_t ts, int prev, int next)
{
	struct oncpu_cpu *c = cpu_get(o, cpu);
	struct oncpu_task *p = task_get(o, prev, T_OUT);

	if (p) {
		p->state = T_OUT;
		p->out_ts = ts;
	}
	p = task_get(o, next, T_IN);
	if (p)
		p->state = T_IN;
	if (c) {
		c->known = true;
		c->cur = next;
		c->last_ts = ts;
	}
}

void oncpu_lost(struct oncpu *o, int cpu)
{
	if (cpu >= 0 && cpu < o->ncpu)
		o->cpu[cpu].known = false;
}

unsigned long long oncpu_inferred(const struct oncpu *o, char *cpus, size_t size)
{
	unsigned long long n = 0;
	size_t len = 0;
	int i;

	if (size)
		cpus[0] = '\0';
	for (i = 0; i < o->ncpu; i++) {
		if (!o->cpu[i].inferred)
			continue;
		n += o->cpu[i].inferred;
		if (len < size)
			len += snprintf(cpus + len, size - len, "%sCPU %d: %llu", len ? ", " : "", i,
					(unsigned long long)o->cpu[i].inferred);
	}
	return n;
}
