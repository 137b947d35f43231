// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stream_cpu - stream's reader threads formatting their own CPUs' records,
 * merged by timestamp; see stream_cpu.h.
 *
 * Each CPU has a queue of chunks: a chunk is what one hand-over of
 * sub-buffers became, the formatted lines in one buffer and an item per
 * line (its stamp, where the task's columns go, the names it teaches).
 * The writer (the caller's thread) keeps the oldest chunk of every CPU and
 * writes the item with the lowest stamp, the lower CPU first on a tie, as
 * reader.c's merge does.
 *
 * Order.  An item may go out only when no CPU can still hand over an older
 * record.  A CPU with items queued cannot (its records come in order); a
 * CPU with none can, until its thread has looked at it again after the
 * item was read: a record stamped earlier was committed before the item's
 * record was read, so that look finds it (reader.c's rule, one thread per
 * CPU).  Each item carries the number of the last look request made before
 * it was read (percpu_asked); it goes out once the thread of every CPU with
 * nothing queued has answered a later request, and the writer makes that
 * request when it needs it.  A request takes what the CPU held when asked,
 * partial sub-buffers too.  With nothing at all queued the writer still asks every ASK_MS, so
 * that a lone record does not sit in a partial sub-buffer.
 *
 * Memory.  A CPU's queue holds at most QUEUE_BYTES of lines; beyond that its
 * thread waits for the writer (and its ring buffer overwrites, which the
 * kernel's counts and the lost markers say), except when the writer waits
 * for that thread's answer or the threads are ending.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "decode.h"
#include "live.h"
#include "output_pool.h"
#include "percpu.h"
#include "rbpage.h"
#include "state.h"
#include "stream_cpu.h"
#include "tourney.h"
#include "util.h"

/* A CPU's formatted lines not yet written, at most (then its thread waits). */
#define QUEUE_BYTES (4u << 20)
/*
 * A hand-over wakes the writer only once this much waits on the CPU (or
 * the writer waits for it): fewer wake-ups of a writer that keeps up; what
 * is less waits for the writer's next look, ASK_MS at most.
 */
#define WAKE_BYTES (128u << 10)
/* With nothing queued: ask every thread to look (partial sub-buffers too) this often. */
#define ASK_MS 20
/* What an item is: a record with its task's columns left out, one written whole, a lost marker. */
enum { I_HOLE, I_WHOLE, I_LOST };

struct sitem {
	unsigned long long ts;
	uint64_t tag;			/* percpu_asked() when its record was read */
	int pid;
	uint32_t start, hole, end;	/* in the chunk's lines */
	uint32_t name0;			/* its names: nm[name0 .. name0 + nnames) */
	uint16_t nnames;
	uint8_t kind;
};

struct sname {
	int pid;
	uint32_t off, len;		/* in the chunk's name bytes */
};

struct chunk {
	struct chunk *next;
	struct sitem *it;
	int n;
	size_t cap;
	struct output_sink out;		/* the lines, as the thread's stream flushed them */
	struct sname *nm;
	int nn;
	size_t ncap;
	char *nb;
	size_t nblen, nbcap;
	int pos;			/* the writer's next item */
};

struct scpu {
	pthread_mutex_t mu;
	pthread_cond_t room;		/* the writer took a chunk */
	/* handed over, not yet taken (qh stored atomically: queued() looks without the lock) */
	struct chunk *qh, *qt;
	struct chunk *spare;		/* written chunks, for reuse */
	size_t queued;			/* bytes of lines handed over and not written */
	struct chunk *cur;		/* the writer's: the oldest chunk taken */
	long long lost;			/* the thread's: missed before the next record */
	int thread;
	bool read;			/* a CPU that is read */
	uint64_t clear;			/* the writer saw it empty after request clear - 1 */
	int looking;			/* its thread is in a look (atomic): what it read may be on its way */
};

struct sthread {
	struct stream_cpu *s;
	struct output *o;
	FILE *f;
	struct chunk *sink;		/* where f's flushes go */
	uint64_t tag;			/* the ask the records of its pages answer */
	struct rbpage pg;
	char fbuf[65536];
};

struct stream_cpu {
	struct live *l;
	enum output_mode mode;
	struct percpu *pc;
	struct scpu *cpu;
	int ncpu;
	int subbuf;
	struct tracefs_cpu **tcpu;
	int *fds;
	struct sthread *th;
	int nth;
	int wfd;			/* eventfd: something was handed over or answered */
	bool probe;			/* an empty CPU's trace_pipe_raw polls not readable */
	struct pollfd *pfd;		/* the writer's probe of empty CPUs */
	int *pcpu;
	uint64_t *asked;		/* per thread: the writer's last request of it */
	struct timespec ask_at;
	int blocked;			/* the writer waits for an answer (atomic) */
	int stopping;			/* atomic: what is read is dropped, the threads end */
	bool finished;
	unsigned long long pages, lost_pages;	/* atomic adds */
	/*
	 * The run: the CPU whose items went out last may go on without a
	 * look at the others while its items are older than every other CPU's
	 * oldest (run_ts, run_cpu: the lowest of those) and were read under the
	 * same request as the one that was found safe (run_tag).
	 */
	struct scpu *run;
	unsigned long long run_ts;
	int run_cpu;
	uint64_t run_tag;
	/*
	 * The writer's merge (tourney.h): a CPU's key is its oldest item's
	 * stamp while it has one; empty, the read CPUs with none (they may get
	 * some at any time: looked at per merge); lastw, the CPU whose item
	 * went out last (its key moved on: looked at the next merge, -1 none)
	 */
	struct tourney tr;
	uint64_t *empty;
	int nwords;
	int lastw;
};

/* The thread's stream writes into the chunk it fills (none: ENOMEM). */
static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	struct sthread *t = cookie;

	return output_sink_write(t->sink ? &t->sink->out : NULL, buf, n);
}

/* Bytes the thread's stream has taken for its chunk so far. */
static size_t tpos(struct sthread *t)
{
#ifdef __GLIBC__
	return t->sink->out.len + (t->f->_IO_write_ptr - t->f->_IO_write_base);
#else
	fflush(t->f);
	return t->sink->out.len;
#endif
}

static void wake_writer(struct stream_cpu *s)
{
	uint64_t one = 1;

	if (write(s->wfd, &one, sizeof(one)) < 0)
		return;
}

static struct chunk *chunk_get(struct scpu *c)
{
	struct chunk *ch;

	pthread_mutex_lock(&c->mu);
	ch = c->spare;
	if (ch)
		c->spare = ch->next;
	pthread_mutex_unlock(&c->mu);
	if (!ch)
		ch = calloc(1, sizeof(*ch));
	if (ch) {
		ch->next = NULL;
		ch->n = ch->nn = ch->pos = 0;
		ch->out.len = ch->nblen = 0;
	}
	return ch;
}

static void chunk_free(struct chunk *ch)
{
	while (ch) {
		struct chunk *next = ch->next;

		free(ch->it);
		free(ch->out.p);
		free(ch->nm);
		free(ch->nb);
		free(ch);
		ch = next;
	}
}

static struct sitem *item_add(struct chunk *ch)
{
	if (!tp_reserve(&ch->it, &ch->cap, ch->n + 1, sizeof(*ch->it), 1024))
		return NULL;
	return &ch->it[ch->n++];
}

/* The names rec teaches, copied into the chunk (the page is reused). */
static int names_add(struct chunk *ch, struct sitem *it, const struct output_name *v, int n)
{
	int i;

	it->name0 = ch->nn;
	it->nnames = n;
	if (!tp_reserve(&ch->nm, &ch->ncap, ch->nn + n, sizeof(*ch->nm), 256))
		return -1;
	for (i = 0; i < n; i++) {
		if (!tp_reserve(&ch->nb, &ch->nbcap, ch->nblen + v[i].len, 1, 4096))
			return -1;
		memcpy(ch->nb + ch->nblen, v[i].name, v[i].len);
		ch->nm[ch->nn++] = (struct sname){ v[i].pid, ch->nblen, v[i].len };
		ch->nblen += v[i].len;
	}
	return 0;
}

/* One record (or the lost line before it) formatted into the chunk. */
static int format_one(struct sthread *t, struct chunk *ch, struct tep_record *rec, uint64_t tag)
{
	struct stream_cpu *s = t->s;
	struct scpu *c = &s->cpu[rec->cpu];
	struct output_name v[OUTPUT_NAMES];
	struct dec_event *de;
	struct sitem *it;
	size_t start;
	unsigned hole;
	int n;

	if (c->lost) {
		it = item_add(ch);
		if (!it)
			return -1;
		start = tpos(t);
		if (output_lost(t->o, rec->cpu, c->lost) < 0)
			return -1;
		*it = (struct sitem){ .ts = rec->ts, .tag = tag, .kind = I_LOST,
				      .start = start, .hole = start, .end = tpos(t) };
		c->lost = 0;
	}
	it = item_add(ch);
	if (!it)
		return -1;
	de = output_event(t->o, rec);
	start = tpos(t);
	if (output_record_cols(t->o, de, rec, "", 0) < 0)
		return -1;
	hole = output_hole(t->o);
	/* UINT_MAX: a printer that writes the task's columns itself (a tracer's record) */
	*it = (struct sitem){ .ts = rec->ts, .tag = tag, .pid = decode_pid(rec->data),
			      .kind = hole == UINT_MAX ? I_WHOLE : I_HOLE, .start = start,
			      .hole = hole == UINT_MAX ? start : start + hole, .end = tpos(t) };
	n = output_names(t->o, de, rec, v);
	return n ? names_add(ch, it, v, n) : 0;
}

static void hand_over(struct stream_cpu *s, struct scpu *c, int thread, struct chunk *ch)
{
	bool wake;

	pthread_mutex_lock(&c->mu);
	if (c->qt)
		c->qt->next = ch;
	else
		__atomic_store_n(&c->qh, ch, __ATOMIC_RELEASE);
	c->qt = ch;
	c->queued += ch->out.len;
	/*
	 * The writer keeps up, or this CPU's ring buffer overwrites (and says
	 * so); not while the writer waits for this thread's answer (for
	 * another of its CPUs), nor at the end (the writer waits for the
	 * threads to end).
	 */
	while (c->queued > QUEUE_BYTES && !percpu_ending(s->pc) &&
	       !__atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE) &&
	       !percpu_wanted(s->pc, thread)) {
		struct timespec until;

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += 20 * 1000000L;
		if (until.tv_nsec >= (long)TP_NS_PER_S) {
			until.tv_sec++;
			until.tv_nsec -= (long)TP_NS_PER_S;
		}
		pthread_cond_timedwait(&c->room, &c->mu, &until);
	}
	wake = c->queued >= WAKE_BYTES || __atomic_load_n(&s->blocked, __ATOMIC_ACQUIRE);
	pthread_mutex_unlock(&c->mu);
	if (wake)
		wake_writer(s);
}

/* percpu's pages: len bytes of cpu's sub-buffers, formatted and handed to the writer. */
/* A record of the thread's pages: a loss the sub-buffers said goes before it. */
static int thread_record(void *ctx, struct tep_record *rec, long long lost)
{
	struct sthread *t = ctx;

	if (lost)
		t->s->cpu[rec->cpu].lost = lost;
	return format_one(t, t->sink, rec, t->tag);
}

static int thread_pages(void *ctx, int thread, int cpu, const void *buf, size_t len)
{
	struct stream_cpu *s = ctx;
	struct sthread *t = &s->th[thread];
	struct scpu *c = &s->cpu[cpu];
	struct live_page_read rd = { 0 };
	struct chunk *ch;

	if (__atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE))
		return 0;
	ch = chunk_get(c);
	if (!ch) {
		errno = ENOMEM;
		return -1;
	}
	t->sink = ch;
	t->tag = percpu_asked(s->pc);
	if (live_page_records(&t->pg, cpu, buf, len, s->subbuf, thread_record, t, &rd) < 0)
		goto fail;
	if (rd.lost)
		c->lost = rd.lost;
	if (fflush(t->f) || ferror(t->f))
		goto fail;
	__atomic_add_fetch(&s->pages, rd.pages, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->lost_pages, rd.lost_pages, __ATOMIC_RELAXED);
	t->sink = NULL;
	if (!ch->n) {
		chunk_free(ch);
		return 0;
	}
	hand_over(s, c, thread, ch);
	return 0;
fail:
	if (!errno)
		errno = EIO;
	t->sink = NULL;
	chunk_free(ch);
	return -1;
}

