// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl report FILE [--json | --perfetto OUT] [--cpu LIST] [EVENT...]
 *
 * Decodes any trace.dat (tpctl's or trace-cmd's, version 6 or 7) through
 * libtracecmd and prints its records with the same output layer as stream.
 * Damaged files must give one error line and exit status 1, never a crash.
 * Two layers see to that:
 *  - tpctl's own checks: the header is walked before libtracecmd sees the
 *    file (dat_open in dat.c), and each record must fit in its page (show_record);
 *  - isolation: libtracecmd 3.1.6 and libtraceevent 1.7.1 trust sizes and
 *    format text read from the file in places no caller can check (a format
 *    parsed while the file is opened, page bookkeeping in
 *    tracecmd_peek_data), so the decoding runs in a child process.  If a
 *    library dies of SIGSEGV/SIGBUS/SIGFPE/SIGABRT on a damaged file, the
 *    parent says so in one line and exits 1.  Standard output is the child's:
 *    what it printed before the damage stays printed, as for a truncated file.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include <stdint.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include "dat.h"
#include "decode.h"
#include "output.h"
#include "opt.h"
#include "perfetto.h"
#include "tfs.h"
#include "cmd.h"
#include "util.h"

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
	if (!evs)
		return tp_oom();
	for (int i = 0; evs[i]; i++)
		if (evs[i]->id + 1 > max)
			max = evs[i]->id + 1;
	*sel = calloc(max ? max : 1, sizeof(**sel));
	if (!*sel)
		return tp_oom();
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

/* What the command line asked for. */
struct report_opts {
	char **pats;		/* EVENT patterns */
	int npats;
	bool json;
	bool *cpus;		/* --cpu: a table of ncpus entries, or NULL */
	int ncpus;
	FILE *perfetto;		/* --perfetto: the trace to write instead of text */
	const char *perfetto_path;
	bool child;		/* decoding in report's child process */
};

struct report_ctx {
	struct output *o;
	struct perfetto *pf;
	bool child;
	struct tep_handle *tep;
	bool *sel, *cpus;
	int nsel, ncpus;
	uint32_t page;
	const char *path;
	bool failed;
	/* with EVENT: was the last record of each CPU shown (its stacks are then) */
	bool *shown;
	int nshown;
};

static int show_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct report_ctx *c = data;
	int id;

	(void)h;
	(void)cpu;
	/* libtracecmd 3.1.6 ends its iteration on a negative return only */
	if (c->failed)
		return -1;
	/*
	 * libtracecmd takes a record's length from the page as it is: on a
	 * damaged page it can claim far more than the page holds, and the
	 * decoder would read past the mapping.  rec->offset is the record's
	 * place in the file, so its place in the page is offset % page size.
	 */
	if ((uint32_t)rec->size > c->page || rec->offset % c->page + rec->size > c->page) {
		tp_error("cannot read '%s': corrupt record at offset %llu", c->path,
			 (unsigned long long)rec->offset);
		c->failed = true;
		/*
		 * libtracecmd 3.1.6 goes on peeking at the other CPUs' pages
		 * after the callback asked it to stop, and can fault on the
		 * damaged data: a second message for one damage.  The child
		 * ends here, with what it printed before.
		 */
		if (c->child) {
			if (c->o)
				output_flush(c->o);
			fflush(stdout);
			fflush(stderr);
			_exit(TP_FAIL);
		}
		return -1;
	}
	if (c->cpus && (rec->cpu < 0 || rec->cpu >= c->ncpus || !c->cpus[rec->cpu]))
		return 0;
	if (rec->missed_events) {
		if (c->pf)
			perfetto_lost(c->pf, rec->cpu);
		else
			output_lost(c->o, rec->cpu,
				    rec->missed_events > 0 ? rec->missed_events : -1);
	}
	if (c->sel) {
		bool show;

		id = tep_data_type(c->tep, rec);
		show = id >= 0 && id < c->nsel && c->sel[id];
		if (rec->cpu >= c->nshown) {
			int n = rec->cpu + 16;
			bool *ns = realloc(c->shown, n * sizeof(*ns));

			if (!ns) {
				tp_oom();
				c->failed = true;
				return -1;
			}
			memset(ns + c->nshown, 0, (n - c->nshown) * sizeof(*ns));
			c->shown = ns;
			c->nshown = n;
		}
		/* a stack record goes with the event before it on its CPU */
		if (!show && rec->cpu >= 0 &&
		    (c->pf ? perfetto_is_stack(c->pf, rec) : output_is_stack(c->o, rec)))
			show = c->shown[rec->cpu];
		else if (rec->cpu >= 0)
			c->shown[rec->cpu] = show;
		if (!show)
			return 0;
	}
	if ((c->pf ? perfetto_record(c->pf, rec) : output_record(c->o, rec)) < 0) {
		c->failed = true;
		return -1;
	}
	return 0;
}

