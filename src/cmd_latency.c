// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl latency START END --match FIELD[=FIELD] | RECIPE [--by KEY,...]
 *               [--log2 | --linear STEP | --buckets D,...] [--filter EXPR] [--top N] [--interval SEC]
 *               [--duration SEC] [--json] [--engine E] [--input FILE] [TARGET]
 *
 * How long from one event to another: the pairs of a START and the END
 * that closes it, as histograms per key.  The pairing is a row kind of the
 * aggregations (struct agg_join in agg.h), run by their driver (agg_run.c);
 * this file holds the options and the recipes, the common questions
 * written as pairs.
 */
#include <errno.h>
#include <stdio_ext.h>
#include <string.h>
#include <time.h>

#include <event-parse.h>

#include "agg_run.h"
#include "ftr.h"
#include "live.h"
#include "opt.h"
#include "output.h"
#include "probe.h"
#include "schedlat.h"
#include "state.h"
#include "target.h"
#include "tfs.h"
#include "cmd.h"
#include "util.h"

/*
 * The recipes: what each measures is in tpctl-latency(1).  Field names are
 * the tracepoints' own (their format files); a kernel whose events lack one
 * gets an error naming it.
 */
static const struct recipe {
	const char *name;
	const char *by;			/* the default keys (NULL: one histogram) */
	struct agg_join join;
} recipes[] = {
	{ "wakeup", NULL, {
		.side = {
			{ "sched:sched_wakeup", false, { "pid" }, 1, "pid", "comm", AGG_COND_NONE },
			{ "sched:sched_wakeup_new", false, { "pid" }, 1, "pid", "comm",
			  AGG_COND_NONE },
			/* preempted: switched out while it could still run */
			{ "sched:sched_switch", false, { "prev_pid" }, 1, "prev_pid", "prev_comm",
			  AGG_COND_RUNNABLE },
			{ "sched:sched_switch", true, { "next_pid" }, 1, "next_pid", "next_comm",
			  AGG_COND_NONE },
		},
		.nside = 4, .start = "sched:sched_wakeup", .end = "sched:sched_switch",
		.skip_idle = true, .end_owns = true,
	} },
	{ "syscall", "syscall", {
		.side = {
			{ "raw_syscalls:sys_enter", false, { "common_pid" }, 1, NULL, NULL,
			  AGG_COND_NONE },
			{ "raw_syscalls:sys_exit", true, { "common_pid" }, 1, NULL, NULL,
			  AGG_COND_NONE },
		},
		.nside = 2, .start = "raw_syscalls:sys_enter", .end = "raw_syscalls:sys_exit",
	} },
	{ "irq", "irq,name", {
		.side = {
			{ "irq:irq_handler_entry", false, { "irq" }, 1, NULL, NULL, AGG_COND_NONE },
			{ "irq:irq_handler_exit", true, { "irq" }, 1, NULL, NULL, AGG_COND_NONE },
		},
		.nside = 2, .start = "irq:irq_handler_entry", .end = "irq:irq_handler_exit",
		.per_cpu = true,
	} },
	{ "softirq", "vec", {
		.side = {
			{ "irq:softirq_entry", false, { "vec" }, 1, NULL, NULL, AGG_COND_NONE },
			{ "irq:softirq_exit", true, { "vec" }, 1, NULL, NULL, AGG_COND_NONE },
		},
		.nside = 2, .start = "irq:softirq_entry", .end = "irq:softirq_exit",
		.per_cpu = true,
	} },
	/* the block tracepoints carry no request pointer: dev and sector pair them */
	{ "block", "dev,rwbs", {
		.side = {
			{ "block:block_rq_issue", false, { "dev", "sector" }, 2, NULL, NULL,
			  AGG_COND_NONE },
			{ "block:block_rq_complete", true, { "dev", "sector" }, 2, NULL, NULL,
			  AGG_COND_NONE },
		},
		.nside = 2, .start = "block:block_rq_issue", .end = "block:block_rq_complete",
	} },
	{ "offcpu", "comm", {
		.side = {
			{ "sched:sched_switch", false, { "prev_pid" }, 1, "prev_pid", "prev_comm",
			  AGG_COND_NONE },
			{ "sched:sched_switch", true, { "next_pid" }, 1, "next_pid", "next_comm",
			  AGG_COND_NONE },
		},
		.nside = 2, .start = "sched:sched_switch", .end = "sched:sched_switch",
		.skip_idle = true, .end_owns = true,
	} },
};

