/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flame - stacks with weights, written as folded stacks (one line a stack,
 * the format flamegraph.pl, inferno and speedscope read) or as an SVG flame
 * graph that a browser opens with nothing else installed.  A pure layer: the
 * stacks come in as names, root first, each frame of a kind (a key such as
 * the task's name, a kernel frame, a user frame); nothing here knows where
 * they came from.
 *
 * Names are anything a task or a symbol may be called.  Folded output
 * replaces ';' with ':' and every control byte (newline included) with '?',
 * so that a name never splits a frame or a line.  The SVG escapes &, <, >,
 * " and ' as XML entities, writes control bytes as '?' and bytes that are
 * not UTF-8 (or not XML characters) as U+FFFD: a name is always text.  An
 * empty name is "[unknown]" in both.
 */
#ifndef TPCTL_FLAME_H
#define TPCTL_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum flame_kind {
	FLAME_KEY,		/* a key of the row: comm, pid, ... (the leading frames) */
	FLAME_KERNEL,		/* a kernel frame */
	FLAME_USER,		/* a user-space frame */
};

/* Stacks deeper than this are refused (flame_add: -1, errno EINVAL). */
#define FLAME_DEPTH_MAX 1024

struct flame_frame {
	const char *name;
	enum flame_kind kind;
};

struct flame;
struct flame *flame_new(void);
void flame_free(struct flame *fl);

/*
 * One stack of n frames (1 to FLAME_DEPTH_MAX), root first, its weight added
 * to the same stack's (equal names and kinds all the way).  The names are
 * copied.  -1 with errno (ENOMEM, EINVAL) on failure.
 */
int flame_add(struct flame *fl, const struct flame_frame *frames, size_t n, uint64_t weight);
/* The weight of all stacks (saturating at UINT64_MAX). */
uint64_t flame_total(const struct flame *fl);

/*
 * Folded stacks: "root;...;leaf weight\n" per stack of a non-zero weight,
 * stacks in the order of their names.  -1 when writing failed.
 */
int flame_write_folded(struct flame *fl, FILE *f);

struct flame_svg {
	const char *title;	/* the heading (the command line), escaped as the names */
	const char *unit;	/* of the weights, in each frame's title: "events", "us" */
};

/*
 * The SVG: a <g> per frame holding its <title> ("NAME (WEIGHT UNIT, SHARE%)"),
 * its <rect> (width proportional to the weight) and its <text> (the name, cut
 * to fit), root at the bottom; frames narrower than 0.1 pixel left out.  An
 * inline script zooms into a clicked frame and highlights a search's matches.
 * -1 when writing failed.
 */
int flame_write_svg(struct flame *fl, FILE *f, const struct flame_svg *o);

/*
 * A file written whole or not at all: flame_file_open() makes a temporary
 * file beside path (so an unwritable place fails before any tracing), the
 * caller writes to ->f, flame_file_commit() renames it over path; on any
 * failure, or flame_file_abort(), the temporary file goes.  Both print their
 * error and return TP_FAIL; TP_OK else.
 */
struct flame_file {
	FILE *f;
	char *path, *tmp;
};
int flame_file_open(struct flame_file *ff, const char *path);
int flame_file_commit(struct flame_file *ff);
void flame_file_abort(struct flame_file *ff);

#endif
