// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * count --function and latency --function: calls per kernel function and
 * how long they take, from the function tracers' records (ftr.h).
 *
 * count: the function tracer on the PATTERNs; each ftrace:function record is
 * one call.  The kernel's function profiler (function_profile_enabled,
 * trace_stat/function*) would count without records, but Debian's kernels
 * (the VM's 6.1, the host's 6.18) are built without it (no such file), and it
 * has no per-instance or per-task view: the records are what every kernel
 * with the function tracer has.
 *
 * latency: function_graph on FUNC with max_graph_depth 1, so that only FUNC
 * itself is recorded; each funcgraph_exit carries the call's calltime and
 * rettime, its duration is their difference (the kernel's own figure, the
 * one its `trace` text prints).  FUNC may be a glob (set_graph_function
 * takes one): then a histogram per function it matched, keyed "func".
 *
 * With --input FILE the records are a recording's: --function then only
 * names what is counted (count: every function recorded; latency: FUNC's
 * returns at depth 0, as record --graph FUNC --depth 1 makes them).
 *
 * latency --by stack: function_graph from FUNC down, no depth limit, each
 * call's own time per call path (func_stack.c), written as folded stacks or
 * an SVG flame graph (flame.h) instead of the table.
 *
 * Output: the documents of docs/DESIGN.md section 2 (count: by ["func"] or
 * ["func","comm"]; latency: start and end both "FUNC", buckets in ns; a glob
 * adds "func" to its keys).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event-parse.h>

#include "agg_run.h"
#include "comm.h"
#include "decode.h"
#include "flame.h"
#include "ftr.h"
#include "func_agg.h"
#include "func_stack.h"
#include "json.h"
#include "live.h"
#include "output.h"
#include "state.h"
#include "target.h"
#include "util.h"

struct frow {
	unsigned long long ip;	/* count, latency of a glob: the function; latency: 0 */
	int pid;		/* --by comm: the task (-1: not by task) */
	unsigned long long count, sum, min, max;
	unsigned long long total;	/* count --interval: the counts of the intervals before */
	unsigned long long buckets[64];	/* latency: by fagg_bucket(), latency's log2 of us */
	const char *name, *comm;	/* resolved at the end */
	char comm_buf[64];		/* --by comm: the task's name when its row was made */
};

struct fagg {
	struct frow *rows;
	size_t n, alloc;
	bool by_comm, latency;
	bool by_func;		/* latency of a glob: a histogram per function it matched */
	bool by_stack;		/* latency --by stack: the call paths (stack) instead of rows */
	struct fstack *stack;
	struct tep_handle *tep;
	struct tep_format_field *ip, *call, *ret, *depth, *fn;
	const char *func;	/* latency of a recording: only the returns of this name or glob */
	int func_id, exit_id;
	/* --by comm: the tasks' names as the records that rename them say (LIVE_NAMES) */
	struct fname *names;
	size_t nnames;		/* a power of two, or 0 */
	size_t nnames_used;
	struct {
		int id;
		struct tep_event *ev;
		const char *pid, *comm;
		bool path;
	} nameev[3];
	int nnameev;
};

struct fname {
	int pid;		/* 0: a free slot */
	char comm[16];
};

/* The slot of pid in the names table (free or its own). */
static struct fname *fname_slot(struct fname *t, size_t n, int pid)
{
	size_t i;

	for (i = ((unsigned)pid * 2654435761u) & (n - 1); t[i].pid && t[i].pid != pid;
	     i = (i + 1) & (n - 1))
		;
	return &t[i];
}

static const char *fname_get(const struct fagg *a, int pid)
{
	const struct fname *f;

	if (!a->nnames || pid <= 0)
		return NULL;
	f = fname_slot(a->names, a->nnames, pid);
	return f->pid ? f->comm : NULL;
}

static int fname_set(struct fagg *a, int pid, const char *comm, size_t len)
{
	struct fname *f;

	if (a->nnames_used * 2 >= a->nnames) {
		size_t n = a->nnames ? a->nnames * 2 : 256, i;
		struct fname *t = calloc(n, sizeof(*t));

		if (!t)
			return -1;
		for (i = 0; i < a->nnames; i++)
			if (a->names[i].pid)
				*fname_slot(t, n, a->names[i].pid) = a->names[i];
		free(a->names);
		a->names = t;
		a->nnames = n;
	}
	f = fname_slot(a->names, a->nnames, pid);
	if (!f->pid)
		a->nnames_used++;
	f->pid = pid;
	if (len >= sizeof(f->comm))
		len = sizeof(f->comm) - 1;
	memcpy(f->comm, comm, len);
	f->comm[len] = '\0';
	return 0;
}