static void thread_looking(void *ctx, int cpu, bool start)
{
	struct stream_cpu *s = ctx;

	__atomic_store_n(&s->cpu[cpu].looking, start, __ATOMIC_SEQ_CST);
}

static void thread_answered(void *ctx, int thread)
{
	(void)thread;
	wake_writer(ctx);
}

static int thread_init(struct stream_cpu *s, struct sthread *t)
{
	static const cookie_io_functions_t io = { .write = sink_write };

	t->s = s;
	t->f = fopencookie(t, "w", io);
	if (!t->f)
		return -1;
	setvbuf(t->f, t->fbuf, _IOFBF, sizeof(t->fbuf));
	t->o = output_new(live_tep(s->l), t->f, s->mode);
	if (!t->o)
		return -1;
	output_set_loader(t->o, live_load_id, s->l);
	output_set_ns_clock(t->o, live_clock_ns(s->l));
	return 0;
}

int stream_cpu_start(struct stream_cpu **sp, struct live *l, enum output_mode mode,
		     int nthreads)
{
	struct stream_cpu *s = calloc(1, sizeof(*s));
	int n = live_page_ncpus(l), nread = 0, c, i, ret;
	pthread_condattr_t ca;

	*sp = NULL;
	if (!s)
		goto oom;
	s->l = l;
	s->mode = mode;
	s->wfd = -1;
	s->ncpu = n;
	s->subbuf = live_page_size(l);
	s->cpu = calloc(n ? n : 1, sizeof(*s->cpu));
	s->tcpu = calloc(n ? n : 1, sizeof(*s->tcpu));
	s->fds = calloc(n ? n : 1, sizeof(*s->fds));
	if (!s->cpu || !s->tcpu || !s->fds)
		goto oom;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	for (c = 0; c < n; c++) {
		pthread_mutex_init(&s->cpu[c].mu, NULL);
		pthread_cond_init(&s->cpu[c].room, &ca);
		s->tcpu[c] = live_page_cpu(l, c);
		s->fds[c] = live_page_fd(l, c);
		s->cpu[c].read = s->tcpu[c] != NULL;
		nread += s->cpu[c].read;
	}
	pthread_condattr_destroy(&ca);
	s->nth = nthreads > 0 && nthreads < nread ? nthreads : nread;
	if (s->nth < 1)
		s->nth = 1;
	s->th = calloc(s->nth, sizeof(*s->th));
	s->asked = calloc(s->nth, sizeof(*s->asked));
	s->pfd = calloc(n ? n : 1, sizeof(*s->pfd));
	s->pcpu = calloc(n ? n : 1, sizeof(*s->pcpu));
	s->probe = live_prompt(l);
	s->wfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->nwords = (n + 63) / 64;
	s->empty = calloc(s->nwords ? s->nwords : 1, sizeof(*s->empty));
	s->lastw = -1;
	if (!s->th || !s->asked || !s->pfd || !s->pcpu || s->wfd < 0 || !s->empty ||
	    tourney_size(&s->tr, n))
		goto oom;
	for (c = 0; c < n; c++)
		if (s->cpu[c].read)
			s->empty[c / 64] |= 1ULL << (c % 64);
	for (i = 0; i < s->nth; i++)
		if (thread_init(s, &s->th[i]) < 0)
			goto oom;
	ret = percpu_start(&s->pc, &(struct percpu_spec){
		.ncpus = n, .tcpu = s->tcpu, .fd = s->fds, .subbuf = s->subbuf,
		.nthreads = s->nth, .timeout_ms = 1000, .ring_subbufs = live_page_count(l),
		.pages = thread_pages,
		.looking = thread_looking, .answered = thread_answered, .ctx = s,
	});
	if (!ret)
		ret = live_hide_tasks(l, percpu_tids(s->pc), percpu_nthreads(s->pc));
	if (ret) {
		stream_cpu_free(s);
		return ret;
	}
	for (c = 0; c < n; c++)
		s->cpu[c].thread = s->cpu[c].read ? percpu_thread_of(s->pc, c) : -1;
	clock_gettime(CLOCK_MONOTONIC, &s->ask_at);
	*sp = s;
	return TP_OK;
oom:
	tp_oom();
	stream_cpu_free(s);
	return TP_FAIL;
}

