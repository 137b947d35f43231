// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tfs - the tracefs layer; see tfs.h.  All reads go through libtracefs; the
 * writes that change tracing state go through the state journal, with paths
 * libtracefs builds, so that they can be undone.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "names.h"
#include "state.h"
#include "tfs.h"
#include "util.h"

/* The kernel refuses filter writes of a page or more (EINVAL); say so before trying. */
#define FILTER_MAX 4095

static char *tracing_dir;
static bool tfs_ready;		/* tfs_init() went through */
static struct tep_plugin_list *plugins;

static const char *perm_hint(int err)
{
	if (err == EACCES || err == EPERM)
		return "; run as root, or mount tracefs with gid= and give your group access";
	return "";
}

int tfs_init(void)
{
	const char *dir = NULL;
	struct stat st;
	char *path;

	/* a session opened again (another engine) finds it done */
	if (tfs_ready)
		return TP_OK;
	if (tp.tracefs) {
		if (stat(tp.tracefs, &st) < 0 || !S_ISDIR(st.st_mode)) {
			tp_error("no tracefs at '%s': %s", tp.tracefs,
				 errno ? strerror(errno) : "not a directory");
			return TP_FAIL;
		}
		tracing_dir = realpath(tp.tracefs, NULL);
		if (!tracing_dir || tracefs_set_tracing_dir(tracing_dir) < 0) {
			tp_error("cannot use '%s' as tracefs: %s", tp.tracefs, strerror(errno));
			return TP_FAIL;
		}
	} else {
		/*
		 * Mounts tracefs at /sys/kernel/tracing when nothing has yet.
		 * It returns 1 when tracefs was mounted already, 0 when it has
		 * just mounted it (a success: the first run on a fresh machine)
		 * and -1 when it could not.
		 */
		if (tracefs_tracing_dir_is_mounted(true, &dir) < 0 || !dir) {
			int err = errno;

			tp_error("tracefs is not mounted and cannot be mounted at "
				 "'/sys/kernel/tracing': %s%s",
				 err ? strerror(err) : "no tracefs", perm_hint(err));
			return TP_FAIL;
		}
		/* an allocated string that is ours (libtracefs 1.6): keep it, no copy */
		tracing_dir = (char *)dir;
	}
	if (asprintf(&path, "%s/available_events", tracing_dir) < 0)
		return TP_FAIL;
	if (access(path, R_OK) < 0) {
		int err = errno;

		free(path);
		if (err == ENOENT)
			tp_error("'%s' is not a tracefs (no available_events)", tracing_dir);
		else
			tp_error("cannot read '%s': %s%s", tracing_dir, strerror(err),
				 perm_hint(err));
		return TP_FAIL;
	}
	free(path);
	if (tp.verbose < 2) {
		tep_set_loglevel(TEP_LOG_NONE);
		tracefs_set_loglevel(TEP_LOG_NONE);
	}
	tfs_ready = true;
	return TP_OK;
}

const char *tfs_dir(void)
{
	return tracing_dir;
}

int tfs_count_cpus(struct tracefs_instance *inst)
{
	char *dir = tracefs_instance_get_file(inst, "per_cpu");
	struct dirent *e;
	int most = 0;
	DIR *d;

	if (!dir)
		return -1;
	d = opendir(dir);
	tracefs_put_tracing_file(dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char *end;
		long c;

		if (strncmp(e->d_name, "cpu", 3) || !isdigit((unsigned char)e->d_name[3]))
			continue;
		c = strtol(e->d_name + 3, &end, 10);
		if (!*end && c < TFS_MAX_CPUS && c + 1 > most)
			most = c + 1;
	}
	closedir(d);
	return most;
}

int tfs_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	/* (after tfs_init(): libtracefs knows the tree) */
	int most = tracing_dir ? tfs_count_cpus(NULL) : 0;

	if (most > n)
		n = most;
	return n > 0 ? (int)n : 1;
}

bool tfs_name_valid(const char *name)
{
	size_t i;

	if (!name || !*name || strlen(name) > 255)
		return false;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; name[i]; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

bool tfs_pattern_valid(const char *pattern)
{
	size_t i;
	int colons = 0;

	if (!pattern || !*pattern || strlen(pattern) > 511)
		return false;
	for (i = 0; pattern[i]; i++) {
		char c = pattern[i];

		if (c == ':') {
			/* "sys:" or ":event" are not names */
			if (++colons > 1 || i == 0 || !pattern[i + 1])
				return false;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' ||
		      c == '*' || c == '?' || c == '[' || c == ']'))
			return false;
	}
	/* "." and ".." as a system or event part, or anywhere */
	if (strstr(pattern, "..") || !strcmp(pattern, ".") || !strncmp(pattern, ".:", 2) ||
	    (i >= 2 && !strcmp(pattern + i - 2, ":.")))
		return false;
	return true;
}

const char *tfs_instance_label(struct tracefs_instance *inst)
{
	const char *name = inst ? tracefs_instance_get_name(inst) : NULL;

	return name ? name : "top level";
}

int tfs_open_selected(struct tracefs_instance **inst)
{
	*inst = NULL;
	if (!tp.instance)
		return TP_OK;
	if (!tfs_name_valid(tp.instance)) {
		tp_error("invalid instance name '%s'", tp.instance);
		return TP_USAGE;
	}
	if (!tracefs_instance_exists(tp.instance)) {
		tp_error("no such instance '%s'", tp.instance);
		return TP_USAGE;
	}
	*inst = tracefs_instance_alloc(tracing_dir, tp.instance);
	if (!*inst) {
		tp_error("cannot open instance '%s': %s", tp.instance, strerror(errno));
		return TP_FAIL;
	}
	return TP_OK;
}

