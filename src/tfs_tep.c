// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tfs_tep - the tep_handle of the live kernel: header_page, the formats of
 * the events asked for (lazily, one more at a time), plugins, saved_cmdlines.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "tfs.h"
#include "util.h"

static struct tep_plugin_list *plugins;

struct tep_handle *tfs_tep_load(const struct tfs_event_list *events)
{
	struct tep_handle *tep = tep_alloc();
	char *buf;
	int size = 0;
	size_t i;

	if (!tep) {
		tp_oom();
		return NULL;
	}
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || tep_parse_header_page(tep, buf, size, sizeof(long)) < 0) {
		tp_error("cannot parse events/header_page of '%s'", tfs_dir());
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

/* the longest name a line may give (the kernel's are 15 bytes) */
#define CMDLINE_NAME_MAX 63

/*
 * A line of saved_cmdlines from p, before end: its pid, *name where its name
 * begins; 0 when it does not begin "PID " with a pid of 1 to INT32_MAX.
 * Digits by hand: the text need not end in a NUL (a file's section).
 */
static long cmdline_pid(const char *p, const char *end, const char **name)
{
	const char *e;
	long pid;

	for (e = p, pid = 0; e < end && *e >= '0' && *e <= '9' && pid <= INT32_MAX; e++)
		pid = pid * 10 + (*e - '0');
	if (e == p || e >= end || *e != ' ' || pid <= 0 || pid > INT32_MAX)
		return 0;
	*name = e + 1;
	return pid;
}

void tfs_cmdlines_walk(const char *text, size_t len, tfs_cmdline_fn fn, void *ctx)
{
	const char *p = text, *end = text + len, *nl, *name;
	long pid;

	/*
	 * libtraceevent's tep_parse_saved_cmdlines() (and libtracefs's
	 * tracefs_load_cmdlines(), libtracecmd's reader) stop at the first line
	 * that is not "PID NAME": a task whose name holds a newline (prctl and
	 * $0 allow one) ends every name after it.  Such a line is skipped here,
	 * each other one given to fn.
	 */
	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		pid = cmdline_pid(p, nl, &name);
		if (pid && name < nl && nl - name <= CMDLINE_NAME_MAX)
			fn(ctx, (int)pid, name, nl - name);
		p = nl + 1;
	}
}

int tfs_cmdlines_each(tfs_cmdline_fn fn, void *ctx)
{
	int size = 0;
	char *s = tracefs_instance_file_read(NULL, "saved_cmdlines", &size);

	if (!s)
		return -1;
	tfs_cmdlines_walk(s, size > 0 ? (size_t)size : 0, fn, ctx);
	free(s);
	return 0;
}

/* tfs_cmdline_fn: a name into a tep; a pid known already keeps its name */
static void tep_comm(void *ctx, int pid, const char *name, size_t len)
{
	char comm[CMDLINE_NAME_MAX + 1];

	memcpy(comm, name, len);
	comm[len] = '\0';
	tep_register_comm(ctx, comm, pid);
}

void tfs_tep_parse_cmdlines(struct tep_handle *tep, const char *text, size_t len)
{
	tfs_cmdlines_walk(text, len, tep_comm, tep);
}

char *tfs_saved_cmdlines(int *len)
{
	char *s = tracefs_instance_file_read(NULL, "saved_cmdlines", len);
	const char *name;
	int i;

	/*
	 * A task's name may hold a newline, which the kernel writes as it is:
	 * its second part would be a line of its own that trace-cmd's reader
	 * stops at, losing every name after it.  Such a newline becomes '?'.
	 */
	for (i = 0; s && i + 1 < *len; i++)
		if (s[i] == '\n' && !cmdline_pid(s + i + 1, s + *len, &name))
			s[i] = '?';
	return s;
}

int tfs_tep_load_cmdlines(struct tep_handle *tep)
{
	return tfs_cmdlines_each(tep_comm, tep);
}
