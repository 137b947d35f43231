// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * live - the session of a live command; see live.h.
 *
 * The order of the set-up matters and is the same for every command:
 * names and filters are checked before anything is created; COMMAND is
 * forked and the pid lists written before any event is on, so nothing but
 * the target gets into the buffer; stacks are set up before the events they
 * belong to; the readers are opened last, after the instance has its final
 * shape, and closed before the journal removes the instance.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>
#include <tracefs.h>

#include "btf.h"
#include "dat.h"
#include "comm.h"
#include "decode.h"
#include "ftr.h"
#include "live.h"
#include "probe.h"
#include "reader.h"
#include "state.h"
#include "strargs.h"
#include "target.h"
#include "tfs.h"
#include "util.h"

struct live {
	struct live_head h;	/* first: live.h's live_next() reads it */
	struct live_spec spec;
	struct target no_target;	/* spec.target when the command gave none */
	struct tep_handle *tep;
	struct tfs_event_list evs;
	/*
	 * --strings: the events as named (evs has the strings probes in their
	 * place, index for index) and what the probes need in the instance
	 */
	struct tfs_event_list named;
	/* LIVE_NAMES: the events enabled for names only */
	struct tfs_event_list nameevs;
	struct strings *str;
	struct tracefs_instance *inst;
	bool private_inst;		/* tpctl-<pid>, ours (else the -i instance, read only) */
	bool top;			/* ours, but the top level (ftr_graph_needs_top) */
	int ncpu;
	bool *cpus;			/* the CPUs read */
	unsigned long long *overrun0, *dropped0;	/* the -i instance's stats at the start */
	unsigned long long lost_seen;	/* live_lost(): overrun + dropped so far */
	bool stacks;
	bool prompt;			/* our instance's buffer_percent is 0 */
	bool drained;
	/* id -> "system:event", built on the first unknown id */
	char **idmap;
	int nid;
	bool idmap_built;
	/* LIVE_PAGES */
	int npage_cpus, page_size;
	int page_count;			/* sub-buffers of a CPU's ring, 0: not known */
	int *page_fds;
	struct tracefs_cpu **page_cpus;
	unsigned long long page_pages, page_lost;	/* live_page_counts() */
	/* an input file */
	struct dat_file df;
	struct tep_record *in_rec;	/* handed out last: freed on the next call */
	/*
	 * Per source (a CPU of the top buffer or of a buffer instance that
	 * trace-cmd record -B wrote): its handle, CPU and next record, read ahead.
	 */
	struct in_src {
		struct tracecmd_input *h;
		int cpu;
		bool eof;
		struct tep_record *next;
	} *in_src;
	int in_nsrc;
	struct tracecmd_input **in_bufs;	/* the buffer instances' handles */
	int in_nbufs;
	bool in_eof;
	struct tep_event_filter *in_filter;	/* --filter, applied here: no kernel to do it */
};

/* ---------------------------------------------------------------- formats */

/* Parse events/<sys>/<name>/format into tep unless it is there; -1 when it cannot be had. */
static int load_format(struct tep_handle *tep, const char *sys, const char *name)
{
	char *buf, *kbuf;
	int size = 0, ret;

	if (tep_find_event_by_name(tep, sys, name))
		return 0;
	buf = tfs_event_format_text(sys, name, &size);
	if (!buf)
		return -1;
	/* live text is the kernel's trace text: a uprobe's head as the kernel prints it */
	kbuf = decode_probe_kernel_head(buf, size);
	ret = kbuf ? decode_add_format(tep, sys, kbuf, strlen(kbuf)) :
	      decode_add_format(tep, sys, buf, size);
	free(kbuf);
	free(buf);
	if (ret)
		tp_warn("libtraceevent cannot parse the format of '%s:%s'", sys, name);
	return ret;
}

int live_load_id(struct tep_handle *tep, int id, void *ctx)
{
	struct live *l = ctx;
	char **systems, **events, *colon;
	int i, j;

	if (l->h.in)
		return -1;
	if (!l->idmap_built) {
		l->idmap_built = true;
		/* libtracefs leaves out "ftrace" (no enable file), whose events still come */
		systems = tracefs_event_systems(NULL);
		systems = tracefs_list_add(systems, "ftrace");
		for (i = 0; systems && systems[i]; i++) {
			events = tracefs_system_events(NULL, systems[i]);
			for (j = 0; events && events[j]; j++) {
				char *txt;
				int size = 0, eid;

				txt = tracefs_event_file_read(NULL, systems[i], events[j], "id", &size);
				if (!txt)
					continue;
				eid = atoi(txt);
				free(txt);
				if (eid <= 0 || eid > 1 << 20)
					continue;
				if (eid >= l->nid) {
					int nn = eid + 256;
					char **nm = realloc(l->idmap, nn * sizeof(*nm));

					if (!nm)
						continue;
					memset(nm + l->nid, 0, (nn - l->nid) * sizeof(*nm));
					l->idmap = nm;
					l->nid = nn;
				}
				if (!l->idmap[eid] &&
				    asprintf(&l->idmap[eid], "%s:%s", systems[i], events[j]) < 0)
					l->idmap[eid] = NULL;
			}
			tracefs_list_free(events);
		}
		tracefs_list_free(systems);
	}
	if (id >= l->nid || !l->idmap[id])
		return -1;
	colon = strchr(l->idmap[id], ':');
	*colon = '\0';
	i = load_format(tep, l->idmap[id], colon + 1);
	*colon = ':';
	return i;
}

int live_reload_comms(void *ctx, comm_line_fn fn, void *fctx)
{
	struct live *l = ctx;

	/* a recording's names are the ones it saved */
	if (l && l->h.in)
		return -1;
	return tfs_cmdlines_each(fn, fctx);
}

/*
 * Kernel variables that print fmts read when the kernel prints `trace`
 * (writeback's "age=" is jiffies minus a field): read when we print, too.
 * jiffies comes from /proc/timer_list (root only), at most every 10 ms.
 */
static bool kernel_variable(const char *name, size_t len, unsigned long long *value, void *ctx)
{
	static unsigned long long jiffies;
	static struct timespec last;
	static int have;	/* 0: not read yet, 1: read, -1: cannot be read */
	struct timespec now;
	char *buf, *p;

	(void)ctx;
	if (len != 7 || memcmp(name, "jiffies", 7) || have < 0)
		return false;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (!have || (now.tv_sec - last.tv_sec) * (long long)TP_NS_PER_S +
		     (now.tv_nsec - last.tv_nsec) >= 10000000LL) {
		buf = tp_read_file("/proc/timer_list", NULL);
		p = buf ? strstr(buf, "\njiffies: ") : NULL;
		if (!p) {
			free(buf);
			have = have ? have : -1;
			return have > 0 ? (*value = jiffies, true) : false;
		}
		jiffies = strtoull(p + 10, NULL, 10);
		last = now;
		have = 1;
		free(buf);
	}
	*value = jiffies;
	return true;
}

