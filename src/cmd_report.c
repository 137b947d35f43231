// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl report FILE [--json] [--cpu LIST] [EVENT...]
 *
 * Decodes any trace.dat (tpctl's or trace-cmd's, version 6 or 7) through
 * libtracecmd and prints its records with the same output layer as stream.
 * Damaged files must give one error line and exit status 1, never a crash:
 * the header is checked before libtracecmd sees the file, and every page is
 * checked (dat_check.c) before its records are decoded.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "output.h"
#include "tfs.h"
#include "tpctl.h"

static const char report_usage[] =
	"usage: tpctl report FILE [--json] [--cpu LIST] [EVENT...]\n"
	"\n"
	"  FILE             a trace.dat file (tpctl record or trace-cmd record)\n"
	"  EVENT            only these events: system, system:event or a glob\n"
	"  -j, --json       NDJSON, one object per record\n"
	"  -c, --cpu LIST   only these CPUs, e.g. 0,2-3\n"
	"  -h, --help       show this help\n";

/* "0,2-3" into a bitmap of max CPUs; false on junk. */
static bool parse_cpus(const char *s, bool *set, int max)
{
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0 || a >= max)
			return false;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= max)
				return false;
		}
		for (long i = a; i <= b; i++)
			set[i] = true;
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return false;
		s = end;
	}
	return true;
}

static bool pattern_match(const char *pat, const struct tep_event *ev)
{
	const char *colon = strchr(pat, ':');
	char sys[256];

	if (!colon)
		return !fnmatch(pat, ev->system, 0);
	if ((size_t)(colon - pat) >= sizeof(sys))
		return false;
	memcpy(sys, pat, colon - pat);
	sys[colon - pat] = '\0';
	return !fnmatch(sys, ev->system, 0) && !fnmatch(colon + 1, ev->name, 0);
}

/*
 * Which event ids to print: a table indexed by id.  A pattern that matches
 * no event of the file is a usage error, as for every other command.
 */
static int select_events(struct tep_handle *tep, char **pats, int npats, bool **sel, int *nsel)
{
	struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	int max = 0;

	*sel = NULL;
	*nsel = 0;
	if (!npats)
		return TP_OK;
	if (!evs) {
		tp_error("out of memory");
		return TP_FAIL;
	}
	for (int i = 0; evs[i]; i++)
		if (evs[i]->id + 1 > max)
			max = evs[i]->id + 1;
	*sel = calloc(max ? max : 1, sizeof(**sel));
	if (!*sel) {
		tp_error("out of memory");
		return TP_FAIL;
	}
	*nsel = max;
	for (int p = 0; p < npats; p++) {
		bool any = false;

		if (!tfs_pattern_valid(pats[p])) {
			tp_error("invalid event name '%s'", pats[p]);
			return TP_USAGE;
		}
		for (int i = 0; evs[i]; i++) {
			if (pattern_match(pats[p], evs[i])) {
				(*sel)[evs[i]->id] = true;
				any = true;
			}
		}
		if (!any) {
			tp_error("no event in the file matches '%s'", pats[p]);
			return TP_USAGE;
		}
	}
	return TP_OK;
}

struct report_ctx {
	struct output *o;
	struct tep_handle *tep;
	bool *sel, *cpus;
	int nsel, ncpus;
	bool failed;
};

static int show_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct report_ctx *c = data;
	int id;

	(void)h;
	(void)cpu;
	if (c->cpus && (rec->cpu < 0 || rec->cpu >= c->ncpus || !c->cpus[rec->cpu]))
		return 0;
	if (rec->missed_events)
		output_lost(c->o, rec->cpu, rec->missed_events > 0 ? rec->missed_events : -1);
	if (c->sel) {
		id = tep_data_type(c->tep, rec);
		if (id < 0 || id >= c->nsel || !c->sel[id])
			return 0;
	}
	if (output_record(c->o, rec) < 0) {
		c->failed = true;
		return 1;
	}
	return 0;
}

/*
 * The checks libtracecmd does not do for us: the file exists, is a regular
 * file, starts with the trace.dat magic and has a version we know.
 */
static int check_head(const char *path)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	char head[16];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tp_error("cannot open '%s': %s", path, strerror(errno));
		return TP_FAIL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		tp_error("'%s' is not a regular file", path);
		return TP_FAIL;
	}
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n < (ssize_t)sizeof(magic) + 2 || memcmp(head, magic, sizeof(magic))) {
		tp_error("'%s' is not a trace.dat file", path);
		return TP_FAIL;
	}
	if ((head[10] != '6' && head[10] != '7') || head[11] != '\0') {
		tp_error("'%s': unsupported trace.dat version", path);
		return TP_FAIL;
	}
	return TP_OK;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument,       NULL, 'j' },
		{ "cpu",  required_argument, NULL, 'c' },
		{ "help", no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tracecmd_input *h = NULL;
	struct tep_handle *tep;
	struct output *o = NULL;
	struct report_ctx ctx = { 0 };
	const char *cpu_list = NULL, *path;
	bool json = false, *sel = NULL, *cpus = NULL;
	int opt, ret, nsel = 0, ncpus = 4096;

	while ((opt = getopt_long(argc, argv, ":jc:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'c':
			cpu_list = optarg;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return TP_OK;
		default:
			return tp_option_error(argv, opt);
		}
	}
	if (optind >= argc) {
		tp_error("no file given");
		return TP_USAGE;
	}
	path = argv[optind++];
	if (cpu_list) {
		cpus = calloc(ncpus, sizeof(*cpus));
		if (!cpus) {
			tp_error("out of memory");
			return TP_FAIL;
		}
		if (!parse_cpus(cpu_list, cpus, ncpus)) {
			tp_error("invalid CPU list '%s'", cpu_list);
			free(cpus);
			return TP_USAGE;
		}
	}
	ret = check_head(path);
	if (ret)
		goto out;
	/* Our own one-line errors replace the libraries' messages. */
	if (tp.verbose < 2) {
		tracecmd_set_loglevel(TEP_LOG_NONE);
		tep_set_loglevel(TEP_LOG_NONE);
	}
	h = tracecmd_open(path, 0);
	if (!h) {
		tp_error("cannot read '%s': truncated or corrupt trace.dat", path);
		ret = TP_FAIL;
		goto out;
	}
	tep = tracecmd_get_tep(h);
	ret = select_events(tep, argv + optind, argc - optind, &sel, &nsel);
	if (ret)
		goto out;
	o = output_new(tep, stdout, json ? OUTPUT_JSON : OUTPUT_TEXT);
	if (!o) {
		tp_error("out of memory");
		ret = TP_FAIL;
		goto out;
	}
	ctx.o = o;
	ctx.tep = tep;
	ctx.sel = sel;
	ctx.nsel = nsel;
	ctx.cpus = cpus;
	ctx.ncpus = ncpus;
	/* Merged by timestamp across CPUs by libtracecmd. */
	tracecmd_iterate_events(h, NULL, 0, show_record, &ctx);
	if (output_flush(o) < 0) {
		if (errno != EPIPE)
			tp_error("write error: %s", strerror(errno));
		ret = TP_FAIL;
	}
out:
	output_free(o);
	if (h)
		tracecmd_close(h);
	free(sel);
	free(cpus);
	return ret;
}
