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
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"
#include "tpctl.h"

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
	{ "reset",   cmd_reset,   "disable what tpctl can see enabled" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	const struct command *c;

	fprintf(f,
		"usage: tpctl [-i NAME | --instance NAME] [--tracefs DIR] [-v] [-q] COMMAND [ARGS]\n"
		"       tpctl -h | --help\n"
		"       tpctl -V | --version\n"
		"\n"
		"commands:\n");
	for (c = commands; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->summary);
	fprintf(f,
		"\n"
		"global options:\n"
		"  -i, --instance NAME  act on the tracefs instance NAME (default: top level)\n"
		"      --tracefs DIR    use the tracefs mounted at DIR\n"
		"  -v, --verbose        say more on stderr (repeat for more)\n"
		"  -q, --quiet          no warnings or notes on stderr\n"
		"  -h, --help           show this help\n"
		"  -V, --version        show the version\n"
		"\n"
		"'tpctl COMMAND --help' shows a command's options; see tpctl(1) and tpctl-COMMAND(1).\n"
		"exit status: 0 success, 1 the operation failed, 2 usage error\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "instance", required_argument, NULL, 'i' },
		{ "tracefs",  required_argument, NULL, 'T' },
		{ "verbose",  no_argument,       NULL, 'v' },
		{ "quiet",    no_argument,       NULL, 'q' },
		{ "help",     no_argument,       NULL, 'h' },
		{ "version",  no_argument,       NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *c;
	int opt, ret, first;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:i:vqhV", opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			tp.instance = optarg;
			break;
		case 'T':
			tp.tracefs = optarg;
			break;
		case 'v':
			tp.verbose++;
			break;
		case 'q':
			tp.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return tp_finish_stdout(TP_OK);
		case 'V':
			printf("tpctl %s\n", TPCTL_VERSION);
			return tp_finish_stdout(TP_OK);
		default:
			return tp_option_error(argv, opt);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return TP_USAGE;
	}
	for (c = commands; c->name; c++)
		if (strcmp(c->name, argv[optind]) == 0)
			break;
	if (!c->name) {
		tp_error("unknown command '%s'; try 'tpctl --help'", argv[optind]);
		return TP_USAGE;
	}

	state_init();
	tp.cmd = c->name;
	/* commands parse their own options with getopt from argv[0] = command name */
	first = optind;
	optind = 0;
	opterr = 0;
	ret = c->fn(argc - first, argv + first);
	state_rollback();
	return tp_finish_stdout(ret);
}
