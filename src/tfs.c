// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tfs - the tracefs layer; see tfs.h.  All reads go through libtracefs; the
 * writes that change tracing state go through the state journal, with paths
 * libtracefs builds, so that they can be undone.  This file: finding and
 * mounting tracefs, its CPUs, the names a path may be built from; the other
 * objects are in tfs_instance.c, tfs_events.c, tfs_tep.c, tfs_filter.c,
 * tfs_pid.c, tfs_hist.c and tfs_stack.c.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "tfs.h"
#include "tfs_local.h"
#include "util.h"

static char *tracing_dir;
static bool tfs_ready;		/* tfs_init() went through */

const char *tfs_perm_hint(int err)
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
				 err ? strerror(err) : "no tracefs", tfs_perm_hint(err));
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
				 tfs_perm_hint(err));
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

	if (!name || !*name || strlen(name) > TFS_NAME_MAX)
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

bool tfs_has_file(struct tracefs_instance *inst, const char *file)
{
	return tracefs_file_exists(inst, file);
}

