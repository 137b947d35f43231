/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live - the session every live command opens: stream, record, count, hist,
 * latency and serve describe what they trace in a struct live_spec, open it
 * with one call and close it with one.  The session owns all the rest:
 *
 *   - the events: patterns resolved and checked, formats loaded (lazily for
 *     ids seen later), the filter checked against each before anything is
 *     created;
 *   - the private instance tpctl-<pid> (or the -i instance, read as it is),
 *     its buffer size, stacks, filters and enables, every write journaled
 *     (state.h), so that every exit path and INT/TERM/HUP put tracefs back;
 *   - the target (target.h): COMMAND forked before anything is enabled,
 *     the pid lists, COMMAND released at live_start(), finished at the end;
 *   - the readers: per-CPU raw readers merged by timestamp (reader.h), or the
 *     per-CPU trace_pipe_raw files for a command that moves whole pages
 *     (record), or none (the kernel engine of the aggregations);
 *   - the decoder: a tep_handle with the kernel's header_page, plugins and
 *     the names the kernel's text needs when text is wanted (BTF enum
 *     constants, printk_formats strings, jiffies), saved_cmdlines for comm;
 *   - the loss accounting (per-CPU overrun and dropped, pages marked lost);
 *   - or, with an input file, a trace.dat read through libtracecmd instead
 *     of the kernel: the records come out of live_next() the same way, so a
 *     command cannot tell a recording from the live kernel except by where
 *     the timestamps come from.
 *
 * A command then holds only what is its own: its options, what it does with
 * each record, and its output.
 *
 *	struct live_spec spec = { .events = argv, .nevents = n, .target = &tgt, ... };
 *	struct live *l;
 *
 *	ret = live_open(&l, &spec);		errors printed; nothing left on failure
 *	...the command's own set-up (output, aggregation)...
 *	if (!ret)
 *		ret = live_start(l);		COMMAND runs, events count from here
 *	if (!ret)
 *		ret = live_run(l, &tool);	the command's callbacks (struct live_tool)
 *	live_finish(l, &tool);			tracing off, what is buffered is read
 *	...
 *	ret = live_close(l, ret);		the only teardown
 */
#ifndef TPCTL_LIVE_H
#define TPCTL_LIVE_H

#include <stdbool.h>
#include <sys/types.h>

#include "comm.h"
#include "readq.h"
#include "reader.h"

struct tep_handle;
struct tep_record;
struct tracefs_cpu;
struct tracefs_instance;
struct tfs_event_list;
struct target;
struct live;
struct ftr_spec;

enum {
	LIVE_PROMPT = 1 << 0,	/* wake the reader on every record, not at half a buffer */
	LIVE_KSTACK = 1 << 1,	/* the kernel stack of every event */
	LIVE_USTACK = 1 << 2,	/* the user stack of every event */
	LIVE_TEXT = 1 << 3,	/* decode for the kernel's text: plugins and names */
	LIVE_PAGES = 1 << 4,	/* no decoding reader: the command moves whole pages (record) */
	LIVE_NOREAD = 1 << 5,	/* nothing is read: tracing_on stays 0 (hist triggers) */
	LIVE_HOLD = 1 << 6,	/* tracing_on 0 until live_start(): every event over one window */
	LIVE_EARLY_STOP = 1 << 7, /* INT/TERM/HUP only set state_stop from live_open() on */
	/*
	 * The events that name tasks (sched_process_fork, sched_process_exec,
	 * task_rename) enabled too in the private instance, unfiltered, where
	 * the kernel has them: their records come out of live_next() for the
	 * command to learn names at the event's time from (agg_task.c), not to
	 * show or count unless they are among its EVENTs.
	 */
	LIVE_NAMES = 1 << 8,
	/*
	 * LIVE_PAGES where every record's line stands on its own (stream's
	 * reader threads): not where the instance records stacks or runs a
	 * tracer (their lines join records); there the decoding reader.
	 * live_page_ncpus() > 0 says which was opened.
	 */
	LIVE_PAGES_PLAIN = 1 << 9,
};

