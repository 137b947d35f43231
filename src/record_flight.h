/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record_flight - record --flight: a flight recorder.  The private
 * instance's ring buffers in overwrite mode are the window, read by no one
 * while it waits (tpctl sleeps; the kernel keeps the newest events).  What
 * the buffers hold is written as a whole trace.dat (record_rotate.h's file
 * set, one file per dump):
 *
 *   - on SIGUSR1: FILE.1, FILE.2, ..., and it goes on (a signal that comes
 *     during a dump is counted and dumped after it);
 *   - when a --stop-on trigger fires (traceoff in the kernel, at the very
 *     event): FILE, and the run ends (--rearm: FILE.N, and it goes on);
 *   - at the end (INT, TERM, --duration, COMMAND's end): FILE.
 *
 * A dump stops the instance (tracing_on 0), reads each CPU's buffer to its
 * end through the reader threads, writes the file and starts it again:
 * the events of that window (the dump's own time, milliseconds for a few
 * MiB) are not recorded; every event before it is in the file or was
 * overwritten (counted lost), every one after it is in the next.
 */
#ifndef TPCTL_RECORD_FLIGHT_H
#define TPCTL_RECORD_FLIGHT_H

#include <stdbool.h>

struct live;
struct rot_spec;
struct tp_opt;

#define FLIGHT_STOPS_MAX 16

struct flight_opts {
	bool on, rearm;
	char *stop[FLIGHT_STOPS_MAX];	/* --stop-on 'EVENT [if FILTER]' */
	int nstop;
};

int flight_stop_opt(const struct tp_opt *o, const char *arg);
/*
 * A --stop-on argument, 'EVENT' or 'EVENT if FILTER', split (no tracefs: the
 * event's presence and the filter are checked when the trigger is armed):
 * *event is "system:event" with names tracefs takes (the caller frees it),
 * *filter points into arg (NULL: none; never empty, at most FLIGHT_FILTER_MAX
 * bytes).  TP_OK; TP_USAGE with *why saying what the argument should be;
 * or tp_oom()'s status.  *event is NULL but on TP_OK.
 */
#define FLIGHT_TRIGGER "traceoff if "
#define FLIGHT_FILTER_MAX 4083		/* 4095 less FLIGHT_TRIGGER */
int flight_stop_split(const char *arg, char **event, const char **filter, const char **why);
#define FLIGHT_OPTS(f)								\
	OPT_BOOL(0, "flight", &(f)->on,						\
		 "a flight recorder: the newest events kept in the buffers,\n"	\
		 "written to FILE.1, FILE.2, ... on SIGUSR1, to FILE at the end"), \
	OPT_CALLBACK(0, "stop-on", (f), "EVENT", flight_stop_opt,		\
		     "with --flight: 'EVENT [if FILTER]', the kernel stops the buffers\n" \
		     "at this event (a traceoff trigger), FILE is written and record\n" \
		     "ends (repeatable)"),						\
	OPT_BOOL(0, "rearm", &(f)->rearm,					\
		 "with --stop-on: write FILE.N and arm the trigger again")

/*
 * Once the session is open, before it starts: overwrite mode, and the
 * --stop-on triggers (journaled: rollback removes them).  TP_OK, or the
 * status after one error line (TP_USAGE: an event not recorded, a filter
 * refused).
 */
int flight_arm(struct live *l, const struct flight_opts *f);
/* The recorder, from live_start() to the last file: TP_OK or the status. */
int flight_record(const struct rot_spec *s, const char *base, const struct flight_opts *f,
		  double duration);

#endif
