/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output - the one output layer for decoded records, shared by stream and
 * report: kernel-identical text lines (as the kernel's own `trace` file
 * prints them) or NDJSON as in DESIGN.md section 2.  The only code that
 * writes records to stdout.
 */
#ifndef TPCTL_OUTPUT_H
#define TPCTL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

struct tep_handle;
struct tep_record;
struct output;

enum output_mode {
	OUTPUT_TEXT,
	OUTPUT_JSON,
};

struct output *output_new(struct tep_handle *tep, FILE *f, enum output_mode mode);
void output_free(struct output *o);

/* Write one record (rec->cpu, rec->ts and rec->data must be set). */
int output_record(struct output *o, struct tep_record *rec);
/*
 * Lost events on cpu before the next record; count < 0 when the kernel
 * does not say how many.  Text: the kernel's own marker line; JSON: a
 * {"type":"lost",...} object (count null when unknown).
 */
int output_lost(struct output *o, int cpu, long long count);
/* Flush f; returns -1 (errno set) when a write failed (EPIPE, ENOSPC, ...). */
int output_flush(struct output *o);

/*
 * Notes for every user (stream, report):
 *  - output_record() needs rec->size as well (dynamic fields are bounded by it).
 *  - Text is the kernel's `trace` line; for an event whose print fmt parsed,
 *    the print handler of a libtraceevent system plugin is dropped from the
 *    tep (those print trace-cmd's layout, not the kernel's); it stays where
 *    the print fmt failed to parse, and handlers of tpctl's own plugins
 *    (the plugin dir, as in tfs.c) always stay.  Formats parsed with decode_add_format() (decode.h)
 *    also print %pS/%ps/%p as the kernel does; formats parsed elsewhere
 *    (e.g. by libtracecmd) print them the libtraceevent way.
 *  - Records are written with buffered stdio: call output_flush() whenever
 *    nothing more is ready and at the end.
 *
 * Optional extensions; none is needed for a plain use:
 */
/* Called with an event id tep does not know yet; parse its format there (lazy loading). */
void output_set_loader(struct output *o,
		       int (*fn)(struct tep_handle *tep, int id, void *ctx), void *ctx);
/* Called (at most every 100 ms) when a pid has no comm yet: reload saved_cmdlines. */
typedef int (*output_comm_fn)(struct tep_handle *tep, void *ctx);
void output_set_comm_loader(struct output *o, output_comm_fn fn, void *ctx);
/*
 * The kernel the records come from ("6.1.0-18-amd64"); the text follows
 * its version (flag letters, syscall argument forms).  Default: uname's.
 */
void output_set_kernel_release(struct output *o, const char *release);
/*
 * One field's value as report --json writes it (integer, string, array, or
 * null when it lies outside the record), for writers of other formats that
 * want the same rendering.
 */
struct dec_field;
void output_json_value(FILE *f, const struct dec_field *df, const void *data, int size);
/* false when the trace clock is a counter (x86-tsc, counter): raw stamps, no seconds. */
void output_set_ns_clock(struct output *o, bool ns);

#endif
