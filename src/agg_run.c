// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * agg_run - `tpctl count` and `tpctl hist` once their options are parsed:
 * the private instance, the engine, the intervals and the output.
 *
 * Engines.  The kernel engine starts one hist trigger per event in the
 * private instance, with tracing_on 0 there: the kernel still runs the
 * triggers (it hands them the record in a scratch buffer) but writes
 * nothing into the ring buffer, so nothing can be lost and nothing has to
 * be read; each interval reads the `hist` files.  The user engine enables
 * the events and aggregates the records of the per-CPU buffers as they come
 * (agg_record).  The default is the kernel engine where every event has a
 * `hist` file and the kernel can aggregate the keys, else the user engine.
 *
 * Reader threads.  count and hist on the user engine (one metric, its
 * filter the kernel's, no pairs to join) read with a thread per CPU
 * (percpu.h, --threads): each thread aggregates its CPUs' records into an
 * agg of its own, under its own lock, and at each interval and at the end
 * the threads take what their CPUs hold (partial sub-buffers too) and
 * their rows are added to the metric's (agg_merge: a count is a sum, and so
 * are the sums, minima and maxima of hist).  Nothing there needs the order
 * of records across CPUs; a stack key needs each CPU's own order only,
 * which one thread keeps.  latency and serve read as before: one reader,
 * the records merged by timestamp.
 *
 * Intervals.  A table is printed every --interval (the rows of that
 * interval), and the totals at the end: Ctrl-C (the first INT, TERM or HUP
 * only ends the loop), --duration, or the reader of stdout going away.  The
 * user engine stops tracing first and reads what is left in the buffers,
 * so that every event made before the end is counted.
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "agg_run.h"
#include "flame.h"
#include "live.h"
#include "opt.h"
#include "output.h"
#include "output_flame.h"
#include "percpu.h"
#include "rbpage.h"
#include "state.h"
#include "target.h"
#include "tfs.h"
#include "util.h"

/* Poll timeout of the user engine: how late a tick or the end may be seen. */
#define WAIT_MS 50
/* agg_set_read(): the most records read at once, so that serve's loop keeps its clock */
#define READ_MAX 65536

/* One metric: an aggregation (count, hist, latency) and its engine. */
struct job {
	const struct agg_opts *o;
	struct agg *agg;
	struct tfs_event_list evs;	/* its events, in agg_add_event's order */
	bool try_kernel;		/* the kernel engine is still to be tried */
	bool kernel;			/* the kernel engine counts it */
	struct tracefs_hist **hists;	/* kernel engine: per event, its trigger */
	uint64_t *dropped;		/* kernel engine: per event, the kernel's Dropped */
	struct tep_event_filter *filter; /* user engine: its filter, when not the session's */
	struct output *pairs;		/* latency --over: the pairs as they close */
	struct agg_kjoin kj;		/* latency, kernel engine: its synthetic event */
	struct tfs_event synth;		/* synthetic:NAME */
};

/* A reader thread's own rows (thread mode, see above). */
struct tagg {
	struct agg *agg;
	pthread_mutex_t lock;		/* the thread holds it while it aggregates */
	struct rbpage pg;
};

struct agg_set {
	struct job *jobs;
	int njobs;
	struct live *l;			/* the session: events, instance, readers, tep */
	const char *filter;		/* the one filter every job has, for the kernel to apply */
	bool same_filter;
	bool reading;			/* a job of the user engine: records are read */
	bool idle;			/* the last agg_set_read() found nothing more ready */
	double start, last;		/* CLOCK_MONOTONIC seconds */
	double reap_at;			/* when the tasks gone are looked for next */
	size_t reap_tracked;		/* the tasks tracked after that look */
	bool out_failed;
	int out_errno;
	bool screen;			/* agg_run: the tables redrawn on a terminal */
	/* thread mode: the reader threads and their rows */
	bool want_threads;		/* count, hist (not serve) */
	bool threads;
	struct percpu *pc;
	struct tagg *tagg;
	int ntagg;
	int subbuf;
	struct tracefs_cpu **tcpu;
	int *fds;
};

static unsigned long long wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * TP_NS_PER_S + ts.tv_nsec;
}

int agg_opt_engine(const struct tp_opt *o, const char *arg)
{
	enum agg_engine *e = o->value;

	if (!strcmp(arg, "kernel"))
		*e = AGG_ENGINE_KERNEL;
	else if (!strcmp(arg, "user"))
		*e = AGG_ENGINE_USER;
	else if (!strcmp(arg, "auto"))
		*e = AGG_ENGINE_AUTO;
	else {
		tp_error("invalid engine '%s': kernel, user or auto", arg);
		return TP_USAGE;
	}
	return TP_OK;
}

static int hist_append(void *ctx, enum tracefs_filter type, const char *field,
		       enum tracefs_compare cmp, const char *val)
{
	return tracefs_hist_append_filter(ctx, type, field, cmp, val);
}

static int hist_filter(struct tracefs_hist *hist, const char *expr)
{
	return tfs_filter_walk(expr, hist_append, hist);
}

/*
 * Can the kernel engine do a job: one hist trigger per event, with the
 * filter as the trigger's.  TP_OK with j->hists made (not started), or, when
 * the kernel cannot, TP_USAGE (the keys) or TP_FAIL (no hist triggers) with
 * the error printed if the kernel engine was asked for, else -1 (use the
 * user engine) after saying why under -v.
 */
static bool same_event(const char *sys, const char *name, const char *sys2, const char *name2)
{
	return sys2 && name2 && !strcmp(sys, sys2) && !strcmp(name, name2);
}

/*
 * Has a job before j a trigger on sys:name?  An event's hist file holds the
 * tables of all its triggers one after the other, and an entry does not say
 * whose it is: a count or hist job reads it only where its trigger is the
 * event's only one.  (A latency reads its synthetic event's file, its own.)
 */
