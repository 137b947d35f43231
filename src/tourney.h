/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tourney - the oldest of many CPUs' heads, kept as a tournament: the
 * merges by timestamp of reader.c (records) and stream_cpu.c (formatted
 * lines) ask for the oldest head and the next oldest per record, and a
 * walk of all CPUs each time costs more than the record on a many-CPU
 * machine.
 *
 * A leaf per CPU (tm + i for CPU i, tm a power of two), its key the head's
 * stamp or TOURNEY_NONE; node x (children 2x and 2x + 1) holds the winner
 * of its leaves: the older key, the lower CPU on a tie (the left child's
 * leaves are the lower CPUs).  A changed key costs the path above its
 * leaf; the next oldest is one of the winners beside the winner's path.
 */
#ifndef TPCTL_TOURNEY_H
#define TPCTL_TOURNEY_H

#include <stdlib.h>

/* No head (a stamp has 59 bits: no record has this one) */
#define TOURNEY_NONE (~0ULL)

struct tnode {
	unsigned long long key;
	int cpu;
};

struct tourney {
	int tm;			/* leaves: a power of two, at least 2 */
	struct tnode *t;	/* 2 * tm nodes; t[0] unused */
};

/* Room for n CPUs, every key TOURNEY_NONE: 0, or -1 (out of memory; unchanged). */
static inline int tourney_size(struct tourney *tr, int n)
{
	int tm = 2, x;
	struct tnode *t;

	while (tm < n)
		tm *= 2;
	t = malloc(2 * tm * sizeof(*t));
	if (!t)
		return -1;
	for (x = 0; x < tm; x++)
		t[tm + x] = (struct tnode){ TOURNEY_NONE, x };
	for (x = tm - 1; x >= 1; x--)
		t[x] = t[2 * x];
	free(tr->t);
	tr->t = t;
	tr->tm = tm;
	return 0;
}

static inline void tourney_free(struct tourney *tr)
{
	free(tr->t);
	tr->t = NULL;
	tr->tm = 0;
}

/* Node x from its children: the older key, the left's on a tie */
static inline void tourney_play(struct tourney *tr, int x)
{
	const struct tnode *l = &tr->t[2 * x], *g = l + 1;

	tr->t[x] = g->key < l->key ? *g : *l;
}

/* CPU i's key, its path not played yet (tourney_fix or tourney_build then) */
static inline void tourney_leaf(struct tourney *tr, int i, unsigned long long key)
{
	tr->t[tr->tm + i].key = key;
}

static inline unsigned long long tourney_key(const struct tourney *tr, int i)
{
	return tr->t[tr->tm + i].key;
}

/* The nodes above CPU i, after its key changed */
static inline void tourney_fix(struct tourney *tr, int i)
{
	int x;

	for (x = (tr->tm + i) / 2; x >= 1; x /= 2)
		tourney_play(tr, x);
}

static inline void tourney_set(struct tourney *tr, int i, unsigned long long key)
{
	tourney_leaf(tr, i, key);
	tourney_fix(tr, i);
}

/* Every node again, after many leaves changed */
static inline void tourney_build(struct tourney *tr)
{
	int x;

	for (x = tr->tm - 1; x >= 1; x--)
		tourney_play(tr, x);
}

/* The CPU with the oldest head, -1 when none has one */
static inline int tourney_best(const struct tourney *tr)
{
	return tr->t[1].key == TOURNEY_NONE ? -1 : tr->t[1].cpu;
}

/* The next oldest after the winner w (the lower CPU on a tie), -1 when none */
static inline int tourney_second(const struct tourney *tr, int w)
{
	const struct tnode *s = NULL;
	int x;

	for (x = w + tr->tm; x > 1; x /= 2) {
		const struct tnode *o = &tr->t[x ^ 1];

		if (!s || o->key < s->key || (o->key == s->key && o->cpu < s->cpu))
			s = o;
	}
	return s && s->key != TOURNEY_NONE ? s->cpu : -1;
}

#endif
