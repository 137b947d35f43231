// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl record -o FILE EVENT... [--filter EXPR] [--duration SEC] [--buffer-kb N]
 *              [--stack] [--user-stack] [--file-version 6|7] [-- COMMAND ARGS...]
 *
 * Traces the events in a private instance and moves the raw ring-buffer
 * pages into a trace.dat file (src/dat.c) without decoding them: for
 * version 7 they are read into memory and the writer compresses them; for
 * version 6, spliced from trace_pipe_raw into the file through libtracefs
 * where the kernel allows.
 * The instance's tracing_on is off while events are enabled and switched on
 * once, so every event is recorded over the same window.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "btf.h"
#include "dat.h"
#include "decode.h"
#include "ftr.h"
#include "live.h"
#include "opt.h"
#include "percpu.h"
#include "probe.h"
#include "record_flight.h"
#include "record_rotate.h"
#include "state.h"
#include "strargs.h"
#include "target.h"
#include "tfs.h"
#include "cmd.h"
#include "util.h"

/* What the recording collects from tracefs for the file's header. */
struct meta {
	char *header_page, *header_event, *printk, *cmdlines, *clock, *kallsyms;
	int header_page_len, header_event_len, printk_len, cmdlines_len;
	size_t kallsyms_len;
	struct dat_format *ftrace, *events;
	size_t nftrace, nevents;
};

struct recorder {
	struct live *l;			/* the session: instance, trace_pipe_raw readers */
	struct tracefs_instance *inst;
	struct dat_writer *dat;
	int ncpus;
	unsigned long long bytes;
	long long events, lost;		/* at the end: read and lost, from the CPUs' stats */
	long long unread;		/* at the end: still in the buffers (a drain cut short) */
	const char *output;
	int subbuf;
	struct percpu *pc;		/* the reader threads */
	double *flushed;		/* version 7, per CPU: last commit of kept-back pages */
	unsigned long long *cpu_bytes;	/* per CPU, written by its thread */
	struct tracefs_cpu **tcpu;
	int *fds;
	struct meta *m;			/* --flight, --switch-output: each file's header */
	int version;
	bool flight;
};

static void meta_free(struct meta *m)
{
	free(m->header_page);
	free(m->header_event);
	free(m->printk);
	free(m->cmdlines);
	free(m->clock);
	free(m->kallsyms);
	for (size_t i = 0; i < m->nftrace; i++)
		free((char *)m->ftrace[i].text), free((char *)m->ftrace[i].name);
	for (size_t i = 0; i < m->nevents; i++)
		free((char *)m->events[i].text);
	free(m->ftrace);
	free(m->events);
}

/* Symbols are needed for kernel stacks and when a print fmt prints kernel addresses as names. */
static bool wants_kallsyms(const struct meta *m, bool kstack, bool functions)
{
	static const char *const conv[] = { "%pS", "%ps", "%pB", "%pF", "%pf" };

	/* the function tracers' records are addresses of functions */
	if (kstack || functions)
		return true;
	for (size_t i = 0; i < m->nevents; i++)
		for (size_t k = 0; k < sizeof(conv) / sizeof(*conv); k++)
			if (memmem(m->events[i].text, m->events[i].len, conv[k], 3))
				return true;
	return false;
}

/*
 * The format as the file carries it: enum constants the kernel left as names
 * get their values from the running kernel's BTF (the reader of the file
 * cannot know them; trace-cmd report then prints "mode=ABS" too) and raw
 * tabs in strings are escaped so that libtraceevent parses the print fmt.
 */
static void format_resolve(struct dat_format *f)
{
	static const struct decode_names names = { .constant = btf_enum_value };
	char *text = decode_format_resolve(f->text, f->len, &names);

	if (!text)
		return;
	free((char *)f->text);
	f->text = text;
	f->len = strlen(text);
}

