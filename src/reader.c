// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader - per-CPU raw page readers and the k-way merge; see reader.h.
 *
 * Cost.  A read of trace_pipe_raw that finds the writer's sub-buffer only
 * partly filled copies its records out one by one and leaves the rest of
 * that sub-buffer to be copied the same way; a reader that keeps up with a
 * busy CPU and reads whenever poll() says "not empty" gets a dozen records
 * per read(2), each read a wake-up, a system call and a page of copying.
 * So while data flows the reader takes only whole sub-buffers, many per
 * call: splice(2) with SPLICE_F_NONBLOCK moves only full ones (the kernel
 * hands over the pages themselves), up to a pipe's worth at once, and one
 * read(2) of the pipe brings them all in.  A partly filled sub-buffer is
 * taken only when it has waited HOLD_MS for more (so a lone event still
 * shows within that), when poll() timed out, until the first sub-buffer
 * with data came (the first lines come at once), at the end of a drain, or
 * when the merge needs it (below).  libtracefs's
 * tracefs_cpu_buffered_read() splices too, but it returns one sub-buffer
 * per call and does not say when it went to the kernel, which the merge
 * needs to know; tracefs_cpu_read() and tracefs_cpu_flush() do the reads
 * of partial sub-buffers.
 *
 * Ordering.  A record may be handed out once no CPU can still produce an
 * earlier one.  Each look at the kernel (a splice or a read) gets a sequence
 * number.  The records of a sub-buffer taken at look s were all committed
 * before s.  A read (unlike a splice) also takes the partial sub-buffer, so
 * everything a CPU commits after its last read r is newer than r.  Before
 * the oldest loaded record is handed out, every CPU with nothing loaded
 * whose last read is older than the look that loaded that record is read
 * once more, partial sub-buffer included, and the merge looks again; the
 * smallest head wins.  On the busy path this costs one read of each idle
 * CPU per batch of whole sub-buffers.  (A record being committed while we
 * read, on another CPU, can still arrive a few microseconds late; the
 * kernel's own `trace` file iterator has the same window.)
 *
 * Waiting.  With the instance's buffer_percent at 0 (stream's private
 * instance), poll() reports any data at all.  A poll that had to sleep
 * (QUIET_MS) woke on the first data after a pause, a lone event perhaps,
 * which is taken at once.  One that returned at once found data that is
 * not yet a whole sub-buffer: it gets short naps (NAP_US), not polls,
 * which would return at once again, until a sub-buffer is full or HOLD_MS
 * have passed.  With a larger buffer_percent (an existing instance, 50 by
 * default), poll() wakes only at that fill level and its timeout takes
 * whatever is there.  (Raising buffer_percent while busy, so that the
 * kernel wakes us per few sub-buffers, cost the same CPU in bench/run.py
 * and left lone events to the poll timeout.)
 *
 * Not used: the ring-buffer mapping of kernels 6.10+ (mmap of
 * trace_pipe_raw and TRACE_MMAP_IOCTL_GET_READER; libtracefs 1.8 wraps it,
 * Debian 12 has 1.6.4).  It saves the copy of each sub-buffer, but on a
 * 6.18 kernel the ioctl advances the kernel's reader record by record:
 * moving 16-byte records that way took about three times the CPU of
 * splice (bench/RESULTS.md), and a mapped buffer cannot be resized and
 * keeps its instance busy until unmapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "rbpage.h"
#include "reader.h"
#include "state.h"
#include "tourney.h"
#include "util.h"

/* How long a partly filled sub-buffer is left to fill while data flows. */
#define HOLD_MS 10
/* The nap between looks at a buffer that has data but no whole sub-buffer yet. */
#define NAP_US 1000
/* A poll that slept this long woke on fresh data after a pause: it is taken at once. */
#define QUIET_MS 2

enum src_state {
	S_READY,	/* a record is loaded */
	S_NEED,		/* load the next record (from the page or a new page) */
	S_WAIT,		/* nothing more to take in this pass (see wait_pass) */
	S_EOF,
};

struct rcpu {
	int cpu;
	struct tracefs_cpu *tcpu;
	int fd;
	const char *mem;
	size_t mem_len, mem_off;
	char *buf;		/* sub-buffers taken from the kernel in one go */
	int nbuf, next;		/* how many there are, the next one to load */
	unsigned long long buf_seq;	/* the look that took them */
	unsigned long long load_seq;	/* the look that took the loaded sub-buffer */
	unsigned long long read_seq;	/* the last read (partial sub-buffer included) */
	unsigned long wait_pass;	/* the pass in which it went S_WAIT */
	unsigned long partial_pass;	/* the pass in which it took a partial sub-buffer */
	struct rbpage pg;		/* the loaded sub-buffer */
	bool page_loaded;
	enum src_state state;
	unsigned long long ts;
	void *data;
	int size;
	long long lost;		/* to report with the loaded record */
};

