// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * opt - option tables: getopt_long() parsing, --help and --list-options from
 * one declaration per command (see opt.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "util.h"

/* Every table gets these two; --list-options is for the completions, not in --help. */
static const struct tp_opt help_opt = OPT_BOOL('h', "help", NULL, "show this help");
#define LIST_OPTIONS_VAL 1

static size_t opt_count(const struct tp_opt *opts)
{
	size_t n = 0;

	while (opts[n].kind != OPTK_END)
		n++;
	return n;
}

/* "-j, --json", "    --user NAME", "EVENT" into buf; its length. */
static int opt_label(const struct tp_opt *o, char *buf, size_t size)
{
	if (o->kind == OPTK_ARG)
		return snprintf(buf, size, "%s", o->argh);
	return snprintf(buf, size, "%c%c%s--%s%s%s",
			o->short_name ? '-' : ' ', o->short_name ? o->short_name : ' ',
			o->short_name ? ", " : "  ", o->long_name,
			o->argh ? " " : "", o->argh ? o->argh : "");
}

static void opt_help_line(const struct tp_opt *o, int width, FILE *f)
{
	char label[128];
	const char *h = o->help, *nl;
	int len = opt_label(o, label, sizeof(label));

	fprintf(f, "  %s", label);
	if (len > width) {
		fputc('\n', f);
		len = 0;
		fprintf(f, "  ");
	}
	/* continuation lines of a multi-line help text line up with the first */
	for (;;) {
		nl = strchr(h, '\n');
		fprintf(f, "%*s%.*s\n", width - len + 2, "", nl ? (int)(nl - h) : (int)strlen(h), h);
		if (!nl)
			break;
		h = nl + 1;
		len = 0;
		fprintf(f, "  ");
	}
}

void opt_usage(const struct tp_cmd_spec *spec, FILE *f)
{
	const struct tp_opt *o;
	const char *u = spec->usage, *nl;
	int width = 16, len;
	char label[128];
	bool first = true;

	for (o = spec->opts; o->kind != OPTK_END; o++) {
		len = opt_label(o, label, sizeof(label));
		if (len > width && len <= 24)
			width = len;
	}
	/* later lines of the synopsis carry their own indentation */
	for (;;) {
		nl = strchr(u, '\n');
		fprintf(f, "%s%.*s\n", first ? "usage: " : "",
			nl ? (int)(nl - u) : (int)strlen(u), u);
		first = false;
		if (!nl)
			break;
		u = nl + 1;
	}
	fputc('\n', f);
	/* a note that ends in ':' introduces the option list */
	if (spec->note)
		fprintf(f, "%s\n%s", spec->note,
			spec->note[strlen(spec->note) - 1] == ':' ? "" : "\n");
	for (o = spec->opts; o->kind != OPTK_END; o++)
		opt_help_line(o, width, f);
	opt_help_line(&help_opt, width, f);
}

static void opt_list_one(const struct tp_opt *o, FILE *f)
{
	const char *nl = strchr(o->help, '\n');

	if (o->short_name)
		fprintf(f, "-%c", o->short_name);
	fprintf(f, "\t--%s\t%s\t%.*s\n", o->long_name, o->argh ? o->argh : "",
		nl ? (int)(nl - o->help) : (int)strlen(o->help), o->help);
}

void opt_list(const struct tp_cmd_spec *spec, FILE *f)
{
	const struct tp_opt *o;

	for (o = spec->opts; o->kind != OPTK_END; o++)
		if (o->kind != OPTK_ARG)
			opt_list_one(o, f);
	opt_list_one(&help_opt, f);
	/* a command to run may follow "--": the completions offer it too */
	if (spec->flags & OPT_COMMAND)
		fprintf(f, "\t--\tCOMMAND\trun COMMAND and trace it\n");
}

/* How the option was spelled on the command line, for messages: "--count" or "-c". */
static void opt_name(const struct tp_opt *o, bool as_short, char *buf, size_t size)
{
	if (as_short)
		snprintf(buf, size, "-%c", o->short_name);
	else
		snprintf(buf, size, "--%s", o->long_name);
}

static int opt_store(const struct tp_opt *o, const char *arg, bool as_short)
{
	char name[64];
	unsigned long long v;
	double d;

	opt_name(o, as_short, name, sizeof(name));
	switch (o->kind) {
	case OPTK_BOOL:
		*(bool *)o->value = true;
		return 0;
	case OPTK_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPTK_UINT:
		if (!tp_parse_uint(arg, &v) || v < o->min || (o->max && v > o->max)) {
			if (o->max)
				tp_error("invalid value '%s' for %s: a whole number from %llu to %llu "
					 "is needed", arg, name, o->min, o->max);
			else
				tp_error("invalid value '%s' for %s: a whole number of at least %llu "
					 "is needed", arg, name, o->min);
			return TP_USAGE;
		}
		*(unsigned long long *)o->value = v;
		return 0;
	case OPTK_SECONDS:
		if (!tp_parse_seconds(arg, &d) || d <= 0) {
			tp_error("invalid duration '%s' for '%s': a number with a unit (ns, us, ms, "
				 "s, m, h) or seconds, above 0, as in 500ms", arg, name);
			return TP_USAGE;
		}
		*(double *)o->value = d;
		return 0;
	case OPTK_CALLBACK:
		return o->fn(o, arg);
	case OPTK_END:
	case OPTK_ARG:
	case OPTK_POSITIONAL:
		break;
	}
	return 0;
}

/*
 * The arguments that are not options: argv[optind] to argv[nopt - 1], getopt
 * having moved the options before them, and npos values of OPTK_POSITIONAL
 * options first.  Each of those took a slot of argv before optind, whose
 * words are parsed and stored by now: they go there.
 */
static void opt_args_set(struct tp_args *args, char **argv, int nopt, char **pos, int npos)
{
	int first = optind - npos;

	if (npos)
		memcpy(argv + first, pos, npos * sizeof(*pos));
	args->argc = nopt - first;
	args->argv = argv + first;
}

int opt_parse(int argc, char **argv, const struct tp_cmd_spec *spec, struct tp_args *args)
{
	size_t n = opt_count(spec->opts), i, k = 0;
	struct option *lo;
	char *shorts, *s;
	int nopt = argc, opt, idx, ret = 0, npos = 0;
	char **pos;

	memset(args, 0, sizeof(*args));
	if (spec->flags & OPT_COMMAND) {
		/* the first "--" ends tpctl's words: the command's own options are its own */
		for (int j = 1; j < argc; j++) {
			if (!strcmp(argv[j], "--")) {
				nopt = j;
				args->cmd = argv + j + 1;
				args->ncmd = argc - j - 1;
				break;
			}
		}
	}
	lo = calloc(n + 3, sizeof(*lo));
	shorts = malloc(2 * n + 8);
	pos = malloc(argc * sizeof(*pos));
	if (!lo || !shorts || !pos) {
		free(lo);
		free(shorts);
		free(pos);
		return tp_oom();
	}
	s = shorts;
	if (spec->flags & OPT_STOP_AT_ARG)
		*s++ = '+';
	*s++ = ':';		/* report a missing argument as ':' */
	for (i = 0; i < n; i++) {
		const struct tp_opt *o = &spec->opts[i];

		if (o->kind == OPTK_ARG)
			continue;
		lo[k].name = o->long_name;
		lo[k].has_arg = o->argh ? required_argument : no_argument;
		lo[k].val = 1000 + (int)i;
		k++;
		if (o->short_name) {
			*s++ = (char)o->short_name;
			if (o->argh)
				*s++ = ':';
		}
	}
	lo[k++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[k++] = (struct option){ "list-options", no_argument, NULL, LIST_OPTIONS_VAL };
	*s++ = 'h';
	*s = '\0';

	opterr = 0;
	while ((opt = getopt_long(nopt, argv, shorts, lo, NULL)) != -1) {
		const struct tp_opt *o = NULL;
		bool as_short = false;

		if (opt == 'h') {
			opt_usage(spec, stdout);
			ret = OPT_SHOWN;
			break;
		}
		if (opt == LIST_OPTIONS_VAL) {
			opt_list(spec, stdout);
			ret = OPT_SHOWN;
			break;
		}
		if (opt >= 1000 && (size_t)(opt - 1000) < n) {
			o = &spec->opts[opt - 1000];
		} else if (opt != '?' && opt != ':') {
			for (idx = 0; (size_t)idx < n; idx++)
				if (spec->opts[idx].kind != OPTK_ARG &&
				    spec->opts[idx].short_name == opt)
					o = &spec->opts[idx];
			as_short = true;
		}
		if (!o) {
			const char *lname = NULL;

			/* a long option's optopt is its val (1000 + index), not a character */
			if (optopt >= 1000 && (size_t)(optopt - 1000) < n)
				lname = spec->opts[optopt - 1000].long_name;
			ret = tp_option_error(argv, opt, lname);
			break;
		}
		if (o->kind == OPTK_POSITIONAL)
			pos[npos++] = optarg;
		else if ((ret = opt_store(o, optarg, as_short)))
			break;
	}
	if (!ret)
		opt_args_set(args, argv, nopt, pos, npos);
	free(lo);
	free(shorts);
	free(pos);
	return ret;
}

int opt_parse_operands(int argc, char **argv, const struct tp_cmd_spec *spec,
		       struct tp_args *args, const char *noun)
{
	int ret = opt_parse(argc, argv, spec, args);

	if (ret)
		return ret;
	if (!noun && args->argc > 0)
		tp_error("unexpected argument '%s'", args->argv[0]);
	else if (noun && !args->argc)
		tp_error("no %s given; try 'tpctl %s --help'", noun, tp.cmd);
	else
		return TP_OK;
	return TP_USAGE;
}