/* The writer's oldest chunk of c with an item left, taking the next one handed over. */
static struct sitem *head(struct scpu *c)
{
	struct chunk *ch = c->cur;

	if (ch && ch->pos < ch->n)
		return &ch->it[ch->pos];
	pthread_mutex_lock(&c->mu);
	if (ch) {
		/* written: its bytes make room, the chunk is kept for reuse */
		c->queued -= ch->out.len;
		ch->next = c->spare;
		c->spare = ch;
		c->cur = NULL;
		pthread_cond_signal(&c->room);
	}
	ch = c->qh;
	if (ch) {
		__atomic_store_n(&c->qh, ch->next, __ATOMIC_RELEASE);
		if (!c->qh)
			c->qt = NULL;
		ch->next = NULL;
		c->cur = ch;
	}
	pthread_mutex_unlock(&c->mu);
	return ch ? &ch->it[ch->pos] : NULL;
}

static int thread_error(struct stream_cpu *s)
{
	int err = percpu_error(s->pc);

	if (err) {
		tp_error("cannot read the ring buffer: %s", strerror(err));
		errno = err;
		return -1;
	}
	return 0;
}

/* Write item it of best's chunk: 1 an event, 2 a lost line, -1. */
static int write_item(struct stream_cpu *s, struct scpu *best, const struct sitem *it,
		      struct output *out)
{
	struct chunk *ch = best->cur;
	int i;