/* The events that rename a task (as the aggregations' agg_task.c reads them). */
static void fname_setup(struct fagg *a)
{
	size_t i;

	for (i = 0; i < COMM_RENAME_EVENTS; i++) {
		const struct comm_rename_event *d = &comm_rename_events[i];
		struct tep_event *ev = tep_find_event_by_name(a->tep, d->sys, d->name);

		if (!ev || !tep_find_field(ev, d->comm))
			continue;
		a->nameev[a->nnameev].id = ev->id;
		a->nameev[a->nnameev].ev = ev;
		a->nameev[a->nnameev].pid = d->pid;
		a->nameev[a->nnameev].comm = d->comm;
		a->nameev[a->nnameev].path = d->path;
		a->nnameev++;
	}
}

/* A record that renames a task: 1 (learnt), 0: no such record, -1: out of memory. */
static int fname_record(struct fagg *a, int id, struct tep_record *rec)
{
	unsigned long long pid;
	const char *p, *b;
	int i, len;

	for (i = 0; i < a->nnameev && a->nameev[i].id != id; i++)
		;
	if (i == a->nnameev)
		return 0;
	if (tep_get_field_val(NULL, a->nameev[i].ev, a->nameev[i].pid, rec, &pid, 0))
		pid = tep_data_pid(a->tep, rec);
	p = tep_get_field_raw(NULL, a->nameev[i].ev, a->nameev[i].comm, rec, &len, 0);
	if (!p || len <= 0 || (int)pid <= 0)
		return 1;
	len = strnlen(p, len);
	if (a->nameev[i].path && (b = memrchr(p, '/', len))) {
		len -= b + 1 - p;
		p = b + 1;
	}
	return fname_set(a, (int)pid, p, len) < 0 ? -1 : 1;
}

/*
 * The row of (ip, pid, the task's name now): a linear search of the last hit
 * first, then all (few functions).  A task's calls before and after an exec
 * are two rows, each under the name it had.
 */
static struct frow *row_get(struct fagg *a, unsigned long long ip, int pid)
{
	static size_t last;
	const char *now = a->by_comm ? fname_get(a, pid) : NULL;
	struct frow *r;
	size_t i;

	if (last < a->n && a->rows[last].ip == ip && a->rows[last].pid == pid &&
	    (!now || !strcmp(a->rows[last].comm_buf, now)))
		return &a->rows[last];
	for (i = 0; i < a->n; i++)
		if (a->rows[i].ip == ip && a->rows[i].pid == pid &&
		    (!now || !strcmp(a->rows[i].comm_buf, now))) {
			last = i;
			return &a->rows[i];
		}
	if (a->n == a->alloc) {
		size_t na = a->alloc ? a->alloc * 2 : 64;
		struct frow *nr = realloc(a->rows, na * sizeof(*nr));

		if (!nr)
			return NULL;
		a->rows = nr;
		a->alloc = na;
	}
	r = &a->rows[a->n];
	memset(r, 0, sizeof(*r));
	r->ip = ip;
	r->pid = pid;
	r->min = ~0ULL;
	/* the name now, while the task lives: function records do not fill saved_cmdlines */
	if (now) {
		snprintf(r->comm_buf, sizeof(r->comm_buf), "%s", now);
	} else if (pid >= 0) {
		const char *c = comm_known(pid);

		if (!c && a->tep) {
			c = tep_data_comm_from_pid(a->tep, pid);
			if (c && !strcmp(c, "<...>"))
				c = comm_proc(pid, 0, r->comm_buf, sizeof(r->comm_buf), NULL) ? r->comm_buf :
										  NULL;
		}
		if (c && c != r->comm_buf)
			snprintf(r->comm_buf, sizeof(r->comm_buf), "%s", c);
	}
	last = a->n++;
	return r;
}

/*
 * The bucket of a duration as latency's log2 buckets count it (agg.c):
 * microseconds, 0 for [0, 1us), k for [2^(k-1), 2^k) us.
 */
