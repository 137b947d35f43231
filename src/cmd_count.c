// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl count EVENT... [--by KEY,...] [--filter EXPR] [--top N] [--interval SEC]
 *             [--duration SEC] [--json] [--engine kernel|user] [--stack]
 *
 * How many times each EVENT happened, per key (the event by default), in the
 * kernel's hist triggers or from the ring buffers; see agg.h and agg_run.c.
 */
#include <stdlib.h>
#include <string.h>

#include "agg_run.h"
#include "ftr.h"
#include "func_agg.h"
#include "opt.h"
#include "percpu.h"
#include "strargs.h"
#include "target.h"
#include "cmd.h"
#include "util.h"

/* --function: lives as long as the run (agg_opts points to it) */
static struct ftr_spec count_fs;

int count_parse(struct agg_opts *o, struct target *tgt, int argc, char **argv)
{
	const char *by = NULL;
	unsigned long long top = 0;
	bool stack = false;
	char *keys = NULL;
	const struct tp_opt opts[] = {
		OPT_ARG("EVENT", "system:event, system or a glob; traced in a private instance\n"
			"that is removed on exit"),
		OPT_EVENT(),
		OPT_STRING(0, "by", &by, "KEY,...", "count per key: event (the default), comm, pid,\n"
			   "cpu, stack, syscall (of syscall events, by name) or a field\n"
			   "of the events (fields.NAME for a field called like one of the\n"
			   "others)"),
		AGG_OPTS(o, &top, "count only the events matching EXPR", "only the N largest rows",
			 "a table every SEC seconds (of that interval), the totals at the end"),
		OPT_BOOL(0, "stack", &stack, "count per kernel stack too (as --by ...,stack)"),
		OPT_CALLBACK(0, "function", &count_fs, "PATTERN", ftr_function_opt,
			     "count the calls of the kernel functions matching PATTERN\n"
			     "(the function tracer; repeatable, '!PATTERN' excludes)"),
		THREADS_OPT(&o->threads),
		BUFFER_KB_OPT(&o->buffer_kb),
		STRINGS_OPT(&o->strings),
		TARGET_OPTS(tgt),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = {
		"tpctl count EVENT... [--by KEY,...] [--filter EXPR] [--top N] [--interval SEC]\n"
		"                   [--duration SEC] [--json] [--engine ENGINE] [--stack] [--threads N]\n"
		"                   [--buffer-kb N] [--probe SPEC]... [--strings] [--function PATTERN]...\n"
		"                   " TARGET_USAGE,
		opts, OPT_COMMAND, NULL,
	};
	struct tp_args args;
	int ret;

	ret = agg_parse_begin(o, tgt, argc, argv, &spec, &args);
	if (ret)
		return ret;
	ret = TP_USAGE;
	if (count_fs.nfunc && (args.argc || o->probes.n || stack || o->strings ||
			       o->filter || o->engine == AGG_ENGINE_KERNEL))
		tp_error("'--function' counts calls by function alone: no EVENT, --probe, --stack, "
			 "--strings, --filter or --engine kernel");
	else if (count_fs.nfunc) {
		count_fs.cmd = "count";
		o->ftrace = &count_fs;
		o->run = func_count_run;
		ret = agg_spec_keys(&o->spec, by && strcmp(by, "func") ? by : NULL);
		if (!ret && !by)
			o->spec.nkeys = 0;
	} else if (!args.argc && !o->probes.n)
		tp_error("no event given");
	else if (stack && asprintf(&keys, "%s,stack", by ? by : "event") < 0)
		tp_oom();
	else
		ret = agg_spec_keys(&o->spec, keys ? keys : by);
	free(keys);
	return agg_parse_end(o, &args, top, ret);
}

int cmd_count(int argc, char **argv)
{
	return agg_main(count_parse, argc, argv);
}
