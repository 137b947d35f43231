// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record_rotate - record's cuttable file set and --switch-output (see
 * record_rotate.h).
 *
 * A cut: the main thread makes the next file and publishes it (want); each
 * reader thread, before its next look at a CPU, commits what that CPU put
 * into the old file and moves the CPU to the new one; percpu_sync() returns
 * once every thread has made a whole pass after that, so no thread touches
 * the old file any more and it is finished and renamed.  Every sub-buffer
 * read goes to exactly one file: none is lost or doubled across a cut.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "dat.h"
#include "live.h"
#include "opt.h"
#include "percpu.h"
#include "record_rotate.h"
#include "state.h"
#include "util.h"

/* version 7: pages kept back longer than this are committed (the bound on a KILL's loss) */
#define ROT_FLUSH_S 1.0
/* the threads' poll timeout */
#define ROT_POLL_MS 250

struct rot {
	struct rot_spec s;
	struct percpu *pc;
	struct dat_writer *want;	/* the file every CPU moves to at its next look */
	struct dat_writer **cur;	/* per CPU: the file its pages go to now */
	double *flushed;		/* per CPU: when its kept-back pages were last committed */
	struct tracefs_cpu **tcpu;
	int *fds;
	char *path, *part;		/* the current file's name, and its name while written */
	bool woken;			/* s.wake_bytes reached in the current file: told once */
};

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
	/* the session's wait ends now */
	state_wake();
}

void rot_usr1_catch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART, as the session's other handlers */
	sigaction(SIGUSR1, &sa, NULL);
}

unsigned long rot_usr1_count(void)
{
	return usr1;
}

char *rot_name(const char *base, unsigned long n)
{
	char *s;

	if (asprintf(&s, "%s.%lu", base, n) < 0) {
		tp_oom();
		return NULL;
	}
	return s;
}

/* The pages a CPU put into its old file committed there: 0 or -1/errno. */
static int settle(struct rot *r, struct dat_writer *w, int cpu)
{
	if (r->s.version == 6)
		return dat_cpu_commit(w, cpu);
	r->flushed[cpu] = tp_now_s();
	return dat_cpu_flush(w, cpu);
}

/* Before a look at cpu: a cut asked for moves it to the new file. */
static void looking(void *ctx, int cpu, bool start)
{
	struct rot *r = ctx;
	struct dat_writer *w = __atomic_load_n(&r->want, __ATOMIC_ACQUIRE);

	if (!start || r->cur[cpu] == w)
		return;
	/* an error shows at the old file's dat_finish(): the write failed there too */
	settle(r, r->cur[cpu], cpu);
	r->cur[cpu] = w;
}

static int move_fd(void *ctx, int cpu)
{
	struct rot *r = ctx;

	return dat_cpu_fd(r->cur[cpu], cpu);
}

static int pages_in(void *ctx, int thread, int cpu, const void *buf, size_t len)
{
	struct rot *r = ctx;

	(void)thread;
	return dat_cpu_write(r->cur[cpu], cpu, buf, len);
}

static int after_look(void *ctx, int thread, int cpu, bool moved, bool final)
{
	struct rot *r = ctx;
	int ret = 0;

	(void)thread;
	if (!(r->s.version == 6 && !moved && !final) &&
	    !(r->s.version == 7 && !final && tp_now_s() - r->flushed[cpu] < ROT_FLUSH_S))
		ret = settle(r, r->cur[cpu], cpu);
	/*
	 * A size cut is the session's to make: woken now rather than at its
	 * 250 ms look, it cuts before a fast producer fills much past SIZE.
	 */
	if (moved && r->s.wake_bytes && !__atomic_load_n(&r->woken, __ATOMIC_RELAXED) &&
	    rot_size(r) >= r->s.wake_bytes && !__atomic_exchange_n(&r->woken, true, __ATOMIC_RELAXED))
		state_wake();
	return ret;
}

/* A new file under path.part; NULL after the error. */
static struct dat_writer *file_open(struct rot *r, const char *path, char **part)
{
	struct dat_writer *w;

	if (asprintf(part, "%s.part", path) < 0) {
		tp_oom();
		return NULL;
	}
	w = r->s.create(r->s.ctx, *part);
	if (!w) {
		unlink(*part);
		free(*part);
		*part = NULL;
	}
	return w;
}

