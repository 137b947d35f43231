// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl report FILE [--json] [--cpu LIST] [EVENT...]
 *
 * Decodes any trace.dat (tpctl's or trace-cmd's, version 6 or 7) through
 * libtracecmd and prints its records with the same output layer as stream.
 * Damaged files must give one error line and exit status 1, never a crash.
 * Two layers see to that:
 *  - tpctl's own checks: the header is walked before libtracecmd sees the
 *    file (datfile_open), and each record must fit in its page (show_record);
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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include "decode.h"
#include "output.h"
#include "opt.h"
#include "tfs.h"
#include "tpctl.h"

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
		return -1;
	}
	if (c->cpus && (rec->cpu < 0 || rec->cpu >= c->ncpus || !c->cpus[rec->cpu]))
		return 0;
	if (rec->missed_events)
		output_lost(c->o, rec->cpu, rec->missed_events > 0 ? rec->missed_events : -1);
	if (c->sel) {
		bool show;

		id = tep_data_type(c->tep, rec);
		show = id >= 0 && id < c->nsel && c->sel[id];
		if (rec->cpu >= c->nshown) {
			int n = rec->cpu + 16;
			bool *ns = realloc(c->shown, n * sizeof(*ns));

			if (!ns) {
				tp_error("out of memory");
				c->failed = true;
				return -1;
			}
			memset(ns + c->nshown, 0, (n - c->nshown) * sizeof(*ns));
			c->shown = ns;
			c->nshown = n;
		}
		/* a stack record goes with the event before it on its CPU */
		if (!show && rec->cpu >= 0 && output_is_stack(c->o, rec))
			show = c->shown[rec->cpu];
		else if (rec->cpu >= 0)
			c->shown[rec->cpu] = show;
		if (!show)
			return 0;
	}
	if (output_record(c->o, rec) < 0) {
		c->failed = true;
		return -1;
	}
	return 0;
}

/*
 * The file, mapped, and for version 6 where its metadata is: with it report
 * sets up its tep exactly as stream does (decode.h), so that the text is the
 * kernel's for every event, symbols and pointers included.  Version 7
 * sections may be compressed; there libtracecmd's tep is used.
 */
struct fmt {
	const char *sys;	/* NUL-terminated, in the mapping */
	const char *text;
	size_t len;
	int id;
};

struct datfile {
	const unsigned char *map;
	size_t len;		/* mapped: the whole file, or its start (see datfile_open) */
	size_t file_len;
	char version;
	uint32_t page;
	const char *header_page, *kallsyms, *printk, *cmdlines;
	size_t header_page_len, kallsyms_len, printk_len, cmdlines_len;
	struct fmt *fmts;
	size_t nfmts;
};

/* A bounded cursor over the file's bytes, for the header checks. */
struct cur {
	const unsigned char *p;
	size_t len, off;
	bool bad;
};

static uint64_t cur_num(struct cur *c, int width)
{
	uint64_t v = 0;

	if (c->bad || c->len - c->off < (size_t)width) {
		c->bad = true;
		return 0;
	}
	/* tpctl and trace-cmd on this host write little-endian files */
	for (int i = width - 1; i >= 0; i--)
		v = v << 8 | c->p[c->off + i];
	c->off += width;
	return v;
}

static void cur_skip(struct cur *c, uint64_t n)
{
	if (c->bad || c->len - c->off < n)
		c->bad = true;
	else
		c->off += n;
}

static const char *cur_str(struct cur *c)
{
	const unsigned char *nul, *s = c->p + c->off;

	if (c->bad)
		return NULL;
	nul = memchr(s, 0, c->len - c->off);
	if (!nul) {
		c->bad = true;
		return NULL;
	}
	c->off = nul - c->p + 1;
	return (const char *)s;
}

/* A sized blob at the cursor: its size (width bytes) then the bytes. */
static const char *cur_blob(struct cur *c, int width, size_t *len)
{
	uint64_t n = cur_num(c, width);
	const char *p = (const char *)c->p + c->off;

	cur_skip(c, n);
	*len = c->bad ? 0 : n;
	return c->bad ? NULL : p;
}

static void add_fmt(struct datfile *df, struct cur *c, const char *sys, int width)
{
	struct fmt *f;
	const char *id;
	size_t len;
	const char *text = cur_blob(c, width, &len);
	void *p;

	if (!text)
		return;
	p = realloc(df->fmts, (df->nfmts + 1) * sizeof(*df->fmts));
	if (!p) {
		c->bad = true;
		return;
	}
	df->fmts = p;
	f = &df->fmts[df->nfmts++];
	f->sys = sys;
	f->text = text;
	f->len = len;
	f->id = -1;
	id = memmem(text, len, "\nID: ", 5);
	if (id) {
		/* bounded: the text is not NUL-terminated */
		f->id = 0;
		for (id += 5; id < text + len && *id >= '0' && *id <= '9' && f->id < 1000000; id++)
			f->id = f->id * 10 + (*id - '0');
	}
}

