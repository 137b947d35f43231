// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl hist EVENT... --field FIELD [--by KEY,...] [--log2 | --linear STEP | --buckets N,...]
 *            [--filter EXPR] [--top N] [--interval SEC] [--duration SEC] [--json]
 *            [--engine kernel|user]
 *
 * The distribution of a numeric field of EVENT per key: count, sum, min,
 * max and buckets; see agg.h and agg_run.c.
 */
#include <stdint.h>
#include <string.h>

#include "agg_run.h"
#include "opt.h"
#include "percpu.h"
#include "strargs.h"
#include "target.h"
#include "cmd.h"
#include "util.h"

int hist_parse(struct agg_opts *o, struct target *tgt, int argc, char **argv)
{
	const char *by = NULL, *field = NULL, *buckets = NULL;
	unsigned long long top = 0, step = 0;
	bool log2 = false;
	const struct tp_opt opts[] = {
		OPT_ARG("EVENT", "system:event, system or a glob; traced in a private instance\n"
			"that is removed on exit"),
		OPT_EVENT(),
		OPT_STRING(0, "field", &field, "FIELD", "the numeric field whose values are counted"),
		OPT_STRING(0, "by", &by, "KEY,...", "one histogram per key: event, comm, pid, cpu,\n"
			   "stack or a field of the events (default: one for all)"),
		OPT_BOOL(0, "log2", &log2, "power-of-two buckets: [0], [1], [2, 4), ... (the default)"),
		OPT_UINT(0, "linear", &step, "STEP", 1, INT64_MAX,
			 "buckets STEP wide: [0, STEP), [STEP, 2*STEP), ..."),
		OPT_STRING(0, "buckets", &buckets, "N,...",
			   "buckets that end at these values, ascending: [min, N1],\n"
			   "(N1, N2], ..., (Nlast, max] (serve: its le)"),
		AGG_OPTS(o, &top, "only the events matching EXPR",
			 "only the N histograms with the most events",
			 "histograms every SEC seconds (of that interval), the totals at the end"),
		THREADS_OPT(&o->threads),
		BUFFER_KB_OPT(&o->buffer_kb),
		STRINGS_OPT(&o->strings),
		TARGET_OPTS(tgt),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = {
		"tpctl hist EVENT... --field FIELD [--by KEY,...]\n"
		"                  [--log2 | --linear STEP | --buckets N,...]\n"
		"                  [--filter EXPR] [--top N] [--interval SEC] [--duration SEC]\n"
		"                  [--json] [--engine ENGINE] [--threads N] [--buffer-kb N]\n"
		"                  [--probe SPEC]... [--strings]\n"
		"                  " TARGET_USAGE,
		opts, OPT_COMMAND, NULL,
	};
	struct tp_args args;
	int ret;

	ret = agg_parse_begin(o, tgt, argc, argv, &spec, &args);
	if (ret)
		return ret;
	o->hist = true;
	ret = TP_USAGE;
	if (!args.argc && !o->probes.n)
		tp_error("no event given");
	else if (!field)
		tp_error("no field given; use --field FIELD");
	else if (log2 + !!step + !!buckets > 1)
		tp_error("'--log2', '--linear' and '--buckets' cannot be used together");
	else
		/* without --by: one histogram of every event */
		ret = by ? agg_spec_keys(&o->spec, by) : TP_OK;
	o->spec.value = field;
	o->spec.scale = step ? AGG_SCALE_LINEAR : AGG_SCALE_LOG2;
	o->spec.step = step;
	if (!ret && buckets)
		ret = agg_spec_bounds(&o->spec, buckets, false);
	return agg_parse_end(o, &args, top, ret);
}

int cmd_hist(int argc, char **argv)
{
	return agg_main(hist_parse, argc, argv);
}