static bool event_taken(const struct agg_set *set, const struct job *j, const char *sys,
			const char *name, bool any)
{
	const struct job *p;
	size_t i;

	for (p = set->jobs; p < j; p++) {
		if (!p->kernel)
			continue;
		if (p->o->spec.join) {
			if (any && (same_event(sys, name, p->kj.start_sys, p->kj.start_ev) ||
				    same_event(sys, name, p->kj.end_sys, p->kj.end_ev)))
				return true;
			continue;
		}
		for (i = 0; i < p->evs.n; i++)
			if (same_event(sys, name, p->evs.v[i].system, p->evs.v[i].name))
				return true;
	}
	return false;
}

#define TAKEN "another metric has a hist trigger on this event (one hist file holds both)"

/* Is a side's task a field of the record (a switch's prev_pid), not the task that traced it? */
static bool join_task_side(const struct agg_join *jn)
{
	int s;

	for (s = 0; s < jn->nside; s++)
		if (jn->side[s].pid)
			return true;
	return false;
}

static int kernel_plan(const struct agg_set *set, struct job *j)
{
	bool must = j->o->engine == AGG_ENGINE_KERNEL;
	const char *why = NULL;
	int ret = TP_USAGE;
	size_t i;

	if (j->o->spec.join) {
		static int n;
		char name[64];

		snprintf(name, sizeof(name), "tpctl_lat_%d_%d", (int)getpid(), n++);
		if (!tfs_has_synth()) {
			why = "this kernel has no synthetic events";
			ret = TP_FAIL;
		} else if (j->o->over) {
			why = "'--over' prints the records of each pair";
		} else if (join_task_side(j->o->spec.join) && j->o->target &&
			   target_lists(j->o->target)) {
			why = "the kernel's pid filter passes the switches of other tasks with "
			      "the target's, and only the user engine leaves them out";
		} else {
			why = agg_kernel_join(j->agg, name, j->o->filter, &j->kj);
		}
		if (!why && (event_taken(set, j, j->kj.start_sys, j->kj.start_ev, false) ||
			     event_taken(set, j, j->kj.end_sys, j->kj.end_ev, false)))
			why = TAKEN;
		if (!why) {
			j->synth.system = (char *)"synthetic";
			j->synth.name = j->kj.name;
			return TP_OK;
		}
		if (must)
			tp_error("the kernel engine cannot do this latency: %s", why);
		else
			tp_debug("user engine: %s", why);
		return must ? ret : -1;
	}
	j->hists = calloc(j->evs.n ? j->evs.n : 1, sizeof(*j->hists));
	if (!j->hists)
		return tp_oom();
	for (i = 0; i < j->evs.n && !why; i++) {
		if (!tfs_event_has_hist(NULL, &j->evs.v[i])) {
			/* the kernel lacks it: not the user's mistake */
			why = "this kernel has no hist triggers";
			ret = TP_FAIL;
			break;
		}
		if (event_taken(set, j, j->evs.v[i].system, j->evs.v[i].name, true)) {
			why = TAKEN;
			break;
		}
		j->hists[i] = agg_kernel_hist(j->agg, i, &why);
		if (!j->hists[i] && !why)
			why = "out of memory";
		if (j->hists[i] && j->o->filter && hist_filter(j->hists[i], j->o->filter) < 0)
			why = "the filter cannot be given to a hist trigger";
		if (why)
			break;
	}
	if (!why)
		return TP_OK;
	if (must)
		tp_error("the kernel engine cannot do this for '%s:%s': %s", j->evs.v[i].system,
			 j->evs.v[i].name, why);
	else
		tp_debug("user engine: %s:%s: %s", j->evs.v[i].system, j->evs.v[i].name, why);
	return must ? ret : -1;
}

/*
 * A latency on the kernel engine: its synthetic event, START's and END's
 * triggers in the private instance, and the hist trigger on the synthetic
 * event, paused until kernel_continue().
 */
static int kernel_arm_join(struct live *l, struct job *j, bool quiet)
{
	struct tfs_event start = { (char *)j->kj.start_sys, (char *)j->kj.start_ev };
	struct tfs_event end = { (char *)j->kj.end_sys, (char *)j->kj.end_ev };
	char *cmd = NULL;
	int ret;

	ret = tfs_synth_create(j->kj.name, j->kj.fields, quiet);
	if (!ret)
		ret = tfs_trigger_add(live_instance(l), &start, j->kj.start_cmd, quiet);
	if (!ret)
		ret = tfs_trigger_add(live_instance(l), &end, j->kj.end_cmd, quiet);
	if (!ret && asprintf(&cmd, "%s:pause", j->kj.hist_cmd) < 0)
		return tp_oom();
	if (!ret)
		ret = tfs_trigger_add(live_instance(l), &j->synth, cmd, quiet);
	free(cmd);
	return ret;
}

/*
 * The entries of a kernel table for at most max rows (0: no bound, the
 * kernel's default): a power of two the kernel takes (it allows 2^17).
 */
static size_t kernel_size(size_t max)
{
	size_t n = 2048;

	while (max && n < max && n < 131072)
		n *= 2;
	return max ? n : 0;
}

/*
 * The session's arm hook: the kernel jobs' triggers made paused in the
 * private instance (where nothing is read, tracing_on stays 0: the kernel
 * runs the triggers but records nothing); they count from kernel_continue()
 * on, once the target's pid lists are in.
 */