/*
 * Options that libtracecmd 3.1.6 reads as C strings (strdup, sscanf) without
 * looking at their size: their text must end inside the option.  The ids are
 * those of trace-cmd.dat.v6(5): 3 buffer and 22 text buffer (a name after an
 * 8-byte offset), 5 uname, 6 hook, 9 version, 10 procmaps, 13 guest.
 */
static bool option_ok(unsigned id, const unsigned char *p, uint64_t size)
{
	uint64_t skip = 0;

	switch (id) {
	case 3:
	case 22:
		skip = 8;
		break;
	case 5:
	case 6:
	case 9:
	case 10:
	case 13:
		break;
	default:
		return true;
	}
	return size > skip && memchr(p + skip, 0, size - skip) != NULL;
}

/*
 * Walk a version 6 header (trace-cmd.dat.v6(5)) and check that the CPU data
 * it points at is page aligned and inside the file: libtracecmd maps pages
 * from these offsets without checking them.
 */
static bool v6_ok(struct cur *c, struct datfile *df)
{
	uint64_t n, ncpus;

	cur_skip(c, 12);			/* "header_page\0" */
	df->header_page = cur_blob(c, 8, &df->header_page_len);
	cur_skip(c, 13);			/* "header_event\0" */
	cur_skip(c, cur_num(c, 8));
	n = cur_num(c, 4);			/* ftrace formats */
	for (uint64_t i = 0; i < n && !c->bad; i++)
		add_fmt(df, c, "ftrace", 8);
	n = cur_num(c, 4);			/* systems */
	for (uint64_t i = 0; i < n && !c->bad; i++) {
		const char *sys = cur_str(c);
		uint64_t nev = cur_num(c, 4);

		for (uint64_t k = 0; k < nev && !c->bad; k++)
			add_fmt(df, c, sys, 8);
	}
	df->kallsyms = cur_blob(c, 4, &df->kallsyms_len);
	df->printk = cur_blob(c, 4, &df->printk_len);
	df->cmdlines = cur_blob(c, 8, &df->cmdlines_len);
	ncpus = cur_num(c, 4);
	if (c->bad || c->len - c->off < 10)
		return false;
	if (!memcmp(c->p + c->off, "options  ", 10)) {
		c->off += 10;
		while (!c->bad) {
			unsigned id = cur_num(c, 2);
			uint64_t size;
			const unsigned char *opt;

			if (!id)
				break;
			size = cur_num(c, 4);
			opt = c->p + c->off;
			cur_skip(c, size);
			if (!c->bad && !option_ok(id, opt, size))
				return false;
		}
	}
	if (c->bad || c->len - c->off < 10)
		return false;
	if (!memcmp(c->p + c->off, "latency  ", 10))
		return true;
	if (memcmp(c->p + c->off, "flyrecord", 10))
		return false;
	c->off += 10;
	for (uint64_t i = 0; i < ncpus && !c->bad; i++) {
		uint64_t off = cur_num(c, 8), size = cur_num(c, 8);

		/* an empty CPU of an unfinished tpctl file points past the end */
		if (size && (off % df->page || size > df->file_len ||
			     off > df->file_len - size))
			return false;
	}
	return !c->bad;
}

/*
 * The checks libtracecmd does not do for us: the file exists, is a regular
 * file, starts with the trace.dat magic, has a version we know and a sane
 * page size, and (version 6) its CPU data is where the header says.  The
 * file stays mapped for the version 6 metadata.
 */