/* A tep_handle with the kernel's header_page; NULL after printing the error. */
static struct tep_handle *kernel_tep(bool text)
{
	/*
	 * Plugins only change how events are printed as text; loading them
	 * costs a dlopen each, which typed values (JSON, aggregations) skip.
	 */
	struct tep_handle *tep = decode_tep_new(text && !getenv("TPCTL_NO_PLUGINS"));
	char *buf;
	int size = 0;

	if (!tep) {
		tp_oom();
		return NULL;
	}
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || decode_header_page(tep, buf, size)) {
		tp_error("cannot parse events/header_page of '%s'", tfs_dir());
		free(buf);
		tep_free(tep);
		return NULL;
	}
	free(buf);
	if (text) {
		/*
		 * Text prints what the kernel prints: names of enum constants
		 * (BTF, read on first need), strings that %s fields point to
		 * (printk_formats) and jiffies.  Typed values carry the raw ones.
		 */
		static const struct decode_names names = {
			.constant = btf_enum_value,
			.variable = kernel_variable,
		};

		decode_set_names(&names);
		buf = tracefs_instance_file_read(NULL, "printk_formats", &size);
		if (buf)
			tep_parse_printk_formats(tep, buf);
		free(buf);
	}
	return tep;
}

/*
 * Load the formats of what is enabled in the -i instance now; others come
 * lazily.  The number of events enabled, -1 when set_event cannot be read.
 */
static int preload_enabled(struct live *l)
{
	char *buf, *line, *save = NULL;
	int size = 0, n = 0;

	errno = 0;
	buf = tracefs_instance_file_read(l->inst, "set_event", &size);
	/* libtracefs gives NULL for an empty file too */
	if (!buf)
		return size || errno ? -1 : 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		n++;
		if (tfs_name_valid(line) && tfs_name_valid(colon + 1))
			load_format(l->tep, line, colon + 1);
	}
	free(buf);
	return n;
}

/* The instance runs a tracer (function, function_graph, ...): not nop. */
static bool tracer_runs(struct live *l)
{
	char *tracer = tracefs_instance_file_read(l->inst, "current_tracer", NULL);
	bool nop = !tracer || !strncmp(tracer, "nop", 3);

	free(tracer);
	return !nop;
}

/*
 * Reading an instance where no event is on and no tracer runs would wait
 * in silence for what only trace_marker can bring: say so, and how to get
 * events, but go on (a trace_marker writer may be what is wanted).
 */
static void warn_nothing_enabled(struct live *l, int nenabled)
{
	if (nenabled || tracer_runs(l))
		return;
	if (l->inst)
		tp_warn("no event is enabled in instance '%s': only what is written to its "
			"trace_marker will show; name an EVENT, or enable one with "
			"'tpctl -i %s enable EVENT'", tfs_instance_label(l->inst),
			tfs_instance_label(l->inst));
	else
		tp_warn("no event is enabled in the top level: only what is written to "
			"trace_marker will show; name an EVENT (tpctl stream sched:sched_switch), "
			"or enable one with 'tpctl enable EVENT'");
}

/*
 * The EVENT patterns but those naming a probe of this run (tpctl_<pid>:NAME,
 * as latency's START END may), which exist only once the probes are made.
 */
static int resolve_named(struct live *l)
{
	const struct live_spec *s = &l->spec;
	char **pats = calloc(s->nevents + 1, sizeof(*pats));
	const char *group = probe_run_group();
	size_t glen = strlen(group);
	int i, n = 0;
	int ret;

	if (!pats)
		return tp_oom();
	for (i = 0; i < s->nevents; i++)
		if (!s->nprobes || strncmp(s->events[i], group, glen) || s->events[i][glen] != ':')
			pats[n++] = s->events[i];
	ret = n ? tfs_events_resolve(NULL, pats, n, &l->evs) : TP_OK;
	free(pats);
	return ret;
}

/*
 * LIVE_NAMES: the events that say a task's name changed, those of them the
 * kernel has that are not EVENTs already; their formats loaded.
 */
static int resolve_name_events(struct live *l)
{
	size_t i;

	for (i = 0; i < COMM_RENAME_EVENTS; i++) {
		const struct comm_rename_event *e = &comm_rename_events[i];

		if (tfs_event_list_has(&l->evs, e->sys, e->name) ||
		    load_format(l->tep, e->sys, e->name) < 0 ||
		    !tep_find_event_by_name(l->tep, e->sys, e->name))
			continue;
		if (tfs_event_list_add(&l->nameevs, e->sys, e->name) < 0)
			return tp_oom();
	}
	return TP_OK;
}

/* The EVENT patterns resolved, their formats loaded, the filter checked against each. */
static int resolve_events(struct live *l)
{
	const struct live_spec *s = &l->spec;
	size_t i;
	int ret;

	/*
	 * The EVENTs named first (a mistake there makes no probe), then the
	 * probes of this run, traced like the others, the filter checked
	 * against them too.  Each SPEC is checked before the first probe is
	 * made; rollback removes them.
	 */
	ret = resolve_named(l);
	if (!ret && s->nprobes)
		ret = probe_session_make(s->probes, s->nprobes, &l->evs);
	for (i = 0; !ret && s->strings && i < l->evs.n; i++)
		if (tfs_event_list_add(&l->named, l->evs.v[i].system, l->evs.v[i].name) < 0) {
			tp_oom();
			ret = TP_FAIL;
		}
	if (!ret && s->strings) {
		/* the formats tell which arguments are strings */
		for (i = 0; i < l->evs.n; i++)
			load_format(l->tep, l->evs.v[i].system, l->evs.v[i].name);
		ret = strings_make(l->tep, &l->evs, &l->str);
	}
	for (i = 0; !ret && i < l->evs.n; i++)
		load_format(l->tep, l->evs.v[i].system, l->evs.v[i].name);
	for (i = 0; !ret && s->filter && i < l->evs.n; i++)
		ret = tfs_filter_check(l->tep, &l->evs.v[i], s->filter);
	if (!ret && (s->flags & LIVE_NAMES) && !s->input)
		ret = resolve_name_events(l);
	return ret;
}

/* ---------------------------------------------------------------- the instance */

/*
 * Stacks before the events are enabled, so that every event has them:
 * kernel stacks per event (the stacktrace trigger, else options/stacktrace),
 * user stacks for the instance (the kernel has no trigger for them).
 */
