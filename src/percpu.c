// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * percpu - reader threads, each serving its own CPUs; see percpu.h.
 *
 * Why threads.  One thread that reads every CPU and also decodes,
 * aggregates or compresses falls behind as soon as the work of one busy CPU
 * takes longer than that CPU takes to fill its buffer, and then every CPU
 * loses events, the quiet ones included.  A thread per CPU bounds the
 * damage to the CPU that is too busy, and on a machine with spare CPUs
 * gives each busy one a reader of its own (trace-cmd record forks a
 * recorder per CPU for the same reason).
 *
 * Waiting.  poll() on trace_pipe_raw wakes at the instance's buffer_percent
 * (the session sets it to 10 % for these readers, see live.c): a busy CPU
 * wakes its thread every few dozen sub-buffers, long before its buffer is full,
 * and a quiet one costs nothing until the poll times out.  Whole
 * sub-buffers are taken with splice(2) (SPLICE_F_NONBLOCK moves only full
 * ones), many per call through a pipe; partial ones only when asked
 * (percpu_sync) and at the end (tracefs_cpu_flush, once tracing is off).
 * A poll that said "readable" followed by a splice that found no whole
 * sub-buffer (buffer_percent 0 in someone else's instance) naps NAP_US
 * before it polls again, so that it cannot spin.
 *
 * Requests.  The main thread asks for a sync or the finish by bumping a
 * generation under the lock and writing each thread's eventfd, which is in
 * its poll set; each thread answers by setting its done generation and
 * signalling the condition.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "percpu.h"
#include "reader.h"
#include "util.h"

/* The nap after a poll that woke with no whole sub-buffer to take. */
#define NAP_US 1000
/* The pipe splice moves sub-buffers through: up to this much per call. */
#define PIPE_BYTES (256 * 1024)

struct pc_thread {
	struct percpu *p;
	pthread_t th;
	bool running;
	int idx;
	int *cpus, n;
	struct pollfd *pfd;		/* its CPUs' descriptors, then the eventfd */
	int efd;
	int pipe[2];
	bool no_splice;
	char *buf;
	size_t batch;			/* sub-buffers per splice */
	pid_t tid;
	uint64_t req;			/* the last request made of this thread */
	uint64_t gen_done;
	int err;
	unsigned long long pages, bytes;	/* read by the main thread once joined */
};

struct percpu {
	struct percpu_spec s;
	struct pc_thread *t;
	int nt;
	pid_t *tids;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t gen;			/* requests made (sync or finish) */
	bool finishing;			/* finish or abort asked (read atomically by percpu_ending) */
	bool aborting;			/* percpu_abort(): no last look */
	double deadline;		/* percpu_finish_by(): the last looks end then (0: never) */
	int started;
};

static bool moving(const struct percpu *p, int cpu)
{
	return p->s.move_fd && p->s.move_fd(p->s.ctx, cpu) >= 0;
}

static void fail(struct pc_thread *t, int err)
{
	pthread_mutex_lock(&t->p->lock);
	if (!t->err)
		t->err = err ? err : EIO;
	pthread_mutex_unlock(&t->p->lock);
}

/* A last look that must end now: what is left stays in the ring (percpu_finish_by). */
static bool cut(const struct percpu *p, bool final)
{
	return final && p->deadline > 0 && tp_now_s() >= p->deadline;
}

/* Hand len bytes (whole sub-buffers, the last perhaps short) of cpu to the caller. */
static int deliver(struct pc_thread *t, int cpu, size_t len)
{
	struct percpu *p = t->p;
	size_t sb = p->s.subbuf;

	if (len % sb) {
		memset(t->buf + len, 0, sb - len % sb);
		len += sb - len % sb;
	}
	t->pages += len / sb;
	t->bytes += len;
	if (p->s.pages(p->s.ctx, t->idx, cpu, t->buf, len) < 0) {
		fail(t, errno);
		return -1;
	}
	return 0;
}

/* Whole sub-buffers of cpu into t->buf: bytes (0: none now), -1 on error. */
static ssize_t take_whole(struct pc_thread *t, int cpu)
{
	struct percpu *p = t->p;
	ssize_t n;
	int ret;

	if (t->no_splice) {
		ret = tracefs_cpu_read(p->s.tcpu[cpu], t->buf, true);
		if (ret < 0)
			return errno == EAGAIN || errno == EINTR || errno == ENODATA ? 0 : -1;
		return ret;
	}
	n = reader_splice(p->s.fd[cpu], t->pipe, t->buf, (size_t)p->s.subbuf * t->batch);
	if (n < 0 && errno == EINVAL) {
		/* not a ring buffer (a copy of tracefs): plain reads */
		t->no_splice = true;
		return take_whole(t, cpu);
	}
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	return n;
}

/* One look at cpu: whole sub-buffers, then (partial, final) what is left. 1 moved, 0, -1. */
static int look(struct pc_thread *t, int cpu, bool partial, bool final)
{
	struct percpu *p = t->p;
	struct tracefs_cpu *tcpu = p->s.tcpu[cpu];
	bool moved = false;
	ssize_t n = 0;

	if (moving(p, cpu)) {
		int fd = p->s.move_fd(p->s.ctx, cpu);

		while (!cut(p, final) && (n = tracefs_cpu_write(tcpu, fd, true)) > 0) {
			t->pages += n / p->s.subbuf;
			t->bytes += n;
			moved = true;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR && errno != ENODATA) {
			fail(t, errno);
			return -1;
		}
		if (final && !cut(p, final) && (n = tracefs_cpu_flush_write(tcpu, fd)) > 0) {
			t->bytes += n;
			moved = true;
		}
	} else {
		/*
		 * Unasked: a bounded number of batches, so that a flood on one
		 * CPU does not starve the others.  Asked (partial) or final:
		 * what the ring held when asked, at most its sub-buffers and
		 * the reader's one (taken twice over: buffer_size_kb is
		 * rounded), then the partial one: what was committed before
		 * the request is there or was overwritten (and counted lost);
		 * reading on would chase a busy CPU's writer.
		 */
		size_t cap = p->s.ring_subbufs > 0 ? 2 * (size_t)p->s.ring_subbufs + 2 : SIZE_MAX;
		size_t taken = 0;
		int i;

		for (i = 0; ((partial || final) ? taken < cap : i < 64) && !cut(p, final) &&
			    (n = take_whole(t, cpu)) > 0; i++) {
			moved = true;
			taken += n / p->s.subbuf ? n / p->s.subbuf : 1;
			if (deliver(t, cpu, n) < 0)
				return -1;
		}
		if (n < 0) {
			fail(t, errno);
			return -1;
		}
		/*
		 * Asked: the one partial sub-buffer left.  Final: tracing is
		 * off, what is left (a sub-buffer a call), as much as the ring
		 * holds at most.
		 */
		while ((partial || final) && !n && taken <= cap && !cut(p, final)) {
			int r = final ? tracefs_cpu_flush(tcpu, t->buf) :
					tracefs_cpu_read(tcpu, t->buf, true);

			if (r <= 0)
				break;
			moved = true;
			taken++;
			if (deliver(t, cpu, r) < 0)
				return -1;
			if (!final)
				break;
		}
	}
	if (p->s.idle && p->s.idle(p->s.ctx, t->idx, cpu, moved, final) < 0) {
		fail(t, errno);
		return -1;
	}
	return moved;
}

static void *thread_main(void *arg)
{
	struct pc_thread *t = arg;
	struct percpu *p = t->p;
	bool ready_nothing = false;
	uint64_t ev;

	t->tid = gettid();
	pthread_mutex_lock(&p->lock);
	p->started++;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (;;) {
		uint64_t gen;
		bool fin, partial, moved = false;
		int i, ret;

		pthread_mutex_lock(&p->lock);
		gen = t->req;
		fin = p->finishing;
		if (p->aborting) {
			t->gen_done = gen;
			pthread_cond_broadcast(&p->cond);
			pthread_mutex_unlock(&p->lock);
			break;
		}
		pthread_mutex_unlock(&p->lock);
		partial = gen != t->gen_done;
		for (i = 0; !t->err && i < t->n; i++) {
			if (p->s.looking)
				p->s.looking(p->s.ctx, t->cpus[i], true);
			if (look(t, t->cpus[i], partial, fin) > 0)
				moved = true;
			if (p->s.looking)
				p->s.looking(p->s.ctx, t->cpus[i], false);
		}
		if (partial) {
			pthread_mutex_lock(&p->lock);
			__atomic_store_n(&t->gen_done, gen, __ATOMIC_RELEASE);
			pthread_cond_broadcast(&p->cond);
			pthread_mutex_unlock(&p->lock);
			if (p->s.answered)
				p->s.answered(p->s.ctx, t->idx);
			if (fin)
				break;
			continue;
		}
		if (moved && !t->err) {
			ready_nothing = false;
			continue;
		}
		if (ready_nothing && !t->err) {
			struct timespec nap = { 0, NAP_US * 1000L };

			nanosleep(&nap, NULL);
		}
		/* after an error only requests are answered: the descriptors are left alone */
		if (t->err)
			ret = poll(t->pfd + t->n, 1, -1);
		else
			ret = poll(t->pfd, t->n + 1, p->s.timeout_ms);
		ready_nothing = false;
		if (ret > 0) {
			if (t->pfd[t->n].revents & POLLIN) {
				if (read(t->efd, &ev, sizeof(ev)) < 0)
					ev = 0;
			} else {
				ready_nothing = true;
			}
		}
	}
	return NULL;
}

static void thread_free(struct pc_thread *t)
{
	if (t->pipe[0] >= 0) {
		close(t->pipe[0]);
		close(t->pipe[1]);
	}
	if (t->efd >= 0)
		close(t->efd);
	free(t->cpus);
	free(t->pfd);
	free(t->buf);
}

static int thread_init(struct percpu *p, struct pc_thread *t, int idx)
{
	int size;

	t->p = p;
	t->idx = idx;
	t->pipe[0] = t->pipe[1] = -1;
	t->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	t->cpus = calloc(p->s.ncpus, sizeof(*t->cpus));
	t->pfd = calloc(p->s.ncpus + 1, sizeof(*t->pfd));
	if (t->efd < 0 || !t->cpus || !t->pfd)
		return -1;
	t->batch = 1;
	if (!p->s.move_fd || p->s.move_fd(p->s.ctx, 0) < 0) {
		if (pipe2(t->pipe, O_CLOEXEC | O_NONBLOCK) < 0)
			return -1;
		/* more than the default 64 KiB where the system allows it: fewer calls */
		fcntl(t->pipe[0], F_SETPIPE_SZ, PIPE_BYTES);
		size = fcntl(t->pipe[0], F_GETPIPE_SZ);
		t->batch = size >= p->s.subbuf ? size / p->s.subbuf : 1;
	}
	t->buf = malloc((size_t)p->s.subbuf * t->batch);
	return t->buf ? 0 : -1;
}

int percpu_start(struct percpu **pp, const struct percpu_spec *spec)
{
	struct percpu *p = calloc(1, sizeof(*p));
	sigset_t all, old;
	int ncpu = 0, nt, i, c;

	*pp = NULL;
	if (!p)
		goto oom;
	p->s = *spec;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	for (c = 0; c < spec->ncpus; c++)
		ncpu += spec->tcpu[c] != NULL;
	nt = spec->nthreads > 0 && spec->nthreads < ncpu ? spec->nthreads : ncpu;
	if (nt < 1)
		nt = 1;
	p->t = calloc(nt, sizeof(*p->t));
	p->tids = calloc(nt, sizeof(*p->tids));
	if (!p->t || !p->tids)
		goto oom;
	p->nt = nt;
	for (i = 0; i < nt; i++)
		p->t[i].pipe[0] = p->t[i].efd = -1;
	for (i = 0; i < nt; i++)
		if (thread_init(p, &p->t[i], i) < 0)
			goto oom;
	/* CPUs dealt out in turn: with fewer threads than CPUs, neighbours share */
	for (c = 0, i = 0; c < spec->ncpus; c++) {
		struct pc_thread *t;

		if (!spec->tcpu[c])
			continue;
		t = &p->t[i++ % nt];
		t->pfd[t->n].fd = spec->fd[c];
		t->pfd[t->n].events = POLLIN;
		t->cpus[t->n++] = c;
	}
	for (i = 0; i < nt; i++) {
		p->t[i].pfd[p->t[i].n].fd = p->t[i].efd;
		p->t[i].pfd[p->t[i].n].events = POLLIN;
	}
	/* the threads' callbacks may look at it (percpu_asked) from their first delivery */
	*pp = p;
	/* signals stay with the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < nt; i++) {
		int err = pthread_create(&p->t[i].th, NULL, thread_main, &p->t[i]);

		if (err) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			tp_error("cannot start a reader thread: %s", strerror(err));
			/* *pp stays set while the threads that started end (their callbacks use it) */
			percpu_abort(p);
			*pp = NULL;
			return TP_FAIL;
		}
		p->t[i].running = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_mutex_lock(&p->lock);
	while (p->started < nt)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < nt; i++)
		p->tids[i] = p->t[i].tid;
	tp_debug("%d reader thread(s) for %d CPU(s)", nt, ncpu);
	return TP_OK;
