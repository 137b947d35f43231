/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * near - "did you mean": the names closest to a word that named nothing,
 * by edit distance, closest first (the first of equals kept).
 *
 *	struct near n;
 *
 *	near_init(&n, word, 3);
 *	for (each name)
 *		near_add(&n, name, strlen(name));
 *	near_list(&n, buf, sizeof(buf));	"; closest: 'a', 'b', 'c'"
 *	near_free(&n);
 *
 * A leaf: nothing here calls into the rest of tpctl.
 */
#ifndef TPCTL_NEAR_H
#define TPCTL_NEAR_H

#include <stddef.h>

#define NEAR_MAX 3

struct near {
	const char *want;	/* the word that named nothing */
	int most;		/* how many names to keep, 1 to NEAR_MAX */
	int n;			/* how many are kept */
	char *name[NEAR_MAX];	/* closest first */
	size_t d[NEAR_MAX];	/* their distances to want */
};

/* Levenshtein distance of a and b; SIZE_MAX for strings of 511 bytes or more. */
size_t near_distance(const char *a, const char *b);
/*
 * The same for a glob a (fnmatch's '*' and '?'; no brackets): the fewest
 * edits of b that make the glob match it ('*wakup*' is 1 from 'sched_wakeup').
 */
size_t near_glob_distance(const char *a, const char *b);
void near_init(struct near *s, const char *want, int most);
/* Offer the len bytes at name; a name kept already is not kept twice. */
void near_add(struct near *s, const char *name, size_t len);
/* The same with its distance to want given (a name built from parts). */
void near_add_at(struct near *s, const char *name, size_t len, size_t d);
/* The closest name when it is at most most edits away, else NULL. */
const char *near_best(const struct near *s, size_t most);
/* Keep only the names as close as the closest. */
void near_keep_closest(struct near *s);
/* "; closest: 'a', 'b'" into buf (empty when none is kept). */
void near_list(const struct near *s, char *buf, size_t len);
void near_free(struct near *s);

#endif
