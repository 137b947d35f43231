// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * strace: the lines strace writes, from the syscall tracepoints
 * (raw_syscalls:sys_enter/sys_exit, sched_process_exit, signal_generate and
 * signal_deliver),
 * without stopping the traced program.  The options are strace's where they
 * mean the same; the arguments are decoded by sysdec.c; the session loop is
 * live.c's (struct live_tool): this file holds the options, the pairing of
 * each entry with its exit per task, the lines, and the -c summary.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "cmd.h"
#include "decode.h"
#include "errname.h"
#include "json.h"
#include "live.h"
#include "near.h"
#include "opt.h"
#include "strargs.h"
#include "sysdec.h"
#include "target.h"
#include "tfs.h"
#include "util.h"

/* strace's column for " = " (-a 40) */
#define RET_COLUMN 40
/* the line being written: what one syscall's text may take */
#define LINE_MAX_ (SYSDEC_ROOM + SYSDEC_MAX_ARGS * (4 * 4096 + 8) + 256)
/* the per-CPU buffer by default: enough for `dd bs=1` while tpctl writes */
#define STRACE_BUFFER_KB_TOTAL (128 * 1024)
#define STRACE_BUFFER_KB_MIN 4096

struct strace_opts {
	bool follow, json, only_ok, only_failed, summary, summary_too, call_time, relative;
	bool strings;
	int stamps, quiet;
	unsigned long long strsize, kb;
	const char *outfile, *buffer_kb;
	char kbuf[32];
	bool *trace;		/* per syscall number: traced (NULL: all) */
	unsigned long long signals;	/* bit N-1: signal N shown */
	struct target tgt;
};

struct task {
	int tid;		/* 0: a free slot */
	bool started;		/* the command's own process: from its execve on */
	bool in_call;
	bool exited_call;	/* its exit or exit_group was seen: the code is known */
	int killed;		/* the signal that ends it (default action), or 0 */
	int end_sig;		/* the signal that ended it, kept past its exit (SIGCHLD's) */
	int code;
	/* signals sent to it that its action ignores: strace sees them, the kernel drops them */
	unsigned long long ignored;
	int fatal_sent;		/* a signal sent to it that ends it unless it has a handler */
	int pid;		/* its thread group (JSON), 0: not looked up */
	unsigned long long enter_ts;
	struct sysdec_call call;
	/* --strings: the call's line waits for its exit, where its strings come */
	bool whole;
	bool held;		/* returned, its strings record not seen yet */
	int str_nr;		/* the call whose strings call.str holds, -1: none */
	int exit_cpu;
	unsigned long long exit_ts;
};

/* --strings: a probe that stands for sys_enter_X, its string fields by argument */
struct str_probe {
	int id, nr;
	int off[SYSDEC_MAX_ARGS];	/* the __data_loc field of argument i, -1: none */
	int off_ret;		/* its ret (fetched at the exit), -1: fetched at the entry */
};

/* the last signal_generate of a signal: who sent it to whom, for the --- line */
struct sig_gen {
	int target, sender, code, status;
	bool group;
};

struct stat_row {
	unsigned long long calls, errors, ns;
};

struct strace {
	struct strace_opts *o;
	struct live *l;
	struct sysdec *dec;
	FILE *out;
	struct json j;
	int id_enter, id_exit, id_pexit, id_signal, id_gen;
	int off_enter_id, off_args, off_exit_id, off_ret;
	int off_pexit_pid, off_sig, off_code, off_handler;
	int off_gen_sig, off_gen_code, off_gen_pid, off_gen_group, off_gen_result;
	struct sig_gen gens[65];	/* by signal number */
	int group_code;		/* the last exit_group's: the code of the threads it ends */
	int first;		/* the first process (without -f, the only one) */
	struct task *tasks;	/* open addressing by tid */
	size_t ntasks, used;
	struct task *open;	/* the task whose line is written up to its arguments */
	size_t open_len;	/* that line's column */
	struct stat_row *rows;
	struct str_probe *probes;	/* --strings */
	int nprobes;
	bool *wants_str;		/* per syscall number: a probe fetches its strings */
	unsigned long long last_ts, lost;
	double real_off;	/* CLOCK_REALTIME - trace clock, seconds (-t) */
	char *line;
};

/* -e trace=SET, -e signal=SET, and -e SET alone (trace=) */
static int set_trace(struct strace_opts *o, const char *set);
static int set_signals(struct strace_opts *o, const char *set);

static int opt_e(const struct tp_opt *opt, const char *arg)
{
	struct strace_opts *o = opt->value;

	if (!strncmp(arg, "trace=", 6))
		return set_trace(o, arg + 6);
	if (!strncmp(arg, "t=", 2))
		return set_trace(o, arg + 2);
	if (!strncmp(arg, "signal=", 7))
		return set_signals(o, arg + 7);
	if (!strncmp(arg, "signals=", 8))
		return set_signals(o, arg + 8);
	if (strchr(arg, '=')) {
		tp_error("-e '%s': only trace= and signal= are supported", arg);
		return TP_USAGE;
	}
	return set_trace(o, arg);
}

/* the syscall closest to name, for "did you mean" */
static void suggest(const char *name, char *buf, size_t size)
{
	struct near n;
	int nr;

	near_init(&n, name, 3);
	for (nr = 0; nr < sysdec_nr_count(); nr++)
		if (sysdec_name(nr))
			near_add(&n, sysdec_name(nr), strlen(sysdec_name(nr)));
	near_list(&n, buf, size);
	near_free(&n);
}

static int set_trace(struct strace_opts *o, const char *set)
{
	const char *bad;
	char hint[256], *w;
	size_t len;

	if (!o->trace) {
		o->trace = calloc(sysdec_nr_count(), sizeof(bool));
		if (!o->trace)
			return tp_oom();
	}
	if (!sysdec_trace_set(set, o->trace, &bad, &len))
		return 0;
	w = strndup(bad, len);
	if (!w)
		return tp_oom();
	if (*w == '%') {
		tp_error("unknown class '%s' in -e trace (classes: %%file, "
			 "%%process, %%network, %%signal, %%desc, %%memory, %%ipc)", w);
	} else {
		suggest(w, hint, sizeof(hint));
		tp_error("unknown syscall '%s' in -e trace%s", w, hint);
	}
	free(w);
	return TP_USAGE;
}