oom:
	tp_oom();
	if (p && p->t)
		for (i = 0; i < p->nt; i++)
			thread_free(&p->t[i]);
	if (p) {
		free(p->t);
		free(p->tids);
		free(p);
	}
	return TP_FAIL;
}

int percpu_nthreads(const struct percpu *p)
{
	return p->nt;
}

const pid_t *percpu_tids(const struct percpu *p)
{
	return p->tids;
}

/* ask()'s thread for a new number alone: nobody is asked */
#define NOBODY -2

/*
 * Ask one thread (or every one: -1, or none: NOBODY) for one more pass
 * that takes everything; returns the request's number.
 */
static uint64_t ask(struct percpu *p, int thread, bool finish, bool abort)
{
	uint64_t one = 1;
	uint64_t gen;
	int i;

	pthread_mutex_lock(&p->lock);
	gen = p->gen + 1;
	__atomic_store_n(&p->gen, gen, __ATOMIC_RELEASE);
	for (i = 0; i < p->nt; i++)
		if (thread == -1 || i == thread)
			__atomic_store_n(&p->t[i].req, gen, __ATOMIC_RELEASE);
	if (finish || abort) {
		__atomic_store_n(&p->finishing, true, __ATOMIC_RELEASE);
		p->aborting = abort;
	}
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nt; i++)
		if ((thread == -1 || i == thread) && p->t[i].running &&
		    write(p->t[i].efd, &one, sizeof(one)) < 0)
			continue;
	return gen;
}