/* NUL-terminated copy of a blob, for the libtraceevent parsers. */
static char *blob_str(const char *p, size_t len)
{
	return p ? strndup(p, len) : strdup("");
}

/* Lazy loading: an event's format is parsed when its id first shows up. */
static int load_format(struct tep_handle *tep, int id, void *ctx)
{
	struct dat_file *df = ctx;

	for (size_t i = 0; i < df->nfmts; i++)
		if (df->fmts[i].id == id)
			return decode_add_format(tep, df->fmts[i].system, df->fmts[i].text,
						 df->fmts[i].len);
	return -1;
}

/* A tep set up from the file's own metadata as stream sets up its own. */
static struct tep_handle *datfile_tep(struct dat_file *df)
{
	struct tep_handle *tep;
	char *s;

	if (!df->header_page)
		return NULL;
	tep = decode_tep_new(!getenv("TPCTL_NO_PLUGINS"));
	if (!tep)
		return NULL;
	tep_set_page_size(tep, df->page_size);
	if (decode_header_page(tep, df->header_page, df->header_page_len) < 0) {
		tep_free(tep);
		return NULL;
	}
	/* The recording host's symbols, never this host's. */
	decode_kallsyms_parse(df->kallsyms ? df->kallsyms : "", df->kallsyms_len);
	s = blob_str(df->printk, df->printk_len);
	if (s && *s)
		tep_parse_printk_formats(tep, s);
	free(s);
	if (df->cmdlines)
		tfs_tep_parse_cmdlines(tep, df->cmdlines, df->cmdlines_len);
	return tep;
}

/*
 * What the records are written with: a Perfetto trace, or text or JSON on
 * standard output.  own: tep is the file's own, its formats loaded lazily.
 */
static int report_writer(struct tep_handle *tep, bool own, struct dat_file *df,
			 const struct report_opts *opt, struct report_ctx *ctx)
{
	struct dat_uname u;

	if (opt->perfetto) {
		struct perfetto_info info = {
			.uname = df->uname,
			.cmdlines = df->cmdlines,
			.cmdlines_len = df->cmdlines_len,
		};

		ctx->pf = perfetto_new(tep, opt->perfetto, &info);
		if (ctx->pf && own)
			perfetto_set_loader(ctx->pf, load_format, df);
	} else {
		ctx->o = output_new(tep, stdout, opt->json ? OUTPUT_JSON : OUTPUT_TEXT);
		if (ctx->o && own)
			output_set_loader(ctx->o, load_format, df);
		/* the text follows the kernel the records come from */
		if (ctx->o && df->uname && dat_uname_parse(df->uname, &u))
			output_set_kernel_release(ctx->o, u.release);
		/* any record may be followed by its stacks: no way to know beforehand */
		if (ctx->o && opt->json && output_set_stacks(ctx->o, true) < 0) {
			output_free(ctx->o);
			ctx->o = NULL;
		}
	}
	if (!ctx->o && !ctx->pf)
		return tp_oom();
	return TP_OK;
}

/*
 * trace-cmd record -B keeps the data of an instance in a buffer of its
 * own: the top buffer h and every instance's, in *bufs (*nh of them).
 */
static int report_buffers(struct tracecmd_input *h, const char *path,
			  struct tracecmd_input ***bufs, int *nh)
{
	int nbuf = tracecmd_buffer_instances(h);