static int datfile_open(const char *path, struct datfile *df)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct cur c = { 0 };
	struct stat st;
	size_t len;
	void *map;
	int fd;

	memset(df, 0, sizeof(*df));
	/* non-blocking: a FIFO must be refused below, not waited on for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		tp_error("cannot open '%s': %s", path, strerror(errno));
		return TP_FAIL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		tp_error("'%s' is not a regular file", path);
		return TP_FAIL;
	}
	if (st.st_size < 18) {
		close(fd);
		tp_error("'%s' is not a trace.dat file", path);
		return TP_FAIL;
	}
	/*
	 * Only the metadata before the CPU data is read through the mapping;
	 * libtracecmd maps the pages itself.  So map at most the first GiB
	 * (formats, kallsyms and printk formats take a few MiB), and less if
	 * the address space is limited (ulimit -v, valgrind), down to 16 MiB.
	 * An unfinished tpctl recording has an apparent size of many GiB.
	 */
	df->file_len = st.st_size;
	len = (uint64_t)st.st_size < (1ULL << 30) ? (size_t)st.st_size : (1U << 30);
	for (;;) {
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED || len <= (16U << 20))
			break;
		len /= 4;
	}
	close(fd);
	if (map == MAP_FAILED) {
		tp_error("cannot read '%s': %s", path, strerror(errno));
		return TP_FAIL;
	}
	df->map = c.p = map;
	df->len = c.len = len;
	if (memcmp(c.p, magic, sizeof(magic))) {
		tp_error("'%s' is not a trace.dat file", path);
		return TP_FAIL;
	}
	if ((c.p[10] != '6' && c.p[10] != '7') || c.p[11] != '\0' || c.p[12] > 1) {
		tp_error("'%s': unsupported trace.dat version", path);
		return TP_FAIL;
	}
	if (c.p[12] != (__BYTE_ORDER == __BIG_ENDIAN)) {
		tp_error("'%s': byte order differs from this host's", path);
		return TP_FAIL;
	}
	df->version = c.p[10];
	c.off = 14;
	df->page = cur_num(&c, 4);
	if (df->page < 512 || df->page > (1U << 24) || (df->page & (df->page - 1)) ||
	    (df->version == '6' && !v6_ok(&c, df))) {
		tp_error("cannot read '%s': truncated or corrupt trace.dat", path);
		return TP_FAIL;
	}
	return TP_OK;
}

static void datfile_close(struct datfile *df)
{
	if (df->map)
		munmap((void *)df->map, df->len);
	free(df->fmts);
}

/* NUL-terminated copy of a blob, for the libtraceevent parsers. */
static char *blob_str(const char *p, size_t len)
{
	return p ? strndup(p, len) : strdup("");
}

/* Lazy loading: an event's format is parsed when its id first shows up. */
static int load_format(struct tep_handle *tep, int id, void *ctx)
{
	struct datfile *df = ctx;

	for (size_t i = 0; i < df->nfmts; i++)
		if (df->fmts[i].id == id)
			return decode_add_format(tep, df->fmts[i].sys, df->fmts[i].text,
						 df->fmts[i].len);
	return -1;
}

/* A tep set up from the file's own metadata as stream sets up its own. */
static struct tep_handle *datfile_tep(struct datfile *df)
{
	struct tep_handle *tep;
	char *s;

	if (df->version != '6' || !df->header_page)
		return NULL;
	tep = decode_tep_new(!getenv("TPCTL_NO_PLUGINS"));
	if (!tep)
		return NULL;
	tep_set_page_size(tep, df->page);
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
	s = blob_str(df->cmdlines, df->cmdlines_len);
	if (s && *s)
		tep_parse_saved_cmdlines(tep, s);
	free(s);
	return tep;
}

/*
 * The decoding proper: libtracecmd opens the file (already checked by
 * datfile_open) and every record goes through the output layer.
 */
