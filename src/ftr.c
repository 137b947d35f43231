// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr - the function and function_graph tracers for one run (see ftr.h).
 *
 * Everything a user can get wrong is found before anything changes: the
 * kernel's available_tracers and available_filter_functions are read first,
 * so a locked-down kernel (which refuses to list the functions, and to set
 * the tracer) is reported with nothing created, and a name that matches no
 * traceable function is an error that suggests the closest one.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "ftr.h"
#include "near.h"
#include "state.h"
#include "tfs.h"
#include "util.h"

/* Where a run at the top level leaves its undo list for `tpctl reset` (state_mirror). */
#define FTR_NOTE_DIR "/run/tpctl"

static int add(const char **v, int *n, const char *arg, const char *what)
{
	if (*n == FTR_MAX) {
		tp_error("at most %d %s", FTR_MAX, what);
		return TP_USAGE;
	}
	if (!*arg || (arg[0] == '!' && !arg[1]) || strpbrk(arg, " \t\n")) {
		tp_error("invalid function name '%s'", arg);
		return TP_USAGE;
	}
	v[(*n)++] = arg;
	return TP_OK;
}

int ftr_function_opt(const struct tp_opt *o, const char *arg)
{
	struct ftr_spec *f = o->value;

	return add(f->func, &f->nfunc, arg, "--function patterns");
}

int ftr_graph_opt(const struct tp_opt *o, const char *arg)
{
	struct ftr_spec *f = o->value;

	return add(f->graph, &f->ngraph, arg, "--graph functions");
}

int ftr_graph_notrace_opt(const struct tp_opt *o, const char *arg)
{
	struct ftr_spec *f = o->value;

	return add(f->gnotrace, &f->ngnotrace, arg, "--graph-notrace functions");
}

bool ftr_given(const struct ftr_spec *f)
{
	return f && (f->nfunc || f->ngraph);
}

const char *ftr_tracer(const struct ftr_spec *f)
{
	if (!f)
		return NULL;
	return f->ngraph ? "function_graph" : f->nfunc ? "function" : NULL;
}

int ftr_usage(const struct ftr_spec *f)
{
	if (!f->ngraph && f->ngnotrace) {
		tp_error("'--graph-notrace' needs '--graph'");
		return TP_USAGE;
	}
	if (!f->ngraph && f->depth) {
		tp_error("'--depth' needs '--graph'");
		return TP_USAGE;
	}
	return TP_OK;
}

/* ---------------------------------------------------------------- checks */

/* Why the kernel likely refused: the hint after the error. */
static const char *refusal_hint(int err)
{
	if (err == EPERM && geteuid() == 0)
		return "; a locked-down kernel refuses it";
	if (err == EPERM || err == EACCES)
		return "; run as root";
	if (err == EBUSY)
		return "; another tracer is using it";
	return "";
}

static void refused(const struct ftr_spec *f, const char *tracer, const char *what, int err)
{
	tp_error("the kernel refused the %s tracer (%s: %s%s)", tracer, what, strerror(err),
		 refusal_hint(err));
	(void)f;
}

/* A word of a space-separated list file ("blk function nop"). */
static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

static char *read_top(const char *file, int *err)
{
	char *path = NULL, *buf;

	if (asprintf(&path, "%s/%s", tfs_dir(), file) < 0) {
		*err = ENOMEM;
		return NULL;
	}
	errno = 0;
	buf = tp_read_file(path, NULL);
	*err = buf ? 0 : errno ? errno : EIO;
	free(path);
	return buf;
}

/* Does any function of the list (one "name [module]" a line) match pattern? */
static int pattern_check(const struct ftr_spec *f, char *const *names, size_t n,
			 const char *pattern)
{
	struct near near;
	char hint[512];
	size_t i;

	for (i = 0; i < n; i++)
		if (!fnmatch(pattern, names[i], 0))
			return TP_OK;
	/* the closest: by edit distance, among names that share its first letter or any */
	near_init(&near, pattern, NEAR_MAX);
	for (i = 0; i < n; i++)
		if (names[i][0] == pattern[0] || !strpbrk(pattern, "*?["))
			near_add(&near, names[i], strlen(names[i]));
	near_list(&near, hint, sizeof(hint));
	near_free(&near);
	tp_error("no such function '%s'%s", pattern, hint);
	(void)f;
	return TP_USAGE;
}