	s->lastw = best - s->cpu;
	ch->pos++;
	if (it->kind == I_LOST)
		return output_write_line(out, ch->out.p + it->start, it->end - it->start) < 0 ? -1 : 2;
	if (it->kind == I_WHOLE)
		return output_write_line(out, ch->out.p + it->start, it->end - it->start) < 0 ? -1 : 1;
	for (i = 0; i < it->nnames; i++) {
		const struct sname *nm = &ch->nm[it->name0 + i];

		output_learn(out, nm->pid, ch->nb + nm->off, nm->len);
	}
	if (output_write_split(out, it->pid, it->ts, ch->out.p + it->start, it->hole - it->start,
			       it->end - it->start) < 0)
		return -1;
	return 1;
}

/*
 * After a poll found cpu's buffer empty: nothing its thread read is still
 * on its way (a look in progress may hold records taken from the buffer
 * but not yet handed over; one that ended since handed them over).
 */
/*
 * Something was handed over for d and not taken yet: a look without the
 * lock (the writer asks it per record of a many-CPU merge), what it finds
 * is taken under the lock (head()).
 */
static bool queued(struct scpu *d)
{
	return __atomic_load_n(&d->qh, __ATOMIC_ACQUIRE) != NULL;
}

static bool settled(struct scpu *d)
{
	return !__atomic_load_n(&d->looking, __ATOMIC_SEQ_CST) && !queued(d);
}