int tfs_open(struct tracefs_instance **inst)
{
	int ret = tfs_init();

	*inst = NULL;
	if (!ret)
		ret = tfs_open_selected(inst);
	return ret;
}

int tfs_private_instance(struct tracefs_instance **inst)
{
	char name[64];
	sigset_t all, old;
	char *dir;
	int ret = TP_OK;

	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d", (int)getpid());
	if (tracefs_instance_exists(name)) {
		tp_error("instance '%s' already exists; 'tpctl reset' removes orphaned ones", name);
		return TP_FAIL;
	}
	/* a signal between mkdir and the journal entry would leave the instance behind */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	*inst = tracefs_instance_create(name);
	if (!*inst) {
		int err = errno;

		sigprocmask(SIG_SETMASK, &old, NULL);
		tp_error("cannot create instance '%s': %s%s", name, strerror(err), perm_hint(err));
		return TP_FAIL;
	}
	dir = tracefs_instance_get_dir(*inst);
	if (!dir || state_created_instance(dir) < 0) {
		tracefs_instance_destroy(*inst);
		tracefs_instance_free(*inst);
		*inst = NULL;
		tp_error("cannot create instance '%s': out of memory", name);
		ret = TP_FAIL;
	}
	free(dir);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static int list_add(struct tfs_event_list *l, const char *sys, size_t syslen, const char *name,
		    size_t namelen)
{
	struct tfs_event *e;

	if (l->n == l->alloc) {
		size_t na = l->alloc ? l->alloc * 2 : 64;
		struct tfs_event *v = realloc(l->v, na * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->alloc = na;
	}
	e = &l->v[l->n];
	e->system = strndup(sys, syslen);
	e->name = strndup(name, namelen);
	if (!e->system || !e->name) {
		free(e->system);
		free(e->name);
		return -1;
	}
	l->n++;
	return 0;
}

void tfs_event_list_free(struct tfs_event_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].system);
		free(l->v[i].name);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

bool tfs_event_list_has(const struct tfs_event_list *l, const char *sys, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].system, sys) && !strcmp(l->v[i].name, name))
			return true;
	return false;
}

int tfs_events_available(struct tracefs_instance *inst, struct tfs_event_list *out)
{
	char *buf, *line, *save = NULL;
	bool check_dirs;

	memset(out, 0, sizeof(*out));
	/*
	 * Instances have no available_events of their own on current kernels:
	 * take the top level's list, keeping the events the instance has a
	 * directory for.
	 */
	check_dirs = inst && !tracefs_file_exists(inst, "available_events");
	buf = tracefs_instance_file_read(check_dirs ? NULL : inst, "available_events", NULL);
	if (!buf) {
		tp_error("cannot read available_events of %s: %s", tfs_instance_label(inst),
			 strerror(errno));
		return TP_FAIL;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		/* skip anything that could not be a path component */
		if (!colon)
			continue;
		*colon = '\0';
		if (!tfs_name_valid(line) || !tfs_name_valid(colon + 1))
			continue;
		if (check_dirs) {
			char rel[600];

			snprintf(rel, sizeof(rel), "events/%s/%s", line, colon + 1);
			if (!tracefs_dir_exists(inst, rel))
				continue;
		}
		if (list_add(out, line, strlen(line), colon + 1, strlen(colon + 1)) < 0) {
			free(buf);
			tfs_event_list_free(out);
			tp_error("out of memory");
			return TP_FAIL;
		}
	}
	free(buf);
	return TP_OK;
}

size_t tfs_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[512];

	if (lb >= 511 || la >= 511)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0], tmp;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

/* The closest real "system:event" or "system" to a pattern that matched nothing. */
static void suggest(const struct tfs_event_list *all, const char *pattern, char *buf, size_t len)
{
	size_t i, best = SIZE_MAX;
	bool has_colon = strchr(pattern, ':') != NULL;

	buf[0] = '\0';
	for (i = 0; i < all->n; i++) {
		char full[600];
		size_t d;

		if (has_colon) {
			snprintf(full, sizeof(full), "%s:%s", all->v[i].system, all->v[i].name);
			d = tfs_edit_distance(pattern, full);
		} else {
			size_t d2;

			d = tfs_edit_distance(pattern, all->v[i].system);
			d2 = tfs_edit_distance(pattern, all->v[i].name);
			if (d2 < d) {
				d = d2;
				snprintf(full, sizeof(full), "%s:%s", all->v[i].system,
					 all->v[i].name);
			} else {
				snprintf(full, sizeof(full), "%s", all->v[i].system);
			}
		}
		if (d < best) {
			best = d;
			snprintf(buf, len, "%s", full);
		}
	}
	/* a suggestion more than a third different from the name is noise */
	if (best > strlen(pattern) / 3 + 1)
		buf[0] = '\0';
}

static bool match_part(const char *pattern, const char *name)
{
	return fnmatch(pattern, name, 0) == 0;
}

static int patterns_check(char **patterns, int npatterns)
{
	for (int p = 0; p < npatterns; p++) {
		if (!tfs_pattern_valid(patterns[p])) {
			tp_error("invalid event name '%s': use system, system:event or a glob",
				 patterns[p]);
			return TP_USAGE;
		}
	}
	return TP_OK;
}