struct reader {
	struct reader_fast fast;	/* first: reader.h's reader_next() reads it */
	int subbuf;
	int batch;		/* sub-buffers per splice */
	int pipe[2];		/* splice goes through it; it is emptied at once */
	int n;
	struct rcpu *c;
	unsigned long long seq;	/* looks at the kernel so far */
	unsigned long pass;	/* bumped by every wait: CPUs in S_WAIT are looked at again */
	bool partial;		/* this pass takes partly filled sub-buffers */
	bool finishing;
	bool no_splice;
	struct rcpu *fast_c;	/* the shortcut's CPU (fast.pg set) */
	/*
	 * Every CPU was filled in this pass, and since then only last (the
	 * CPU handed out last) needs it: a merge fills that one alone.
	 */
	unsigned long filled_pass;
	struct rcpu *last;
	/*
	 * The merge reads these, not the CPUs: a tournament of the heads
	 * (tourney.h; c[i]'s key its head's stamp while it is S_READY, else
	 * none); wait_seq, at most the oldest read_seq of the CPUs in S_WAIT
	 * (exact after a full fill)
	 */
	struct tourney tr;
	unsigned long long wait_seq;
	struct timespec pending;	/* since when data waits to fill a sub-buffer; 0: none */
	int wake_fd;			/* what else ends a wait: -1 state_wake_fd() */
	unsigned long long pages, partial_pages, lost_pages, lost_events, splices;
	struct pollfd *pfd;
};

struct reader *reader_new(int subbuf_size)
{
	struct reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->subbuf = subbuf_size > 0 ? subbuf_size : getpagesize();
	r->batch = 1;
	r->pass = 1;	/* a CPU's partial_pass starts at 0: not taken in this pass */
	r->pipe[0] = r->pipe[1] = -1;
	r->wake_fd = -1;
	/* the first pass takes what is there, so that the first lines come at once */
	r->partial = true;
	return r;
}

static struct rcpu *add_cpu(struct reader *r, int cpu, int pages)
{
	struct rcpu *nc = realloc(r->c, (r->n + 1) * sizeof(*nc)), *c;
	int i;

	if (!nc)
		return NULL;
	r->c = nc;
	if (r->n + 1 > r->tr.tm) {
		if (tourney_size(&r->tr, r->n + 1))
			return NULL;
		for (i = 0; i < r->n; i++)
			if (r->c[i].state == S_READY)
				tourney_leaf(&r->tr, i, r->c[i].ts);
	}
	/* (the tournament is made again at the next merge; r->c moved) */
	r->filled_pass = 0;
	r->last = NULL;
	r->fast.pg = NULL;
	c = &r->c[r->n];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->fd = -1;
	c->state = S_NEED;
	c->buf = malloc((size_t)r->subbuf * pages);
	if (!c->buf)
		return NULL;
	r->n++;
	return c;
}

