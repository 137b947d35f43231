/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ftr - the kernel's function tracers for one run of a live command:
 * `--function PATTERN` (the function tracer, set_ftrace_filter, `!PATTERN`
 * into set_ftrace_notrace) and `--graph FUNC` (function_graph from FUNC down:
 * set_graph_function, `--graph-notrace`, `--depth` max_graph_depth).
 *
 *	struct ftr_spec fs = { .nfunc = 0 };
 *	opts: FTR_OPTS(&fs)
 *	ret = ftr_check(&fs);		names checked, a refusal said: before any change
 *	...the instance made...
 *	ret = ftr_apply(&fs, inst);	every write journaled (state.h), tracer last
 *
 * The function tracer runs in the private instance.  function_graph has been
 * allowed in instances only since Linux 6.9: on an older kernel the graph
 * runs at the top level (its tracer must be nop), ftr_graph_top() says so,
 * and the session reads the top-level buffer; every file written there is in
 * the journal, and a note file (FTR_NOTE_DIR/top-PID) lets `tpctl reset` put
 * them back after a KILL.
 */
#ifndef TPCTL_FTR_H
#define TPCTL_FTR_H

#include <stdbool.h>

#include "opt.h"

#define FTR_MAX 64

struct tracefs_instance;

struct ftr_spec {
	const char *func[FTR_MAX];	/* --function: PATTERN, or !PATTERN */
	int nfunc;
	const char *graph[FTR_MAX];	/* --graph FUNC */
	int ngraph;
	const char *gnotrace[FTR_MAX];	/* --graph-notrace FUNC */
	int ngnotrace;
	unsigned long long depth;	/* --depth N (0: the kernel's default, no limit) */
	const char *cmd;		/* the command, for the error lines ("stream") */
};

int ftr_function_opt(const struct tp_opt *o, const char *arg);
int ftr_graph_opt(const struct tp_opt *o, const char *arg);
int ftr_graph_notrace_opt(const struct tp_opt *o, const char *arg);

#define FTR_OPTS(f)								\
	OPT_CALLBACK(0, "function", (f), "PATTERN", ftr_function_opt,		\
		     "trace the kernel functions that match PATTERN with the function\n" \
		     "tracer (repeatable; '!PATTERN' excludes)"),			\
	OPT_CALLBACK(0, "graph", (f), "FUNC", ftr_graph_opt,			\
		     "function_graph: FUNC and what it calls, with durations (repeatable)"), \
	OPT_CALLBACK(0, "graph-notrace", (f), "FUNC", ftr_graph_notrace_opt,	\
		     "function_graph: leave out FUNC and what it calls (repeatable)"), \
	OPT_UINT(0, "depth", &(f)->depth, "N", 1, 1000000,			\
		 "function_graph: at most N levels below FUNC's caller")

/* Any tracer option given. */
bool ftr_given(const struct ftr_spec *f);
/* Which tracer: "function_graph", "function", or NULL. */
const char *ftr_tracer(const struct ftr_spec *f);
/* Option combinations: TP_OK or TP_USAGE after one line. */
int ftr_usage(const struct ftr_spec *f);

/*
 * Before anything is changed: the kernel has the tracer and lets it be used,
 * and every PATTERN and FUNC names a traceable function (the closest real
 * one is suggested).  TP_OK, TP_USAGE (a name) or TP_FAIL (refused) after one
 * error line.
 */
int ftr_check(const struct ftr_spec *f);

/* The graph cannot run in inst (an instance before 6.9): it must run at the top level. */
bool ftr_graph_needs_top(const struct ftr_spec *f, struct tracefs_instance *inst);

/*
 * The filters, pid lists (pids: what set_event_pid of inst holds is copied
 * to set_ftrace_pid) and the tracer in inst (NULL: the top level), journaled.
 * TP_OK or the status after one line (a refusal says why it likely came).
 */
int ftr_apply(const struct ftr_spec *f, struct tracefs_instance *inst, bool follow);

/* tpctl reset: put back what a KILLed run changed at the top level; true if anything failed. */
bool ftr_reset_orphans(void);

#endif