/* w finished and renamed from part to path; on failure removed, the error said. */
static int file_close(struct rot *r, struct dat_writer *w, const char *path, const char *part)
{
	r->s.end(r->s.ctx, w);
	if (dat_finish(w) < 0) {
		tp_error("cannot write '%s': %s", path, strerror(errno));
		unlink(part);
		return TP_FAIL;
	}
	if (rename(part, path) < 0) {
		tp_error("cannot rename '%s' to '%s': %s", part, path, strerror(errno));
		unlink(part);
		return TP_FAIL;
	}
	tp_debug("wrote '%s'", path);
	return TP_OK;
}

static void rot_free(struct rot *r)
{
	free(r->cur);
	free(r->flushed);
	free(r->tcpu);
	free(r->fds);
	free(r->path);
	free(r->part);
	free(r);
}

static int threads_start(struct rot *r)
{
	const struct rot_spec *s = &r->s;
	int ret;

	ret = percpu_start(&r->pc, &(struct percpu_spec){
		.ncpus = s->ncpus, .tcpu = r->tcpu, .fd = r->fds, .subbuf = s->subbuf,
		.nthreads = s->nthreads, .timeout_ms = ROT_POLL_MS,
		.ring_subbufs = live_page_count(s->l),
		.move_fd = s->version == 6 ? move_fd : NULL,
		.pages = pages_in, .idle = after_look, .looking = looking, .ctx = r,
	});
	if (!ret && s->hide)
		ret = live_hide_tasks(s->l, percpu_tids(r->pc), percpu_nthreads(r->pc));
	return ret;
}

int rot_start(struct rot **rp, const struct rot_spec *s, const char *path)
{
	struct rot *r = calloc(1, sizeof(*r));
	double t = tp_now_s();
	int ret;

	*rp = NULL;
	if (!r)
		return tp_oom();
	r->s = *s;
	r->cur = calloc(s->ncpus, sizeof(*r->cur));
	r->flushed = calloc(s->ncpus, sizeof(*r->flushed));
	r->tcpu = calloc(s->ncpus, sizeof(*r->tcpu));
	r->fds = calloc(s->ncpus, sizeof(*r->fds));
	r->path = strdup(path);
	if (!r->cur || !r->flushed || !r->tcpu || !r->fds || !r->path) {
		rot_free(r);
		return tp_oom();
	}
	r->want = file_open(r, path, &r->part);
	if (!r->want) {
		rot_free(r);
		return TP_FAIL;
	}
	for (int c = 0; c < s->ncpus; c++) {
		r->cur[c] = r->want;
		r->flushed[c] = t;
		r->tcpu[c] = live_page_cpu(s->l, c);
		r->fds[c] = live_page_fd(s->l, c);
	}
	ret = threads_start(r);
	*rp = r;
	return ret;
}

int rot_cut(struct rot *r, const char *next)
{
	struct dat_writer *old = r->want, *w;
	char *part, *path = strdup(next);
	int ret;

	if (!path)
		return tp_oom();
	w = file_open(r, next, &part);
	if (!w) {
		free(path);
		return TP_FAIL;
	}
	__atomic_store_n(&r->want, w, __ATOMIC_RELEASE);
	/* every thread has looked at its CPUs since: all of them write into w */
	percpu_sync(r->pc);
	/*
	 * w's size wakes the session from now on.  A wake given meanwhile (by
	 * the old file's size or by w's) is still in the session's wake pipe:
	 * it looks again at its next wait, and cuts if w is due.
	 */
	__atomic_store_n(&r->woken, false, __ATOMIC_RELAXED);
	ret = file_close(r, old, r->path, r->part);
	free(r->path);
	free(r->part);
	r->path = path;
	r->part = part;
	return ret;
}

unsigned long long rot_size(struct rot *r)
{
	unsigned long long n = 0;

	struct dat_writer *w = __atomic_load_n(&r->want, __ATOMIC_ACQUIRE);

	for (int c = 0; c < r->s.ncpus; c++)
		n += dat_cpu_size(w, c);
	return n;
}

bool rot_failed(struct rot *r)
{
	return percpu_error(r->pc) != 0;
}

int rot_finish(struct rot *r)
{
	int ret = TP_OK;

	if (!r)
		return TP_OK;
	if (r->pc && percpu_finish(r->pc) < 0) {
		tp_error("cannot write '%s': %s", r->path, strerror(errno));
		dat_close(r->want);
		unlink(r->part);
		ret = TP_FAIL;
	} else {
		ret = file_close(r, r->want, r->path, r->part);
	}
	rot_free(r);
	return ret;
}

