/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opt - each command declares its options once, in a table, and everything
 * else comes from that table: the getopt_long() parsing, the `--help` text,
 * and the option list the shell completions ask for (`tpctl CMD
 * --list-options`), so help, completions and parsing cannot drift apart.
 * tests/cli/options.t checks the man pages against the same lists.
 *
 *	bool json = false;
 *	const char *filter = NULL;
 *	unsigned long long count = 0;
 *	const struct tp_opt opts[] = {
 *		OPT_ARG("EVENT", "system:event, system or a glob"),
 *		OPT_BOOL('j', "json", &json, "NDJSON instead of the kernel's text"),
 *		OPT_STRING('f', "filter", &filter, "EXPR", "filter every EVENT"),
 *		OPT_UINT('c', "count", &count, "N", 1, 0, "stop after N events"),
 *		OPT_END(),
 *	};
 *	const struct tp_cmd_spec spec = { "tpctl stream [EVENT...] [options]", opts };
 *	struct tp_args args;
 *
 *	ret = opt_parse(argc, argv, &spec, &args);
 *	if (ret)
 *		return opt_status(ret);
 *
 * `-h, --help` is added to every table.  The values are only written when the
 * option is given, so initialise them with their defaults.
 */
#ifndef TPCTL_OPT_H
#define TPCTL_OPT_H

#include <stdbool.h>
#include <stdio.h>

struct tp_opt;

/* Check and store arg; print the error (tp_error) and return TP_USAGE when it is bad. */
typedef int (*tp_opt_fn)(const struct tp_opt *o, const char *arg);

enum tp_opt_kind {
	OPTK_END,
	OPTK_ARG,	/* a positional argument: documented in --help, not parsed */
	OPTK_BOOL,	/* bool *: set to true */
	OPTK_STRING,	/* const char **: the argument as given */
	OPTK_UINT,	/* unsigned long long *: decimal, within [min, max] (max 0: no limit) */
	OPTK_SECONDS,	/* double *: seconds > 0, fractions allowed */
	OPTK_CALLBACK,	/* fn(o, arg) checks and stores; arg is NULL when argh is NULL */
	OPTK_POSITIONAL,	/* its argument is one more positional one (-e EVENT), before the others */
};

struct tp_opt {
	enum tp_opt_kind kind;
	int short_name;		/* 0: long only */
	const char *long_name;
	const char *argh;	/* the argument's name in --help ("N"); NULL: takes none */
	const char *help;	/* may hold '\n' for more lines */
	void *value;
	tp_opt_fn fn;
	unsigned long long min, max;
};

#define OPT_ARG(name, h)		{ OPTK_ARG, 0, NULL, (name), (h), NULL, NULL, 0, 0 }
#define OPT_BOOL(s, l, v, h)		{ OPTK_BOOL, (s), (l), NULL, (h), (v), NULL, 0, 0 }
#define OPT_STRING(s, l, v, a, h)	{ OPTK_STRING, (s), (l), (a), (h), (v), NULL, 0, 0 }
#define OPT_UINT(s, l, v, a, lo, hi, h)	{ OPTK_UINT, (s), (l), (a), (h), (v), NULL, (lo), (hi) }
#define OPT_SECONDS(s, l, v, a, h)	{ OPTK_SECONDS, (s), (l), (a), (h), (v), NULL, 0, 0 }
#define OPT_CALLBACK(s, l, v, a, f, h)	{ OPTK_CALLBACK, (s), (l), (a), (h), (v), (f), 0, 0 }
#define OPT_END()			{ OPTK_END, 0, NULL, NULL, NULL, NULL, NULL, 0, 0 }
/*
 * -e EVENT, --event EVENT (trace-cmd's and perf's habit) beside the EVENT
 * arguments of stream, record, count, hist and latency: the same as EVENT
 * given as an argument; tp_args lists these first, in their order.
 */
#define OPT_EVENT()							\
	{ OPTK_POSITIONAL, 'e', "event", "EVENT",				\
	  "an EVENT, as trace-cmd and perf take it (repeatable)", NULL, NULL, 0, 0 }

enum {
	/* stop at the first argument that is not an option (filter: EXPR may start with '-') */
	OPT_STOP_AT_ARG = 1 << 0,
	/* everything after the first "--" is a command to run: tp_args.cmd */
	OPT_COMMAND = 1 << 1,
};

struct tp_cmd_spec {
	const char *usage;	/* the synopsis after "usage: "; later lines carry their indent */
	const struct tp_opt *opts;
	unsigned flags;
	const char *note;	/* a paragraph printed before the options, or NULL */
};

struct tp_args {
	int argc;		/* the arguments that are not options */
	char **argv;
	char **cmd;		/* OPT_COMMAND: the words after "--", NULL-terminated; NULL without "--" */
	int ncmd;
};

/* opt_parse() returns this after printing --help or --list-options: exit status 0. */
#define OPT_SHOWN 256

/*
 * Parse argv (argv[0] is the command name) against spec.  0: go on with args
 * filled; otherwise the command returns opt_status() of the value: TP_USAGE
 * after a one-line error, or OPT_SHOWN after --help / --list-options.
 */
int opt_parse(int argc, char **argv, const struct tp_cmd_spec *spec, struct tp_args *args);

static inline int opt_status(int ret)
{
	return ret == OPT_SHOWN ? 0 : ret;
}

/*
 * opt_parse(), then the count of operands: none when noun is NULL
 * ("unexpected argument 'X'"), else at least one ("no NOUN given; try
 * 'tpctl CMD --help'").  0: go on; otherwise what opt_parse() returns
 * (the command returns opt_status() of it).
 */
int opt_parse_operands(int argc, char **argv, const struct tp_cmd_spec *spec,
		       struct tp_args *args, const char *noun);

/* The --help text of spec. */
void opt_usage(const struct tp_cmd_spec *spec, FILE *f);

/*
 * For the completions (`tpctl [CMD] --list-options`): one line per option,
 * "SHORT<TAB>LONG<TAB>ARG<TAB>HELP" (SHORT and ARG may be empty; HELP is the
 * first line of the help text), and "<TAB>--<TAB>COMMAND<TAB>..." when a
 * command to run may follow "--".
 */
void opt_list(const struct tp_cmd_spec *spec, FILE *f);

#endif
