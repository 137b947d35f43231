/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * readq - reader.c's merge on a thread of its own.  The thread reads the
 * ring buffers and merges their records in timestamp order (reader_next(),
 * reader_wait()); the caller's thread takes them in that order, to format
 * and write them, while the next ones are read.  On a machine with many
 * busy CPUs the merge costs about as much per record as the formatting, so
 * the two threads together keep up with about twice what one does.
 *
 * Records come out as reader_next() hands them out: the same order, the
 * same losses, the same contents (copied, so valid until the next call).
 * After readq_start() the reader is the thread's until readq_stop().
 */
#ifndef TPCTL_READQ_H
#define TPCTL_READQ_H

#include <stdbool.h>
#include <sys/types.h>

#include <event-parse.h>

struct reader;
struct readq;

/*
 * The thread starts reading r (signals stay with the caller's thread):
 * TP_OK, or TP_FAIL after an error line.  subbuf: r's sub-buffer size (the
 * largest record); ring: the bytes between the two threads (0: 4 MiB; at
 * least 4 sub-buffers either way).
 */
int readq_start(struct readq **qp, struct reader *r, int subbuf, size_t ring);
/* The thread's id (its own tracing is hidden by the caller). */
pid_t readq_tid(const struct readq *q);
/*
 * The next record: 1 (rec valid until the next call), 0 when none is ready,
 * -1 once the thread's read failed and everything before it was taken
 * (errno its error).
 */
int readq_next(struct readq *q, struct tep_record *rec, long long *lost);
/*
 * Wait for records, at most timeout_ms (-1: no limit); a signal (state.h)
 * ends it too.  The record readq_next() handed out last is given back.
 */
void readq_wait(struct readq *q, int timeout_ms);
/* reader_finish() on the thread: it reads what is left, partial sub-buffers too, and ends. */
void readq_finish(struct readq *q);
/* Every CPU read to its end after readq_finish(), and every record taken. */
bool readq_eof(struct readq *q);
/* The thread ends (what it holds is dropped), r is the caller's again; q is freed. */
void readq_stop(struct readq *q);

#endif
