/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output - the one output layer for decoded records, shared by stream and
 * report: kernel-identical text lines (as the kernel's own `trace` file
 * prints them) or NDJSON as in docs/DESIGN.md section 2.  The only code that
 * writes records to stdout.
 */
#ifndef TPCTL_OUTPUT_H
#define TPCTL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "comm.h"

struct tep_handle;
struct tep_record;
struct output;

enum output_mode {
	OUTPUT_TEXT,
	OUTPUT_JSON,
};

struct output *output_new(struct tep_handle *tep, FILE *f, enum output_mode mode);
void output_free(struct output *o);

/*
 * Write one record (rec->cpu, rec->ts and rec->data must be set).  Returns
 * -1 when writing failed (errno set), 1 when rec was a stack record
 * (ftrace:kernel_stack or ftrace:user_stack: it belongs to the event before
 * it on its CPU, and is not an event of its own), else 0.
 */
int output_record(struct output *o, struct tep_record *rec);
/*
 * Strings of --strings events the kernel could not fetch, written so far as
 * "(fault)" or null; output_faults_report() says how many on stderr (unless
 * -q), nothing for 0.
 */
unsigned long long output_faults(struct output *o);
void output_faults_report(unsigned long long n);
/* Is rec a stack record (see output_record)? */
bool output_is_stack(struct output *o, const struct tep_record *rec);
/*
 * Lost events on cpu before the next record; count < 0 when the kernel
 * does not say how many.  Text: the kernel's own marker line; JSON: a
 * {"type":"lost",...} object (count null when unknown).
 */
int output_lost(struct output *o, int cpu, long long count);
/*
 * How a command tpctl ran ended (target.h).  JSON only, the last line:
 * {"type":"exit","pid":N,"status":N,"signal":null} for an exit status,
 * "status":null and "signal":N for a signal.  Text writes nothing: its
 * lines are the kernel's, the note on stderr says it.  Call it after the
 * last output_flush(), so that it follows every event.
 */
int output_exit(struct output *o, int pid, int status, int sig);
/*
 * A pair of latency --over as it closes: JSON {"type":"pair","start":S,
 * "end":E,"latency_ns":N,"events":[START's event, END's event]}; text a line
 * "5.213ms  S -> E" and the two events' lines.
 */
int output_pair(struct output *o, const char *start, const char *end, uint64_t ns,
		struct tep_record *srec, struct tep_record *erec);
/*
 * Write what is held (output_set_stacks) and flush f; returns -1 (errno set)
 * when a write failed (EPIPE, ENOSPC, ...).  At the end, and whenever
 * everything read so far must be out.
 */
int output_flush(struct output *o);
/*
 * Nothing more is ready now (a live reader before it waits): write what
 * can no longer get stacks, and flush f.  An event held for its stacks
 * comes out at the idle points 100 ms after the first one it waited through,
 * if its CPU's next record does not release it sooner.
 */
int output_idle(struct output *o);

/*
 * Records formatted in other threads (output_pool.h).  output_prepare(), on
 * the thread that has the records in their order: what a record's line
 * takes from that order: its event (loaded if new; NULL: unknown), the
 * names it teaches (JSON), and its task's columns as they are written now,
 * *cols and *len ("comm-pid " in text, ,"pid":N,"comm":... in JSON; valid
 * until the next call).  *special: the record's line depends on the records
 * around it (a stack, function or function_graph record): output_record()
 * it on this thread.  output_record_cols(): the record written with those
 * columns, on any thread that has an output of its own on the same tep
 * (output_set_file() gives it somewhere to write).
 */
struct dec_event;
struct dec_event *output_prepare(struct output *o, const struct tep_record *rec,
				 const char **cols, unsigned *len, bool *special);
int output_record_cols(struct output *o, struct dec_event *de, struct tep_record *rec,
		       const char *cols, unsigned len);
void output_set_file(struct output *o, FILE *f);

/*
 * Records formatted on their CPU's reader thread and merged by timestamp on
 * another (stream_cpu.h).  The reader's output: output_event() is rec's
 * event (its format loaded if new; NULL: unknown); output_record_cols(o,
 * de, rec, "", 0) writes the record without its task's columns and
 * output_hole() says where they belong, in bytes from the record's start
 * (UINT_MAX: its printer wrote them itself, a function tracer's record);
 * output_names() gives the names rec teaches (JSON, else none), at most
 * OUTPUT_NAMES, pointing into rec.  The writer's output, in the records'
 * order: output_learn() each of a record's names, then output_write_split()
 * writes the record's len bytes with its task's columns (as output_prepare()
 * gives them) at hole; output_write_line() writes a line made elsewhere
 * (a lost-events marker).  -1 (errno set) when writing failed.
 */
#define OUTPUT_NAMES 5
struct output_name {
	int pid;
	const char *name;
	size_t len;
};
struct dec_event *output_event(struct output *o, const struct tep_record *rec);
unsigned output_hole(const struct output *o);
int output_names(struct output *o, const struct dec_event *de, const struct tep_record *rec,
		 struct output_name *v);
void output_learn(struct output *o, int pid, const char *name, size_t len);
int output_write_split(struct output *o, int pid, unsigned long long ts, const char *line,
		       size_t hole, size_t len);
int output_write_line(struct output *o, const char *line, size_t len);

