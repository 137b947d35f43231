// SPDX-License-Identifier: GPL-2.0-or-later
/* comm - task names tpctl knows better than saved_cmdlines (see comm.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"
#include "util.h"

/* tpctl starts one COMMAND per run (serve: one per metric at most) */
#define KNOWN_MAX 16

static struct {
	int pid;
	char name[COMM_MAX + 1];
} known[KNOWN_MAX];
static unsigned nknown;

void comm_note_exec(int pid, const char *path)
{
	const char *base = strrchr(path, '/');
	unsigned i = nknown < KNOWN_MAX ? nknown++ : (nknown++ % KNOWN_MAX);

	/*
	 * The kernel names a task after exec by the basename of the file
	 * given to execve (a #! script's own name, not its interpreter's),
	 * cut to 15 bytes.  execvp()'s fallback for a script without #!
	 * runs /bin/sh, which this cannot see (it would say "sh").
	 */
	base = base ? base + 1 : path;
	known[i].pid = pid;
	snprintf(known[i].name, sizeof(known[i].name), "%s", base);
}

const char *comm_known(int pid)
{
	unsigned i, n = nknown < KNOWN_MAX ? nknown : KNOWN_MAX;

	/* the latest note of a pid wins */
	for (i = n; i-- > 0;)
		if (known[i].pid == pid && pid > 0)
			return known[i].name;
	return NULL;
}

size_t comm_proc(int pid, unsigned long long ts_ns, char *buf, size_t size,
		 unsigned long long *startp)
{
	char path[40], stat[512], *name, *end, *p;
	unsigned long long start = 0;
	ssize_t n = -1;
	size_t len;
	int fd, i;

	buf[0] = '\0';
	if (startp)
		*startp = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = pid > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		n = read(fd, stat, sizeof(stat) - 1);
		close(fd);
	}
	if (n <= 0)
		return 0;
	stat[n] = '\0';
	/* "pid (comm) state ppid ...": one read gives the name and when the task began */
	name = strchr(stat, '(');
	end = strrchr(stat, ')');
	if (!name || !end || end < name)
		return 0;
	/* starttime is the 22nd field: the 20th after the state */
	for (i = 0, p = end + 2; p && i < 19; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		start = strtoull(p, NULL, 10);
	/*
	 * A task that began after the record is not its task: the pid was
	 * used again (pid_max is 32768 by default).  The start counts clock
	 * ticks of the boot-time clock, the record's stamp the trace clock
	 * (local: since boot as well); 100 ms covers the tick and the drift.
	 */
	if (ts_ns && start > 0 &&
	    start * (TP_NS_PER_S / sysconf(_SC_CLK_TCK)) > ts_ns + 100000000ULL)
		return 0;
	len = end - name - 1;
	if (len > size - 1)
		len = size - 1;
	memcpy(buf, name + 1, len);
	buf[len] = '\0';
	if (startp)
		*startp = start;
	return len;
}

/* One read of saved_cmdlines: open addressing on the pid, a pid of 0 an empty slot. */
struct comm_table {
	size_t mask;			/* slots - 1, slots a power of two */
	size_t n;
	struct comm_slot {
		int pid;
		char name[COMM_MAX + 1];
	} *slot;
};

static size_t slot_of(const struct comm_table *t, int pid)
{
	return ((uint32_t)pid * 2654435761u) & t->mask;
}

static void table_free(struct comm_table *t)
{
	if (t)
		free(t->slot);
	free(t);
}