struct live_spec {
	char **events;		/* EVENT patterns; none: what the -i instance has enabled */
	int nevents;
	const char *filter;	/* for every event (NULL: none); not written with LIVE_NOREAD */
	const char *buffer_kb;	/* per-CPU buffer of the private instance (NULL: default) */
	const char *cpus;	/* a CPU list: only these are read (NULL: every CPU there is) */
	struct target *target;	/* the command's, parsed and checked by live_open() */
	char **probes;		/* probes made for this run (tpctl-probe(1) SPECs) */
	int nprobes;
	const struct ftr_spec *ftrace;	/* --function, --graph (ftr.h); NULL: none */
	bool strings;		/* syscall string arguments fetched by the kernel (strargs.h) */
	const char *input;	/* a trace.dat to read instead of the kernel (NULL: live) */
	unsigned flags;
	/*
	 * Called once the events are resolved and their formats loaded, before
	 * anything is created: the command checks its keys and fields against
	 * them.  TP_OK, an exit status after its error line, or -1 as for arm.
	 */
	int (*check)(struct live *l, void *ctx);
	/*
	 * Called once the private instance exists with tracing_on 0, before the
	 * target's processes are listed and any event is enabled: the kernel
	 * engine starts its paused hist triggers here.  TP_OK, TP_USAGE or
	 * TP_FAIL (live_open() fails with it), or -1: give up quietly, live_open()
	 * puts back what it did and returns -1 (the caller may open another way).
	 */
	int (*arm)(struct live *l, void *ctx);
	void *ctx;
};

/*
 * Everything up to tracing: TP_OK, or the exit status after one error line
 * (TP_USAGE for what the user can correct, TP_FAIL) with nothing left
 * changed and *lp NULL; -1 when spec->arm gave up.  The target is checked
 * here, so a command need not call target_check().
 */
int live_open(struct live **lp, const struct live_spec *spec);

/* Tracing starts for good: INT/TERM/HUP only stop the loop, tracing_on 1, COMMAND runs. */
int live_start(struct live *l);

/*
 * The next record in timestamp order (valid until the next call), see
 * reader_next(): 1, 0 when none is ready, -1 on a read error after printing
 * it.  *lost: events the ring buffer says were missed on rec->cpu before it.
 */
int live_next_input(struct live *l, struct tep_record *rec, long long *lost);
void live_read_failed(void);
/* struct live's first member: what live_next() needs, inline on every record's path */
struct tracecmd_input;
struct readq;
struct live_head {
	struct reader *rd;		/* the ring buffers' merge */
	struct readq *q;		/* or its thread (live_read_thread()) */
	struct tracecmd_input *in;	/* or the input file */
};
static inline int live_next(struct live *l, struct tep_record *rec, long long *lost)
{
	const struct live_head *h = (const struct live_head *)l;
	int r;

	if (h->in)
		return live_next_input(l, rec, lost);
	r = h->q ? readq_next(h->q, rec, lost) : reader_next(h->rd, rec, lost);
	if (r < 0)
		live_read_failed();
	return r;
}
/* Wait for data, at most timeout_ms (signals and COMMAND's exit end it sooner). */
void live_wait(struct live *l, int timeout_ms);
/* The target is gone (or an input file is at its end): nothing more will come. */
bool live_done(struct live *l);
/*
 * Stop tracing: from now on live_next() hands out what is left in the
 * buffers, partial pages too, and live_eof() says when that is done.
 */
void live_drain(struct live *l);
bool live_eof(struct live *l);

/*
 * The session loop, as perf's struct perf_tool: it owns the reading, the
 * waits, the ticks, --duration, the target's end and the signals, and
 * calls what a command gives it.  Callbacks return LIVE_GO (go on;
 * record: any value >= 0, so that it may return what its printer does),
 * LIVE_STOP (the loop ends, the command is done) or LIVE_FAIL (it ends,
 * failed; the command said why).
 *
 *	struct live_tool tool = { .record = my_record, .ctx = me, .duration = d };
 *
 *	ret = live_start(l);
 *	if (!ret)
 *		ret = live_run(l, &tool);	until the target, --duration or a signal ends it
 *	if (!ret)
 *		ret = live_finish(l, &tool);	tracing off, what is buffered read
 *
 * The records: every one ready goes to record(); when none is, idle(), then
 * a wait of at most wait_ms (shorter where a tick or --duration comes
 * sooner).  Every LIVE_LOOK records, and whenever none is ready, the loop
 * looks at the clock (ticks, --duration), the target and check().  Once the
 * target is gone, tracing stops (live_drain) and the loop reads on until
 * the buffers are empty; there are no ticks then.
 */
enum { LIVE_FAIL = -2, LIVE_STOP = -1, LIVE_GO = 0, LIVE_WAIT = 1 };
#define LIVE_LOOK 1024

enum {
	/* stop once what is buffered is read: tracing off from the start (stream --drain) */
	LIVE_RUN_DRAIN = 1 << 0,
	/*
	 * Nothing is read on this thread (the kernel engine, the command's own
	 * reader threads that keep nothing for it): the loop only waits, for
	 * the target's end (which ends it), --duration, the ticks and check().
	 */
	LIVE_RUN_NOREAD = 1 << 1,
};