	*bufs = calloc(nbuf + 1, sizeof(**bufs));
	if (!*bufs)
		return tp_oom();
	(*bufs)[(*nh)++] = h;
	for (int i = 0; i < nbuf; i++) {
		(*bufs)[*nh] = tracecmd_buffer_instance_handle(h, i);
		if (!(*bufs)[*nh]) {
			tp_error("cannot read '%s': corrupt buffer '%s'", path,
				 tracecmd_buffer_instance_name(h, i));
			return TP_FAIL;
		}
		(*nh)++;
	}
	return TP_OK;
}

/*
 * The end of the writing: what is held back written out.  A failed write is
 * said once, here; standard output with its reader gone is a normal end
 * (tp_finish_stdout), and its error is cleared so that no later flush says
 * it again.
 */
static int report_finish(const struct report_ctx *ctx, const struct report_opts *opt)
{
	int ret = ctx->failed ? TP_FAIL : TP_OK;

	if (ctx->pf && perfetto_finish(ctx->pf) < 0) {
		if (errno != EPIPE)
			tp_error("cannot write '%s': %s", opt->perfetto_path, strerror(errno));
		if (opt->perfetto == stdout) {
			__fpurge(stdout);
			clearerr(stdout);
		}
		ret = TP_FAIL;
	} else if (ctx->o && output_flush(ctx->o) < 0) {
		/* its message, or none with the reader gone; the status stays a failure */
		tp_finish_stdout(TP_FAIL);
		__fpurge(stdout);
		clearerr(stdout);
		ret = TP_FAIL;
	}
	if (ctx->o)
		output_faults_report(output_faults(ctx->o));
	return ret;
}

/*
 * The decoding proper: libtracecmd opens the file (already checked by
 * dat_open) and every record goes through the output layer.
 */
static int report_decode(const char *path, struct dat_file *df, const struct report_opts *opt)
{
	struct tracecmd_input *h = NULL;
	struct tracecmd_input **bufs = NULL;
	struct tep_handle *tep, *own = NULL;
	struct report_ctx ctx = { 0 };
	bool *sel = NULL;
	int nh = 0, nsel = 0, ret;

	h = dat_tracecmd_open(path);
	if (!h)
		return TP_FAIL;
	/* Names are matched on libtracecmd's tep: it has every format of the file. */
	ret = select_events(tracecmd_get_tep(h), opt->pats, opt->npats, &sel, &nsel);
	if (ret)
		goto out;
	own = datfile_tep(df);
	tep = own ? own : tracecmd_get_tep(h);
	/* the recording host's symbols for stack frames, never this host's */
	if (!own)
		decode_kallsyms_use_tep(tep);
	ret = report_writer(tep, own, df, opt, &ctx);
	if (ret)
		goto out;
	ctx.child = opt->child;
	/* event ids: libtracecmd's tep knows the common fields before any lazy load */
	ctx.tep = tracecmd_get_tep(h);
	ctx.sel = sel;
	ctx.nsel = nsel;
	ctx.cpus = opt->cpus;
	ctx.ncpus = opt->ncpus;
	ctx.page = df->page_size;
	ctx.path = path;
	/* several buffers are merged by timestamp */
	ret = report_buffers(h, path, &bufs, &nh);
	if (ret)
		goto out;
	if (nh == 1)
		tracecmd_iterate_events(h, NULL, 0, show_record, &ctx);
	else
		tracecmd_iterate_events_multi(bufs, nh, show_record, &ctx);
	ret = report_finish(&ctx, opt);
out:
	output_free(ctx.o);
	perfetto_free(ctx.pf);
	for (int i = 1; i < nh; i++)
		tracecmd_close(bufs[i]);
	free(bufs);
	if (h)
		tracecmd_close(h);
	if (own)
		tep_free(own);
	free(sel);
	free(ctx.shown);
	return ret;
}

/* Set to false by the fuzz target: libFuzzer must see the decoding in-process. */
bool report_isolate = true;

/*
 * Run report_decode() in a child and turn the child's death by a fault into
 * our error line.  A signal that asks to stop (INT, TERM, HUP, QUIT) ends the
 * parent the same way; the child goes with its parent (PDEATHSIG).
 */