static int setup_stacks(struct live *l)
{
	const char *how = NULL;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && (l->spec.flags & LIVE_KSTACK) && i < l->evs.n; i++)
		ret = tfs_event_stacktrace(l->inst, &l->evs.v[i], l->spec.filter, &how);
	if (!ret && how)
		tp_debug("kernel stacks by %s", how);
	if (!ret && (l->spec.flags & LIVE_USTACK))
		ret = tfs_user_stacktrace(l->inst);
	return ret;
}

static int setup_instance(struct live *l)
{
	const struct live_spec *s = &l->spec;
	unsigned f = s->flags;
	bool off = f & (LIVE_HOLD | LIVE_NOREAD | LIVE_KSTACK);
	size_t i;
	int ret;

	ret = tfs_private_instance(&l->inst);
	if (ret)
		return ret;
	l->private_inst = true;
	/*
	 * function_graph before 6.9 runs only at the top level: the session
	 * reads that (the instance made goes at the end, unused)
	 */
	if (ftr_graph_needs_top(s->ftrace, l->inst)) {
		tracefs_instance_free(l->inst);
		l->inst = NULL;
		l->private_inst = false;
		l->top = true;
		tp_debug("function_graph at the top level: instances have no function_graph here");
	}
	/*
	 * Off while it is set up where the command wants one window for
	 * every event (record), nothing in the buffer (the kernel engine), or
	 * no event without its stack: a trigger on a disabled event
	 * soft-enables it, so the kernel would record the trigger's stack of
	 * an event it then discards.
	 */
	if (off)
		ret = tfs_instance_write(l->inst, "tracing_on", "0");
	if (!ret && s->arm)
		ret = s->arm(l, s->ctx);
	if (ret)
		return ret;
	/* the pid lists before any event is on: nothing else gets into the buffer */
	ret = target_start(s->target);
	if (!ret)
		ret = target_apply(s->target, l->inst);
	if (!ret && s->ftrace)
		ret = ftr_apply(s->ftrace, l->inst, s->target->argv || s->target->follow ||
				s->target->cgroup);
	/* the top level's own tracing_on may be 0 */
	if (!ret && l->top && !off)
		ret = tfs_instance_write(l->inst, "tracing_on", "1");
	if (!ret && s->buffer_kb)
		ret = tfs_instance_write(l->inst, "buffer_size_kb", s->buffer_kb);
	/*
	 * A new instance wakes its reader when the buffer is half full
	 * (buffer_percent 50); a reader that shows each record as it comes
	 * wants to wake on the first one instead.
	 */
	if (!ret && (f & LIVE_PROMPT)) {
		ret = tfs_instance_write(l->inst, "buffer_percent", "0");
		l->prompt = !ret;
	}
	/*
	 * Reader threads (percpu.h) poll one CPU each and drain it: woken at
	 * 10 %, they start long before a busy CPU's buffer is full (90 % of
	 * it is left to fill while the thread wakes), take a few dozen
	 * sub-buffers per wake-up, and a quiet CPU does not wake them per
	 * record.  (1 % cost a third more CPU per event in bench/scale.py:
	 * a wake-up per few sub-buffers.)
	 */
	else if (!ret && (f & LIVE_PAGES))
		ret = tfs_instance_write(l->inst, "buffer_percent", "10");
	if (!ret)
		ret = setup_stacks(l);
	/* the triggers that fire the strings probes' synthetic events, before those are on */
	if (!ret && l->str)
		ret = strings_arm(l->str, l->inst);
	for (i = 0; !ret && i < l->evs.n; i++) {
		/* the kernel engine's filter is its triggers' */
		if (s->filter && !(f & LIVE_NOREAD))
			ret = tfs_event_filter_set(l->inst, l->tep, &l->evs.v[i], s->filter);
		if (!ret)
			ret = tfs_event_enable(l->inst, &l->evs.v[i], true);
	}
	/* unfiltered: a task's name changes whatever the EVENTs' filter says */
	for (i = 0; !ret && !(f & LIVE_NOREAD) && !l->top && i < l->nameevs.n; i++)
		ret = tfs_event_enable(l->inst, &l->nameevs.v[i], true);
	if (!ret && (f & LIVE_KSTACK) && !(f & (LIVE_HOLD | LIVE_NOREAD)))
		ret = tfs_instance_write(l->inst, "tracing_on", "1");
	if (!ret)
		tp_debug("tracing %zu event(s) in %s", l->evs.n, tfs_instance_label(l->inst));
	return ret;
}

/* Overrun and dropped events of one CPU of inst so far (per_cpu/cpuN/stats). */
static void cpu_stats(struct tracefs_instance *inst, int cpu, unsigned long long *overrun,
		      unsigned long long *dropped)
{
	char path[64], *buf, *p;
	int size = 0;

	*overrun = *dropped = 0;
	snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
	buf = tracefs_instance_file_read(inst, path, &size);
	if (!buf)
		return;
	p = strstr(buf, "\noverrun:");
	if (p || !strncmp(buf, "overrun:", 8))
		*overrun = strtoull(strchr(p ? p + 1 : buf, ':') + 1, NULL, 10);
	p = strstr(buf, "dropped events:");
	if (p)
		*dropped = strtoull(p + 15, NULL, 10);
	free(buf);
}

/* ---------------------------------------------------------------- readers */

static int open_readers(struct live *l)
{
	int cpu;

	l->h.rd = reader_new(tep_get_sub_buffer_size(l->tep));
	if (!l->h.rd)
		return tp_oom();
	for (cpu = 0; cpu < l->ncpu; cpu++) {
		if (!l->cpus[cpu])
			continue;
		/*
		 * A private instance counts from zero: its events were enabled
		 * before this point, so a baseline read now would hide what
		 * was lost meanwhile (tests/cli/fault-loss.t under valgrind).
		 */
		if (!l->private_inst)
			cpu_stats(l->inst, cpu, &l->overrun0[cpu], &l->dropped0[cpu]);
		if (reader_add_cpu(l->h.rd, l->inst, cpu) < 0) {
			/* a CPU that is not there (offline, or beyond the possible ones) */
			if (errno == ENOENT && !l->spec.cpus) {
				l->cpus[cpu] = false;
				continue;
			}
			tp_error("cannot open the buffer of cpu %d in %s: %s", cpu,
				 tfs_instance_label(l->inst), strerror(errno));
			return TP_FAIL;
		}
	}
	return TP_OK;
}

