// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tfs_pid - the event pid lists of an instance (set_event_pid,
 * set_event_notrace_pid): replaced through the journal, added to, read back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "state.h"
#include "tfs.h"
#include "tfs_local.h"
#include "util.h"

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
		tp_oom();
		ret = TP_FAIL;
	} else if (state_write(path, val, STATE_LIST) < 0) {
		int err = errno;

		tp_error("cannot write '%s' of %s: %s%s", file, tfs_instance_label(inst),
			 strerror(err), tfs_perm_hint(err));
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
	if (!val)
		return tp_oom();
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
				return tp_oom();
			}
			*pids = np;
		}
		(*pids)[(*n)++] = (int)v;
	}
	free(buf);
	return TP_OK;
}