static int set_signals(struct strace_opts *o, const char *set)
{
	const char *bad;
	size_t len;
	uint64_t mask;

	if (!sysdec_signal_set(set, &mask, &bad, &len)) {
		o->signals = mask;
		return 0;
	}
	tp_error("unknown signal '%.*s' in -e signal", (int)len, bad);
	return TP_USAGE;
}

/* -t, -tt, -ttt and -q, -qq: how many times given */
static int opt_more(const struct tp_opt *opt, const char *arg)
{
	(void)arg;
	(*(int *)opt->value)++;
	return 0;
}

/*
 * -y: strace reads a descriptor's path from /proc/PID/fd while the program is
 * stopped.  tpctl never stops it, and the events do not say the path: the
 * string an open was given (where the kernel fetches strings) is not the
 * file's path (relative, symlinks, renamed since), and inherited fds, pipes
 * and sockets have none.  Refused with the reason, before the parser's
 * "unknown option".
 */
static int strace_refused(int argc, char **argv)
{
	static const char *const takes_arg[] = { "-o", "-e", "-s", "-p", "--output", "--expr",
						 "--string-limit", "--pid", "--cgroup", "--user",
						 "--buffer-kb", NULL };
	int i, k;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		for (k = 0; takes_arg[k] && strcmp(argv[i - 1], takes_arg[k]); k++)
			;
		if (takes_arg[k] || (strcmp(argv[i], "-y") && strcmp(argv[i], "-yy") &&
				     strncmp(argv[i], "--decode-fds", 12)))
			continue;
		tp_error("%s: a descriptor's path is not in the tracepoints (strace reads "
			 "/proc/PID/fd while the program is stopped; tpctl never stops it)",
			 argv[i]);
		return TP_USAGE;
	}
	return 0;
}