static int meta_collect(struct recorder *r, const struct tfs_event_list *evs, struct meta *m,
			bool kstack,
			bool functions)
{
	char **names;
	int size;

	memset(m, 0, sizeof(*m));
	m->header_page = tracefs_instance_file_read(NULL, "events/header_page",
						    &m->header_page_len);
	m->header_event = tracefs_instance_file_read(NULL, "events/header_event",
						     &m->header_event_len);
	if (!m->header_page || !m->header_event) {
		tp_error("cannot read events/header_page of '%s'", tfs_dir());
		return TP_FAIL;
	}
	/* Empty when nothing uses trace_printk: fine. */
	m->printk = tracefs_instance_file_read(NULL, "printk_formats", &m->printk_len);
	m->cmdlines = tfs_saved_cmdlines(&m->cmdlines_len);
	m->clock = tracefs_instance_file_read(r->inst, "trace_clock", &size);
	if (m->clock && size > 0 && m->clock[size - 1] == '\n')
		m->clock[size - 1] = '\0';

	names = tracefs_system_events(tfs_dir(), "ftrace");
	for (size_t i = 0; names && names[i]; i++) {
		struct dat_format *f;
		void *p = realloc(m->ftrace, (m->nftrace + 1) * sizeof(*m->ftrace));

		if (!p)
			break;
		m->ftrace = p;
		f = &m->ftrace[m->nftrace];
		f->system = "ftrace";
		f->name = strdup(names[i]);
		f->text = tfs_event_format_text("ftrace", names[i], &size);
		if (!f->name || !f->text) {
			free((char *)f->name);
			free((char *)f->text);
			continue;
		}
		f->len = size;
		format_resolve(f);
		m->nftrace++;
	}
	tracefs_list_free(names);

	m->events = calloc(evs->n ? evs->n : 1, sizeof(*m->events));
	if (!m->events)
		return TP_FAIL;
	/* tfs_events_resolve keeps the kernel's order: systems are adjacent. */
	for (size_t i = 0; i < evs->n; i++) {
		struct dat_format *f = &m->events[m->nevents];

		f->system = evs->v[i].system;
		f->name = evs->v[i].name;
		f->text = tfs_event_format_text(f->system, f->name, &size);
		if (!f->text) {
			tp_error("cannot read the format of '%s:%s': %s", f->system, f->name,
				 strerror(errno));
			return TP_FAIL;
		}
		f->len = size;
		format_resolve(f);
		m->nevents++;
	}
	if (wants_kallsyms(m, kstack, functions)) {
		m->kallsyms = tp_read_file("/proc/kallsyms", &m->kallsyms_len);
		if (!m->kallsyms)
			tp_warn("cannot read '/proc/kallsyms': %s; addresses stay numeric",
				strerror(errno));
	}
	return TP_OK;
}

