// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * agg_run - `tpctl count` and `tpctl hist` once their options are parsed:
 * the private instance, the engine, the intervals and the output.
 *
 * Engines.  The kernel engine starts one hist trigger per event in the
 * private instance, with tracing_on 0 there: the kernel still runs the
 * triggers (it hands them the record in a scratch buffer) but writes
 * nothing into the ring buffer, so nothing can be lost and nothing has to
 * be read; each interval reads the `hist` files.  The user engine enables
 * the events and aggregates the records of the per-CPU buffers as they come
 * (agg_record).  The default is the kernel engine where every event has a
 * `hist` file and the kernel can aggregate the keys, else the user engine.
 *
 * Intervals.  A table is printed every --interval (the rows of that
 * interval), and the totals at the end: Ctrl-C (the first INT, TERM or HUP
 * only ends the loop), --duration, or the reader of stdout going away.  The
 * user engine stops tracing first and reads what is left in the buffers,
 * so that every event made before the end is counted.
 */
#include <errno.h>
#include <poll.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "agg.h"
#include "live.h"
#include "opt.h"
#include "output.h"
#include "state.h"
#include "target.h"
#include "tfs.h"
#include "tpctl.h"

/* Poll timeout of the user engine: how late a tick or the end may be seen. */
#define WAIT_MS 50