/* LIVE_PAGES: each CPU's trace_pipe_raw, non-blocking, as libtracefs tracefs_cpu. */
static int open_pages(struct live *l)
{
	int size = 0, c;
	char *s;

	l->npage_cpus = tfs_count_cpus(l->inst);
	if (l->npage_cpus <= 0) {
		tp_error("cannot list the per-CPU buffers of '%s'", tfs_instance_label(l->inst));
		return TP_FAIL;
	}
	s = tracefs_instance_file_read(l->inst, "buffer_subbuf_size_kb", &size);
	l->page_size = s ? atoi(s) * 1024 : 0;
	free(s);
	if (l->page_size <= 0)
		l->page_size = getpagesize();
	/* "1410", or "7 (expanded: 1410)" before the buffers were first used */
	s = tracefs_instance_file_read(l->inst, "buffer_size_kb", &size);
	if (s) {
		const char *e = strstr(s, "expanded:");
		long kb = atol(e ? e + 9 : s);

		l->page_count = kb > 0 ? (int)(kb * 1024 / l->page_size) : 0;
		free(s);
	}
	l->page_fds = calloc(l->npage_cpus, sizeof(*l->page_fds));
	l->page_cpus = calloc(l->npage_cpus, sizeof(*l->page_cpus));
	if (!l->page_fds || !l->page_cpus)
		return tp_oom();
	for (c = 0; c < l->npage_cpus; c++)
		l->page_fds[c] = -1;
	for (c = 0; c < l->npage_cpus; c++) {
		char file[64];
		char *path;

		/* --cpu: the others are not read (NULL) */
		if (c >= l->ncpu || !l->cpus[c])
			continue;
		/* the -i instance's losses count from now, as open_readers() does */
		if (!l->private_inst)
			cpu_stats(l->inst, c, &l->overrun0[c], &l->dropped0[c]);
		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", c);
		path = tracefs_instance_get_file(l->inst, file);
		if (!path)
			return tp_oom();
		l->page_fds[c] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		tracefs_put_tracing_file(path);
		if (l->page_fds[c] < 0) {
			/* a possible but absent CPU has no buffer to read */
			if (errno == ENOENT || errno == ENODEV)
				continue;
			tp_error("cannot open '%s': %s", file, strerror(errno));
			return TP_FAIL;
		}
		/* closed before the instance is removed, also on a second signal */
		state_register_fd(l->page_fds[c]);
		l->page_cpus[c] = tracefs_cpu_alloc_fd(l->page_fds[c], l->page_size, true);
		if (!l->page_cpus[c]) {
			tp_error("cannot read '%s': %s", file, strerror(errno));
			return TP_FAIL;
		}
	}
	return TP_OK;
}

/* The reading thread ends; the reader is this thread's again. */
static void stop_read_thread(struct live *l)
{
	readq_stop(l->h.q);
	l->h.q = NULL;
}

static void close_readers(struct live *l)
{
	int c;

	stop_read_thread(l);
	reader_free(l->h.rd);
	l->h.rd = NULL;
	for (c = 0; c < l->npage_cpus; c++) {
		if (l->page_cpus && l->page_cpus[c])
			tracefs_cpu_free_fd(l->page_cpus[c]);
		if (l->page_fds && l->page_fds[c] >= 0) {
			state_unregister_fd(l->page_fds[c]);
			close(l->page_fds[c]);
		}
	}
	free(l->page_cpus);
	free(l->page_fds);
	l->page_cpus = NULL;
	l->page_fds = NULL;
	l->npage_cpus = 0;
}

/* ---------------------------------------------------------------- an input file */

int live_filter_new(struct tep_handle *tep, const struct tfs_event_list *evs, const char *expr,
		    struct tep_event_filter **filter)
{
	size_t i;

	*filter = tep_filter_alloc(tep);
	for (i = 0; *filter && i < evs->n; i++) {
		char *text;
		int bad;

		if (asprintf(&text, "%s/%s:%s", evs->v[i].system, evs->v[i].name, expr) < 0)
			break;
		bad = tep_filter_add_filter_str(*filter, text) < 0;
		free(text);
		if (bad) {
			tp_error("invalid filter for '%s:%s'", evs->v[i].system, evs->v[i].name);
			return TP_USAGE;
		}
	}
	if (!*filter || i < evs->n)
		return tp_oom();
	return TP_OK;
}

/* The patterns resolved against the recording's events: a missing one is TP_USAGE. */
static int input_events(struct live *l)
{
	const struct live_spec *s = &l->spec;
	struct tep_event **all = tep_list_events(l->tep, TEP_EVENT_SORT_ID);
	struct tfs_event_list have = { 0 };
	size_t i;
	int ret = TP_OK;

	for (i = 0; all && all[i] && !ret; i++)
		if (tfs_event_list_add(&have, all[i]->system, all[i]->name) < 0)
			ret = TP_FAIL;
	if (!all || ret) {
		tp_oom();
		tfs_event_list_free(&have);
		return TP_FAIL;
	}
	ret = tfs_events_match(&have, s->events, s->nevents, s->input, &l->evs);
	tfs_event_list_free(&have);
	for (i = 0; !ret && s->filter && i < l->evs.n; i++)
		ret = tfs_filter_check(l->tep, &l->evs.v[i], s->filter);
	if (ret || !s->filter)
		return ret;
	/*
	 * What the kernel's filter would have let through, by libtraceevent's
	 * filter.  libtraceevent 1.7.1 compares numbers as unsigned, so a
	 * negative value of a signed field passes "ret > 0" (the kernel's
	 * filter does not let it); tpctl-count(1) says so.
	 */
	return live_filter_new(l->tep, &l->evs, s->filter, &l->in_filter);
}

/* Every CPU of the top buffer and of each buffer instance, as sources to merge. */
static int input_sources(struct live *l)
{
	int nbuf = tracecmd_buffer_instances(l->h.in), b, c, ncpu;

	l->in_bufs = calloc(nbuf + 1, sizeof(*l->in_bufs));
	if (!l->in_bufs)
		goto oom;
	for (b = -1; b < nbuf; b++) {
		struct tracecmd_input *h = l->h.in;

		if (b >= 0) {
			h = tracecmd_buffer_instance_handle(l->h.in, b);
			if (!h) {
				tp_error("cannot read '%s': corrupt buffer '%s'", l->spec.input,
					 tracecmd_buffer_instance_name(l->h.in, b));
				return TP_FAIL;
			}
			l->in_bufs[l->in_nbufs++] = h;
		}
		ncpu = tep_get_cpus(tracecmd_get_tep(h));
		for (c = 0; c < ncpu; c++) {
			struct in_src *v = realloc(l->in_src, (l->in_nsrc + 1) * sizeof(*v));

			if (!v)
				goto oom;
			l->in_src = v;
			v[l->in_nsrc++] = (struct in_src){ .h = h, .cpu = c };
		}
	}
	return TP_OK;
oom:
	return tp_oom();
}