static int kernel_arm(struct live *l, void *ctx)
{
	struct agg_set *set = ctx;
	int k, ret = TP_OK;
	size_t i;

	for (k = 0; !ret && k < set->njobs; k++) {
		struct job *j = &set->jobs[k];
		bool must = j->o->engine == AGG_ENGINE_KERNEL;

		if (j->kernel && j->o->spec.join)
			ret = kernel_arm_join(l, j, !must);
		for (i = 0; j->kernel && !j->o->spec.join && !ret && i < j->evs.n; i++)
			ret = tfs_hist_start(live_instance(l), &j->evs.v[i], j->hists[i], true,
					     !must, kernel_size(j->o->max_rows));
		if (ret && !must) {
			tp_debug("user engine: the kernel refused a hist trigger");
			j->try_kernel = false;
			ret = -1;
		}
	}
	return ret;
}

static int kernel_continue(struct agg_set *set)
{
	int k, ret = TP_OK;
	size_t i;

	for (k = 0; k < set->njobs; k++) {
		struct job *j = &set->jobs[k];

		if (j->kernel && j->o->spec.join) {
			char *cmd = NULL;

			if (asprintf(&cmd, "%s:cont", j->kj.hist_cmd) < 0)
				return TP_FAIL;
			ret = tfs_trigger_add(live_instance(set->l), &j->synth, cmd, false);
			free(cmd);
			continue;
		}
		for (i = 0; j->kernel && !ret && i < j->evs.n; i++)
			ret = tfs_hist_continue(live_instance(set->l), &j->evs.v[i], j->hists[i]);
	}
	return ret;
}

/* A kernel job's rows: what its hist files say now. */
static int kernel_collect(struct agg_set *set, struct job *j)
{
	size_t i;

	if (j->o->spec.join) {
		char *text = tfs_hist_read(live_instance(set->l), &j->synth);
		uint64_t dropped = 0;

		if (!text) {
			tp_error("cannot read the hist file of '%s': %s", j->kj.name, strerror(errno));
			return TP_FAIL;
		}
		if (agg_kernel_update(j->agg, agg_kernel_join_ev(j->agg), text, &dropped) < 0)
			tp_warn("entries of the hist file of '%s' were not understood", j->kj.name);
		free(text);
		if (dropped > j->dropped[0])
			agg_add_lost(j->agg, dropped - j->dropped[0]);
		j->dropped[0] = dropped;
		return TP_OK;
	}
	for (i = 0; i < j->evs.n; i++) {
		char *text = tfs_hist_read(live_instance(set->l), &j->evs.v[i]);
		uint64_t dropped = 0;

		if (!text) {
			tp_error("cannot read the hist file of '%s:%s': %s", j->evs.v[i].system,
				 j->evs.v[i].name, strerror(errno));
			return TP_FAIL;
		}
		if (agg_kernel_update(j->agg, i, text, &dropped) < 0)
			tp_warn("entries of the hist file of '%s:%s' were not understood",
				j->evs.v[i].system, j->evs.v[i].name);
		free(text);
		if (dropped > j->dropped[i])
			agg_add_lost(j->agg, dropped - j->dropped[i]);
		j->dropped[i] = dropped;
	}
	return TP_OK;
}

/* ---------------------------------------------------------------- reader threads */

static int job_agg(struct live *l, struct job *j, struct agg **ap);

/* Thread mode fits one metric of the user engine that needs no order across CPUs. */
static bool threads_fit(const struct agg_set *set)
{
	const struct job *j = &set->jobs[0];

	return set->want_threads && set->njobs == 1 && !j->try_kernel && !j->o->input &&
	       !j->o->spec.join && set->same_filter;
}

/*
 * The records of len bytes of cpu's sub-buffers into the thread's rows.
 * A page's commit is trusted by rbpage.h, so a damaged one is skipped (as
 * reader.c does); a record's length is kept within its page.
 */
static int thread_record(void *ctx, struct tep_record *rec, long long lost)
{
	(void)lost;
	agg_record(ctx, rec);
	return 0;
}