/* the slots doubled, every name moved: false out of memory (t as it was) */
static bool table_grow(struct comm_table *t)
{
	struct comm_table g = { .mask = t->mask ? t->mask * 2 + 1 : 1023 };
	size_t i, j;

	g.slot = calloc(g.mask + 1, sizeof(*g.slot));
	if (!g.slot)
		return false;
	for (i = 0; t->slot && i <= t->mask; i++) {
		if (!t->slot[i].pid)
			continue;
		for (j = slot_of(&g, t->slot[i].pid); g.slot[j].pid; j = (j + 1) & g.mask)
			;
		g.slot[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = g.slot;
	t->mask = g.mask;
	return true;
}

/* comm_line_fn: a line into the table; a pid met before keeps its first name */
static void table_add(void *ctx, int pid, const char *name, size_t len)
{
	struct comm_table *t = ctx;
	size_t i;

	if (pid <= 0 || (2 * (t->n + 1) > t->mask + 1 && !table_grow(t)))
		return;
	for (i = slot_of(t, pid); t->slot[i].pid; i = (i + 1) & t->mask)
		if (t->slot[i].pid == pid)
			return;
	if (len > COMM_MAX)
		len = COMM_MAX;
	t->slot[i].pid = pid;
	memcpy(t->slot[i].name, name, len);
	t->slot[i].name[len] = '\0';
	t->n++;
}

static const char *table_find(const struct comm_table *t, int pid)
{
	size_t i;

	if (!t || !t->n || pid <= 0)
		return NULL;
	for (i = slot_of(t, pid); t->slot[i].pid; i = (i + 1) & t->mask)
		if (t->slot[i].pid == pid)
			return t->slot[i].name;
	return NULL;
}

int comm_saved_reload(struct comm_saved *s, comm_load_fn load, void *ctx)
{
	struct comm_table *t = calloc(1, sizeof(*t));

	if (!t || !table_grow(t) || load(ctx, table_add, t) < 0) {
		table_free(t);
		return -1;
	}
	table_free(s->gen[1]);
	s->gen[1] = s->gen[0];
	s->gen[0] = t;
	return 0;
}

const char *comm_saved_find(const struct comm_saved *s, int pid)
{
	const char *c;
	int i;

	for (i = 0; i < 2; i++)
		if ((c = table_find(s->gen[i], pid)))
			return c;
	return NULL;
}

void comm_saved_free(struct comm_saved *s)
{
	table_free(s->gen[0]);
	table_free(s->gen[1]);
	s->gen[0] = s->gen[1] = NULL;
}

const struct comm_rename_event comm_rename_events[COMM_RENAME_EVENTS] = {
	{ "sched", "sched_process_fork", "child_pid", "child_comm", false },
	{ "sched", "sched_process_exec", "pid", "filename", true },
	/* task_rename lost its pid field in later kernels: then the task that traced it */
	{ "task", "task_rename", "pid", "newcomm", false },
};

static void forget(struct comm_learn *cl, int pid)
{
	if (cl->forget)
		cl->forget(cl->ctx, pid);
}

void comm_learn(struct comm_learn *cl, int pid, const char *name, size_t len)
{
	struct comm_task *l;

	if (pid <= 0 || !len)
		return;
	if (!cl->tasks && !(cl->tasks = calloc(COMM_LEARNED, sizeof(*cl->tasks))))
		return;
	if (len > COMM_MAX)
		len = COMM_MAX;
	l = &cl->tasks[(unsigned)pid & (COMM_LEARNED - 1)];
	if (l->pid == pid && !l->name[len] && comm_same_bytes(l->name, name, len))
		return;
	/* the task's columns were made with the name it had, or had not */
	forget(cl, l->pid);
	forget(cl, pid);
	l->pid = pid;
	cl->gen++;
	l->has_raw = false;
	memcpy(l->name, name, len);
	l->name[len] = '\0';
}

static int field_index(const struct dec_event *de, const char *name)
{
	int i;

	for (i = 0; i < de->nfields; i++)
		if (!strcmp(de->fields[i].name, name))
			return i;
	return -1;
}

/* The plan reads the records at fixed offsets where every pair is a char[16] and an int. */
static void plan_raw(struct comm_plan *pl, const struct dec_event *de)
{
	int i;

	pl->raw = pl->npair > 0 && pl->exec_file < 0;
	for (i = 0; i < pl->npair; i++) {
		const struct dec_field *c = &de->fields[pl->comm[i]];
		const struct dec_field *p = pl->pid[i] >= 0 ? &de->fields[pl->pid[i]] : NULL;

		if (c->dynamic || c->relative || c->size != 16 || c->offset < 0 ||
		    (p && (p->size != 4 || p->offset < 0))) {
			pl->raw = false;
			break;
		}
		pl->coff[i] = c->offset;
		pl->poff[i] = p ? p->offset : 4;	/* common_pid */
	}
}

const struct comm_plan *comm_plan_build(struct comm_learn *cl, const struct dec_event *de)
{
	static const char *const pairs[][2] = {
		{ "comm", "pid" }, { "prev_comm", "prev_pid" }, { "next_comm", "next_pid" },
		{ "parent_comm", "parent_pid" }, { "newcomm", "pid" },
	};
	struct comm_plan *pl;
	size_t i;

	if (de->id < 0 || de->id > 65535)
		return NULL;
	if (de->id >= cl->nplans && !tp_array_grow(&cl->plans, &cl->nplans, de->id + 64,
						   sizeof(*cl->plans)))
		return NULL;
	pl = &cl->plans[de->id];
	if (pl->built)
		return pl;
	pl->built = true;
	pl->exec_file = -1;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]) && pl->npair < COMM_PAIRS; i++) {
		int c = field_index(de, pairs[i][0]), p = field_index(de, pairs[i][1]);

		if (c < 0 || de->fields[c].kind != DK_STR)
			continue;
		/* task_rename without a pid field renames the task that traced it */
		if (p >= 0 && de->fields[p].kind != DK_INT)
			continue;
		if (p < 0 && strcmp(pairs[i][0], "newcomm"))
			continue;
		pl->comm[pl->npair] = c;
		pl->pid[pl->npair++] = p;
	}
	if (!strcmp(de->system, "sched") && !strcmp(de->name, "sched_process_exec"))
		pl->exec_file = field_index(de, "filename");
	plan_raw(pl, de);
	return pl;
}

/*
 * Not a fork's child_comm: a child mostly execs at once, often where no
 * exec record says so, and would keep its parent's name.
 */
_Static_assert(COMM_PAIRS + 1 <= COMM_NAMES, "a record names COMM_PAIRS tasks and an exec");

int comm_names_of(const struct comm_plan *pl, const struct dec_event *de, const void *data,
		  int size, struct comm_name *v)
{
	const char *p;
	size_t len;
	uint64_t val;
	int i, n = 0;

	for (i = 0; i < pl->npair; i++) {
		int pid = decode_pid(data);

		if (pl->pid[i] >= 0) {
			if (!decode_int(&de->fields[pl->pid[i]], data, size, &val))
				continue;
			pid = (int)val;
		}
		if (decode_span(&de->fields[pl->comm[i]], data, size, &p, &len))
			v[n++] = (struct comm_name){ pid, p, len };
	}
	/* the kernel names a task after exec by the file's basename */
	if (pl->exec_file >= 0 && decode_span(&de->fields[pl->exec_file], data, size, &p, &len)) {
		const char *b = memrchr(p, '/', len);

		if (b) {
			len -= b + 1 - p;
			p = b + 1;
		}
		v[n++] = (struct comm_name){ decode_pid(data), p, len };
	}
	return n;
}

void comm_learn_free(struct comm_learn *cl)
{
	free(cl->tasks);
	free(cl->plans);
	cl->tasks = NULL;
	cl->plans = NULL;
	cl->nplans = 0;
}