static int open_input(struct live *l)
{
	const struct live_spec *s = &l->spec;
	int ret;

	if (target_given(s->target)) {
		tp_error("'--input' reads a recording: no '-- COMMAND', '--pid' or '--cgroup'");
		return TP_USAGE;
	}
	if (s->nprobes || s->strings || s->buffer_kb || s->cpus ||
	    (s->flags & (LIVE_KSTACK | LIVE_USTACK))) {
		tp_error("'--input' reads a recording: probes, strings, buffer size and stacks "
			 "are what the recording has");
		return TP_USAGE;
	}
	if (dat_open(s->input, &l->df))
		return TP_FAIL;
	l->h.in = dat_tracecmd_open(s->input);
	if (!l->h.in)
		return TP_FAIL;
	l->tep = tracecmd_get_tep(l->h.in);
	/* libtracecmd's reader stops at a name that holds a newline: the rest too */
	if (l->df.cmdlines)
		tfs_tep_parse_cmdlines(l->tep, l->df.cmdlines, l->df.cmdlines_len);
	ret = input_sources(l);
	if (ret)
		return ret;
	/* the recording host's symbols, never this host's */
	decode_kallsyms_use_tep(l->tep);
	return input_events(l);
}

/*
 * The file's records of all CPUs in timestamp order (equal stamps: lower CPU
 * first, as the live merge does).  libtracecmd 3.1.6 offers the merged order
 * only as a callback loop (tracecmd_iterate_events), which cannot be paused
 * for a command's own loop; its per-CPU tracecmd_read_data() can.
 */
__attribute__((noinline)) int live_next_input(struct live *l, struct tep_record *rec,
					     long long *lost)
{
	int i, best = -1;

	if (l->in_rec) {
		tracecmd_free_record(l->in_rec);
		l->in_rec = NULL;
	}
	while (!l->in_eof) {
		best = -1;
		for (i = 0; i < l->in_nsrc; i++) {
			struct in_src *src = &l->in_src[i];

			if (!src->next && !src->eof) {
				src->next = tracecmd_read_data(src->h, src->cpu);
				src->eof = !src->next;
			}
			if (src->next && (best < 0 || src->next->ts < l->in_src[best].next->ts ||
					  (src->next->ts == l->in_src[best].next->ts &&
					   src->cpu < l->in_src[best].cpu)))
				best = i;
		}
		if (best < 0) {
			l->in_eof = true;
			break;
		}
		l->in_rec = l->in_src[best].next;
		l->in_src[best].next = NULL;
		/* an event the filter has no word for (a stack record) passes */
		if (!l->in_filter ||
		    tep_filter_match(l->in_filter, l->in_rec) != TEP_ERRNO__FILTER_MISS)
			break;
		tracecmd_free_record(l->in_rec);
		l->in_rec = NULL;
	}
	if (!l->in_rec)
		return 0;
	*rec = *l->in_rec;
	*lost = l->in_rec->missed_events;
	if (*lost)
		l->lost_seen += *lost > 0 ? (unsigned long long)*lost : 1;
	return 1;
}

/* ---------------------------------------------------------------- the session */

/* The tracefs has more CPUs than the machine (tfs_ncpus: a --tracefs tree): read them all. */
static int more_cpus(struct live *l, int n)
{
	int nc = l->ncpu, no = l->ncpu, nd = l->ncpu;

	if (!tp_array_grow(&l->cpus, &nc, n, sizeof(*l->cpus)) ||
	    !tp_array_grow(&l->overrun0, &no, n, sizeof(*l->overrun0)) ||
	    !tp_array_grow(&l->dropped0, &nd, n, sizeof(*l->dropped0))) {
		return tp_oom();
	}
	l->ncpu = n;
	return TP_OK;
}

static int open_live(struct live *l)
{
	const struct live_spec *s = &l->spec;
	unsigned f = s->flags;
	int ret, cpu, n;

	ret = target_check(s->target);
	if (!ret)
		ret = tfs_init();
	if (!ret && (n = tfs_ncpus()) > l->ncpu)
		ret = more_cpus(l, n);
	if (ret)
		return ret;
	if (s->strings && !s->nevents) {
		tp_error("'--strings' needs EVENT arguments (without them nothing is changed)");
		return TP_USAGE;
	}
	if (s->strings && (ret = strings_check()))
		return ret;
	if (ftr_given(s->ftrace) && (ret = ftr_check(s->ftrace)))
		return ret;
	if (s->cpus && !tp_parse_cpus(s->cpus, l->cpus, l->ncpu)) {
		tp_error("invalid CPU list '%s': CPUs 0-%d, as in 0,2-3", s->cpus, l->ncpu - 1);
		return TP_USAGE;
	}
	if (!s->cpus)
		for (cpu = 0; cpu < l->ncpu; cpu++)
			l->cpus[cpu] = true;
	l->tep = kernel_tep(f & LIVE_TEXT);
	if (!l->tep)
		return TP_FAIL;
	/* every mistake a user can make is found here, before anything is created */
	ret = s->nevents || s->nprobes ? resolve_events(l) : TP_OK;
	/* the function tracers alone: their session may still want the name events */
	if (!ret && !s->nevents && !s->nprobes && ftr_given(s->ftrace) && (f & LIVE_NAMES) &&
	    !s->input)
		ret = resolve_name_events(l);
	if (ret)
		return ret;
	/*
	 * What trace_marker writes arrives whatever is enabled, and so do the
	 * stacks of options/stacktrace, options/userstacktrace and stacktrace
	 * triggers (ftrace's events have no id file for the lazy loader).
	 */
	load_format(l->tep, "ftrace", "print");
	load_format(l->tep, "ftrace", "kernel_stack");
	load_format(l->tep, "ftrace", "user_stack");
	/* the function tracers' records, of this run or of a tracer found on (-i) */
	load_format(l->tep, "ftrace", "function");
	load_format(l->tep, "ftrace", "funcgraph_entry");
	load_format(l->tep, "ftrace", "funcgraph_exit");
	return TP_OK;
}