static int fagg_bucket(unsigned long long ns)
{
	unsigned long long us = ns / 1000;

	return us ? 64 - __builtin_clzll(us) : 0;
}

static void fagg_bucket_bounds(int k, struct agg_bucket *b)
{
	b->index = k;
	b->lo = k ? (__int128)1000 << (k - 1) : 0;
	b->hi = (__int128)1000 << k;
}

static int fagg_record(struct fagg *a, struct tep_record *rec)
{
	unsigned long long ip = 0, call = 0, ret = 0, depth = 0, d, fn_ip = 0;
	int id = tep_data_type(a->tep, rec), pid = a->by_comm ? tep_data_pid(a->tep, rec) : -1;
	struct frow *r;
	int b;

	if (a->stack)
		return fstack_record(a->stack, rec);
	if (a->nnameev && (b = fname_record(a, id, rec)) != 0)
		return b < 0 ? -1 : 0;
	if (!a->latency) {
		if (id != a->func_id || tep_read_number_field(a->ip, rec->data, &ip))
			return 0;
		r = row_get(a, ip, pid);
		if (!r)
			return -1;
		r->count++;
		return 0;
	}
	if (id != a->exit_id || tep_read_number_field(a->call, rec->data, &call) ||
	    tep_read_number_field(a->ret, rec->data, &ret) ||
	    tep_read_number_field(a->depth, rec->data, &depth) || (int)depth != 0)
		return 0;
	if (a->func) {
		unsigned long long fn = 0, off;
		const char *name;

		if (tep_read_number_field(a->fn, rec->data, &fn))
			return 0;
		name = decode_ksym(fn, &off);
		if (!name || fnmatch(a->func, name, 0))
			return 0;
	}
	if (a->by_func && tep_read_number_field(a->fn, rec->data, &fn_ip))
		return 0;
	r = row_get(a, a->by_func ? fn_ip : 0, pid);
	if (!r)
		return -1;
	d = ret - call;
	r->count++;
	r->sum += d;
	if (d < r->min)
		r->min = d;
	if (d > r->max)
		r->max = d;
	r->buckets[fagg_bucket(d)]++;
	return 0;
}

static int fagg_setup(struct fagg *a, struct tep_handle *tep)
{
	struct tep_event *f = tep_find_event_by_name(tep, "ftrace", "function");
	struct tep_event *x = tep_find_event_by_name(tep, "ftrace", "funcgraph_exit");
	bool oom;

	a->tep = tep;
	if (a->by_stack) {
		a->stack = fstack_new(tep, a->func, &oom);
		return a->stack ? TP_OK : oom ? tp_oom() : TP_FAIL;
	}
	if (a->by_comm)
		fname_setup(a);
	a->func_id = f ? f->id : -1;
	a->exit_id = x ? x->id : -1;
	if (f)
		a->ip = tep_find_field(f, "ip");
	if (x) {
		a->call = tep_find_field(x, "calltime");
		a->ret = tep_find_field(x, "rettime");
		a->depth = tep_find_field(x, "depth");
		a->fn = tep_find_field(x, "func");
	}
	if (a->latency ? !(a->call && a->ret && a->depth && a->fn) : !a->ip) {
		tp_error("the kernel's ftrace:%s format lacks the fields it needs",
			 a->latency ? "funcgraph_exit" : "function");
		return TP_FAIL;
	}
	return TP_OK;
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct frow *a = pa, *b = pb;
	int c;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	c = strcmp(a->name ? a->name : "", b->name ? b->name : "");
	return c ? c : strcmp(a->comm_buf, b->comm_buf);
}

/* Names resolved; rows of one name (and comm) merged: the same function, other tasks. */
static void fagg_finish(struct fagg *a)
{
	unsigned long long off;
	size_t i, j, n = 0;
	int b;

	for (i = 0; i < a->n; i++) {
		a->rows[i].name = a->latency && !a->by_func ? NULL : decode_ksym(a->rows[i].ip, &off);
	}
	for (i = 0; i < a->n; i++) {
		struct frow *r = &a->rows[i];

		for (j = 0; j < n; j++) {
			struct frow *m = &a->rows[j];

			if ((m->name == r->name || (m->name && r->name && !strcmp(m->name, r->name))) &&
			    !strcmp(m->comm_buf, r->comm_buf))
				break;
		}
		if (j == n) {
			a->rows[n++] = *r;
			continue;
		}
		a->rows[j].count += r->count;
		a->rows[j].total += r->total;
		a->rows[j].sum += r->sum;
		a->rows[j].min = r->min < a->rows[j].min ? r->min : a->rows[j].min;
		a->rows[j].max = r->max > a->rows[j].max ? r->max : a->rows[j].max;
		for (b = 0; b < 64; b++)
			a->rows[j].buckets[b] += r->buckets[b];
	}
	a->n = n;
	qsort(a->rows, a->n, sizeof(*a->rows), row_cmp);
	/* the rows stay where they are from here: the names can point into them */
	for (i = 0; i < a->n; i++)
		a->rows[i].comm = a->by_comm && a->rows[i].comm_buf[0] ? a->rows[i].comm_buf : NULL;
}