int tfs_events_match(const struct tfs_event_list *all, char **patterns, int npatterns,
		     const char *where, struct tfs_event_list *out)
{
	bool *take;
	int p;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (patterns_check(patterns, npatterns))
		return TP_USAGE;
	take = calloc(all->n + 1, sizeof(*take));
	if (!take)
		goto oom;
	for (p = 0; p < npatterns; p++) {
		char *pat = strdup(patterns[p]), *colon;
		size_t hits = 0;

		if (!pat)
			goto oom;
		colon = strchr(pat, ':');
		if (colon)
			*colon = '\0';
		for (i = 0; i < all->n; i++) {
			bool m;

			if (colon)
				m = match_part(pat, all->v[i].system) &&
				    match_part(colon + 1, all->v[i].name);
			else
				m = match_part(pat, all->v[i].system);
			if (m) {
				take[i] = true;
				hits++;
			}
		}
		/* a bare name that is no system: try it as an event name */
		if (!colon && !hits) {
			for (i = 0; i < all->n; i++) {
				if (match_part(pat, all->v[i].name)) {
					take[i] = true;
					hits++;
				}
			}
		}
		free(pat);
		if (!hits) {
			char sug[600];

			suggest(all, patterns[p], sug, sizeof(sug));
			if (where && sug[0])
				tp_error("no event '%s' in '%s' (did you mean '%s'?)", patterns[p],
					 where, sug);
			else if (where)
				tp_error("no event '%s' in '%s'", patterns[p], where);
			else if (sug[0])
				tp_error("no such event '%s' (did you mean '%s'?)", patterns[p], sug);
			else
				tp_error("no such event '%s'", patterns[p]);
			free(take);
			return TP_USAGE;
		}
	}
	for (i = 0; i < all->n; i++) {
		if (take[i] && list_add(out, all->v[i].system, strlen(all->v[i].system),
					all->v[i].name, strlen(all->v[i].name)) < 0)
			goto oom;
	}
	free(take);
	return TP_OK;
oom:
	free(take);
	tfs_event_list_free(out);
	tp_error("out of memory");
	return TP_FAIL;
}

int tfs_event_list_add(struct tfs_event_list *l, const char *sys, const char *name)
{
	return list_add(l, sys, strlen(sys), name, strlen(name));
}

int tfs_events_resolve(struct tracefs_instance *inst, char **patterns, int npatterns,
		       struct tfs_event_list *out)
{
	struct tfs_event_list all;
	int ret;

	memset(out, 0, sizeof(*out));
	/* a bad name is refused before tracefs is read */
	ret = patterns_check(patterns, npatterns);
	if (ret)
		return ret;
	ret = tfs_events_available(inst, &all);
	if (ret)
		return ret;
	ret = tfs_events_match(&all, patterns, npatterns, NULL, out);
	tfs_event_list_free(&all);
	return ret;
}

struct tep_handle *tfs_tep_load(const struct tfs_event_list *events)
{
	struct tep_handle *tep = tep_alloc();
	char *buf;
	int size = 0;
	size_t i;

	if (!tep) {
		tp_error("out of memory");
		return NULL;
	}
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || tep_parse_header_page(tep, buf, size, sizeof(long)) < 0) {
		tp_error("cannot parse events/header_page of '%s'", tracing_dir);
		free(buf);
		tep_free(tep);
		return NULL;
	}
	free(buf);
	/* pointers in records are as wide as the kernel's long */
	tep_set_long_size(tep, sizeof(long));
	tep_set_file_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	if (!getenv("TPCTL_NO_PLUGINS")) {
		tep_add_plugin_path(tep, (char *)tp_plugin_dir(), TEP_PLUGIN_LAST);
		plugins = tep_load_plugins(tep);
	}
	for (i = 0; events && i < events->n; i++)
		tfs_tep_add_event(tep, events->v[i].system, events->v[i].name);
	return tep;
}

void tfs_tep_free(struct tep_handle *tep)
{
	if (!tep)
		return;
	if (plugins) {
		tep_unload_plugins(plugins, tep);
		plugins = NULL;
	}
	tep_free(tep);
}

char *tfs_event_format_text(const char *sys, const char *name, int *size)
{
	if (!tfs_name_valid(sys) || !tfs_name_valid(name)) {
		errno = EINVAL;
		return NULL;
	}
	return tracefs_event_file_read(NULL, sys, name, "format", size);
}

struct tep_event *tfs_tep_add_event(struct tep_handle *tep, const char *sys, const char *name)
{
	struct tep_event *ev;
	char *buf;
	int size = 0;

	ev = tep_find_event_by_name(tep, sys, name);
	if (ev)
		return ev;
	buf = tfs_event_format_text(sys, name, &size);
	if (!buf) {
		tp_warn("cannot read the format of '%s:%s': %s", sys, name, strerror(errno));
		return NULL;
	}
	/* a print fmt libtraceevent cannot parse still leaves the event and its fields */
	tep_parse_event(tep, buf, size, sys);
	free(buf);
	ev = tep_find_event_by_name(tep, sys, name);
	if (!ev)
		tp_warn("libtraceevent cannot parse the format of '%s:%s'", sys, name);
	else if (ev->flags & TEP_EVENT_FL_FAILED)
		tp_debug("libtraceevent cannot parse the print fmt of '%s:%s'", sys, name);
	return ev;
}

void tfs_tep_parse_cmdlines(struct tep_handle *tep, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl, *name, *e;
	char comm[64];
	long pid;

	/*
	 * libtraceevent's tep_parse_saved_cmdlines() (and libtracefs's
	 * tracefs_load_cmdlines(), libtracecmd's reader) stop at the first line
	 * that is not "PID NAME": a task whose name holds a newline (prctl and
	 * $0 allow one) ends every name after it.  Such a line is skipped here,
	 * each other one registered; a pid known already keeps its name.
	 */
	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		/* digits by hand: the text need not end in a NUL (a file's section) */
		for (e = p, pid = 0; e < nl && *e >= '0' && *e <= '9' && pid <= INT32_MAX; e++)
			pid = pid * 10 + (*e - '0');
		if (e > p) {
			name = e + 1;
			if (e < nl && *e == ' ' && name < nl && pid > 0 && pid <= INT32_MAX &&
			    (size_t)(nl - name) < sizeof(comm)) {
				memcpy(comm, name, nl - name);
				comm[nl - name] = '\0';
				tep_register_comm(tep, comm, (int)pid);
			}
		}
		p = nl + 1;
	}
}

