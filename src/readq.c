// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * readq - reader.c's merge on a thread of its own; see readq.h.
 *
 * The thread copies each record, with its stamp, CPU and loss, into a ring
 * of bytes that the caller's thread reads in place: the sub-buffers a
 * record came from are read over by the next splice, the ring's bytes only
 * once the caller has moved past them.  One writer, one reader: the thread
 * alone moves head, the caller alone tail, and each publishes its counter
 * every PUBLISH records and whenever it runs out of work, so that the two
 * do not pass a cache line back and forth per record.  A side with nothing
 * to do says so (cwait: the caller; pwait: the thread waiting for room,
 * as the tail it waits for) and sleeps on its eventfd; the other side
 * writes that eventfd after it published, once an eighth of the ring is
 * ready for the sleeper (or the thread has nothing more to give).  Both
 * store their counter or flag and then load the other's with sequential
 * consistency, so no wake-up is lost.  A full ring stops the thread
 * reading, as a busy single thread would: the ring buffers overwrite, and
 * say so.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "readq.h"
#include "reader.h"
#include "state.h"
#include "util.h"

/* The ring: at least this, and at least 4 sub-buffers (a record is at most one) */
#define RING_BYTES (4u << 20)
/* Records between two publications of a counter */
#define PUBLISH 64
/*
 * A side that waits is woken once this much of the ring is ready for it
 * (or the thread has nothing more): a wake-up per batch, not per PUBLISH
 */
#define KICK_PART 8
/* The thread's wait for data or for room, at most (it looks at its commands after) */
#define WAIT_MS 50

enum { Q_FINISH = 1, Q_STOP = 2 };

/* A record in the ring, its data after it (8-byte aligned) */
struct qent {
	uint32_t len;		/* bytes to the next entry; 0: the rest of the ring is skipped */
	int32_t size;
	int32_t cpu;
	uint32_t pad;
	unsigned long long ts;
	long long lost;
};

struct readq {
	/* read by both, written before the thread starts */
	struct reader *r;
	char *ring;
	size_t cap;			/* a power of two */
	int cfd, pfd, wfd;		/* eventfds: the caller's, the thread's room, its commands */
	pthread_t th;
	pid_t tid;
	/*
	 * Each side's own, and what each publishes, on lines of their own: a
	 * line written per record by one side and read by the other would
	 * move between their CPUs per record
	 */
	struct {
		uint64_t whead;		/* where the next entry goes */
		uint64_t tail_seen;
		int wpending;		/* entries not yet published */
		int err;		/* the failed read's errno (when done) */
		bool eof;		/* (when done) */
	} w __attribute__((aligned(64)));
	uint64_t head __attribute__((aligned(64)));	/* published by the thread */
	int cwait;
	int done;			/* the thread ended: head is final */
	uint64_t tail __attribute__((aligned(64)));	/* published by the caller */
	uint64_t pwait;			/* the tail the thread waits for, 0: none */
	int cmd;
	struct {
		uint64_t rtail;		/* the next entry to read */
		uint64_t head_seen;
		int rpending;
	} c __attribute__((aligned(64)));
};

static void kick(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0)
		return;
}

static void take(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0)
		return;
}

/* Wait for fd (and the state's wake-up when asked), at most ms. */
static void sleep_on(int fd, bool state, int ms)
{
	struct pollfd p[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = state ? state_wake_fd() : -1, .events = POLLIN },
	};

	if (poll(p, p[1].fd >= 0 ? 2 : 1, ms) <= 0)
		return;
	if (p[0].revents & POLLIN)
		take(fd);
	if (p[1].revents & POLLIN)
		/* a signal: the caller looks at state_stop again */
		state_wake_drain();
}

/*
 * idle: the thread has nothing more for now (it is about to wait, or ends):
 * a waiting caller is woken if anything is left for it to read
 */
static void publish_head(struct readq *q, bool idle)
{
	uint64_t unread;

	q->w.wpending = 0;
	__atomic_store_n(&q->head, q->w.whead, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&q->cwait, __ATOMIC_SEQ_CST))
		return;
	/* (a caller that waits has published all it read: tail is where it is) */
	unread = q->w.whead - __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
	if (idle ? unread > 0 : unread >= q->cap / KICK_PART)
		kick(q->cfd);
}

