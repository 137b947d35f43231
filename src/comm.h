/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * comm - task names tpctl knows better than the kernel's saved_cmdlines.
 *
 * The kernel saves a task's name in saved_cmdlines only when the task is
 * first switched out after it traced an event, and a pid's slot may still
 * hold the name of an older task of the same pid: a short command that
 * tpctl runs is often "<...>" (or another task's name) there.  tpctl knows
 * the name of the COMMAND it started (target.c notes it when it has
 * exec'd), and a live task's name is in /proc/PID/comm.  The output layer
 * (JSON) and the aggregations ask here first; the kernel-identical text
 * keeps what saved_cmdlines says.
 */
#ifndef TPCTL_COMM_H
#define TPCTL_COMM_H

#include <stdbool.h>
#include <stddef.h>

#define COMM_MAX 15	/* the kernel's TASK_COMM_LEN - 1 */

/* pid is a process tpctl started; it exec'd path (the name the kernel gives it from there). */
void comm_note_exec(int pid, const char *path);
/* The name noted for pid; NULL: none. */
const char *comm_known(int pid);
/*
 * A live task's name (/proc/PID/stat) into buf (at least COMM_MAX + 1
 * bytes); the length, 0 when it is gone or (ts_ns, the record's stamp in a
 * clock since boot; 0: no check) the pid now belongs to a task that began
 * after the record.  *start (when not NULL): when the task began, in clock
 * ticks since boot (0 with a length of 0): a pid and its start name one task.
 */
size_t comm_proc(int pid, unsigned long long ts_ns, char *buf, size_t size,
		 unsigned long long *start);

/*
 * saved_cmdlines as read the last two times, each into a handle of its own
 * made for it: a long-running command reads it again and again, and
 * libtraceevent's handle forgets no pid it was ever told of (a pid_max of
 * 4194304 would be hundreds of MB over weeks of short-lived processes).
 * The time before is kept too, so that a name read once is not lost at
 * the next read when the kernel has dropped it meanwhile.
 */
struct tep_handle;
struct comm_saved {
	struct tep_handle *gen[2];	/* the last read, the one before */
};
/* Read again through load (a session's loader of saved_cmdlines); 0, or -1: none read. */
int comm_saved_reload(struct comm_saved *s, int (*load)(struct tep_handle *tep, void *ctx),
		      void *ctx);
/* pid's name in the last two reads; NULL: in neither. */
const char *comm_saved_find(const struct comm_saved *s, int pid);
void comm_saved_free(struct comm_saved *s);

/*
 * The events whose records rename a task, in one place for every reader that
 * follows names at the event's time (live.c enables them, agg_task.c and
 * func_agg.c read them): the field with the task's pid (absent: the task that
 * traced it) and the field with its new name (path: an exec's file, whose
 * basename the kernel takes).
 */
struct comm_rename_event {
	const char *sys, *name, *pid, *comm;
	bool path;
};
#define COMM_RENAME_EVENTS 3
extern const struct comm_rename_event comm_rename_events[COMM_RENAME_EVENTS];

#endif
