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
#include <time.h>
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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* How long to wait for records: WAIT_MS, less where --duration ends sooner; -1: it ended. */
static int wait_ms(double deadline)
{
	double left;

	if (!deadline)
		return WAIT_MS;
	left = deadline - now_s();
	if (left <= 0)
		return -1;
	return left * 1000 < WAIT_MS ? (int)(left * 1000) + 1 : WAIT_MS;
}

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

int cmd_stream(int argc, char **argv)
{
	struct live *l = NULL;
	struct output *out = NULL;
	struct output_pool *pool = NULL;
	struct stream_cpu *sc = NULL;
	bool percpu;			/* --threads: reader threads that format */
	unsigned long long nthreads = 0;
	int read_thread = RT_AUTO;
	const pid_t *tids;
	int ntids;
	struct usym *usym = NULL;
	const char *filter = NULL, *cpulist = NULL, *buffer_kb = NULL;
	unsigned long long count = 0, seen = 0, kb = 0, nrec = 0;
	int ncpu;
	double duration = 0, deadline = 0;
	bool json = false, drain = false, fail_on_loss = false, lost_seen = false;
	bool kstack = false, ustack = false, stacks, json_stacks;
	/* with stacks: per CPU, the stack records its last event still has to get */
	int *owed = NULL, per_event = 0;
	bool plain;
	bool ending = false;		/* --count reached: only what is owed still */
	bool pool_failed = false;	/* the formatting threads failed (not a write) */
	double end_by = 0;		/* then: how long the stacks may take */
	struct target tgt;
	struct probe_words probes = { .n = 0 };
	struct ftr_spec fs = { .nfunc = 0 };
	bool strings = false;
	const struct tp_opt opts[] = {
		OPT_ARG("EVENT", "system:event, system or a glob; traced in a private instance\n"
			"that is removed on exit (without EVENT: read what is enabled)"),
		OPT_BOOL('j', "json", &json, "NDJSON, one object per line, instead of the kernel's text"),
		OPT_STRING('f', "filter", &filter, "EXPR", "filter every EVENT with EXPR (needs EVENT)"),
		OPT_UINT('c', "count", &count, "N", 1, 0, "stop after N events"),
		OPT_SECONDS('d', "duration", &duration, "SEC", "stop after SEC seconds (fractions allowed)"),
		OPT_STRING('C', "cpu", &cpulist, "LIST", "only these CPUs (0,2-3)"),
		OPT_BOOL('D', "drain", &drain, "stop once the data already buffered is read"),
		OPT_BOOL('L', "fail-on-loss", &fail_on_loss, "exit 1 if any event was lost"),
		OPT_UINT('b', "buffer-kb", &kb, "N", 1, 1ULL << 30,
			 "per-CPU buffer of the private instance, in KiB (needs EVENT)"),
		OPT_BOOL(0, "stack", &kstack, "the kernel stack of every EVENT (needs EVENT)"),
		OPT_BOOL(0, "user-stack", &ustack, "the user stack of every EVENT (needs EVENT)"),
		OPT_UINT(0, "threads", &nthreads, "N", 1, 256,
			 "N reader threads, each reading, decoding and formatting its\n"
			 "share of the CPUs, merged in order by the main thread\n"
			 "(default: one thread does it all; see the manual for\n"
			 "--stack, --strings, --function, --graph and no EVENT)"),
		OPT_CALLBACK(0, "read-thread", &read_thread, "WHEN", opt_read_thread,
			     "read and merge the CPUs' ring buffers on a thread of\n"
			     "their own while the main thread formats and writes:\n"
			     "auto (the default: where 4 CPUs or more are read and\n"
			     "tpctl may run on 4), yes or no"),
		PROBE_OPTS(&probes),
		STRINGS_OPT(&strings),
		FTR_OPTS(&fs),
		TARGET_OPTS(&tgt),
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
	struct tp_args args;
	struct live_spec ls;
	struct tep_record rec;
	char kbuf[32];
	long long lost;
	int ret, n, ms;

	ret = target_parse(&tgt, argc, argv, &spec, &args);
	if (ret)
		return opt_status(ret);
	/* COMMAND's output must not mix with the events on stdout */
	tgt.stdout_to_stderr = true;
	if (kb) {
		snprintf(kbuf, sizeof(kbuf), "%llu", kb);
		buffer_kb = kbuf;
	}
	/* a probe of the run is an EVENT too: traced in the private instance */
	n = args.argc + probes.n + fs.nfunc + fs.ngraph;
	fs.cmd = "stream";
	ret = TP_USAGE;
	if (ftr_usage(&fs))
		;
	else if (!n && target_given(&tgt))
		tp_error("'-- COMMAND', '--pid', '--cgroup' need EVENT arguments "
			 "(without them nothing is changed)");
	else if (!n && filter)
		tp_error("'--filter' needs EVENT arguments (without them nothing is changed)");
	else if (!n && buffer_kb)
		tp_error("'--buffer-kb' needs EVENT arguments (without them nothing is changed)");
	else if (!n && (kstack || ustack))
		tp_error("'%s' needs EVENT arguments (without them nothing is changed)",
			 kstack ? "--stack" : "--user-stack");
	else if (nthreads && read_thread == RT_YES)
		tp_error("'--threads' reads with threads of its own: '--read-thread yes' does not go with it");
	else if (n && tp.instance)
		tp_error("EVENT arguments trace in a private instance; '-i %s' reads an existing one",
			 tp.instance);
	else
		ret = TP_OK;
	if (ret) {
		target_free(&tgt);
		return ret;
	}
	/*
	 * what the reader threads can format on their own (stream_cpu.h), if
	 * the instance does not join records (stacks, a tracer); else the pool
	 */
	percpu = nthreads && !kstack && !ustack && !strings && !fs.nfunc && !fs.ngraph;
	ls = (struct live_spec){
		.events = args.argv, .nevents = args.argc, .filter = filter, .buffer_kb = buffer_kb,
		.cpus = cpulist, .target = &tgt, .probes = probes.v, .nprobes = probes.n,
		.strings = strings, .ftrace = &fs,
		.flags = LIVE_PROMPT | (kstack ? LIVE_KSTACK : 0) | (ustack ? LIVE_USTACK : 0) |
			 (json ? 0 : LIVE_TEXT) | (percpu ? LIVE_PAGES_PLAIN : 0),
	};
	ret = live_open(&l, &ls);
	if (ret)
		goto out;
	ncpu = live_ncpus(l);
	percpu = percpu && live_page_ncpus(l) > 0;
	stacks = live_stacks(l);
	if (stacks && count) {
		/* --stack and --user-stack: one record each; else the instance's options */
		per_event = kstack || ustack ? kstack + ustack : OWED_UNKNOWN;
		owed = calloc(ncpu > 0 ? ncpu : 1, sizeof(*owed));
		if (!owed) {
			tp_error("out of memory");
			ret = TP_FAIL;
			goto out;
		}
	}
	out = output_new(live_tep(l), stdout, json ? OUTPUT_JSON : OUTPUT_TEXT);
	if (!out || output_set_stacks(out, stacks) < 0) {
		tp_error("out of memory");
		ret = TP_FAIL;
		goto out;
	}
	output_set_loader(out, live_load_id, l);
	output_set_comm_loader(out, live_reload_comms, l);
	output_set_ns_clock(out, live_clock_ns(l));
	/* user frames named from the live processes (best effort, see usym.h) */
	json_stacks = json && stacks;
	if (json_stacks) {
		usym = usym_new();
		if (usym)
			output_set_user_symbols(out, user_symbol, usym);
	}

	/*
	 * stdio would pick 4 KiB for a pipe: one write(2), and a wake-up of the
	 * reader, per 20 JSON lines.  We flush whenever nothing is ready, so a
	 * bigger buffer only matters while the stream is busy.
	 */
	setvbuf(stdout, stdout_buf, _IOFBF, sizeof(stdout_buf));
	/* a JSON event's stacks and --strings' faults are the reading thread's to join and count */
	if (percpu) {
		ret = stream_cpu_start(&sc, l, json ? OUTPUT_JSON : OUTPUT_TEXT, (int)nthreads);
		if (ret)
			goto out;
	} else if (nthreads && !json_stacks && !strings) {
		pool = output_pool_new(live_tep(l), json ? OUTPUT_JSON : OUTPUT_TEXT,
				       live_clock_ns(l), (int)nthreads);
		if (!pool) {
			tp_error("cannot start %llu formatting threads: %s", nthreads,
				 strerror(errno));
			ret = TP_FAIL;
			goto out;
		}
		/* tpctl's own threads are never traced (a private instance's notrace list) */
		tids = output_pool_tids(pool, &ntids);
		ret = live_hide_tasks(l, tids, ntids);
		if (ret)
			goto out;
	}
	/* from here on, INT/TERM/HUP only set state_stop: we drain and clean up */
	ret = live_start(l);
	if (ret)
		goto out;
	if (!sc && !pool && (read_thread == RT_YES || (read_thread == RT_AUTO && !nthreads))) {
		ret = live_read_thread(l, read_thread == RT_AUTO);
		if (ret)
			goto out;
	}
	if (duration > 0)
		deadline = now_s() + duration;
	/* --drain: the threads take what is there now and end */
	if (sc && drain && stream_cpu_finish(sc) < 0)
		ret = TP_FAIL;
	while (sc && !ret && !state_stop) {
		int r = stream_cpu_next(sc, out);

		if (r < 0) {
			pool_failed = !ferror(stdout);
			break;
		}
		if (r == 2)
			lost_seen = true;
		if (r == 1 && count && ++seen >= count)
			break;
		/*
		 * Every 1024 records, and whenever nothing can go out: the clock
		 * (cheap, vDSO, but not free), and the target (a busy stream
		 * (-a) may never idle)
		 */
		if (r && (r != 1 || ++nrec & 1023))
			continue;
		if (deadline && now_s() >= deadline)
			break;
		if (!r) {
			/* nothing can go out now */
			if (drain)
				break;
			if (output_flush(out) < 0)
				break;
		}
		/* the target is gone: the threads read what it left, then stop */
		if (!drain && live_done(l)) {
			live_drain(l);
			drain = true;
			if (stream_cpu_finish(sc) < 0) {
				ret = TP_FAIL;
				break;
			}
			continue;
		}
		if (r)
			continue;
		if ((ms = wait_ms(deadline)) < 0)
			break;
		stream_cpu_wait(sc, ms);
	}
	plain = !pool && !owed;
	while (!sc && !state_stop) {
		int r = live_next(l, &rec, &lost);

		if (r < 0) {
			ret = TP_FAIL;
			break;
		}
		/* the common case: a record to write, no stacks owed, no pool, no loss */
		if (r > 0 && plain && !lost) {
			r = output_record(out, &rec);
			if (r < 0)
				break;
			goto written;
		}
		if (r > 0) {
			bool in = rec.cpu >= 0 && rec.cpu < ncpu, stack = false;

			/*
			 * After the last event of --count: only the stacks still
			 * owed to the last event written on each CPU.  A CPU's
			 * next event (not written) says its last one is complete.
			 */
			if (ending) {
				stack = output_is_stack(out, &rec);
				if (in && !stack)
					owed[rec.cpu] = 0;
				if (!in || !stack || !owed[rec.cpu]) {
					if (!owing(owed, ncpu))
						break;
					continue;
				}
			}
			if (lost)
				lost_seen = true;
			/* 1: a record that the reading thread writes itself, in its place */
			r = pool ? output_pool_add(pool, out, stdout, &rec, lost) : 1;
			if (r == 1) {
				r = pool ? output_pool_flush(pool, stdout) : 0;
				if (!r && lost)
					r = output_lost(out, rec.cpu, lost);
				if (!r)
					r = output_record(out, &rec);
			}
			if (r < 0) {
				pool_failed = pool && !ferror(stdout);
				break;
			}
			/* 0: an event, which its stacks follow on its CPU; 1: one of them */
			if (owed && in) {
				if (!r)
					owed[rec.cpu] = per_event;
				else if (owed[rec.cpu] && owed[rec.cpu] != OWED_UNKNOWN)
					owed[rec.cpu]--;
			}
			if (ending && !owing(owed, ncpu))
				break;
written:
			if (!r && count && ++seen >= count) {
				if (!stacks || !owing(owed, ncpu))
					break;
				ending = true;
			}
			/*
			 * Every 1024 records: the clock (cheap, vDSO, but not
			 * free), and the target (a busy stream (-a) may never idle)
			 */
			if (!(++nrec & 1023)) {
				if (deadline && now_s() >= deadline)
					break;
				if (!drain && live_done(l)) {
					live_drain(l);
					drain = true;
				}
			}
			continue;
		}
		/*
		 * The last event's stack may be committed just after the event
		 * was read: wait for it, up to END_WAIT_MS (one wait is not
		 * enough: the reader may hold a partial sub-buffer a while).
		 */
		if (ending) {
			double t = now_s();

			if (!end_by)
				end_by = t + END_WAIT_MS / 1000.0;
			else if (t >= end_by)
				break;
			live_wait(l, (int)((end_by - t) * 1000) + 1);
			continue;
		}
		/* the target is gone: read what it left in the buffers, then stop */
		if (!drain && live_done(l)) {
			live_drain(l);
			drain = true;
		}
		if (drain) {
			if (live_eof(l))
				break;
			continue;
		}
		if (pool && output_pool_flush(pool, stdout) < 0) {
			pool_failed = !ferror(stdout);
			break;
		}
		if (output_idle(out) < 0)
			break;
		if ((ms = wait_ms(deadline)) < 0)
			break;
		live_wait(l, ms);
	}
	if (!pool_failed && pool && output_pool_flush(pool, stdout) < 0)
		pool_failed = !ferror(stdout);
	if (pool_failed && sc) {
		/* a reader thread's error was said */
		ret = TP_FAIL;
	} else if (pool_failed) {
		tp_error("cannot format the records: %s", strerror(errno));
		ret = TP_FAIL;
	}
	if (output_flush(out) < 0 || ferror(stdout)) {
		/* the reader of stdout went away (| head): a normal end, not an error */
		if (errno == EPIPE) {
			__fpurge(stdout);
			clearerr(stdout);
		} else {
			tp_error("cannot write to standard output: %s", strerror(errno));
			__fpurge(stdout);
			clearerr(stdout);
			ret = TP_FAIL;
		}
	}
	/*
	 * The threads stop while a signal only stops the loop: a rollback
	 * (state.h) must not find them reading the instance's files, which
	 * would keep it from going; and before the loss account (it counts
	 * their sub-buffers)
	 */
	stream_cpu_free(sc);
	sc = NULL;
	live_stop_reading(l);
	state_set_graceful(false);
	if (live_loss_report(l, fail_on_loss) || lost_seen) {
		if (fail_on_loss && !ret)
			ret = TP_FAIL;
	}
	output_faults_report(output_faults(out));
	exit_line(l, out);
out:
	free(owed);
	stream_cpu_free(sc);
	output_pool_free(pool);
	output_free(out);
	usym_free(usym);
	ret = live_close(l, ret);
	target_free(&tgt);
	return ret;
}