/*
 * May an item read under request need - 1 go out (best's, the oldest queued)?
 * Every other CPU with nothing queued must have been looked at since: by
 * its thread (answered), or by a poll of its own here that found it empty
 * (with buffer_percent 0 it polls readable as soon as it holds a record)
 * while its thread held nothing read from it (settled), which costs one
 * system call in place of a thread's wake-up.  0: it may; 1: wait, the
 * threads of those CPUs asked; 2: look again, an answer came with lines.
 */
static int blocked(struct stream_cpu *s, uint64_t need)
{
	uint64_t gen = 0;
	bool wait = false, again = false;
	int c, i, w, n = 0;

	/* the read CPUs with nothing taken: the empty set (best is not in it) */
	for (w = 0; w < s->nwords; w++) {
		uint64_t bits;

		for (bits = s->empty[w]; bits; bits &= bits - 1) {
			struct scpu *d = &s->cpu[(c = w * 64 + __builtin_ctzll(bits))];

			if (percpu_answered(s->pc, d->thread) >= need || d->clear >= need) {
				/*
				 * answered since head() found it empty: what the
				 * answer handed over (before it answered) goes first
				 */
				if (queued(d))
					again = true;
				continue;
			}
			s->pfd[n] = (struct pollfd){ .fd = s->fds[c], .events = POLLIN };
			s->pcpu[n++] = c;
		}
	}
	if (!n)
		goto done;
	if (s->probe) {
		/* what is read from now on has a later number than this look */
		gen = percpu_bump(s->pc);
		if (poll(s->pfd, n, 0) < 0)
			for (i = 0; i < n; i++)
				s->pfd[i].revents = POLLIN;
	}
	for (i = 0; i < n; i++) {
		struct scpu *d = &s->cpu[s->pcpu[i]];

		if (s->probe && !(s->pfd[i].revents & (POLLIN | POLLERR | POLLHUP | POLLNVAL)) &&
		    settled(d)) {
			d->clear = gen;
			continue;
		}
		wait = true;
		if (s->asked[d->thread] < need)
			s->asked[d->thread] = percpu_ask(s->pc, d->thread);
	}
done:
	__atomic_store_n(&s->blocked, wait, __ATOMIC_RELEASE);
	return wait ? 1 : again ? 2 : 0;
}