int tfs_tep_load_cmdlines(struct tep_handle *tep)
{
	int size = 0;
	char *s = tracefs_instance_file_read(NULL, "saved_cmdlines", &size);

	if (!s)
		return -1;
	tfs_tep_parse_cmdlines(tep, s, size > 0 ? (size_t)size : 0);
	free(s);
	return 0;
}

static int event_write(struct tracefs_instance *inst, const struct tfs_event *ev,
		       const char *file, const char *val, enum state_kind kind)
{
	char *path;
	int ret;

	if (!tfs_name_valid(ev->system) || !tfs_name_valid(ev->name)) {
		errno = EINVAL;
		return -1;
	}
	path = tracefs_event_get_file(inst, ev->system, ev->name, file);
	if (!path) {
		errno = ENOMEM;
		return -1;
	}
	ret = state_write(path, val, kind);
	tracefs_put_tracing_file(path);
	return ret;
}

int tfs_event_enable(struct tracefs_instance *inst, const struct tfs_event *ev, bool on)
{
	if (event_write(inst, ev, "enable", on ? "1" : "0", STATE_ENABLE) < 0) {
		int err = errno;

		tp_error("cannot %s '%s:%s' in %s: %s%s", on ? "enable" : "disable", ev->system,
			 ev->name, tfs_instance_label(inst), strerror(err), perm_hint(err));
		return TP_FAIL;
	}
	return TP_OK;
}

int tfs_event_is_enabled(struct tracefs_instance *inst, const struct tfs_event *ev)
{
	char *buf;
	int on;

	if (!tfs_name_valid(ev->system) || !tfs_name_valid(ev->name))
		return -1;
	buf = tracefs_event_file_read(inst, ev->system, ev->name, "enable", NULL);
	if (!buf)
		return -1;
	on = buf[0] == '1';
	free(buf);
	return on;
}

char *tfs_event_filter_get(struct tracefs_instance *inst, const struct tfs_event *ev)
{
	char *buf;
	size_t len;

	if (!tfs_name_valid(ev->system) || !tfs_name_valid(ev->name))
		return NULL;
	buf = tracefs_event_file_read(inst, ev->system, ev->name, "filter", NULL);
	if (!buf)
		return NULL;
	len = strcspn(buf, "\n");
	buf[len] = '\0';
	if (len == 0 || !strcmp(buf, "none")) {
		free(buf);
		return NULL;
	}
	return buf;
}

static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static bool mentions_special_field(const char *expr)
{
	static const char *const names[] = { "CPU", "COMM", "common_cpu", "common_comm" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *p = expr;
		size_t len = strlen(names[i]);

		while ((p = strstr(p, names[i]))) {
			if ((p == expr || !is_ident(p[-1])) && !is_ident(p[len]))
				return true;
			p += len;
		}
	}
	return false;
}

/*
 * An indented detail line under an error (an expression and its caret).
 * The expression is the user's: a control byte in it becomes '?', one
 * column as before, so the caret still points right and an escape
 * sequence cannot reach the terminal.
 */
static void put_detail(const char *line)
{
	const unsigned char *p;

	fputs("  ", stderr);
	for (p = (const unsigned char *)line; *p; p++)
		fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, stderr);
	fputc('\n', stderr);
}

/*
 * libtracefs explains a rejected filter as lines "EXPR", "   ^", "reason":
 * print the reason on the error line and the expression with its caret below.
 */
static void print_verify_error(const struct tfs_event *ev, char *err)
{
	char *lines[8], *save = NULL, *l;
	int n = 0, i;

	for (l = err ? strtok_r(err, "\n", &save) : NULL; l && n < 8; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	tp_error("invalid filter for '%s:%s': %s", ev->system, ev->name,
		 n ? lines[n - 1] : "rejected by libtracefs");
	for (i = 0; i + 1 < n; i++)
		put_detail(lines[i]);
}

/*
 * The first word of expr in a field's place (before a comparison operator,
 * outside quotes) that is no field of the event: told with the closest
 * field and a caret under it, as the kernel would say "Field not found".
 * False when every such word is a field (the error is of another kind).
 */
static bool unknown_field_error(const struct tfs_event *ev, struct tep_event *event,
				const char *expr)
{
	const char *p = expr;
	char quote = 0;

	while (*p) {
		const char *w, *q;
		char name[128], caret[FILTER_MAX + 2], *best = NULL;
		size_t bestd = (size_t)-1, len;
		struct tep_format_field **f;
		int k;

		if (quote) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == quote)
				quote = 0;
			p++;
			continue;
		}
		if (*p == '"' || *p == '\'') {
			quote = *p++;
			continue;
		}
		if (!is_ident(*p) || (*p >= '0' && *p <= '9') || (p > expr && is_ident(p[-1]))) {
			p++;
			continue;
		}
		for (w = p; is_ident(*p); p++)
			;
		len = p - w;
		for (q = p; *q == ' ' || *q == '\t'; q++)
			;
		/* a field is compared: "==", "!=", "<", ">", "<=", ">=", "~", "&" */
		if (!strchr("=!<>~&", *q) || !*q || len >= sizeof(name))
			continue;
		memcpy(name, w, len);
		name[len] = '\0';
		if (tep_find_any_field(event, name))
			continue;
		for (k = 0; k < 2; k++) {
			f = k ? tep_event_fields(event) : tep_event_common_fields(event);
			for (int i = 0; f && f[i]; i++) {
				size_t d = tfs_edit_distance(name, f[i]->name);

				if (d < bestd) {
					bestd = d;
					best = f[i]->name;
				}
			}
			free(f);
		}
		/* a suggestion only where it is close: at most a third of the name changed */
		if (best && bestd > (len + 2) / 3)
			best = NULL;
		if (best)
			tp_error("invalid filter for '%s:%s': unknown field '%s' (closest: '%s')",
				 ev->system, ev->name, name, best);
		else
			tp_error("invalid filter for '%s:%s': unknown field '%s'", ev->system,
				 ev->name, name);
		put_detail(expr);
		snprintf(caret, sizeof(caret), "%*s^", (int)(w - expr), "");
		put_detail(caret);
		return true;
	}
	return false;
}