uint64_t percpu_ask(struct percpu *p, int thread)
{
	return ask(p, thread, false, false);
}

bool percpu_wanted(const struct percpu *p, int thread)
{
	return __atomic_load_n(&p->t[thread].req, __ATOMIC_ACQUIRE) !=
	       __atomic_load_n(&p->t[thread].gen_done, __ATOMIC_ACQUIRE);
}

bool percpu_ending(const struct percpu *p)
{
	return __atomic_load_n(&p->finishing, __ATOMIC_ACQUIRE);
}

uint64_t percpu_bump(struct percpu *p)
{
	return ask(p, NOBODY, false, false);
}

uint64_t percpu_asked(const struct percpu *p)
{
	return __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE);
}

uint64_t percpu_answered(const struct percpu *p, int thread)
{
	return __atomic_load_n(&p->t[thread].gen_done, __ATOMIC_ACQUIRE);
}

int percpu_thread_of(const struct percpu *p, int cpu)
{
	int i, k;

	for (i = 0; i < p->nt; i++)
		for (k = 0; k < p->t[i].n; k++)
			if (p->t[i].cpus[k] == cpu)
				return i;
	return -1;
}

/* Ask every thread for one more pass that takes everything, and wait for it. */
static void request(struct percpu *p, bool finish, bool abort)
{
	uint64_t gen = ask(p, -1, finish, abort);
	int i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->nt; i++)
		while (p->t[i].running && p->t[i].gen_done != gen)
			pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void percpu_sync(struct percpu *p)
{
	if (p)
		request(p, false, false);
}

