// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tfs_events - the events of an instance: the list of available_events,
 * patterns resolved against it (with "did you mean" when one matches
 * nothing), journaled writes to an event's files, enable.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "near.h"
#include "state.h"
#include "tfs.h"
#include "tfs_local.h"
#include "util.h"

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
			/* two names of TFS_NAME_MAX bytes at most (tfs_name_valid) */
			char rel[sizeof("events//") + 2 * TFS_NAME_MAX];

			snprintf(rel, sizeof(rel), "events/%s/%s", line, colon + 1);
			if (!tracefs_dir_exists(inst, rel))
				continue;
		}
		if (list_add(out, line, strlen(line), colon + 1, strlen(colon + 1)) < 0) {
			free(buf);
			tfs_event_list_free(out);
			return tp_oom();
		}
	}
	free(buf);
	return TP_OK;
}

/*
 * The closest real "system:event" or "system" to a pattern that matched
 * nothing, kept in near; NULL when there is none close enough.
 */
static const char *suggest(const struct tfs_event_list *all, const char *pattern,
			   struct near *near)
{
	/* two names of TFS_NAME_MAX bytes at most; near_distance() compares less */
	char full[2 * TFS_NAME_MAX + 2];
	bool has_colon = strchr(pattern, ':') != NULL;
	bool glob = strpbrk(pattern, "*?") != NULL;
	size_t i;

	/* a glob: the events it comes closest to matching, a few of them */
	near_init(near, pattern, glob ? NEAR_MAX : 1);
	for (i = 0; i < all->n; i++) {
		const struct tfs_event *e = &all->v[i];

		snprintf(full, sizeof(full), "%s:%s", e->system, e->name);
		if (glob) {
			near_add_at(near, full, strlen(full), has_colon ?
				    near_glob_distance(pattern, full) :
				    near_glob_distance(pattern, e->name));
			continue;
		}
		if (has_colon) {
			near_add(near, full, strlen(full));
			continue;
		}
		/* a bare name: the system, or the event whose name is closer */
		near_add(near, e->system, strlen(e->system));
		near_add_at(near, full, strlen(full), near_distance(pattern, e->name));
	}
	if (glob)
		near_keep_closest(near);
	/* a suggestion more than a third different from the name is noise */
	return near_best(near, strlen(pattern) / 3 + 1);
}

/* A pattern that matched nothing, with the closest event when there is one. */
static void no_match_error(const struct tfs_event_list *all, const char *pattern,
			   const char *where)
{
	struct near near;
	const char *sug = suggest(all, pattern, &near);
	char list[512];

	if (sug && near.n > 1) {
		/* a glob's nearest events */
		near_list(&near, list, sizeof(list));
		if (where)
			tp_error("no event matches '%s' in '%s'%s", pattern, where, list);
		else
			tp_error("no event matches '%s'%s", pattern, list);
	} else if (where && sug)
		tp_error("no event '%s' in '%s' (did you mean '%s'?)", pattern, where, sug);
	else if (where)
		tp_error("no event '%s' in '%s'", pattern, where);
	else if (sug)
		tp_error("no such event '%s' (did you mean '%s'?)", pattern, sug);
	else
		tp_error("no such event '%s'", pattern);
	near_free(&near);
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
			no_match_error(all, patterns[p], where);
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
	return tp_oom();
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

int tfs_event_write(struct tracefs_instance *inst, const struct tfs_event *ev,
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
	if (tfs_event_write(inst, ev, "enable", on ? "1" : "0", STATE_ENABLE) < 0) {
		int err = errno;

		tp_error("cannot %s '%s:%s' in %s: %s%s", on ? "enable" : "disable", ev->system,
			 ev->name, tfs_instance_label(inst), strerror(err), tfs_perm_hint(err));
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
