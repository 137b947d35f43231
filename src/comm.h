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
#include <stdint.h>
#include <string.h>

#include "decode.h"

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
 * saved_cmdlines as read the last two times, each into a table of its own
 * made for it: a long-running command reads it again and again, and
 * libtraceevent's handle forgets no pid it was ever told of (a pid_max of
 * 4194304 would be hundreds of MB over weeks of short-lived processes).
 * The time before is kept too, so that a name read once is not lost at
 * the next read when the kernel has dropped it meanwhile.  A table is
 * tpctl's own (pid to name, hashed): a stream reads saved_cmdlines again
 * while a task of its records is unknown, and a libtraceevent handle of
 * 6,500 names cost some 10 M instructions to fill and sort each time.
 */
/* One line of saved_cmdlines: a task's pid and name (len bytes, no NUL). */
typedef void (*comm_line_fn)(void *ctx, int pid, const char *name, size_t len);
/* A session's loader: each line of the kernel's saved_cmdlines now to fn; 0, or -1. */
typedef int (*comm_load_fn)(void *ctx, comm_line_fn fn, void *fctx);
struct comm_table;
struct comm_saved {
	struct comm_table *gen[2];	/* the last read, the one before */
};
/* Read again through load; 0, or -1: none read (the tables as they were). */
int comm_saved_reload(struct comm_saved *s, comm_load_fn load, void *ctx);
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

/*
 * Task names learned from the records as they are written (JSON): what a
 * task was called at the time of its events, where saved_cmdlines may say
 * "<...>", an older task's name of the same pid, or the name it has now.
 * The per-record path (comm_learn_names()) is inline: most records teach
 * nothing, or the same 16 bytes as before.
 */
#define COMM_LEARNED 4096	/* a power of two; a colliding pid forgets the other */

struct comm_task {
	int pid;
	bool has_raw;		/* raw holds what taught name (cleared when name changes) */
	char name[COMM_MAX + 1];
	char raw[16];		/* a char[16] comm field's bytes that taught name, as they were */
};

/* Which fields of an event name a task: comm and pid pairs, an exec's file. */
#define COMM_PAIRS 4

struct comm_plan {
	bool built;
	/*
	 * every pair a char[16] comm and a 4-byte pid, no exec file: a record
	 * that holds all the fields (de->fields_end) is read at the offsets
	 */
	bool raw;
	signed char npair;
	short comm[COMM_PAIRS], pid[COMM_PAIRS];	/* field indexes; pid -1: common_pid */
	unsigned short coff[COMM_PAIRS], poff[COMM_PAIRS];	/* raw: their offsets */
	short exec_file;				/* sched_process_exec's filename, or -1 */
};

struct comm_learn {
	struct comm_task *tasks;	/* COMM_LEARNED entries, on first use */
	unsigned gen;			/* bumped when a learned name changes */
	struct comm_plan *plans;	/* by event id */
	int nplans;
	const struct dec_event *nonames;	/* the last event seen that teaches none */
	/* a task's name changed: what was made with the old one goes (pid 0: none) */
	void (*forget)(void *ctx, int pid);
	void *ctx;
};

/* A name a record teaches: pid's, the len bytes at name (in the record). */
#define COMM_NAMES 5
struct comm_name {
	int pid;
	const char *name;
	size_t len;
};

/* pid was called name (len bytes, cut to COMM_MAX) at the record being written. */
void comm_learn(struct comm_learn *cl, int pid, const char *name, size_t len);
/* de's plan, made at its first record; NULL for an event id out of range. */
const struct comm_plan *comm_plan_build(struct comm_learn *cl, const struct dec_event *de);
/* The names a record of de teaches (pl: de's plan), at most COMM_NAMES, in the order learned. */
int comm_names_of(const struct comm_plan *pl, const struct dec_event *de, const void *data,
		  int size, struct comm_name *v);
void comm_learn_free(struct comm_learn *cl);

static inline struct comm_task *comm_learned(const struct comm_learn *cl, int pid)
{
	struct comm_task *l;

	if (!cl->tasks || pid <= 0)
		return NULL;
	l = &cl->tasks[(unsigned)pid & (COMM_LEARNED - 1)];
	return l->pid == pid ? l : NULL;
}

/* The n bytes at a and b are the same (n is a task name's length: short) */
static inline bool comm_same_bytes(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	for (; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * de's name plan, or NULL where its records teach no names: most records
 * are of the last event that teaches none, which costs one comparison.
 */
static inline const struct comm_plan *comm_teaching(struct comm_learn *cl,
						    const struct dec_event *de)
{
	const struct comm_plan *pl;

	if (de == cl->nonames)
		return NULL;
	if (de->id >= 0 && de->id < cl->nplans && cl->plans[de->id].built)
		pl = &cl->plans[de->id];
	else
		pl = comm_plan_build(cl, de);
	if (pl && !pl->npair && pl->exec_file < 0) {
		cl->nonames = de;
		return NULL;
	}
	return pl;
}

/* What a record of de says of task names, learned. */
static inline void comm_learn_names(struct comm_learn *cl, const struct dec_event *de,
				    const void *data, int size)
{
	const struct comm_plan *pl = comm_teaching(cl, de);
	struct comm_name v[COMM_NAMES];
	int i, n;

	if (!pl)
		return;
	/*
	 * a task's name that a record teaches again (a switch names both tasks,
	 * and the same few take turns) is the same 16 bytes as before
	 */
	if (pl->raw && size >= de->fields_end) {
		for (i = 0; i < pl->npair; i++) {
			const char *c = (const char *)data + pl->coff[i];
			struct comm_task *l;
			int32_t pid;

			memcpy(&pid, (const char *)data + pl->poff[i], 4);
			/* (the idle task's "swapper/N" is no name to learn) */
			if (pid <= 0)
				continue;
			l = comm_learned(cl, pid);
			if (l && l->has_raw && comm_same_bytes(l->raw, c, 16))
				continue;
			comm_learn(cl, pid, c, decode_strnlen(c, 16));
			if ((l = comm_learned(cl, pid))) {
				memcpy(l->raw, c, 16);
				l->has_raw = true;
			}
		}
		return;
	}
	n = comm_names_of(pl, de, data, size, v);
	for (i = 0; i < n; i++)
		comm_learn(cl, v[i].pid, v[i].name, v[i].len);
}

#endif
