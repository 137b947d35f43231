// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl stream [EVENT...] [--json] [--filter EXPR] [--count N] [--duration SEC]
 *              [--cpu LIST] [--drain] [--fail-on-loss] [--buffer-kb N] [--read-thread WHEN]
 *
 * With EVENTs: a private instance tpctl-<pid> (journaled, so it goes away on
 * every exit path), the events enabled there, and its per-CPU raw buffers
 * decoded live.  Without: whatever is enabled in the -i instance (top level
 * by default) is read and nothing is changed.
 *
 * The loop: hand out every record that is ready (reader_next, merged by
 * timestamp); when none is, flush stdout once and poll all CPUs.  So a pipe
 * reader sees each line as soon as nothing newer is pending, and a busy
 * stream costs one write() per stdio buffer, not per record.
 */
#include <errno.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "ftr.h"
#include "live.h"
#include "opt.h"
#include "probe.h"
#include "output.h"
#include "output_pool.h"
#include "state.h"
#include "stream_cpu.h"
#include "strargs.h"
#include "target.h"
#include "cmd.h"
#include "util.h"
#include "usym.h"

/* Poll timeout: the longest a record waits on a CPU whose buffer does not wake us. */
#define WAIT_MS 50
/* --count with stacks: how long the last events' stacks may take to come */
#define END_WAIT_MS 100
/* an instance's own stack options: how many stacks follow an event is not known */
#define OWED_UNKNOWN 1000

/* Does the last event written on some CPU still wait for a stack? */
static bool owing(const int *owed, int ncpu)
{
	int i;

	for (i = 0; owed && i < ncpu; i++)
		if (owed[i])
			return true;
	return false;
}
/* stdout's buffer: a pipe's capacity (glibc ignores the size unless given the buffer) */
static char stdout_buf[65536];

/* What the command line says. */
struct stream_opts {
	struct tp_args args;
	struct target tgt;
	struct probe_words probes;
	struct ftr_spec fs;
	const char *filter, *cpulist, *buffer_kb;
	unsigned long long count, kb, nthreads;
	double duration;
	int read_thread;
	bool json, drain, fail_on_loss, kstack, ustack, strings;
	bool percpu;			/* --threads: reader threads that format */
	char kbuf[32];
};

/* A run: the session, its output and where the records stand. */
struct stream {
	struct live *l;
	struct output *out;
	struct output_pool *pool;
	struct stream_cpu *sc;
	struct usym *usym;
	unsigned long long count, seen;
	int ncpu;
	/* with stacks: per CPU, the stack records its last event still has to get */
	int *owed, per_event;
	bool plain;			/* no pool, nothing owed: each record written at once */
	bool stacks;
	bool ending;			/* --count reached: only what is owed still */
	bool lost_seen;
	bool pool_failed;		/* the formatting threads failed (not a write) */
	double end_by;			/* then: how long the stacks may take */
};

static const char *user_symbol(void *ctx, int tgid, uint64_t addr, bool ret,
			       unsigned long long *off, const char **obj)
{
	return usym_lookup(ctx, tgid, addr, ret, off, obj);
}

/* JSON: how COMMAND ended, as the last line (once it has, ending it if need be). */
static void exit_line(struct live *l, struct output *out)
{
	int pid, status, sig;

	if (!out || ferror(stdout))
		return;
	if (live_target_exit(l, &pid, &status, &sig) && output_exit(out, pid, status, sig) == 0)
		output_flush(out);
	if (ferror(stdout)) {
		__fpurge(stdout);
		clearerr(stdout);
	}
}

/* --read-thread WHEN */
enum { RT_AUTO, RT_YES, RT_NO };

static int opt_read_thread(const struct tp_opt *o, const char *arg)
{
	int *v = o->value;

	if (!strcmp(arg, "auto"))
		*v = RT_AUTO;
	else if (!strcmp(arg, "yes"))
		*v = RT_YES;
	else if (!strcmp(arg, "no"))
		*v = RT_NO;
	else {
		tp_error("invalid --read-thread '%s': auto, yes or no", arg);
		return TP_USAGE;
	}
	return TP_OK;
}