static void publish_tail(struct readq *q)
{
	uint64_t w;

	q->c.rpending = 0;
	__atomic_store_n(&q->tail, q->c.rtail, __ATOMIC_SEQ_CST);
	w = __atomic_load_n(&q->pwait, __ATOMIC_SEQ_CST);
	if (w && q->c.rtail >= w &&
	    __atomic_compare_exchange_n(&q->pwait, &w, 0, false, __ATOMIC_SEQ_CST,
					__ATOMIC_RELAXED))
		kick(q->pfd);
}

static bool stopping(struct readq *q)
{
	return __atomic_load_n(&q->cmd, __ATOMIC_ACQUIRE) & Q_STOP;
}

/* Room for need bytes from whead on: 0, or -1 when asked to stop meanwhile. */
static int room(struct readq *q, uint64_t need)
{
	if (q->w.whead + need - q->w.tail_seen <= q->cap)
		return 0;
	publish_head(q, false);
	for (;;) {
		/* woken once need and an eighth of the ring more are free */
		uint64_t want = q->w.whead + need + q->cap / KICK_PART - q->cap;

		q->w.tail_seen = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
		if (q->w.whead + need - q->w.tail_seen <= q->cap)
			return 0;
		__atomic_store_n(&q->pwait, want, __ATOMIC_SEQ_CST);
		q->w.tail_seen = __atomic_load_n(&q->tail, __ATOMIC_SEQ_CST);
		if (q->w.tail_seen < want && !stopping(q))
			sleep_on(q->pfd, false, WAIT_MS);
		__atomic_store_n(&q->pwait, 0, __ATOMIC_SEQ_CST);
		if (stopping(q))
			return -1;
	}
}

static int put(struct readq *q, const struct tep_record *rec, long long lost)
{
	uint32_t need = sizeof(struct qent) + (((uint32_t)rec->size + 7) & ~7u);
	size_t off = q->w.whead & (q->cap - 1);
	uint64_t skip = off + need > q->cap ? q->cap - off : 0;
	struct qent *e;

	if (room(q, skip + need) < 0)
		return -1;
	if (skip) {
		((struct qent *)(q->ring + off))->len = 0;
		q->w.whead += skip;
		off = 0;
	}
	e = (struct qent *)(q->ring + off);
	*e = (struct qent){ .len = need, .size = rec->size, .cpu = rec->cpu, .ts = rec->ts,
			    .lost = lost };
	memcpy(e + 1, rec->data, rec->size);
	q->w.whead += need;
	if (++q->w.wpending >= PUBLISH)
		publish_head(q, false);
	return 0;
}

static void *thread_main(void *arg)
{
	struct readq *q = arg;
	struct tep_record rec;
	bool finishing = false;
	long long lost;
	int n, cmd;

	__atomic_store_n(&q->tid, gettid(), __ATOMIC_RELEASE);
	for (;;) {
		cmd = __atomic_load_n(&q->cmd, __ATOMIC_ACQUIRE);
		if (cmd & Q_STOP)
			break;
		if ((cmd & Q_FINISH) && !finishing) {
			finishing = true;
			reader_finish(q->r);
		}
		n = reader_next(q->r, &rec, &lost);
		if (n > 0) {
			if (put(q, &rec, lost) < 0)
				break;
			continue;
		}
		publish_head(q, true);
		if (n < 0) {
			q->w.err = errno ? errno : EIO;
			break;
		}
		if (finishing) {
			if (reader_eof(q->r)) {
				q->w.eof = true;
				break;
			}
			/* a CPU found empty is looked at once more, now that tracing is off */
			reader_finish(q->r);
			continue;
		}
		reader_wait(q->r, WAIT_MS);
	}
	publish_head(q, true);
	__atomic_store_n(&q->done, 1, __ATOMIC_SEQ_CST);
	kick(q->cfd);
	return NULL;
}

