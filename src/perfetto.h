/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfetto - decoded records as a Perfetto trace: a stream of TracePacket
 * messages (protobuf wire format, written by a small encoder of our own)
 * that ui.perfetto.dev and Perfetto's trace_processor open.
 *
 * What goes in, with the field numbers of Perfetto's public .proto files
 * (protos/perfetto/trace/...):
 *  - a SystemInfo packet with the recording host's utsname (Perfetto reads
 *    sched_switch's prev_state by kernel version);
 *  - FtraceEventBundle packets per CPU, each event with its timestamp, pid
 *    and common flags; a bundle after lost events says so (lost_events);
 *  - the events Perfetto models as typed messages: sched_switch,
 *    sched_waking, sched_wakeup, sched_wakeup_new, sched_process_fork, exec,
 *    exit and free, task_newtask, task_rename and ftrace's print (the
 *    trace_marker; atrace "B|pid|name", "E|pid", "C|pid|name|value" lines
 *    become slices and counters).  A kernel field the message has no field
 *    for is left out (sched_process_exit's group_dead);
 *  - every other event as a GenericFtraceEvent: its name and every field,
 *    integers as int or uint (the format's signedness), strings as strings,
 *    arrays, bitmasks and other bytes as the text report --json writes for
 *    them ("[1,2,3]"); a kernel_stack or user_stack record's frames as its
 *    "caller" field, the array of their addresses;
 *  - a ProcessTree packet naming the tasks of the file's saved cmdlines.
 *    The file does not say which tasks are threads of one process, so each
 *    is a process of its own, named by its comm.
 *
 * Timestamps stay the trace clock's: the bundles name no clock, which
 * Perfetto takes as its default one; alone in the trace, they need no
 * conversion.
 */
#ifndef TPCTL_PERFETTO_H
#define TPCTL_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "decode.h"

struct perfetto;
struct tep_handle;
struct tep_record;

struct perfetto_info {
	const char *uname;		/* the trace.dat UNAME option, or NULL */
	const char *cmdlines;		/* saved_cmdlines text ("pid comm" lines), or NULL */
	size_t cmdlines_len;
};

/* A writer of records decoded with tep to f (binary). NULL when out of memory. */
struct perfetto *perfetto_new(struct tep_handle *tep, FILE *f, const struct perfetto_info *info);
/* Called with an event id tep does not know yet (lazy loading, as output_set_loader). */
void perfetto_set_loader(struct perfetto *p, decode_loader_fn fn, void *ctx);
/* One record (rec->cpu, ts, data and size set). 0, or -1 when f failed. */
int perfetto_record(struct perfetto *p, struct tep_record *rec);
/* Is rec a kernel_stack or user_stack record (for report's event selection)? */
bool perfetto_is_stack(struct perfetto *p, const struct tep_record *rec);
/* Events lost on cpu before its next record. */
int perfetto_lost(struct perfetto *p, int cpu);
/* Write what is held back (bundles, process names) and flush f. 0 or -1 (errno). */
int perfetto_finish(struct perfetto *p);
void perfetto_free(struct perfetto *p);

#endif
