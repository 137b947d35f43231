/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader - per-CPU ring-buffer readers and their merge by timestamp.
 *
 * Each CPU has a source of raw sub-buffers (pages): a live libtracefs
 * tracefs_cpu on per_cpu/cpuN/trace_pipe_raw, or saved pages in memory (the
 * unit tests).  Pages are decoded with libtraceevent's kbuffer, which knows
 * the page header, time extends, absolute stamps and padding.  reader_next()
 * hands out records of all CPUs in timestamp order.
 */
#ifndef TPCTL_READER_H
#define TPCTL_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <event-parse.h>

#include "rbpage.h"

struct tracefs_instance;
struct reader;

/* subbuf_size: bytes per sub-buffer (tep_get_sub_buffer_size()); 0 for the page size. */
struct reader *reader_new(int subbuf_size);
void reader_free(struct reader *r);

/* A live reader of the instance's per_cpu/cpuN/trace_pipe_raw (non-blocking). */
int reader_add_cpu(struct reader *r, struct tracefs_instance *inst, int cpu);
/* Saved sub-buffers (a multiple of subbuf_size bytes); not copied, must outlive r. */
int reader_add_mem(struct reader *r, int cpu, const void *buf, size_t len);

/*
 * The next record in timestamp order among what can be read now without
 * blocking: 1 and rec filled (valid until the next call), 0 when nothing
 * is ready, -1 on a read error (errno set).  *lost is what the ring buffer
 * says was missed on rec->cpu just before rec: 0 none, -1 some (count
 * unknown), else the count.
 */
int reader_next_merge(struct reader *r, struct tep_record *rec, long long *lost);
int reader_next_left(struct reader *r, void *data, unsigned long long ts,
		     struct tep_record *rec, long long *lost);
/*
 * struct reader's first member: the shortcut that reader_next() takes
 * inline.  The next record of the sub-buffer that gave the last one may go
 * without a merge while it is not newer than limit (every other CPU's head
 * is newer; nothing was read since the merge that found so).
 */
struct reader_fast {
	struct rbpage *pg;		/* NULL: no shortcut, merge */
	const char *end;		/* the sub-buffer's end in memory */
	unsigned long long limit;
	int cpu;
};
static inline int reader_next(struct reader *r, struct tep_record *rec, long long *lost)
{
	const struct reader_fast *f = (const struct reader_fast *)r;
	unsigned long long ts = 0;
	void *data;

	if (!f->pg)
		return reader_next_merge(r, rec, lost);
	data = rbpage_step(f->pg, &ts);
	if (!data || ts > f->limit)
		return reader_next_left(r, data, ts, rec, lost);
	/* (not the sub-buffer's first record: nothing was missed before it) */
	memset(rec, 0, sizeof(*rec));
	rec->ts = ts;
	rec->cpu = f->cpu;
	rec->data = data;
	rec->size = rbpage_size_within(f->pg, data, f->end);
	rec->record_size = rec->size;
	*lost = 0;
	return 1;
}

/*
 * Wait until there is data worth reading, timeout_ms passes (-1: forever)
 * or a signal arrives (returns 0 then, errno EINTR).  Data worth reading:
 * a whole sub-buffer, or less after a pause in the stream or once it has
 * waited a few milliseconds for more (see reader.c).  Afterwards every CPU
 * is read again.
 */
int reader_wait(struct reader *r, int timeout_ms);
/*
 * An eventfd that ends reader_wait() in place of state.h's wake-up (read
 * when it does), for a reader on a thread of its own; -1: state.h's again.
 */
void reader_set_wake_fd(struct reader *r, int fd);

/*
 * The end of a drain: from now on the last partial sub-buffer of each CPU
 * is taken as well (tracefs_cpu_flush), and a CPU with nothing left is at
 * its end.
 */
void reader_finish(struct reader *r);
/* Every source is at its end (saved pages consumed, or finished and empty). */
bool reader_eof(struct reader *r);

/* Sub-buffers read and sub-buffers that said events were missed, over all CPUs. */
void reader_counts(struct reader *r, unsigned long long *pages, unsigned long long *lost_pages,
		   unsigned long long *lost_events);

/*
 * Up to len bytes of whole sub-buffers from fd (a CPU's trace_pipe_raw),
 * spliced into the empty non-blocking pipe and read out of it into buf at
 * once: bytes, or -1 with errno (EAGAIN: none now; EINVAL: fd is no ring
 * buffer but a copy of tracefs, to be read instead).  reader.c's and
 * percpu.c's readers both take their pages so.
 */
ssize_t reader_splice(int fd, const int pipe[2], char *buf, size_t len);

#endif