static int thread_pages(void *ctx, int thread, int cpu, const void *buf, size_t len)
{
	struct agg_set *set = ctx;
	struct tagg *t = &set->tagg[thread];
	struct live_page_read rd = { 0 };

	pthread_mutex_lock(&t->lock);
	live_page_records(&t->pg, cpu, buf, len, set->subbuf, thread_record, t->agg, &rd);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

/* Each thread's rows since the last merge into the metric's. */
static void threads_merge(struct agg_set *set, bool final)
{
	int i;

	for (i = 0; i < set->ntagg; i++) {
		struct tagg *t = &set->tagg[i];

		pthread_mutex_lock(&t->lock);
		/* the end: events whose stack never came count without one */
		if (final)
			agg_flush(t->agg);
		agg_merge(set->jobs[0].agg, t->agg);
		pthread_mutex_unlock(&t->lock);
	}
}

static int threads_start(struct agg_set *set)
{
	struct live *l = set->l;
	int n = live_page_ncpus(l), ncpu = 0, nt, c, i, ret;

	set->subbuf = live_page_size(l);
	set->tcpu = calloc(n ? n : 1, sizeof(*set->tcpu));
	set->fds = calloc(n ? n : 1, sizeof(*set->fds));
	if (!set->tcpu || !set->fds)
		return tp_oom();
	for (c = 0; c < n; c++) {
		set->tcpu[c] = live_page_cpu(l, c);
		set->fds[c] = live_page_fd(l, c);
		ncpu += set->tcpu[c] != NULL;
	}
	nt = set->jobs[0].o->threads && set->jobs[0].o->threads < (unsigned)ncpu ?
	     (int)set->jobs[0].o->threads : ncpu;
	if (nt < 1)
		nt = 1;
	set->tagg = calloc(nt, sizeof(*set->tagg));
	if (!set->tagg)
		return tp_oom();
	for (i = 0; i < nt; i++) {
		struct tagg *t = &set->tagg[i];

		pthread_mutex_init(&t->lock, NULL);
		set->ntagg++;
		ret = job_agg(l, &set->jobs[0], &t->agg);
		if (ret)
			return ret;
	}
	ret = percpu_start(&set->pc, &(struct percpu_spec){
		.ncpus = n, .tcpu = set->tcpu, .fd = set->fds, .subbuf = set->subbuf,
		.nthreads = nt, .timeout_ms = 1000, .ring_subbufs = live_page_count(l),
		.pages = thread_pages, .ctx = set,
	});
	if (!ret)
		ret = live_hide_tasks(l, percpu_tids(set->pc), percpu_nthreads(set->pc));
	return ret;
}

/* The threads take what is left and end; their last rows merged. */
static int threads_finish(struct agg_set *set)
{
	int ret;

	if (!set->pc)
		return TP_OK;
	ret = percpu_finish(set->pc);
	set->pc = NULL;
	threads_merge(set, true);
	if (ret < 0) {
		tp_error("cannot read the ring buffer: %s", strerror(errno));
		return TP_FAIL;
	}
	return TP_OK;
}

static void threads_free(struct agg_set *set)
{
	int i;

	percpu_finish(set->pc);
	set->pc = NULL;
	for (i = 0; i < set->ntagg; i++) {
		agg_free(set->tagg[i].agg);
		pthread_mutex_destroy(&set->tagg[i].lock);
	}
	free(set->tagg);
	set->tagg = NULL;
	set->ntagg = 0;
	free(set->tcpu);
	free(set->fds);
	set->tcpu = NULL;
	set->fds = NULL;
}

/* Every job up to now: the kernel's hist files read, the ring buffers' losses counted. */
static void collect(struct agg_set *set)
{
	unsigned long long lost;
	int k;

	/* the threads' rows up to now, partial sub-buffers included */
	if (set->pc) {
		percpu_sync(set->pc);
		threads_merge(set, false);
	}
	lost = set->reading ? live_lost(set->l) : 0;

	for (k = 0; k < set->njobs; k++) {
		if (set->jobs[k].kernel)
			kernel_collect(set, &set->jobs[k]);
		else
			agg_add_lost(set->jobs[k].agg, lost);
	}
}

/* One record to every job of the user engine (each ignores the events not its own). */
static void dispatch(struct agg_set *set, const struct tep_record *rec)
{
	int k;

	for (k = 0; k < set->njobs; k++) {
		struct job *j = &set->jobs[k];

		if (j->kernel || (j->filter && tep_filter_match(j->filter, (struct tep_record *)rec) ==
					       TEP_ERRNO__FILTER_MISS))
			continue;
		agg_record(j->agg, rec);
	}
}

/* latency --over: a pair longer than the bound, written at once. */
static void pair_out(void *ctx, struct tep_record *start, struct tep_record *end, uint64_t ns)
{
	struct job *j = ctx;

	output_pair(j->pairs, j->o->spec.join->start, j->o->spec.join->end, ns, start, end);
	output_flush(j->pairs);
}

static int job_pairs(struct job *j, struct live *l)
{
	if (!j->o->over)
		return TP_OK;
	j->pairs = output_new(live_tep(l), stdout, j->o->json ? OUTPUT_JSON : OUTPUT_TEXT);
	if (!j->pairs)
		return tp_oom();
	output_set_loader(j->pairs, live_load_id, l);
	output_set_comm_loader(j->pairs, live_reload_comms, l);
	output_set_ns_clock(j->pairs, live_clock_ns(l));
	agg_set_pair_fn(j->agg, j->o->over, pair_out, j);
	return TP_OK;
}

/* A job's own filter, where the jobs' filters differ and the kernel cannot apply one. */
static int job_filter(struct job *j, struct tep_handle *tep)
{
	if (!j->o->filter || j->kernel)
		return TP_OK;
	return live_filter_new(tep, &j->evs, j->o->filter, &j->filter);
}

/*
 * The session's check hook, once the events are resolved and before
 * anything is created: each job's events among them, every key and field
 * checked against them (TP_USAGE), and where the kernel engine is tried,
 * whether it can do the job (-1: it cannot, the session is opened again
 * with that job on the user engine).
 */
/* The events of the probes made for this run (group tpctl_<pid>) are the job's too. */
static int add_run_probes(const struct tfs_event_list *all, struct tfs_event_list *evs)
{
	const char *group = probe_run_group();
	size_t i;

	for (i = 0; i < all->n; i++)
		if (!strcmp(all->v[i].system, group) &&
		    !tfs_event_list_has(evs, group, all->v[i].name) &&
		    tfs_event_list_add(evs, group, all->v[i].name) < 0) {
			return tp_oom();
		}
	return TP_OK;
}

/* The job's EVENTs among the session's, each as it is traced (live_traced(): --strings). */
static int job_events(struct live *l, const struct agg_opts *o, struct tfs_event_list *evs)
{
	struct tfs_event_list named = { 0 };
	size_t i;
	int ret;

	ret = tfs_events_match(live_events_named(l), o->events, o->nevents, NULL, &named);
	for (i = 0; !ret && i < named.n; i++) {
		const struct tfs_event *t = live_traced(l, &named.v[i]);

		if (tfs_event_list_add(evs, t->system, t->name) < 0) {
			tp_oom();
			ret = TP_FAIL;
		}
	}
	tfs_event_list_free(&named);
	return ret;
}

/* The rows of job j's events (its own, or a reader thread's): TP_OK or the status. */
static int job_agg(struct live *l, struct job *j, struct agg **ap)
{
	struct agg *a = agg_new(&j->o->spec, live_tep(l));
	int ret = TP_OK;
	size_t i;

	*ap = a;
	if (!a)
		return tp_oom();
	agg_set_max_rows(a, j->o->max_rows);
	for (i = 0; !ret && i < j->evs.n; i++) {
		int size = 0;
		char *fmt = live_format_text(l, j->evs.v[i].system, j->evs.v[i].name, &size);

		ret = agg_add_event(a, j->evs.v[i].system, j->evs.v[i].name, fmt ? fmt : "",
				    fmt ? size : 0);
		free(fmt);
	}
	if (!ret)
		ret = agg_ready(a);
	if (!ret)
		agg_set_comm_loader(a, live_reload_comms, l);
	return ret;
}

static int set_check(struct live *l, void *ctx)
{
	struct agg_set *set = ctx;
	int k, ret = TP_OK;

	for (k = 0; !ret && k < set->njobs; k++) {
		struct job *j = &set->jobs[k];
		const struct agg_opts *o = j->o;

		ret = job_events(l, o, &j->evs);
		if (!ret && o->probes.n)
			ret = add_run_probes(live_events(l), &j->evs);
		if (ret)
			break;
		j->dropped = calloc(j->evs.n ? j->evs.n : 1, sizeof(*j->dropped));
		if (!j->dropped)
			return tp_oom();
		ret = job_agg(l, j, &j->agg);
		if (!ret)
			ret = job_pairs(j, l);
		if (ret)
			break;
		j->kernel = j->try_kernel;
		if (j->kernel) {
			ret = kernel_plan(set, j);
			if (ret == -1) {
				j->try_kernel = j->kernel = false;
				ret = TP_OK;
				/* the session was opened not to read: open it again */
				if (!set->reading)
					ret = -1;
			}
		}
		if (!ret && !set->same_filter)
			ret = job_filter(j, live_tep(l));
	}
	return ret;
}

/* What set_check and kernel_arm made, before the session is opened again or closed. */
static void set_reset(struct agg_set *set)
{
	int k;
	size_t i;

	for (k = 0; k < set->njobs; k++) {
		struct job *j = &set->jobs[k];

		for (i = 0; j->hists && i < j->evs.n; i++)
			tracefs_hist_free(j->hists[i]);
		free(j->hists);
		j->hists = NULL;
		agg_free(j->agg);
		j->agg = NULL;
		free(j->dropped);
		j->dropped = NULL;
		if (j->filter)
			tep_filter_free(j->filter);
		j->filter = NULL;
		output_free(j->pairs);
		j->pairs = NULL;
		agg_kjoin_release(&j->kj);
		tfs_event_list_free(&j->evs);
	}
}

/* The session of every job's events; -1 when a job has to change its engine. */
static int set_session(struct agg_set *set)
{
	const struct agg_opts *o = set->jobs[0].o;
	/* the session traces every job's events: the patterns of all of them */
	char **pats = NULL, **probes;
	struct live_spec spec = {
		.filter = set->same_filter ? set->filter : NULL,
		.target = o->target, .input = o->input,
		/*
		 * A signal prints the totals once anything is traced, even one
		 * that comes while the rest is set up (tests/cli/count.t waits
		 * only for the events to be on).
		 */
		.flags = LIVE_EARLY_STOP,
		.check = set_check,
		.arm = kernel_arm,
		.ctx = set,
	};
	unsigned long long kbs = 0;
	char kb[32];
	int k, i, n = 0, ret;

	set->reading = false;
	for (k = 0; k < set->njobs; k++) {
		/* one buffer for all: the largest asked for */
		if (set->jobs[k].o->buffer_kb > kbs)
			kbs = set->jobs[k].o->buffer_kb;
		set->reading |= !set->jobs[k].try_kernel;
		n += set->jobs[k].o->nevents;
		spec.strings |= set->jobs[k].o->strings;
	}
	pats = calloc(n + 1, sizeof(*pats));
	if (!pats)
		return tp_oom();
	for (k = 0, n = 0; k < set->njobs; k++)
		for (i = 0; i < set->jobs[k].o->nevents; i++)
			pats[n++] = set->jobs[k].o->events[i];
	spec.events = pats;
	spec.nevents = n;
	if (kbs && snprintf(kb, sizeof(kb), "%llu", kbs) > 0)
		spec.buffer_kb = kb;
	/* the probes of every job, made once for the session */
	for (k = 0, n = 0; k < set->njobs; k++)
		n += set->jobs[k].o->probes.n;
	probes = calloc(n + 1, sizeof(*probes));
	if (!probes) {
		free(pats);
		return tp_oom();
	}
	for (k = 0, n = 0; k < set->njobs; k++)
		for (i = 0; i < set->jobs[k].o->probes.n; i++)
			probes[n++] = set->jobs[k].o->probes.v[i];
	spec.probes = probes;
	spec.nprobes = n;
	for (k = 0; k < set->njobs; k++) {
		const struct agg_spec *as = &set->jobs[k].o->spec;

		for (i = 0; !set->jobs[k].try_kernel && i < as->nkeys; i++) {
			/* a recording has its stacks, or none */
			if (as->kind[i] == AGG_KEY_STACK && !set->jobs[k].o->input)
				spec.flags |= LIVE_KSTACK;
			/* a comm key names a task as it was at the event (agg_comm_key) */
			if (as->kind[i] == AGG_KEY_COMM)
				spec.flags |= LIVE_NAMES;
		}
		/* the forks of the target's tasks: their children are the target's (agg_own) */
		if (!set->jobs[k].try_kernel && as->join)
			spec.flags |= LIVE_NAMES;
	}
	if (!set->reading)
		spec.flags |= LIVE_NOREAD;
	/* thread mode: the per-CPU trace_pipe_raw files, read by the threads */
	set->threads = set->reading && threads_fit(set);
	if (set->threads)
		spec.flags |= LIVE_PAGES;
	ret = live_open(&set->l, &spec);
	free(pats);
	free(probes);
	if (ret)
		set_reset(set);
	return ret;
}

static int set_open(struct agg_set **setp, const struct agg_opts *const *o, int n,
		    bool threads)
{
	struct agg_set *set = calloc(1, sizeof(*set));
	int k, ret;

	*setp = NULL;
	if (set)
		set->jobs = calloc(n, sizeof(*set->jobs));
	if (!set || !set->jobs) {
		free(set);
		return tp_oom();
	}
	set->njobs = n;
	set->want_threads = threads;
	set->same_filter = true;
	set->filter = o[0]->filter;
	for (k = 0; k < n; k++) {
		set->jobs[k].o = o[k];
		/* a recording has no hist triggers: what it holds is read */
		/* --strings events are probes on synthetic events: read from the buffers */
		set->jobs[k].try_kernel = o[k]->engine != AGG_ENGINE_USER && !o[k]->input &&
					  !o[k]->strings;
		if (o[k]->engine == AGG_ENGINE_KERNEL && (o[k]->input || o[k]->strings)) {
			if (o[k]->input)
				tp_error("'--input' reads a recording: the user engine does "
					 "('--engine user')");
			else
				tp_error("'--strings' events are read from the ring buffer: the "
					 "user engine does ('--engine user')");
			free(set->jobs);
			free(set);
			return TP_USAGE;
		}
		if ((o[k]->filter == NULL) != (set->filter == NULL) ||
		    (o[k]->filter && strcmp(o[k]->filter, set->filter)))
			set->same_filter = false;
	}
	/* a job the kernel engine cannot do moves to the user engine; at most once each */
	for (k = 0; (ret = set_session(set)) == -1 && k <= n; k++)
		;
	if (!ret)
		ret = kernel_continue(set);
	if (!ret && set->threads)
		ret = threads_start(set);
	for (k = 0; !ret && k < n; k++)
		tp_debug("%s engine, %zu event(s) in %s", set->jobs[k].kernel ? "kernel" : "user",
			 set->jobs[k].evs.n,
			 o[0]->input ? o[0]->input : tfs_instance_label(live_instance(set->l)));
	if (ret) {
		agg_set_close(set, ret);
		return ret == -1 ? TP_FAIL : ret;
	}
	*setp = set;
	return TP_OK;
}

int agg_set_open(struct agg_set **setp, const struct agg_opts *const *o, int n)
{
	return set_open(setp, o, n, false);
}

int agg_set_kernel_jobs(const struct agg_set *set)
{
	int k, n = 0;

	for (k = 0; k < set->njobs; k++)
		n += set->jobs[k].kernel;
	return n;
}

bool agg_set_kernel(const struct agg_set *set, int i)
{
	return set->jobs[i].kernel;
}

struct agg *agg_set_agg(struct agg_set *set, int i)
{
	return set->jobs[i].agg;
}

int agg_set_start(struct agg_set *set)
{
	/*
	 * Before: live_start() lets COMMAND run, which may make its first
	 * events before live_start() returns; the first interval covers
	 * everything from tracing's start to the last event read.
	 */
	const int *pids;
	bool follow;
	size_t n;
	int k;

	/* a latency counts the pairs of the target's tasks only */
	for (k = 0; k < set->njobs; k++) {
		const struct agg_opts *o = set->jobs[k].o;

		if (!set->jobs[k].kernel && o->spec.join && !o->input && o->target &&
		    target_tasks(o->target, &pids, &n, &follow) &&
		    agg_own(set->jobs[k].agg, pids, n, follow) < 0)
			return tp_oom();
	}
	set->start = set->last = tp_now_s();
	return live_start(set->l);
}

/*
 * What the jobs keep per task goes with the task (agg_tasks_reap): looked
 * for every second, or 50 times what the last look cost when that is more
 * (thousands of tasks, one read of /proc each), so that it stays 2% of a CPU
 * at most; sooner when the tasks tracked have doubled since (thousands of
 * processes a second).  Only live: a recording's pids are not this
 * machine's tasks.  Then the allocator gives back what is free (its cost
 * is in the look's): what the tasks held, the tables of scrapes and the
 * names read again come and go in several threads' arenas, whose free pages
 * would otherwise stay resident.
 */
static void reap(struct agg_set *set)
{
	double t, cost;
	size_t n = 0;
	int k;

	if (!live_instance(set->l))
		return;
	for (k = 0; k < set->njobs; k++)
		if (!set->jobs[k].kernel)
			n += agg_tasks_tracked(set->jobs[k].agg);
	t = tp_now_s();
	if (t < set->reap_at && n <= set->reap_tracked * 2 + 4096)
		return;
	for (k = 0, n = 0; k < set->njobs; k++)
		if (!set->jobs[k].kernel) {
			agg_tasks_reap(set->jobs[k].agg);
			n += agg_tasks_tracked(set->jobs[k].agg);
		}
	/* each reader thread's names too (its rows not merged yet fold as the metric's do) */
	for (k = 0; set->pc && k < set->ntagg; k++) {
		pthread_mutex_lock(&set->tagg[k].lock);
		agg_tasks_reap(set->tagg[k].agg);
		n += agg_tasks_tracked(set->tagg[k].agg);
		pthread_mutex_unlock(&set->tagg[k].lock);
	}
	tp_debug("tasks tracked after a look for those gone: %zu", n);
	set->reap_tracked = n;
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	cost = tp_now_s() - t;
	set->reap_at = t + (cost * 50 > 1 ? cost * 50 : 1);
}

/* One metric, its filter the kernel's: nothing to choose per record. */
static int one_record(void *ctx, struct tep_record *rec, long long lost)
{
	(void)lost;
	agg_record(((struct agg_set *)ctx)->jobs[0].agg, rec);
	return LIVE_GO;
}

static int all_record(void *ctx, struct tep_record *rec, long long lost)
{
	(void)lost;
	dispatch(ctx, rec);
	return LIVE_GO;
}

/* At each look of the session loop: a reader thread that failed, the tasks gone. */
static int set_look(void *ctx)
{
	struct agg_set *set = ctx;

	if (set->pc && percpu_error(set->pc)) {
		tp_error("cannot read the ring buffer: %s", strerror(percpu_error(set->pc)));
		return LIVE_FAIL;
	}
	if (set->reading)
		reap(set);
	return LIVE_GO;
}

/*
 * The set's callbacks for the session loop: records read here by the user
 * engine; the kernel engine and the reader threads only wait (a second at
 * a time for the kernel's: only the clock and the target are looked at).
 */
static struct live_tool set_tool(struct agg_set *set)
{
	return (struct live_tool){
		.record = set->njobs == 1 && !set->jobs[0].filter ? one_record : all_record,
		.check = set_look, .ctx = set, .start = set->start,
		.wait_ms = set->reading ? WAIT_MS : 1000,
		.flags = !set->reading || set->pc ? LIVE_RUN_NOREAD : 0,
	};
}

int agg_set_read(struct agg_set *set, int timeout_ms, bool *done)
{
	struct live_tool tool = set_tool(set);
	long n = 0;

	*done = false;
	if (set_look(set) < 0)
		return TP_FAIL;
	/* what is ready now, in bounded portions so that the caller keeps its clock */
	if (set->reading && !set->pc) {
		n = live_read_ready(set->l, &tool, READ_MAX);
		if (n < 0)
			return TP_FAIL;
	}
	/* fewer than asked for: none is ready now */
	set->idle = n < READ_MAX;
	/* the target is gone: what it left in the buffers is read by agg_set_drain */
	if (set->idle && live_done(set->l))
		*done = true;
	else
		agg_set_wait(set, timeout_ms);
	return TP_OK;
}

void agg_set_wait(struct agg_set *set, int timeout_ms)
{
	if (!set->idle || timeout_ms <= 0)
		return;
	/* a signal ends the wait (no SA_RESTART), COMMAND's exit too (SIGCHLD) */
	if (set->reading && !set->pc)
		live_wait(set->l, timeout_ms);
	else
		state_pause(timeout_ms);
}

int agg_set_drain(struct agg_set *set)
{
	struct live_tool tool = set_tool(set);
	int k;

	tool.record = all_record;
	if (set->pc) {
		live_drain(set->l);
		if (threads_finish(set))
			return TP_FAIL;
	} else if (set->reading && live_finish(set->l, &tool)) {
		return TP_FAIL;
	}
	collect(set);
	/* events whose stack never came count without one */
	for (k = 0; k < set->njobs; k++)
		if (!set->jobs[k].kernel)
			agg_flush(set->jobs[k].agg);
	return TP_OK;
}

void agg_set_collect(struct agg_set *set)
{
	collect(set);
}

int agg_set_close(struct agg_set *set, int ret)
{
	if (!set)
		return ret;
	/* the threads end before the session closes their descriptors */
	threads_free(set);
	ret = live_close(set->l, ret);
	set_reset(set);
	free(set->jobs);
	free(set);
	return ret;
}

/* Print one table: the current interval's rows, or the totals. */
static void emit(struct agg_set *st, bool totals, bool screen)
{
	const struct agg_opts *o = st->jobs[0].o;
	struct output_agg oa = {
		.hist = o->hist,
		.field = o->spec.value,
		.start = o->spec.join ? o->spec.join->start : NULL,
		.end = o->spec.join ? o->spec.join->end : NULL,
		.ts_ns = wall_ns(),
		.clear = screen,
	};
	double now = tp_now_s();
	struct agg_table *t;
	char title[128];

	oa.interval_ns = (now - (totals ? st->start : st->last)) * (double)TP_NS_PER_S;
	t = agg_snapshot(st->jobs[0].agg, totals, o->top);
	if (!t) {
		tp_oom();
		st->out_failed = true;
		st->out_errno = ENOMEM;
		return;
	}
	if (o->interval > 0) {
		time_t wall = time(NULL);
		struct tm tm;
		size_t n;

		localtime_r(&wall, &tm);
		n = totals ? (size_t)snprintf(title, sizeof(title), "totals") :
		    strftime(title, sizeof(title), "%H:%M:%S", &tm);
		n += snprintf(title + n, sizeof(title) - n, " (%.2f s", oa.interval_ns / (double)TP_NS_PER_S);
		if (t->lost)
			n += snprintf(title + n, sizeof(title) - n, ", %llu events lost",
				      (unsigned long long)t->lost);
		snprintf(title + n, sizeof(title) - n, ")");
		oa.title = title;
	}
	if (!st->out_failed && output_agg(stdout, o->json ? OUTPUT_JSON : OUTPUT_TEXT, t, &oa) < 0) {
		st->out_failed = true;
		st->out_errno = errno;
	}
	else if (!totals && !screen && !o->json && o->interval > 0)
		putchar('\n');
	agg_table_free(t);
}

/* The end of an interval: collect, print, start the next one. */
static int tick(void *ctx, double now)
{
	struct agg_set *set = ctx;

	(void)now;
	collect(set);
	emit(set, false, set->screen);
	agg_interval_end(set->jobs[0].agg);
	set->last = tp_now_s();
	return set->out_failed ? LIVE_STOP : LIVE_GO;
}

/*
 * --folded, --flamegraph: a stack key, no other form of output; the SVG's
 * file is made now (a temporary one beside it), so that a path that cannot
 * be written fails before anything is traced.
 */
static int flame_begin(const struct agg_opts *o, struct flame_file *ff)
{
	const char *opt = o->folded ? "--folded" : "--flamegraph";
	int k;

	memset(ff, 0, sizeof(*ff));
	if (!o->folded && !o->flamegraph)
		return TP_OK;
	for (k = 0; k < o->spec.nkeys && o->spec.kind[k] != AGG_KEY_STACK; k++)
		;
	if (k == o->spec.nkeys) {
		tp_error("'%s' draws stacks: it needs a 'stack' key (--by stack, --by comm,stack)",
			 opt);
		return TP_USAGE;
	}
	if (o->json || o->interval > 0) {
		tp_error("'%s' and '%s' cannot be used together", opt,
			 o->json ? "--json" : "--interval");
		return TP_USAGE;
	}
	return o->flamegraph ? flame_file_open(ff, o->flamegraph) : TP_OK;
}

static bool table_has_stacks(const struct agg_table *t)
{
	size_t i;
	int k;

	for (i = 0; i < t->n; i++)
		for (k = 0; k < t->spec->nkeys; k++)
			if (t->type[k] == AGG_COL_STACK && t->g[i].key[k].v)
				return true;
	return false;
}

/* The totals as folded lines on stdout and the SVG, its file put in place. */
static int flame_end(struct agg *agg, const struct agg_opts *o, struct flame_file *ff, int ret)
{
	struct output_flame of = { .latency = o->spec.join != NULL,
				   .folded = o->folded ? stdout : NULL, .svg = ff->f };
	struct agg_table *t = NULL;
	char title[256];
	size_t n;
	int i;

	if (!ret) {
		agg_interval_end(agg);
		t = agg_snapshot(agg, true, 0);
		ret = t ? TP_OK : tp_oom();
	}
	if (!ret && t->n && !table_has_stacks(t)) {
		tp_error("no event came with a kernel stack%s", o->input ?
			 ": the recording has none (tpctl record --stack)" : "");
		ret = TP_FAIL;
	}
	if (!ret) {
		n = (size_t)snprintf(title, sizeof(title), "tpctl %s", tp.cmd);
		for (i = 0; i < o->nevents && n < sizeof(title); i++)
			n += (size_t)snprintf(title + n, sizeof(title) - n, " %s", o->events[i]);
		of.title = title;
		if (output_flame(t, &of) < 0 && errno == ENOMEM)
			ret = tp_oom();
	}
	agg_table_free(t);
	if (ret || !ff->f) {
		flame_file_abort(ff);
		return ret;
	}
	return flame_file_commit(ff);
}

/* After the run: the last interval (not on a screen: the totals replace it), the totals. */
static int agg_end(struct agg_set *set, const struct agg_opts *o, struct flame_file *ff, int ret)
{
	struct agg *agg = agg_set_agg(set, 0);
	unsigned long long inferred;
	struct agg_table *tab;
	char cpus[256];

	if (o->folded || o->flamegraph) {
		ret = flame_end(agg, o, ff, ret);
	} else if (o->interval > 0 && !set->screen && !set->out_failed) {
		emit(set, false, false);
		agg_interval_end(agg);
		if (!o->json)
			emit(set, true, false);
	} else {
		agg_interval_end(agg);
		emit(set, true, set->screen);
	}
	tab = agg_snapshot(agg, true, 1);
	if (tab && tab->lost && agg_set_kernel(set, 0))
		tp_warn("%llu events lost: the kernel's hist table was full ('--engine user' "
			"keeps them)", (unsigned long long)tab->lost);
	else if (tab && tab->lost)
		live_warn_lost(tab->lost);
	agg_table_free(tab);
	inferred = agg_inferred(agg, cpus, sizeof(cpus));
	if (inferred)
		tp_warn("%llu switches in that the kernel did not record were inferred (%s: a task "
			"switched out ran again with no switch in recorded)", inferred, cpus);
	output_faults_report(agg_faults(agg));
	if (set->out_failed)
		ret = live_stdout_failed(set->out_errno, ret);
	return ret;
}

int agg_run(const struct agg_opts *o)
{
	struct live_tool tool;
	struct agg_set *set;
	struct flame_file ff;
	int ret;

	if (tp.instance) {
		tp_error("%s traces in a private instance; '-i %s' cannot be used", tp.cmd,
			 tp.instance);
		return TP_USAGE;
	}
	ret = flame_begin(o, &ff);
	if (ret)
		return ret;
	ret = set_open(&set, &o, 1, true);
	if (ret) {
		flame_file_abort(&ff);
		return ret;
	}
	set->screen = !o->json && o->interval > 0 && isatty(STDOUT_FILENO);
	ret = agg_set_start(set);
	if (!ret) {
		tool = set_tool(set);
		tool.duration = o->duration;
		tool.interval = o->interval;
		tool.tick = tick;
		ret = live_run(set->l, &tool);
		if (!ret)
			ret = agg_set_drain(set);
		else
			agg_set_drain(set);
		ret = agg_end(set, o, &ff, ret);
	}
	flame_file_abort(&ff);
	return agg_set_close(set, ret);
}

int agg_parse_begin(struct agg_opts *o, struct target *t, int argc, char **argv,
		    const struct tp_cmd_spec *spec, struct tp_args *args)
{
	int ret;

	memset(o, 0, sizeof(*o));
	ret = target_parse(t, argc, argv, spec, args);
	if (ret)
		return ret;
	/* COMMAND's output must not mix with the tables on stdout */
	t->stdout_to_stderr = true;
	o->target = t;
	return TP_OK;
}

int agg_parse_end(struct agg_opts *o, const struct tp_args *args, unsigned long long top,
		  int ret)
{
	if (ret) {
		agg_spec_release(&o->spec);
		target_free(o->target);
		return ret;
	}
	o->events = args->argv;
	o->nevents = args->argc;
	o->top = top;
	return TP_OK;
}

int agg_main(int (*parse)(struct agg_opts *o, struct target *t, int argc, char **argv),
	     int argc, char **argv)
{
	struct target tgt;
	struct agg_opts o;
	int ret;

	ret = parse(&o, &tgt, argc, argv);
	if (ret)
		return opt_status(ret);
	ret = o.run ? o.run(&o) : agg_run(&o);
	agg_spec_release(&o.spec);
	target_free(&tgt);
	return ret;
}