static int strace_parse(struct strace_opts *o, int argc, char **argv)
{
	struct target *t = &o->tgt;
	const struct tp_opt opts[] = {
		OPT_ARG("-- COMMAND [ARG...]", "run COMMAND and trace it"),
		OPT_CALLBACK('p', "pid", t, "PID,...", target_opt_pid,
			     "trace these running processes (strace -p)"),
		OPT_BOOL('f', "follow-forks", &o->follow,
			 "trace the children too (without it, the first process only)"),
		OPT_BOOL('F', "follow", &t->follow, "with -p: the children they start, as -f"),
		OPT_STRING(0, "cgroup", &t->cgroup, "PATH",
			   "trace the tasks of this cgroup v2 directory and their children"),
		OPT_STRING(0, "user", &t->user, "USER", "run COMMAND as USER (strace -u)"),
		OPT_STRING('o', "output", &o->outfile, "FILE",
			   "write the lines to FILE (with -f each begins with the pid)"),
		OPT_CALLBACK('e', "expr", o, "EXPR",
			     opt_e, "trace=SET (names, !names, %file, %process, %network,\n"
			     "%signal, %desc, %memory, %ipc) or signal=SET"),
		OPT_BOOL('z', "successful-only", &o->only_ok, "only the calls that succeeded"),
		OPT_BOOL('Z', "failed-only", &o->only_failed, "only the calls that failed"),
		OPT_BOOL('c', "summary-only", &o->summary, "the table of calls, errors and times only"),
		OPT_BOOL('C', "summary", &o->summary_too, "the lines and the table"),
		OPT_BOOL('T', "syscall-times", &o->call_time, "the time spent in each call"),
		OPT_CALLBACK('t', "absolute-timestamps", &o->stamps, NULL, opt_more,
			     "the time of day; -tt with microseconds, -ttt since the epoch"),
		OPT_BOOL('r', "relative-timestamps", &o->relative, "the time since the line before"),
		OPT_UINT('s', "string-limit", &o->strsize, "N", 0, 1 << 20,
			 "the bytes of a data string printed (default 32)"),
		OPT_CALLBACK('q', "quiet", &o->quiet, NULL, opt_more,
			     "no attach notes; -qq: no exit lines either"),
		OPT_BOOL(0, "json", &o->json, "NDJSON: one object per call"),
		STRINGS_OPT(&o->strings),
		OPT_UINT(0, "buffer-kb", &o->kb, "N", 1, 1ULL << 30,
			 "per-CPU ring buffer, in KiB (default: 128 MiB over the CPUs)"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = {
		"tpctl strace [-f] [-o FILE] [-e EXPR]... [-c|-C] [-zZTtrq] [-s N] [--json] [--strings]\n"
		"       [-p PID,... [-F] | --cgroup PATH | -- COMMAND [ARG...]]",
		opts, OPT_COMMAND,
		"strace's lines from the syscall tracepoints: the traced program is never stopped.",
	};
	struct tp_args args;
	int ret;

	memset(o, 0, sizeof(*o));
	if (strace_refused(argc, argv))
		return TP_USAGE;
	o->strsize = 32;
	o->signals = ~0ULL;
	ret = target_parse(t, argc, argv, &spec, &args);
	if (ret) {
		free(o->trace);
		o->trace = NULL;
		return ret;
	}
	if (args.argc) {
		tp_error("unexpected argument '%s' (the command goes after --)",
			 args.argv[0]);
		ret = TP_USAGE;
	} else if (!target_given(t)) {
		tp_error("nothing to trace: give -- COMMAND, -p PID or --cgroup PATH");
		ret = TP_USAGE;
	} else if (o->only_ok && o->only_failed) {
		tp_error("-z and -Z together show nothing");
		ret = TP_USAGE;
	}
	/* -c's table counts calls: their strings are not fetched for it */
	if (o->summary)
		o->strings = false;
	if (ret) {
		target_free(t);
		free(o->trace);
		o->trace = NULL;
	}
	return ret;
}

/* the task of tid, made on first sight; NULL when out of memory */
static struct task *task_get(struct strace *s, int tid)
{
	size_t i, mask;

	if ((s->used + 1) * 2 > s->ntasks) {
		size_t n = s->ntasks ? s->ntasks * 2 : 256, k;
		struct task *old = s->tasks, *t = calloc(n, sizeof(*t));

		if (!t)
			return NULL;
		s->tasks = t;
		s->ntasks = n;
		for (k = 0; old && k < n / 2; k++) {
			if (!old[k].tid)
				continue;
			for (i = old[k].tid & (n - 1); t[i].tid; i = (i + 1) & (n - 1))
				;
			t[i] = old[k];
			if (s->open == &old[k])
				s->open = &t[i];
		}
		free(old);
	}
	mask = s->ntasks - 1;
	for (i = (unsigned)tid & mask; s->tasks[i].tid; i = (i + 1) & mask)
		if (s->tasks[i].tid == tid)
			return &s->tasks[i];
	s->used++;
	s->tasks[i].tid = tid;
	s->tasks[i].str_nr = -1;
	s->tasks[i].started = !s->o->tgt.argv || tid != s->first;
	return &s->tasks[i];
}

/* the task is shown: its process is the first one, or -f */
static bool shown(const struct strace *s, int tid)
{
	return s->o->follow || tid == s->first || !s->first;
}

/* -t, -tt, -ttt or -r before a line: the characters written */
static int put_stamp(struct strace *s, unsigned long long ts)
{
	const struct strace_opts *o = s->o;
	double real = ts / 1e9 + s->real_off, d;
	time_t sec = (time_t)real;
	long us = (long)((real - sec) * 1e6);
	struct tm tm;

	if (o->stamps >= 3)
		return fprintf(s->out, "%lld.%06ld ", (long long)sec, us);
	if (o->stamps) {
		localtime_r(&sec, &tm);
		if (o->stamps == 2)
			return fprintf(s->out, "%02d:%02d:%02d.%06ld ", tm.tm_hour, tm.tm_min,
				       tm.tm_sec, us);
		return fprintf(s->out, "%02d:%02d:%02d ", tm.tm_hour, tm.tm_min, tm.tm_sec);
	}
	d = s->last_ts ? (ts - s->last_ts) / 1e9 : 0;
	s->last_ts = ts;
	return fprintf(s->out, "%6ld.%06ld ", (long)d, (long)((d - (long)d) * 1e6));
}

/* the start of a line: the pid (-f), the stamp; returns the column */
static size_t line_head(struct strace *s, int tid, unsigned long long ts)
{
	int n = 0;

	if (s->o->follow && s->o->outfile)
		n = fprintf(s->out, "%-5d ", tid);
	else if (s->o->follow && tid != s->first)
		n = fprintf(s->out, "[pid %5d] ", tid);
	if (s->o->stamps || s->o->relative)
		n += put_stamp(s, ts);
	return n > 0 ? n : 0;
}

/* an open line is left: " <unfinished ...>" (strace's words) */
static void line_interrupt(struct strace *s)
{
	if (!s->open)
		return;
	fputs(" <unfinished ...>\n", s->out);
	s->open = NULL;
}

/* " = RET" at strace's column, -T's time, the end of the line */
static void line_ret(struct strace *s, struct task *t, size_t col, unsigned long long ts)
{
	char ret[SYSDEC_ROOM];

	sysdec_ret(s->dec, &t->call, ret, sizeof(ret));
	if (col < RET_COLUMN - 1)
		fprintf(s->out, "%*s", (int)(RET_COLUMN - 1 - col), "");
	fputs(" = ", s->out);
	fputs(ret, s->out);
	if (s->o->call_time && t->call.has_ret) {
		unsigned long long d = ts - t->enter_ts;

		fprintf(s->out, " <%llu.%06llu>", d / TP_NS_PER_S, d % TP_NS_PER_S / 1000);
	}
	fputc('\n', s->out);
}

/* name(args: the line as far as the entry knows it; returns its column */
static size_t line_call(struct strace *s, struct task *t, size_t col)
{
	const char *name = sysdec_name(t->call.nr);
	size_t n;

	if (name)
		n = fprintf(s->out, "%s(", name);
	else
		n = fprintf(s->out, "syscall_%#x(", (unsigned)t->call.nr);
	n += sysdec_args(s->dec, &t->call, s->line, LINE_MAX_, NULL, NULL);
	fputs(s->line, s->out);
	return col + n;
}

/* the thread group of a task, for JSON (0 once it is gone) */
static int task_pid(struct task *t)
{
	char path[64], *text, *p;

	if (t->pid)
		return t->pid;
	snprintf(path, sizeof(path), "/proc/%d/status", t->tid);
	text = tp_read_file(path, NULL);
	p = text ? strstr(text, "\nTgid:") : NULL;
	t->pid = p ? atoi(p + 6) : -1;
	free(text);
	return t->pid;
}

/* a call as one NDJSON object */
static void json_call(struct strace *s, struct task *t)
{
	const char *comm = tep_data_comm_from_pid(live_tep(s->l), t->tid);
	const char *name = sysdec_name(t->call.nr), *e;
	size_t ends[SYSDEC_MAX_ARGS], start = 0;
	int i, n, err = sysdec_errno(&t->call);

	json_obj_open(&s->j, NULL);
	json_str(&s->j, "type", "syscall");
	if (name)
		json_str(&s->j, "syscall", name);
	else
		json_null(&s->j, "syscall");
	json_int(&s->j, "nr", t->call.nr);
	if (task_pid(t) > 0)
		json_int(&s->j, "pid", t->pid);
	else
		json_null(&s->j, "pid");
	json_int(&s->j, "tid", t->tid);
	if (comm && strcmp(comm, "<...>"))
		json_str(&s->j, "comm", comm);
	else
		json_null(&s->j, "comm");
	json_int(&s->j, "cpu", t->exit_cpu);
	json_uint(&s->j, "enter_ns", t->enter_ts);
	json_uint(&s->j, "exit_ns", t->exit_ts);
	sysdec_args(s->dec, &t->call, s->line, LINE_MAX_, ends, &n);
	json_arr_open(&s->j, "args");
	for (i = 0; i < n; start = ends[i++] + 2)
		json_strn(&s->j, NULL, s->line + start, ends[i] - start);
	json_arr_close(&s->j);
	json_arr_open(&s->j, "raw");
	for (i = 0; i < sysdec_nargs(s->dec, t->call.nr) && i < SYSDEC_MAX_ARGS; i++)
		json_uint(&s->j, NULL, t->call.args[i]);
	json_arr_close(&s->j);
	json_int(&s->j, "ret", t->call.ret);
	e = errname(err);
	if (err && e)
		json_str(&s->j, "errno", e);
	else
		json_null(&s->j, "errno");
	json_obj_close(&s->j);
	json_end_line(&s->j);
}

/* a syscall is traced: -e trace, and the task is shown */
static bool traced(const struct strace *s, const struct task *t)
{
	int nr = t->call.nr;

	if (!shown(s, t->tid))
		return false;
	return !s->o->trace || (nr >= 0 && nr < sysdec_nr_count() && s->o->trace[nr]);
}

/* whole lines at the exit: JSON, -z, -Z and the summary alone */
static bool deferred(const struct strace_opts *o)
{
	return o->json || o->only_ok || o->only_failed || o->summary;
}

static void count_call(struct strace *s, const struct task *t, unsigned long long ts);
static void flush_ignored(struct strace *s, struct task *t, unsigned long long ts);
static void release(struct strace *s, struct task *t);

/* the strings of the task's last call go (the call they were fetched for is written) */
static void str_clear(struct task *t)
{
	int i;

	for (i = 0; i < SYSDEC_MAX_ARGS; i++) {
		free((char *)t->call.str[i]);
		t->call.str[i] = NULL;
	}
	t->str_nr = -1;
}

/*
 * COMMAND's execve ran before tracing (target.c stops it there): its line
 * from what tpctl started it with; the environment's address is not known
 */
static void first_exec(struct strace *s, struct task *t, const struct tep_record *rec)
{
	const struct target *g = &s->o->tgt;
	char **a;
	int n = 0;

	t->started = true;
	t->call.nr = sysdec_nr("execve");
	t->call.ret = 0;
	t->call.has_ret = true;
	t->enter_ts = rec->ts;
	if (traced(s, t))
		count_call(s, t, rec->ts);
	if (s->o->summary || s->o->json || s->o->only_failed || !traced(s, t))
		return;
	for (a = environ; a && *a; a++)
		n++;
	line_interrupt(s);
	line_head(s, t->tid, rec->ts);
	fprintf(s->out, "execve(\"%s\", [", g->path ? g->path : g->argv[0]);
	for (a = g->argv; *a; a++)
		fprintf(s->out, "%s\"%s\"", a == g->argv ? "" : ", ", *a);
	fprintf(s->out, "], ? /* %d vars */) = 0\n", n);
}

static void on_enter(struct strace *s, const struct tep_record *rec, int tid, int nr,
		     const unsigned char *args)
{
	struct task *t = task_get(s, tid);
	size_t col;
	int i;

	if (!t)
		return;
	release(s, t);
	if (!t->started) {
		const char *name = sysdec_name(nr);

		/*
		 * COMMAND stopped at its exec (target.c, ptrace): its first event
		 * is the new program's; else it waited on a pipe: from its execve
		 */
		if (s->o->tgt.traced)
			first_exec(s, t, rec);
		else if (!name || strncmp(name, "execve", 6))
			return;
		t->started = true;
	}
	flush_ignored(s, t, rec->ts);
	/* execve's strings are fetched at its entry: they may come first */
	if (t->str_nr != nr)
		str_clear(t);
	t->call.nr = nr;
	t->whole = s->wants_str && nr >= 0 && nr < sysdec_nr_count() && s->wants_str[nr];
	for (i = 0; i < SYSDEC_MAX_ARGS; i++)
		t->call.args[i] = decode_elem(args + i * 8, 8, false);
	t->call.has_ret = false;
	t->enter_ts = rec->ts;
	t->in_call = true;
	if (sysdec_noreturn(nr)) {
		t->code = args[0] & 0xff;
		t->exited_call = true;
		s->group_code = t->code;
	}
	if (!traced(s, t) || deferred(s->o) || t->whole)
		return;
	line_interrupt(s);
	col = line_head(s, tid, rec->ts);
	s->open_len = line_call(s, t, col);
	s->open = t;
}

/* the call's line at its end, whole or resumed */
static void call_done(struct strace *s, struct task *t, unsigned long long ts)
{
	const struct strace_opts *o = s->o;
	int err = sysdec_errno(&t->call);
	size_t col;

	if ((o->only_ok && (err || !t->call.has_ret)) || (o->only_failed && !err))
		return;
	if (s->open == t) {
		col = s->open_len;
		s->open = NULL;
	} else {
		line_interrupt(s);
		col = line_head(s, t->tid, ts);
		if (deferred(o) || t->whole)
			col = line_call(s, t, col);
		else
			col += fprintf(s->out, "<... %s resumed>", sysdec_name(t->call.nr) ?
				       sysdec_name(t->call.nr) : "syscall");
	}
	fputc(')', s->out);
	line_ret(s, t, col + 1, ts);
}

static void count_call(struct strace *s, const struct task *t, unsigned long long ts)
{
	struct stat_row *r;

	if (!s->rows || t->call.nr < 0 || t->call.nr >= sysdec_nr_count())
		return;
	r = &s->rows[t->call.nr];
	r->calls++;
	r->errors += sysdec_errno(&t->call) != 0;
	r->ns += ts - t->enter_ts;
}

/* a call returned (and its strings are there): counted, its line, the signals it held back */
static void call_end(struct strace *s, struct task *t)
{
	if (traced(s, t)) {
		count_call(s, t, t->exit_ts);
		if (s->o->json && !s->o->summary)
			json_call(s, t);
		else if (!s->o->summary)
			call_done(s, t, t->exit_ts);
	}
	str_clear(t);
	flush_ignored(s, t, t->exit_ts);
}

static void on_exit_(struct strace *s, const struct tep_record *rec, int tid, int nr, long ret)
{
	struct task *t = task_get(s, tid);

	/* rt_sigreturn's exit says -1: the registers it restored have no syscall */
	if (!t || !t->in_call || (t->call.nr != nr && nr != -1))
		return;
	t->in_call = false;
	t->call.ret = ret;
	t->call.has_ret = true;
	t->exit_ts = rec->ts;
	t->exit_cpu = rec->cpu;
	/* its strings come at its exit too, in a record of their own: the line waits */
	t->held = t->whole && t->str_nr != t->call.nr;
	if (!t->held)
		call_end(s, t);
}

/*
 * A held call's line without its strings: the task did something else
 * before they came (the probe did not fire: its table was full, or the
 * call began before tracing did)
 */
static void release(struct strace *s, struct task *t)
{
	if (!t->held)
		return;
	t->held = false;
	call_end(s, t);
}

/* a probe's strings (strargs.h): the arguments of the task's call, at its exit or execve's entry */
static void on_strings(struct strace *s, const struct tep_record *rec, int tid,
		       const struct str_probe *p)
{
	const unsigned char *d = rec->data;
	struct task *t = task_get(s, tid);
	unsigned int off, len;
	uint32_t loc;
	bool empty_ok;
	char *str;
	int i;

	if (!t)
		return;
	str_clear(t);
	/*
	 * The kernel's length is 0 where the fetch faulted and for "" (the NUL
	 * is not counted there): at the exit, where the kernel has read the
	 * path itself, it is "" unless the call said EFAULT
	 */
	/* (8-byte fields of the ring buffer are only 4-byte aligned: decode_elem()) */
	empty_ok = p->off_ret >= 0 && p->off_ret + 8 <= rec->size &&
		   (int64_t)decode_elem(d + p->off_ret, 8, true) != -EFAULT;
	for (i = 0; i < SYSDEC_MAX_ARGS; i++) {
		if (p->off[i] < 0 || p->off[i] + 4 > rec->size)
			continue;
		/* __data_loc: the offset in the low 16 bits, the length above */
		memcpy(&loc, d + p->off[i], 4);
		off = loc & 0xffff;
		len = loc >> 16;
		if ((!len && !empty_ok) || (int)(off + len) > rec->size)
			continue;
		len = strnlen((const char *)d + off, len);
		str = malloc(len + 1);
		if (!str)
			continue;
		memcpy(str, d + off, len);
		str[len] = '\0';
		t->call.str[i] = str;
		t->call.strlen[i] = len;
	}
	t->str_nr = p->nr;
	if (t->held && t->call.nr == p->nr)
		release(s, t);
}

/* the signals whose default action ends the process */
static bool sig_fatal(int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return false;
	}
	return sig > 0 && sig < 32;
}

static void exit_line(struct strace *s, struct task *t, unsigned long long ts)
{
	const char *sig = t->killed ? sysdec_signal_name(t->killed) : NULL;

	if (s->o->json) {
		json_obj_open(&s->j, NULL);
		json_str(&s->j, "type", "exit");
		json_int(&s->j, "pid", t->tid);
		if (t->killed) {
			json_null(&s->j, "status");
			json_int(&s->j, "signal", t->killed);
		} else {
			json_int(&s->j, "status", t->code);
			json_null(&s->j, "signal");
		}
		json_obj_close(&s->j);
		json_end_line(&s->j);
		return;
	}
	line_interrupt(s);
	line_head(s, t->tid, ts);
	if (t->killed)
		fprintf(s->out, "+++ killed by %s +++\n", sig ? sig : "a signal");
	else
		fprintf(s->out, "+++ exited with %d +++\n", t->code);
}

static void on_proc_exit(struct strace *s, const struct tep_record *rec, int tid)
{
	struct task *t = task_get(s, tid);

	if (!t || !t->started)
		return;
	release(s, t);
	if (t->in_call) {
		/* exit, exit_group, or a call the end of the process cut short: " = ?" */
		t->in_call = false;
		t->call.has_ret = false;
		if (traced(s, t) && !s->o->summary && !s->o->json)
			call_done(s, t, rec->ts);
	}
	if (!t->killed && !t->exited_call)
		t->code = s->group_code;
	t->end_sig = t->killed;
	t->ignored = 0;		/* sent as it ended: no stop strace would see */
	if (shown(s, tid) && s->o->quiet < 2 && !s->o->summary)
		exit_line(s, t, rec->ts);
	t->started = false;
	t->fatal_sent = 0;
	t->killed = 0;
	t->exited_call = false;
}

/*
 * The --- SIG {...} --- line: the fields of the siginfo the tracepoints carry
 * (si_signo, si_code; the sender's pid from signal_generate; a child's status
 * for SIGCHLD), "..." for those they do not (si_uid, si_addr, times)
 */
static void sig_line(struct strace *s, struct task *t, unsigned long long ts, int sig, int code)
{
	const struct sig_gen *g = &s->gens[sig];
	const char *name = sysdec_signal_name(sig), *sc = sysdec_si_code(sig, code);
	bool from = g->sender && (g->target == t->tid || g->group);

	if (!shown(s, t->tid) || sig == SIGKILL || s->o->summary || s->o->json ||
	    !(s->o->signals >> (sig - 1) & 1))
		return;
	if (!name)
		name = "SIG???";
	line_interrupt(s);
	line_head(s, t->tid, ts);
	fprintf(s->out, "--- %s {si_signo=%s, si_code=", name, name);
	if (sc)
		fputs(sc, s->out);
	else
		fprintf(s->out, "%d", code);
	/* SI_USER, SI_QUEUE, SI_TKILL (0 and below) and a child's end: a process sent it */
	if (from && (code <= 0 || sig == SIGCHLD))
		fprintf(s->out, ", si_pid=%d", g->sender);
	if (from && sig == SIGCHLD && code == CLD_EXITED)
		fprintf(s->out, ", si_status=%d", g->status);
	else if (from && sig == SIGCHLD && code > CLD_EXITED && code <= CLD_DUMPED)
		fprintf(s->out, ", si_status=%s", sysdec_signal_name(g->status) ?: "0");
	fputs(", ...} ---\n", s->out);
}

/* signals its action ignores, sent while it ran or was in a call: strace's lines for them */
static void flush_ignored(struct strace *s, struct task *t, unsigned long long ts)
{
	while (t->ignored) {
		int sig = __builtin_ctzll(t->ignored) + 1;

		t->ignored &= t->ignored - 1;
		sig_line(s, t, ts, sig, s->gens[sig].target == t->tid ? s->gens[sig].code : 0);
	}
}

/* a SIGKILL someone sent, not the one that ends the other threads of an exiting group */
static bool sigkill_sent(struct strace *s, struct task *t)
{
	const struct sig_gen *g = &s->gens[SIGKILL];

	if (!g->sender)
		return false;
	return g->target == t->tid || (g->group && (task_pid(t) <= 0 || task_pid(t) == g->target));
}

static void on_signal(struct strace *s, const struct tep_record *rec, int tid)
{
	const unsigned char *d = rec->data;
	int sig = *(const int *)(d + s->off_sig), code = *(const int *)(d + s->off_code);
	unsigned long handler = decode_elem(d + s->off_handler, 8, false);
	struct task *t = task_get(s, tid);

	if (!t || !t->started || sig < 1 || sig > 64)
		return;
	release(s, t);
	/*
	 * A fatal signal at its default action ends the group with SIGKILL
	 * before the task dequeues it (not so under ptrace): strace's line is
	 * the signal's
	 */
	if (sig == SIGKILL && !sigkill_sent(s, t) && t->fatal_sent) {
		sig = t->fatal_sent;
		code = s->gens[sig].code;
	}
	if (sig == t->fatal_sent)
		t->fatal_sent = 0;
	if (!handler && sig_fatal(sig) && (sig != SIGKILL || sigkill_sent(s, t)))
		t->killed = sig;
	sig_line(s, t, rec->ts, sig, code);
}

/* a signal sent: who sent it (the --- line's si_pid), and those the target's action ignores */
static void on_signal_gen(struct strace *s, const struct tep_record *rec, int tid)
{
	const unsigned char *d = rec->data;
	int sig = *(const int *)(d + s->off_gen_sig);
	struct task *from, *t;
	struct sig_gen *g;

	if (sig < 1 || sig > 64)
		return;
	g = &s->gens[sig];
	g->sender = tid;
	g->target = *(const int *)(d + s->off_gen_pid);
	g->code = *(const int *)(d + s->off_gen_code);
	g->group = *(const int *)(d + s->off_gen_group);
	from = task_get(s, tid);
	g->status = !from || sig != SIGCHLD ? 0 : g->code == CLD_EXITED ? from->code : from->end_sig;
	t = task_get(s, g->target);
	if (!t || !t->started)
		return;
	/* TRACE_SIGNAL_IGNORED: never delivered, yet a ptrace stop strace shows */
	if (*(const int *)(d + s->off_gen_result) == 1)
		t->ignored |= 1ULL << (sig - 1);
	else if (!*(const int *)(d + s->off_gen_result) && sig_fatal(sig) && sig != SIGKILL)
		t->fatal_sent = sig;
}

/* events the ring buffer lost: said where the lines are */
static void note_lost(struct strace *s, int cpu, long long lost)
{
	s->lost += lost > 0 ? lost : 0;
	if (s->o->json) {
		json_obj_open(&s->j, NULL);
		json_str(&s->j, "type", "lost");
		json_int(&s->j, "cpu", cpu);
		if (lost > 0)
			json_int(&s->j, "count", lost);
		else
			json_null(&s->j, "count");
		json_obj_close(&s->j);
		json_end_line(&s->j);
		return;
	}
	line_interrupt(s);
	if (lost > 0)
		fprintf(s->out, "--- tpctl: %lld events lost on CPU %d: calls are missing ---\n",
			lost, cpu);
	else
		fprintf(s->out, "--- tpctl: events lost on CPU %d: calls are missing ---\n", cpu);
}

static int strace_record(void *ctx, struct tep_record *rec, long long lost)
{
	struct strace *s = ctx;
	const unsigned char *d = rec->data;
	int type = decode_type(d), tid = decode_pid(d), i;

	if (lost)
		note_lost(s, rec->cpu, lost);
	if (type == s->id_enter)
		/* 8-byte fields of the ring buffer are only 4-byte aligned: decode_elem() */
		on_enter(s, rec, tid, (int)decode_elem(d + s->off_enter_id, 8, true),
			 d + s->off_args);
	else if (type == s->id_exit)
		on_exit_(s, rec, tid, (int)decode_elem(d + s->off_exit_id, 8, true),
			 (long)decode_elem(d + s->off_ret, 8, true));
	else if (type == s->id_pexit)
		on_proc_exit(s, rec, *(const int *)(d + s->off_pexit_pid));
	else if (type == s->id_signal)
		on_signal(s, rec, tid);
	else if (type == s->id_gen)
		on_signal_gen(s, rec, tid);
	else
		for (i = 0; i < s->nprobes; i++)
			if (type == s->probes[i].id)
				on_strings(s, rec, tid, &s->probes[i]);
	return LIVE_GO;
}

/* nothing ready: what is written goes out (a pipe's reader sees it), a failed write stops */
static int strace_idle(void *ctx, bool draining, int *ms)
{
	struct strace *s = ctx;

	(void)draining;
	(void)ms;
	if (!s->open && fflush(s->out))
		return LIVE_STOP;
	return ferror(s->out) ? LIVE_STOP : LIVE_GO;
}

static int row_cmp(const void *a, const void *b, void *ctx)
{
	const struct stat_row *rows = ctx;
	const struct stat_row *x = &rows[*(const int *)a], *y = &rows[*(const int *)b];

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(sysdec_name(*(const int *)a) ?: "", sysdec_name(*(const int *)b) ?: "");
}

static void summary_json(struct strace *s, const int *order, int n, const struct stat_row *tot)
{
	int i;

	json_obj_open(&s->j, NULL);
	json_str(&s->j, "type", "summary");
	json_arr_open(&s->j, "rows");
	for (i = 0; i < n; i++) {
		const struct stat_row *r = &s->rows[order[i]];

		json_obj_open(&s->j, NULL);
		json_str(&s->j, "syscall", sysdec_name(order[i]) ?: "?");
		json_uint(&s->j, "calls", r->calls);
		json_uint(&s->j, "errors", r->errors);
		json_uint(&s->j, "ns", r->ns);
		json_obj_close(&s->j);
	}
	json_arr_close(&s->j);
	json_uint(&s->j, "calls", tot->calls);
	json_uint(&s->j, "errors", tot->errors);
	json_uint(&s->j, "ns", tot->ns);
	json_uint(&s->j, "lost", s->lost);
	json_obj_close(&s->j);
	json_end_line(&s->j);
}

static void summary_row(FILE *f, const struct stat_row *r, double pct, const char *name)
{
	fprintf(f, "%6.2f %11.6f %11llu %9llu ", pct, r->ns / 1e9,
		r->calls ? r->ns / 1000 / r->calls : 0, r->calls);
	if (r->errors)
		fprintf(f, "%9llu %s\n", r->errors, name);
	else
		fprintf(f, "%9s %s\n", "", name);
}

/* -c, -C: strace's table, the calls by the time in them */
static int summary(struct strace *s)
{
	static const char rule[] =
		"------ ----------- ----------- --------- --------- ----------------\n";
	struct stat_row tot = { 0 };
	int nr, n = 0, i, *order = calloc(sysdec_nr_count(), sizeof(int));

	if (!order)
		return tp_oom();
	for (nr = 0; nr < sysdec_nr_count(); nr++) {
		if (!s->rows[nr].calls)
			continue;
		order[n++] = nr;
		tot.calls += s->rows[nr].calls;
		tot.errors += s->rows[nr].errors;
		tot.ns += s->rows[nr].ns;
	}
	qsort_r(order, n, sizeof(int), row_cmp, s->rows);
	if (s->o->json) {
		summary_json(s, order, n, &tot);
		free(order);
		return TP_OK;
	}
	line_interrupt(s);
	fprintf(s->out, "%% time     seconds  usecs/call     calls    errors syscall\n%s", rule);
	for (i = 0; i < n; i++)
		summary_row(s->out, &s->rows[order[i]],
			    tot.ns ? 100.0 * s->rows[order[i]].ns / tot.ns : 0,
			    sysdec_name(order[i]) ?: "?");
	fputs(rule, s->out);
	summary_row(s->out, &tot, 100.0, "total");
	free(order);
	return TP_OK;
}

/* the offset of a field of an event, -1 when the event or field is not there */
static int field_off(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = ev ? tep_find_field(ev, name) : NULL;

	return f ? f->offset : -1;
}

/* the events' ids and the offsets of the fields read per record */
static int strace_fields(struct strace *s)
{
	struct tep_handle *tep = live_tep(s->l);
	struct tep_event *en = tep_find_event_by_name(tep, "raw_syscalls", "sys_enter");
	struct tep_event *ex = tep_find_event_by_name(tep, "raw_syscalls", "sys_exit");
	struct tep_event *pe = tep_find_event_by_name(tep, "sched", "sched_process_exit");
	struct tep_event *sg = tep_find_event_by_name(tep, "signal", "signal_deliver");
	struct tep_event *gn = tep_find_event_by_name(tep, "signal", "signal_generate");

	if (!en || !ex) {
		tp_error("the raw_syscalls events are not there");
		return TP_FAIL;
	}
	s->id_enter = en->id;
	s->id_exit = ex->id;
	s->id_pexit = pe ? pe->id : -1;
	s->id_signal = sg ? sg->id : -1;
	s->id_gen = gn ? gn->id : -1;
	s->off_enter_id = field_off(en, "id");
	s->off_args = field_off(en, "args");
	s->off_exit_id = field_off(ex, "id");
	s->off_ret = field_off(ex, "ret");
	s->off_pexit_pid = field_off(pe, "pid");
	s->off_sig = field_off(sg, "sig");
	s->off_code = field_off(sg, "code");
	s->off_handler = field_off(sg, "sa_handler");
	s->off_gen_sig = field_off(gn, "sig");
	s->off_gen_code = field_off(gn, "code");
	s->off_gen_pid = field_off(gn, "pid");
	s->off_gen_group = field_off(gn, "group");
	s->off_gen_result = field_off(gn, "result");
	if (s->off_pexit_pid < 0)
		s->id_pexit = -1;
	if (s->off_sig < 0 || s->off_code < 0 || s->off_handler < 0)
		s->id_signal = -1;
	if (s->off_gen_sig < 0 || s->off_gen_code < 0 || s->off_gen_pid < 0 ||
	    s->off_gen_group < 0 || s->off_gen_result < 0)
		s->id_gen = -1;
	return TP_OK;
}

/* each syscall's argument types from its tracepoint's format (for those sysdec.c does not know) */
static void strace_protos(struct strace *s)
{
	char event[128];
	int nr, size;

	for (nr = 0; nr < sysdec_nr_count(); nr++) {
		const char *name = sysdec_name(nr), *types[SYSDEC_MAX_ARGS];
		char *text, *p;
		int n = 0;

		if (!name)
			continue;
		snprintf(event, sizeof(event), "sys_enter_%s", name);
		text = live_format_text(s->l, "syscalls", event, &size);
		for (p = text ? strstr(text, "__syscall_nr;") : NULL; p && n < SYSDEC_MAX_ARGS;) {
			char *f = strstr(p, "field:"), *semi;

			if (!f)
				break;
			f += 6;
			semi = strchr(f, ';');
			if (!semi)
				break;
			*semi = '\0';
			/* "const char * filename": the type is what comes before the name */
			p = strrchr(f, ' ');
			if (p)
				*p = '\0';
			types[n++] = f;
			p = semi + 1;
		}
		if (text)
			sysdec_proto(s->dec, nr, n, types);
		free(text);
	}
}

/* the lines' stream: -o FILE or stdout, in large writes */
static int strace_output(struct strace *s)
{
	struct timespec real, mono;

	s->out = stdout;
	if (s->o->outfile) {
		s->out = fopen(s->o->outfile, "we");
		if (!s->out) {
			tp_error("cannot write '%s': %s", s->o->outfile, strerror(errno));
			s->out = stdout;
			return TP_FAIL;
		}
	}
	setvbuf(s->out, NULL, _IOFBF, 1 << 20);
	json_init(&s->j, s->out, false);
	s->line = malloc(LINE_MAX_);
	s->dec = sysdec_new(s->o->strsize);
	if (s->o->summary || s->o->summary_too)
		s->rows = calloc(sysdec_nr_count(), sizeof(*s->rows));
	if (!s->line || !s->dec || ((s->o->summary || s->o->summary_too) && !s->rows))
		return tp_oom();
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	s->real_off = real.tv_sec - mono.tv_sec + (real.tv_nsec - mono.tv_nsec) / 1e9;
	return TP_OK;
}

/* the argument of syscall nr that sys_enter_X calls name (its fields after __syscall_nr), or -1 */
static int arg_index(struct tep_event *enter, const char *name)
{
	struct tep_format_field *f;
	int i = 0;

	for (f = enter ? enter->format.fields : NULL; f; f = f->next) {
		if (!strcmp(f->name, "__syscall_nr"))
			continue;
		if (!strcmp(f->name, name))
			return i < SYSDEC_MAX_ARGS ? i : -1;
		i++;
	}
	return -1;
}

/* --strings: the probes live_open() made (strargs.h), their string fields by argument */
static int strace_probes(struct strace *s)
{
	struct tep_handle *tep = live_tep(s->l);
	int i, k, n = tep_get_events_count(tep);

	s->probes = calloc(n, sizeof(*s->probes));
	s->wants_str = calloc(sysdec_nr_count(), sizeof(bool));
	if (!s->probes || !s->wants_str)
		return tp_oom();
	for (i = 0; i < n; i++) {
		struct tep_event *ev = tep_get_event(tep, i), *enter;
		const char *shown = strings_shown_name(ev->system, ev->name);
		struct str_probe *p = &s->probes[s->nprobes];
		struct tep_format_field *f;

		if (!shown || (p->nr = sysdec_nr(shown + 10)) < 0)
			continue;
		enter = tep_find_event_by_name(tep, "syscalls", shown);
		p->id = ev->id;
		f = tep_find_field(ev, "ret");
		p->off_ret = f && f->size == 8 ? f->offset : -1;
		for (k = 0; k < SYSDEC_MAX_ARGS; k++)
			p->off[k] = -1;
		for (f = ev->format.fields; f; f = f->next) {
			k = f->flags & TEP_FIELD_IS_DYNAMIC ? arg_index(enter, f->name) : -1;
			if (k >= 0)
				p->off[k] = f->offset;
		}
		s->wants_str[p->nr] = true;
		s->nprobes++;
	}
	return TP_OK;
}

/*
 * The events: the raw syscalls, the ends of processes, signals; with
 * --strings, syscalls:sys_enter_X of each traced syscall strace prints a path
 * of (live_open() traces a probe that fetches the strings in its place)
 */
static int strace_events(struct strace_opts *o, char ***evp, int *n)
{
	static char *base[] = { "raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
				"sched:sched_process_exit", "signal:signal_deliver",
				"signal:signal_generate" };
	struct tfs_event_list all = { 0 };
	char **ev = calloc(5 + sysdec_nr_count(), sizeof(char *)), name[160];
	int nr, ret = TP_OK;

	*evp = ev;
	if (!ev)
		return tp_oom();
	for (*n = 0; *n < 5; (*n)++)
		ev[*n] = strdup(base[*n]);
	if (o->strings && (ret = tfs_events_available(NULL, &all)))
		return ret;
	for (nr = 0; o->strings && nr < sysdec_nr_count(); nr++) {
		if (!sysdec_has_path(nr) || (o->trace && !o->trace[nr]))
			continue;
		snprintf(name, sizeof(name), "sys_enter_%s", sysdec_name(nr));
		if (tfs_event_list_has(&all, "syscalls", name) &&
		    asprintf(&ev[(*n)++], "syscalls:%s", name) < 0)
			ev[--(*n)] = NULL;
	}
	tfs_event_list_free(&all);
	for (nr = 0; nr < *n; nr++)
		if (!ev[nr])
			return tp_oom();
	return TP_OK;
}

static void events_free(char **ev, int n)
{
	while (ev && n--)
		free(ev[n]);
	free(ev);
}

static int strace_open(struct strace *s, struct strace_opts *o)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	char **events = NULL;
	int ret, nevents = 0;

	if (o->kb) {
		snprintf(o->kbuf, sizeof(o->kbuf), "%llu", o->kb);
		o->buffer_kb = o->kbuf;
	} else {
		long kb = STRACE_BUFFER_KB_TOTAL / (ncpu > 0 ? ncpu : 1);

		snprintf(o->kbuf, sizeof(o->kbuf), "%ld", kb > STRACE_BUFFER_KB_MIN ? kb :
			 STRACE_BUFFER_KB_MIN);
		o->buffer_kb = o->kbuf;
	}
	if (o->follow && o->tgt.npids)
		o->tgt.follow = true;
	o->tgt.stdout_to_stderr = !o->outfile;
	ret = strace_events(o, &events, &nevents);
	if (!ret)
		ret = live_open(&s->l, &(struct live_spec){
			.events = events, .nevents = nevents, .buffer_kb = o->buffer_kb,
			.target = &o->tgt, .strings = o->strings,
		});
	events_free(events, nevents);
	if (ret)
		return ret;
	s->first = o->tgt.argv ? target_pid(&o->tgt) : o->tgt.npids ? o->tgt.pids[0] : 0;
	ret = strace_fields(s);
	if (!ret && o->strings)
		ret = strace_probes(s);
	if (!ret)
		strace_protos(s);
	return ret;
}