/* An event written (r 0; 1: a stack): LIVE_STOP at --count, once no stack is owed. */
static int counted(struct stream *s, int r)
{
	if (r || !s->count || ++s->seen < s->count)
		return LIVE_GO;
	if (!s->stacks || !owing(s->owed, s->ncpu))
		return LIVE_STOP;
	s->ending = true;
	return LIVE_GO;
}

/* A record with stacks owed, through the pool, or after a loss: off the hot path. */
static __attribute__((noinline)) int record_slow(struct stream *s, struct tep_record *rec, long long lost)
{
	bool in = rec->cpu >= 0 && rec->cpu < s->ncpu, stack;
	int r;

	/*
	 * After the last event of --count: only the stacks still owed to the
	 * last event written on each CPU.  A CPU's next event (not written)
	 * says its last one is complete.
	 */
	if (s->ending) {
		stack = output_is_stack(s->out, rec);
		if (in && !stack)
			s->owed[rec->cpu] = 0;
		if (!in || !stack || !s->owed[rec->cpu])
			return owing(s->owed, s->ncpu) ? LIVE_GO : LIVE_STOP;
	}
	if (lost)
		s->lost_seen = true;
	/* 1: a record that the reading thread writes itself, in its place */
	r = s->pool ? output_pool_add(s->pool, s->out, stdout, rec, lost) : 1;
	if (r == 1) {
		r = s->pool ? output_pool_flush(s->pool, stdout) : 0;
		if (!r && lost)
			r = output_lost(s->out, rec->cpu, lost);
		if (!r)
			r = output_record(s->out, rec);
	}
	if (r < 0) {
		s->pool_failed = s->pool && !ferror(stdout);
		return LIVE_STOP;
	}
	/* 0: an event, which its stacks follow on its CPU; 1: one of them */
	if (s->owed && in) {
		if (!r)
			s->owed[rec->cpu] = s->per_event;
		else if (s->owed[rec->cpu] && s->owed[rec->cpu] != OWED_UNKNOWN)
			s->owed[rec->cpu]--;
	}
	if (s->ending && !owing(s->owed, s->ncpu))
		return LIVE_STOP;
	return counted(s, r);
}

/*
 * The common case: a record to write, no stacks owed, no pool, no loss, no
 * --count; output_record()'s -1 (a write failed) is LIVE_STOP, its 0 and 1
 * go on.
 */
static int stream_record(void *ctx, struct tep_record *rec, long long lost)
{
	struct stream *s = ctx;

	if (__builtin_expect(!s->plain || lost || s->count, 0))
		return record_slow(s, rec, lost);
	return output_record(s->out, rec);
}

/* Nothing is ready: what is held goes out (a pipe's reader sees it now). */
static int stream_idle(void *ctx, bool draining, int *ms)
{
	struct stream *s = ctx;
	double t;

	/*
	 * The last event's stack may be committed just after the event was
	 * read: wait for it, up to END_WAIT_MS (one wait is not enough: the
	 * reader may hold a partial sub-buffer a while).
	 */
	if (s->ending) {
		t = tp_now_s();
		if (!s->end_by)
			s->end_by = t + END_WAIT_MS / 1000.0;
		else if (t >= s->end_by)
			return LIVE_STOP;
		*ms = (int)((s->end_by - t) * 1000) + 1;
		return LIVE_WAIT;
	}
	if (draining)
		return LIVE_GO;
	if (s->sc)
		return output_flush(s->out) < 0 ? LIVE_STOP : LIVE_GO;
	if (s->pool && output_pool_flush(s->pool, stdout) < 0) {
		s->pool_failed = !ferror(stdout);
		return LIVE_STOP;
	}
	return output_idle(s->out) < 0 ? LIVE_STOP : LIVE_GO;
}

/* --threads: the next record the reader threads formatted, in order. */
static int stream_pump(void *ctx)
{
	struct stream *s = ctx;
	int r = stream_cpu_next(s->sc, s->out);

	if (r < 0) {
		s->pool_failed = !ferror(stdout);
		return LIVE_STOP;
	}
	if (r == 2) {
		s->lost_seen = true;
		return LIVE_GO;
	}
	if (!r)
		return LIVE_WAIT;
	return s->count && ++s->seen >= s->count ? LIVE_STOP : LIVE_GO;
}