/* The pipe splice moves whole sub-buffers through; its size sets the batch. */
static int pipe_open(struct reader *r)
{
	int size;

	if (r->pipe[0] >= 0)
		return 0;
	if (pipe2(r->pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	size = fcntl(r->pipe[0], F_GETPIPE_SZ);
	r->batch = size >= r->subbuf ? size / r->subbuf : 1;
	return 0;
}

int reader_add_cpu(struct reader *r, struct tracefs_instance *inst, int cpu)
{
	char path[64];
	struct rcpu *c;
	int fd;

	if (pipe_open(r) < 0)
		return -1;
	snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	fd = tracefs_instance_file_open(inst, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	c = add_cpu(r, cpu, r->batch);
	if (!c) {
		close(fd);
		return -1;
	}
	c->tcpu = tracefs_cpu_alloc_fd(fd, r->subbuf, true);
	if (!c->tcpu) {
		close(fd);
		r->n--;
		free(c->buf);
		return -1;
	}
	c->fd = fd;
	/* an emergency rollback must close it before the instance can go */
	state_register_fd(fd);
	return 0;
}

int reader_add_mem(struct reader *r, int cpu, const void *buf, size_t len)
{
	struct rcpu *c = add_cpu(r, cpu, 1);

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
	if (r->splices || r->partial_pages)
		tp_debug("read %llu sub-buffers: %llu splices, %llu reads", r->pages, r->splices,
			 r->partial_pages);
	for (i = 0; i < r->n; i++) {
		struct rcpu *c = &r->c[i];

		if (c->tcpu) {
			tracefs_cpu_free_fd(c->tcpu);
			state_unregister_fd(c->fd);
			close(c->fd);
		}
		free(c->buf);
	}
	if (r->pipe[0] >= 0) {
		close(r->pipe[0]);
		close(r->pipe[1]);
	}
	free(r->c);
	tourney_free(&r->tr);
	free(r->pfd);
	free(r);
}

/* Whatever comes first, a partly filled sub-buffer too: 1, 0 when empty, -1 on error. */
static int take_any(struct reader *r, struct rcpu *c)
{
	int ret;

	if (r->finishing)
		ret = tracefs_cpu_flush(c->tcpu, c->buf);
	else
		ret = tracefs_cpu_read(c->tcpu, c->buf, true);
	c->read_seq = c->buf_seq = ++r->seq;
	if (ret < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (ret > 0)
		r->partial_pages++;
	return ret > 0;
}

ssize_t reader_splice(int fd, const int pipe[2], char *buf, size_t len)
{
	ssize_t n = splice(fd, NULL, pipe[1], NULL, len, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	ssize_t got = 0;

	if (n < 0)
		return -1;
	/* the pipe was empty, so it holds exactly these; empty it at once */
	while (got < n) {
		ssize_t m = read(pipe[0], buf + got, n - got);

		if (m <= 0) {
			if (m < 0 && errno == EINTR)
				continue;
			if (!m)
				errno = EIO;
			return -1;
		}
		got += m;
	}
	return n;
}

/* Whole sub-buffers into c->buf: how many (0 when there is none yet), -1 on error. */
static int take_whole(struct reader *r, struct rcpu *c)
{
	ssize_t n;

	if (r->no_splice)
		return take_any(r, c);
	n = reader_splice(c->fd, r->pipe, c->buf, (size_t)r->subbuf * r->batch);
	r->seq++;
	if (n < 0 && errno == EINVAL) {
		/* not a ring buffer (a copy of tracefs): plain reads, partial or not */
		r->no_splice = true;
		return take_any(r, c);
	}
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	r->splices++;
	c->buf_seq = r->seq;
	/* whole sub-buffers from a ring buffer; anything else is padded to them */
	if (n % r->subbuf)
		memset(c->buf + n, 0, r->subbuf - n % r->subbuf);
	return (n + r->subbuf - 1) / r->subbuf;
}

/* Load c's next sub-buffer: 1 loaded, 0 nothing now, -1 error. */
static int load_page(struct reader *r, struct rcpu *c)
{
	void *page;
	int ret, missed;

	if (c->mem) {
		if (c->mem_off + r->subbuf > c->mem_len)
			return 0;
		memcpy(c->buf, c->mem + c->mem_off, r->subbuf);
		c->mem_off += r->subbuf;
		c->nbuf = 1;
		c->next = 0;
	} else if (c->next >= c->nbuf) {
		ret = r->finishing ? 0 : take_whole(r, c);
		if (ret == 0 && (r->finishing || (r->partial && c->partial_pass != r->pass))) {
			c->partial_pass = r->pass;
			ret = take_any(r, c);
		}
		if (ret <= 0)
			return ret;
		/* data came: whatever waited to fill a sub-buffer has been dealt with */
		r->pending.tv_sec = r->pending.tv_nsec = 0;
		c->nbuf = ret;
		c->next = 0;
	}
	page = c->buf + (size_t)c->next++ * r->subbuf;
	c->load_seq = c->buf_seq;
	if (!rbpage_sane(page, r->subbuf))
		/* a damaged sub-buffer: the rest of the batch still counts */
		return c->mem || c->next >= c->nbuf ? 0 : load_page(r, c);
	r->pages++;
	c->data = rbpage_load(&c->pg, page, r->subbuf, &c->ts);
	/* the kernel marks a page that follows dropped or overwritten events */
	missed = c->pg.lost;
	if (missed) {
		r->lost_pages++;
		if (missed > 0)
			r->lost_events += missed;
		c->lost = missed > 0 ? missed : -1;
	}
	c->page_loaded = true;
	return 1;
}

/* c->data is c's next record: size it and make it current. */
static inline void set_ready(struct reader *r, struct rcpu *c)
{
	c->size = rbpage_size_within(&c->pg, c->data, c->buf + (size_t)c->next * r->subbuf);
	c->state = S_READY;
	tourney_leaf(&r->tr, c - r->c, c->ts);
}

/* Make c's next record current; sets c->state. */
static int fill(struct reader *r, struct rcpu *c)
{
	int ret;

	if (c->state == S_READY || c->state == S_EOF)
		return 0;
	if (c->state == S_WAIT && c->wait_pass == r->pass)
		return 0;
	if (c->state == S_NEED && c->page_loaded)
		c->data = rbpage_step(&c->pg, &c->ts);
	for (;;) {
		if (c->page_loaded && c->data) {
			set_ready(r, c);
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
				c->state = S_WAIT;
				c->wait_pass = r->pass;
			}
			/* a lost marker with no record after it still has to be told */
			return 0;
		}
	}
}

/*
 * best goes out next: the next record of its sub-buffer may follow without
 * a merge up to the next oldest head (tourney_second(): si, -1 none, -2
 * not known).  Ties go as in the merge: the lower CPU first, so a record
 * stamped like a lower CPU's head must wait for it (a lower CPU's head is
 * newer than best's, else it had won: ts - 1 >= 0).  Not known: up to
 * best's own stamp, which every other head is past or ties from a higher
 * CPU.
 */
static inline void set_fast(struct reader *r, struct rcpu *best, int si)
{
	const struct rcpu *second = si < 0 ? NULL : &r->c[si];

	r->fast.limit = si == -2 ? best->ts : !second ? ~0ULL :
			second < best ? second->ts - 1 : second->ts;
	if (best->page_loaded) {
		r->fast_c = best;
		r->fast.pg = &best->pg;
		r->fast.end = best->buf + (size_t)best->next * r->subbuf;
		r->fast.cpu = best->cpu;
	}
	r->last = best;
}

static int hand_out(struct reader *r, struct rcpu *best, struct tep_record *rec, long long *lost)
{
	tourney_leaf(&r->tr, best - r->c, TOURNEY_NONE);
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

/*
 * reader.h's reader_next() stepped the shortcut's sub-buffer to data
 * (stamped ts), which may not go without a merge: it becomes that CPU's
 * head, or the CPU needs its next sub-buffer.
 */
int reader_next_left(struct reader *r, void *data, unsigned long long ts,
		     struct tep_record *rec, long long *lost)
{
	struct rcpu *c = r->fast_c, *best;
	int bi;

	r->fast.pg = NULL;
	c->data = data;
	c->ts = ts;
	if (!data) {
		c->page_loaded = false;
		return reader_next_merge(r, rec, lost);
	}
	set_ready(r, c);
	if (r->filled_pass != r->pass || r->last != c)
		return reader_next_merge(r, rec, lost);
	/*
	 * Only c's head moved since the last merge (many busy CPUs take
	 * turns record by record): its path is played, and the winner goes
	 * out unless a CPU may still hold something older (the merge's look)
	 */
	tourney_fix(&r->tr, c - r->c);
	bi = tourney_best(&r->tr);
	best = &r->c[bi];
	if (r->wait_seq <= best->load_seq)
		return reader_next_merge(r, rec, lost);
	/* c again: a run of its records, which may go on without a merge up to the next oldest */
	set_fast(r, best, best == c ? tourney_second(&r->tr, bi) : -2);
	return hand_out(r, best, rec, lost);
}

/* Every CPU filled in this pass, and the oldest last read of those that wait. */
static int fill_all(struct reader *r)
{
	int i;

	r->wait_seq = ~0ULL;
	for (i = 0; i < r->n; i++) {
		struct rcpu *c = &r->c[i];

		if (fill(r, c) < 0)
			return -1;
		if (c->state == S_WAIT && c->read_seq < r->wait_seq)
			r->wait_seq = c->read_seq;
	}
	r->filled_pass = r->pass;
	return 0;
}

int reader_next_merge(struct reader *r, struct tep_record *rec, long long *lost)
{
	struct rcpu *best;
	bool again;
	int i, bi, si;

	r->fast.pg = NULL;
	if (!r->n)
		return 0;
	for (;;) {
		if (r->filled_pass != r->pass || !r->last) {
			if (fill_all(r) < 0)
				return -1;
			tourney_build(&r->tr);
		} else {
			if (fill(r, r->last) < 0)
				return -1;
			if (r->last->state == S_WAIT && r->last->read_seq < r->wait_seq)
				r->wait_seq = r->last->read_seq;
			/* (hand_out() cleared its key and left the tournament to here) */
			tourney_fix(&r->tr, r->last - r->c);
		}
		/*
		 * The oldest head and the next oldest: by stamp, the lower CPU
		 * first on a tie (as the kernel's `trace`)
		 */
		bi = tourney_best(&r->tr);
		if (bi < 0)
			return 0;
		si = tourney_second(&r->tr, bi);
		best = &r->c[bi];
		if (r->wait_seq > best->load_seq)
			break;
		/*
		 * a CPU not read since best's sub-buffer was taken may hold older
		 * records (what is read: the next walk fills those CPUs, also
		 * after an error part way)
		 */
		again = false;
		r->filled_pass = 0;
		for (i = 0; i < r->n; i++) {
			struct rcpu *c = &r->c[i];
			int ret;

			if (c->state != S_WAIT || c->read_seq > best->load_seq)
				continue;
			ret = take_any(r, c);
			if (ret < 0)
				return -1;
			if (ret > 0) {
				c->nbuf = 1;
				c->next = 0;
				c->page_loaded = false;
				c->state = S_NEED;
				again = true;
			}
		}
		/* (nothing came: every CPU stays as filled, with its new last read) */
		if (!again) {
			if (fill_all(r) < 0)
				return -1;
			break;
		}
	}
	set_fast(r, best, si);
	return hand_out(r, best, rec, lost);
}

static long long ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) * 1000LL + (now.tv_nsec - t->tv_nsec) / 1000000;
}

int reader_wait(struct reader *r, int timeout_ms)
{
	struct timespec since;
	int i, n = 0, ret, wfd;

	/* whatever happens, the CPUs with nothing to give are looked at again */
	r->pass++;
	r->partial = false;
	if (r->pending.tv_sec || r->pending.tv_nsec) {
		long long held = ms_since(&r->pending);
		struct timespec nap = { 0, NAP_US * 1000L };

		if (held >= HOLD_MS) {
			/* it has waited long enough: take the partly filled sub-buffers */
			r->partial = true;
			r->pending.tv_sec = r->pending.tv_nsec = 0;
			return 1;
		}
		if (timeout_ms >= 0 && timeout_ms * 1000L < NAP_US)
			nap.tv_nsec = timeout_ms * 1000000L;
		if (nanosleep(&nap, NULL) < 0 && errno != EINTR)
			return -1;
		return 1;
	}
	if (!r->pfd) {
		r->pfd = calloc(r->n + 1, sizeof(*r->pfd));
		if (!r->pfd)
			return -1;
	}
	/* a signal or COMMAND's exit since the caller looked (state.h), or the owner's fd */
	wfd = r->wake_fd >= 0 ? r->wake_fd : state_wake_fd();
	if (wfd >= 0) {
		r->pfd[n].fd = wfd;
		r->pfd[n].events = POLLIN;
		n++;
	}
	for (i = 0; i < r->n; i++) {
		if (r->c[i].fd < 0 || r->c[i].state == S_EOF)
			continue;
		r->pfd[n].fd = r->c[i].fd;
		r->pfd[n].events = POLLIN;
		n++;
	}
	clock_gettime(CLOCK_MONOTONIC, &since);
	ret = poll(r->pfd, n, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : -1;
	if (wfd >= 0 && r->pfd[0].revents) {
		/* woken: the caller looks at state_stop and its COMMAND again */
		if (r->wake_fd >= 0) {
			uint64_t v;

			if (read(wfd, &v, sizeof(v)) < 0)
				v = 0;
		} else {
			state_wake_drain();
		}
		r->partial = true;
		return 0;
	}
	if (ret == 0) {
		/* nothing woke us: take what is there (buffer_percent may hide it) */
		r->partial = true;
		return 0;
	}
	if (ms_since(&since) >= QUIET_MS || !r->pages) {
		/*
		 * the first data after a quiet spell, perhaps a lone event, or the
		 * first data of all (so that the first lines come at once): show it now
		 */
		r->partial = true;
		return ret;
	}
	/* data already there, perhaps less than a sub-buffer: it may wait HOLD_MS for more */
	clock_gettime(CLOCK_MONOTONIC, &r->pending);
	return ret;
}

void reader_set_wake_fd(struct reader *r, int fd)
{
	r->wake_fd = fd;
}

void reader_finish(struct reader *r)
{
	r->finishing = true;
	r->pass++;
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