/* The instance set up and the readers opened, once the command agreed to the events. */
static int open_tracing(struct live *l)
{
	const struct live_spec *s = &l->spec;
	unsigned f = s->flags;
	int ret;

	/* a signal from here on ends the command's loop, which prints what it has */
	if (f & LIVE_EARLY_STOP)
		state_set_graceful(true);
	if (s->nevents || s->nprobes || ftr_given(s->ftrace)) {
		ret = setup_instance(l);
	} else {
		ret = tfs_open_selected(&l->inst);
		if (!ret)
			warn_nothing_enabled(l, preload_enabled(l));
	}
	if (ret)
		return ret;
	tfs_tep_load_cmdlines(l->tep);
	l->stacks = (f & (LIVE_KSTACK | LIVE_USTACK)) ||
		    (!s->nevents && !s->nprobes && !ftr_given(s->ftrace) &&
		     tfs_instance_stacks(l->inst));
	if (f & LIVE_NOREAD)
		return TP_OK;
	if ((f & LIVE_PAGES_PLAIN) && !l->stacks && !tracer_runs(l))
		f |= LIVE_PAGES;
	return f & LIVE_PAGES ? open_pages(l) : open_readers(l);
}

static void live_free(struct live *l)
{
	int i;

	close_readers(l);
	if (l->in_rec)
		tracecmd_free_record(l->in_rec);
	for (i = 0; i < l->in_nsrc; i++)
		if (l->in_src[i].next)
			tracecmd_free_record(l->in_src[i].next);
	free(l->in_src);
	for (i = 0; i < l->in_nbufs; i++)
		tracecmd_close(l->in_bufs[i]);
	free(l->in_bufs);
	if (l->in_filter)
		tep_filter_free(l->in_filter);
	if (l->h.in)
		tracecmd_close(l->h.in);
	else if (l->tep)
		tep_free(l->tep);
	dat_file_close(&l->df);
	for (i = 0; i < l->nid; i++)
		free(l->idmap[i]);
	free(l->idmap);
	free(l->cpus);
	free(l->overrun0);
	free(l->dropped0);
	if (l->inst)
		tracefs_instance_free(l->inst);
	tfs_event_list_free(&l->evs);
	tfs_event_list_free(&l->named);
	tfs_event_list_free(&l->nameevs);
	strings_free(l->str);
	if (l->spec.target == &l->no_target)
		target_free(&l->no_target);
	free(l);
}

int live_open(struct live **lp, const struct live_spec *spec)
{
	struct live *l = calloc(1, sizeof(*l));
	int ret;

	*lp = NULL;
	if (!l)
		return tp_oom();
	l->spec = *spec;
	/* no target: every process but tpctl's own (target_apply's notrace entry) */
	if (!l->spec.target) {
		target_init(&l->no_target);
		l->spec.target = &l->no_target;
	}
	l->ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (l->ncpu < 1)
		l->ncpu = 1;
	l->cpus = calloc(l->ncpu, sizeof(*l->cpus));
	l->overrun0 = calloc(l->ncpu, sizeof(*l->overrun0));
	l->dropped0 = calloc(l->ncpu, sizeof(*l->dropped0));
	if (!l->cpus || !l->overrun0 || !l->dropped0) {
		tp_oom();
		ret = TP_FAIL;
	} else {
		ret = spec->input ? open_input(l) : open_live(l);
	}
	if (!ret && spec->check)
		ret = spec->check(l, spec->ctx);
	if (!ret && !spec->input)
		ret = open_tracing(l);
	if (ret) {
		/* nothing is left: COMMAND (if forked) ended, every change put back */
		target_finish(l->spec.target);
		close_readers(l);
		state_rollback();
		live_free(l);
		return ret;
	}
	*lp = l;
	return TP_OK;
}

int live_start(struct live *l)
{
	int ret = TP_OK;

	/* from here on, INT/TERM/HUP only set state_stop: the command ends and cleans up */
	state_set_graceful(true);
	if (l->h.in)
		return TP_OK;
	if (l->spec.flags & LIVE_HOLD)
		ret = tfs_instance_write(l->inst, "tracing_on", "1");
	/* everything counts from here: COMMAND may run, unless we are stopped already */
	if (!ret && !state_stop)
		ret = target_release(l->spec.target);
	return ret;
}

__attribute__((noinline, cold)) void live_read_failed(void)
{
	tp_error("cannot read the ring buffer: %s", strerror(errno));
}

void live_wait(struct live *l, int timeout_ms)
{
	if (l->h.q)
		readq_wait(l->h.q, timeout_ms);
	else if (!l->h.in && l->h.rd)
		reader_wait(l->h.rd, timeout_ms);
}

bool live_done(struct live *l)
{
	if (l->h.in)
		return l->in_eof;
	return target_done(l->spec.target);
}

void live_drain(struct live *l)
{
	if (l->h.in || l->drained)
		return;
	l->drained = true;
	/* the -i instance is not ours to stop: what is there now is read */
	if (l->private_inst || l->top)
		tfs_instance_write(l->inst, "tracing_on", "0");
	if (l->h.q)
		readq_finish(l->h.q);
	else if (l->h.rd)
		reader_finish(l->h.rd);
}

bool live_eof(struct live *l)
{
	if (l->h.in)
		return l->in_eof;
	if (l->h.q) {
		if (readq_eof(l->h.q))
			return true;
		/* (the thread reads what is left and ends; a short wait, not a spin) */
		readq_finish(l->h.q);
		readq_wait(l->h.q, 10);
		return false;
	}
	if (!l->h.rd || reader_eof(l->h.rd))
		return true;
	/* a CPU found empty is looked at once more, now that tracing is off */
	reader_finish(l->h.rd);
	return false;
}

unsigned long long live_lost(struct live *l)
{
	unsigned long long total = 0, o, d, n;
	int cpu;

	if (l->h.in) {
		n = l->lost_seen;
		l->lost_seen = 0;
		return n;
	}
	for (cpu = 0; cpu < l->ncpu; cpu++) {
		if (!l->cpus[cpu])
			continue;
		cpu_stats(l->inst, cpu, &o, &d);
		total += o + d;
	}
	n = total > l->lost_seen ? total - l->lost_seen : 0;
	l->lost_seen = total;
	return n;
}

void live_warn_lost(unsigned long long lost)
{
	tp_warn("%llu events lost: the ring buffer overflowed before they were read (a larger "
		"--buffer-kb keeps them)", lost);
}