int ftr_check(const struct ftr_spec *f)
{
	const char *tracer = ftr_tracer(f);
	char *tracers, *all, *line, *save = NULL, **names = NULL;
	size_t n = 0, alloc = 0;
	int err, ret = TP_OK, i;

	if (!tracer)
		return TP_OK;
	ret = ftr_usage(f);
	if (ret)
		return ret;
	tracers = read_top("available_tracers", &err);
	if (!tracers) {
		refused(f, tracer, "reading available_tracers", err);
		return TP_FAIL;
	}
	if (!word_in(tracers, tracer)) {
		size_t l = strcspn(tracers, "\n");

		tracers[l] = '\0';
		tp_error("the kernel has no %s tracer (available_tracers: %s)", tracer, tracers);
		free(tracers);
		return TP_FAIL;
	}
	free(tracers);
	all = read_top("available_filter_functions", &err);
	if (!all) {
		refused(f, tracer, "reading available_filter_functions", err);
		return TP_FAIL;
	}
	/* "name", "name [module]": the bare names */
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " \t")] = '\0';
		if (n == alloc) {
			char **nn = realloc(names, (alloc = alloc ? 2 * alloc : 65536) * sizeof(*nn));

			if (!nn) {
				tp_oom();
				ret = TP_FAIL;
				goto out;
			}
			names = nn;
		}
		names[n++] = line;
	}
	for (i = 0; !ret && i < f->nfunc; i++)
		ret = pattern_check(f, names, n, f->func[i] + (f->func[i][0] == '!'));
	for (i = 0; !ret && i < f->ngraph; i++)
		ret = pattern_check(f, names, n, f->graph[i]);
	for (i = 0; !ret && i < f->ngnotrace; i++)
		ret = pattern_check(f, names, n, f->gnotrace[i]);
out:
	free(names);
	free(all);
	return ret;
}

bool ftr_graph_needs_top(const struct ftr_spec *f, struct tracefs_instance *inst)
{
	char *tracers;
	bool in;

	if (!f || !f->ngraph || !inst)
		return false;
	tracers = tracefs_instance_file_read(inst, "available_tracers", NULL);
	in = tracers && word_in(tracers, "function_graph");
	free(tracers);
	return !in;
}

/* ---------------------------------------------------------------- writes */

/*
 * A list file (set_ftrace_filter and its kin) set to words, journaled once:
 * the kernel takes one word per write(2), which state_write() loops over.
 */