/* CPU c's oldest item, its key in the merge, and whether it is in the empty set */
static void rekey(struct stream_cpu *s, int c)
{
	struct scpu *d = &s->cpu[c];
	struct sitem *it = d->cur && d->cur->pos < d->cur->n ? &d->cur->it[d->cur->pos] : head(d);

	tourney_set(&s->tr, c, it ? it->ts : TOURNEY_NONE);
	if (it)
		s->empty[c / 64] &= ~(1ULL << (c % 64));
	else
		s->empty[c / 64] |= 1ULL << (c % 64);
}

int stream_cpu_next(struct stream_cpu *s, struct output *out)
{
	struct scpu *best = NULL, *run = s->run;
	struct sitem *it, *bit = NULL;
	unsigned long long next_ts = ~0ULL;
	int c, w, next_cpu = INT_MAX, best_cpu = -1;

	/* the run goes on: older than the others' oldest, read under the same request */
	if (run && run->cur && run->cur->pos < run->cur->n) {
		it = &run->cur->it[run->cur->pos];
		if ((s->finished || it->tag == s->run_tag) && (it->ts < s->run_ts ||
					      (it->ts == s->run_ts && run - s->cpu < s->run_cpu)))
			return write_item(s, run, it, out);
	}
again:
	/* the keys that may have moved: the CPU written last, the CPUs with none */
	if (s->lastw >= 0) {
		rekey(s, s->lastw);
		s->lastw = -1;
	}
	for (w = 0; w < s->nwords; w++) {
		uint64_t bits = s->empty[w];

		while (bits) {
			c = w * 64 + __builtin_ctzll(bits);
			bits &= bits - 1;
			if (s->cpu[c].cur || queued(&s->cpu[c]))
				rekey(s, c);
		}
	}
	s->run = NULL;
	best_cpu = tourney_best(&s->tr);
	best = best_cpu < 0 ? NULL : &s->cpu[best_cpu];
	bit = best ? &best->cur->it[best->cur->pos] : NULL;
	next_cpu = best ? tourney_second(&s->tr, best_cpu) : -1;
	next_ts = next_cpu < 0 ? ~0ULL : tourney_key(&s->tr, next_cpu);
	if (next_cpu < 0)
		next_cpu = INT_MAX;
	if (!best)
		return s->finished || !s->pc ? 0 : thread_error(s);
	if (!s->finished) {
		int b = blocked(s, bit->tag + 1);

		if (b == 2)
			goto again;
		if (b)
			return thread_error(s);
	}
	s->run = best;
	s->run_ts = next_ts;
	s->run_cpu = next_cpu;
	s->run_tag = bit->tag;
	return write_item(s, best, bit, out);
}