int tfs_filter_check(struct tep_handle *tep, const struct tfs_event *ev, const char *expr)
{
	struct tep_event *event;
	char *err = NULL;

	if (strchr(expr, '\n') || strchr(expr, '\r')) {
		tp_error("invalid filter for '%s:%s': it contains a newline", ev->system, ev->name);
		return TP_USAGE;
	}
	if (strlen(expr) > FILTER_MAX) {
		tp_error("invalid filter for '%s:%s': longer than %d bytes", ev->system, ev->name,
			 FILTER_MAX);
		return TP_USAGE;
	}
	if (!*expr) {
		tp_error("invalid filter for '%s:%s': empty (use --clear to remove a filter)",
			 ev->system, ev->name);
		return TP_USAGE;
	}
	event = tfs_tep_add_event(tep, ev->system, ev->name);
	if (!event)
		return TP_OK;	/* nothing to verify against; the kernel decides */
	/*
	 * libtracefs does not know the fields the kernel adds to every event
	 * for filtering (CPU, COMM, common_cpu): leave those to the kernel.
	 */
	if (mentions_special_field(expr))
		return TP_OK;
	if (tracefs_filter_string_verify(event, expr, &err) < 0) {
		if (!unknown_field_error(ev, event, expr))
			print_verify_error(ev, err);
		free(err);
		return TP_USAGE;
	}
	free(err);
	return TP_OK;
}

/* See tfs.h: the filter as libtracefs's filter calls take it. */
int tfs_filter_walk(const char *expr, tfs_filter_fn fn, void *ctx)
{
	static const struct {
		const char *op;
		enum tracefs_compare cmp;
	} ops[] = {
		{ "==", TRACEFS_COMPARE_EQ }, { "!=", TRACEFS_COMPARE_NE },
		{ ">=", TRACEFS_COMPARE_GE }, { "<=", TRACEFS_COMPARE_LE },
		{ ">", TRACEFS_COMPARE_GT }, { "<", TRACEFS_COMPARE_LT },
		{ "~", TRACEFS_COMPARE_RE }, { "&", TRACEFS_COMPARE_AND },
	};
	const char *p = expr;
	char field[256], val[4096];
	size_t i, n;

	while (*p) {
		enum tracefs_filter type = TRACEFS_FILTER_COMPARE;
		enum tracefs_compare cmp = TRACEFS_COMPARE_EQ;

		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		if (*p == '(' || *p == ')') {
			type = *p == '(' ? TRACEFS_FILTER_OPEN_PAREN : TRACEFS_FILTER_CLOSE_PAREN;
			p++;
		} else if (!strncmp(p, "&&", 2) || !strncmp(p, "||", 2)) {
			type = *p == '&' ? TRACEFS_FILTER_AND : TRACEFS_FILTER_OR;
			p += 2;
		} else if (*p == '!' && p[1] != '=' && p[1] != '~') {
			type = TRACEFS_FILTER_NOT;
			p++;
		} else {
			for (n = 0; p[n] == '_' || ((p[n] | 0x20) >= 'a' && (p[n] | 0x20) <= 'z') ||
				    (n && p[n] >= '0' && p[n] <= '9'); n++)
				;
			if (!n || n >= sizeof(field))
				return -1;
			memcpy(field, p, n);
			field[n] = '\0';
			for (p += n; *p == ' ' || *p == '\t'; p++)
				;
			for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
				if (!strncmp(p, ops[i].op, strlen(ops[i].op)))
					break;
			if (i == sizeof(ops) / sizeof(ops[0]) || (*p == '&' && p[1] == '&'))
				return -1;
			cmp = ops[i].cmp;
			for (p += strlen(ops[i].op); *p == ' ' || *p == '\t'; p++)
				;
			if (*p == '"' || *p == '\'') {
				/* the quoted string as written, escapes and all */
				for (n = 1; p[n] && p[n] != *p; n++)
					if (p[n] == '\\' && p[n + 1])
						n++;
				if (!p[n])
					return -1;
				n++;
			} else {
				for (n = 0; p[n] && !strchr(" \t()&|!", p[n]); n++)
					;
			}
			if (!n || n >= sizeof(val))
				return -1;
			memcpy(val, p, n);
			val[n] = '\0';
			p += n;
		}
		if (fn(ctx, type, type == TRACEFS_FILTER_COMPARE ? field : NULL, cmp,
		       type == TRACEFS_FILTER_COMPARE ? val : NULL) < 0)
			return -1;
	}
	return 0;
}

/* Print the kernel's explanation from error_log: its last entry, caret and all. */
void tfs_error_log_print(struct tracefs_instance *inst)
{
	char *log = tracefs_error_last(inst);

	tfs_error_log_put(log);
	free(log);
}

void tfs_error_log_put(const char *text)
{
	char *log = text ? strdup(text) : NULL;
	char *line, *save = NULL;

	if (!log)
		return;
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* drop the "[  123.456] " time stamp of the first line */
		if (line[0] == '[') {
			char *end = strchr(line, ']');

			if (end)
				line = end + 1 + (end[1] == ' ');
		}
		put_detail(line);
	}
	free(log);
}

