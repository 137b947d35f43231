/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * textplan - an event's print fmt made once into a plan that writes a
 * record's text without libtraceevent.
 *
 * libtraceevent's tep_print_event() walks the print fmt's argument tree for
 * every record: it parses each number of the tree again (strtoull), looks
 * for fields by name where the tree has none yet, and formats through
 * vsnprintf into a trace_seq it copies again; for sched_switch that is
 * some 30,000 instructions a record.  A plan holds the same tree read once:
 * constants as numbers, fields as offsets and sizes, casts as masks, flag
 * and symbol tables as numbers, the literal text unescaped, each conversion
 * with its integer width; running it is a walk of that and a few stores.
 *
 * The plan does what libtraceevent 1.7's pretty_print() does, quirks
 * included (arithmetic is unsigned 64-bit, a cast only masks, a flag of no
 * bit is printed only for a value of 0), so that the text stays the same
 * byte for byte.  What it does not know it leaves to libtraceevent: the
 * build gives NULL for an event with a handler, a bprint or a failed
 * format, a '*' width, %c, %p conversions other than the symbol helpers,
 * a print function other than those, a bitmask, hex or array argument, a
 * field of an odd size, or a file of the other byte order.
 * TPCTL_TEXTPLAN=0 turns plans off; TPCTL_TEXTPLAN=check makes the text
 * both ways and reports any difference (the unit tests run so).
 */
#ifndef TPCTL_TEXTPLAN_H
#define TPCTL_TEXTPLAN_H

#include <stddef.h>

struct tep_event;
struct textplan;

/* A growing output buffer that a plan appends to. */
struct tpbuf {
	char *p;
	size_t len, cap;
};

/* The plan of ev's print fmt, or NULL when libtraceevent must print it. */
struct textplan *textplan_build(struct tep_event *ev);
/* Append the record's text (what tep_print_event's "%s" of INFO gives) to b; -1: no memory. */
int textplan_run(const struct textplan *p, const void *data, int size, struct tpbuf *b);
/*
 * The same text written at w, which has room for textplan_bound() bytes
 * (the writer's fixed-size copies may store past the text's end, within
 * that bound); returns the text's end.
 */
size_t textplan_bound(const struct textplan *p, int size);
char *textplan_write(const struct textplan *p, const void *data, int size, char *w);
void textplan_free(struct textplan *p);
#endif
