/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched - the table of `perf sched latency -p` made from tracefs records:
 * per task (pid) its runtime, its switches (the times it was switched in
 * after waiting to run), the average and the maximum of those waits, and
 * when the longest one began.  The recipe `tpctl latency sched`.
 *
 * The module reads raw records (struct tep_record) whose formats are in
 * the tep_handle given to sched_new(); it never touches tracefs and never
 * formats text per record, so it runs the same on a live session and on a
 * trace.dat.  The definitions follow perf's (see schedlat.c and
 * tpctl-latency(1)), including the ones that surprise.
 *
 *	const char *const *ev = sched_events();	trace these
 *	...formats of the events in tep...
 *	struct sched *s;
 *	ret = sched_new(&s, tep);		TP_USAGE after an error line naming
 *						a missing needed event
 *	while (record) sched_record(s, rec);	any record; others' are ignored
 *	struct sched_table *t = sched_table(s, &sort);
 *	output_sched(stdout, mode, t);		(output.h)
 *	sched_table_free(t); sched_free(s);
 */
#ifndef TPCTL_SCHEDLAT_H
#define TPCTL_SCHEDLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"

struct tep_handle;
struct tep_record;
struct sched;

/*
 * The events to trace for the table, "system:event", NULL-terminated:
 * sched:sched_switch, sched:sched_stat_runtime, sched:sched_wakeup and
 * sched:sched_wakeup_new, the events perf sched latency acts on.  perf's
 * runtime is the sum of sched_stat_runtime's runtime, not the time between
 * switches; a wait begins at sched_wakeup (not sched_waking, which perf
 * sched latency ignores).  sched_new() needs the first SCHED_NEED of them in
 * tep; sched_wakeup_new is used when present.  With --input, call
 * sched_new(): it names what is missing.
 */
#define SCHED_NEED 3
const char *const *sched_events(void);

/*
 * A new table over the formats in tep.  TP_OK, or TP_USAGE after one error
 * line ("tpctl: latency: ...") naming a needed event whose format is not
 * in tep; TP_FAIL when out of memory.
 */
int sched_new(struct sched **sp, struct tep_handle *tep);
void sched_free(struct sched *s);

/* One record (rec->data, rec->size, rec->ts, rec->cpu set), in timestamp order. */
void sched_record(struct sched *s, const struct tep_record *rec);

/*
 * Only pid and the tasks it and its descendants start (sched_wakeup_new in
 * the parent's context) go into the table; 0: every task (the default).
 */
void sched_own(struct sched *s, int pid);

/* perf's table exactly: no switch the kernel did not record is inferred (for comparisons). */
void sched_perf_only(struct sched *s);

/* Events were lost on cpu before the next record: who is current there is not known. */
void sched_lost(struct sched *s, int cpu);

/* One warning (tp_warn) per CPU where switches in that the kernel did not record were inferred. */
void sched_warn_gaps(const struct sched *s);

/* The sort keys of perf's --sort, most significant first; each sorts largest first. */
enum sched_key {
	SCHED_SORT_AVG,		/* average delay */
	SCHED_SORT_MAX,		/* maximum delay */
	SCHED_SORT_SWITCH,	/* switches */
	SCHED_SORT_RUNTIME,	/* runtime */
	SCHED_SORT_PID,		/* pid (largest first too, as perf's) */
};

#define SCHED_MAX_SORT 5

struct sched_sort {
	int n;
	enum sched_key key[SCHED_MAX_SORT];
};

/*
 * Parse --sort "max,avg,switch,runtime" (perf's key names; NULL: perf's
 * default "avg,max,switch,runtime").  Prints the error (unknown or repeated
 * key): TP_USAGE.
 */
int sched_sort_parse(struct sched_sort *sort, const char *spec);

/* struct sched_table, what sched_table() gives, is the output layer's (output.h). */
/*
 * The table so far (the tasks with at least one switch, as perf lists them);
 * NULL when out of memory.  Its names point into s: valid until the next
 * sched_record() or sched_free().
 */
struct sched_table *sched_table(struct sched *s, const struct sched_sort *sort);
void sched_table_free(struct sched_table *t);

#endif
