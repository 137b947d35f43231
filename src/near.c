// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * near - the names closest to a word by edit distance; see near.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "near.h"

size_t near_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[512];

	if (lb >= 511 || la >= 511)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0], tmp;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

size_t near_glob_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[512], prev[512];

	if (lb >= 511 || la >= 511)
		return SIZE_MAX;
	/* row[j]: the fewest edits for a's first i bytes to match b's first j */
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		memcpy(prev, row, (lb + 1) * sizeof(*row));
		row[0] = a[i - 1] == '*' ? prev[0] : prev[0] + 1;
		for (j = 1; j <= lb; j++) {
			size_t best;

			if (a[i - 1] == '*') {
				/* '*' takes nothing more, or b[j - 1] too */
				best = prev[j] < row[j - 1] ? prev[j] : row[j - 1];
			} else {
				best = prev[j - 1] + (a[i - 1] != '?' && a[i - 1] != b[j - 1]);
				if (prev[j] + 1 < best)
					best = prev[j] + 1;
				if (row[j - 1] + 1 < best)
					best = row[j - 1] + 1;
			}
			row[j] = best;
		}
	}
	return row[lb];
}

void near_init(struct near *s, const char *want, int most)
{
	memset(s, 0, sizeof(*s));
	s->want = want;
	s->most = most < 1 ? 1 : most > NEAR_MAX ? NEAR_MAX : most;
}

void near_add_at(struct near *s, const char *name, size_t len, size_t d)
{
	int i, j;

	/* a name kept already has the same distance: it sits before where this one would go */
	for (i = 0; i < s->n && s->d[i] <= d; i++)
		if (strlen(s->name[i]) == len && !strncmp(s->name[i], name, len))
			return;
	if (i == s->most)
		return;
	if (s->n == s->most)
		free(s->name[--s->n]);
	for (j = s->n; j > i; j--) {
		s->name[j] = s->name[j - 1];
		s->d[j] = s->d[j - 1];
	}
	s->name[i] = strndup(name, len);
	if (!s->name[i]) {
		/* out of memory: the list loses a hint, nothing more */
		for (j = i; j < s->n; j++) {
			s->name[j] = s->name[j + 1];
			s->d[j] = s->d[j + 1];
		}
		return;
	}
	s->d[i] = d;
	s->n++;
}

void near_add(struct near *s, const char *name, size_t len)
{
	char *n;

	if (!name[len]) {
		near_add_at(s, name, len, near_distance(s->want, name));
		return;
	}
	n = strndup(name, len);
	if (n)
		near_add_at(s, n, len, near_distance(s->want, n));
	free(n);
}

const char *near_best(const struct near *s, size_t most)
{
	return s->n && s->d[0] <= most ? s->name[0] : NULL;
}

void near_keep_closest(struct near *s)
{
	while (s->n > 1 && s->d[s->n - 1] > s->d[0])
		free(s->name[--s->n]);
}

void near_list(const struct near *s, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < s->n && n < len; i++)
		n += snprintf(buf + n, len - n, "%s'%s'", i ? ", " : "; closest: ", s->name[i]);
}

void near_free(struct near *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		free(s->name[i]);
	s->n = 0;
}
