/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output_pool - records formatted by worker threads, written in their order.
 *
 * stream's one thread reads every CPU, merges and formats; formatting (the
 * print fmt's plan or libtraceevent, the JSON fields) is most of its work
 * per event, so on a machine with CPUs to spare the reading thread hands it
 * on: it keeps what depends on the records' order (the event's format,
 * the names a record teaches, the task's columns as written now:
 * output_prepare()) and copies each record with those columns into a
 * batch; a worker, with an output of its own on the same tep, formats a
 * whole batch into memory; the reading thread writes the batches in the
 * order they were filled.  The bytes are those output_record() writes.
 *
 *	p = output_pool_new(tep, mode, ns_clock, 3);
 *	for each record, in order:
 *		output_pool_add(p, out, &rec, lost)	1: out must output_record() it itself
 *	whenever nothing is ready, and at the end:
 *		output_pool_flush(p, f)			every batch formatted and written
 *	output_pool_free(p);
 *
 * A record whose line depends on the records around it (a stack, function
 * or function_graph record: output_prepare's special) is not taken: the
 * caller flushes the pool and writes it itself.
 */
#ifndef TPCTL_OUTPUT_POOL_H
#define TPCTL_OUTPUT_POOL_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "output.h"

struct tep_handle;
struct tep_record;
struct output_pool;

/* nworkers threads (1 or more); NULL with errno set. */
struct output_pool *output_pool_new(struct tep_handle *tep, enum output_mode mode, bool ns_clock,
				    int nworkers);
/*
 * Take rec (copied), after lost events on its CPU (0: none, <0: some),
 * prepared by o, the caller's output: 0 taken, 1 not taken (special: the
 * caller writes it, after output_pool_flush), -1 on an error (errno set).
 * A full batch goes to a worker; the oldest formatted batches are written
 * to f as they are done.
 */
int output_pool_add(struct output_pool *p, struct output *o, FILE *f,
		    const struct tep_record *rec, long long lost);
/* The workers' task ids (n of them): a session hides them, as it hides tpctl. */
const pid_t *output_pool_tids(const struct output_pool *p, int *n);
/* Every record taken so far formatted and written to f, in order; -1 (errno) on an error. */
int output_pool_flush(struct output_pool *p, FILE *f);
void output_pool_free(struct output_pool *p);

/*
 * A buffer that a stdio stream of fopencookie() flushes into, grown in
 * 256 KiB steps: output_sink_write() is its write (cookie: the sink; NULL
 * fails with ENOMEM, as does a failed growth).
 */
struct output_sink {
	char *p;
	size_t len, cap;
};
ssize_t output_sink_write(void *cookie, const char *buf, size_t n);

#endif
