// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader - per-CPU raw page readers and the k-way merge; see reader.h.
 *
 * Ordering.  A record may be handed out once no CPU can still produce an
 * earlier one.  A read of trace_pipe_raw returns what the CPU has committed
 * so far, also a partly filled sub-buffer, so a CPU found empty at one
 * moment can only later produce records stamped after that moment.  Every
 * time any CPU loads a new sub-buffer (whose records may be newer than that
 * moment) the CPUs found empty are read again before anything is handed
 * out; the merge then picks the smallest head.  The wait is bounded by the
 * caller's poll timeout: nothing is held back longer than it takes to read
 * each CPU once more.  (A record being committed while we read, on another
 * CPU, can still arrive a few microseconds late; the kernel's own `trace`
 * file iterator has the same window.)
 *
 * libtracefs's tracefs_cpu_read() does the non-blocking read into our
 * buffer (one reused sub-buffer per CPU, no splice, no copy per record);
 * it has no way to wait on several CPUs at once, so we open the file
 * ourselves (tracefs_cpu_alloc_fd) to keep its fd for poll().
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "reader.h"
#include "state.h"

enum src_state {
	S_READY,	/* a record is loaded */
	S_NEED,		/* load the next record (from the page or a new page) */
	S_EMPTY,	/* nothing was there at generation empty_gen */
	S_EOF,
};

struct rcpu {
	int cpu;
	struct tracefs_cpu *tcpu;
	int fd;
	const char *mem;
	size_t mem_len, mem_off;
	void *page;
	struct kbuffer *kbuf;
	bool page_loaded;
	enum src_state state;
	unsigned long empty_gen;
	unsigned long long ts;
	void *data;
	int size;
	long long lost;		/* to report with the loaded record */
};

struct reader {
	int subbuf;
	int n;
	struct rcpu *c;
	unsigned long gen;	/* bumped whenever a CPU loads a new page */
	bool finishing;
	unsigned long long pages, lost_pages, lost_events;
	struct pollfd *pfd;
};

struct reader *reader_new(int subbuf_size)
{
	struct reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->subbuf = subbuf_size > 0 ? subbuf_size : getpagesize();
	return r;
}

static struct rcpu *add_cpu(struct reader *r, int cpu)
{
	struct rcpu *nc = realloc(r->c, (r->n + 1) * sizeof(*nc)), *c;

	if (!nc)
		return NULL;
	r->c = nc;
	c = &r->c[r->n];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->fd = -1;
	c->state = S_NEED;
	c->page = malloc(r->subbuf);
	c->kbuf = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
				KBUFFER_ENDIAN_BIG);
#else
				KBUFFER_ENDIAN_LITTLE);
#endif
	if (!c->page || !c->kbuf) {
		free(c->page);
		if (c->kbuf)
			kbuffer_free(c->kbuf);
		return NULL;
	}
	r->n++;
	return c;
}

int reader_add_cpu(struct reader *r, struct tracefs_instance *inst, int cpu)
{
	char path[64];
	struct rcpu *c;
	int fd;

	snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	fd = tracefs_instance_file_open(inst, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	c = add_cpu(r, cpu);
	if (!c) {
		close(fd);
		return -1;
	}
	c->tcpu = tracefs_cpu_alloc_fd(fd, r->subbuf, true);
	if (!c->tcpu) {
		close(fd);
		r->n--;
		free(c->page);
		kbuffer_free(c->kbuf);
		return -1;
	}
	c->fd = fd;
	/* an emergency rollback must close it before the instance can go */
	state_register_fd(fd);
	return 0;
}

int reader_add_mem(struct reader *r, int cpu, const void *buf, size_t len)
{
	struct rcpu *c = add_cpu(r, cpu);

	if (!c)
		return -1;
	c->mem = buf;
	c->mem_len = len;
	return 0;
}

void reader_free(struct reader *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++) {
		struct rcpu *c = &r->c[i];

		if (c->tcpu) {
			tracefs_cpu_free_fd(c->tcpu);
			state_unregister_fd(c->fd);
			close(c->fd);
		}
		free(c->page);
		kbuffer_free(c->kbuf);
	}
	free(r->c);
	free(r->pfd);
	free(r);
}

/*
 * kbuffer trusts the page header's commit (bytes of data) and would read
 * past the sub-buffer for a damaged saved page (found by tests/fuzz).  The
 * header is a u64 time stamp and a long commit whose bits from 30 up are
 * the missed-events flags.
 */
static bool page_sane(struct reader *r, const void *page)
{
	unsigned long commit;

	memcpy(&commit, (const char *)page + 8, sizeof(commit));
	commit &= (1UL << 30) - 1;	/* the flags are sign-extended into the upper half */
	return commit <= (unsigned long)r->subbuf - 8 - sizeof(long);
}