static int report_decode(const char *path, struct datfile *df, char **pats, int npats,
			 bool json, bool *cpus, int ncpus)
{
	struct tracecmd_input *h = NULL;
	struct tracecmd_input **bufs = NULL;
	struct tep_handle *tep, *own = NULL;
	struct output *o = NULL;
	struct report_ctx ctx = { 0 };
	bool *sel = NULL;
	int nbuf, nh = 0, nsel = 0, ret, out_fd, null_fd;

	/* Our own one-line errors replace the libraries' messages. */
	if (tp.verbose < 2) {
		tracecmd_set_loglevel(TEP_LOG_NONE);
		tep_set_loglevel(TEP_LOG_NONE);
	}
	/*
	 * libtracecmd 3.1.6 prints some complaints ("File possibly
	 * truncated...") with printf whatever the log level: keep standard
	 * output away from it while it opens the file, so that nothing but
	 * records reaches a --json reader.
	 */
	fflush(stdout);
	out_fd = dup(STDOUT_FILENO);
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (out_fd >= 0 && null_fd >= 0)
		dup2(null_fd, STDOUT_FILENO);
	/*
	 * tracecmd_open() frees a half-initialised handle when the CPU data
	 * do not fit in the file and crashes doing so (libtracecmd 3.1.6), so
	 * read the headers and init the data separately, and leave a failed
	 * handle alone: we exit right after.
	 */
	h = tracecmd_open_head(path, 0);
	if (h && tracecmd_init_data(h) < 0)
		h = NULL;
	fflush(stdout);
	__fpurge(stdout);
	if (out_fd >= 0 && null_fd >= 0)
		dup2(out_fd, STDOUT_FILENO);
	if (out_fd >= 0)
		close(out_fd);
	if (null_fd >= 0)
		close(null_fd);
	if (!h) {
		tp_error("cannot read '%s': truncated or corrupt trace.dat", path);
		return TP_FAIL;
	}
	/* Names are matched on libtracecmd's tep: it has every format of the file. */
	ret = select_events(tracecmd_get_tep(h), pats, npats, &sel, &nsel);
	if (ret)
		goto out;
	own = datfile_tep(df);
	tep = own ? own : tracecmd_get_tep(h);
	/* the recording host's symbols for stack frames, never this host's */
	if (!own)
		decode_kallsyms_use_tep(tep);
	o = output_new(tep, stdout, json ? OUTPUT_JSON : OUTPUT_TEXT);
	if (!o) {
		tp_error("out of memory");
		ret = TP_FAIL;
		goto out;
	}
	if (own)
		output_set_loader(o, load_format, df);
	/* any record may be followed by its stacks: no way to know beforehand */
	if (json && output_set_stacks(o, true) < 0) {
		tp_error("out of memory");
		ret = TP_FAIL;
		goto out;
	}
	ctx.o = o;
	/* event ids: libtracecmd's tep knows the common fields before any lazy load */
	ctx.tep = tracecmd_get_tep(h);
	ctx.sel = sel;
	ctx.nsel = nsel;
	ctx.cpus = cpus;
	ctx.ncpus = ncpus;
	ctx.page = df->page;
	ctx.path = path;
	/*
	 * trace-cmd record -B keeps the data of an instance in a buffer of its
	 * own: read the top buffer and every instance's, merged by timestamp.
	 */
	nbuf = tracecmd_buffer_instances(h);
	bufs = calloc(nbuf + 1, sizeof(*bufs));
	if (!bufs) {
		tp_error("out of memory");
		ret = TP_FAIL;
		goto out;
	}
	bufs[nh++] = h;
	for (int i = 0; i < nbuf; i++) {
		bufs[nh] = tracecmd_buffer_instance_handle(h, i);
		if (!bufs[nh]) {
			tp_error("cannot read '%s': corrupt buffer '%s'", path,
				 tracecmd_buffer_instance_name(h, i));
			ret = TP_FAIL;
			goto out;
		}
		nh++;
	}
	if (nh == 1)
		tracecmd_iterate_events(h, NULL, 0, show_record, &ctx);
	else
		tracecmd_iterate_events_multi(bufs, nh, show_record, &ctx);
	if (output_flush(o) < 0) {
		if (errno != EPIPE)
			tp_error("cannot write to standard output: %s", strerror(errno));
		/* told once: main's final flush must not say it again */
		__fpurge(stdout);
		clearerr(stdout);
		ret = TP_FAIL;
	} else if (ctx.failed) {
		ret = TP_FAIL;
	}
out:
	output_free(o);
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
static int report_isolated(const char *path, struct datfile *df, char **pats, int npats,
			   bool json, bool *cpus, int ncpus)
{
	pid_t parent = getpid(), pid;
	int st, ret, sig;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		/* no process to spare: decode here, without the safety net */
		return report_decode(path, df, pats, npats, json, cpus, ncpus);
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(TP_FAIL);
		ret = report_decode(path, df, pats, npats, json, cpus, ncpus);
		if (fflush(stdout) == EOF && errno != EPIPE) {
			tp_error("cannot write to standard output: %s", strerror(errno));
			ret = TP_FAIL;
		}
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

int cmd_report(int argc, char **argv)
{
	struct datfile df = { 0 };
	const char *cpu_list = NULL, *path;
	bool json = false, *cpus = NULL;
	int ret, ncpus = 4096;
	const struct tp_opt opts[] = {
		OPT_ARG("FILE", "a trace.dat file (tpctl record or trace-cmd record)"),
		OPT_ARG("EVENT", "only these events: system, system:event or a glob"),
		OPT_BOOL('j', "json", &json, "NDJSON, one object per record"),
		OPT_STRING('C', "cpu", &cpu_list, "LIST", "only these CPUs, e.g. 0,2-3"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = { "tpctl report FILE [--json] [--cpu LIST] [EVENT...]", opts, 0, NULL };
	struct tp_args args;

	ret = opt_parse(argc, argv, &spec, &args);
	if (ret)
		return opt_status(ret);
	if (!args.argc) {
		tp_error("no file given");
		return TP_USAGE;
	}
	path = args.argv[0];
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
	ret = datfile_open(path, &df);
	if (!ret)
		ret = (report_isolate ? report_isolated : report_decode)(
			path, &df, args.argv + 1, args.argc - 1, json, cpus, ncpus);
	datfile_close(&df);
	free(cpus);
	return ret;
}
