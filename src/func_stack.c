// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latency --function PATTERN --by stack: function_graph's calls as the time
 * per call path (func_stack.h).
 *
 * function_graph writes a funcgraph_entry at each call (the function, the
 * depth of the task's call under the graph's root, 0 for the root) and a
 * funcgraph_exit at its return (the same depth, calltime and rettime).  The
 * session gives them in timestamp order, so each task's records nest: an
 * entry at depth d is the callee of the task's frame at d - 1.  A task keeps
 * its frames and, per frame, the durations of its children so far; at a
 * return, the duration less the children's is the call's own time, added to
 * the path of frames 0..d, and the duration goes to the caller's children.
 * The own times of a tree add up to its root's duration.
 *
 * A return whose entry is missing (lost records, a trace begun inside a
 * call) has no path: its time goes to its caller's children only, and it is
 * counted (fstack_unpaired).  A call deeper than the task's open frames allow
 * (an entry at depth d with no frame open at d - 1) is outside them: the
 * kernel records the return of a call before it takes the call off the
 * task's depth, and an interrupt in between nests its functions under a call
 * that has already returned (or records were lost).  Such calls and what they
 * call are left out, with their time (fstack_outside_ns): they are in no
 * recorded call's duration, and the paths of a root add up to its duration.
 * Frames deeper than FSTACK_DEPTH are not followed (function_graph's own
 * limit is lower).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "decode.h"
#include "flame.h"
#include "func_stack.h"
#include "util.h"

#define FSTACK_DEPTH 128

/* A task's frames: ip[0..depth], and the durations of each frame's children. */
struct ftask {
	int pid;
	int depth;		/* the innermost open frame, -1: none */
	bool skip;		/* its tree's root does not match the glob */
	unsigned long long ip[FSTACK_DEPTH];
	unsigned long long child[FSTACK_DEPTH];
	bool outside[FSTACK_DEPTH];	/* the frame is outside the open calls (see above) */
};

/* A path: n ips in the pool from off, root first, and its own time. */
struct fpath {
	uint64_t hash;
	size_t off;
	unsigned int n;
	unsigned long long ns;
};

struct fstack {
	struct tep_handle *tep;
	const char *root;
	int entry_id, exit_id;
	struct tep_format_field *e_func, *e_depth, *x_func, *x_depth, *x_call, *x_ret;
	struct ftask **tasks;
	size_t ntasks, last;
	struct fpath *paths;
	size_t npaths, apaths;
	size_t *slots;		/* the hash: index + 1 into paths, 0 free */
	size_t nslots;		/* a power of two */
	unsigned long long *pool;
	size_t npool, apool;
	unsigned long long total, unpaired, outside;
	unsigned long long seen;	/* function_graph's records */
};

static uint64_t path_hash(const unsigned long long *ip, unsigned int n)
{
	uint64_t h = 1469598103934665603ULL;
	unsigned int i;

	for (i = 0; i < n; i++)
		h = (h ^ ip[i]) * 1099511628211ULL;
	return h ^ n;
}

static bool path_rehash(struct fstack *s)
{
	size_t n = s->nslots ? s->nslots * 2 : 256, i, j;
	size_t *t = calloc(n, sizeof(*t));

	if (!t)
		return false;
	for (i = 0; i < s->npaths; i++) {
		for (j = s->paths[i].hash & (n - 1); t[j]; j = (j + 1) & (n - 1))
			;
		t[j] = i + 1;
	}
	free(s->slots);
	s->slots = t;
	s->nslots = n;
	return true;
}

/* ns more to the path ip[0..n-1]; -1: out of memory. */
static int path_add(struct fstack *s, const unsigned long long *ip, unsigned int n,
		    unsigned long long ns)
{
	uint64_t h = path_hash(ip, n);
	struct fpath *p;
	size_t j;

	if (s->npaths * 2 >= s->nslots && !path_rehash(s))
		return -1;
	for (j = h & (s->nslots - 1); s->slots[j]; j = (j + 1) & (s->nslots - 1)) {
		p = &s->paths[s->slots[j] - 1];
		if (p->hash == h && p->n == n && !memcmp(s->pool + p->off, ip, n * sizeof(*ip))) {
			p->ns += ns;
			return 0;
		}
	}
	if (!tp_reserve(&s->paths, &s->apaths, s->npaths + 1, sizeof(*s->paths), 64) ||
	    !tp_reserve(&s->pool, &s->apool, s->npool + n, sizeof(*s->pool), 256))
		return -1;
	memcpy(s->pool + s->npool, ip, n * sizeof(*ip));
	s->paths[s->npaths] = (struct fpath){ h, s->npool, n, ns };
	s->npool += n;
	s->slots[j] = ++s->npaths;
	return 0;
}

/* The frames of pid: the last task's, else a search, else a new one. */
static struct ftask *task_get(struct fstack *s, int pid)
{
	struct ftask *t;
	size_t i;

