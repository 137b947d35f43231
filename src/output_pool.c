// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * output_pool - batches of records formatted by worker threads; see
 * output_pool.h.
 *
 * The batches form a ring.  The reading thread fills one (the records'
 * bytes and their task's columns copied into its arena), queues it and goes
 * on to the next; the workers take queued batches in ring order, each
 * formatting a whole batch (through a stdio stream of its own, flushed into
 * the batch's buffer); the reading thread writes the oldest batch once it
 * is done, and waits for it only when the ring is full.  So the lines come out in the order the
 * records were taken, whichever worker was first.  A worker never touches
 * the reading thread's output or the decoder's tables: it gets each
 * record's event from the batch, and what it asks of the shared tep
 * (libtraceevent's printing, symbols) takes decode_lock().
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <event-parse.h>

#include "decode.h"
#include "output.h"
#include "output_pool.h"
#include "util.h"

/* A batch goes to a worker at this many records or arena bytes. */
#define BATCH_RECORDS 2048
#define BATCH_BYTES (256 * 1024)

struct item {
	struct dec_event *de;
	unsigned long long ts;
	long long lost;
	int cpu, size;
	size_t data;		/* the record's bytes: offset in the arena */
	size_t cols;		/* its task's columns: offset in the arena */
	unsigned cols_len;
};

enum bstate { B_FREE, B_FILLING, B_QUEUED, B_WORKING, B_DONE };

struct batch {
	struct item *it;
	int n;
	size_t cap;
	char *arena;
	size_t alen, acap;
	char *out;		/* the formatted lines; kept from batch to batch */
	size_t outlen, outcap;
	int err;		/* errno of a failure while formatting, else 0 */
	enum bstate state;
};

/* Where a worker's stdio stream puts what it flushes: the batch's buffer, grown. */
struct worker {
	struct output_pool *p;
	struct output *o;
	/*
	 * The worker's stream: stdio's buffer, flushed into the sink
	 * (open_memstream zeroes and copies its whole buffer as it grows: a
	 * third of a worker's instructions per event)
	 */
	FILE *f;
	struct output_sink sink;
	char fbuf[65536];
	pthread_t tid;
	bool started;
};

/* gettid(2) of glibc 2.30+, where the header does not declare it */
static pid_t own_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

ssize_t output_sink_write(void *cookie, const char *buf, size_t n)
{
	struct output_sink *k = cookie;

	if (!k || !tp_reserve(&k->p, &k->cap, k->len + n, 1, 256 * 1024)) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(k->p + k->len, buf, n);
	k->len += n;
	return n;
}

struct output_pool {
	pthread_mutex_t mu;
	pthread_cond_t work;	/* a batch was queued, or stop */
	pthread_cond_t done;	/* a batch was formatted */
	struct worker *w;
	int nworkers;
	pid_t *tids;		/* the workers' task ids, once each has started */
	int ntids;
	struct batch *b;
	int nb;
	int head;		/* the oldest batch not yet written */
	int fill;		/* the batch being filled */
	int take;		/* the next batch a worker takes */
	bool stop;
};

static void format_batch(struct worker *w, struct batch *b)
{
	struct output *o = w->o;
	int i;

	/* the batch's buffer, as large as the last time it was used */
	w->sink = (struct output_sink){ .p = b->out, .len = 0, .cap = b->outcap };
	for (i = 0; i < b->n; i++) {
		const struct item *it = &b->it[i];
		struct tep_record rec = { .ts = it->ts, .cpu = it->cpu, .size = it->size,
					  .data = b->arena + it->data };

		if (it->lost && output_lost(o, it->cpu, it->lost) < 0) {
			b->err = errno ? errno : EIO;
			break;
		}
		if (output_record_cols(o, it->de, &rec, b->arena + it->cols, it->cols_len) < 0) {
			b->err = errno ? errno : EIO;
			break;
		}
	}
	if (fflush_unlocked(w->f) != 0 && !b->err)
		b->err = errno ? errno : EIO;
	clearerr_unlocked(w->f);
	b->out = w->sink.p;
	b->outlen = w->sink.len;
	b->outcap = w->sink.cap;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct output_pool *p = w->p;
	struct batch *b;

	pthread_mutex_lock(&p->mu);
	p->tids[p->ntids++] = own_tid();
	pthread_cond_broadcast(&p->done);
	for (;;) {
		while (!p->stop && p->b[p->take].state != B_QUEUED)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->b[p->take].state != B_QUEUED)
			break;
		b = &p->b[p->take];
		p->take = (p->take + 1) % p->nb;
		b->state = B_WORKING;
		pthread_mutex_unlock(&p->mu);
		format_batch(w, b);
		pthread_mutex_lock(&p->mu);
		b->state = B_DONE;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct output_pool *output_pool_new(struct tep_handle *tep, enum output_mode mode, bool ns_clock,
				    int nworkers)
{
	struct output_pool *p = calloc(1, sizeof(*p));
	sigset_t all, old;
	int i, err = 0;

	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->nworkers = nworkers > 0 ? nworkers : 1;
	/* two batches per worker: one formatted while the other is written */
	p->nb = 2 * p->nworkers + 1;
	p->b = calloc(p->nb, sizeof(*p->b));
	p->w = calloc(p->nworkers, sizeof(*p->w));
	p->tids = calloc(p->nworkers, sizeof(*p->tids));
	if (!p->b || !p->w || !p->tids) {
		output_pool_free(p);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < p->nworkers; i++) {
		p->w[i].p = p;
		p->w[i].o = output_new(tep, NULL, mode);
		if (!p->w[i].o) {
			output_pool_free(p);
			errno = ENOMEM;
			return NULL;
		}
		output_set_ns_clock(p->w[i].o, ns_clock);
		p->w[i].f = fopencookie(&p->w[i].sink, "w",
					(cookie_io_functions_t){ .write = output_sink_write });
		if (!p->w[i].f) {
			output_pool_free(p);
			errno = ENOMEM;
			return NULL;
		}
		setvbuf(p->w[i].f, p->w[i].fbuf, _IOFBF, sizeof(p->w[i].fbuf));
		output_set_file(p->w[i].o, p->w[i].f);
	}
	/* the signals stay with the reading thread (state.h) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < p->nworkers && !err; i++) {
		err = pthread_create(&p->w[i].tid, NULL, worker_main, &p->w[i]);
		p->w[i].started = !err;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		output_pool_free(p);
		errno = err;
		return NULL;
	}
	/* every worker's task id known (output_pool_tids) */
	pthread_mutex_lock(&p->mu);
	while (p->ntids < p->nworkers)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
	return p;
}

const pid_t *output_pool_tids(const struct output_pool *p, int *n)
{
	*n = p->ntids;
	return p->tids;
}

/* Write the oldest batch if it is done (wait: until it is); p->mu held. 1: one written. */
static int write_head(struct output_pool *p, FILE *f, bool wait, int *err)
{
	struct batch *b = &p->b[p->head];

	if (b->state == B_FREE || b->state == B_FILLING)
		return 0;
	while (wait && b->state != B_DONE)
		pthread_cond_wait(&p->done, &p->mu);
	if (b->state != B_DONE)
		return 0;
	/* the write may block on a pipe: the workers go on meanwhile */
	pthread_mutex_unlock(&p->mu);
	if (b->err && !*err)
		*err = b->err;
	if (!*err && b->outlen && fwrite_unlocked(b->out, 1, b->outlen, f) != b->outlen)
		*err = errno ? errno : EIO;
	b->outlen = 0;
	b->err = 0;
	b->n = 0;
	b->alen = 0;
	pthread_mutex_lock(&p->mu);
	b->state = B_FREE;
	p->head = (p->head + 1) % p->nb;
	return 1;
}

/* Queue the batch being filled; make the next one free. */
static int submit(struct output_pool *p, FILE *f)
{
	struct batch *b = &p->b[p->fill];
	int err = 0;

	pthread_mutex_lock(&p->mu);
	if (b->state == B_FILLING) {
		b->state = B_QUEUED;
		pthread_cond_signal(&p->work);
		p->fill = (p->fill + 1) % p->nb;
	}
	/* what is done already goes out now; the ring full: wait for the oldest */
	while (write_head(p, f, p->b[p->fill].state != B_FREE, &err) && !err)
		;
	pthread_mutex_unlock(&p->mu);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

static bool room(struct batch *b, size_t bytes)
{
	return tp_reserve(&b->it, &b->cap, b->n + 1, sizeof(*b->it), 256) &&
	       tp_reserve(&b->arena, &b->acap, b->alen + bytes, 1, 64 * 1024);
}

int output_pool_add(struct output_pool *p, struct output *o, FILE *f,
		    const struct tep_record *rec, long long lost)
{
	struct batch *b = &p->b[p->fill];
	struct dec_event *de;
	const char *cols;
	unsigned clen;
	bool special;
	struct item *it;
	/* 8-byte aligned, as the kernel's records are */
	size_t dlen = (rec->size + 7) & ~(size_t)7, need;

	/* output_record() writes nothing for these */
	if (rec->size < 8)
		return 0;
	de = output_prepare(o, rec, &cols, &clen, &special);
	if (special)
		return 1;
	need = dlen + ((clen + 7) & ~7U);
	if (!b->n) {
		/* the workers look at every batch's state: changed under the lock */
		pthread_mutex_lock(&p->mu);
		b->state = B_FILLING;
		pthread_mutex_unlock(&p->mu);
	}
	if (!room(b, need)) {
		errno = ENOMEM;
		return -1;
	}
	it = &b->it[b->n++];
	it->de = de;
	it->ts = rec->ts;
	it->lost = lost;
	it->cpu = rec->cpu;
	it->size = rec->size;
	it->data = b->alen;
	memcpy(b->arena + b->alen, rec->data, rec->size);
	it->cols = b->alen + dlen;
	memcpy(b->arena + it->cols, cols, clen);
	it->cols_len = clen;
	b->alen += need;
	if (b->n >= BATCH_RECORDS || b->alen >= BATCH_BYTES)
		return submit(p, f);
	return 0;
}

int output_pool_flush(struct output_pool *p, FILE *f)
{
	int err = 0;

	if (submit(p, f) < 0)
		return -1;
	pthread_mutex_lock(&p->mu);
	while (write_head(p, f, true, &err) && !err)
		;
	pthread_mutex_unlock(&p->mu);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

void output_pool_free(struct output_pool *p)
{
	int i;

	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; p->w && i < p->nworkers; i++) {
		if (p->w[i].started)
			pthread_join(p->w[i].tid, NULL);
		output_free(p->w[i].o);
		if (p->w[i].f) {
			/* nothing is left in it: every batch ended with a flush */
			p->w[i].sink = (struct output_sink){ 0 };
			fclose(p->w[i].f);
		}
	}
	for (i = 0; p->b && i < p->nb; i++) {
		free(p->b[i].it);
		free(p->b[i].arena);
		free(p->b[i].out);
	}
	free(p->w);
	free(p->tids);
	free(p->b);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
