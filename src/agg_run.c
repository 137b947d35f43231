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
#include "reader.h"
#include "state.h"
#include "target.h"
#include "tfs.h"
#include "tpctl.h"

/* Poll timeout of the user engine: how late a tick or the end may be seen. */
#define WAIT_MS 50

struct run {
	const struct agg_opts *o;
	struct tep_handle *tep;
	struct tfs_event_list evs;
	struct agg *agg;
	struct tracefs_instance *inst;
	struct reader *rd;
	bool kernel;
	bool stacks;			/* a key is the kernel stack */
	int ncpu;
	bool *cpu_on;			/* user engine: the CPUs read */
	unsigned long long lost_seen;	/* user engine: overrun + dropped so far */
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

static int reload_cmdlines(struct tep_handle *tep, void *ctx)
{
	(void)ctx;
	return tfs_tep_load_cmdlines(tep);
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
 * The kernel engine in inst: tracing off, one hist trigger per event, made
 * paused (nothing counts until the target's pid lists are in place:
 * kernel_start).  Returns TP_OK, or when the kernel cannot do it, TP_USAGE or
 * TP_FAIL with the error printed if the kernel engine was asked for, else -1
 * (try the user engine) after saying why under -v.
 */
static int kernel_setup(struct run *st)
{
	bool must = st->o->engine == AGG_ENGINE_KERNEL;
	const char *why = NULL;
	size_t i;
	int ret = TP_OK;

	st->hists = calloc(st->evs.n, sizeof(*st->hists));
	if (!st->hists) {
		tp_error("out of memory");
		return TP_FAIL;
	}
	for (i = 0; i < st->evs.n; i++) {
		if (!tfs_event_has_hist(NULL, &st->evs.v[i])) {
			why = "this kernel has no hist triggers";
			ret = TP_FAIL;
			break;
		}
		st->hists[i] = agg_kernel_hist(st->agg, i, &why);
		if (!st->hists[i] && !why)
			why = "out of memory";
		if (st->hists[i] && st->o->filter && hist_filter(st->hists[i], st->o->filter) < 0)
			why = "the filter cannot be given to a hist trigger";
		if (why) {
			ret = TP_USAGE;
			break;
		}
	}
	if (why) {
		if (must)
			tp_error("the kernel engine cannot do this for '%s:%s': %s",
				 st->evs.v[i].system, st->evs.v[i].name, why);
		else
			tp_debug("user engine: %s:%s: %s", st->evs.v[i].system,
				 st->evs.v[i].name, why);
		return must ? ret : -1;
	}
	ret = tfs_private_instance(&st->inst);
	if (!ret)
		ret = tfs_instance_write(st->inst, "tracing_on", "0");
	for (i = 0; !ret && i < st->evs.n; i++)
		ret = tfs_hist_start(st->inst, &st->evs.v[i], st->hists[i], true, !must);
	if (ret && !must)
		tp_debug("user engine: the kernel refused a hist trigger");
	return ret && !must ? -1 : ret;
}

/* The kernel engine's triggers count from now on, for the target's processes. */
static int kernel_start(struct run *st)
{
	size_t i;
	int ret;

	ret = target_start(st->o->target);
	if (!ret)
		ret = target_apply(st->o->target, st->inst);
	for (i = 0; !ret && i < st->evs.n; i++)
		ret = tfs_event_enable(st->inst, &st->evs.v[i], true);
	for (i = 0; !ret && i < st->evs.n; i++)
		ret = tfs_hist_continue(st->inst, &st->evs.v[i], st->hists[i]);
	return ret;
}

static int user_setup(struct run *st)
{
	int ret, cpu;

	ret = live_setup_instance(&st->inst, st->tep, &st->evs, st->o->filter, NULL,
				  st->stacks ? LIVE_KSTACK : 0, st->o->target);
	if (ret)
		return ret;
	st->rd = reader_new(tep_get_sub_buffer_size(st->tep));
	st->cpu_on = calloc(st->ncpu, sizeof(*st->cpu_on));
	if (!st->rd || !st->cpu_on) {
		tp_error("out of memory");
		return TP_FAIL;
	}
	for (cpu = 0; cpu < st->ncpu; cpu++) {
		if (reader_add_cpu(st->rd, st->inst, cpu) == 0) {
			st->cpu_on[cpu] = true;
		} else if (errno != ENOENT) {
			/* ENOENT: a CPU that is not there (offline, or beyond the possible ones) */
			tp_error("cannot open the buffer of cpu %d in %s: %s", cpu,
				 tfs_instance_label(st->inst), strerror(errno));
			return TP_FAIL;
		}
	}
	return TP_OK;
}

/* What the ring buffers lost since the last call (overwritten and dropped events). */
static unsigned long long user_lost(struct run *st)
{
	unsigned long long total = 0, o, d, n;
	int cpu;

	for (cpu = 0; cpu < st->ncpu; cpu++) {
		if (!st->cpu_on[cpu])
			continue;
		live_cpu_stats(st->inst, cpu, &o, &d);
		total += o + d;
	}
	n = total > st->lost_seen ? total - st->lost_seen : 0;
	st->lost_seen = total;
	return n;
}

static int kernel_collect(struct run *st)
{
	size_t i;

	for (i = 0; i < st->evs.n; i++) {
		char *text = tfs_hist_read(st->inst, &st->evs.v[i]);
		uint64_t dropped = 0;

		if (!text) {
			tp_error("cannot read the hist file of '%s:%s': %s", st->evs.v[i].system,
				 st->evs.v[i].name, strerror(errno));
			return TP_FAIL;
		}
		if (agg_kernel_update(st->agg, i, text, &dropped) < 0)
			tp_warn("entries of the hist file of '%s:%s' were not understood",
				st->evs.v[i].system, st->evs.v[i].name);
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
		agg_add_lost(st->agg, user_lost(st));
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
		r = reader_next(st->rd, &rec, &lost);
		if (r < 0) {
			tp_error("cannot read the ring buffer: %s", strerror(errno));
			return false;
		}
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
		if (target_done(st->o->target))
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
			reader_wait(st->rd, ms);
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
	tfs_instance_write(st->inst, "tracing_on", "0");
	reader_finish(st->rd);
	while ((r = reader_next(st->rd, &rec, &lost)) != 0 || !reader_eof(st->rd)) {
		if (r < 0) {
			tp_error("cannot read the ring buffer: %s", strerror(errno));
			return false;
		}
		if (r > 0)
			agg_record(st->agg, &rec);
		else
			reader_finish(st->rd);
	}
	return true;
}

static void kernel_loop(struct run *st, double deadline, double interval, bool screen)
{
	double next = interval > 0 ? st->start + interval : 0, t, until;

	while (!state_stop && !st->out_failed && !target_done(st->o->target)) {
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

int agg_run(const struct agg_opts *o)
{
	struct run st = { .o = o };
	bool screen = !o->json && o->interval > 0 && isatty(STDOUT_FILENO);
	size_t i;
	int ret;

	if (tp.instance) {
		tp_error("%s traces in a private instance; '-i %s' cannot be used", tp.cmd,
			 tp.instance);
		return TP_USAGE;
	}
	ret = target_check(o->target);
	if (!ret)
		ret = tfs_init();
	if (ret)
		return ret;
	st.ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (st.ncpu < 1)
		st.ncpu = 1;
	st.tep = live_tep(false);
	if (!st.tep)
		return TP_FAIL;
	/* every mistake a user can make is found here, before anything is created */
	ret = live_resolve_events(st.tep, o->events, o->nevents, o->filter, &st.evs);
	if (ret)
		goto out;
	st.agg = agg_new(&o->spec, st.tep);
	st.dropped = calloc(st.evs.n, sizeof(*st.dropped));
	if (!st.agg || !st.dropped) {
		tp_error("out of memory");
		ret = TP_FAIL;
		goto out;
	}
	for (i = 0; i < (size_t)o->spec.nkeys; i++)
		if (o->spec.kind[i] == AGG_KEY_STACK)
			st.stacks = true;
	/* the kernel writes an event's stack as a record of its own, after it */
	if (st.stacks)
		live_load_format(st.tep, "ftrace", "kernel_stack");
	for (i = 0; !ret && i < st.evs.n; i++) {
		int size = 0;
		char *fmt = tfs_event_format_text(st.evs.v[i].system, st.evs.v[i].name, &size);

		ret = agg_add_event(st.agg, st.evs.v[i].system, st.evs.v[i].name, fmt ? fmt : "",
				    fmt ? size : 0);
		free(fmt);
	}
	if (ret)
		goto out;
	agg_set_comm_loader(st.agg, reload_cmdlines, NULL);

	/*
	 * From here on, INT/TERM/HUP only set state_stop: once anything is
	 * traced a signal prints the totals, even one that comes while the
	 * rest is set up (tests/cli/count.t waits only for the events to be on).
	 */
	state_set_graceful(true);
	ret = -1;
	if (o->engine != AGG_ENGINE_USER) {
		ret = kernel_setup(&st);
		if (ret == -1) {
			/* whatever the kernel engine made goes, the user engine starts afresh */
			state_rollback();
			if (st.inst)
				tracefs_instance_free(st.inst);
			st.inst = NULL;
		}
	}
	st.kernel = ret == TP_OK;
	if (st.kernel)
		ret = kernel_start(&st);
	else if (ret == -1)
		ret = user_setup(&st);
	if (ret)
		goto out;
	tp_debug("%s engine, %zu event(s) in %s", st.kernel ? "kernel" : "user", st.evs.n,
		 tfs_instance_label(st.inst));
	tfs_tep_load_cmdlines(st.tep);

	/* everything counts from here: COMMAND may run, unless we are stopped already */
	ret = state_stop ? TP_OK : target_release(o->target);
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
		agg_add_lost(st.agg, user_lost(&st));
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
	state_set_graceful(false);
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
	state_set_graceful(false);
	target_finish(o->target);
	if (!ret)
		target_report(o->target);
	/* the readers hold the instance's files open: close them before it goes */
	reader_free(st.rd);
	state_rollback();
	if (st.inst)
		tracefs_instance_free(st.inst);
	agg_free(st.agg);
	for (i = 0; st.hists && i < st.evs.n; i++)
		tracefs_hist_free(st.hists[i]);
	free(st.hists);
	tfs_event_list_free(&st.evs);
	free(st.dropped);
	free(st.cpu_on);
	tep_free(st.tep);
	return ret;
}