struct live_tool {
	/* a record, valid until it returns; lost: events missed before it on rec->cpu */
	int (*record)(void *ctx, struct tep_record *rec, long long lost);
	/*
	 * None is ready (draining says tracing is off): LIVE_GO, then the loop
	 * waits *ms at most (it may shorten it); LIVE_WAIT: wait *ms and
	 * nothing else (the target is not looked at); LIVE_STOP; LIVE_FAIL.
	 */
	int (*idle)(void *ctx, bool draining, int *ms);
	/* every interval seconds from the start (now: the monotonic clock, tp_now_s) */
	int (*tick)(void *ctx, double now);
	/* at each look at the clock: the command's own housekeeping and errors */
	int (*check)(void *ctx);
	/*
	 * The command's own reader threads instead of live_next() and record()
	 * (stream --threads): LIVE_GO a record went out, LIVE_WAIT none is
	 * ready (after drain(): none is left), LIVE_STOP, LIVE_FAIL; wait() in
	 * place of live_wait(); drain() once tracing is off (target gone).
	 */
	int (*pump)(void *ctx);
	void (*wait)(void *ctx, int ms);
	int (*drain)(void *ctx);
	void *ctx;
	double start;		/* when the run began (tp_now_s; 0: live_run()'s call) */
	double duration;	/* seconds, 0: no end of its own */
	double interval;	/* tick()'s, seconds; 0: none */
	int wait_ms;		/* the longest wait (0: 50 ms) */
	unsigned flags;		/* LIVE_RUN_* */
};

/* Run until the target's end, --duration, a signal or a callback ends it: TP_OK or the status. */
int live_run(struct live *l, const struct live_tool *t);
/* Tracing off, and what the buffers hold read through t->record: TP_OK or the status. */
int live_finish(struct live *l, const struct live_tool *t);
/*
 * The records ready now, at most max of them, through t->record, without
 * waiting: how many, or < 0 (a read error, or record's LIVE_FAIL).
 */
long live_read_ready(struct live *l, const struct live_tool *t, unsigned long max);

/*
 * A write to stdout failed with err after the run: EPIPE (| head) is a
 * normal end, anything else one error line and TP_FAIL; what stdio still
 * holds is dropped either way.  Returns ret or TP_FAIL.
 */
int live_stdout_failed(int err, int ret);

/*
 * Events lost since the last call: overwritten and dropped by the ring
 * buffers (the kernel's per-CPU stats), or missed in an input file.
 */
unsigned long long live_lost(struct live *l);
/*
 * Stream's account on stderr at the end: per-CPU overrun/dropped and pages
 * that said events were missed.  True when anything was lost; printed unless
 * -q, or always with force.
 */
bool live_loss_report(struct live *l, bool force);
/*
 * The warning of lost events at a table's end (count, hist, latency), with
 * the option that keeps them: "N events lost: the ring buffer overflowed
 * before they were read (a larger --buffer-kb keeps them)".
 */
void live_warn_lost(unsigned long long lost);

/* COMMAND's process and how it ended, finishing it first (see target.h); false: none. */
bool live_target_exit(struct live *l, int *pid, int *status, int *sig);

/*
 * The only teardown: COMMAND ended (and reported when ret is TP_OK), the
 * readers closed, the journal rolled back (instance, probes, pid lists),
 * everything freed.  Returns ret.  NULL is fine.
 */
int live_close(struct live *l, int ret);

/* What the command reads the records with. */
struct tep_handle *live_tep(struct live *l);
const struct tfs_event_list *live_events(struct live *l);
/*
 * --strings traces a probe in place of each syscall event with string
 * arguments (strargs.h): the events as the command named them, and the one
 * traced for such an event (itself for every other).
 */
const struct tfs_event_list *live_events_named(struct live *l);
struct tfs_event;
const struct tfs_event *live_traced(struct live *l, const struct tfs_event *named);
struct tracefs_instance *live_instance(struct live *l);	/* NULL with an input file */
/* The session reads the top level (function_graph on a kernel without it in instances). */
bool live_top(struct live *l);
/* The format file text of an event (the kernel's, or the recording's); caller frees. */
char *live_format_text(struct live *l, const char *sys, const char *name, int *size);
/* The timestamps count nanoseconds (not a raw counter clock). */
bool live_clock_ns(struct live *l);
/* The instance records stacks (asked for, or already on in the -i instance). */
bool live_stacks(struct live *l);
/*
 * Its buffer_percent is 0 (LIVE_PROMPT, the session's own instance): a
 * CPU's trace_pipe_raw polls readable as soon as it holds a record.
 */