/* the end: the open line, the table, the losses, the output's errors */
static int strace_end(struct strace *s, int ret)
{
	struct task *t;
	size_t i;

	/* calls still in flight at the end (-p detached, the buffers drained): " = ?" */
	for (i = 0; i < s->ntasks; i++) {
		t = &s->tasks[i];
		if (t->tid)
			release(s, t);
		if (t->tid && t->in_call && t == s->open) {
			t->call.has_ret = false;
			call_done(s, t, t->enter_ts);
		}
	}
	line_interrupt(s);
	if (s->rows && !ret)
		ret = summary(s);
	if (live_loss_report(s->l, false) && !ret && !s->lost)
		note_lost(s, -1, -1);
	if (fflush(s->out) || ferror(s->out)) {
		if (s->out == stdout)
			ret = live_stdout_failed(errno, ret);
		else if (!ret) {
			tp_error("cannot write '%s': %s", s->o->outfile, strerror(errno));
			ret = TP_FAIL;
		}
	}
	return ret;
}

int cmd_strace(int argc, char **argv)
{
	struct strace_opts o;
	struct strace s = { .o = &o };
	struct live_tool tool = { .record = strace_record, .idle = strace_idle, .ctx = &s };
	int ret;

	ret = strace_parse(&o, argc, argv);
	if (ret)
		return opt_status(ret);
	ret = strace_output(&s);
	if (!ret)
		ret = strace_open(&s, &o);
	if (!ret)
		ret = live_start(s.l);
	if (!ret)
		ret = live_run(s.l, &tool);
	if (!ret)
		ret = live_finish(s.l, &tool);
	if (s.l)
		ret = strace_end(&s, ret);
	ret = live_close(s.l, ret);
	if (s.out && s.out != stdout)
		fclose(s.out);
	sysdec_free(s.dec);
	for (size_t i = 0; i < s.ntasks; i++)
		str_clear(&s.tasks[i]);
	free(s.tasks);
	free(s.probes);
	free(s.wants_str);
	free(s.rows);
	free(s.line);
	free(o.trace);
	target_free(&o.tgt);
	return ret;
}
