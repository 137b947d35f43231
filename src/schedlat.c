// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sched - the table of `perf sched latency -p` from tracefs records.
 *
 * perf's definitions, as its documentation and its output on the same
 * events show them (tests/cli/latency-sched.t compares the two):
 *
 *  - A task's state is the last of its "atoms": sleeping, waiting for a CPU
 *    (since wait_ts), or running.  Only the last one matters.
 *  - sched_switch, prev: a new atom.  prev_state 0 (the task is still
 *    runnable) starts a wait at the switch; anything else (sleeping, or the
 *    preempted state TASK_REPORT_MAX, see prev_runnable()) is sleeping.
 *  - sched_switch, next: a task met for the first time is taken to have
 *    waited from this very switch (a switch with delay 0).  If its last atom
 *    waits, the wait ends here: one switch, delay = ts - wait_ts; a switch in
 *    of a task not waiting (its wakeup was not seen) counts nothing.
 *  - sched_wakeup / sched_wakeup_new: a sleeping task starts to wait at ts;
 *    a task met for the first time too.  A wakeup of a task that is not
 *    sleeping by the atoms (running, or already waiting) is ignored, so a
 *    wait always starts at the first wakeup.  sched_waking is not a wakeup
 *    for perf sched latency (6.1), although `perf sched record` records it
 *    instead of sched_wakeup on every kernel that has it: the table of
 *    `perf sched record` + `perf sched latency` then has no wakeup delays at
 *    all, only the delays of new tasks and of tasks switched out runnable.
 *    The recipe traces sched_wakeup, so that its table has them, and equals
 *    perf's on a perf.data of the same events.
 *  - sched_stat_runtime: the runtime field is added to the task's runtime.
 *    The runtime is the scheduler's own accounting (fair class only; RT and
 *    deadline tasks have none), not the time between switches.  A task met
 *    first here is taken to be waiting since ts.
 *  - Migrations do not matter (perf looks at them only with -C CPU).
 *  - perf's recording itself (6.1 on this 6.18 kernel) lacks the
 *    sched_wakeup records of timer wakeups that come while their CPU is
 *    idle (in the hard interrupt, current the idle task); ftrace has them.
 *    There perf counts no delay and tpctl does: the tables agree only where
 *    both recordings hold the same records.
 *  - The table lists tasks with at least one switch, not pid 0 (the idle
 *    tasks); the TOTAL sums only those.
 *
 * Where tpctl goes further than perf:
 *
 *  - Kernels can leave out switches: 6.18's CPU 1 here records no switch
 *    out of the idle task (ten sleeps: 0 switches from idle there, 44 to
 *    idle), and perf's own recording has the same gap.  Every record says
 *    which task is current on its CPU (common_pid), so a record of a task
 *    whose last recorded switch was out (its next switch out, its
 *    sched_stat_runtime) shows a switch in the kernel did not record.  It
 *    is inferred as oncpu.h places it (at the task's wakeup, or at the
 *    CPU's previous record when another task ran there after it), counted
 *    as a switch when the task was waiting, and counted per CPU for the
 *    warning of sched_warn_gaps().  latency offcpu infers the same way.
 *  - With sched_own(), the table holds one process tree: the task given and
 *    every task it or its descendants start (sched_wakeup_new is recorded in
 *    the parent's context).  The kernel's pid filter passes any switch to or
 *    from a traced task, so the tasks switched with them are in the records
 *    too; the table leaves them out.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "oncpu.h"
#include "schedlat.h"
#include "util.h"

#define COMM_LEN 16

enum atom_state {
	ATOM_SLEEPING,
	ATOM_WAITING,
	ATOM_RUNNING,
};

struct task {
	int pid;
	bool used;
	enum atom_state state;
	uint64_t out_ts;		/* the last switch out (or first sight) */
	uint64_t wait_ts;		/* ATOM_WAITING: since when */
	uint64_t runtime, switches, total, max, max_ts;	/* max_ts: its start */
	bool own;			/* in the process tree of sched_own() */
	bool traced;			/* a sched_stat_runtime of it as current was seen */
	char comm[COMM_LEN + 1];
};

/* One event's id and the fields read from it (NULL: not in the format). */
struct sev {
	int id;
	struct tep_format_field *f[4];
};

enum { EV_SWITCH, EV_RUNTIME, EV_WAKEUP, EV_WAKEUP_NEW, EV_N };

static const char *const ev_names[EV_N] = {
	"sched_switch", "sched_stat_runtime", "sched_wakeup", "sched_wakeup_new",
};

/* fields: switch: prev_pid prev_state next_pid next_comm (prev_comm via F_COMM2) */
enum { F_PID, F_STATE, F_PID2, F_COMM };

struct sched {
	struct tep_handle *tep;
	struct sev ev[EV_N];
	struct tep_format_field *prev_comm;
	struct task *t;
	size_t n, used;
	struct oncpu on;		/* who runs where, the switches in inferred */
	int root;			/* sched_own(): the tree's root; 0: every task */
	bool perf_only;			/* sched_perf_only(): no switch is inferred */
};

static const char *const events[] = {
	"sched:sched_switch",
	"sched:sched_stat_runtime",
	"sched:sched_wakeup",
	"sched:sched_wakeup_new",
	NULL,
};

const char *const *sched_events(void)
{
	return events;
}

static struct tep_format_field *field(struct tep_event *e, const char *name)
{
	return e ? tep_find_field(e, name) : NULL;
}

int sched_new(struct sched **sp, struct tep_handle *tep)
{
	struct sched *s = calloc(1, sizeof(*s));
	int i;

	*sp = NULL;
	if (!s) {
		return tp_oom();
	}
	s->tep = tep;
	for (i = 0; i < EV_N; i++) {
		struct tep_event *e = tep_find_event_by_name(tep, "sched", ev_names[i]);
		struct sev *v = &s->ev[i];

		v->id = e ? e->id : -1;
		if (i == EV_SWITCH) {
			v->f[F_PID] = field(e, "prev_pid");
			v->f[F_STATE] = field(e, "prev_state");
			v->f[F_PID2] = field(e, "next_pid");
			v->f[F_COMM] = field(e, "next_comm");
			s->prev_comm = field(e, "prev_comm");
		} else {
			v->f[F_PID] = field(e, "pid");
			v->f[F_STATE] = field(e, "runtime");
			v->f[F_COMM] = field(e, "comm");
		}
	}
	/* a format without the fields perf reads is as good as no format */
	if (!s->ev[EV_SWITCH].f[F_PID] || !s->ev[EV_SWITCH].f[F_STATE] ||
	    !s->ev[EV_SWITCH].f[F_PID2])
		s->ev[EV_SWITCH].id = -1;
	if (!s->ev[EV_RUNTIME].f[F_PID] || !s->ev[EV_RUNTIME].f[F_STATE])
		s->ev[EV_RUNTIME].id = -1;
	for (i = EV_WAKEUP; i < EV_N; i++)
		if (!s->ev[i].f[F_PID])
			s->ev[i].id = -1;
	if (s->ev[EV_SWITCH].id < 0 || s->ev[EV_RUNTIME].id < 0 || s->ev[EV_WAKEUP].id < 0) {
		tp_error("sched needs the event '%s'",
			 s->ev[EV_SWITCH].id < 0 ? events[0] :
			 s->ev[EV_RUNTIME].id < 0 ? events[1] : events[2]);
		free(s);
		return TP_USAGE;
	}
	*sp = s;
	return TP_OK;
}

void sched_free(struct sched *s)
{
	if (!s)
		return;
	free(s->t);
	oncpu_free(&s->on);
	free(s);
}

void sched_own(struct sched *s, int pid)
{
	s->root = pid;
}

void sched_perf_only(struct sched *s)
{
	s->perf_only = true;
}

void sched_lost(struct sched *s, int cpu)
{
	oncpu_lost(&s->on, cpu);
}

void sched_warn_gaps(const struct sched *s)
{
	int cpu;

	/* perf sched latency only warns of "context switch bugs": name the CPUs and counts */
	for (cpu = 0; cpu < s->on.ncpu; cpu++)
		if (s->on.cpu[cpu].inferred)
			tp_warn("CPU %d: %llu switches in that the kernel did not record were "
				"inferred (a task switched out ran again with no switch in "
				"recorded)", cpu, (unsigned long long)s->on.cpu[cpu].inferred);
}

static struct task *slot(struct task *t, size_t n, int pid)
{
	size_t i;

	for (i = ((unsigned)pid * 2654435761u) & (n - 1); t[i].used && t[i].pid != pid;
	     i = (i + 1) & (n - 1))
		;
	return &t[i];
}

/* The task pid when it was met; NULL when not. */
static struct task *task_find(struct sched *s, int pid)
{
	struct task *p;

	if (!s->n)
		return NULL;
	p = slot(s->t, s->n, pid);
	return p->used ? p : NULL;
}

/* Is pid in the tree of sched_own() (false for a task not met yet, but the root)? */
static bool is_own(struct sched *s, int pid)
{
	struct task *p = task_find(s, pid);

	return s->root && (pid == s->root || (p && p->own));
}

/* The task pid, made (in state st since ts) when met for the first time; NULL: no memory. */
static struct task *task_get(struct sched *s, int pid, enum atom_state st, uint64_t ts)
{
	struct task *p;

	if (s->used * 2 >= s->n) {
		size_t n = s->n ? s->n * 2 : 256, i;
		struct task *nt = calloc(n, sizeof(*nt));

		if (!nt)
			return NULL;
		for (i = 0; i < s->n; i++)
			if (s->t[i].used)
				*slot(nt, n, s->t[i].pid) = s->t[i];
		free(s->t);
		s->t = nt;
		s->n = n;
	}
	p = slot(s->t, s->n, pid);
	if (p->used)
		return p;
	s->used++;
	p->used = true;
	p->own = pid == s->root;
	p->pid = pid;
	p->out_ts = ts;
	p->state = st;
	p->wait_ts = ts;
	return p;
}

static uint64_t num(const struct tep_record *rec, const struct tep_format_field *f)
{
	unsigned long long v = 0;

	if (f->offset + f->size <= rec->size)
		tep_read_number_field((struct tep_format_field *)f, rec->data, &v);
	return v;
}

static int inum(const struct tep_record *rec, const struct tep_format_field *f)
{
	return (int)num(rec, f);
}

/* A char[16] name field into the task (the last name seen is the one shown). */
static void take_comm(struct task *p, const struct tep_record *rec,
		      const struct tep_format_field *f)
{
	size_t len;

	if (!p || !f || (f->flags & TEP_FIELD_IS_DYNAMIC) || f->offset + f->size > rec->size)
		return;
	len = strnlen((const char *)rec->data + f->offset, f->size);
	if (len > COMM_LEN)
		len = COMM_LEN;
	memcpy(p->comm, (const char *)rec->data + f->offset, len);
	p->comm[len] = '\0';
}

/*
 * Is the task that sched_switch switched out still runnable?  perf takes
 * the state letter of the prev_state value, and only 'R' (value 0) is
 * runnable: a preempted task (prev_state TASK_REPORT_MAX, "R+" in the
 * kernel's text) is not.  Its next switch in then follows no wakeup and
 * counts nothing.  (tests/cli/latency-sched.t fails when "R+" is taken as
 * runnable here: perf 6.1 does not.)
 */
static bool prev_runnable(uint64_t state)
{
	return state == 0;
}

/* p is switched in at ts: a switch with its delay when it was waiting. */
static void switch_in(struct task *p, uint64_t ts)
{
	if (p->state != ATOM_WAITING)
		return;
	p->state = ATOM_RUNNING;
	if (ts < p->wait_ts)
		return;
	p->switches++;
	p->total += ts - p->wait_ts;
	if (ts - p->wait_ts > p->max) {
		p->max = ts - p->wait_ts;
		p->max_ts = p->wait_ts;
	}
}

/*
 * Before rec (of event i) is taken: a record of a task whose last recorded
 * switch was out shows a switch in the kernel did not record (oncpu.h).
 * It counts for a task the pid filter passes: the tree of sched_own(), and
 * a task whose sched_stat_runtime was recorded while it was current (those
 * are filtered by the current task; a switch passes when either side is
 * traced, a wakeup when the woken task is, so their common_pid proves
 * nothing).  false: no memory.
 */
static bool cpu_check(struct sched *s, int i, const struct tep_record *rec)
{
	int pid = tep_data_pid(s->tep, (struct tep_record *)rec);
	struct task *p;
	uint64_t at;

	if (i == EV_RUNTIME && pid > 0 && inum(rec, s->ev[i].f[F_PID]) == pid) {
		p = task_get(s, pid, ATOM_WAITING, rec->ts);
		if (!p)
			return false;
		p->traced = true;
	}
	if (i == EV_WAKEUP || i == EV_WAKEUP_NEW)
		oncpu_wakeup(&s->on, inum(rec, s->ev[i].f[F_PID]), rec->ts);
	if (s->perf_only || !oncpu_record(&s->on, rec->cpu, rec->ts, pid, &at))
		return true;
	p = task_find(s, pid);
	if (!is_own(s, pid) && !(p && p->traced))
		return true;
	oncpu_said(&s->on, rec->cpu);
	p = task_get(s, pid, ATOM_WAITING, at);
	if (!p)
		return false;
	switch_in(p, at > p->wait_ts ? at : p->wait_ts);
	return true;
}

static void on_switch(struct sched *s, const struct tep_record *rec)
{
	const struct sev *v = &s->ev[EV_SWITCH];
	uint64_t ts = rec->ts;
	struct task *p;

	p = task_get(s, inum(rec, v->f[F_PID]), ATOM_SLEEPING, ts);
	if (p) {
		take_comm(p, rec, s->prev_comm);
		p->out_ts = ts;
		p->state = prev_runnable(num(rec, v->f[F_STATE])) ? ATOM_WAITING : ATOM_SLEEPING;
		p->wait_ts = ts;
	}
	p = task_get(s, inum(rec, v->f[F_PID2]), ATOM_WAITING, ts);
	if (!p)
		return;
	take_comm(p, rec, v->f[F_COMM]);
	switch_in(p, ts);
}


static void on_wakeup(struct sched *s, const struct sev *v, const struct tep_record *rec)
{
	bool parent_own = v == &s->ev[EV_WAKEUP_NEW] && s->root &&
			  is_own(s, tep_data_pid(s->tep, (struct tep_record *)rec));
	struct task *p = task_get(s, inum(rec, v->f[F_PID]), ATOM_SLEEPING, rec->ts);

	if (!p)
		return;
	if (parent_own)
		p->own = true;
	take_comm(p, rec, v->f[F_COMM]);
	if (p->state != ATOM_SLEEPING || p->out_ts > rec->ts)
		return;
	p->state = ATOM_WAITING;
	p->wait_ts = rec->ts;
}

void sched_record(struct sched *s, const struct tep_record *rec)
{
	int id, i;

	if (rec->size < 2)
		return;
	id = tep_data_type(s->tep, (struct tep_record *)rec);
	for (i = 0; i < EV_N && s->ev[i].id != id; i++)
		;
	if (i == EV_N)
		return;
	cpu_check(s, i, rec);
	if (i == EV_SWITCH) {
		on_switch(s, rec);
		oncpu_switch(&s->on, rec->cpu, rec->ts, inum(rec, s->ev[i].f[F_PID]),
			     inum(rec, s->ev[i].f[F_PID2]));
	} else if (i == EV_RUNTIME) {
		struct task *p = task_get(s, inum(rec, s->ev[i].f[F_PID]), ATOM_WAITING, rec->ts);

		if (p)
			p->runtime += num(rec, s->ev[i].f[F_STATE]);
	} else {
		on_wakeup(s, &s->ev[i], rec);
	}
}

static const struct {
	const char *name;
	enum sched_key key;
} sort_names[] = {
	{ "avg", SCHED_SORT_AVG },
	{ "max", SCHED_SORT_MAX },
	{ "switch", SCHED_SORT_SWITCH },
	{ "runtime", SCHED_SORT_RUNTIME },
	{ "pid", SCHED_SORT_PID },
};

int sched_sort_parse(struct sched_sort *sort, const char *spec)
{
	const char *p = spec ? spec : "avg,max,switch,runtime";

	sort->n = 0;
	for (;;) {
		size_t len = strcspn(p, ","), k;
		int j;

		/* perf writes its default with spaces: "avg, max, switch, runtime" */
		while (len && *p == ' ')
			p++, len--;
		while (len && p[len - 1] == ' ')
			len--;
		for (k = 0; k < sizeof(sort_names) / sizeof(sort_names[0]); k++)
			if (strlen(sort_names[k].name) == len && !strncmp(p, sort_names[k].name, len))
				break;
		if (k == sizeof(sort_names) / sizeof(sort_names[0])) {
			tp_error("unknown sort key '%.*s' (avg, max, switch, runtime, pid)",
				 (int)len, p);
			return TP_USAGE;
		}
		for (j = 0; j < sort->n; j++)
			if (sort->key[j] == sort_names[k].key) {
				tp_error("sort key '%s' given twice", sort_names[k].name);
				return TP_USAGE;
			}
		sort->key[sort->n++] = sort_names[k].key;
		p += strcspn(p, ",");
		if (!*p)
			return TP_OK;
		p++;
	}
}

static const struct sched_sort *cmp_sort;

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int task_cmp(const void *va, const void *vb)
{
	const struct sched_task *a = va, *b = vb;
	int i, c = 0;

	for (i = 0; !c && i < cmp_sort->n; i++) {
		switch (cmp_sort->key[i]) {
		case SCHED_SORT_AVG:
			c = cmp_u64(b->avg_delay_ns, a->avg_delay_ns);
			break;
		case SCHED_SORT_MAX:
			c = cmp_u64(b->max_delay_ns, a->max_delay_ns);
			break;
		case SCHED_SORT_SWITCH:
			c = cmp_u64(b->switches, a->switches);
			break;
		case SCHED_SORT_RUNTIME:
			c = cmp_u64(b->runtime_ns, a->runtime_ns);
			break;
		case SCHED_SORT_PID:
			c = (a->pid < b->pid) - (a->pid > b->pid);
			break;
		}
	}
	return c ? c : (a->pid > b->pid) - (a->pid < b->pid);
}

struct sched_table *sched_table(struct sched *s, const struct sched_sort *sort)
{
	struct sched_table *t = calloc(1, sizeof(*t));
	size_t i;

	if (!t)
		return NULL;
	t->tasks = calloc(s->used ? s->used : 1, sizeof(*t->tasks));
	if (!t->tasks) {
		free(t);
		return NULL;
	}
	for (i = 0; i < s->n; i++) {
		const struct task *p = &s->t[i];
		struct sched_task *o;

		if (!p->used || !p->switches || p->pid == 0 || (s->root && !p->own))
			continue;
		o = &t->tasks[t->n++];
		o->pid = p->pid;
		o->comm = p->comm[0] ? p->comm : NULL;
		o->runtime_ns = p->runtime;
		o->switches = p->switches;
		o->total_delay_ns = p->total;
		o->avg_delay_ns = p->total / p->switches;
		o->max_delay_ns = p->max;
		o->max_delay_ts_ns = p->max_ts;
		o->max_delay_end_ns = p->max_ts + p->max;
		t->runtime_ns += p->runtime;
		t->switches += p->switches;
	}
	cmp_sort = sort;
	qsort(t->tasks, t->n, sizeof(*t->tasks), task_cmp);
	cmp_sort = NULL;
	return t;
}

void sched_table_free(struct sched_table *t)
{
	if (!t)
		return;
	free(t->tasks);
	free(t);
}
