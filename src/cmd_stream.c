// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl stream [EVENT...] [--json] [--filter EXPR] [--count N] [--duration SEC]
 *              [--cpu LIST] [--drain] [--fail-on-loss] [--buffer-kb N]
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

#include "btf.h"
#include "decode.h"
#include "live.h"
#include "opt.h"
#include "output.h"
#include "reader.h"
#include "state.h"
#include "target.h"
#include "tfs.h"
#include "tpctl.h"
#include "usym.h"

/* Poll timeout: the longest a record waits on a CPU whose buffer does not wake us. */
#define WAIT_MS 50
/* stdout's buffer: a pipe's capacity (glibc ignores the size unless given the buffer) */
static char stdout_buf[65536];

struct stream {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct output *out;
	struct reader *rd;
	int ncpu;
	bool *cpus;
	unsigned long long *overrun0, *dropped0;
	/* id -> "system:event", built on the first unknown id */
	char **idmap;
	int nid;
	bool idmap_built;
	struct usym *usym;	/* JSON with user stacks: their frames named */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Lazy loading: an event id we have no format for (enabled later, ftrace:print, ...). */
static int load_by_id(struct tep_handle *tep, int id, void *ctx)
{
	struct stream *st = ctx;
	char **systems, **events, *colon;
	int i, j;

	if (!st->idmap_built) {
		st->idmap_built = true;
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
				if (eid >= st->nid) {
					int nn = eid + 256;
					char **nm = realloc(st->idmap, nn * sizeof(*nm));

					if (!nm)
						continue;
					memset(nm + st->nid, 0, (nn - st->nid) * sizeof(*nm));
					st->idmap = nm;
					st->nid = nn;
				}
				if (!st->idmap[eid] &&
				    asprintf(&st->idmap[eid], "%s:%s", systems[i], events[j]) < 0)
					st->idmap[eid] = NULL;
			}
			tracefs_list_free(events);
		}
		tracefs_list_free(systems);
	}
	if (id >= st->nid || !st->idmap[id])
		return -1;
	colon = strchr(st->idmap[id], ':');
	*colon = '\0';
	i = live_load_format(tep, st->idmap[id], colon + 1);
	*colon = ':';
	return i;
}

static const char *user_symbol(void *ctx, int tgid, uint64_t addr, bool ret,
			       unsigned long long *off, const char **obj)
{
	return usym_lookup(ctx, tgid, addr, ret, off, obj);
}

static int reload_cmdlines(struct tep_handle *tep, void *ctx)
{
	(void)ctx;
	return tfs_tep_load_cmdlines(tep);
}

/* The clock of the instance counts nanoseconds unless it is a raw counter. */
static bool clock_in_ns(struct tracefs_instance *inst)
{
	char *clk = tracefs_get_clock(inst);
	bool ns = true;

	if (clk) {
		ns = strcmp(clk, "counter") && strcmp(clk, "x86-tsc");
		free(clk);
	}
	return ns;
}

/* Load the formats of what is enabled in inst now (set_event); others come lazily. */
static void preload_enabled(struct stream *st)
{
	char *buf, *line, *save = NULL;
	int size = 0;

	buf = tracefs_instance_file_read(st->inst, "set_event", &size);
	if (!buf)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		if (tfs_name_valid(line) && tfs_name_valid(colon + 1))
			live_load_format(st->tep, line, colon + 1);
	}
	free(buf);
}

/*
 * Kernel variables that print fmts read when the kernel prints `trace`
 * (writeback's "age=" is jiffies minus a field): read when we print, too.
 * jiffies comes from /proc/timer_list (root only), at most every 10 ms.
 */
