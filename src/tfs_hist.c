// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tfs_hist - hist triggers and synthetic events (the kernel engines of
 * count, hist and latency), other triggers, and their removal: every one
 * journaled before it is written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "names.h"
#include "state.h"
#include "tfs.h"
#include "util.h"

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
		return tp_oom();
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
		tp_oom();
		goto out;
	}
	/* journaled to go once the triggers that name it are gone (with the instance) */
	if (state_journal_late(path, undo) < 0) {
		tp_oom();
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
		return tp_oom();
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