struct run {
	const struct agg_opts *o;
	struct live *l;			/* the session: events, instance, readers, tep */
	const struct tfs_event_list *evs;
	struct agg *agg;
	bool kernel;
	bool stacks;			/* a key is the kernel stack */
	uint64_t *dropped;		/* kernel engine: per event, the kernel's Dropped */
	struct tracefs_hist **hists;	/* kernel engine: per event, its trigger */
	double start, last;		/* CLOCK_MONOTONIC seconds */
	bool out_failed;
	int out_errno;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long long wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int agg_opt_engine(const struct tp_opt *o, const char *arg)
{
	enum agg_engine *e = o->value;

	if (!strcmp(arg, "kernel"))
		*e = AGG_ENGINE_KERNEL;
	else if (!strcmp(arg, "user"))
		*e = AGG_ENGINE_USER;
	else if (!strcmp(arg, "auto"))
		*e = AGG_ENGINE_AUTO;
	else {
		tp_error("invalid engine '%s': kernel, user or auto", arg);
		return TP_USAGE;
	}
	return TP_OK;
}

/*
 * The filter as libtracefs's hist filter calls: the grammar tfs_filter_check
 * verified (comparisons "field op value", !, &&, ||, parentheses).  -1 when
 * a part cannot be given that way (the kernel's CPU and COMM, say).
 */
static int hist_filter(struct tracefs_hist *hist, const char *expr)
{
	static const struct {
		const char *op;
		enum tracefs_compare cmp;
	} ops[] = {
		{ "==", TRACEFS_COMPARE_EQ }, { "!=", TRACEFS_COMPARE_NE },
		{ ">=", TRACEFS_COMPARE_GE }, { "<=", TRACEFS_COMPARE_LE },
		{ ">", TRACEFS_COMPARE_GT }, { "<", TRACEFS_COMPARE_LT },
		{ "~", TRACEFS_COMPARE_RE }, { "&", TRACEFS_COMPARE_AND },
	};
	const char *p = expr;
	char field[256], val[4096];
	size_t i, n;

	while (*p) {
		enum tracefs_filter type = TRACEFS_FILTER_COMPARE;
		enum tracefs_compare cmp = TRACEFS_COMPARE_EQ;

		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		if (*p == '(' || *p == ')') {
			type = *p == '(' ? TRACEFS_FILTER_OPEN_PAREN : TRACEFS_FILTER_CLOSE_PAREN;
			p++;
		} else if (!strncmp(p, "&&", 2) || !strncmp(p, "||", 2)) {
			type = *p == '&' ? TRACEFS_FILTER_AND : TRACEFS_FILTER_OR;
			p += 2;
		} else if (*p == '!' && p[1] != '=' && p[1] != '~') {
			type = TRACEFS_FILTER_NOT;
			p++;
		} else {
			for (n = 0; p[n] == '_' || ((p[n] | 0x20) >= 'a' && (p[n] | 0x20) <= 'z') ||
				    (n && p[n] >= '0' && p[n] <= '9'); n++)
				;
			if (!n || n >= sizeof(field))
				return -1;
			memcpy(field, p, n);
			field[n] = '\0';
			for (p += n; *p == ' ' || *p == '\t'; p++)
				;
			for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
				if (!strncmp(p, ops[i].op, strlen(ops[i].op)))
					break;
			if (i == sizeof(ops) / sizeof(ops[0]) || (*p == '&' && p[1] == '&'))
				return -1;
			cmp = ops[i].cmp;
			for (p += strlen(ops[i].op); *p == ' ' || *p == '\t'; p++)
				;
			if (*p == '"' || *p == '\'') {
				/* the quoted string as written, escapes and all */
				for (n = 1; p[n] && p[n] != *p; n++)
					if (p[n] == '\\' && p[n + 1])
						n++;
				if (!p[n])
					return -1;
				n++;
			} else {
				for (n = 0; p[n] && !strchr(" \t()&|!", p[n]); n++)
					;
			}
			if (!n || n >= sizeof(val))
				return -1;
			memcpy(val, p, n);
			val[n] = '\0';
			p += n;
		}
		if (tracefs_hist_append_filter(hist, type, type == TRACEFS_FILTER_COMPARE ?
					       field : NULL, cmp, type == TRACEFS_FILTER_COMPARE ?
					       val : NULL) < 0)
			return -1;
	}
	return 0;
}

/*
 * Can the kernel engine do it: one hist trigger per event, with the filter
 * as the trigger's.  TP_OK with st->hists made (not started), or, when the
 * kernel cannot, TP_USAGE (the keys) or TP_FAIL (no hist triggers) with the
 * error printed if the kernel engine was asked for, else -1 (use the user engine) after saying why under -v.
 */
static int kernel_plan(struct run *st, const struct tfs_event_list *evs)
{
	bool must = st->o->engine == AGG_ENGINE_KERNEL;
	const char *why = NULL;
	int ret = TP_USAGE;
	size_t i;

	st->hists = calloc(evs->n, sizeof(*st->hists));
	if (!st->hists) {
		tp_error("out of memory");
		return TP_FAIL;
	}
	for (i = 0; i < evs->n && !why; i++) {
		if (!tfs_event_has_hist(NULL, &evs->v[i])) {
			/* the kernel lacks it: not the user's mistake */
			why = "this kernel has no hist triggers";
			ret = TP_FAIL;
			break;
		}
		st->hists[i] = agg_kernel_hist(st->agg, i, &why);
		if (!st->hists[i] && !why)
			why = "out of memory";
		if (st->hists[i] && st->o->filter && hist_filter(st->hists[i], st->o->filter) < 0)
			why = "the filter cannot be given to a hist trigger";
		if (why)
			break;
	}
	if (!why)
		return TP_OK;
	if (must)
		tp_error("the kernel engine cannot do this for '%s:%s': %s", evs->v[i].system,
			 evs->v[i].name, why);
	else
		tp_debug("user engine: %s:%s: %s", evs->v[i].system, evs->v[i].name, why);
	return must ? ret : -1;
}

/*
 * The session's arm hook: the triggers made paused in the private instance
 * (tracing_on 0 there: the kernel runs the triggers but records nothing);
 * they count from kernel_continue() on, once the target's pid lists are in.
 */
static int kernel_arm(struct live *l, void *ctx)
{
	struct run *st = ctx;
	bool must = st->o->engine == AGG_ENGINE_KERNEL;
	size_t i;
	int ret = TP_OK;

	for (i = 0; !ret && i < st->evs->n; i++)
		ret = tfs_hist_start(live_instance(l), &st->evs->v[i], st->hists[i], true, !must);
	if (ret && !must)
		tp_debug("user engine: the kernel refused a hist trigger");
	return ret && !must ? -1 : ret;
}

static int kernel_continue(struct run *st)
{
	size_t i;
	int ret = TP_OK;

	for (i = 0; !ret && i < st->evs->n; i++)
		ret = tfs_hist_continue(live_instance(st->l), &st->evs->v[i], st->hists[i]);
	return ret;
}

static int kernel_collect(struct run *st)
{
	size_t i;

	for (i = 0; i < st->evs->n; i++) {
		char *text = tfs_hist_read(live_instance(st->l), &st->evs->v[i]);
		uint64_t dropped = 0;

		if (!text) {
			tp_error("cannot read the hist file of '%s:%s': %s", st->evs->v[i].system,
				 st->evs->v[i].name, strerror(errno));
			return TP_FAIL;
		}
		if (agg_kernel_update(st->agg, i, text, &dropped) < 0)
			tp_warn("entries of the hist file of '%s:%s' were not understood",
				st->evs->v[i].system, st->evs->v[i].name);
		free(text);
		if (dropped > st->dropped[i])
			agg_add_lost(st->agg, dropped - st->dropped[i]);
		st->dropped[i] = dropped;
	}
	return TP_OK;
}

/* Print one table: the current interval's rows, or the totals. */
static void emit(struct run *st, bool totals, bool screen)
{
	const struct agg_opts *o = st->o;
	struct output_agg oa = {
		.hist = o->hist,
		.field = o->spec.value,
		.ts_ns = wall_ns(),
		.clear = screen,
	};
	double now = now_s();
	struct agg_table *t;
	char title[128];

	oa.interval_ns = (now - (totals ? st->start : st->last)) * 1e9;
	t = agg_snapshot(st->agg, totals, o->top);
	if (!t) {
		tp_error("out of memory");
		st->out_failed = true;
		st->out_errno = ENOMEM;
		return;
	}
	if (o->interval > 0) {
		time_t wall = time(NULL);
		struct tm tm;
		size_t n;

		localtime_r(&wall, &tm);
		n = totals ? (size_t)snprintf(title, sizeof(title), "totals") :
		    strftime(title, sizeof(title), "%H:%M:%S", &tm);
		n += snprintf(title + n, sizeof(title) - n, " (%.2f s", oa.interval_ns / 1e9);
		if (t->lost)
			n += snprintf(title + n, sizeof(title) - n, ", %llu events lost",
				      (unsigned long long)t->lost);
		snprintf(title + n, sizeof(title) - n, ")");
		oa.title = title;
	}
	if (!st->out_failed && output_agg(stdout, o->json ? OUTPUT_JSON : OUTPUT_TEXT, t, &oa) < 0) {
		st->out_failed = true;
		st->out_errno = errno;
	}
	else if (!totals && !screen && !o->json && o->interval > 0)
		putchar('\n');
	agg_table_free(t);
}

/* The end of an interval: collect, print, start the next one. */
static void tick(struct run *st, bool screen)
{
	if (st->kernel)
		kernel_collect(st);
	else
		agg_add_lost(st->agg, live_lost(st->l));
	emit(st, false, screen);
	agg_interval_end(st->agg);
	st->last = now_s();
}

/* The user engine until the end; false on a read error. */
static bool user_loop(struct run *st, double deadline, double interval, bool screen)
{
	double next = interval > 0 ? st->start + interval : 0, t;
	struct tep_record rec;
	unsigned long n = 0;
	long long lost;
	int r;

	memset(&rec, 0, sizeof(rec));
	while (!state_stop && !st->out_failed) {
		r = live_next(st->l, &rec, &lost);
		if (r < 0)
			return false;
		if (r > 0) {
			agg_record(st->agg, &rec);
			/* the clock is cheap (vDSO) but not free: look every 1024 records */
			if (++n & 1023)
				continue;
		}
		t = now_s();
		if (deadline && t >= deadline)
			break;
		/* the target is gone: what it left in the buffers is read by user_drain */
		if (live_done(st->l))
			break;
		if (next && t >= next) {
			tick(st, screen);
			while (next <= t)
				next += interval;
		}
		if (r == 0) {
			double until = next ? next : deadline;
			int ms = WAIT_MS;

			if (deadline && deadline < until)
				until = deadline;
			if (until && (until - t) * 1000 < WAIT_MS)
				ms = (until - t) * 1000 + 1;
			live_wait(st->l, ms);
		}
	}
	return true;
}

/* Read what is left: tracing off in the instance, then every buffer to its end. */
static bool user_drain(struct run *st)
{
	struct tep_record rec;
	long long lost;
	int r;

	memset(&rec, 0, sizeof(rec));
	live_drain(st->l);
	while ((r = live_next(st->l, &rec, &lost)) != 0 || !live_eof(st->l)) {
		if (r < 0)
			return false;
		if (r > 0)
			agg_record(st->agg, &rec);
	}
	return true;
}

static void kernel_loop(struct run *st, double deadline, double interval, bool screen)
{
	double next = interval > 0 ? st->start + interval : 0, t, until;

	while (!state_stop && !st->out_failed && !live_done(st->l)) {
		t = now_s();
		if (deadline && t >= deadline)
			break;
		if (next && t >= next) {
			tick(st, screen);
			while (next <= t)
				next += interval;
		}
		until = next ? next : deadline;
		if (deadline && deadline < until)
			until = deadline;
		/* a signal ends the wait (no SA_RESTART), COMMAND's exit too (SIGCHLD) */
		poll(NULL, 0, until ? (int)((until - t) * 1000) + 1 : 1000);
	}
}

int agg_parse_end(struct agg_opts *o, const struct tp_args *args, unsigned long long top,
		  int ret)
{
	if (ret) {
		agg_spec_release(&o->spec);
		target_free(o->target);
		return ret;
	}
	o->events = args->argv;
	o->nevents = args->argc;
	o->top = top;
	return TP_OK;
}

int agg_main(int (*parse)(struct agg_opts *o, struct target *t, int argc, char **argv),
	     int argc, char **argv)
{
	struct target tgt;
	struct agg_opts o;
	int ret;

	ret = parse(&o, &tgt, argc, argv);
	if (ret)
		return opt_status(ret);
	ret = agg_run(&o);
	agg_spec_release(&o.spec);
	target_free(&tgt);
	return ret;
}

/*
 * The session's check hook, once the events are resolved and before
 * anything is created: every key and field checked against them (TP_USAGE),
 * and, when the kernel engine is tried, whether it can do it (-1: it cannot,
 * the session is opened again for the user engine).
 */
static int run_check(struct live *l, void *ctx)
{
	struct run *st = ctx;
	const struct agg_opts *o = st->o;
	size_t i;
	int ret = TP_OK;

	st->evs = live_events(l);
	st->agg = agg_new(&o->spec, live_tep(l));
	st->dropped = calloc(st->evs->n ? st->evs->n : 1, sizeof(*st->dropped));
	if (!st->agg || !st->dropped) {
		tp_error("out of memory");
		return TP_FAIL;
	}
	for (i = 0; !ret && i < st->evs->n; i++) {
		int size = 0;
		char *fmt = live_format_text(l, st->evs->v[i].system, st->evs->v[i].name, &size);

		ret = agg_add_event(st->agg, st->evs->v[i].system, st->evs->v[i].name,
				    fmt ? fmt : "", fmt ? size : 0);
		free(fmt);
	}
	if (ret)
		return ret;
	agg_set_comm_loader(st->agg, live_reload_comms, l);
	return st->kernel ? kernel_plan(st, st->evs) : TP_OK;
}

/* What run_check and kernel_arm made, before the session is opened again. */
static void run_reset(struct run *st)
{
	size_t i;

	for (i = 0; st->hists && st->evs && i < st->evs->n; i++)
		tracefs_hist_free(st->hists[i]);
	free(st->hists);
	st->hists = NULL;
	agg_free(st->agg);
	st->agg = NULL;
	free(st->dropped);
	st->dropped = NULL;
	st->evs = NULL;
}

/* The session for either engine; -1 when the kernel engine cannot do it. */
static int run_open(struct run *st)
{
	const struct agg_opts *o = st->o;
	struct live_spec spec = {
		.events = o->events, .nevents = o->nevents, .filter = o->filter,
		.target = o->target, .input = o->input,
		/*
		 * A signal prints the totals once anything is traced, even one
		 * that comes while the rest is set up (tests/cli/count.t waits
		 * only for the events to be on).
		 */
		.flags = LIVE_EARLY_STOP,
		.check = run_check,
		.ctx = st,
	};
	int ret;

	if (st->kernel) {
		spec.flags |= LIVE_NOREAD;
		spec.arm = kernel_arm;
	} else if (st->stacks) {
		spec.flags |= LIVE_KSTACK;
	}
	ret = live_open(&st->l, &spec);
	if (ret)
		run_reset(st);
	return ret;
}

int agg_run(const struct agg_opts *o)
{
	struct run st = { .o = o };
	bool screen = !o->json && o->interval > 0 && isatty(STDOUT_FILENO);
	int i, ret;

	if (tp.instance) {
		tp_error("%s traces in a private instance; '-i %s' cannot be used", tp.cmd,
			 tp.instance);
		return TP_USAGE;
	}
	for (i = 0; i < o->spec.nkeys; i++)
		if (o->spec.kind[i] == AGG_KEY_STACK)
			st.stacks = true;
	/* a recording has no hist triggers: what it holds is read */
	st.kernel = o->engine != AGG_ENGINE_USER && !o->input;
	if (o->engine == AGG_ENGINE_KERNEL && o->input) {
		tp_error("'--input' reads a recording: the user engine does ('--engine user')");
		return TP_USAGE;
	}
	ret = run_open(&st);
	if (ret == -1) {
		/* whatever the kernel engine tried is gone: the user engine starts afresh */
		st.kernel = false;
		ret = run_open(&st);
	}
	if (!ret && st.kernel)
		ret = kernel_continue(&st);
	if (ret)
		goto out;
	tp_debug("%s engine, %zu event(s) in %s", st.kernel ? "kernel" : "user", st.evs->n,
		 o->input ? o->input : tfs_instance_label(live_instance(st.l)));

	ret = live_start(st.l);
	if (ret)
		goto out;
	st.start = st.last = now_s();
	if (st.kernel) {
		kernel_loop(&st, o->duration > 0 ? st.start + o->duration : 0, o->interval, screen);
		kernel_collect(&st);
	} else if (!user_loop(&st, o->duration > 0 ? st.start + o->duration : 0, o->interval,
			      screen) || !user_drain(&st)) {
		ret = TP_FAIL;
	}
	if (!st.kernel) {
		/* events whose stack never came count without one */
		agg_flush(st.agg);
		agg_add_lost(st.agg, live_lost(st.l));
	}
	/* the last interval (not on a screen: the totals replace it), then the totals */
	if (o->interval > 0 && !screen && !st.out_failed) {
		emit(&st, false, false);
		agg_interval_end(st.agg);
		if (!o->json)
			emit(&st, true, false);
	} else {
		agg_interval_end(st.agg);
		emit(&st, true, screen);
	}
	{
		struct agg_table *t = agg_snapshot(st.agg, true, 1);

		if (t && t->lost)
			tp_warn("%llu events lost: %s", (unsigned long long)t->lost, st.kernel ?
				"the kernel's hist table was full" :
				"the ring buffer overflowed before they were read");
		agg_table_free(t);
	}
	if (st.out_failed) {
		/* the reader of stdout went away (| head): a normal end, not an error */
		if (st.out_errno != EPIPE) {
			tp_error("cannot write to standard output: %s", strerror(st.out_errno));
			ret = TP_FAIL;
		}
		__fpurge(stdout);
		clearerr(stdout);
	}
out:
	ret = live_close(st.l, ret);
	run_reset(&st);
	return ret;
}