static bool stream_variable(const char *name, size_t len, unsigned long long *value, void *ctx)
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
	if (!have || (now.tv_sec - last.tv_sec) * 1000000000LL +
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

static struct tep_handle *stream_tep(bool json)
{
	/*
	 * Plugins only change how events are printed as text; loading them
	 * costs a dlopen each, which JSON (typed from the formats) can skip.
	 */
	struct tep_handle *tep = live_tep(!json && !getenv("TPCTL_NO_PLUGINS"));
	char *buf;
	int size = 0;

	if (tep && !json) {
		/*
		 * Text prints what the kernel prints: names of enum constants
		 * (BTF, read on first need), strings that %s fields point to
		 * (printk_formats) and jiffies.  JSON carries the raw values.
		 */
		static const struct decode_names names = {
			.constant = btf_enum_value,
			.variable = stream_variable,
		};

		decode_set_names(&names);
		buf = tracefs_instance_file_read(NULL, "printk_formats", &size);
		if (buf)
			tep_parse_printk_formats(tep, buf);
		free(buf);
	}
	return tep;
}

static int setup_events(struct stream *st, char **pats, int npats, const char *filter,
			const char *buffer_kb, bool kstack, bool ustack, struct target *tgt)
{
	struct tfs_event_list evs = { 0 };
	int ret;

	/* names and filters are checked before anything is created */
	ret = live_resolve_events(st->tep, pats, npats, filter, &evs);
	if (!ret)
		ret = live_setup_instance(&st->inst, st->tep, &evs, filter, buffer_kb,
					  LIVE_PROMPT | (kstack ? LIVE_KSTACK : 0) |
					  (ustack ? LIVE_USTACK : 0), tgt);
	tfs_event_list_free(&evs);
	return ret;
}

/* Per-CPU overrun/dropped since start, on stderr; true when anything was lost. */
static bool loss_summary(struct stream *st, bool fail_on_loss)
{
	unsigned long long pages, lost_pages, lost_events, o, d, to = 0, td = 0;
	char buf[1024];
	size_t len = 0;
	int cpu;

	buf[0] = '\0';
	for (cpu = 0; cpu < st->ncpu; cpu++) {
		if (!st->cpus[cpu])
			continue;
		live_cpu_stats(st->inst, cpu, &o, &d);
		o -= o >= st->overrun0[cpu] ? st->overrun0[cpu] : o;
		d -= d >= st->dropped0[cpu] ? st->dropped0[cpu] : d;
		to += o;
		td += d;
		if ((o || d) && len < sizeof(buf) - 64)
			len += snprintf(buf + len, sizeof(buf) - len, "%scpu%d %llu/%llu",
					len ? ", " : "", cpu, o, d);
	}
	reader_counts(st->rd, &pages, &lost_pages, &lost_events);
	if (!to && !td && !lost_pages)
		return false;
	if (!tp.quiet || fail_on_loss)
		fprintf(stderr, "tpctl: stream: events lost: %llu overwritten, %llu dropped (%s), "
			"%llu of %llu pages marked lost\n", to, td, len ? buf : "per cpu 0/0",
			lost_pages, pages);
	return true;
}

/* Stop tracing once the target is gone, so that the drain ends. */
static bool target_stop(struct stream *st)
{
	return tfs_instance_write(st->inst, "tracing_on", "0") == TP_OK;
}

/* JSON: how COMMAND ended, as the last line (once it has, ending it if need be). */
static void exit_line(struct stream *st, struct target *tgt)
{
	int status, sig;

	if (!target_pid(tgt) || !st->out || ferror(stdout))
		return;
	target_finish(tgt);
	if (target_exit(tgt, &status, &sig) &&
	    output_exit(st->out, target_pid(tgt), status, sig) == 0)
		output_flush(st->out);
	if (ferror(stdout)) {
		__fpurge(stdout);
		clearerr(stdout);
	}
}

static void stream_free(struct stream *st)
{
	int i;

	reader_free(st->rd);
	st->rd = NULL;
	output_free(st->out);
	usym_free(st->usym);
	if (st->tep)
		tep_free(st->tep);
	for (i = 0; i < st->nid; i++)
		free(st->idmap[i]);
	free(st->idmap);
	free(st->cpus);
	free(st->overrun0);
	free(st->dropped0);
	if (st->inst)
		tracefs_instance_free(st->inst);
}

int cmd_stream(int argc, char **argv)
{
	struct stream st = { 0 };
	const char *filter = NULL, *cpulist = NULL, *buffer_kb = NULL;
	unsigned long long count = 0, seen = 0, kb = 0, nrec = 0;
	double duration = 0, deadline = 0;
	bool json = false, drain = false, fail_on_loss = false, lost_seen = false;
	bool kstack = false, ustack = false, stacks;
	int last_cpu = -1;		/* --count reached: the CPU of the last event */
	bool end_waited = false, *skipped = NULL;
	struct target tgt;
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
		TARGET_OPTS(&tgt),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = {
		"tpctl stream [EVENT...] [--json] [--filter EXPR] [--count N] [--duration SEC]\n"
		"                    [--cpu LIST] [--drain] [--fail-on-loss] [--buffer-kb N]\n"
		"                    [--stack] [--user-stack]\n"
		"                    " TARGET_USAGE,
		opts, OPT_COMMAND, NULL,
	};
	struct tp_args args;
	struct tep_record rec;
	char kbuf[32];
	long long lost;
	int ret, cpu, n;

	ret = target_parse(&tgt, argc, argv, &spec, &args);
	if (ret)
		return opt_status(ret);
	/* COMMAND's output must not mix with the events on stdout */
	tgt.stdout_to_stderr = true;
	if (kb) {
		snprintf(kbuf, sizeof(kbuf), "%llu", kb);
		buffer_kb = kbuf;
	}
	n = args.argc;
	ret = TP_USAGE;
	if (!n && target_given(&tgt))
		tp_error("'-- COMMAND', '--pid', '--cgroup' need EVENT arguments "
			 "(without them nothing is changed)");
	else if (!n && filter)
		tp_error("'--filter' needs EVENT arguments (without them nothing is changed)");
	else if (!n && buffer_kb)
		tp_error("'--buffer-kb' needs EVENT arguments (without them nothing is changed)");
	else if (!n && (kstack || ustack))
		tp_error("'%s' needs EVENT arguments (without them nothing is changed)",
			 kstack ? "--stack" : "--user-stack");
	else if (n && tp.instance)
		tp_error("EVENT arguments trace in a private instance; '-i %s' reads an existing one",
			 tp.instance);
	else
		ret = target_check(&tgt);
	if (!ret)
		ret = tfs_init();
	if (ret) {
		target_free(&tgt);
		return ret;
	}
	st.ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (st.ncpu < 1)
		st.ncpu = 1;
	st.cpus = calloc(st.ncpu, sizeof(*st.cpus));
	st.overrun0 = calloc(st.ncpu, sizeof(*st.overrun0));
	st.dropped0 = calloc(st.ncpu, sizeof(*st.dropped0));
	if (!st.cpus || !st.overrun0 || !st.dropped0) {
		tp_error("out of memory");
		ret = TP_FAIL;
		goto out;
	}
	if (cpulist && !tp_parse_cpus(cpulist, st.cpus, st.ncpu)) {
		tp_error("invalid CPU list '%s': CPUs 0-%d, as in 0,2-3", cpulist, st.ncpu - 1);
		ret = TP_USAGE;
		goto out;
	}
	if (!cpulist)
		for (cpu = 0; cpu < st.ncpu; cpu++)
			st.cpus[cpu] = true;

	st.tep = stream_tep(json);
	if (!st.tep) {
		ret = TP_FAIL;
		goto out;
	}
	if (n) {
		ret = setup_events(&st, args.argv, n, filter, buffer_kb, kstack, ustack, &tgt);
	} else {
		ret = tfs_open_selected(&st.inst);
		if (!ret)
			preload_enabled(&st);
	}
	if (ret)
		goto out;
	/*
	 * What trace_marker writes arrives whatever is enabled, and so do the
	 * stacks of options/stacktrace, options/userstacktrace and stacktrace
	 * triggers (ftrace's events have no id file for the lazy loader).
	 */
	live_load_format(st.tep, "ftrace", "print");
	live_load_format(st.tep, "ftrace", "kernel_stack");
	live_load_format(st.tep, "ftrace", "user_stack");
	tfs_tep_load_cmdlines(st.tep);
	stacks = kstack || ustack || (!n && tfs_instance_stacks(st.inst));

	st.out = output_new(st.tep, stdout, json ? OUTPUT_JSON : OUTPUT_TEXT);
	st.rd = reader_new(tep_get_sub_buffer_size(st.tep));
	if (!st.out || !st.rd) {
		tp_error("out of memory");
		ret = TP_FAIL;
		goto out;
	}
	output_set_loader(st.out, load_by_id, &st);
	output_set_comm_loader(st.out, reload_cmdlines, NULL);
	output_set_ns_clock(st.out, clock_in_ns(st.inst));
	if (output_set_stacks(st.out, stacks) < 0) {
		tp_error("out of memory");
		ret = TP_FAIL;
		goto out;
	}
	/* user frames named from the live processes (best effort, see usym.h) */
	if (json && stacks) {
		st.usym = usym_new();
		if (st.usym)
			output_set_user_symbols(st.out, user_symbol, st.usym);
	}
	for (cpu = 0; cpu < st.ncpu; cpu++) {
		if (!st.cpus[cpu])
			continue;
		/*
		 * A private instance counts from zero: its events were enabled
		 * before this point, so a baseline read now would hide what
		 * was lost meanwhile (tests/cli/fault-loss.t under valgrind).
		 */
		if (!n)
			live_cpu_stats(st.inst, cpu, &st.overrun0[cpu], &st.dropped0[cpu]);
		if (reader_add_cpu(st.rd, st.inst, cpu) < 0) {
			/* a CPU that is not there (offline, or beyond the possible ones) */
			if (errno == ENOENT && !cpulist) {
				st.cpus[cpu] = false;
				continue;
			}
			tp_error("cannot open the buffer of cpu %d in %s: %s", cpu,
				 tfs_instance_label(st.inst), strerror(errno));
			ret = TP_FAIL;
			goto out;
		}
	}

	/*
	 * stdio would pick 4 KiB for a pipe: one write(2), and a wake-up of the
	 * reader, per 20 JSON lines.  We flush whenever nothing is ready, so a
	 * bigger buffer only matters while the stream is busy.
	 */
	setvbuf(stdout, stdout_buf, _IOFBF, sizeof(stdout_buf));
	/* from here on, INT/TERM/HUP only set state_stop: we drain and clean up */
	state_set_graceful(true);
	/* tracing is on since the instance was made: COMMAND may run */
	ret = target_release(&tgt);
	if (ret)
		goto out;
	if (duration > 0)
		deadline = now_s() + duration;
	while (!state_stop) {
		int r = reader_next(st.rd, &rec, &lost);

		if (r < 0) {
			tp_error("cannot read the ring buffer: %s", strerror(errno));
			ret = TP_FAIL;
			break;
		}
		if (r > 0) {
			/*
			 * After the last event of --count: only stacks still, of
			 * CPUs whose events after it were not written.
			 */
			if (last_cpu >= 0) {
				bool other = rec.cpu >= 0 && rec.cpu < st.ncpu && rec.cpu != last_cpu;

				if (!output_is_stack(st.out, &rec)) {
					if (!other)
						break;
					skipped[rec.cpu] = true;
					continue;
				}
				if (other && skipped[rec.cpu])
					continue;
			}
			if (lost) {
				lost_seen = true;
				output_lost(st.out, rec.cpu, lost);
			}
			r = output_record(st.out, &rec);
			if (r < 0)
				break;
			if (!r && count && ++seen >= count) {
				if (!stacks)
					break;
				last_cpu = rec.cpu;
				skipped = calloc(st.ncpu, sizeof(*skipped));
				if (!skipped)
					break;
			}
			/* the clock is cheap (vDSO) but not free: look every 1024 records */
			if (deadline && !(seen & 1023) && now_s() >= deadline)
				break;
			/* a busy stream (-a) may never idle: look at the target now and then */
			if (!(++nrec & 1023) && !drain && target_done(&tgt) && target_stop(&st))
				drain = true;
			continue;
		}
		/* a stack being written as the last event was read: one short wait */
		if (last_cpu >= 0) {
			if (end_waited)
				break;
			end_waited = true;
			reader_wait(st.rd, 10);
			continue;
		}
		/* the target is gone: read what it left in the buffers, then stop */
		if (!drain && target_done(&tgt) && target_stop(&st))
			drain = true;
		if (drain) {
			if (reader_eof(st.rd))
				break;
			reader_finish(st.rd);
			continue;
		}
		if (output_idle(st.out) < 0)
			break;
		if (deadline) {
			double left = deadline - now_s();

			if (left <= 0)
				break;
			reader_wait(st.rd, left * 1000 < WAIT_MS ? (int)(left * 1000) + 1 : WAIT_MS);
		} else {
			reader_wait(st.rd, WAIT_MS);
		}
	}
	if (output_flush(st.out) < 0 || ferror(stdout)) {
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
	state_set_graceful(false);
	if (loss_summary(&st, fail_on_loss) || lost_seen) {
		if (fail_on_loss && !ret)
			ret = TP_FAIL;
	}
	exit_line(&st, &tgt);
out:
	free(skipped);
	target_finish(&tgt);
	if (!ret)
		target_report(&tgt);
	target_free(&tgt);
	/* the readers hold the instance's files open: close them before it goes */
	reader_free(st.rd);
	st.rd = NULL;
	stream_free(&st);
	state_rollback();
	return ret;
}
