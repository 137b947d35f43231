// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The commands that steer tracing state and keep their changes:
 *   tpctl enable  EVENT... [--filter EXPR]
 *   tpctl disable EVENT... | --all
 *   tpctl filter  EVENT [EXPR | --clear]
 *   tpctl reset
 *
 * Each checks everything it can (names, filters) before it writes anything,
 * and commits its journal only when every write worked: on any failure main()
 * rolls back, so a failed command changes nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "names.h"
#include "state.h"
#include "opt.h"
#include "ftr.h"
#include "probe.h"
#include "tfs.h"
#include "cmd.h"
#include "util.h"

/* Open tracefs and the -i instance. */
static void note_tracing_off(struct tracefs_instance *inst)
{
	if (tracefs_trace_is_on(inst) == 0)
		tp_note("note: tracing is off in %s (tracing_on is 0); events are not recorded",
			tfs_instance_label(inst));
}

int cmd_enable(int argc, char **argv)
{
	struct tracefs_instance *inst = NULL;
	struct tep_handle *tep = NULL;
	struct tfs_event_list evs = { 0 };
	const char *filter = NULL;
	int ret;
	size_t i;
	const struct tp_opt opts[] = {
		OPT_ARG("EVENT", "system:event, system or a glob (sched:sched_*)"),
		OPT_STRING('f', "filter", &filter, "EXPR", "also set this filter on every event named"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = { "tpctl enable EVENT... [--filter EXPR]", opts, 0, NULL };
	struct tp_args args;

	ret = opt_parse_operands(argc, argv, &spec, &args, "event");
	if (ret)
		return opt_status(ret);
	ret = tfs_open(&inst);
	if (!ret)
		ret = tfs_events_resolve(inst, args.argv, args.argc, &evs);
	if (ret)
		goto out;
	if (filter) {
		tep = tfs_tep_load(NULL);
		if (!tep) {
			ret = TP_FAIL;
			goto out;
		}
		/* every filter is checked before the first write */
		for (i = 0; i < evs.n && !ret; i++)
			ret = tfs_filter_check(tep, &evs.v[i], filter);
	}
	for (i = 0; i < evs.n && !ret; i++) {
		if (filter)
			ret = tfs_event_filter_set(inst, tep, &evs.v[i], filter);
		if (!ret)
			ret = tfs_event_enable(inst, &evs.v[i], true);
	}
	if (!ret) {
		state_commit();
		tp_debug("enabled %zu event(s) in %s", evs.n, tfs_instance_label(inst));
		note_tracing_off(inst);
	}
out:
	tfs_tep_free(tep);
	tfs_event_list_free(&evs);
	tracefs_instance_free(inst);
	return ret;
}

/*
 * The events enabled in inst, from their enable files (set_event would do on a
 * kernel, but reading the files works on any tracefs tree, --tracefs too).
 */
static int enabled_events(struct tracefs_instance *inst, struct tfs_event_list *out)
{
	struct tfs_event_list all;
	size_t i, keep = 0;
	int ret;

	ret = tfs_events_available(inst, &all);
	if (ret)
		return ret;
	for (i = 0; i < all.n; i++) {
		if (tfs_event_is_enabled(inst, &all.v[i]) == 1) {
			all.v[keep++] = all.v[i];
		} else {
			free(all.v[i].system);
			free(all.v[i].name);
		}
	}
	all.n = keep;
	*out = all;
	return TP_OK;
}

int cmd_disable(int argc, char **argv)
{
	struct tracefs_instance *inst = NULL;
	struct tfs_event_list evs = { 0 };
	bool all = false;
	int ret;
	size_t i;
	const struct tp_opt opts[] = {
		OPT_ARG("EVENT", "system:event, system or a glob"),
		OPT_BOOL('a', "all", &all, "disable every enabled event of the instance"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = { "tpctl disable EVENT... | --all", opts, 0, NULL };
	struct tp_args args;

	ret = opt_parse(argc, argv, &spec, &args);
	if (ret)
		return opt_status(ret);
	if (all == (args.argc > 0)) {
		tp_error(all ? "give either events or --all, not both" :
			 "no event given; name events or use --all");
		return TP_USAGE;
	}
	ret = tfs_open(&inst);
	if (!ret)
		ret = all ? enabled_events(inst, &evs) :
		      tfs_events_resolve(inst, args.argv, args.argc, &evs);
	for (i = 0; !ret && i < evs.n; i++)
		ret = tfs_event_enable(inst, &evs.v[i], false);
	if (!ret)
		state_commit();
	tfs_event_list_free(&evs);
	tracefs_instance_free(inst);
	return ret;
}

/* Join argv[from..argc) with single spaces: `tpctl filter ev prev_pid == 1` works unquoted. */
static char *join_args(int argc, char **argv, int from)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = from; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (i = from; i < argc; i++) {
		if (i > from)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

int cmd_filter(int argc, char **argv)
{
	struct tracefs_instance *inst = NULL;
	struct tep_handle *tep = NULL;
	struct tfs_event_list evs = { 0 };
	bool clear = false;
	char *expr = NULL;
	int ret;
	size_t i;
	const struct tp_opt opts[] = {
		OPT_ARG("EVENT", "system:event, system or a glob"),
		OPT_ARG("EXPR", "the filter, in the kernel's syntax (prev_pid > 1 && prev_prio < 100);\n"
			"without EXPR the current filters are shown"),
		OPT_BOOL('c', "clear", &clear, "remove the filter"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = { "tpctl filter EVENT [EXPR | --clear]", opts, OPT_STOP_AT_ARG, NULL };
	struct tp_args args;

	/* "+": everything after EVENT is the expression, even "-1" or "!" */
	ret = opt_parse_operands(argc, argv, &spec, &args, "event");
	if (ret)
		return opt_status(ret);
	/* allow --clear (or -c) after EVENT too */
	if (args.argc == 2 &&
	    (!strcmp(args.argv[1], "--clear") || !strcmp(args.argv[1], "-c"))) {
		clear = true;
		args.argc--;
	}
	if (clear && args.argc > 1) {
		tp_error("give either a filter or --clear, not both");
		return TP_USAGE;
	}
	if (args.argc > 1) {
		expr = join_args(args.argc, args.argv, 1);
		if (!expr)
			return tp_oom();
	}
	ret = tfs_open(&inst);
	if (!ret)
		ret = tfs_events_resolve(inst, args.argv, 1, &evs);
	if (ret)
		goto out;
	if (expr) {
		tep = tfs_tep_load(NULL);
		if (!tep) {
			ret = TP_FAIL;
			goto out;
		}
		for (i = 0; i < evs.n && !ret; i++)
			ret = tfs_filter_check(tep, &evs.v[i], expr);
		for (i = 0; i < evs.n && !ret; i++)
			ret = tfs_event_filter_set(inst, tep, &evs.v[i], expr);
	} else if (clear) {
		for (i = 0; i < evs.n && !ret; i++)
			ret = tfs_event_filter_clear(inst, &evs.v[i]);
	} else {
		for (i = 0; i < evs.n; i++) {
			char *f = tfs_event_filter_get(inst, &evs.v[i]);

			printf("%s:%s\t%s\n", evs.v[i].system, evs.v[i].name, f ? f : "none");
			free(f);
		}
	}
	if (!ret)
		state_commit();
out:
	free(expr);
	tfs_tep_free(tep);
	tfs_event_list_free(&evs);
	tracefs_instance_free(inst);
	return ret;
}

int cmd_reset(int argc, char **argv)
{
	struct tracefs_instance *inst = NULL;
	struct tfs_event_list evs = { 0 }, all = { 0 };
	size_t i, disabled = 0, cleared = 0;
	char **names = NULL;
	int ret;
	const struct tp_opt opts[] = {
		OPT_END(),
	};
	const struct tp_cmd_spec spec = { "tpctl reset", opts, 0, "Disables every enabled event of the instance and clears every event filter; at the\n"
		"top level also removes the private instances, probes and synthetic events (of latency\n"
		"and of syscall strings) of tpctl processes that no longer run." };
	struct tp_args args;

	ret = opt_parse_operands(argc, argv, &spec, &args, NULL);
	if (ret)
		return opt_status(ret);
	ret = tfs_open(&inst);
	if (!ret)
		ret = enabled_events(inst, &evs);
	for (i = 0; !ret && i < evs.n; i++) {
		ret = tfs_event_enable(inst, &evs.v[i], false);
		disabled++;
	}
	if (!ret)
		ret = tfs_events_available(inst, &all);
	for (i = 0; !ret && i < all.n; i++) {
		char *f = tfs_event_filter_get(inst, &all.v[i]);

		if (f) {
			ret = tfs_event_filter_clear(inst, &all.v[i]);
			cleared++;
			free(f);
		}
	}
	if (ret)
		goto out;
	state_commit();
	if (disabled || cleared)
		tp_note("disabled %zu event(s) and cleared %zu filter(s) in %s", disabled, cleared,
			tfs_instance_label(inst));
	if (!inst)
		names = tracefs_instances(NULL);
	for (i = 0; names && names[i]; i++) {
		struct tracefs_instance *orphan;

		if (!names_instance_orphaned(names[i]))
			continue;
		orphan = tracefs_instance_alloc(tfs_dir(), names[i]);
		/* hist triggers that use each other's variables keep the kernel from rmdir */
		if (orphan && tracefs_instance_destroy(orphan) < 0 && errno == EBUSY)
			tfs_instance_clear_triggers(orphan);
		if (!orphan || (tracefs_instance_destroy(orphan) < 0 && errno != ENOENT)) {
			tp_error("cannot remove orphaned instance '%s': %s", names[i],
				 strerror(errno));
			ret = TP_FAIL;
		} else {
			tp_note("removed orphaned instance '%s' (its process is gone)", names[i]);
		}
		tracefs_instance_free(orphan);
	}
	/* a function_graph at the top level (kernels before 6.9) of a run that was KILLed */
	if (!inst && ftr_reset_orphans())
		ret = TP_FAIL;
	/* after the instances: a probe enabled in one cannot be removed */
	if (!inst && probe_remove_orphans())
		ret = TP_FAIL;
	/*
	 * What their triggers named (a latency's synthetic event), once they
	 * are gone, and after the probes: a --strings probe is on one
	 */
	if (!inst && tfs_has_synth() && tfs_synth_remove_orphans())
		ret = TP_FAIL;
out:
	tracefs_list_free(names);
	tfs_event_list_free(&all);
	tfs_event_list_free(&evs);
	tracefs_instance_free(inst);
	return ret;
}
