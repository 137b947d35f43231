// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * output_flame - count, hist and latency tables with a stack key as folded
 * stacks or an SVG flame graph (output_flame.h), through flame.h.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "agg.h"
#include "flame.h"
#include "output_flame.h"
#include "output_local.h"

/* The frames of one row: its other keys, then its stack, outermost first. */
static size_t row_frames(const struct agg_table *t, const struct agg_group *g,
			 struct flame_frame *fr, char (*buf)[160])
{
	const struct agg_spec *s = t->spec;
	unsigned long long off;
	const char *name;
	size_t n = 0, i;
	bool sym;
	int k;

	for (k = 0; k < s->nkeys; k++) {
		const struct agg_cell *c = &g->key[k];
		bool bare = s->kind[k] == AGG_KEY_COMM || s->kind[k] == AGG_KEY_EVENT;

		if (t->type[k] == AGG_COL_STACK)
			continue;
		if (t->type[k] == AGG_COL_STR)
			snprintf(buf[n], sizeof(buf[n]), "%s%s%s", bare ? "" : s->name[k],
				 bare ? "" : "=", c->s ? c->s : "");
		else
			snprintf(buf[n], sizeof(buf[n]), t->type[k] == AGG_COL_INT ?
				 "%s=%" PRId64 : "%s=%" PRIu64, s->name[k], c->v);
		fr[n] = (struct flame_frame){ buf[n], FLAME_KEY };
		n++;
	}
	for (k = 0; k < s->nkeys; k++) {
		const struct agg_cell *c = &g->key[k];

		if (t->type[k] != AGG_COL_STACK)
			continue;
		if (!c->v)
			fr[n++] = (struct flame_frame){ "[no stack]", FLAME_KERNEL };
		for (i = c->v; i-- > 0 && n < FLAME_DEPTH_MAX; n++) {
			name = frame_name(c->frames[i], &off, &sym);
			if (!name) {
				snprintf(buf[n], sizeof(buf[n]), "0x%" PRIx64, c->frames[i]);
				name = buf[n];
			}
			fr[n] = (struct flame_frame){ name, FLAME_KERNEL };
		}
	}
	return n;
}

int output_flame(const struct agg_table *t, const struct output_flame *o)
{
	struct flame_svg so = { .title = o->title, .unit = o->latency ? "us" : "events" };
	struct flame_frame *fr = malloc(FLAME_DEPTH_MAX * sizeof(*fr));
	char (*buf)[160] = malloc(FLAME_DEPTH_MAX * sizeof(*buf));
	struct flame *fl = flame_new();
	int ret = -1;
	uint64_t w;
	size_t i;

	errno = ENOMEM;
	if (!fr || !buf || !fl)
		goto out;
	for (i = 0; i < t->n; i++) {
		const struct agg_group *g = &t->g[i];

		/* latency: microseconds, rounded, as offcputime -f gives them */
		w = o->latency ? (g->sum + 500) / 1000 : g->count;
		if (flame_add(fl, fr, row_frames(t, g, fr, buf), w) < 0)
			goto out;
	}
	ret = 0;
	if (o->folded && flame_write_folded(fl, o->folded) < 0)
		ret = -1;
	if (o->svg && flame_write_svg(fl, o->svg, &so) < 0)
		ret = -1;
out:
	flame_free(fl);
	free(buf);
	free(fr);
	return ret;
}
