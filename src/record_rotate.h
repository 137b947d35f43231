/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record_rotate - record's files written by reader threads (percpu.h) that
 * can be cut: a file set whose current file moves to the next one without
 * an event lost or written twice (every CPU switches at a sub-buffer
 * boundary of its own reads), and --switch-output (cut by size, time or
 * SIGUSR1, --max-files kept).  record_flight.c dumps through the same set.
 *
 * A file is written as PATH.part and renamed to PATH once finished, so
 * that no file half written lies under its final name; a file that could
 * not be finished (full disk) is removed and said, the ones before it kept.
 *
 *	struct rot_spec s = { .l = l, .create = fn, .end = fn, ... };
 *	rot_start(&r, &s, "FILE.1");	threads running, pages into FILE.1.part
 *	rot_cut(r, "FILE.2");		FILE.1 finished, pages into FILE.2.part
 *	tracing off
 *	rot_finish(r);			FILE.2 finished with what was left
 */
#ifndef TPCTL_RECORD_ROTATE_H
#define TPCTL_RECORD_ROTATE_H

#include <stdbool.h>

struct live;
struct dat_writer;
struct rot;

struct rot_spec {
	struct live *l;			/* LIVE_PAGES: its trace_pipe_raw readers */
	int ncpus, subbuf, version;	/* version 6: pages spliced; 7: read and compressed */
	unsigned nthreads;		/* 0: one per CPU */
	bool hide;			/* tracing runs meanwhile: the threads' events hidden */
	/* not 0: a thread that takes the current file to this size wakes the session */
	unsigned long long wake_bytes;
	/* a new trace.dat at path with the recording's header; NULL after its error line */
	struct dat_writer *(*create)(void *ctx, const char *path);
	/* the metadata of a file's end (CPUSTAT, saved_cmdlines), before it is finished */
	void (*end)(void *ctx, struct dat_writer *w);
	void *ctx;
};

/* Threads running, moving pages into path (as path.part): TP_OK or the status after its error. */
int rot_start(struct rot **rp, const struct rot_spec *s, const char *path);
/* The current file finished under its name, the pages going into next from now on. */
int rot_cut(struct rot *r, const char *next);
/* Bytes of the current file so far (committed, as stored). */
unsigned long long rot_size(struct rot *r);
/* A thread failed (stop the run: rot_finish() says why). */
bool rot_failed(struct rot *r);
/* Tracing is off: what is left goes into the current file, finished; frees r. */
int rot_finish(struct rot *r);

/* SIGUSR1 counted from now on (a dump or cut each); how many came so far. */
void rot_usr1_catch(void);
unsigned long rot_usr1_count(void);

/* "BASE.N", or NULL after the error (out of memory); caller frees. */
char *rot_name(const char *base, unsigned long n);

/* --switch-output SIZE|DURATION [--max-files N]: bytes or seconds set */
struct rot_switch {
	unsigned long long bytes;
	double seconds;
	unsigned long long max_files;
};
struct tp_opt;
int rot_switch_opt(const struct tp_opt *o, const char *arg);
#define ROT_OPTS(sw)								\
	OPT_CALLBACK(0, "switch-output", (sw), "SIZE|DURATION", rot_switch_opt,	\
		     "cut the recording into FILE.1, FILE.2, ... at this size (100M)\n" \
		     "or every DURATION (10s), and on SIGUSR1"),			\
	OPT_UINT(0, "max-files", &(sw)->max_files, "N", 1, 0,			\
		 "with --switch-output: keep the newest N files, remove the older")

struct rotate_run {
	const char *base;		/* FILE: FILE.1, FILE.2, ... */
	unsigned long long bytes;	/* cut at this size (0: not by size) */
	double seconds;			/* cut every this many seconds (0: not by time) */
	unsigned long long max_files;	/* the oldest beyond this removed (0: all kept) */
	double duration;		/* --duration (0: none) */
};
/* record --switch-output: until the target's end, --duration or a signal. */
int rotate_record(const struct rot_spec *s, const struct rotate_run *run);

#endif