int tfs_event_filter_set(struct tracefs_instance *inst, struct tep_handle *tep,
			 const struct tfs_event *ev, const char *expr)
{
	int ret = tfs_filter_check(tep, ev, expr);

	if (ret)
		return ret;
	if (event_write(inst, ev, "filter", expr, STATE_FILTER) < 0) {
		int err = errno;

		if (err == EINVAL) {
			tp_error("invalid filter for '%s:%s': the kernel refused it:", ev->system,
				 ev->name);
			tfs_error_log_print(inst);
			return TP_USAGE;
		}
		tp_error("cannot set the filter of '%s:%s': %s%s", ev->system, ev->name,
			 strerror(err), perm_hint(err));
		return TP_FAIL;
	}
	return TP_OK;
}

int tfs_event_filter_clear(struct tracefs_instance *inst, const struct tfs_event *ev)
{
	if (event_write(inst, ev, "filter", "0", STATE_FILTER) < 0) {
		int err = errno;

		tp_error("cannot clear the filter of '%s:%s': %s%s", ev->system, ev->name,
			 strerror(err), perm_hint(err));
		return TP_FAIL;
	}
	return TP_OK;
}

int tfs_instance_write(struct tracefs_instance *inst, const char *file, const char *val)
{
	char *path = tracefs_instance_get_file(inst, file);
	int ret;

	if (!path) {
		tp_error("out of memory");
		return TP_FAIL;
	}
	ret = state_write(path, val, STATE_PLAIN);
	if (ret < 0) {
		int err = errno;

		tp_error("cannot write '%s' of %s: %s%s", file, tfs_instance_label(inst),
			 strerror(err), perm_hint(err));
		tracefs_put_tracing_file(path);
		return TP_FAIL;
	}
	tracefs_put_tracing_file(path);
	return TP_OK;
}

/*
 * Event pid lists and options.  libtracefs 1.6 has no helper for set_event_pid
 * (tracefs_filter_pid_events came later), and its option writes would bypass
 * the journal, so these write the files themselves, through state_write().
 */
static const char *pid_file(bool notrace)
{
	return notrace ? "set_event_notrace_pid" : "set_event_pid";
}

/* "1 2 3": the form the kernel parses (any white space separates). */
static char *pids_text(const int *pids, size_t n)
{
	char *buf = malloc(n * 12 + 1), *p = buf;
	size_t i;

	if (!buf)
		return NULL;
	*p = '\0';
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s%d", i ? " " : "", pids[i]);
	return buf;
}

int tfs_pids_set(struct tracefs_instance *inst, bool notrace, const int *pids, size_t n)
{
	const char *file = pid_file(notrace);
	char *path = tracefs_instance_get_file(inst, file), *val = pids_text(pids, n);
	int ret = TP_OK;

	if (!path || !val) {
		tp_error("out of memory");
		ret = TP_FAIL;
	} else if (state_write(path, val, STATE_LIST) < 0) {
		int err = errno;

		tp_error("cannot write '%s' of %s: %s%s", file, tfs_instance_label(inst),
			 strerror(err), perm_hint(err));
		ret = TP_FAIL;
	}
	free(val);
	tracefs_put_tracing_file(path);
	return ret;
}

int tfs_pids_add(struct tracefs_instance *inst, bool notrace, const int *pids, size_t n)
{
	const char *file = pid_file(notrace);
	char *val;
	int ret = TP_OK;

	if (!n)
		return TP_OK;
	val = pids_text(pids, n);
	if (!val) {
		tp_error("out of memory");
		return TP_FAIL;
	}
	/* opened without O_TRUNC, the kernel adds to the list */
	if (tracefs_instance_file_append(inst, file, val) < 0) {
		tp_error("cannot add to '%s' of %s: %s", file, tfs_instance_label(inst),
			 strerror(errno));
		ret = TP_FAIL;
	}
	free(val);
	return ret;
}

int tfs_pids_get(struct tracefs_instance *inst, bool notrace, int **pids, size_t *n)
{
	const char *file = pid_file(notrace);
	char *buf, *p, *end, *path;
	size_t alloc = 0;

	*pids = NULL;
	*n = 0;
	/* not tracefs_instance_file_read(): it fails on an empty file, an empty list */
	path = tracefs_instance_get_file(inst, file);
	buf = path ? tp_read_file(path, NULL) : NULL;
	tracefs_put_tracing_file(path);
	if (!buf) {
		tp_error("cannot read '%s' of %s: %s", file, tfs_instance_label(inst),
			 strerror(errno));
		return TP_FAIL;
	}
	for (p = buf; *p; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p) {
			end = p + 1;
			continue;
		}
		if (*n == alloc) {
			int *np = realloc(*pids, (alloc = alloc ? alloc * 2 : 16) * sizeof(*np));

			if (!np) {
				free(buf);
				free(*pids);
				*pids = NULL;
				*n = 0;
				tp_error("out of memory");
				return TP_FAIL;
			}
			*pids = np;
		}
		(*pids)[(*n)++] = (int)v;
	}
	free(buf);
	return TP_OK;
}

bool tfs_has_file(struct tracefs_instance *inst, const char *file)
{
	return tracefs_file_exists(inst, file);
}

int tfs_option_set(struct tracefs_instance *inst, const char *name, bool on)
{
	char file[128];

	if (!tfs_name_valid(name))
		return TP_USAGE;
	snprintf(file, sizeof(file), "options/%s", name);
	return tfs_instance_write(inst, file, on ? "1" : "0");
}

bool tfs_event_has_hist(struct tracefs_instance *inst, const struct tfs_event *ev)
{
	return tracefs_event_file_exists(inst, ev->system, ev->name, "hist");
}