void stream_cpu_wait(struct stream_cpu *s, int timeout_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = s->wfd, .events = POLLIN },
		{ .fd = state_wake_fd(), .events = POLLIN },
	};
	struct timespec now;
	uint64_t v;
	long ms;

	if (s->finished)
		return;
	/*
	 * Waiting for an answer: its thread wakes us.  Else a look now and
	 * then takes what sits in partial sub-buffers.
	 */
	if (!__atomic_load_n(&s->blocked, __ATOMIC_ACQUIRE)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (now.tv_sec - s->ask_at.tv_sec) * 1000 +
		     (now.tv_nsec - s->ask_at.tv_nsec) / 1000000;
		if (ms >= ASK_MS) {
			uint64_t gen = percpu_ask(s->pc, -1);
			int i;

			for (i = 0; i < s->nth; i++)
				s->asked[i] = gen;
			s->ask_at = now;
			ms = 0;
		}
		if (timeout_ms < 0 || timeout_ms > ASK_MS - ms)
			timeout_ms = ASK_MS - ms > 1 ? ASK_MS - ms : 1;
	}
	if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, timeout_ms) > 0 && (pfd[0].revents & POLLIN) &&
	    read(s->wfd, &v, sizeof(v)) < 0)
		return;
}

int stream_cpu_finish(struct stream_cpu *s)
{
	int ret;

	if (s->finished)
		return 0;
	/* a thread that waits for room sees percpu_ending() at its next timed look */
	ret = percpu_finish(s->pc);
	s->pc = NULL;
	s->finished = true;
	live_page_counts(s->l, s->pages, s->lost_pages);
	if (ret < 0) {
		tp_error("cannot read the ring buffer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void stream_cpu_free(struct stream_cpu *s)
{
	int c, i;

	if (!s)
		return;
	__atomic_store_n(&s->stopping, 1, __ATOMIC_RELEASE);
	if (s->pc) {
		for (c = 0; c < s->ncpu; c++) {
			pthread_mutex_lock(&s->cpu[c].mu);
			pthread_cond_broadcast(&s->cpu[c].room);
			pthread_mutex_unlock(&s->cpu[c].mu);
		}
		/* stopped early (--count, a signal, a closed pipe): what is left stays there */
		percpu_abort(s->pc);
		live_page_counts(s->l, s->pages, s->lost_pages);
	}
	for (c = 0; s->cpu && c < s->ncpu; c++) {
		chunk_free(s->cpu[c].cur);
		chunk_free(s->cpu[c].qh);
		chunk_free(s->cpu[c].spare);
		pthread_mutex_destroy(&s->cpu[c].mu);
		pthread_cond_destroy(&s->cpu[c].room);
	}
	for (i = 0; s->th && i < s->nth; i++) {
		output_free(s->th[i].o);
		if (s->th[i].f)
			fclose(s->th[i].f);
	}
	if (s->wfd >= 0)
		close(s->wfd);
	free(s->th);
	free(s->asked);
	free(s->pfd);
	free(s->pcpu);
	free(s->empty);
	tourney_free(&s->tr);
	free(s->cpu);
	free(s->tcpu);
	free(s->fds);
	free(s);
}