static int list_set(const struct ftr_spec *f, struct tracefs_instance *inst, const char *file,
		    const char *const *v, int n, bool bang)
{
	char *path, *val;
	size_t len = 0;
	int i, ret = TP_OK;

	for (i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	val = calloc(1, len + 1);
	if (!val)
		return tp_oom();
	for (i = 0; i < n; i++) {
		if ((v[i][0] == '!') != bang)
			continue;
		if (*val)
			strcat(val, " ");
		strcat(val, v[i] + bang);
	}
	if (!*val) {
		free(val);
		return TP_OK;
	}
	path = tracefs_instance_get_file(inst, file);
	if (!path || state_write(path, val, STATE_FTRACE) < 0) {
		int err = path ? errno : ENOMEM;
		char what[128];

		snprintf(what, sizeof(what), "writing %s", file);
		refused(f, ftr_tracer(f), what, err);
		ret = TP_FAIL;
	}
	tracefs_put_tracing_file(path);
	free(val);
	return ret;
}

static int file_set(const struct ftr_spec *f, struct tracefs_instance *inst, const char *file,
		    const char *val, enum state_kind kind)
{
	char *path = tracefs_instance_get_file(inst, file);
	int ret = TP_OK;

	if (!path || state_write(path, val, kind) < 0) {
		char what[128];

		snprintf(what, sizeof(what), "writing %s", file);
		refused(f, ftr_tracer(f), what, path ? errno : ENOMEM);
		ret = TP_FAIL;
	}
	tracefs_put_tracing_file(path);
	return ret;
}

/* The pids the events are limited to (set_event_pid of inst) for the functions too. */
static int pids_copy(const struct ftr_spec *f, struct tracefs_instance *inst, bool follow)
{
	char *pids = tracefs_instance_file_read(inst, "set_event_pid", NULL), *p;
	char self[32];
	int ret = TP_OK;

	/* tpctl's own reading is not traced */
	snprintf(self, sizeof(self), "%d", (int)getpid());
	if (tfs_has_file(inst, "set_ftrace_notrace_pid"))
		ret = file_set(f, inst, "set_ftrace_notrace_pid", self, STATE_FTRACE);
	if (!ret && pids && *pids) {
		for (p = pids; *p; p++)
			if (*p == '\n')
				*p = ' ';
		ret = file_set(f, inst, "set_ftrace_pid", pids, STATE_FTRACE);
		if (!ret && follow && tfs_has_file(inst, "options/function-fork"))
			ret = file_set(f, inst, "options/function-fork", "1", STATE_PLAIN);
	}
	free(pids);
	return ret;
}

/* A run at the top level leaves its undo list where `tpctl reset` finds it. */
static void note_top(void)
{
	char path[128];

	mkdir("/run", 0755);
	mkdir(FTR_NOTE_DIR, 0700);
	snprintf(path, sizeof(path), FTR_NOTE_DIR "/top-%d", (int)getpid());
	if (state_mirror(path) < 0)
		tp_warn("cannot write '%s': %s ('tpctl reset' cannot undo a KILLed run)", path,
			 strerror(errno));
}

int ftr_apply(const struct ftr_spec *f, struct tracefs_instance *inst, bool follow)
{
	const char *tracer = ftr_tracer(f);
	char *cur = NULL, depth[32];
	int ret;

	if (!tracer)
		return TP_OK;
	if (!inst) {
		/* the top level is shared: only a tracer nobody uses */
		cur = tracefs_instance_file_read(NULL, "current_tracer", NULL);
		if (cur && strncmp(cur, "nop\n", 4)) {
			cur[strcspn(cur, "\n")] = '\0';
			tp_error("the top-level tracer is in use ('%s'); --graph needs it on this "
				 "kernel (instances have no function_graph before Linux 6.9)", cur);
			free(cur);
			return TP_FAIL;
		}
		free(cur);
		note_top();
	}
	ret = list_set(f, inst, "set_ftrace_filter", f->func, f->nfunc, false);
	if (!ret)
		ret = list_set(f, inst, "set_ftrace_notrace", f->func, f->nfunc, true);
	if (!ret)
		ret = list_set(f, inst, "set_graph_function", f->graph, f->ngraph, false);
	if (!ret)
		ret = list_set(f, inst, "set_graph_notrace", f->gnotrace, f->ngnotrace, false);
	if (!ret && f->depth) {
		snprintf(depth, sizeof(depth), "%llu", f->depth);
		ret = file_set(f, inst, "max_graph_depth", depth, STATE_PLAIN);
	}
	if (!ret)
		ret = pids_copy(f, inst, follow);
	if (!ret)
		ret = file_set(f, inst, "current_tracer", tracer, STATE_PLAIN);
	if (!ret)
		tp_debug("%s tracer in %s", tracer, tfs_instance_label(inst));
	return ret;
}

/* ---------------------------------------------------------------- reset */

bool ftr_reset_orphans(void)
{
	DIR *d = opendir(FTR_NOTE_DIR);
	struct dirent *de;
	bool failed = false;

	if (!d)
		return false;
	while ((de = readdir(d))) {
		char path[512];
		int pid;

		if (sscanf(de->d_name, "top-%d", &pid) != 1 || pid <= 0)
			continue;
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), FTR_NOTE_DIR "/%s", de->d_name);
		if (state_replay(path) < 0) {
			tp_error("cannot put back what tpctl %d changed at the top level: %s", pid,
				 strerror(errno));
			failed = true;
			continue;
		}
		unlink(path);
		tp_note("put back the top-level tracer and files of tpctl %d (its process is gone)",
			pid);
	}
	closedir(d);
	return failed;
}