/* Read one more page into c->page: 1 loaded, 0 nothing now, -1 error. */
static int load_page(struct reader *r, struct rcpu *c)
{
	int ret, missed;

	if (c->mem) {
		if (c->mem_off + r->subbuf > c->mem_len)
			return 0;
		memcpy(c->page, c->mem + c->mem_off, r->subbuf);
		c->mem_off += r->subbuf;
		ret = r->subbuf;
	} else if (r->finishing) {
		/* the last, partly filled sub-buffer too (DESIGN.md section 6) */
		ret = tracefs_cpu_flush(c->tcpu, c->page);
	} else {
		ret = tracefs_cpu_read(c->tcpu, c->page, true);
	}
	if (ret < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (ret == 0)
		return 0;
	if (!page_sane(r, c->page) || kbuffer_load_subbuffer(c->kbuf, c->page) < 0)
		return 0;
	r->pages++;
	r->gen++;
	/* the kernel marks a page that follows dropped or overwritten events */
	missed = kbuffer_missed_events(c->kbuf);
	if (missed) {
		r->lost_pages++;
		if (missed > 0)
			r->lost_events += missed;
		c->lost = missed > 0 ? missed : -1;
	}
	c->page_loaded = true;
	c->data = kbuffer_read_event(c->kbuf, &c->ts);
	return 1;
}

/* Make c's next record current; sets c->state. */
static int fill(struct reader *r, struct rcpu *c)
{
	int ret;

	if (c->state == S_READY || c->state == S_EOF)
		return 0;
	if (c->state == S_EMPTY && c->empty_gen == r->gen && !r->finishing)
		return 0;
	if (c->state == S_NEED && c->page_loaded)
		c->data = kbuffer_next_event(c->kbuf, &c->ts);
	for (;;) {
		if (c->page_loaded && c->data) {
			long room = (const char *)c->page + r->subbuf - (const char *)c->data;

			c->size = kbuffer_event_size(c->kbuf);
			/* a damaged length must not let the decoders read past the page */
			if (c->size > room)
				c->size = room > 0 ? room : 0;
			c->state = S_READY;
			return 0;
		}
		c->page_loaded = false;
		ret = load_page(r, c);
		if (ret < 0)
			return -1;
		if (ret == 0) {
			if (c->mem || r->finishing) {
				c->state = S_EOF;
			} else {
				c->state = S_EMPTY;
				c->empty_gen = r->gen;
			}
			/* a lost marker with no record after it still has to be told */
			return 0;
		}
	}
}

int reader_next(struct reader *r, struct tep_record *rec, long long *lost)
{
	struct rcpu *best;
	unsigned long gen;
	int i;

	/* read until no CPU loads a new page: then every head is known */
	do {
		gen = r->gen;
		for (i = 0; i < r->n; i++)
			if (fill(r, &r->c[i]) < 0)
				return -1;
	} while (gen != r->gen);

	best = NULL;
	for (i = 0; i < r->n; i++) {
		struct rcpu *c = &r->c[i];

		if (c->state == S_READY && (!best || c->ts < best->ts))
			best = c;
	}
	if (!best)
		return 0;
	memset(rec, 0, sizeof(*rec));
	rec->ts = best->ts;
	rec->cpu = best->cpu;
	rec->data = best->data;
	rec->size = best->size;
	rec->record_size = best->size;
	rec->missed_events = best->lost;
	*lost = best->lost;
	best->lost = 0;
	best->state = S_NEED;
	return 1;
}

int reader_wait(struct reader *r, int timeout_ms)
{
	int i, n = 0, ret;

	if (!r->pfd) {
		r->pfd = calloc(r->n ? r->n : 1, sizeof(*r->pfd));
		if (!r->pfd)
			return -1;
	}
	for (i = 0; i < r->n; i++) {
		if (r->c[i].fd < 0 || r->c[i].state == S_EOF)
			continue;
		r->pfd[n].fd = r->c[i].fd;
		r->pfd[n].events = POLLIN;
		n++;
	}
	ret = poll(r->pfd, n, timeout_ms);
	/* whatever woke us, look at every CPU again */
	r->gen++;
	if (ret < 0)
		return errno == EINTR ? 0 : -1;
	return ret;
}

void reader_finish(struct reader *r)
{
	r->finishing = true;
	r->gen++;
}

bool reader_eof(struct reader *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (r->c[i].state != S_EOF)
			return false;
	return true;
}

void reader_counts(struct reader *r, unsigned long long *pages, unsigned long long *lost_pages,
		   unsigned long long *lost_events)
{
	*pages = r->pages;
	*lost_pages = r->lost_pages;
	*lost_events = r->lost_events;
}
