/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * agg_run - the aggregation driver (count, hist, latency, serve) and the
 * commands' options: struct agg_opts, the parse functions, agg_run() and the
 * sessions of several metrics (agg_set_*).  The rows it runs are agg.h's.
 */
#ifndef TPCTL_AGG_RUN_H
#define TPCTL_AGG_RUN_H

#include "agg.h"
#include "probe.h"

struct target;
struct ftr_spec;

enum agg_engine {
	AGG_ENGINE_AUTO,	/* the kernel's where it can, else the user engine */
	AGG_ENGINE_KERNEL,
	AGG_ENGINE_USER,
};

struct agg_opts {
	bool hist;		/* hist (spec.value set) or count */
	char **events;		/* EVENT patterns */
	int nevents;
	struct agg_spec spec;
	const char *filter;	/* NULL: none */
	size_t top;		/* 0: every row */
	double interval;	/* seconds, 0: only the totals */
	double duration;	/* seconds, 0: until interrupted */
	bool json;
	enum agg_engine engine;
	struct target *target;	/* TARGET (target.h): the processes traced */
	const char *input;	/* --input: a trace.dat instead of the live kernel */
	struct probe_words probes;	/* --probe: made for the run, their events traced */
	bool strings;		/* --strings: syscall string arguments fetched (strargs.h) */
	uint64_t over;		/* latency --over: pairs longer than this printed (ns, 0: none) */
	size_t max_rows;	/* rows kept per table (agg_set_max_rows), 0: no bound */
	unsigned long long threads;	/* count, hist --threads: reader threads (0: per CPU) */
	unsigned long long buffer_kb;	/* count, hist --buffer-kb: per-CPU buffer (0: default) */
	const char *sort;	/* latency sched: --sort */
	bool folded;		/* --folded: the stacks as folded lines on stdout */
	const char *flamegraph;	/* --flamegraph FILE: the stacks as an SVG flame graph */
	struct ftr_spec *ftrace;	/* count/latency --function (func_agg.c), else NULL */
	/* what agg_main() runs instead of agg_run() (latency sched: its own table) */
	int (*run)(const struct agg_opts *o);
	/* latency: the pair given as START END --match, and the sides' events */
	struct agg_join join;
	char *join_events[AGG_SIDES_MAX + AGG_ALSO_MAX + 1];	/* and agg_join.also */
	/* START END naming a --probe of this run by its NAME: tpctl_<pid>:NAME */
	char probe_side[2][128];
};

/* Trace, aggregate and print as o says; returns the exit status. */
int agg_run(const struct agg_opts *o);

/*
 * Several metrics over one session (tpctl serve; agg_run() is one of them):
 * the events of all of them traced in one private instance, each metric on
 * the kernel engine where it can be (its hist triggers there), the others
 * fed from one reader.  A filter every metric shares is the kernel's; where
 * they differ, each metric of the user engine applies its own.
 *   agg_set_open()	everything up to tracing (errors printed; TP_OK or status)
 *   agg_set_start()	tracing starts for good (COMMAND runs)
 *   agg_set_read()	user engine: aggregate what is ready, else wait up to
 *			timeout_ms; *done once the target is gone (serve's
 *			loop; agg_run() runs the session loop, live_run())
 *   agg_set_wait()	the wait alone, after agg_set_read(set, 0, ...) found
 *			nothing more ready: it touches no rows, so it needs
 *			no lock that guards them (serve's scrapes go on)
 *   agg_set_collect()	kernel engine: the hist files read into the rows now;
 *			both: the ring buffers' losses counted
 *   agg_set_drain()	tracing off, what is left read, collected, flushed
 *   agg_set_agg()	metric i's rows (agg_snapshot(), agg_interval_end())
 *   agg_set_close()	the session closed (the only teardown); returns ret
 */
struct agg_set;
int agg_set_open(struct agg_set **set, const struct agg_opts *const *o, int n);
int agg_set_start(struct agg_set *set);
int agg_set_read(struct agg_set *set, int timeout_ms, bool *done);
void agg_set_wait(struct agg_set *set, int timeout_ms);
void agg_set_collect(struct agg_set *set);
int agg_set_drain(struct agg_set *set);
struct agg *agg_set_agg(struct agg_set *set, int i);
bool agg_set_kernel(const struct agg_set *set, int i);	/* metric i is on the kernel engine */
int agg_set_kernel_jobs(const struct agg_set *set);
int agg_set_close(struct agg_set *set, int ret);
/*
 * The beginning of such a parse function: o zeroed, the options of spec and
 * TARGET parsed (target_parse), COMMAND's stdout on stderr.  0 or as
 * target_parse() returns.
 */
struct tp_cmd_spec;
struct tp_args;
int agg_parse_begin(struct agg_opts *o, struct target *t, int argc, char **argv,
		    const struct tp_cmd_spec *spec, struct tp_args *args);
/*
 * The end of such a parse function: with ret TP_OK, the EVENT arguments and
 * --top into o; else o->spec and o->target released.  Returns ret.
 */
int agg_parse_end(struct agg_opts *o, const struct tp_args *args, unsigned long long top,
		  int ret);
/* A whole aggregation command: parse (count_parse, ...), agg_run(), release. */
int agg_main(int (*parse)(struct agg_opts *o, struct target *t, int argc, char **argv),
	     int argc, char **argv);
/* The --engine option of both commands (an OPT_CALLBACK storing an enum agg_engine). */
struct tp_opt;
int agg_opt_engine(const struct tp_opt *o, const char *arg);

/*
 * The options count and hist share, declared once for both option tables
 * (opt.h); o is the command's struct agg_opts *, top its unsigned long long *
 * for --top (o->top is a size_t).  The help of --filter, --top and
 * --interval names what each command prints, so the command gives it.
 */
#define AGG_OPTS(o, top, filter_help, top_help, interval_help)		\
	OPT_STRING('f', "filter", &(o)->filter, "EXPR", filter_help),		\
	OPT_UINT(0, "top", (top), "N", 1, 0, top_help),				\
	OPT_SECONDS(0, "interval", &(o)->interval, "SEC", interval_help),	\
	OPT_SECONDS('d', "duration", &(o)->duration, "SEC", "stop after SEC seconds"), \
	OPT_BOOL('j', "json", &(o)->json, "one JSON document per table"),	\
	OPT_CALLBACK(0, "engine", &(o)->engine, "ENGINE", agg_opt_engine,	\
		     "kernel (hist triggers), user (the ring buffers) or auto:\n"	\
		     "the kernel's where it can (the default)"),			\
	OPT_STRING(0, "input", &(o)->input, "FILE",				\
		   "read the events of a trace.dat (tpctl record, trace-cmd)\n"	\
		   "instead of the live kernel"),					\
	OPT_BOOL(0, "folded", &(o)->folded, "with a stack key: one line per stack, frames\n"	\
		 "root first separated by ';', then its weight"),			\
	OPT_STRING(0, "flamegraph", &(o)->flamegraph, "FILE",			\
		   "with a stack key: an SVG flame graph into FILE"),			\
	PROBE_OPTS(&(o)->probes)

#endif
