// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * agg_task - the names of the tasks the rows count: pid -> its name when
 * first met (/proc), saved_cmdlines at print time, and the names the tasks
 * gone are folded under (agg_gone.c).
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "agg_local.h"

/*
 * pid -> the task's name when it was first counted: what the kernel's
 * execname key saw (kernel engine), or /proc/PID/comm when the user engine
 * first meets the pid (saved_cmdlines, read when a table is printed, holds
 * only the last names it saw, and loses short-lived tasks on a busy system).
 * An empty name: not known, saved_cmdlines is asked then.
 */
void agg_pcomm_set(struct agg *a, int pid, const char *comm, size_t len,
		      unsigned long long start)
{
	struct pcomm *p;

	if (a->npcused * 2 >= a->npc) {
		/* grow; past 64K tasks start over: the names are a preference */
		size_t n = a->npc && a->npc < 65536 ? a->npc * 2 : 1024, i;
		struct pcomm *np = calloc(n, sizeof(*np));

		if (!np)
			return;
		a->npcused = 0;
		for (i = 0; n > a->npc && i < a->npc; i++) {
			if (!a->pc[i].used)
				continue;
			*pcomm_slot(np, n, a->pc[i].pid) = a->pc[i];
			a->npcused++;
		}
		free(a->pc);
		a->pc = np;
		a->npc = n;
	}
	p = pcomm_slot(a->pc, a->npc, pid);
	if (!p->used)
		a->npcused++;
	if (len > TASK_COMM)
		len = TASK_COMM;
	p->used = true;
	p->pid = pid;
	p->start = start;
	memcpy(p->comm, comm, len);
	p->comm[len] = '\0';
}

/* User engine: the name of a pid met for the first time, while it (likely) still runs. */
void agg_pcomm_learn(struct agg *a, int pid, unsigned long long ts)
{
	char buf[COMM_MAX + 2];
	unsigned long long start;
	size_t len = comm_proc(pid, ts, buf, sizeof(buf), &start);

	agg_pcomm_set(a, pid, buf, len, start);
}


const char *agg_comm_of(struct agg *a, int pid, bool *reloaded)
{
	const struct pcomm *p;
	const char *c, *n;

	/* the tasks of this name that are gone (agg_tasks_reap) */
	if (pid < 0)
		return (size_t)-1 - pid < a->ndn ? a->dn[-1 - pid].comm : "<...>";
	p = pcomm_find(a, pid);
	/* the COMMAND tpctl ran: its name even when it was gone before it was met */
	c = comm_known(pid);

	if (!c && p && p->comm[0])
		c = p->comm;

	if (c)
		return c;
	/*
	 * Gone before it was met (p with an empty name), or unknown: the
	 * kernel's cmdlines as they are now (once a table), not as they were
	 * when tpctl started.
	 */
	/* read again into handles of their own (comm.h: the session's forgets no pid) */
	c = comm_saved_find(&a->names, pid);
	if (!c)
		c = tep_data_comm_from_pid(a->tep, pid);
	if ((p || !strcmp(c, "<...>")) && !*reloaded && a->comm_fn) {
		*reloaded = true;
		if (!comm_saved_reload(&a->names, a->comm_fn, a->comm_ctx) &&
		    (n = comm_saved_find(&a->names, pid)))
			c = n;
	}
	return c;
}

/* The pid of the tasks gone under a name, made when new; 0: out of memory. */
int32_t agg_dname_pid(struct agg *a, const char *comm)
{
	size_t len = strnlen(comm, TASK_COMM), i, j, n;
	uint64_t h = hash_bytes((const unsigned char *)comm, len);

	if (a->ndn * 2 >= a->ndnslot) {
		uint32_t *ns;

		n = a->ndnslot ? a->ndnslot * 2 : 64;
		ns = calloc(n, sizeof(*ns));
		if (!ns)
			return 0;
		for (j = 0; j < a->ndn; j++) {
			const char *c = a->dn[j].comm;

			for (i = hash_bytes((const unsigned char *)c, strlen(c)) & (n - 1); ns[i];
			     i = (i + 1) & (n - 1))
				;
			ns[i] = j + 1;
		}
		free(a->dnslot);
		a->dnslot = ns;
		a->ndnslot = n;
	}
	for (i = h & (a->ndnslot - 1); a->dnslot[i]; i = (i + 1) & (a->ndnslot - 1)) {
		const char *c = a->dn[a->dnslot[i] - 1].comm;

		if (strlen(c) == len && !memcmp(c, comm, len))
			return -(int32_t)a->dnslot[i];
	}
	if (a->ndn == a->adn) {
		struct dname *nd = realloc(a->dn, (a->adn * 2 + 16) * sizeof(*nd));

		if (!nd)
			return 0;
		a->dn = nd;
		a->adn = a->adn * 2 + 16;
	}
	memcpy(a->dn[a->ndn].comm, comm, len);
	a->dn[a->ndn].comm[len] = '\0';
	a->dnslot[i] = ++a->ndn;
	return -(int32_t)a->ndn;
}

/* Is the task met as p still there (the idle task always is)? */
bool agg_task_alive(const struct pcomm *p)
{
	char buf[COMM_MAX + 2];
	unsigned long long start;

	if (p->pid <= 0)
		return true;
	return p->start && comm_proc(p->pid, 0, buf, sizeof(buf), &start) && start == p->start;
}

