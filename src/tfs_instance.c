// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tfs_instance - instances: the one -i chose, the private tpctl-<pid> one
 * (its removal journaled), journaled writes of an instance's files and options.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "names.h"
#include "state.h"
#include "tfs.h"
#include "tfs_local.h"
#include "util.h"

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
	*inst = tracefs_instance_alloc(tfs_dir(), tp.instance);
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
		tp_error("cannot create instance '%s': %s%s", name, strerror(err),
			 tfs_perm_hint(err));
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

int tfs_instance_write(struct tracefs_instance *inst, const char *file, const char *val)
{
	char *path = tracefs_instance_get_file(inst, file);
	int ret;

	if (!path)
		return tp_oom();
	ret = state_write(path, val, STATE_PLAIN);
	if (ret < 0) {
		int err = errno;

		tp_error("cannot write '%s' of %s: %s%s", file, tfs_instance_label(inst),
			 strerror(err), tfs_perm_hint(err));
		tracefs_put_tracing_file(path);
		return TP_FAIL;
	}
	tracefs_put_tracing_file(path);
	return TP_OK;
}

int tfs_tracing_set(struct tracefs_instance *inst, bool on)
{
	if (tracefs_instance_file_write(inst, "tracing_on", on ? "1" : "0") >= 0)
		return TP_OK;
	tp_error("cannot write 'tracing_on' of %s: %s", tfs_instance_label(inst), strerror(errno));
	return TP_FAIL;
}

int tfs_buffer_clear(struct tracefs_instance *inst)
{
	if (tracefs_instance_file_clear(inst, "trace") >= 0)
		return TP_OK;
	tp_error("cannot clear the buffers of %s: %s", tfs_instance_label(inst), strerror(errno));
	return TP_FAIL;
}

int tfs_tracing_is_on(struct tracefs_instance *inst)
{
	long long v;

	if (tracefs_instance_file_read_number(inst, "tracing_on", &v) < 0)
		return -1;
	return v != 0;
}

int tfs_option_set(struct tracefs_instance *inst, const char *name, bool on)
{
	char file[128];

	if (!tfs_name_valid(name))
		return TP_USAGE;
	snprintf(file, sizeof(file), "options/%s", name);
	return tfs_instance_write(inst, file, on ? "1" : "0");
}
