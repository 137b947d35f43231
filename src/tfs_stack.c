// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tfs_stack - stack traces of an instance's events: the stacktrace trigger
 * or options/stacktrace, options/userstacktrace, and whether any is on.
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
		     !(val = strdup("stacktrace")))
		return tp_oom();
	ret = tfs_event_write(inst, ev, "trigger", val, STATE_TRIGGER);
	free(val);
	if (ret < 0) {
		int err = errno;

		tp_error("cannot set a stacktrace trigger on '%s:%s': %s%s", ev->system, ev->name,
			 strerror(err), tfs_perm_hint(err));
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