	if (s->last < s->ntasks && s->tasks[s->last]->pid == pid)
		return s->tasks[s->last];
	for (i = 0; i < s->ntasks; i++)
		if (s->tasks[i]->pid == pid) {
			s->last = i;
			return s->tasks[i];
		}
	if (s->ntasks % 64 == 0) {
		struct ftask **nt = realloc(s->tasks, (s->ntasks + 64) * sizeof(*nt));

		if (!nt)
			return NULL;
		s->tasks = nt;
	}
	t = malloc(sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->depth = -1;
	t->skip = false;
	s->last = s->ntasks;
	s->tasks[s->ntasks++] = t;
	return t;
}

/* A call: frame d of the task is ip, with no children yet; the deeper ones are closed. */
static void call_entry(struct fstack *s, struct ftask *t, unsigned long long ip, int d)
{
	unsigned long long off;
	const char *name;

	if (d == 0 && s->root) {
		name = decode_ksym(ip, &off);
		t->skip = !name || fnmatch(s->root, name, 0);
	}
	/* a gap: the frames between are no calls open now */
	while (t->depth < d - 1) {
		t->ip[++t->depth] = 0;
		t->child[t->depth] = 0;
		t->outside[t->depth] = true;
	}
	t->ip[d] = ip;
	t->child[d] = 0;
	t->outside[d] = d > 0 && t->outside[d - 1];
	t->depth = d;
}

/* A return: its own time to its path, its duration to its caller's children. */
static int call_return(struct fstack *s, struct ftask *t, unsigned long long ip, int d,
		   unsigned long long dur)
{
	unsigned long long own;
	bool paired = d <= t->depth && t->ip[d] == ip;

	if (d > 0 && d - 1 <= t->depth)
		t->child[d - 1] += dur;
	/* the frames from d on are closed; a return deeper than the open ones opens none */
	if (d - 1 < t->depth)
		t->depth = d - 1;
	if (!paired) {
		s->unpaired++;
		return 0;
	}
	if (t->skip)
		return 0;
	if (t->outside[d]) {
		/* only the outermost recorded call outside: its duration holds its callees' */
		if (d == 0 || !t->outside[d - 1] || !t->ip[d - 1])
			s->outside += dur;
		return 0;
	}
	own = dur > t->child[d] ? dur - t->child[d] : 0;
	s->total += own;
	return path_add(s, t->ip, d + 1, own);
}

int fstack_record(struct fstack *s, struct tep_record *rec)
{
	unsigned long long ip, depth, call = 0, ret = 0;
	int id = tep_data_type(s->tep, rec);
	bool entry = id == s->entry_id;
	struct ftask *t;

	if (!entry && id != s->exit_id)
		return 0;
	if (tep_read_number_field(entry ? s->e_func : s->x_func, rec->data, &ip) ||
	    tep_read_number_field(entry ? s->e_depth : s->x_depth, rec->data, &depth) ||
	    (int)depth < 0 || depth >= FSTACK_DEPTH)
		return 0;
	if (!entry && (tep_read_number_field(s->x_call, rec->data, &call) ||
		       tep_read_number_field(s->x_ret, rec->data, &ret)))
		return 0;
	s->seen++;
	t = task_get(s, tep_data_pid(s->tep, rec));
	if (!t)
		return -1;
	if (entry) {
		call_entry(s, t, ip, (int)depth);
		return 0;
	}
	return call_return(s, t, ip, (int)depth, ret > call ? ret - call : 0);
}

struct fstack *fstack_new(struct tep_handle *tep, const char *root, bool *oom)
{
	struct tep_event *e = tep_find_event_by_name(tep, "ftrace", "funcgraph_entry");
	struct tep_event *x = tep_find_event_by_name(tep, "ftrace", "funcgraph_exit");
	struct fstack *s = calloc(1, sizeof(*s));

	*oom = !s;
	if (!s)
		return NULL;
	s->tep = tep;
	s->root = root;
	if (e && x) {
		s->entry_id = e->id;
		s->exit_id = x->id;
		s->e_func = tep_find_field(e, "func");
		s->e_depth = tep_find_field(e, "depth");
		s->x_func = tep_find_field(x, "func");
		s->x_depth = tep_find_field(x, "depth");
		s->x_call = tep_find_field(x, "calltime");
		s->x_ret = tep_find_field(x, "rettime");
	}
	if (!s->e_func || !s->e_depth || !s->x_func || !s->x_depth || !s->x_call || !s->x_ret) {
		tp_error("the kernel's function_graph formats (ftrace:funcgraph_entry, "
			 "funcgraph_exit) lack the fields a call path needs");
		free(s);
		return NULL;
	}
	return s;
}

int fstack_flame(struct fstack *s, struct flame *fl)
{
	struct flame_frame fr[FSTACK_DEPTH];
	char buf[FSTACK_DEPTH][24];
	unsigned long long off;
	const struct fpath *p;
	const char *name;
	unsigned int k;
	size_t i;

	for (i = 0; i < s->npaths; i++) {
		p = &s->paths[i];
		for (k = 0; k < p->n; k++) {
			name = decode_ksym(s->pool[p->off + k], &off);
			if (!name) {
				snprintf(buf[k], sizeof(buf[k]), "0x%llx", s->pool[p->off + k]);
				name = buf[k];
			}
			fr[k] = (struct flame_frame){ name, FLAME_KERNEL };
		}
		/* microseconds, rounded, as latency's other folded stacks */
		if (flame_add(fl, fr, p->n, (p->ns + 500) / 1000) < 0)
			return -1;
	}
	return 0;
}

unsigned long long fstack_total_ns(const struct fstack *s)
{
	return s->total;
}

unsigned long long fstack_unpaired(const struct fstack *s)
{
	return s->unpaired;
}

unsigned long long fstack_outside_ns(const struct fstack *s)
{
	return s->outside;
}

unsigned long long fstack_seen(const struct fstack *s)
{
	return s->seen;
}

void fstack_free(struct fstack *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ntasks; i++)
		free(s->tasks[i]);
	free(s->tasks);
	free(s->paths);
	free(s->slots);
	free(s->pool);
	free(s);
}
