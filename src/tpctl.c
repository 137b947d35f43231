// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl - see and steer kernel tracepoints through tracefs.
 *
 * main(): global options, the command table, and the mapping of a command's
 * return value to the exit status.  Whatever a command changed and did not
 * commit is put back here (state_rollback), whichever way it returns.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "near.h"
#include "opt.h"
#include "state.h"
#include "cmd.h"
#include "util.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "list",    cmd_list,    "list events (from available_events)" },
	{ "format",  cmd_format,  "show the fields and print format of events" },
	{ "enable",  cmd_enable,  "enable events, optionally with a filter" },
	{ "disable", cmd_disable, "disable events" },
	{ "filter",  cmd_filter,  "show, set or clear the filter of an event" },
	{ "status",  cmd_status,  "show enabled events, filters, buffers and loss counters" },
	{ "stream",  cmd_stream,  "decode live events as text or NDJSON" },
	{ "record",  cmd_record,  "record events into a trace.dat file" },
	{ "report",  cmd_report,  "decode a trace.dat file as text or NDJSON" },
	{ "count",   cmd_count,   "count events per key (comm, pid, a field, ...)" },
	{ "hist",    cmd_hist,    "the distribution of a field's values, per key" },
	{ "latency", cmd_latency, "how long from one event to another: histograms per key" },
	{ "probe",   cmd_probe,   "uprobes, kprobes and event probes: list, add, remove" },
	{ "strace",  cmd_strace,  "strace's lines from the syscall tracepoints, without stopping the program" },
	{ "serve",   cmd_serve,   "tracepoint metrics for Prometheus over HTTP (count, hist, latency)" },
	{ "reset",   cmd_reset,   "disable what tpctl can see enabled" },
	{ NULL, NULL, NULL },
};

/* A word that names no command, with the closest one (stat: status) when it is close. */
static int unknown_command(const char *word)
{
	const struct command *c;
	const char *best;
	struct near near;

	near_init(&near, word, 1);
	for (c = commands; c->name; c++)
		near_add(&near, c->name, strlen(c->name));
	/* at most a third of the word changed, or two letters (stat: status) */
	best = near_best(&near, strlen(word) < 6 ? 2 : (strlen(word) + 2) / 3);
	if (best)
		tp_error("unknown command '%s' (did you mean '%s'?); try 'tpctl --help'", word,
			 best);
	else
		tp_error("unknown command '%s'; try 'tpctl --help'", word);
	near_free(&near);
	return TP_USAGE;
}

/* "commands:" and their summaries, for --help; a line each. */
static const char *commands_note(void)
{
	static char buf[2048];
	const struct command *c;
	size_t len;

	len = snprintf(buf, sizeof(buf), "commands:");
	for (c = commands; c->name && len < sizeof(buf); c++)
		len += snprintf(buf + len, sizeof(buf) - len, "\n  %-8s %s", c->name, c->summary);
	if (len < sizeof(buf))
		snprintf(buf + len, sizeof(buf) - len,
			 "\n\n'tpctl COMMAND --help' shows a command's options; see tpctl(1) and "
			 "tpctl-COMMAND(1).\nexit status: 0 success, 1 the operation failed, "
			 "2 usage error\n\nglobal options:");
	return buf;
}

static int opt_verbose(const struct tp_opt *o, const char *arg)
{
	(void)o;
	(void)arg;
	tp.verbose++;
	return 0;
}

int main(int argc, char **argv)
{
	const struct command *c;
	bool version = false, list_commands = false;
	int ret;
	const struct tp_opt opts[] = {
		OPT_STRING('i', "instance", &tp.instance, "NAME",
			   "act on the tracefs instance NAME (default: top level)"),
		OPT_STRING(0, "tracefs", &tp.tracefs, "DIR", "use the tracefs mounted at DIR"),
		OPT_CALLBACK('v', "verbose", NULL, NULL, opt_verbose,
			     "say more on stderr (repeat for more)"),
		OPT_BOOL('q', "quiet", &tp.quiet, "no warnings or notes on stderr"),
		OPT_BOOL('V', "version", &version, "show the version"),
		OPT_BOOL(0, "list-commands", &list_commands,
			 "the commands and their summaries, one a line"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = {
		"tpctl [-i NAME | --instance NAME] [--tracefs DIR] [-v] [-q] COMMAND [ARGS]\n"
		"       tpctl -h | --help\n"
		"       tpctl -V | --version",
		opts, OPT_STOP_AT_ARG, commands_note(),
	};
	struct tp_args args;

	ret = opt_parse(argc, argv, &spec, &args);
	if (ret)
		return tp_finish_stdout(opt_status(ret));
	if (version) {
		printf("tpctl %s\n", TPCTL_VERSION);
		return tp_finish_stdout(TP_OK);
	}
	if (list_commands) {
		for (c = commands; c->name; c++)
			printf("%s\t%s\n", c->name, c->summary);
		return tp_finish_stdout(TP_OK);
	}
	if (!args.argc) {
		opt_usage(&spec, stderr);
		return TP_USAGE;
	}
	for (c = commands; c->name; c++)
		if (strcmp(c->name, args.argv[0]) == 0)
			break;
	if (!c->name)
		return unknown_command(args.argv[0]);

	state_init();
	tp.cmd = c->name;
	/* each command parses its own options (opt_parse) from argv[0] = its name */
	optind = 0;
	ret = c->fn(args.argc, args.argv);
	state_rollback();
	ret = tp_finish_stdout(ret);
	/* like time(1), strace and perf: a script sees how COMMAND did */
	return ret == TP_OK ? tp.command_status : ret;
}
