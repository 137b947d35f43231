// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * live - set-up shared by the commands that trace the running kernel; see live.h.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "decode.h"
#include "live.h"
#include "target.h"
#include "tfs.h"
#include "tpctl.h"

int live_load_format(struct tep_handle *tep, const char *sys, const char *name)
{
	char *buf;
	int size = 0, ret;

	if (tep_find_event_by_name(tep, sys, name))
		return 0;
	buf = tfs_event_format_text(sys, name, &size);
	if (!buf)
		return -1;
	ret = decode_add_format(tep, sys, buf, size);
	free(buf);
	if (ret)
		tp_warn("libtraceevent cannot parse the format of '%s:%s'", sys, name);
	return ret;
}

struct tep_handle *live_tep(bool plugins)
{
	struct tep_handle *tep = decode_tep_new(plugins);
	char *buf;
	int size = 0;

	if (!tep) {
		tp_error("out of memory");
		return NULL;
	}
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || decode_header_page(tep, buf, size)) {
		tp_error("cannot parse events/header_page of '%s'", tfs_dir());
		free(buf);
		tep_free(tep);
		return NULL;
	}
	free(buf);
	return tep;
}

int live_resolve_events(struct tep_handle *tep, char **pats, int npats, const char *filter,
			struct tfs_event_list *evs)
{
	size_t i;
	int ret;

	ret = tfs_events_resolve(NULL, pats, npats, evs);
	for (i = 0; !ret && i < evs->n; i++)
		live_load_format(tep, evs->v[i].system, evs->v[i].name);
	for (i = 0; !ret && filter && i < evs->n; i++)
		ret = tfs_filter_check(tep, &evs->v[i], filter);
	return ret;
}

/*
 * Stacks before the events are enabled, so that every event has them:
 * kernel stacks per event (the stacktrace trigger, else options/stacktrace),
 * user stacks for the instance (the kernel has no trigger for them).
 */
static int setup_stacks(struct tracefs_instance *inst, const struct tfs_event_list *evs,
			const char *filter, unsigned flags)
{
	const char *how = NULL;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && (flags & LIVE_KSTACK) && i < evs->n; i++)
		ret = tfs_event_stacktrace(inst, &evs->v[i], filter, &how);
	if (!ret && how)
		tp_debug("kernel stacks by %s", how);
	if (!ret && (flags & LIVE_USTACK))
		ret = tfs_user_stacktrace(inst);
	return ret;
}

int live_setup_instance(struct tracefs_instance **inst, struct tep_handle *tep,
			const struct tfs_event_list *evs, const char *filter,
			const char *buffer_kb, unsigned flags, struct target *tgt)
{
	size_t i;
	int ret;

	ret = tfs_private_instance(inst);
	/* the pid lists before any event is on: nothing else gets into the buffer */
	if (!ret)
		ret = target_start(tgt);
	if (!ret)
		ret = target_apply(tgt, *inst);
	if (!ret && buffer_kb)
		ret = tfs_instance_write(*inst, "buffer_size_kb", buffer_kb);
	/*
	 * A new instance wakes its reader when the buffer is half full
	 * (buffer_percent 50); a reader that shows each record as it comes
	 * wants to wake on the first one instead.
	 */
	if (!ret && (flags & LIVE_PROMPT))
		ret = tfs_instance_write(*inst, "buffer_percent", "0");
	/*
	 * A trigger on a disabled event soft-enables it: the kernel then
	 * discards the event but still records the trigger's stack.  Nothing
	 * is recorded until every event is on, so no stack comes without it.
	 */
	if (!ret && (flags & LIVE_KSTACK))
		ret = tfs_instance_write(*inst, "tracing_on", "0");
	if (!ret)
		ret = setup_stacks(*inst, evs, filter, flags);
	for (i = 0; !ret && i < evs->n; i++) {
		if (filter)
			ret = tfs_event_filter_set(*inst, tep, &evs->v[i], filter);
		if (!ret)
			ret = tfs_event_enable(*inst, &evs->v[i], true);
	}
	if (!ret && (flags & LIVE_KSTACK))
		ret = tfs_instance_write(*inst, "tracing_on", "1");
	if (!ret)
		tp_debug("tracing %zu event(s) in %s", evs->n, tfs_instance_label(*inst));
	return ret;
}

void live_cpu_stats(struct tracefs_instance *inst, int cpu, unsigned long long *overrun,
		    unsigned long long *dropped)
{
	char path[64], *buf, *p;
	int size = 0;

	*overrun = *dropped = 0;
	snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
	buf = tracefs_instance_file_read(inst, path, &size);
	if (!buf)
		return;
	p = strstr(buf, "\noverrun:");
	if (p || !strncmp(buf, "overrun:", 8))
		*overrun = strtoull(strchr(p ? p + 1 : buf, ':') + 1, NULL, 10);
	p = strstr(buf, "dropped events:");
	if (p)
		*dropped = strtoull(p + 15, NULL, 10);
	free(buf);
}