/*
 * The rows as the aggregations' table (agg.h): keys "func" (count, latency
 * of a glob) and "comm" (--by comm), latency's log2 buckets; the rows that
 * counted anything, the first top of them.  t->g and t->bpool are
 * allocated (t->g NULL: out of memory).
 */
static void fagg_table(const struct fagg *a, const struct agg_opts *o, struct agg_spec *s,
		       struct agg_table *t)
{
	size_t i, n;
	int k, b;

	memset(t, 0, sizeof(*t));
	t->spec = s;
	if (!a->latency || a->by_func) {
		s->kind[s->nkeys] = AGG_KEY_FIELD;
		s->name[s->nkeys++] = "func";
	}
	if (a->by_comm) {
		s->kind[s->nkeys] = AGG_KEY_COMM;
		s->name[s->nkeys++] = "comm";
	}
	s->scale = a->latency ? AGG_SCALE_LOG2 : AGG_SCALE_NONE;
	for (n = 0; n < a->n && a->rows[n].count; n++)
		t->count += a->rows[n].count;
	t->nall = n;
	t->n = o->top && o->top < n ? o->top : n;
	t->g = calloc(t->n ? t->n : 1, sizeof(*t->g));
	t->bpool = calloc(t->n ? t->n * 64 : 1, sizeof(*t->bpool));
	if (!t->g || !t->bpool) {
		free(t->g);
		t->g = NULL;
		return;
	}
	for (i = 0; i < t->n; i++) {
		const struct frow *r = &a->rows[i];
		struct agg_group *g = &t->g[i];

		k = 0;
		if (!a->latency || a->by_func)
			g->key[k++].s = r->name;
		if (a->by_comm)
			g->key[k++].s = r->comm;
		g->count = r->count;
		g->sum = r->sum;
		g->min = r->min;
		g->max = r->max;
		g->buckets = t->bpool + i * 64;
		for (b = 0; b < 64; b++) {
			if (!r->buckets[b])
				continue;
			fagg_bucket_bounds(b, &g->buckets[g->nbuckets]);
			g->buckets[g->nbuckets++].count = r->buckets[b];
		}
	}
}

/*
 * The rows (those that counted anything in this interval, with --interval)
 * as count's and latency's tables are printed (output_agg), in text with
 * title above them (NULL: none).  func: latency's function (NULL: --graph's).
 */
