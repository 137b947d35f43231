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

#endif
