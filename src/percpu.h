/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * percpu - reader threads, each serving its own CPUs' ring buffers.
 *
 * A thread waits on its CPUs' per_cpu/cpuN/trace_pipe_raw alone (poll(),
 * woken at the instance's buffer_percent, which the session sets to 10) and
 * drains whole sub-buffers as they fill; what can be done per CPU is done
 * there by the caller's callbacks, so that a busy CPU never waits for
 * another CPU's work:
 *
 *   - move: the sub-buffers are spliced into the CPU's file descriptor
 *     (record, version 6), idle(cpu) called after each look (the commit);
 *   - pages: the sub-buffers are read into memory (through a pipe, many per
 *     call) and handed to pages(cpu, ...) (record version 7 compresses them,
 *     count/hist aggregate their records).
 *
 * The callbacks run in the thread that serves the CPU, one at a time per
 * thread: what a callback touches must belong to that CPU (or that thread),
 * or be locked.  Every signal is blocked in the threads: INT/TERM/HUP and
 * COMMAND's SIGCHLD still go to the main thread.
 *
 *	struct percpu_spec s = { .ncpus = n, .tcpu = ..., .fd = ..., .pages = fn, ... };
 *	percpu_start(&p, &s);		threads running; percpu_tids() for the notrace list
 *	...	percpu_sync(p);		every thread has taken all there is now (partial too)
 *	tracing off
 *	ret = percpu_finish(p);		the last partial sub-buffers, threads joined, freed
 */
#ifndef TPCTL_PERCPU_H
#define TPCTL_PERCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tracefs_cpu;
struct percpu;

/* --buffer-kb N of count and hist: the user engine's ring buffers */
#define BUFFER_KB_OPT(v)							\
	OPT_UINT('b', "buffer-kb", (v), "N", 1, 1ULL << 30,			\
		 "per-CPU ring buffer of the private instance, in KiB\n"		\
		 "(the user engine's)")

/* --threads N, declared once for every command that reads with these threads. */
#define THREADS_OPT(v)								\
	OPT_UINT(0, "threads", (v), "N", 1, 4096,				\
		 "reader threads, each serving its share of the traced CPUs\n"	\
		 "(default: one per CPU)")

struct percpu_spec {
	int ncpus;			/* CPUs 0..ncpus-1; those with no tcpu are skipped */
	struct tracefs_cpu *const *tcpu;	/* per CPU (non-blocking), or NULL */
	const int *fd;			/* per CPU: its trace_pipe_raw descriptor */
	int subbuf;			/* bytes per sub-buffer */
	int nthreads;			/* 0: one per CPU read */
	int timeout_ms;			/* poll timeout: idle(cpu) is called at least this often */
	/*
	 * sub-buffers of a CPU's ring buffer (0: not known): an asked or
	 * final look takes at most about twice this many, so that it ends on
	 * a CPU whose writer never stops
	 */
	int ring_subbufs;
	/* move: the descriptor a CPU's whole sub-buffers are spliced to, -1: use pages */
	int (*move_fd)(void *ctx, int cpu);
	/*
	 * pages: len bytes of whole sub-buffers of cpu (a short last one
	 * zero-padded to the sub-buffer size).  0, or -1 with errno set: the
	 * thread stops and percpu_error() says why.
	 */
	int (*pages)(void *ctx, int thread, int cpu, const void *buf, size_t len);
	/*
	 * After each look at cpu (moved: something came); final: the last one.
	 * 0 or -1 with errno set as for pages.
	 */
	int (*idle)(void *ctx, int thread, int cpu, bool moved, bool final);
	/*
	 * Around each look at cpu (start true before anything is read, false
	 * once all it read was handed to pages), or NULL.
	 */
	void (*looking)(void *ctx, int cpu, bool start);
	/* A thread has answered a request (percpu_ask, percpu_sync), or NULL. */
	void (*answered)(void *ctx, int thread);
	void *ctx;
};

/* Start the threads (*pp is set before the first callback): TP_OK, or TP_FAIL after the error line. */
int percpu_start(struct percpu **pp, const struct percpu_spec *spec);
/* The threads, and each one's task id (for set_event_notrace_pid). */
int percpu_nthreads(const struct percpu *p);
const pid_t *percpu_tids(const struct percpu *p);
/* Every thread takes what its CPUs hold now, partial sub-buffers too; returns when done. */
void percpu_sync(struct percpu *p);
/*
 * Tracing is off: each thread takes what is left (the last partial
 * sub-buffers included), then ends.  Returns 0, or -1 with errno set by the
 * first callback or read that failed.  Frees p; NULL is fine.
 */
int percpu_finish(struct percpu *p);
/*
 * The same, but the last looks end at deadline (tp_now_s()'s clock; 0:
 * never): what the buffers hold then stays there, unread (its stats'
 * "entries").  For an end that must be quick (a signal).
 */
int percpu_finish_by(struct percpu *p, double deadline);
/*
 * Without waiting: ask a thread (-1: every thread) for a pass that takes
 * everything its CPUs held when asked (partial sub-buffers too), and
 * return the request's number; numbers grow with each request, whichever
 * thread it is made of.  percpu_asked(): the number of the last request
 * (read by a callback before it delivers: what it delivers was read before
 * any later request).  percpu_bump(): a new number without asking anyone
 * (a caller that looks for itself).  percpu_answered(): the last request
 * the thread has answered, every look of that pass done; percpu_wanted():
 * it has one to answer.  percpu_ending(): percpu_finish() or percpu_abort()
 * has begun (a callback that waits for the caller must not).
 * percpu_thread_of(): the thread that serves cpu, or -1.
 */
uint64_t percpu_ask(struct percpu *p, int thread);
uint64_t percpu_asked(const struct percpu *p);
uint64_t percpu_bump(struct percpu *p);
uint64_t percpu_answered(const struct percpu *p, int thread);
bool percpu_wanted(const struct percpu *p, int thread);
bool percpu_ending(const struct percpu *p);
int percpu_thread_of(const struct percpu *p, int cpu);
/* A thread failed (errno value), or 0. */
int percpu_error(struct percpu *p);
/* The threads end without a last look (what is left stays in the buffers); frees p, NULL is fine. */
void percpu_abort(struct percpu *p);
#endif