int percpu_error(struct percpu *p)
{
	int i, err = 0;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->nt && !err; i++)
		err = p->t[i].err;
	pthread_mutex_unlock(&p->lock);
	return err;
}

/* The end: a last look of every CPU (finish) or none (abort), the threads joined, p freed. */
static int end(struct percpu *p, bool abort)
{
	unsigned long long pages = 0, bytes = 0;
	int i, err;

	if (!p)
		return 0;
	request(p, !abort, abort);
	for (i = 0; i < p->nt; i++)
		if (p->t[i].running)
			pthread_join(p->t[i].th, NULL);
	err = 0;
	for (i = 0; i < p->nt && !err; i++)
		err = p->t[i].err;
	for (i = 0; i < p->nt; i++) {
		pages += p->t[i].pages;
		bytes += p->t[i].bytes;
		thread_free(&p->t[i]);
	}
	tp_debug("reader threads: %llu sub-buffers, %llu bytes", pages, bytes);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p->t);
	free(p->tids);
	free(p);
	errno = err;
	return err ? -1 : 0;
}

int percpu_finish(struct percpu *p)
{
	return end(p, false);
}

int percpu_finish_by(struct percpu *p, double deadline)
{
	/* (the threads read it after they see finishing, which end() sets under the lock) */
	if (p)
		p->deadline = deadline;
	return end(p, false);
}

void percpu_abort(struct percpu *p)
{
	end(p, true);
}