static int report_isolated(const char *path, struct dat_file *df, const struct report_opts *opt)
{
	pid_t parent = getpid(), pid;
	int st, ret, sig;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		/* no process to spare: decode here, without the safety net */
		return report_decode(path, df, opt);
	}
	if (pid == 0) {
		struct report_opts in_child = *opt;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(TP_FAIL);
		in_child.child = true;
		ret = tp_finish_stdout(report_decode(path, df, &in_child));
		fflush(stderr);
#ifdef __SANITIZE_ADDRESS__
		/* _exit skips LeakSanitizer's check at exit: run it here */
		__lsan_do_leak_check();
#endif
		_exit(ret);
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			tp_error("cannot wait for the decoder: %s", strerror(errno));
			return TP_FAIL;
		}
	}
	/* as is: a sanitizer's own exit status must reach the test that ran us */
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	sig = WTERMSIG(st);
	switch (sig) {
	case SIGINT:
	case SIGTERM:
	case SIGHUP:
	case SIGQUIT:
		signal(sig, SIG_DFL);
		raise(sig);
		return TP_FAIL;
	case SIGPIPE:
		return TP_OK;
	default:
		tp_error("cannot read '%s': corrupt trace.dat (decoding stopped by %s)", path,
			 sigabbrev_np(sig) ? sigabbrev_np(sig) : "a signal");
		return TP_FAIL;
	}
}

/* The --perfetto output: "-" is standard output; never the file being read. */
static FILE *perfetto_open(const char *out, const char *in)
{
	struct stat a, b;
	FILE *f;

	if (!strcmp(out, "-"))
		return stdout;
	if (stat(out, &a) == 0 && stat(in, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino) {
		tp_error("'%s' is the file being read", out);
		return NULL;
	}
	f = fopen(out, "wbe");
	if (!f)
		tp_error("cannot create '%s': %s", out, strerror(errno));
	return f;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts ro = { .ncpus = 4096 };
	struct dat_file df = { 0 };
	const char *cpu_list = NULL, *path;
	int ret;
	const struct tp_opt opts[] = {
		OPT_ARG("FILE", "a trace.dat file (tpctl record or trace-cmd record)"),
		OPT_ARG("EVENT", "only these events: system, system:event or a glob"),
		OPT_BOOL('j', "json", &ro.json, "NDJSON, one object per record"),
		OPT_STRING(0, "perfetto", &ro.perfetto_path, "OUT",
			   "write a Perfetto trace to OUT instead (- for standard output)"),
		OPT_STRING('C', "cpu", &cpu_list, "LIST", "only these CPUs, e.g. 0,2-3"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = {
		"tpctl report FILE [--json | --perfetto OUT] [--cpu LIST] [EVENT...]", opts, 0, NULL
	};
	struct tp_args args;

	ret = opt_parse(argc, argv, &spec, &args);
	if (ret)
		return opt_status(ret);
	if (!args.argc) {
		tp_error("no file given");
		return TP_USAGE;
	}
	if (ro.json && ro.perfetto_path) {
		tp_error("'--json' and '--perfetto' cannot be used together");
		return TP_USAGE;
	}
	path = args.argv[0];
	ro.pats = args.argv + 1;
	ro.npats = args.argc - 1;
	if (cpu_list) {
		ro.cpus = calloc(ro.ncpus, sizeof(*ro.cpus));
		if (!ro.cpus)
			return tp_oom();
		if (!tp_parse_cpus(cpu_list, ro.cpus, ro.ncpus)) {
			tp_error("invalid CPU list '%s': CPUs below %d, as in 0,2-3", cpu_list, ro.ncpus);
			free(ro.cpus);
			return TP_USAGE;
		}
	}
	ret = dat_open(path, &df);
	if (!ret && ro.perfetto_path) {
		ro.perfetto = perfetto_open(ro.perfetto_path, path);
		if (!ro.perfetto)
			ret = TP_FAIL;
	}
	if (!ret)
		ret = (report_isolate ? report_isolated : report_decode)(path, &df, &ro);
	if (ro.perfetto && ro.perfetto != stdout && fclose(ro.perfetto) && !ret) {
		tp_error("cannot write '%s': %s", ro.perfetto_path, strerror(errno));
		ret = TP_FAIL;
	}
	dat_file_close(&df);
	free(ro.cpus);
	return ret;
}
