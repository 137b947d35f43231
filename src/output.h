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

#endif
