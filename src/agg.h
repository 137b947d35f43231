/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * agg - the aggregation behind `tpctl count` and `tpctl hist`.
 *
 * One row model: a key tuple (the --by keys, plus the bucket of the value
 * for hist) -> count, sum, min and max of the value.  Two engines fill it:
 *  - the user engine, from decoded per-CPU records (agg_record): the keys
 *    and the value are read straight from the record, no text or JSON is
 *    made per event;
 *  - the kernel engine, from the `hist` file of a hist trigger
 *    (agg_kernel_update): the trigger is keyed by the exact values (the
 *    value of hist among them), so its rows go through the same bucketing
 *    and give the same answer as the user engine.
 * Rows are kept per interval and in total.  agg_snapshot() turns them into
 * what the output layer prints (struct agg_table): raw keys resolved to
 * what a reader wants (event names, task names, kernel symbols where the
 * event's format prints them so), rows with equal keys merged, sorted by
 * count.  Nothing here touches tracefs.
 */
#ifndef TPCTL_AGG_H
#define TPCTL_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comm.h"

struct tep_handle;
struct tep_record;
struct tracefs_hist;

#define AGG_MAX_KEYS 8

enum agg_key_kind {
	AGG_KEY_EVENT,		/* "system:event" */
	AGG_KEY_COMM,		/* the task's name */
	AGG_KEY_PID,		/* the task's pid (common_pid: the thread) */
	AGG_KEY_CPU,		/* the CPU the event happened on */
	AGG_KEY_STACK,		/* the kernel stack */
	AGG_KEY_FIELD,		/* a field of the event */
};

enum agg_scale {
	AGG_SCALE_NONE,		/* count: no value */
	AGG_SCALE_LOG2,		/* [0], [1], [2, 4), [4, 8), ... */
	AGG_SCALE_LINEAR,	/* [0, step), [step, 2 * step), ... */
	AGG_SCALE_LIST,		/* --buckets: [min, b0], (b0, b1], ..., (bN-1, max] */
};

/* --buckets: at most this many bounds */
#define AGG_BOUNDS_MAX 64

/*
 * latency: rows of START/END pairs instead of events.  A START is remembered
 * under the values of its match fields; the first END with the same values
 * closes it, and the pair counts with END.ts - START.ts (ns) as its value.
 * A recipe may have several START or END events (wakeup: a wakeup, or a
 * switch out while still runnable); one event may be both (sched_switch:
 * the END of next_pid, then the START of prev_pid).
 */
#define AGG_SIDES_MAX 4
#define AGG_ALSO_MAX 3
#define AGG_MATCH_MAX 3

enum agg_cond {
	AGG_COND_NONE,
	AGG_COND_RUNNABLE,	/* sched_switch's prev_state says the task could still run */
	AGG_COND_STATE,		/* prev_state is one of agg_join.state's */
};

struct agg_side {
	const char *event;			/* "system:event" */
	bool end;				/* an END (else a START) */
	const char *match[AGG_MATCH_MAX];	/* the number fields that pair it */
	int nmatch;
	const char *pid;			/* the task the pair is of (NULL: common_pid) */
	const char *comm;			/* that task's name in the record (NULL: none) */
	enum agg_cond cond;			/* a START only when it holds */
};

struct agg_join {
	struct agg_side side[AGG_SIDES_MAX];
	int nside;
	const char *start, *end;	/* how the output names the two ends */
	bool per_cpu;			/* a START pairs only with an END on its CPU */
	bool skip_idle;			/* pairs of pid 0 (the idle task) do not count */
	bool end_owns;			/* comm and pid are the END's task (else the START's) */
	size_t max_open;		/* STARTs kept waiting; the oldest go first (0: default) */
	/*
	 * AGG_COND_STATE: the states kept, letters as sched_switch's text shows
	 * prev_state ("S,D"; R: could still run), each a letter of its print fmt
	 */
	const char *state;
	/*
	 * START and END are one event (sched_switch) whose END fields are the
	 * START's of the other task: a record of a task whose last recorded
	 * switch was out shows a switch in the kernel did not record, and its
	 * pair ends where oncpu.h places that switch (agg_join.c, agg_inferred())
	 */
	bool infer_in;
	/* traced only to place such a switch: wakeups (woken: the task's field), exits */
	struct agg_also {
		const char *event;
		const char *woken;	/* the field of the task woken; NULL: not a wakeup */
	} also[AGG_ALSO_MAX];
};

struct agg_spec {
	int nkeys;
	enum agg_key_kind kind[AGG_MAX_KEYS];
	const char *name[AGG_MAX_KEYS];		/* as given: "comm", "call_site", "fields.pid" */
	const char *field[AGG_MAX_KEYS];	/* AGG_KEY_FIELD: the field's name */
	const char *value;			/* hist: the field whose values are counted */
	enum agg_scale scale;
	uint64_t step;				/* AGG_SCALE_LINEAR */
	int64_t bounds[AGG_BOUNDS_MAX];		/* AGG_SCALE_LIST: ascending, each a bucket's top */
	int nbounds;
	const struct agg_join *join;		/* latency: pairs, the value their time */
	char *text;				/* private: the names point into it */
};

/*
 * Parse "--by comm,pid,call_site" (NULL: "event") into spec.  Names: event,
 * comm, pid, cpu, stack, or a field of the events; "fields.NAME" is the
 * field NAME even where NAME is one of the others.  Prints the error
 * (empty or repeated key, too many): TP_USAGE.
 */
int agg_spec_keys(struct agg_spec *spec, const char *by);
void agg_spec_release(struct agg_spec *spec);
/*
 * Parse "--buckets 10us,100us,1ms" (dur: durations, kept in ns) or "0,10,100"
 * (integers) into spec's bounds, scale AGG_SCALE_LIST: each value counts in
 * the first bucket whose bound it does not pass (Prometheus' le).  Strictly
 * ascending, at most AGG_BOUNDS_MAX.  Prints the error: TP_USAGE.
 */
int agg_spec_bounds(struct agg_spec *spec, const char *list, bool dur);

struct agg;
/* tep: the formats of the events (agg_add_event); it resolves comm from its cmdlines. */
struct agg *agg_new(const struct agg_spec *spec, struct tep_handle *tep);
void agg_free(struct agg *a);

/*
 * Aggregate the event sys:name (its format parsed into tep), whose format
 * file text is fmt (for the fields its print fmt shows as kernel symbols).
 * Checks that every key and the value field exist and can be used: prints
 * the error naming them, TP_USAGE.
 */
int agg_add_event(struct agg *a, const char *sys, const char *name, const char *fmt,
		  size_t fmtlen);
int agg_nevents(const struct agg *a);
/*
 * Every event is added: what needs all of them is checked (a latency's
 * sides, keys and match fields).  Prints the error; TP_USAGE.
 */
int agg_ready(struct agg *a);
/*
 * latency --over: fn gets both records of every pair longer than over_ns as
 * it closes (the START's record is kept while it waits, only then).
 */
typedef void (*agg_pair_fn)(void *ctx, struct tep_record *start, struct tep_record *end,
			    uint64_t ns);
void agg_set_pair_fn(struct agg *a, uint64_t over_ns, agg_pair_fn fn, void *ctx);

/*
 * A live trace: the user engine learns a task's name from /proc/PID/comm
 * when it first counts it (then from the records that rename it: a comm key
 * is the name at the event's time), and fn is called when a pid has no name
 * in tep's cmdlines yet (at most once per snapshot).  Without it names come
 * from the records and tep.
 */
void agg_set_comm_loader(struct agg *a, comm_load_fn fn, void *ctx);

/*
 * User engine: one record (rec->data, rec->size and rec->cpu set); others'
 * records are ignored.  With a stack key, an event waits for the
 * ftrace:kernel_stack record the kernel writes after it on its CPU (its
 * format must be in tep before agg_add_event); agg_flush() counts the events
 * still waiting, with no stack, at the end.
 */
void agg_record(struct agg *a, const struct tep_record *rec);
void agg_flush(struct agg *a);

/*
 * Kernel engine.  agg_kernel_hist(): the hist trigger for event i (the
 * order of agg_add_event) that gives the rows, as a libtracefs descriptor
 * (not started), or NULL with *why set when the kernel cannot aggregate
 * these keys (stack, too many keys, arrays).  agg_kernel_update(): the text
 * of that trigger's `hist` file, read now; what is new since the last read
 * is added to the rows.  *dropped: what the kernel could not add because its
 * table was full (cumulative).  -1 when the text is not what was expected.
 */
struct tracefs_hist *agg_kernel_hist(struct agg *a, int i, const char **why);

/*
 * Kernel engine of a latency: a synthetic event NAME that END's trigger
 * fires with the pair's keys and its time (onmatch), START's trigger saving
 * what it needs, and a hist trigger on NAME keyed by the keys and the time
 * in microseconds (exact, so that the rows go through the same buckets).
 * agg_kernel_join() makes the commands, or says why the kernel cannot pair
 * these (several START events, a condition, keys it cannot carry): NULL and
 * *why.  filter: --filter, set on both sides.  agg_kernel_update(a,
 * agg_kernel_join_ev(a), text of NAME's hist file) adds its rows.
 */
struct agg_kjoin {
	char name[64];
	char *fields;			/* the synthetic event's fields */
	const char *start_sys, *start_ev, *end_sys, *end_ev;
	char *start_cmd, *end_cmd;	/* the triggers of START and END */
	char *hist_cmd;			/* the hist trigger on NAME */
};
const char *agg_kernel_join(struct agg *a, const char *name, const char *filter,
			    struct agg_kjoin *kj);
void agg_kjoin_release(struct agg_kjoin *kj);
int agg_kernel_join_ev(const struct agg *a);
/* String keys of --strings events the kernel could not fetch, counted as "(fault)". */
unsigned long long agg_faults(const struct agg *a);
/*
 * latency: only the pairs of these tasks count (the target's, as its
 * set_event_pid lists them; follow: and the children they fork, from the
 * fork records), not those of the tasks the kernel's pid filter passes with
 * them (a switch passes when either side is traced).  0 or -1 (no memory).
 */
int agg_own(struct agg *a, const int *pids, size_t n, bool follow);
/* Switches in inferred (agg_join.infer_in); cpus: "CPU 1: 3, CPU 2: 1", the CPUs' counts. */
unsigned long long agg_inferred(const struct agg *a, char *cpus, size_t size);

int agg_kernel_update(struct agg *a, int i, const char *text, uint64_t *dropped);

/* Events lost in the current interval (ring-buffer overruns, a full kernel table). */
void agg_add_lost(struct agg *a, uint64_t n);
/*
 * At most max rows (a key with its bucket) per table, 0 for no bound (the
 * default): a new key beyond it is not counted, so that memory stays bounded
 * whatever the keys.  agg_refused(): the events not counted so (cumulative).
 */
void agg_set_max_rows(struct agg *a, size_t max);
uint64_t agg_refused(const struct agg *a);
/* End of an interval: its rows join the totals and it starts empty. */
void agg_interval_end(struct agg *a);
/*
 * The rows counted by from (an agg of the same spec and events, added in the
 * same order: the user engine's per-CPU readers) since the last merge, added
 * to a's current interval, with the task names from learnt; from's rows are
 * emptied.  Neither may be in use meanwhile.
 */
void agg_merge(struct agg *a, struct agg *from);

/*
 * Live (a loader of saved_cmdlines is set): what is kept per task goes when
 * the task does.  agg_tasks_reap() asks /proc which of the tasks met are
 * gone, drops their waiting STARTs at its next call (counted unmatched),
 * folds the rows of their comm keys into rows of one per name and forgets
 * them; it returns how many were gone.  The driver calls it now and then.
 * agg_tasks_tracked(): the tasks (pids) with anything kept;
 * agg_open_starts(): the STARTs waiting for their END.
 */
size_t agg_tasks_reap(struct agg *a);
size_t agg_tasks_tracked(const struct agg *a);
size_t agg_open_starts(const struct agg *a);

/* ---- what the output layer prints ---- */

enum agg_col_type {
	AGG_COL_STR,
	AGG_COL_INT,
	AGG_COL_UINT,
	AGG_COL_ERRNO,		/* a syscall's return value: AGG_COL_INT with its errno name */
	AGG_COL_STACK,		/* kernel frames, innermost first */
};

struct agg_cell {
	const char *s;		/* AGG_COL_STR */
	uint64_t v;		/* AGG_COL_INT and ERRNO (two's complement), UINT; STACK: frames */
	const uint64_t *frames;	/* AGG_COL_STACK: v return addresses */
};

struct agg_bucket {
	__int128 lo, hi;	/* [lo, hi) */
	int64_t index;		/* log2: -1 for the negative ones, 0 for [0], k for [2^(k-1), 2^k);
				   list: k for the bucket that ends at bound k (nbounds: the last) */
	uint64_t count;
};

/* --buckets: bucket k (0 to nbounds) of spec's list, for values signed or not. */
void agg_list_bucket(const struct agg_spec *s, bool vsign, int k, struct agg_bucket *out);

struct agg_group {
	struct agg_cell key[AGG_MAX_KEYS];
	uint64_t count;
	uint64_t sum, min, max;		/* of the value; signed when agg_table.vsign */
	size_t nbuckets;
	struct agg_bucket *buckets;	/* ascending, the non-empty ones */
};

struct agg_table {
	const struct agg_spec *spec;
	uint64_t unmatched;		/* latency: STARTs that found no END (dropped or open) */
	enum agg_col_type type[AGG_MAX_KEYS];
	bool vsign;			/* the value field is signed */
	size_t n;			/* groups (at most top) */
	size_t nall;			/* groups before top */
	struct agg_group *g;		/* by count, largest first; equal counts by key */
	uint64_t count;			/* all events, top or not */
	uint64_t lost;
	/* private */
	char **strs;
	size_t nstrs, astrs;
	struct agg_bucket *bpool;
};

/* The rows of the current interval (totals false) or of the whole run; top 0: all. */
struct agg_table *agg_snapshot(struct agg *a, bool totals, size_t top);
void agg_table_free(struct agg_table *t);

#endif