int rot_switch_opt(const struct tp_opt *o, const char *arg)
{
	struct rot_switch *sw = o->value;
	unsigned long long *bytes = &sw->bytes;
	double *seconds = &sw->seconds;
	static const struct { const char *unit; unsigned long long mul; } units[] = {
		{ "B", 1 }, { "K", 1ULL << 10 }, { "M", 1ULL << 20 }, { "G", 1ULL << 30 },
	};
	unsigned long long n;
	char *end;

	*bytes = 0;
	*seconds = 0;
	errno = 0;
	n = strtoull(arg, &end, 10);
	for (size_t i = 0; end != arg && *arg != '-' && !errno && i < sizeof(units) / sizeof(*units);
	     i++) {
		if (strcasecmp(end, units[i].unit))
			continue;
		if (n && n <= (1ULL << 50) / units[i].mul) {
			*bytes = n * units[i].mul;
			return TP_OK;
		}
	}
	/* a bare number would be either: a unit says which */
	if (end != arg && !*end)
		tp_error("invalid value '%s' for '--switch-output': a unit says which, a size "
			 "(100M, 1G) or a duration (10s, 5m)", arg);
	else if (tp_parse_seconds(arg, seconds) && *seconds > 0)
		return TP_OK;
	else
		tp_error("invalid value '%s' for '--switch-output': a size (B, K, M, G) or a "
			 "duration (ms, s, m, h) above 0", arg);
	return TP_USAGE;
}

/* ---------------------------------------------------------- --switch-output */

struct rotating {
	const struct rot_spec *s;
	const struct rotate_run *run;
	struct rot *r;
	unsigned long n;		/* the current file's number */
	unsigned long usr1;		/* the SIGUSR1s cut for so far */
	bool due;			/* the clock asked for a cut */
	int err;
};

/* The current file finished, the next one begun; the oldest beyond --max-files removed. */
static int rotate_cut(struct rotating *g)
{
	char *next = rot_name(g->run->base, g->n + 1), *old;
	int ret;

	if (!next)
		return TP_FAIL;
	ret = rot_cut(g->r, next);
	free(next);
	g->n++;
	if (g->run->max_files && g->n > g->run->max_files) {
		old = rot_name(g->run->base, g->n - g->run->max_files);
		if (old && unlink(old) < 0 && errno != ENOENT)
			tp_warn("cannot remove '%s': %s", old, strerror(errno));
		free(old);
	}
	return ret;
}

static int rotate_check(void *ctx)
{
	struct rotating *g = ctx;
	bool cut = g->due;

	if (rot_failed(g->r))
		return LIVE_STOP;
	if (rot_usr1_count() != g->usr1) {
		g->usr1++;
		cut = true;
	}
	if (g->run->bytes && rot_size(g->r) >= g->run->bytes)
		cut = true;
	g->due = false;
	if (cut && rotate_cut(g)) {
		g->err = TP_FAIL;
		return LIVE_FAIL;
	}
	return LIVE_GO;
}

static int rotate_tick(void *ctx, double now)
{
	struct rotating *g = ctx;

	(void)now;
	g->due = true;
	return rotate_check(ctx);
}

int rotate_record(const struct rot_spec *s, const struct rotate_run *run)
{
	struct rot_spec spec = *s;
	struct rotating g = { .s = &spec, .run = run, .n = 1 };
	char *first = rot_name(run->base, 1);
	int ret, end;

	if (!first)
		return TP_FAIL;
	rot_usr1_catch();
	g.usr1 = rot_usr1_count();
	/* the threads start before tracing does: their own events are hidden by then */
	spec.wake_bytes = run->bytes;
	ret = rot_start(&g.r, &spec, first);
	free(first);
	if (!ret)
		ret = live_start(s->l);
	if (!ret)
		ret = live_run(s->l, &(struct live_tool){
			.check = rotate_check, .tick = rotate_tick, .ctx = &g,
			.duration = run->duration, .interval = run->seconds,
			.wait_ms = ROT_POLL_MS, .flags = LIVE_RUN_NOREAD,
		});
	if (g.err)
		ret = g.err;
	live_drain(s->l);
	end = rot_finish(g.r);
	return ret ? ret : end;
}