static void readq_free(struct readq *q)
{
	if (q->cfd >= 0)
		close(q->cfd);
	if (q->pfd >= 0)
		close(q->pfd);
	if (q->wfd >= 0)
		close(q->wfd);
	free(q->ring);
	free(q);
}

int readq_start(struct readq **qp, struct reader *r, int subbuf, size_t ring)
{
	struct readq *q;
	sigset_t all, old;
	struct timespec nap = { 0, 100000 };
	int err;

	*qp = NULL;
	if (posix_memalign((void **)&q, 64, sizeof(*q)))
		return tp_oom();
	memset(q, 0, sizeof(*q));
	q->r = r;
	for (q->cap = 64; q->cap < (ring ? ring : RING_BYTES) || q->cap < 4 * (size_t)subbuf;
	     q->cap *= 2)
		;
	q->ring = malloc(q->cap);
	q->cfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	q->pfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	q->wfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!q->ring || q->cfd < 0 || q->pfd < 0 || q->wfd < 0) {
		tp_error("cannot start the reading thread: %s", strerror(errno));
		readq_free(q);
		return TP_FAIL;
	}
	/* its waits end on its own eventfd; signals stay with the caller's thread */
	reader_set_wake_fd(r, q->wfd);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&q->th, NULL, thread_main, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		reader_set_wake_fd(r, -1);
		tp_error("cannot start the reading thread: %s", strerror(err));
		readq_free(q);
		return TP_FAIL;
	}
	while (!__atomic_load_n(&q->tid, __ATOMIC_ACQUIRE))
		nanosleep(&nap, NULL);
	*qp = q;
	return TP_OK;
}

pid_t readq_tid(const struct readq *q)
{
	return q->tid;
}

int readq_next(struct readq *q, struct tep_record *rec, long long *lost)
{
	const struct qent *e;

	/* the entry handed out last is no longer used: its room goes back now and then */
	if (++q->c.rpending >= PUBLISH)
		publish_tail(q);
	if (q->c.rtail == q->c.head_seen) {
		publish_tail(q);
		q->c.head_seen = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
		if (q->c.rtail == q->c.head_seen) {
			if (!__atomic_load_n(&q->done, __ATOMIC_ACQUIRE))
				return 0;
			/* the thread published its last entries before it said done */
			q->c.head_seen = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
			if (q->c.rtail == q->c.head_seen) {
				if (!q->w.err)
					return 0;
				errno = q->w.err;
				return -1;
			}
		}
	}
	e = (const struct qent *)(q->ring + (q->c.rtail & (q->cap - 1)));
	if (!e->len) {
		q->c.rtail = (q->c.rtail | (q->cap - 1)) + 1;
		e = (const struct qent *)q->ring;
	}
	memset(rec, 0, sizeof(*rec));
	rec->ts = e->ts;
	rec->cpu = e->cpu;
	rec->data = (void *)(e + 1);
	rec->size = e->size;
	rec->record_size = e->size;
	rec->missed_events = e->lost;
	*lost = e->lost;
	q->c.rtail += e->len;
	return 1;
}

void readq_wait(struct readq *q, int timeout_ms)
{
	publish_tail(q);
	__atomic_store_n(&q->cwait, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&q->head, __ATOMIC_SEQ_CST) == q->c.rtail &&
	    !__atomic_load_n(&q->done, __ATOMIC_SEQ_CST))
		sleep_on(q->cfd, true, timeout_ms);
	__atomic_store_n(&q->cwait, 0, __ATOMIC_RELAXED);
}

void readq_finish(struct readq *q)
{
	__atomic_or_fetch(&q->cmd, Q_FINISH, __ATOMIC_RELEASE);
	kick(q->wfd);
}

bool readq_eof(struct readq *q)
{
	return __atomic_load_n(&q->done, __ATOMIC_ACQUIRE) && q->w.eof &&
	       q->c.rtail == __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
}

void readq_stop(struct readq *q)
{
	if (!q)
		return;
	__atomic_or_fetch(&q->cmd, Q_STOP, __ATOMIC_RELEASE);
	kick(q->wfd);
	kick(q->pfd);
	pthread_join(q->th, NULL);
	reader_set_wake_fd(q->r, -1);
	readq_free(q);
}