bool live_loss_report(struct live *l, bool force)
{
	unsigned long long pages = 0, lost_pages = 0, lost_events, o, d, to = 0, td = 0;
	char buf[1024];
	size_t len = 0;
	int cpu;

	if (l->h.in)
		return false;
	buf[0] = '\0';
	for (cpu = 0; cpu < l->ncpu; cpu++) {
		if (!l->cpus[cpu])
			continue;
		cpu_stats(l->inst, cpu, &o, &d);
		o -= o >= l->overrun0[cpu] ? l->overrun0[cpu] : o;
		d -= d >= l->dropped0[cpu] ? l->dropped0[cpu] : d;
		to += o;
		td += d;
		if ((o || d) && len < sizeof(buf) - 64)
			len += snprintf(buf + len, sizeof(buf) - len, "%scpu%d %llu/%llu",
					len ? ", " : "", cpu, o, d);
	}
	/* (the reading thread's counts are whole once it ended: live_stop_reading()) */
	stop_read_thread(l);
	if (l->h.rd) {
		reader_counts(l->h.rd, &pages, &lost_pages, &lost_events);
	} else {
		pages = l->page_pages;
		lost_pages = l->page_lost;
	}
	if (!to && !td && !lost_pages)
		return false;
	if (!tp.quiet || force)
		fprintf(stderr, "tpctl: %s: events lost: %llu overwritten, %llu dropped (%s), "
			"%llu of %llu pages marked lost; a larger --buffer-kb keeps them\n", tp.cmd, to, td,
			len ? buf : "per cpu 0/0", lost_pages, pages);
	return true;
}

bool live_target_exit(struct live *l, int *pid, int *status, int *sig)
{
	struct target *t = l->spec.target;

	if (!target_pid(t))
		return false;
	target_finish(t);
	*pid = target_pid(t);
	return target_exit(t, status, sig);
}

int live_close(struct live *l, int ret)
{
	struct target *t;

	/* (a rollback from now on must not find the reading thread in the instance's files) */
	if (l)
		stop_read_thread(l);
	state_set_graceful(false);
	if (!l)
		return ret;
	t = l->spec.target;
	/* stopped by --duration, a signal or a closed stdout: do not leave COMMAND behind */
	target_finish(t);
	if (!ret)
		target_report(t);
	if (!ret)
		tp.command_status = target_status(t);
	if (l->str && l->inst)
		strings_report(l->str, l->inst);
	/* the readers hold the instance's files open: close them before it goes */
	close_readers(l);
	state_rollback();
	live_free(l);
	return ret;
}

struct tep_handle *live_tep(struct live *l)
{
	return l->tep;
}

const struct tfs_event_list *live_events(struct live *l)
{
	return &l->evs;
}

const struct tfs_event_list *live_events_named(struct live *l)
{
	return l->spec.strings && !l->h.in ? &l->named : &l->evs;
}

const struct tfs_event *live_traced(struct live *l, const struct tfs_event *named)
{
	const struct tfs_event_list *n = live_events_named(l);
	size_t i;

	for (i = 0; i < n->n; i++)
		if (!strcmp(n->v[i].system, named->system) && !strcmp(n->v[i].name, named->name))
			return &l->evs.v[i];
	return named;
}

bool live_top(struct live *l)
{
	return l->top;
}

struct tracefs_instance *live_instance(struct live *l)
{
	return l->inst;
}

char *live_format_text(struct live *l, const char *sys, const char *name, int *size)
{
	size_t i, n = strlen(name);

	if (!l->h.in)
		return tfs_event_format_text(sys, name, size);
	/* a recording's format begins "name: NAME\n" */
	for (i = 0; i < l->df.nfmts; i++) {
		const struct dat_file_format *f = &l->df.fmts[i];
		char *text;

		if (strcmp(f->system, sys) || f->len < n + 7 || memcmp(f->text, "name: ", 6) ||
		    memcmp(f->text + 6, name, n) || f->text[6 + n] != '\n')
			continue;
		text = strndup(f->text, f->len);
		if (text)
			*size = f->len;
		return text;
	}
	return NULL;
}

bool live_clock_ns(struct live *l)
{
	char *clk;
	bool ns = true;

	if (l->h.in)
		return true;
	/* the clock of the instance counts nanoseconds unless it is a raw counter */
	clk = tracefs_get_clock(l->inst);
	if (clk) {
		ns = strcmp(clk, "counter") && strcmp(clk, "x86-tsc");
		free(clk);
	}
	return ns;
}

bool live_stacks(struct live *l)
{
	return l->stacks;
}

bool live_prompt(struct live *l)
{
	return l->prompt;
}

int live_ncpus(struct live *l)
{
	return l->ncpu;
}

int live_page_ncpus(struct live *l)
{
	return l->npage_cpus;
}

int live_page_size(struct live *l)
{
	return l->page_size;
}

struct tracefs_cpu *live_page_cpu(struct live *l, int cpu)
{
	return cpu >= 0 && cpu < l->npage_cpus ? l->page_cpus[cpu] : NULL;
}

int live_page_count(struct live *l)
{
	return l->page_count;
}

void live_page_counts(struct live *l, unsigned long long pages, unsigned long long lost_pages)
{
	l->page_pages = pages;
	l->page_lost = lost_pages;
}

int live_page_fd(struct live *l, int cpu)
{
	return cpu >= 0 && cpu < l->npage_cpus ? l->page_fds[cpu] : -1;
}

int live_hide_tasks(struct live *l, const pid_t *tids, int n)
{
	int *v, i, ret;

	if (!l->private_inst || !n || !tfs_has_file(l->inst, "set_event_notrace_pid"))
		return TP_OK;
	v = calloc(n, sizeof(*v));
	if (!v)
		return tp_oom();
	for (i = 0; i < n; i++)
		v[i] = tids[i];
	ret = tfs_pids_add(l->inst, true, v, n);
	free(v);
	return ret;
}

/* The CPUs read, and those tpctl may run on, are both LIVE_READ_THREAD_CPUS or more. */
static bool read_thread_pays(struct live *l)
{
	cpu_set_t set;
	int cpu, n = 0;

	for (cpu = 0; cpu < l->ncpu; cpu++)
		n += l->cpus[cpu];
	if (n < LIVE_READ_THREAD_CPUS || sched_getaffinity(0, sizeof(set), &set) < 0)
		return false;
	return CPU_COUNT(&set) >= LIVE_READ_THREAD_CPUS;
}

void live_stop_reading(struct live *l)
{
	stop_read_thread(l);
}

int live_read_thread(struct live *l, bool when_it_pays)
{
	pid_t tid;
	int ret;

	if (l->h.in || !l->h.rd || l->h.q || (when_it_pays && !read_thread_pays(l)))
		return TP_OK;
	ret = readq_start(&l->h.q, l->h.rd, tep_get_sub_buffer_size(l->tep), 0);
	if (ret)
		return ret;
	tid = readq_tid(l->h.q);
	return live_hide_tasks(l, &tid, 1);
}

/* Where a run is: its clock's marks (0: none) and whether tracing is off. */
struct run {
	double deadline, next, now;
	unsigned long n;
	bool draining;
};

