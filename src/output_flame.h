/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output_flame - a table of count, hist or latency with a stack key (agg.h)
 * as folded stacks or an SVG flame graph (flame.h): the other keys of a row
 * become its first frames (comm alone as its value, as bcc's -f writes it;
 * the others as KEY=VALUE), then its kernel frames, outermost first.
 */
#ifndef TPCTL_OUTPUT_FLAME_H
#define TPCTL_OUTPUT_FLAME_H

#include <stdbool.h>
#include <stdio.h>

struct agg_table;

struct output_flame {
	bool latency;		/* weights: the pairs' time in microseconds, else their count */
	const char *title;	/* the SVG's heading */
	FILE *folded;		/* the folded stacks go here, or nowhere (NULL) */
	FILE *svg;		/* the SVG goes here, or nowhere (NULL) */
};

/* -1 (errno set) when memory ran out or a write failed. */
int output_flame(const struct agg_table *t, const struct output_flame *o);

#endif
