/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stream_cpu - stream's records read, decoded and formatted by reader
 * threads, each on its own CPUs, and merged by timestamp for writing.
 *
 * The reader threads are percpu.h's: each drains its CPUs' whole
 * sub-buffers as they fill and formats every record with an output of its
 * own, leaving out the task's columns (they depend on the names the
 * records before it in the merged order taught).  The caller's thread takes
 * the formatted records in timestamp order, learns their names, fills the
 * columns in and writes them: the same bytes stream writes with one thread.
 * A record goes out only when no CPU can still hand over an older one (see
 * stream_cpu.c).  Not for records whose lines depend on the records around
 * them (stacks held for JSON, function tracers) nor --strings.
 *
 *	stream_cpu_start(&s, l, mode, nthreads);	before live_start()
 *	loop:	r = stream_cpu_next(s, out);	1 an event, 2 a lost-events line, 0 none ready
 *		if (!r) stream_cpu_wait(s, ms);
 *	at the end of a drain: live_drain(l); stream_cpu_finish(s); stream_cpu_next() until 0
 *	stream_cpu_free(s);
 */
#ifndef TPCTL_STREAM_CPU_H
#define TPCTL_STREAM_CPU_H

#include <stdbool.h>

#include "output.h"

struct live;
struct stream_cpu;

/*
 * The threads (nthreads, at most one per CPU read), hidden from tracing
 * like tpctl itself: TP_OK, or the status after one error line.
 */
int stream_cpu_start(struct stream_cpu **sp, struct live *l, enum output_mode mode,
		     int nthreads);
/*
 * Write the next record in order to out: 1 an event, 2 a lost-events
 * marker, 0 none can go out yet (or, once finished, none is left), -1 on an
 * error (errno set; a reader thread's error is printed first).
 */
int stream_cpu_next(struct stream_cpu *s, struct output *out);
/* Wait until something may be ready, at most timeout_ms; a signal (state_wake) ends it. */
void stream_cpu_wait(struct stream_cpu *s, int timeout_ms);
/*
 * Tracing is off: the threads take what is left, partial sub-buffers too,
 * and end; from then on every record read can go out.  -1 on a read error
 * (printed).
 */
int stream_cpu_finish(struct stream_cpu *s);
/* The threads stopped (what they read is dropped), everything freed; NULL is fine. */
void stream_cpu_free(struct stream_cpu *s);

#endif
