/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live - what the commands that trace the running kernel share (stream,
 * count, hist): a tep_handle for this kernel, formats loaded on demand, the
 * events resolved and checked before anything is created, the private
 * instance tpctl-<pid> set up with them, and the per-CPU loss counters.
 */
#ifndef TPCTL_LIVE_H
#define TPCTL_LIVE_H

#include <stdbool.h>

struct tep_handle;
struct tracefs_instance;
struct tfs_event_list;
struct target;

/* A tep_handle with the kernel's header_page; prints the error and returns NULL on failure. */
struct tep_handle *live_tep(bool plugins);

/* Parse events/<sys>/<name>/format into tep unless it is there; -1 when it cannot be had. */
int live_load_format(struct tep_handle *tep, const char *sys, const char *name);

/*
 * Resolve the EVENT patterns, load their formats and check filter (NULL:
 * none) against each of them: the errors a user can make, found before
 * anything is created.  Prints the error; TP_USAGE or TP_FAIL.
 */
int live_resolve_events(struct tep_handle *tep, char **pats, int npats, const char *filter,
			struct tfs_event_list *evs);

enum {
	LIVE_PROMPT = 1 << 0,	/* wake a reader on every record, not at half a buffer */
	LIVE_KSTACK = 1 << 1,	/* the kernel stack of every event (tfs_event_stacktrace) */
	LIVE_USTACK = 1 << 2,	/* the user stack of every event (tfs_user_stacktrace) */
};

/*
 * Create the private instance and set it up: the target's processes (its
 * COMMAND forked, the pid lists and tpctl's own pid left out: target.h),
 * buffer_kb (NULL: the kernel's default), flags, then filter (NULL: none)
 * and enable for every event.  The caller releases the target once it reads.
 */
int live_setup_instance(struct tracefs_instance **inst, struct tep_handle *tep,
			const struct tfs_event_list *evs, const char *filter,
			const char *buffer_kb, unsigned flags, struct target *tgt);

/* Overrun and dropped events of one CPU of inst so far (per_cpu/cpuN/stats). */
void live_cpu_stats(struct tracefs_instance *inst, int cpu, unsigned long long *overrun,
		    unsigned long long *dropped);

#endif