#define NRECIPES (sizeof(recipes) / sizeof(recipes[0]))

/* --linear STEP and --over: durations, a bare number in seconds as everywhere */
static int opt_duration(const struct tp_opt *o, const char *arg)
{
	unsigned long long *ns = o->value;

	if (!tp_parse_duration(arg, ns) || !*ns) {
		tp_error("invalid duration '%s' for '--%s': a number with a unit (ns, us, ms, s, "
			 "m, h) or seconds, as in 5ms", arg, o->long_name);
		return TP_USAGE;
	}
	return TP_OK;
}

/* latency sched: the order of its rows (--sort), checked at parse time */
static struct sched_sort sched_sort;

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * latency sched: perf sched latency's table (schedlat.h), not rows of the
 * aggregations, so it reads the session itself: every record to
 * sched_record() until the target ends, --duration, a signal or the end of
 * the recording, then the table once.
 */
static int sched_run(const struct agg_opts *o)
{
	const char *const *ev = sched_events();
	struct live_spec spec = {
		.target = o->target, .input = o->input, .flags = LIVE_EARLY_STOP,
	};
	struct sched_table *t = NULL;
	struct tep_record rec;
	struct sched *s = NULL;
	struct live *l = NULL;
	double deadline = 0;
	unsigned long long lost;
	long long rlost;
	int ret, r;

	if (tp.instance) {
		tp_error("%s traces in a private instance; '-i %s' cannot be used", tp.cmd,
			 tp.instance);
		return TP_USAGE;
	}
	for (spec.nevents = 0; ev[spec.nevents]; spec.nevents++)
		;
	spec.events = (char **)ev;
	ret = live_open(&l, &spec);
	if (!ret)
		ret = sched_new(&s, live_tep(l));
	if (!ret)
		ret = live_start(l);
	/* -- COMMAND: its own tasks, not those the pid filter lets in beside them */
	if (!ret && o->target && o->target->argv && !o->target->all)
		sched_own(s, target_pid(o->target));
	if (!ret && o->duration > 0)
		deadline = mono_s() + o->duration;
	memset(&rec, 0, sizeof(rec));
	while (!ret && !state_stop) {
		r = live_next(l, &rec, &rlost);
		if (r > 0 && rlost)
			sched_lost(s, rec.cpu);
		if (r < 0)
			ret = TP_FAIL;
		else if (r > 0)
			sched_record(s, &rec);
		else if (live_done(l) || (deadline && mono_s() >= deadline))
			break;
		else
			live_wait(l, 50);
	}
	if (l && s) {
		/* what the buffers still hold belongs to the table too */
		live_drain(l);
		while ((r = live_next(l, &rec, &rlost)) != 0 || !live_eof(l)) {
			if (r < 0) {
				ret = ret ? ret : TP_FAIL;
				break;
			}
			if (r > 0 && rlost)
				sched_lost(s, rec.cpu);
			if (r > 0)
				sched_record(s, &rec);
		}
	}
	if (!ret) {
		t = sched_table(s, &sched_sort);
		if (!t) {
			tp_error("out of memory");
			ret = TP_FAIL;
		} else if (output_sched(stdout, o->json ? OUTPUT_JSON : OUTPUT_TEXT, t,
					live_clock_ns(l)) < 0) {
			/* the reader of stdout went away (| head): a normal end */
			if (errno != EPIPE) {
				tp_error("cannot write to standard output: %s", strerror(errno));
				ret = TP_FAIL;
			}
			__fpurge(stdout);
			clearerr(stdout);
		}
		sched_table_free(t);
		sched_warn_gaps(s);
		lost = live_lost(l);
		if (lost)
			tp_warn("%llu events lost: the ring buffer overflowed before they were read",
				lost);
	}
	sched_free(s);
	return live_close(l, ret);
}

/*
 * START or END without a system: the NAME of a --probe of this run, whose
 * group (tpctl_<pid>) the user cannot know before.  The event's full name
 * goes into buf; anything else is left to custom_join's check.
 */
static int probe_side(const struct probe_words *w, const char **ev, char *buf, size_t size)
{
	struct probe p;
	int i, ret, found = 0;

	if (strchr(*ev, ':') || !w->n)
		return TP_OK;
	/* a probe's name needs its symbol, and whether the kernel has its kind */
	ret = tfs_init();
	if (ret)
		return ret;
	for (i = 0; i < w->n && !found; i++) {
		memset(&p, 0, sizeof(p));
		ret = probe_parse_word(w->v[i], &p);
		if (ret)
			return ret;
		found = !strcmp(p.name, *ev);
		probe_free(&p);
	}
	if (!found) {
		tp_error("'%s' is neither system:event nor the name of a --probe of this run", *ev);
		return TP_USAGE;
	}
	snprintf(buf, size, "%s:%s", probe_run_group(), *ev);
	*ev = buf;
	return TP_OK;
}