/*
 * Notes for every user (stream, report):
 *  - output_record() needs rec->size as well (dynamic fields are bounded by it).
 *  - Text is the kernel's `trace` line; for an event whose print fmt parsed,
 *    the print handler of a libtraceevent system plugin is dropped from the
 *    tep (those print trace-cmd's layout, not the kernel's); it stays where
 *    the print fmt failed to parse, and handlers of tpctl's own plugins
 *    (the plugin dir, as in tfs.c) always stay.  Formats parsed with decode_add_format() (decode.h)
 *    also print %pS/%ps/%p as the kernel does; formats parsed elsewhere
 *    (e.g. by libtracecmd) print them the libtraceevent way.
 *  - Records are written with buffered stdio: call output_flush() whenever
 *    nothing more is ready and at the end.
 *
 * Optional extensions; none is needed for a plain use:
 */
/* Called with an event id tep does not know yet; parse its format there (lazy loading). */
void output_set_loader(struct output *o,
		       int (*fn)(struct tep_handle *tep, int id, void *ctx), void *ctx);
/* Called (at most every 100 ms) when a pid has no comm yet: reload saved_cmdlines. */
void output_set_comm_loader(struct output *o, comm_load_fn fn, void *ctx);
/*
 * The kernel the records come from ("6.1.0-18-amd64"); the text follows
 * its version (flag letters, syscall argument forms).  Default: uname's.
 */
void output_set_kernel_release(struct output *o, const char *release);
/*
 * One field's value as report --json writes it (integer, string, array, or
 * null when it lies outside the record), for writers of other formats that
 * want the same rendering.
 */
struct dec_field;
void output_json_value(FILE *f, const struct dec_field *df, const void *data, int size);
/* false when the trace clock is a counter (x86-tsc, counter): raw stamps, no seconds. */
void output_set_ns_clock(struct output *o, bool ns);
/*
 * JSON with stacks: the kernel records a stack as ftrace:kernel_stack and
 * ftrace:user_stack records after the event, on its CPU; with hold, each
 * event waits for them and carries them as "stack" and "user_stack" members
 * (docs/DESIGN.md section 2).  Without hold (the default: no cost per event), a
 * stack record is written as an event of its own with those members.  Text
 * prints stack records as the kernel does either way.  -1: out of memory.
 */
int output_set_stacks(struct output *o, bool hold);
/*
 * JSON: names for user stack frames ("sym", "off" and "obj" of the frame),
 * e.g. usym_lookup() (usym.h) for a live stream; NULL: addresses only.
 */
typedef const char *(*output_usym_fn)(void *ctx, int tgid, uint64_t addr, bool ret,
				      unsigned long long *off, const char **obj);
void output_set_user_symbols(struct output *o, output_usym_fn fn, void *ctx);

/*
 * count and hist tables (agg.h), the other kind of output: text tables
 * sorted by count, hist buckets as bars ("[4K, 8K)   3000 |@@@@...|"), or
 * one JSON document per table (docs/DESIGN.md section 2):
 *   {"type":"count","ts_ns":N,"interval_ns":N,"by":[...],"rows":[{"key":{...},
 *    "count":N}],"lost":N}
 *   {"type":"hist","ts_ns":N,"interval_ns":N,"field":"F","by":[...],"groups":[{"key":{...},
 *    "count":N,"sum":N,"min":N,"max":N,"buckets":[{"min":N,"max":N,"count":N}]}],"lost":N}
 */
struct agg_table;

struct output_agg {
	bool hist;
	const char *field;		/* hist: the field whose values are counted */
	const char *start, *end;	/* latency: the two ends of the pairs (else NULL) */
	unsigned long long ts_ns;	/* JSON: when the table was taken (CLOCK_REALTIME) */
	unsigned long long interval_ns;	/* JSON: the time it covers */
	const char *title;		/* text: a line above the table, or NULL */
	bool clear;			/* text: clear the terminal first (a screen redrawn in place) */
};

/* Write one table to f; -1 (errno set) when writing failed. */
int output_agg(FILE *f, enum output_mode mode, const struct agg_table *t,
	       const struct output_agg *o);
/*
 * The title of a table of --interval: "HH:MM:SS (0.50 s)" (now, local time),
 * "totals (...)" for the whole run's, ", N events lost" within the brackets
 * when lost.
 */
void output_agg_title(char *buf, size_t size, bool totals, double secs, unsigned long long lost);

/*
 * The table of `tpctl latency sched`, as schedlat.c makes it (sched_table()):
 * a row per task, in sort order.
 */
struct sched_task {
	int pid;
	const char *comm;		/* the last name seen; NULL when none */
	uint64_t runtime_ns;
	uint64_t switches;
	uint64_t avg_delay_ns;		/* total delay / switches, rounded down */
	uint64_t max_delay_ns;
	uint64_t max_delay_ts_ns;	/* when the longest delay began (record timestamp) */
	uint64_t max_delay_end_ns;	/* and ended (0 and 0 when every delay was 0) */
	uint64_t total_delay_ns;
};

struct sched_table {
	size_t n;
	struct sched_task *tasks;	/* in sort order */
	uint64_t runtime_ns;		/* all tasks': perf's TOTAL line */
	uint64_t switches;
};

/*
 * The table of `tpctl latency sched` (schedlat.h): text as perf sched latency
 * -p lays it out (times in ms, "comm:pid", a TOTAL line), or one document
 *   {"type":"sched","tasks":[{"pid":N,"comm":"cat","runtime_ns":N,"switches":N,
 *    "avg_delay_ns":N,"max_delay_ns":N,"max_delay_ts_ns":N}]}
 * ns_clock false: the timestamps are a counter's, printed raw in the text.
 * -1 (errno set) when writing failed.
 */
int output_sched(FILE *f, enum output_mode mode, const struct sched_table *t, bool ns_clock);

#endif
