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
#include <string.h>

#include <event-parse.h>

#include "agg_run.h"
#include "ftr.h"
#include "func_agg.h"
#include "live.h"
#include "opt.h"
#include "output.h"
#include "percpu.h"
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
		/* a switch in the kernel did not record, placed at the wakeup before it */
		.infer_in = true, .also = {
			{ "sched:sched_wakeup", "pid" }, { "sched:sched_wakeup_new", "pid" },
			{ "sched:sched_process_exit", NULL },
		},
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

/* latency sched: each record to the table, a loss marked on its CPU */
static int sched_rec(void *ctx, struct tep_record *rec, long long lost)
{
	if (lost)
		sched_lost(ctx, rec->cpu);
	sched_record(ctx, rec);
	return LIVE_GO;
}

/* The table once, and what was lost. */
static int sched_print(struct sched *s, struct live *l, bool json)
{
	struct sched_table *t = sched_table(s, &sched_sort);
	unsigned long long lost;
	int ret = TP_OK;

	if (!t)
		return tp_oom();
	if (output_sched(stdout, json ? OUTPUT_JSON : OUTPUT_TEXT, t, live_clock_ns(l)) < 0)
		ret = live_stdout_failed(errno, ret);
	sched_table_free(t);
	sched_warn_gaps(s);
	lost = live_lost(l);
	if (lost)
		live_warn_lost(lost);
	return ret;
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
	struct live_tool tool = { .record = sched_rec, .duration = o->duration };
	struct sched *s = NULL;
	struct live *l = NULL;
	char kb[32];
	int ret, err;

	if (tp.instance) {
		tp_error("%s traces in a private instance; '-i %s' cannot be used", tp.cmd,
			 tp.instance);
		return TP_USAGE;
	}
	for (spec.nevents = 0; ev[spec.nevents]; spec.nevents++)
		;
	spec.events = (char **)ev;
	if (o->buffer_kb && snprintf(kb, sizeof(kb), "%llu", o->buffer_kb) > 0)
		spec.buffer_kb = kb;
	ret = live_open(&l, &spec);
	if (!ret)
		ret = sched_new(&s, live_tep(l));
	if (!ret)
		ret = live_start(l);
	/* -- COMMAND: its own tasks, not those the pid filter lets in beside them */
	if (!ret && o->target && o->target->argv && !o->target->all)
		sched_own(s, target_pid(o->target));
	tool.ctx = s;
	if (!ret)
		ret = live_run(l, &tool);
	if (l && s) {
		/* what the buffers still hold belongs to the table too */
		err = live_finish(l, &tool);
		ret = ret ? ret : err;
	}
	if (!ret)
		ret = sched_print(s, l, o->json);
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

/* latency's own words on the command line, beside struct agg_opts */
struct latency_words {
	struct tp_args args;
	const char *by, *buckets, *state;
	char *match;
	unsigned long long top, step, over;
	bool log2, ustack;
};

/* latency sched: perf sched latency's table, none of the histograms' options */
static int sched_parse(struct agg_opts *o, struct latency_words *w)
{
	int ret = TP_USAGE;

	if (w->match || w->by || w->log2 || w->step || w->buckets || w->over || w->top ||
	    w->state || o->interval > 0 || o->filter || o->engine == AGG_ENGINE_KERNEL)
		tp_error("recipe 'sched' takes only --sort, --duration, --json, --input, "
			 "--engine user and a target");
	else
		ret = sched_sort_parse(&sched_sort, o->sort);
	if (!ret)
		o->run = sched_run;
	return agg_parse_end(o, &w->args, w->top, ret);
}

/* What is paired: a RECIPE (*r), or START END --match into o->join. */
static int pair_parse(struct agg_opts *o, struct latency_words *w, const struct recipe **r)
{
	char **argv = w->args.argv;
	const char *ev[2];
	size_t i;
	int ret;

	if (o->sort) {
		tp_error("'--sort' is for the recipe 'sched'");
	} else if (w->args.argc == 1) {
		for (i = 0; i < NRECIPES; i++)
			if (!strcmp(argv[0], recipes[i].name))
				*r = &recipes[i];
		if (!*r)
			tp_error("unknown recipe '%s': wakeup, syscall, irq, softirq, block, offcpu, sched, "
				 "or START END --match FIELD", argv[0]);
		else if (w->match)
			tp_error("'--match' is for START END; recipe '%s' knows its fields", (*r)->name);
		else
			return TP_OK;
	} else if (w->args.argc == 2) {
		if (!w->match) {
			tp_error("START END need '--match FIELD[=FIELD]': the fields that pair them");
			return TP_USAGE;
		}
		ev[0] = argv[0];
		ev[1] = argv[1];
		ret = probe_side(&o->probes, &ev[0], o->probe_side[0], sizeof(o->probe_side[0]));
		if (!ret)
			ret = probe_side(&o->probes, &ev[1], o->probe_side[1],
					 sizeof(o->probe_side[1]));
		if (!ret)
			ret = custom_join(&o->join, ev[0], ev[1], w->match);
		return ret;
	} else {
		tp_error(w->args.argc ? "too many arguments: START END, or a RECIPE" :
			 "no events: START END --match FIELD, or a RECIPE");
	}
	return TP_USAGE;
}

/*
 * --state S,D: offcpu's switches out kept, by the task's state as
 * sched_switch's text shows it (the letters any kernel's print fmt has had,
 * and R); which bits they are is read from the format when the run starts
 * (agg_join.c).  The recipe's pair copied into o->join with the condition.
 */
static int state_parse(struct agg_opts *o, const struct recipe *r, const char *state)
{
	const char *p;

	if (!r || strcmp(r->name, "offcpu")) {
		tp_error("'--state' is for the recipe 'offcpu'");
		return TP_USAGE;
	}
	for (p = state; *p; p += 2) {
		if (!strchr("RSDTtXZPIxKWN", *p) || (p[1] && p[1] != ',') ||
		    (p[1] == ',' && !p[2])) {
			tp_error("invalid '--state %s': letters of sched_switch's prev_state, as "
				 "S,D (R S D T t X Z P I, older kernels' x K W N)", state);
			return TP_USAGE;
		}
		if (!p[1])
			break;
	}
	if (!*state) {
		tp_error("invalid '--state': letters of sched_switch's prev_state, as S,D");
		return TP_USAGE;
	}
	o->join = r->join;
	o->join.side[0].cond = AGG_COND_STATE;
	o->join.state = state;
	return TP_OK;
}

/* The histograms of the pairs: their keys and buckets, the sides' events. */
static int pairs_parse(struct agg_opts *o, struct latency_words *w)
{
	const struct recipe *r = NULL;
	int ret, s;
	size_t n = 0;

	ret = pair_parse(o, w, &r);
	if (!ret && w->state) {
		ret = state_parse(o, r, w->state);
	}
	if (!ret && w->log2 + !!w->step + !!w->buckets > 1) {
		tp_error("'--log2', '--linear' and '--buckets' cannot be used together");
		ret = TP_USAGE;
	}
	/* without keys: one histogram of every pair */
	if (!ret && (w->by || (r && r->by)))
		ret = agg_spec_keys(&o->spec, w->by ? w->by : r->by);
	if (ret)
		return agg_parse_end(o, &w->args, w->top, ret);
	o->hist = true;
	o->spec.join = r && !w->state ? &r->join : &o->join;
	o->spec.scale = w->step ? AGG_SCALE_LINEAR : AGG_SCALE_LOG2;
	o->spec.step = w->step;
	if (w->buckets) {
		ret = agg_spec_bounds(&o->spec, w->buckets, true);
		if (ret)
			return agg_parse_end(o, &w->args, w->top, ret);
	}
	o->over = w->over;
	/* the session traces the sides' events, each once, and those the join also wants */
	for (s = 0; s < o->spec.join->nside + AGG_ALSO_MAX; s++) {
		const char *ev = s < o->spec.join->nside ? o->spec.join->side[s].event :
				 o->spec.join->also[s - o->spec.join->nside].event;

		if (!ev)
			break;
		size_t k;

		for (k = 0; k < n && strcmp(o->join_events[k], ev); k++)
			;
		if (k == n)
			o->join_events[n++] = (char *)ev;
	}
	ret = agg_parse_end(o, &w->args, w->top, TP_OK);
	o->events = o->join_events;
	o->nevents = n;
	return ret;
}

/*
 * --function FUNC on the kernel engine: a kprobe at FUNC and a kretprobe of
 * it, made for this run (group tpctl_<pid>, removed at the end as every
 * --probe), paired per task as START END --match common_pid by the kernel
 * engine of the pairs (a synthetic event and hist triggers): only the
 * histograms leave the kernel.  The probes' words and names live as long as
 * the run.
 */
static char kfunc_word[2][NAMES_PROBE_MAX + 8];
static char *kfunc_argv[2];
static char kfunc_match[] = "common_pid";

/*
 * Which engine times FUNC: 1 the kernel's, 0 function_graph's (the user
 * engine), or the status of an error (--engine kernel where it cannot).
 */
static int function_engine(const struct agg_opts *o, const char *func, bool stack)
{
	struct tfs_event sw = { (char *)"sched", (char *)"sched_switch" };
	bool must = o->engine == AGG_ENGINE_KERNEL;
	const char *why = NULL;
	int ret;

	if (o->engine == AGG_ENGINE_USER)
		return 0;
	if (stack)
		why = "it times calls, not their call paths ('--by stack': function_graph)";
	else if (o->input)
		why = "'--input' reads a recording: the user engine does ('--engine user')";
	else if (strpbrk(func, "*?[!"))
		why = "the kernel times one function, not a glob";
	/* FUNC__return is the kretprobe's name, within the kernel's 64 characters */
	else if (strlen(func) + strlen("__return") > NAMES_PROBE_MAX)
		why = "the function's name is too long for a probe's";
	if (why && must) {
		tp_error("the kernel engine cannot do this latency: %s", why);
		return TP_USAGE;
	}
	if (why)
		return 0;
	ret = tfs_init();
	if (ret)
		return ret;
	if (!tfs_has_file(NULL, "kprobe_events"))
		why = "this kernel has no kprobe events";
	else if (!tfs_has_synth())
		why = "this kernel has no synthetic events";
	else if (!tfs_event_has_hist(NULL, &sw))
		why = "this kernel has no hist triggers";
	if (!why)
		return 1;
	if (must) {
		tp_error("the kernel engine cannot do this latency: %s", why);
		return TP_FAIL;
	}
	tp_debug("user engine (function_graph): %s", why);
	return 0;
}

/* FUNC's calls as the pairs of its kprobe and kretprobe (see kfunc_word). */
static int kfunc_parse(struct agg_opts *o, struct latency_words *w)
{
	const char *func = latency_fs.graph[0];
	struct probe p;
	int i, k, ret = TP_OK;

	if (tp.instance) {
		tp_error("%s traces in a private instance; '-i %s' cannot be used", tp.cmd,
			 tp.instance);
		ret = TP_USAGE;
	}
	for (i = 0; i < 2 && !ret; i++) {
		snprintf(kfunc_word[i], sizeof(kfunc_word[i]), "%s:%s", i ? "kr" : "k", func);
		memset(&p, 0, sizeof(p));
		ret = probe_parse_word(kfunc_word[i], &p);
		if (!ret) {
			snprintf(o->probe_side[i], sizeof(o->probe_side[i]), "%s:%s",
				 probe_run_group(), p.name);
			o->probes.v[o->probes.n++] = kfunc_word[i];
			kfunc_argv[i] = o->probe_side[i];
		}
		probe_free(&p);
	}
	if (ret)
		return agg_parse_end(o, &w->args, w->top, ret);
	w->args.argc = 2;
	w->args.argv = kfunc_argv;
	w->match = kfunc_match;
	ret = pairs_parse(o, w);
	/* the keys the kernel's pairs carry: the task's */
	for (k = 0; !ret && k < o->spec.nkeys; k++) {
		if (o->spec.kind[k] != AGG_KEY_COMM && o->spec.kind[k] != AGG_KEY_PID) {
			tp_error("'--by' of '--function' takes 'comm' and 'pid' on the kernel "
				 "engine, 'comm' on the user engine");
			ret = agg_parse_end(o, &w->args, w->top, TP_USAGE);
		}
	}
	/* the output names both ends FUNC, as function_graph's histogram does */
	o->join.start = o->join.end = func;
	return ret;
}

/* --by KEY,... names the key stack */
static bool by_stack(const char *by)
{
	size_t n = strlen("stack");

	for (; by; by = strchr(by, ',') ? strchr(by, ',') + 1 : NULL)
		if (!strncmp(by, "stack", n) && (by[n] == ',' || !by[n]))
			return true;
	return false;
}

/*
 * --function FUNC: the durations of its calls, none of the pairs' options;
 * --by stack: function_graph from FUNC down, every depth (func_stack.c).
 */
static int function_parse(struct agg_opts *o, struct latency_words *w)
{
	bool stack = by_stack(w->by);
	int ret = TP_USAGE;

	if (w->args.argc || w->match || o->sort || w->step || w->buckets || w->over ||
	    o->interval > 0 || o->filter || o->probes.n || latency_fs.ngraph > 1 ||
	    latency_fs.graph[0][0] == '!') {
		tp_error("'--function FUNC' times the functions of one name or glob: no START "
			 "END or RECIPE, "
			 "--match, --sort, --linear, --buckets, --over, --interval, --filter "
			 "or --probe");
		return agg_parse_end(o, &w->args, w->top, ret);
	}
	ret = function_engine(o, latency_fs.graph[0], stack);
	if (ret == 1)
		return kfunc_parse(o, w);
	if (!ret)
		ret = agg_spec_keys(&o->spec, w->by);
	if (!ret && !w->by)
		o->spec.nkeys = 0;
	if (!ret) {
		/* FUNC alone: nothing it calls (func_agg.c); its paths: all it calls */
		latency_fs.depth = stack ? 0 : 1;
		latency_fs.cmd = "latency";
		o->ftrace = &latency_fs;
		o->run = func_latency_run;
	}
	return agg_parse_end(o, &w->args, w->top, ret);
}

int latency_parse(struct agg_opts *o, struct target *tgt, int argc, char **argv)
{
	struct latency_words w = { .by = NULL };
	const struct tp_opt opts[] = {
		OPT_ARG("START END | RECIPE", "the events that begin and end what is timed, or a\n"
			"recipe: wakeup, syscall, irq, softirq, block, offcpu, sched"),
		OPT_EVENT(),
		OPT_STRING(0, "match", &w.match, "FIELD[=FIELD]",
			   "START and END pair when these fields are equal\n"
			   "(START's field=END's field, or one name for both)"),
		OPT_STRING(0, "sort", &o->sort, "KEY,...", "sched: the order of the tasks, perf's\n"
			   "keys avg, max, switch, runtime, pid (default:\n"
			   "avg,max,switch,runtime)"),
		OPT_STRING(0, "by", &w.by, "KEY,...", "one histogram per key: comm, pid, cpu, event,\n"
			   "start.FIELD, end.FIELD, FIELD, syscall, stack (START's;\n"
			   "with --function: its call paths) (default: the recipe's)"),
		OPT_STRING(0, "state", &w.state, "STATE,...",
			   "offcpu: only the switches out in these task states,\n"
			   "prev_state's letters as sched_switch prints them:\n"
			   "S (sleeping), D (uninterruptible), R (preempted)..."),
		OPT_BOOL(0, "user-stack", &w.ustack,
			 "user frames in the stacks: refused, the kernel walks\n"
			 "user stacks by frame pointers only (tpctl-latency(1))"),
		OPT_BOOL(0, "log2", &w.log2, "power-of-two buckets of microseconds (the default)"),
		OPT_CALLBACK(0, "linear", &w.step, "STEP", opt_duration,
			     "buckets STEP wide (a duration: 100us, 1ms)"),
		OPT_STRING(0, "buckets", &w.buckets, "DURATION,...",
			   "buckets that end at these durations, ascending:\n"
			   "[0, D1], (D1, D2], ..., (Dlast, ...) (serve: its le)"),
		OPT_CALLBACK(0, "over", &w.over, "DURATION", opt_duration,
			     "also print each pair longer than DURATION as it\n"
			     "closes, with both events (5ms)"),
		OPT_CALLBACK(0, "function", &latency_fs, "FUNC", ftr_graph_opt,
			     "the durations of the calls of kernel function FUNC\n"
			     "instead of START END (kernel engine: a kprobe and a\n"
			     "kretprobe paired in the kernel; user: function_graph)"),
		AGG_OPTS(o, &w.top, "only the events matching EXPR (START's and END's)",
			 "only the N histograms with the most pairs",
			 "histograms every SEC seconds (of that interval), the totals at the end"),
		BUFFER_KB_OPT(&o->buffer_kb),
		TARGET_OPTS(tgt),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = {
		"tpctl latency START END --match FIELD[=FIELD] | RECIPE [--by KEY,...]\n"
		"                     [--log2 | --linear STEP | --buckets DURATION,...] [--over DURATION]\n"
		"                     [--filter EXPR] [--top N] [--state STATE,...]\n"
		"                     [--interval SEC] [--duration SEC] [--json] [--engine ENGINE]\n"
		"                     [--input FILE] [--sort KEY,...] [--probe SPEC]...\n"
		"                     [--function FUNC] [--buffer-kb N]\n"
		"                     " TARGET_USAGE,
		opts, OPT_COMMAND, NULL,
	};
	int ret;

	ret = agg_parse_begin(o, tgt, argc, argv, &spec, &w.args);
	if (ret)
		return ret;
	/*
	 * The kernel's user stacks (options/userstacktrace, the only kind) follow
	 * frame pointers: code built without them, as most C libraries are, ends
	 * the walk after one frame, or goes on with whatever the stack holds.
	 */
	if (w.ustack) {
		tp_error("'--user-stack' is refused: the kernel walks user stacks by frame "
			 "pointers only, which code built without them (most C libraries) "
			 "breaks after one frame; the stacks are the kernel's");
		return agg_parse_end(o, &w.args, w.top, TP_USAGE);
	}
	if (latency_fs.ngraph)
		return function_parse(o, &w);
	if (w.args.argc == 1 && !strcmp(w.args.argv[0], "sched"))
		return sched_parse(o, &w);
	return pairs_parse(o, &w);
}

int cmd_latency(int argc, char **argv)
{
	return agg_main(latency_parse, argc, argv);
}