static void fagg_print(struct fagg *a, const struct agg_opts *o, const char *func,
		       unsigned long long lost, double secs, const char *title)
{
	struct agg_join join = { .nside = 0 };
	struct agg_spec spec = { .nkeys = 0 };
	struct output_agg oa = { .title = title };
	struct agg_table t;
	struct timespec now;

	if (!func && o->ftrace && o->ftrace->ngraph)
		func = o->ftrace->graph[0];
	fagg_table(a, o, &spec, &t);
	if (!t.g) {
		free(t.bpool);
		tp_oom();
		return;
	}
	t.lost = lost;
	if (a->latency) {
		join.start = join.end = func;
		spec.join = &join;
		oa.start = oa.end = func;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	oa.ts_ns = now.tv_sec * TP_NS_PER_S + now.tv_nsec;
	oa.interval_ns = secs * TP_NS_PER_S;
	output_agg(stdout, o->json ? OUTPUT_JSON : OUTPUT_TEXT, &t, &oa);
	free(t.bpool);
	free(t.g);
}

/* A title as count's: "HH:MM:SS (0.50 s)", or "totals (...)" (output_agg_title). */
static void fagg_title(char *buf, size_t size, bool totals, double secs)
{
	output_agg_title(buf, size, totals, secs, 0);
}

/* count --interval: this interval's rows printed, their counts added to the totals. */
static int fagg_tick(struct fagg *a, const struct agg_opts *o, unsigned long long lost,
		     double secs)
{
	char title[64];
	size_t i;

	fagg_finish(a);
	output_agg_title(title, sizeof(title), false, secs, lost);
	fagg_print(a, o, NULL, lost, secs, title);
	if (!o->json)
		putchar('\n');
	for (i = 0; i < a->n; i++) {
		a->rows[i].total += a->rows[i].count;
		a->rows[i].count = 0;
	}
	if (fflush(stdout) || ferror(stdout))
		return -1;
	return 0;
}

/* A run: the rows and what the session loop's callbacks need. */
struct fagg_run {
	struct fagg *a;
	const struct agg_opts *o;
	struct live *l;
	double start, last;
	bool oom;
};

static int frun_record(void *ctx, struct tep_record *rec, long long lost)
{
	struct fagg_run *r = ctx;

	(void)lost;
	if (fagg_record(r->a, rec) < 0) {
		r->oom = true;
		return LIVE_FAIL;
	}
	return LIVE_GO;
}

/* --interval */
static int frun_tick(void *ctx, double now)
{
	struct fagg_run *r = ctx;

	if (fagg_tick(r->a, r->o, live_lost(r->l), now - r->last) < 0)
		return LIVE_STOP;
	r->last = now;
	return LIVE_GO;
}

/* latency --by stack: the call paths (func_stack.c) instead of rows */
static bool fagg_by_stack(const struct agg_opts *o, bool latency)
{
	return latency && o->spec.nkeys == 1 && o->spec.kind[0] == AGG_KEY_STACK;
}

/* The session as the options say, and the rows set up for its tep. */
static int fagg_open(struct fagg *a, struct live **l, const struct agg_opts *o, bool latency)
{
	struct ftr_spec *fs = o->ftrace;
	struct live_spec spec = {
		.target = o->target, .ftrace = fs, .flags = LIVE_EARLY_STOP,
	};
	char kb[32];
	int ret;

	if (tp.instance) {
		tp_error("%s traces in a private instance; '-i %s' cannot be used", tp.cmd,
			 tp.instance);
		return TP_USAGE;
	}
	if (o->buffer_kb && snprintf(kb, sizeof(kb), "%llu", o->buffer_kb) > 0)
		spec.buffer_kb = kb;
	/* a recording with function records (record --function/--graph): read as it is */
	if (o->input) {
		spec.input = o->input;
		spec.ftrace = NULL;
	}
	if (o->input && latency)
		a->func = fs->graph[0];
	/* a glob: the functions it matched each with a histogram of its own */
	a->by_func = latency && strpbrk(fs->graph[0], "*?[");
	a->by_comm = o->spec.nkeys == 1 && o->spec.kind[0] == AGG_KEY_COMM;
	a->by_stack = fagg_by_stack(o, latency);
	if (o->spec.nkeys && !a->by_comm && !a->by_stack) {
		tp_error("'--function' counts by function%s; '--by' takes only 'comm'%s",
			 latency ? " (one histogram)" : "", latency ? " or 'stack'" : "");
		return TP_USAGE;
	}
	/* --by comm: the names a task had when it called, from its fork, exec, rename */
	if (a->by_comm)
		spec.flags |= LIVE_NAMES;
	ret = live_open(l, &spec);
	if (!ret)
		ret = fagg_setup(a, live_tep(*l));
	return ret;
}

/*
 * --folded, --flamegraph: latency --by stack's (folded on stdout without
 * either), not with --json; the SVG's file made now (a temporary one beside
 * it), so that a path that cannot be written fails before anything is traced.
 */
static int fagg_flame_begin(const struct agg_opts *o, bool latency, struct flame_file *ff)
{
	const char *opt = o->folded ? "--folded" : "--flamegraph";

	memset(ff, 0, sizeof(*ff));
	if (!fagg_by_stack(o, latency) && (o->folded || o->flamegraph)) {
		tp_error("'%s' of '--function' draws call paths: latency --function FUNC "
			 "--by stack", opt);
		return TP_USAGE;
	}
	if (fagg_by_stack(o, latency) && o->json) {
		tp_error("'--by stack' of '--function' writes folded stacks or an SVG, not JSON");
		return TP_USAGE;
	}
	return o->flamegraph ? flame_file_open(ff, o->flamegraph) : TP_OK;
}

/* The call paths as folded lines on stdout and the SVG, its file put in place. */
static int fagg_flame_end(struct fagg_run *r, struct flame_file *ff)
{
	const struct agg_opts *o = r->o;
	struct flame_svg so = { .title = NULL, .unit = "us" };
	struct flame *fl = flame_new();
	unsigned long long unpaired = fstack_unpaired(r->a->stack);
	char title[256];
	int ret = TP_OK;

	snprintf(title, sizeof(title), "tpctl latency --function %s --by stack",
		 o->ftrace->graph[0]);
	so.title = title;
	if (o->input && !fstack_seen(r->a->stack)) {
		tp_error("the recording has no function_graph records (tpctl record --graph FUNC)");
		ret = TP_FAIL;
	} else if (!fl || fstack_flame(r->a->stack, fl) < 0) {
		ret = tp_oom();
	}
	if (!ret && (o->folded || !o->flamegraph) && flame_write_folded(fl, stdout) < 0)
		ret = live_stdout_failed(errno, ret);
	/* a failed write of the SVG shows in its file, which flame_file_commit() checks */
	if (!ret && ff->f)
		flame_write_svg(fl, ff->f, &so);
	flame_free(fl);
	tp_debug("%llu us of calls outside the open calls left out (interrupts after a return)",
		 fstack_outside_ns(r->a->stack) / 1000);
	if (unpaired)
		tp_warn("%llu returns came without their call (records lost, or a call "
			"begun before tracing): their time is their callers' own", unpaired);
	if (ret || !ff->f) {
		flame_file_abort(ff);
		return ret;
	}
	return flame_file_commit(ff);
}

/* The tables at the end, and what was lost. */
static int fagg_end(struct fagg_run *r, struct flame_file *ff, int ret)
{
	const struct agg_opts *o = r->o;
	struct ftr_spec *fs = o->ftrace;
	struct fagg *a = r->a;
	unsigned long long lost = live_lost(r->l);

	if (a->stack) {
		ret = fagg_flame_end(r, ff);
	} else if (o->interval > 0) {
		/* the last, shorter interval; then (text) the totals of the run */
		char title[64];
		size_t i;

		fagg_tick(a, o, lost, tp_now_s() - r->last);
		for (i = 0; i < a->n; i++)
			a->rows[i].count = a->rows[i].total;
		fagg_finish(a);
		fagg_title(title, sizeof(title), true, tp_now_s() - r->start);
		if (!o->json)
			fagg_print(a, o, NULL, 0, tp_now_s() - r->start, title);
	} else {
		fagg_finish(a);
		fagg_print(a, o, fs->ngraph ? fs->graph[0] : NULL, lost, tp_now_s() - r->start,
			   NULL);
	}
	if (fflush(stdout) || ferror(stdout))
		ret = live_stdout_failed(errno, ret);
	if (lost)
		live_warn_lost(lost);
	return ret;
}

static int fagg_run(const struct agg_opts *o, bool latency)
{
	struct fagg a = { .latency = latency };
	struct fagg_run r = { .a = &a, .o = o };
	struct live_tool tool = {
		.record = frun_record, .tick = frun_tick, .ctx = &r,
		.duration = o->duration, .interval = o->interval,
	};
	struct flame_file ff;
	int ret;

	ret = fagg_flame_begin(o, latency, &ff);
	if (ret)
		return ret;
	ret = fagg_open(&a, &r.l, o, latency);
	if (!ret)
		ret = live_start(r.l);
	r.start = r.last = tool.start = tp_now_s();
	if (!ret)
		ret = live_run(r.l, &tool);
	/* what the buffers still hold counts too */
	if (!ret)
		ret = live_finish(r.l, &tool);
	if (r.oom)
		ret = tp_oom();
	if (!ret)
		ret = fagg_end(&r, &ff, ret);
	flame_file_abort(&ff);
	fstack_free(a.stack);
	free(a.rows);
	free(a.names);
	return live_close(r.l, ret);
}

int func_count_run(const struct agg_opts *o)
{
	return fagg_run(o, false);
}

int func_latency_run(const struct agg_opts *o)
{
	return fagg_run(o, true);
}