static void stream_wait(void *ctx, int ms)
{
	stream_cpu_wait(((struct stream *)ctx)->sc, ms);
}

/* Tracing is off: the threads read what is left, then stop. */
static int stream_drain(void *ctx)
{
	return stream_cpu_finish(((struct stream *)ctx)->sc) < 0 ? LIVE_FAIL : LIVE_GO;
}

static int stream_parse(struct stream_opts *o, int argc, char **argv)
{
	const struct tp_opt opts[] = {
		OPT_ARG("EVENT", "system:event, system or a glob; traced in a private instance\n"
			"that is removed on exit (without EVENT: read what is enabled)"),
		OPT_EVENT(),
		OPT_BOOL('j', "json", &o->json,
			 "NDJSON, one object per line, instead of the kernel's text"),
		OPT_STRING('f', "filter", &o->filter, "EXPR",
			   "filter every EVENT with EXPR (needs EVENT)"),
		OPT_UINT('c', "count", &o->count, "N", 1, 0, "stop after N events"),
		OPT_SECONDS('d', "duration", &o->duration, "SEC",
			    "stop after SEC seconds (fractions allowed)"),
		OPT_STRING('C', "cpu", &o->cpulist, "LIST", "only these CPUs (0,2-3)"),
		OPT_BOOL('D', "drain", &o->drain, "stop once the data already buffered is read"),
		OPT_BOOL('L', "fail-on-loss", &o->fail_on_loss, "exit 1 if any event was lost"),
		OPT_UINT('b', "buffer-kb", &o->kb, "N", 1, 1ULL << 30,
			 "per-CPU buffer of the private instance, in KiB (needs EVENT)"),
		OPT_BOOL(0, "stack", &o->kstack, "the kernel stack of every EVENT (needs EVENT)"),
		OPT_BOOL(0, "user-stack", &o->ustack,
			 "the user stack of every EVENT (needs EVENT)"),
		OPT_UINT(0, "threads", &o->nthreads, "N", 1, 256,
			 "N reader threads, each reading, decoding and formatting its\n"
			 "share of the CPUs, merged in order by the main thread\n"
			 "(default: one thread does it all; see the manual for\n"
			 "--stack, --strings, --function, --graph and no EVENT)"),
		OPT_CALLBACK(0, "read-thread", &o->read_thread, "WHEN", opt_read_thread,
			     "read and merge the CPUs' ring buffers on a thread of\n"
			     "their own while the main thread formats and writes:\n"
			     "auto (the default: where 4 CPUs or more are read and\n"
			     "tpctl may run on 4), yes or no"),
		PROBE_OPTS(&o->probes),
		STRINGS_OPT(&o->strings),
		FTR_OPTS(&o->fs),
		TARGET_OPTS(&o->tgt),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = {
		"tpctl stream [EVENT...] [--json] [--filter EXPR] [--count N] [--duration SEC]\n"
		"                    [--cpu LIST] [--drain] [--fail-on-loss] [--buffer-kb N]\n"
		"                    [--stack] [--user-stack] [--threads N] [--read-thread WHEN]\n"
		"                    [--probe SPEC]... [--strings]\n"
		"                    [--function PATTERN]... [--graph FUNC]... [--graph-notrace FUNC]...\n"
		"                    [--depth N]\n"
		"                    " TARGET_USAGE,
		opts, OPT_COMMAND, NULL,
	};

	memset(o, 0, sizeof(*o));
	o->read_thread = RT_AUTO;
	return target_parse(&o->tgt, argc, argv, &spec, &o->args);
}

/* The options that do not go together: TP_OK or TP_USAGE after one error line. */
static int stream_check(struct stream_opts *o)
{
	/* a probe of the run is an EVENT too: traced in the private instance */
	int n = o->args.argc + o->probes.n + o->fs.nfunc + o->fs.ngraph;

	/* COMMAND's output must not mix with the events on stdout */
	o->tgt.stdout_to_stderr = true;
	if (o->kb) {
		snprintf(o->kbuf, sizeof(o->kbuf), "%llu", o->kb);
		o->buffer_kb = o->kbuf;
	}
	o->fs.cmd = "stream";
	if (ftr_usage(&o->fs))
		return TP_USAGE;
	if (!n && target_given(&o->tgt))
		tp_error("'-- COMMAND', '--pid', '--cgroup' need EVENT arguments "
			 "(without them nothing is changed)");
	else if (!n && o->filter)
		tp_error("'--filter' needs EVENT arguments (without them nothing is changed)");
	else if (!n && o->buffer_kb)
		tp_error("'--buffer-kb' needs EVENT arguments (without them nothing is changed)");
	else if (!n && (o->kstack || o->ustack))
		tp_error("'%s' needs EVENT arguments (without them nothing is changed)",
			 o->kstack ? "--stack" : "--user-stack");
	else if (o->nthreads && o->read_thread == RT_YES)
		tp_error("'--threads' reads with threads of its own: '--read-thread yes' does not go with it");
	else if (n && tp.instance)
		tp_error("EVENT arguments trace in a private instance; '-i %s' reads an existing one",
			 tp.instance);
	else
		return TP_OK;
	return TP_USAGE;
}

/* The session opened as the options say; TP_OK or the status after one error line. */
static int stream_open(struct stream *s, struct stream_opts *o)
{
	/*
	 * what the reader threads can format on their own (stream_cpu.h), if
	 * the instance does not join records (stacks, a tracer); else the pool
	 */
	o->percpu = o->nthreads && !o->kstack && !o->ustack && !o->strings && !o->fs.nfunc &&
		    !o->fs.ngraph;
	return live_open(&s->l, &(struct live_spec){
		.events = o->args.argv, .nevents = o->args.argc, .filter = o->filter,
		.buffer_kb = o->buffer_kb, .cpus = o->cpulist, .target = &o->tgt,
		.probes = o->probes.v, .nprobes = o->probes.n, .strings = o->strings,
		.ftrace = &o->fs,
		.flags = LIVE_PROMPT | (o->kstack ? LIVE_KSTACK : 0) |
			 (o->ustack ? LIVE_USTACK : 0) | (o->json ? 0 : LIVE_TEXT) |
			 (o->percpu ? LIVE_PAGES_PLAIN : 0),
	});
}

/* The output of records, and with --count and stacks what each CPU owes. */
static int stream_output(struct stream *s, const struct stream_opts *o)
{
	struct live *l = s->l;

	s->ncpu = live_ncpus(l);
	s->count = o->count;
	s->stacks = live_stacks(l);
	if (s->stacks && o->count) {
		/* --stack and --user-stack: one record each; else the instance's options */
		s->per_event = o->kstack || o->ustack ? o->kstack + o->ustack : OWED_UNKNOWN;
		s->owed = calloc(s->ncpu > 0 ? s->ncpu : 1, sizeof(*s->owed));
		if (!s->owed)
			return tp_oom();
	}
	s->out = output_new(live_tep(l), stdout, o->json ? OUTPUT_JSON : OUTPUT_TEXT);
	if (!s->out || output_set_stacks(s->out, s->stacks) < 0)
		return tp_oom();
	output_set_loader(s->out, live_load_id, l);
	output_set_comm_loader(s->out, live_reload_comms, l);
	output_set_ns_clock(s->out, live_clock_ns(l));
	/* user frames named from the live processes (best effort, see usym.h) */
	if (o->json && s->stacks) {
		s->usym = usym_new();
		if (s->usym)
			output_set_user_symbols(s->out, user_symbol, s->usym);
	}
	/*
	 * stdio would pick 4 KiB for a pipe: one write(2), and a wake-up of the
	 * reader, per 20 JSON lines.  We flush whenever nothing is ready, so a
	 * bigger buffer only matters while the stream is busy.
	 */
	setvbuf(stdout, stdout_buf, _IOFBF, sizeof(stdout_buf));
	return TP_OK;
}

/* --threads: the reader threads that format, or the pool that does. */
static int stream_threads(struct stream *s, const struct stream_opts *o)
{
	enum output_mode mode = o->json ? OUTPUT_JSON : OUTPUT_TEXT;
	const pid_t *tids;
	int ntids;

	/* a JSON event's stacks and --strings' faults are the reading thread's to join and count */
	if (o->percpu && live_page_ncpus(s->l) > 0)
		return stream_cpu_start(&s->sc, s->l, mode, (int)o->nthreads);
	if (!o->nthreads || (o->json && s->stacks) || o->strings)
		return TP_OK;
	s->pool = output_pool_new(live_tep(s->l), mode, live_clock_ns(s->l), (int)o->nthreads);
	if (!s->pool) {
		tp_error("cannot start %llu formatting threads: %s", o->nthreads, strerror(errno));
		return TP_FAIL;
	}
	/* tpctl's own threads are never traced (a private instance's notrace list) */
	tids = output_pool_tids(s->pool, &ntids);
	return live_hide_tasks(s->l, tids, ntids);
}

/* The end of a run: what is held written, the threads stopped, the losses told. */
static int stream_end(struct stream *s, const struct stream_opts *o, int ret)
{
	if (!s->pool_failed && s->pool && output_pool_flush(s->pool, stdout) < 0)
		s->pool_failed = !ferror(stdout);
	if (s->pool_failed && s->sc) {
		/* a reader thread's error was said */
		ret = TP_FAIL;
	} else if (s->pool_failed) {
		tp_error("cannot format the records: %s", strerror(errno));
		ret = TP_FAIL;
	}
	if (output_flush(s->out) < 0 || ferror(stdout))
		ret = live_stdout_failed(errno, ret);
	/*
	 * The threads stop while a signal only stops the loop: a rollback
	 * (state.h) must not find them reading the instance's files, which
	 * would keep it from going; and before the loss account (it counts
	 * their sub-buffers)
	 */
	stream_cpu_free(s->sc);
	s->sc = NULL;
	live_stop_reading(s->l);
	state_set_graceful(false);
	if (live_loss_report(s->l, o->fail_on_loss) || s->lost_seen) {
		if (o->fail_on_loss && !ret)
			ret = TP_FAIL;
	}
	output_faults_report(output_faults(s->out));
	exit_line(s->l, s->out);
	return ret;
}

/* Set up, run the session loop with stream's callbacks, finish. */
int cmd_stream(int argc, char **argv)
{
	struct stream_opts o;
	struct stream s = { .l = NULL };
	struct live_tool tool = {
		.record = stream_record, .idle = stream_idle, .ctx = &s, .wait_ms = WAIT_MS,
	};
	int ret;

	ret = stream_parse(&o, argc, argv);
	if (ret)
		return opt_status(ret);
	ret = stream_check(&o);
	if (!ret)
		ret = stream_open(&s, &o);
	if (!ret)
		ret = stream_output(&s, &o);
	if (!ret)
		ret = stream_threads(&s, &o);
	/* from here on, INT/TERM/HUP only set state_stop: we drain and clean up */
	if (!ret)
		ret = live_start(s.l);
	if (!ret && !s.sc && !s.pool &&
	    (o.read_thread == RT_YES || (o.read_thread == RT_AUTO && !o.nthreads)))
		ret = live_read_thread(s.l, o.read_thread == RT_AUTO);
	if (!ret) {
		s.plain = !s.pool && !s.owed;
		tool.duration = o.duration;
		tool.flags = o.drain ? LIVE_RUN_DRAIN : 0;
		if (s.sc) {
			tool.pump = stream_pump;
			tool.wait = stream_wait;
			tool.drain = stream_drain;
		}
		ret = stream_end(&s, &o, live_run(s.l, &tool));
	}
	free(s.owed);
	stream_cpu_free(s.sc);
	output_pool_free(s.pool);
	output_free(s.out);
	usym_free(s.usym);
	ret = live_close(s.l, ret);
	target_free(&o.tgt);
	return ret;
}