/*
 * A hist trigger with a table of size entries: libtracefs 1.6.4 has no
 * setter for it, so the trigger is its echo command's text (between the
 * quotes) with ":size=N" added.
 */
static int hist_start_sized(struct tracefs_instance *inst, const struct tfs_event *ev,
			    struct tracefs_hist *hist, enum tracefs_hist_command cmd, bool quiet,
			    size_t size)
{
	struct trace_seq seq;
	char *q, *e, *f, *text = NULL;
	int ret = TP_FAIL;

	trace_seq_init(&seq);
	tracefs_hist_echo_cmd(&seq, inst, hist, cmd);
	trace_seq_terminate(&seq);
	q = strchr(seq.buffer, '\'');
	e = q ? strchr(q + 1, '\'') : NULL;
	/* the attributes go before the filter */
	f = e ? memmem(q, e - q, " if ", 4) : NULL;
	if (!f)
		f = e;
	if (!e || asprintf(&text, "%.*s:size=%zu%.*s", (int)(f - q - 1), q + 1, size,
			   (int)(e - f), f) < 0)
		tp_error("cannot make the hist trigger of '%s:%s'", ev->system, ev->name);
	else
		ret = tfs_trigger_add(inst, ev, text, quiet);
	free(text);
	trace_seq_destroy(&seq);
	return ret;
}

int tfs_hist_start(struct tracefs_instance *inst, const struct tfs_event *ev,
		   struct tracefs_hist *hist, bool paused, bool quiet, size_t size)
{
	enum tracefs_hist_command cmd = paused ? TRACEFS_HIST_CMD_PAUSE : TRACEFS_HIST_CMD_START;
	char *path;
	int err;

	if (size)
		return hist_start_sized(inst, ev, hist, cmd, quiet, size);
	path = tracefs_event_get_file(inst, ev->system, ev->name, "trigger");

	/* journal first: rollback opens the trigger file with O_TRUNC, which removes it */
	if (!path || state_journal(path, "") < 0) {
		tracefs_put_tracing_file(path);
		tp_error("out of memory");
		return TP_FAIL;
	}
	tracefs_put_tracing_file(path);
	if (tp.verbose) {
		struct trace_seq seq;

		trace_seq_init(&seq);
		tracefs_hist_echo_cmd(&seq, inst, hist, cmd);
		trace_seq_terminate(&seq);
		tp_debug("%.*s", (int)strcspn(seq.buffer, "\n"), seq.buffer);
		trace_seq_destroy(&seq);
	}
	/* a trigger written with :pause is made paused (the kernel's hist_register_trigger) */
	if (tracefs_hist_command(inst, hist, cmd) == 0)
		return TP_OK;
	err = errno;
	if (!quiet) {
		tp_error("the kernel refused the hist trigger of '%s:%s'%s%s", ev->system,
			 ev->name, err == EINVAL ? ":" : ": ", err == EINVAL ? "" : strerror(err));
		if (err == EINVAL)
			tfs_error_log_print(inst);
	}
	return TP_FAIL;
}

int tfs_synth_create(const char *name, const char *fields, bool quiet)
{
	char *path, *def = NULL, *undo = NULL;
	int ret = TP_FAIL, err;

	if (!tfs_name_valid(name))
		return TP_USAGE;
	path = tracefs_get_tracing_file("synthetic_events");
	if (!path || asprintf(&def, "%s %s", name, fields) < 0 ||
	    asprintf(&undo, "!%s", name) < 0) {
		tp_error("out of memory");
		goto out;
	}
	/* journaled to go once the triggers that name it are gone (with the instance) */
	if (state_journal_late(path, undo) < 0) {
		tp_error("out of memory");
		goto out;
	}
	tp_debug("synthetic event: %s", def);
	if (tracefs_instance_file_append(NULL, "synthetic_events", def) >= 0) {
		ret = TP_OK;
		goto out;
	}
	err = errno;
	if (!quiet) {
		tp_error("the kernel refused the synthetic event '%s': %s", name, strerror(err));
		if (err == EINVAL)
			tfs_error_log_print(NULL);
	}
out:
	tracefs_put_tracing_file(path);
	free(def);
	free(undo);
	return ret;
}

int tfs_trigger_add(struct tracefs_instance *inst, const struct tfs_event *ev, const char *cmd,
		    bool quiet)
{
	char *path = tracefs_event_get_file(inst, ev->system, ev->name, "trigger");
	int err;

	if (!tfs_name_valid(ev->system) || !tfs_name_valid(ev->name)) {
		tracefs_put_tracing_file(path);
		return TP_USAGE;
	}
	/* journal first: rollback opens the trigger file with O_TRUNC, which removes them */
	if (!path || state_journal(path, "") < 0) {
		tracefs_put_tracing_file(path);
		tp_error("out of memory");
		return TP_FAIL;
	}
	tracefs_put_tracing_file(path);
	tp_debug("%s:%s trigger: %s", ev->system, ev->name, cmd);
	if (tracefs_event_file_append(inst, ev->system, ev->name, "trigger", cmd) >= 0)
		return TP_OK;
	err = errno;
	if (!quiet) {
		tp_error("the kernel refused a trigger of '%s:%s'%s%s", ev->system, ev->name,
			 err == EINVAL ? ":" : ": ", err == EINVAL ? "" : strerror(err));
		if (err == EINVAL)
			tfs_error_log_print(inst);
	}
	return TP_FAIL;
}