bool live_prompt(struct live *l);

/*
 * For the output layer and the aggregations: parse the format of an event id
 * seen for the first time (ctx: the session), and read saved_cmdlines again
 * when a pid has no name yet (ctx: the session).
 */
int live_load_id(struct tep_handle *tep, int id, void *ctx);
int live_reload_comms(void *ctx, comm_line_fn fn, void *fctx);

/*
 * A filter applied by tpctl (libtraceevent's) instead of the kernel: expr on
 * every event of evs, as "system/event:expr".  TP_OK, or the status after one
 * error line; *filter is the caller's to free (tep_filter_free) either way.
 */
struct tep_event_filter;
int live_filter_new(struct tep_handle *tep, const struct tfs_event_list *evs, const char *expr,
		    struct tep_event_filter **filter);

/* The CPUs whose buffers may be read (tfs_ncpus()): the highest CPU number + 1. */
int live_ncpus(struct live *l);
/* LIVE_PAGES: the per-CPU trace_pipe_raw readers (NULL for a CPU that is not there). */
int live_page_ncpus(struct live *l);
int live_page_size(struct live *l);
/* Sub-buffers of one CPU's ring buffer (0: not known). */
int live_page_count(struct live *l);
struct tracefs_cpu *live_page_cpu(struct live *l, int cpu);
int live_page_fd(struct live *l, int cpu);
/*
 * The records of the whole sub-buffers in buf (len bytes of cpu's ring
 * buffer, as a reader thread of percpu.h moved them), each to fn: rec is
 * valid until it returns, lost is what the sub-buffers before it said was
 * missed (the first record after them gets it).  A record of fewer than 8
 * bytes is padding, a sub-buffer that is not sane none: passed over.  0, or
 * fn's < 0.  *pages and *lost_pages count the sub-buffers read and those
 * that said events were missed; *lost is a loss no record got yet.  Inline,
 * so that fn is called directly.
 */
struct live_page_read {
	unsigned long long pages, lost_pages;
	long long lost;
};
static inline int live_page_records(struct rbpage *pg, int cpu, const char *buf, size_t len,
				    int subbuf, int (*fn)(void *ctx, struct tep_record *rec,
							  long long lost),
				    void *ctx, struct live_page_read *rd)
{
	struct tep_record rec;
	unsigned long long ts;
	long long lost = 0;
	const char *page;
	void *data;
	size_t off;

	memset(&rec, 0, sizeof(rec));
	rec.cpu = cpu;
	for (off = 0; off + subbuf <= len; off += subbuf) {
		page = buf + off;
		if (!rbpage_sane(page, subbuf))
			continue;
		rd->pages++;
		data = rbpage_load(pg, page, subbuf, &ts);
		if (pg->lost) {
			rd->lost_pages++;
			lost = pg->lost;
		}
		for (; data; data = rbpage_step(pg, &ts)) {
			rec.ts = ts;
			rec.data = data;
			rec.size = rbpage_size_within(pg, data, page + subbuf);
			if (rec.size < 8)
				continue;
			if (fn(ctx, &rec, lost) < 0)
				return -1;
			lost = 0;
		}
	}
	rd->lost = lost;
	return 0;
}
/* LIVE_PAGES read by the command's decoding threads: sub-buffers read, and those marked lost. */
void live_page_counts(struct live *l, unsigned long long pages, unsigned long long lost_pages);
/*
 * tpctl's own threads (the readers of percpu.h) are not traced: their task
 * ids join the private instance's set_event_notrace_pid, as the main
 * thread's did.  TP_OK or the status after one error line.
 */
int live_hide_tasks(struct live *l, const pid_t *tids, int n);
/*
 * The ring buffers are read and merged on a thread of their own (readq.h),
 * hidden as above; live_next() takes its records.  when_it_pays: only
 * where LIVE_READ_THREAD_CPUS or more CPUs are read and tpctl may run on as
 * many (fewer: the merge is cheap, or the two threads would share a CPU).
 * TP_OK (also when nothing was started: an input file, or it would not
 * pay), or the status after one error line.
 */
#define LIVE_READ_THREAD_CPUS 4
int live_read_thread(struct live *l, bool when_it_pays);
/*
 * The reading thread ends (what it still holds is dropped) and live_next()
 * reads on this thread again; call it before leaving graceful mode, so that
 * a rollback never finds the thread in the instance's files.  Nothing
 * without one.  live_loss_report() and live_close() end it too.
 */
void live_stop_reading(struct live *l);

#endif
