/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oncpu - who runs where by the records, and the switches in that the
 * kernel did not record, inferred: the one inference of latency sched
 * (schedlat.c) and latency offcpu (agg_join.c).
 *
 * Kernels can leave switches out: this 6.18 host's CPU 1 records no switch
 * out of the idle task, so a task woken there runs with no switch in
 * recorded.  Every record proves that its task (common_pid) runs on its CPU
 * at its time: a record of a task whose last recorded switch was out (a
 * sys_enter, its own next switch out, its exit) shows the switch in that
 * is missing.  It is placed at the task's wakeup (an idle CPU runs the task
 * it woke right away), or later when another task was current on that CPU
 * after the wakeup (the CPU's previous record then), or, with no wakeup
 * seen (a task switched out runnable), at the CPU's previous record when
 * that came after the switch out, else at the record itself: the first
 * sign of the task running.
 *
 *	struct oncpu o = { 0 };
 *	per record, in timestamp order:
 *	  if (wakeup)  oncpu_wakeup(&o, woken_pid, ts);
 *	  if (oncpu_record(&o, cpu, ts, common_pid, &at)) { ...switch in at 'at'...;
 *							  oncpu_said(&o, cpu); }
 *	  if (switch)  oncpu_switch(&o, cpu, ts, prev_pid, next_pid);
 *	oncpu_free(&o);
 *
 * No tracefs, no formats: pids, CPUs and timestamps only.
 */
#ifndef TPCTL_ONCPU_H
#define TPCTL_ONCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct oncpu_cpu {
	bool known;			/* cur is known (a record seen, none lost since) */
	int cur;			/* the task current there after the last record */
	uint64_t last_ts;		/* the last record's timestamp */
	uint64_t inferred;		/* switches in inferred here that the caller used */
};

struct oncpu_task;

/* Zeroed: empty and ready. */
struct oncpu {
	struct oncpu_cpu *cpu;
	int ncpu;
	struct oncpu_task *t;		/* open addressing, a power of two in size */
	size_t n, used;
};

void oncpu_free(struct oncpu *o);

/* pid was woken at ts (sched_wakeup, sched_wakeup_new): off a CPU until it runs. */
void oncpu_wakeup(struct oncpu *o, int pid, uint64_t ts);

/*
 * A record on cpu at ts while pid was current there (its common_pid), taken
 * before what it says (a switch: before oncpu_switch()).  true when pid's
 * last recorded switch was out, with no switch in since: *at is when the
 * switch in the kernel did not record is inferred.
 */
bool oncpu_record(struct oncpu *o, int cpu, uint64_t ts, int pid, uint64_t *at);

/* The caller counted the switch in that oncpu_record() inferred on cpu. */
void oncpu_said(struct oncpu *o, int cpu);

/* A switch recorded on cpu at ts: prev out, next in. */
void oncpu_switch(struct oncpu *o, int cpu, uint64_t ts, int prev, int next);

/* Events were lost on cpu: who is current there is not known until its next record. */
void oncpu_lost(struct oncpu *o, int cpu);

/* What is kept of pid goes (the task is gone). */
void oncpu_forget(struct oncpu *o, int pid);

/* The switches in inferred and said, all CPUs; cpus: "CPU 1: 3, CPU 2: 1" (size bytes). */
unsigned long long oncpu_inferred(const struct oncpu *o, char *cpus, size_t size);

#endif
