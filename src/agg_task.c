// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * agg_task - the names of the tasks the rows count: pid -> its name at the
 * event's time (the records that name tasks, else /proc when first met),
 * saved_cmdlines at print time, and the names the tasks gone are folded
 * under (agg_gone.c).
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "agg_local.h"

/*
 * pid -> the task's name now, as far as the records read say: set when the
 * pid is first met (what the kernel's execname key saw, kernel engine; the
 * COMMAND's exec'd name, or /proc/PID/comm, user engine), changed by the
 * records that rename it (agg_nameev_record).  saved_cmdlines, read when a
 * table is printed, holds only the last names it saw and loses short-lived
 * tasks on a busy system.  An empty name: not known, saved_cmdlines is
 * asked then.
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
	p->key = 0;
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
	/*
	 * The COMMAND tpctl ran: the name of its exec (its first records come
	 * before any that renames it; /proc, read later, may have the new name)
	 */
	const char *known = comm_known(pid);

	if (known)
		agg_pcomm_set(a, pid, known, strlen(known), start);
	else
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
		/*
		 * a reload frees the older of the two tables, which c may point
		 * into: after one, c is looked up again (the session's tep stays)
		 */
		if (!comm_saved_reload(&a->names, a->comm_fn, a->comm_ctx)) {
			n = comm_saved_find(&a->names, pid);
			c = n ? n : tep_data_comm_from_pid(a->tep, pid);
		}
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

/*
 * Names at the event's time.  A task's records are counted under the name
 * it had when it traced them: a shell's child that calls getpid and then
 * execs gen files that getpid under the shell's name, gen's own calls under
 * gen.  /proc, read when the records are (later), knows only the last name;
 * the records that name a task say when it changed:
 *   sched_process_fork   the child, named as its parent is
 *   sched_process_exec   the kernel's new name: the file's basename
 *   task_rename          prctl(PR_SET_NAME), /proc/PID/comm written
 * The live session enables them in its instance without counting them
 * (LIVE_NAMES); they are counted only where they are the command's EVENTs.
 * Each per-CPU reader (--threads) learns from its own CPU's records only:
 * a child's records before its exec on another CPU than its fork may take
 * /proc's (later) name.
 */
void agg_nameev_find(struct agg *a)
{
	size_t i;

	a->nnameev = 0;
	for (i = 0; i < NAMEEV_MAX; i++) {
		struct tep_event *ev = tep_find_event_by_name(a->tep, comm_rename_events[i].sys,
							      comm_rename_events[i].name);
		const struct dec_event *de = ev ? decoder_event(a->dec, ev->id) : NULL;
		struct nameev *n = &a->nameev[a->nnameev];

		if (!de)
			continue;
		n->id = ev->id;
		n->pid = agg_field_find(de, comm_rename_events[i].pid);
		n->comm = agg_field_find(de, comm_rename_events[i].comm);
		n->path = comm_rename_events[i].path;
		n->fork = !strcmp(comm_rename_events[i].name, "sched_process_fork");
		if (!n->comm || n->comm->kind != DK_STR || (n->pid && n->pid->kind != DK_INT))
			continue;
		a->nnameev++;
	}
}

bool agg_nameev_record(struct agg *a, int id, const struct tep_record *rec)
{
	const struct nameev *n = NULL;
	const char *p, *b;
	unsigned long long start = 0;
	char buf[COMM_MAX + 2];
	struct pcomm *pc;
	uint64_t v;
	size_t len;
	int i, pid;

	for (i = 0; i < a->nnameev && !n; i++)
		if (a->nameev[i].id == id)
			n = &a->nameev[i];
	if (!n)
		return false;
	pid = decode_pid(rec->data);
	if (n->pid) {
		if (!decode_int(n->pid, rec->data, rec->size, &v))
			return true;
		pid = (int)v;
	}
	/* a child of the target's tasks is one of them (agg_own) */
	if (n->fork && a->own_follow && agg_own_has(a, decode_pid(rec->data)))
		agg_own_add(a, pid);
	if (pid <= 0 || !decode_span(n->comm, rec->data, rec->size, &p, &len) || !len)
		return true;
	if (n->path && (b = memrchr(p, '/', len))) {
		len -= b + 1 - p;
		p = b + 1;
	}
	if (len > COMM_MAX)
		len = COMM_MAX;
	pc = pcomm_get(a, pid);
	if (pc) {
		if (strlen(pc->comm) != len || memcmp(pc->comm, p, len)) {
			memcpy(pc->comm, p, len);
			pc->comm[len] = '\0';
			pc->key = 0;
		}
		return true;
	}
	/* live: when the task began, so that it is known to be gone later */
	if (a->comm_fn)
		comm_proc(pid, rec->ts, buf, sizeof(buf), &start);
	agg_pcomm_set(a, pid, p, len, start);
	return true;
}

int32_t agg_comm_key(struct agg *a, int pid)
{
	struct pcomm *p = pcomm_get(a, pid);

	if (pid <= 0 || !p || !p->comm[0])
		return pid;
	if (!p->key)
		p->key = agg_dname_pid(a, p->comm);
	return p->key ? p->key : pid;
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

/* The target's tasks (agg_own): an open-addressed set of pids, 0 free. */
static size_t own_slot(const int *set, size_t n, int pid)
{
	size_t i;

	for (i = ((unsigned)pid * 2654435761u) & (n - 1); set[i] && set[i] != pid; i = (i + 1) & (n - 1))
		;
	return i;
}

bool agg_own_has(const struct agg *a, int pid)
{
	return !a->own_on || (a->aown && a->own[own_slot(a->own, a->aown, pid)] == pid);
}

int agg_own_add(struct agg *a, int pid)
{
	size_t i;

	if (pid <= 0)
		return 0;
	if ((a->nown + 1) * 2 > a->aown) {
		size_t n = a->aown ? a->aown * 2 : 64;
		int *set = calloc(n, sizeof(*set));

		if (!set)
			return -1;
		for (i = 0; i < a->aown; i++)
			if (a->own[i])
				set[own_slot(set, n, a->own[i])] = a->own[i];
		free(a->own);
		a->own = set;
		a->aown = n;
	}
	i = own_slot(a->own, a->aown, pid);
	if (!a->own[i]) {
		a->own[i] = pid;
		a->nown++;
	}
	return 0;
}

int agg_own(struct agg *a, const int *pids, size_t n, bool follow)
{
	size_t i;

	a->own_on = true;
	a->own_follow = follow;
	for (i = 0; i < n; i++)
		if (agg_own_add(a, pids[i]) < 0)
			return -1;
	return 0;
}