static int run_begin(const struct live_tool *t, struct run *s)
{
	double start = t->start ? t->start : tp_now_s();

	memset(s, 0, sizeof(*s));
	s->deadline = t->duration > 0 ? start + t->duration : 0;
	s->next = t->interval > 0 && t->tick ? start + t->interval : 0;
	/* --drain: tracing goes on, but what is there now is all that is read */
	s->draining = t->flags & LIVE_RUN_DRAIN;
	if (s->draining && t->drain)
		return t->drain(t->ctx);
	return LIVE_GO;
}

/* The clock (--duration, ticks), the command's check and the target: a verdict. */
static int look(struct live *l, const struct live_tool *t, struct run *s)
{
	int v;

	if (t->check && (v = t->check(t->ctx)) < 0)
		return v;
	if (s->deadline || s->next) {
		s->now = tp_now_s();
		if (s->deadline && s->now >= s->deadline)
			return LIVE_STOP;
		if (s->next && !s->draining && s->now >= s->next) {
			v = t->tick(t->ctx, s->now);
			if (v < 0)
				return v;
			while (s->next <= s->now)
				s->next += t->interval;
		}
	}
	if (s->draining || !live_done(l))
		return LIVE_GO;
	/* the target is gone: what it left in the buffers is read, then the run ends */
	if (t->flags & LIVE_RUN_NOREAD)
		return LIVE_STOP;
	live_drain(l);
	s->draining = true;
	return t->drain ? t->drain(t->ctx) : LIVE_GO;
}

static void run_wait(struct live *l, const struct live_tool *t, int ms)
{
	if (t->flags & LIVE_RUN_NOREAD)
		/* a signal ends it (no SA_RESTART), COMMAND's exit too (SIGCHLD) */
		state_pause(ms);
	else if (t->pump)
		t->wait(t->ctx, ms);
	else
		live_wait(l, ms);
}

/* Nothing is ready: the command's idle work, a look around, then a wait. */
static int empty(struct live *l, const struct live_tool *t, struct run *s)
{
	int ms = t->wait_ms ? t->wait_ms : 50, v = LIVE_GO;
	bool was = s->draining;
	double until, left;

	if (t->idle)
		v = t->idle(t->ctx, s->draining, &ms);
	if (v == LIVE_WAIT) {
		run_wait(l, t, ms);
		return LIVE_GO;
	}
	if (v < 0 || (v = look(l, t, s)) < 0)
		return v;
	if (s->draining && t->pump)
		/* the threads were told to finish: none ready is none left */
		return was ? LIVE_STOP : LIVE_GO;
	if (s->draining)
		return live_eof(l) ? LIVE_STOP : LIVE_GO;
	/* not past the next tick or the end */
	until = s->next && (!s->deadline || s->next < s->deadline) ? s->next : s->deadline;
	if (until) {
		left = until - tp_now_s();
		if (left <= 0 && until == s->deadline)
			return LIVE_STOP;
		if (left * 1000 < ms)
			ms = left > 0 ? (int)(left * 1000) + 1 : 0;
	}
	run_wait(l, t, ms);
	return LIVE_GO;
}

/* How a run ended: LIVE_STOP is a normal end */
static int run_status(int v)
{
	return v < LIVE_STOP ? TP_FAIL : TP_OK;
}

/* The command's threads hand the records out (t->pump), or none are read here. */
static int run_pumped(struct live *l, const struct live_tool *t, struct run *s)
{
	int v;

	while (!state_stop) {
		v = t->pump ? t->pump(t->ctx) : LIVE_WAIT;
		if (v == LIVE_GO) {
			if (++s->n & (LIVE_LOOK - 1))
				continue;
			v = look(l, t, s);
		} else if (v == LIVE_WAIT) {
			v = empty(l, t, s);
		}
		if (v < 0)
			return run_status(v);
	}
	return TP_OK;
}

/*
 * Every record ready now to t->record, at most max of them: how many went
 * (fewer than max: none is ready), *v the verdict that stopped them; -1 on
 * a read error.  Every record passes here: live_next() is inline in it,
 * and what that calls (flatten), but for the input file's and the
 * error's cold paths (noinline).
 */
static __attribute__((flatten)) long burst(struct live *l, const struct live_tool *t,
					   struct tep_record *rec, unsigned long max, int *v)
{
	unsigned long n = 0;
	long long lost;
	int r = 0, got = LIVE_GO;

	while (n < max && (r = live_next(l, rec, &lost)) > 0) {
		n++;
		got = t->record(t->ctx, rec, lost);
		if (got < 0)
			break;
	}
	*v = got < 0 ? got : LIVE_GO;
	return r < 0 ? -1 : (long)n;
}

int live_run(struct live *l, const struct live_tool *t)
{
	struct tep_record rec;
	struct run s;
	long n;
	int v;

	v = run_begin(t, &s);
	if (v < 0)
		return run_status(v);
	if (t->pump || (t->flags & LIVE_RUN_NOREAD))
		return run_pumped(l, t, &s);
	memset(&rec, 0, sizeof(rec));
	while (!state_stop) {
		n = burst(l, t, &rec, LIVE_LOOK, &v);
		if (n < 0)
			return TP_FAIL;
		/* the clock and the target every LIVE_LOOK records: a busy run may never idle */
		if (!v)
			v = n == LIVE_LOOK ? look(l, t, &s) : empty(l, t, &s);
		if (v < 0)
			return run_status(v);
	}
	return TP_OK;
}

int live_finish(struct live *l, const struct live_tool *t)
{
	struct tep_record rec;
	long n;
	int v;

	memset(&rec, 0, sizeof(rec));
	live_drain(l);
	do {
		n = burst(l, t, &rec, LIVE_LOOK, &v);
		if (n < 0)
			return TP_FAIL;
		if (v < 0)
			return run_status(v);
	} while (n == LIVE_LOOK || !live_eof(l));
	return TP_OK;
}

long live_read_ready(struct live *l, const struct live_tool *t, unsigned long max)
{
	struct tep_record rec;
	long n;
	int v;

	memset(&rec, 0, sizeof(rec));
	n = burst(l, t, &rec, max, &v);
	return n < 0 || v < LIVE_STOP ? -TP_FAIL : n;
}

int live_stdout_failed(int err, int ret)
{
	/* the reader of stdout went away (| head): a normal end, not an error */
	if (err != EPIPE) {
		tp_error("cannot write to standard output: %s", strerror(err));
		ret = TP_FAIL;
	}
	/* nothing more may reach it, not even from exit()'s flush */
	__fpurge(stdout);
	clearerr(stdout);
	return ret;
}