static long long stat_field(const char *stats, const char *name)
{
	const char *p = stats;
	size_t len = strlen(name);

	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == ':')
			return strtoll(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* CPUSTAT options and saved_cmdlines as they are at the end; warns about loss. */
static void finish_meta(struct recorder *r)
{
	long long lost = 0, events = 0, unread = 0;
	char *s;
	int size;

	for (int c = 0; c < r->ncpus; c++) {
		char file[64], *text;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", c);
		s = tracefs_instance_file_read(r->inst, file, &size);
		if (!s)
			continue;
		lost += stat_field(s, "overrun") + stat_field(s, "dropped events");
		events += stat_field(s, "read events");
		unread += stat_field(s, "entries");
		if (asprintf(&text, "CPU: %d\n%s", c, s) > 0) {
			dat_set_cpustat(r->dat, c, text);
			free(text);
		}
		free(s);
	}
	s = tfs_saved_cmdlines(&size);
	if (s) {
		dat_set_cmdlines(r->dat, s, size);
		free(s);
	}
	/* a flight recorder's oldest events are overwritten: the CPUSTAT options say how many */
	if (lost && !r->flight)
		tp_warn("%lld events were lost (ring buffer full); a larger --buffer-kb keeps them",
			lost);
	r->events = events;
	r->lost = lost;
	r->unread = unread;
}

/* What the file holds, as trace-cmd says what it wrote: one line on stderr (-q: none). */
static void record_summary(const struct recorder *r)
{
	struct stat st;
	char size[32];

	if (stat(r->output, &st) < 0)
		return;
	if (st.st_size >= 10 << 20)
		snprintf(size, sizeof(size), "%.1f MiB", st.st_size / 1048576.0);
	else if (st.st_size >= 10 << 10)
		snprintf(size, sizeof(size), "%.1f KiB", st.st_size / 1024.0);
	else
		snprintf(size, sizeof(size), "%lld bytes", (long long)st.st_size);
	tp_note("wrote '%s': %lld events, %lld lost, %s", r->output, r->events, r->lost, size);
}

/*
 * Version 7 keeps pages back until a compression chunk is full; at a low
 * event rate that can take long, so whatever waits is committed every
 * FLUSH_SECONDS: the bound on what a SIGKILL or a full disk can take from
 * the file (besides the kernel's buffer), as the poll timeout is for
 * version 6.
 */
#define FLUSH_SECONDS 1.0
/* The reader threads' poll timeout: how stale a CPU's part of the file may get. */
#define POLL_MS 250
/*
 * After INT, TERM or HUP the buffers are read for at most this long: on a
 * slow machine (an emulator, a large --buffer-kb) reading and compressing
 * all they hold can take longer than whoever sent the signal waits (a
 * supervisor's SIGKILL).  What is left is said, as the loss is.
 */
#define DRAIN_SIGNAL_S 0.25

/*
 * The reader threads (percpu.h), one per CPU by default: each moves its
 * CPU's whole sub-buffers into that CPU's part of the file, spliced
 * (version 6) or read and compressed there (version 7), without decoding.
 */
static int move_fd(void *ctx, int cpu)
{
	struct recorder *r = ctx;

	return dat_cpu_fd(r->dat, cpu);
}

static int pages_in(void *ctx, int thread, int cpu, const void *buf, size_t len)
{
	struct recorder *r = ctx;

	(void)thread;
	r->cpu_bytes[cpu] += len;
	return dat_cpu_write(r->dat, cpu, buf, len);
}

static int cpu_idle(void *ctx, int thread, int cpu, bool moved, bool final)
{
	struct recorder *r = ctx;

	(void)thread;
	if (dat_version(r->dat) == 6)
		return moved || final ? dat_cpu_commit(r->dat, cpu) : 0;
	if (final || tp_now_s() - r->flushed[cpu] >= FLUSH_SECONDS) {
		r->flushed[cpu] = tp_now_s();
		return dat_cpu_flush(r->dat, cpu);
	}
	return 0;
}

static int start_threads(struct recorder *r, unsigned nthreads)
{
	double t = tp_now_s();
	int ret;

	r->flushed = calloc(r->ncpus, sizeof(*r->flushed));
	r->cpu_bytes = calloc(r->ncpus, sizeof(*r->cpu_bytes));
	r->tcpu = calloc(r->ncpus, sizeof(*r->tcpu));
	r->fds = calloc(r->ncpus, sizeof(*r->fds));
	if (!r->flushed || !r->cpu_bytes || !r->tcpu || !r->fds)
		return tp_oom();
	for (int c = 0; c < r->ncpus; c++) {
		r->flushed[c] = t;
		r->tcpu[c] = live_page_cpu(r->l, c);
		r->fds[c] = live_page_fd(r->l, c);
	}
	ret = percpu_start(&r->pc, &(struct percpu_spec){
		.ncpus = r->ncpus, .tcpu = r->tcpu, .fd = r->fds, .subbuf = r->subbuf,
		.nthreads = nthreads, .timeout_ms = POLL_MS,
		.move_fd = dat_version(r->dat) == 6 ? move_fd : NULL,
		.pages = pages_in, .idle = cpu_idle, .ctx = r,
	});
	if (!ret)
		ret = live_hide_tasks(r->l, percpu_tids(r->pc), percpu_nthreads(r->pc));
	return ret;
}

/* The threads take what is left, partial sub-buffers too (until deadline, 0: all), and end. */
static int stop_threads(struct recorder *r, double deadline)
{
	int ret = percpu_finish_by(r->pc, deadline);

	r->pc = NULL;
	if (ret < 0) {
		tp_error("cannot write '%s': %s", r->output, strerror(errno));
		return TP_FAIL;
	}
	for (int c = 0; c < r->ncpus; c++)
		r->bytes += dat_version(r->dat) == 6 ? dat_cpu_size(r->dat, c) : r->cpu_bytes[c];
	return TP_OK;
}

/* A reader thread that failed ends the run (stop_threads() says why). */
static int threads_look(void *ctx)
{
	return percpu_error(((struct recorder *)ctx)->pc) ? LIVE_STOP : LIVE_GO;
}

/* The main thread only waits: for the end, a signal or a thread that failed. */
static int record_loop(struct recorder *r, double duration)
{
	return live_run(r->l, &(struct live_tool){
		.check = threads_look, .ctx = r, .duration = duration, .wait_ms = POLL_MS,
		.flags = LIVE_RUN_NOREAD,
	});
}

static struct dat_writer *open_output(struct recorder *r, const char *path, struct meta *m,
				      int subbuf, int version)
{
	struct dat_info in = { 0 };
	struct utsname u;
	char *uname_s = NULL;
	struct dat_writer *w;

	if (uname(&u) == 0 &&
	    asprintf(&uname_s, "%s %s %s %s", u.sysname, u.release, u.version, u.machine) < 0)
		uname_s = NULL;
	in.version = version;
	in.ncpus = r->ncpus;
	in.page_size = subbuf;
	in.header_page = m->header_page;
	in.header_page_len = m->header_page_len;
	in.header_event = m->header_event;
	in.header_event_len = m->header_event_len;
	in.ftrace = m->ftrace;
	in.nftrace = m->nftrace;
	in.events = m->events;
	in.nevents = m->nevents;
	in.kallsyms = m->kallsyms;
	in.kallsyms_len = m->kallsyms_len;
	in.printk = m->printk;
	in.printk_len = m->printk ? m->printk_len : 0;
	in.cmdlines = m->cmdlines;
	in.cmdlines_len = m->cmdlines ? m->cmdlines_len : 0;
	in.clock = m->clock;
	in.uname = uname_s;
	in.version_text = r->flight ? "tpctl " TPCTL_VERSION " flight recorder" :
				      "tpctl " TPCTL_VERSION;
	r->subbuf = subbuf;
	w = dat_create(path, &in);
	if (!w)
		tp_error("cannot create '%s': %s", path, strerror(errno));
	free(uname_s);
	return w;
}

/* The file completed: what the buffers hold, the metadata of the end, the trailer. */
static int record_end(struct recorder *r, int ret)
{
	int err;

	if (!r->dat)
		return ret;
	/* Stop the writers first, then take what is left, partial pages too. */
	live_drain(r->l);
	if (r->pc) {
		err = stop_threads(r, state_stop ? tp_now_s() + DRAIN_SIGNAL_S : 0);
		if (!ret)
			ret = err;
	}
	finish_meta(r);
	if (r->unread && state_stop)
		tp_warn("%lld events not read: stopped by SIG%s, the buffers were read for %.2f s "
			"at most", r->unread, sigabbrev_np(state_stop) ? sigabbrev_np(state_stop) : "?",
			DRAIN_SIGNAL_S);
	if (dat_finish(r->dat) < 0 && !ret) {
		tp_error("cannot write '%s': %s", r->output, strerror(errno));
		ret = TP_FAIL;
	}
	if (!ret) {
		tp_debug("wrote %llu bytes of trace data to '%s'", r->bytes, r->output);
		record_summary(r);
	}
	return ret;
}

/* record_rotate.h's files: each a new file with the recording's header, and its end */
static struct dat_writer *file_create(void *ctx, const char *path)
{
	struct recorder *r = ctx;

	return open_output(r, path, r->m, r->subbuf, r->version);
}

static void file_end(void *ctx, struct dat_writer *w)
{
	struct recorder *r = ctx;
	struct dat_writer *keep = r->dat;

	r->dat = w;
	finish_meta(r);
	r->dat = keep;
}

/* --flight and --switch-output: the run, its files written through record_rotate.h */
static int record_files(struct recorder *r, const struct flight_opts *fo,
			const struct rot_switch *sw, double duration, unsigned nthreads)
{
	const struct rot_spec rs = {
		.l = r->l, .ncpus = r->ncpus, .subbuf = r->subbuf, .version = r->version,
		.nthreads = nthreads, .hide = !fo->on, .create = file_create, .end = file_end,
		.ctx = r,
	};
	int ret;

	if (!fo->on)
		return rotate_record(&rs, &(struct rotate_run){
			.base = r->output, .bytes = sw->bytes, .seconds = sw->seconds,
			.max_files = sw->max_files, .duration = duration,
		});
	ret = flight_arm(r->l, fo);
	return ret ? ret : flight_record(&rs, r->output, fo, duration);
}

/* The options that go with --flight or --switch-output only: TP_OK or TP_USAGE. */
static int files_usage(const struct flight_opts *fo, const struct rot_switch *sw)
{
	bool rotating = sw->bytes || sw->seconds;

	if ((fo->nstop || fo->rearm) && !fo->on)
		tp_error("--stop-on and --rearm go with --flight");
	else if (fo->rearm && !fo->nstop)
		tp_error("--rearm goes with --stop-on");
	else if (sw->max_files && !rotating)
		tp_error("--max-files goes with --switch-output");
	else if (fo->on && rotating)
		tp_error("--flight and --switch-output do not go together");
	else
		return TP_OK;
	return TP_USAGE;
}

/*
 * The usage errors of record's arguments (events: any EVENT, probe or
 * function tracer given): TP_OK, or TP_USAGE after one error line.
 */
static int record_usage(bool events, const struct ftr_spec *fs, const struct flight_opts *fo,
			const struct rot_switch *sw)
{
	if (!events) {
		tp_error("no event given");
		return TP_USAGE;
	}
	if (ftr_usage(fs))
		return TP_USAGE;
	if (tp.instance) {
		tp_error("record always traces in a private instance; '-i' does not apply");
		return TP_USAGE;
	}
	return files_usage(fo, sw);
}

/*
 * Once the session is open: the file's metadata, then --flight's or
 * --switch-output's files, or the one file and its loop.
 */
static int record_run(struct recorder *r, const struct flight_opts *fo,
		      const struct rot_switch *sw, bool kstack, bool ftrace, double duration,
		      unsigned nthreads)
{
	int ret;

	r->inst = live_instance(r->l);
	r->ncpus = live_page_ncpus(r->l);
	ret = meta_collect(r, live_events(r->l), r->m, kstack, ftrace);
	if (ret)
		return ret;
	if (fo->on || sw->bytes || sw->seconds) {
		r->subbuf = live_page_size(r->l);
		return record_files(r, fo, sw, duration, nthreads);
	}
	r->dat = open_output(r, r->output, r->m, live_page_size(r->l), r->version);
	if (!r->dat)
		return TP_FAIL;
	/* the threads start before tracing does: their own events are hidden by then */
	ret = start_threads(r, nthreads);
	if (!ret)
		ret = live_start(r->l);
	if (!ret)
		ret = record_loop(r, duration);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	const char *output = NULL, *filter = NULL, *buffer_kb = NULL;
	struct recorder r = { 0 };
	struct meta m = { 0 };
	struct target tgt;
	double duration = 0;
	unsigned long long kb = 0, version = DAT_VERSION_DEFAULT;
	char kbuf[32];
	unsigned long long nthreads = 0;
	int ret;
	bool kstack = false, ustack = false, strings = false;
	struct probe_words probes = { .n = 0 };
	struct ftr_spec fs = { .nfunc = 0 };
	struct flight_opts fo = { .on = false };
	struct rot_switch sw = { 0 };
	const struct tp_opt opts[] = {
		OPT_STRING('o', "output", &output, "FILE",
			   "the trace.dat file to write (default: trace.dat)"),
		OPT_ARG("EVENT", "system, system:event or a glob (sched:sched_*)"),
		OPT_EVENT(),
		OPT_STRING('f', "filter", &filter, "EXPR", "record only events matching EXPR (every event)"),
		OPT_SECONDS('d', "duration", &duration, "SEC", "stop after SEC seconds"),
		OPT_UINT('b', "buffer-kb", &kb, "N", 1, 1ULL << 30,
			 "per-CPU ring buffer size of the private instance, in KiB"),
		OPT_BOOL(0, "stack", &kstack, "record the kernel stack of every EVENT"),
		OPT_BOOL(0, "user-stack", &ustack, "record the user stack of every EVENT"),
		OPT_UINT(0, "file-version", &version, "V", 6, 7,
			 "trace.dat version 7 (zstd-compressed pages, the default) or 6"),
		THREADS_OPT(&nthreads),
		FLIGHT_OPTS(&fo),
		ROT_OPTS(&sw),
		PROBE_OPTS(&probes),
		STRINGS_OPT(&strings),
		FTR_OPTS(&fs),
		TARGET_OPTS(&tgt),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = {
		"tpctl record [-o FILE] EVENT... [--filter EXPR] [--duration SEC] [--buffer-kb N]\n"
		"                    [--stack] [--user-stack] [--file-version 6|7] [--threads N]\n"
		"                    [--flight [--stop-on 'EVENT [if FILTER]']... [--rearm]]\n"
		"                    [--switch-output SIZE|DURATION [--max-files N]]\n"
		"                    [--probe SPEC]... [--strings] [--function PATTERN]... [--graph FUNC]...\n"
		"                    [--graph-notrace FUNC]... [--depth N]\n"
		"                    " TARGET_USAGE,
		opts, OPT_COMMAND, NULL,
	};
	struct tp_args args;

	ret = target_parse(&tgt, argc, argv, &spec, &args);
	if (ret)
		return opt_status(ret);
	if (kb) {
		snprintf(kbuf, sizeof(kbuf), "%llu", kb);
		buffer_kb = kbuf;
	}
	/* as trace-cmd record */
	if (!output)
		output = "trace.dat";
	if (record_usage(args.argc || probes.n || ftr_given(&fs), &fs, &fo, &sw)) {
		target_free(&tgt);
		return TP_USAGE;
	}
	r.output = output;
	r.m = &m;
	r.version = version;
	r.flight = fo.on;
	/*
	 * A SIGUSR1 that comes as soon as the instance is there (its tracing_on
	 * reads 1 when made) is a dump or a cut, never the default end
	 */
	if (fo.on || sw.bytes || sw.seconds)
		rot_usr1_catch();
	ret = live_open(&r.l, &(struct live_spec){
		.events = args.argv, .nevents = args.argc, .filter = filter,
		.buffer_kb = buffer_kb, .target = &tgt, .probes = probes.v, .nprobes = probes.n,
		.strings = strings, .ftrace = &fs,
		/* tracing_on 0 until every event is on: one window for all of them */
		.flags = LIVE_PAGES | LIVE_HOLD | (kstack ? LIVE_KSTACK : 0) |
			 (ustack ? LIVE_USTACK : 0),
	});
	if (!ret)
		ret = record_run(&r, &fo, &sw, kstack, ftr_given(&fs), duration, nthreads);
	ret = live_close(r.l, record_end(&r, ret));
	target_free(&tgt);
	free(r.flushed);
	free(r.cpu_bytes);
	free(r.tcpu);
	free(r.fds);
	meta_free(&m);
	return ret;
}