/* The pair START END --match S[=E] (match is split in place at '='). */
static int custom_join(struct agg_join *j, const char *start, const char *end, char *match)
{
	char *eq;

	if (strchr(start, '*') || strchr(start, '?') || strchr(start, '[') || !strchr(start, ':') ||
	    strchr(end, '*') || strchr(end, '?') || strchr(end, '[') || !strchr(end, ':')) {
		tp_error("START and END are single events, system:event ('%s', '%s')", start, end);
		return TP_USAGE;
	}
	eq = strchr(match, '=');
	if (!*match || eq == match || (eq && (!eq[1] || strchr(eq + 1, '=')))) {
		tp_error("invalid '--match %s': FIELD, or START's field=END's field", match);
		return TP_USAGE;
	}
	if (eq)
		*eq++ = '\0';
	j->side[0] = (struct agg_side){ start, false, { match }, 1, NULL, NULL, AGG_COND_NONE };
	j->side[1] = (struct agg_side){ end, true, { eq ? eq : match }, 1, NULL, NULL,
					AGG_COND_NONE };
	j->nside = 2;
	j->start = start;
	j->end = end;
	return TP_OK;
}

/* --function: lives as long as the run (agg_opts points to it) */
static struct ftr_spec latency_fs;

int latency_parse(struct agg_opts *o, struct target *tgt, int argc, char **argv)
{
	const char *by = NULL, *buckets = NULL;
	char *match = NULL;
	unsigned long long top = 0, step = 0, over = 0;
	const struct recipe *r = NULL;
	bool log2 = false;
	const struct tp_opt opts[] = {
		OPT_ARG("START END | RECIPE", "the events that begin and end what is timed, or a\n"
			"recipe: wakeup, syscall, irq, softirq, block, offcpu, sched"),
		OPT_STRING(0, "match", &match, "FIELD[=FIELD]",
			   "START and END pair when these fields are equal\n"
			   "(START's field=END's field, or one name for both)"),
		OPT_STRING(0, "sort", &o->sort, "KEY,...", "sched: the order of the tasks, perf's\n"
			   "keys avg, max, switch, runtime, pid (default:\n"
			   "avg,max,switch,runtime)"),
		OPT_STRING(0, "by", &by, "KEY,...", "one histogram per key: comm, pid, cpu, event,\n"
			   "start.FIELD, end.FIELD, FIELD, syscall (default: the recipe's)"),
		OPT_BOOL(0, "log2", &log2, "power-of-two buckets of microseconds (the default)"),
		OPT_CALLBACK(0, "linear", &step, "STEP", opt_duration,
			     "buckets STEP wide (a duration: 100us, 1ms)"),
		OPT_STRING(0, "buckets", &buckets, "DURATION,...",
			   "buckets that end at these durations, ascending:\n"
			   "[0, D1], (D1, D2], ..., (Dlast, ...) (serve: its le)"),
		OPT_CALLBACK(0, "over", &over, "DURATION", opt_duration,
			     "also print each pair longer than DURATION as it\n"
			     "closes, with both events (5ms)"),
		OPT_CALLBACK(0, "function", &latency_fs, "FUNC", ftr_graph_opt,
			     "the durations of the calls of kernel function FUNC\n"
			     "(function_graph returns) instead of START END"),
		AGG_OPTS(o, &top, "only the events matching EXPR (START's and END's)",
			 "only the N histograms with the most pairs",
			 "histograms every SEC seconds (of that interval), the totals at the end"),
		TARGET_OPTS(tgt),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = {
		"tpctl latency START END --match FIELD[=FIELD] | RECIPE [--by KEY,...]\n"
		"                     [--log2 | --linear STEP | --buckets DURATION,...] [--over DURATION]\n"
		"                     [--filter EXPR] [--top N]\n"
		"                     [--interval SEC] [--duration SEC] [--json] [--engine ENGINE]\n"
		"                     [--input FILE] [--sort KEY,...] [--probe SPEC]...\n"
		"                     [--function FUNC]\n"
		"                     " TARGET_USAGE,
		opts, OPT_COMMAND, NULL,
	};
	struct tp_args args;
	size_t i, n = 0;
	int ret, s;

	ret = agg_parse_begin(o, tgt, argc, argv, &spec, &args);
	if (ret)
		return ret;
	ret = TP_USAGE;
	if (latency_fs.ngraph) {
		if (args.argc || match || o->sort || step || buckets || over || o->interval > 0 ||
		    o->filter ||
		    o->probes.n || latency_fs.ngraph > 1 || latency_fs.graph[0][0] == '!' ||
		    o->engine == AGG_ENGINE_KERNEL)
			tp_error("'--function FUNC' times the functions of one name or glob: no START "
				 "END or RECIPE, "
				 "--match, --sort, --linear, --buckets, --over, --interval, --filter, "
				 "--probe or "
				 "--engine kernel");
		else
			ret = agg_spec_keys(&o->spec, by);
		if (!ret && !by)
			o->spec.nkeys = 0;
		if (!ret) {
			/* FUNC alone: nothing it calls */
			latency_fs.depth = 1;
			latency_fs.cmd = "latency";
			o->ftrace = &latency_fs;
			o->run = func_latency_run;
		}
		return agg_parse_end(o, &args, top, ret);
	}
	if (args.argc == 1 && !strcmp(args.argv[0], "sched")) {
		/* perf sched latency's table: none of the histograms' options */
		if (match || by || log2 || step || buckets || over || top || o->interval > 0 ||
		    o->filter || o->engine == AGG_ENGINE_KERNEL)
			tp_error("recipe 'sched' takes only --sort, --duration, --json, --input, "
				 "--engine user and a target");
		else
			ret = sched_sort_parse(&sched_sort, o->sort);
		if (!ret)
			o->run = sched_run;
		return agg_parse_end(o, &args, top, ret);
	} else if (o->sort) {
		tp_error("'--sort' is for the recipe 'sched'");
	} else if (args.argc == 1) {
		for (i = 0; i < NRECIPES; i++)
			if (!strcmp(args.argv[0], recipes[i].name))
				r = &recipes[i];
		if (!r)
			tp_error("unknown recipe '%s': wakeup, syscall, irq, softirq, block, offcpu, sched, "
				 "or START END --match FIELD", args.argv[0]);
		else if (match)
			tp_error("'--match' is for START END; recipe '%s' knows its fields", r->name);
		else
			ret = TP_OK;
	} else if (args.argc == 2) {
		if (!match)
			tp_error("START END need '--match FIELD[=FIELD]': the fields that pair them");
		else {
			const char *ev[2] = { args.argv[0], args.argv[1] };

			ret = probe_side(&o->probes, &ev[0], o->probe_side[0],
					 sizeof(o->probe_side[0]));
			if (!ret)
				ret = probe_side(&o->probes, &ev[1], o->probe_side[1],
						 sizeof(o->probe_side[1]));
			if (!ret)
				ret = custom_join(&o->join, ev[0], ev[1], match);
		}
	} else {
		tp_error(args.argc ? "too many arguments: START END, or a RECIPE" :
			 "no events: START END --match FIELD, or a RECIPE");
	}
	if (!ret && log2 + !!step + !!buckets > 1) {
		tp_error("'--log2', '--linear' and '--buckets' cannot be used together");
		ret = TP_USAGE;
	}
	/* without keys: one histogram of every pair */
	if (!ret && (by || (r && r->by)))
		ret = agg_spec_keys(&o->spec, by ? by : r->by);
	if (ret)
		return agg_parse_end(o, &args, top, ret);
	o->hist = true;
	o->spec.join = r ? &r->join : &o->join;
	o->spec.scale = step ? AGG_SCALE_LINEAR : AGG_SCALE_LOG2;
	o->spec.step = step;
	if (buckets) {
		ret = agg_spec_bounds(&o->spec, buckets, true);
		if (ret)
			return agg_parse_end(o, &args, top, ret);
	}
	o->over = over;
	/* the session traces the sides' events, each once */
	for (s = 0; s < o->spec.join->nside; s++) {
		const char *ev = o->spec.join->side[s].event;
		size_t k;

		for (k = 0; k < n && strcmp(o->join_events[k], ev); k++)
			;
		if (k == n)
			o->join_events[n++] = (char *)ev;
	}
	ret = agg_parse_end(o, &args, top, TP_OK);
	o->events = o->join_events;
	o->nevents = n;
	return ret;
}

int cmd_latency(int argc, char **argv)
{
	return agg_main(latency_parse, argc, argv);
}