int tfs_instance_clear_triggers(struct tracefs_instance *inst)
{
	struct tfs_event_list all;
	bool left = true;
	int pass;
	size_t i;

	if (tfs_events_available(inst, &all))
		return TP_FAIL;
	/*
	 * A trigger whose variables another one uses (a latency's START, its
	 * END's onmatch) cannot go first: a few passes, each taking what it can.
	 */
	for (pass = 0; left && pass < 4; pass++) {
		left = false;
		for (i = 0; i < all.n; i++) {
			char *t = tracefs_event_file_read(inst, all.v[i].system, all.v[i].name,
							  "trigger", NULL);
			char *p = t;

			/* "# Available triggers:..." when there is none */
			while (p && *p == '#')
				p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
			if (p && *p && tracefs_event_file_write(inst, all.v[i].system, all.v[i].name,
								"trigger", "") < 0)
				left = true;
			free(t);
		}
	}
	tfs_event_list_free(&all);
	return left ? TP_FAIL : TP_OK;
}

int tfs_synth_remove_orphans(void)
{
	char *buf = tracefs_instance_file_read(NULL, "synthetic_events", NULL), *line, *save = NULL;
	int ret = TP_OK;

	for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[128], *undo;

		/*
		 * tpctl_lat_PID_N (latency's kernel engine) or tpctl_str_PID_N
		 * (--strings), made by a process that no longer runs (names.h)
		 */
		if (sscanf(line, "%127s", name) != 1 || !names_synth_orphaned(name))
			continue;
		if (asprintf(&undo, "!%s", name) < 0)
			continue;
		if (tracefs_instance_file_append(NULL, "synthetic_events", undo) < 0) {
			tp_error("cannot remove orphaned synthetic event '%s': %s", name,
				 strerror(errno));
			ret = TP_FAIL;
		} else {
			tp_note("removed orphaned synthetic event '%s' (its process is gone)", name);
		}
		free(undo);
	}
	free(buf);
	return ret;
}

bool tfs_has_synth(void)
{
	return tracefs_file_exists(NULL, "synthetic_events");
}

int tfs_hist_continue(struct tracefs_instance *inst, const struct tfs_event *ev,
		      struct tracefs_hist *hist)
{
	if (tracefs_hist_continue(inst, hist) == 0)
		return TP_OK;
	tp_error("cannot start the hist trigger of '%s:%s': %s", ev->system, ev->name,
		 strerror(errno));
	return TP_FAIL;
}

char *tfs_hist_read(struct tracefs_instance *inst, const struct tfs_event *ev)
{
	int size = 0;

	return tracefs_event_file_read(inst, ev->system, ev->name, "hist", &size);
}

/* Is word listed under "# Available triggers:" of the event's trigger file? */
static bool trigger_available(struct tracefs_instance *inst, const struct tfs_event *ev,
			      const char *word)
{
	char *buf = tracefs_event_file_read(inst, ev->system, ev->name, "trigger", NULL);
	const char *p;
	size_t n = strlen(word);
	bool found = false;

	if (!buf)
		return false;
	p = strstr(buf, "# Available triggers:");
	p = p ? strchr(p, '\n') : NULL;
	for (; p && (p = strstr(p, word)); p += n) {
		if ((p[-1] == ' ' || p[-1] == '#') && (!p[n] || p[n] == ' ' || p[n] == '\n')) {
			found = true;
			break;
		}
	}
	free(buf);
	return found;
}

static int option_on(struct tracefs_instance *inst, const char *opt)
{
	char file[64];

	snprintf(file, sizeof(file), "options/%s", opt);
	if (!tracefs_file_exists(inst, file)) {
		tp_error("this kernel has no '%s' option for %s", opt, tfs_instance_label(inst));
		return TP_FAIL;
	}
	return tfs_option_set(inst, opt, true);
}

int tfs_event_stacktrace(struct tracefs_instance *inst, const struct tfs_event *ev,
			 const char *filter, const char **how)
{
	char *val;
	int ret;

	if (!tfs_name_valid(ev->system) || !tfs_name_valid(ev->name))
		return TP_USAGE;
	if (!trigger_available(inst, ev, "stacktrace")) {
		*how = "options/stacktrace";
		return option_on(inst, "stacktrace");
	}
	*how = "trigger";
	if (filter ? asprintf(&val, "stacktrace if %s", filter) < 0 :
		     !(val = strdup("stacktrace"))) {
		tp_error("out of memory");
		return TP_FAIL;
	}
	ret = event_write(inst, ev, "trigger", val, STATE_TRIGGER);
	free(val);
	if (ret < 0) {
		int err = errno;

		tp_error("cannot set a stacktrace trigger on '%s:%s': %s%s", ev->system, ev->name,
			 strerror(err), perm_hint(err));
		if (err == EINVAL)
			tfs_error_log_print(inst);
		return TP_FAIL;
	}
	return TP_OK;
}

int tfs_user_stacktrace(struct tracefs_instance *inst)
{
	return option_on(inst, "userstacktrace");
}

static bool option_is_on(struct tracefs_instance *inst, const char *file)
{
	char *buf = tracefs_instance_file_read(inst, file, NULL);
	bool on = buf && buf[0] == '1';

	free(buf);
	return on;
}

bool tfs_instance_stacks(struct tracefs_instance *inst)
{
	char *buf, *line, *save = NULL;
	const char *p;
	bool on = false;

	if (option_is_on(inst, "options/stacktrace") ||
	    option_is_on(inst, "options/userstacktrace"))
		return true;
	buf = tracefs_instance_file_read(inst, "set_event", NULL);
	for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line && !on;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *trig;

		if (!colon)
			continue;
		*colon = '\0';
		if (!tfs_name_valid(line) || !tfs_name_valid(colon + 1))
			continue;
		trig = tracefs_event_file_read(inst, line, colon + 1, "trigger", NULL);
		/* the triggers set, one a line ("stacktrace:unlimited"), or "#" help */
		for (p = trig; p && *p && !on; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "")
			on = !strncmp(p, "stacktrace", 10);
		free(trig);
	}
	free(buf);
	return on;
}
