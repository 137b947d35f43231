/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names - the names tpctl gives its own objects in the kernel, in one place,
 * so that what one run makes and what 'tpctl reset' and 'tpctl status' look
 * for after a KILL cannot drift apart.  A process's objects carry its pid;
 * they are orphaned when that process no longer runs.
 *
 *   tpctl-<pid>            a run's private instance (tfs_private_instance)
 *   tpctl                  the group of the probes 'tpctl probe add' makes
 *   tpctl_<pid>            the group of the probes of one run (probe.h)
 *   strings_sys_enter_X    in that group, --strings' probe for sys_enter_X (strargs.h)
 *   tpctl_str_<pid>_<n>    --strings' synthetic events
 *   tpctl_lat_<pid>_<n>    latency's synthetic events (its kernel engine)
 *
 * A leaf: nothing here calls into the rest of tpctl.
 */
#ifndef TPCTL_NAMES_H
#define TPCTL_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define INSTANCE_PREFIX "tpctl-"
/* The group of persistent probes, and the prefix of the groups of one run. */
#define PROBE_GROUP "tpctl"
#define PROBE_RUN_PREFIX "tpctl_"
/* The prefix of --strings' synthetic events, then <pid>_<n>; its probes' name prefix. */
#define STRINGS_SYNTH_PREFIX "tpctl_str_"
#define STRINGS_PROBE_PREFIX "strings_"
/* The prefix of latency's synthetic events, then <pid>_<n>. */
#define LAT_SYNTH_PREFIX "tpctl_lat_"

/* True for PREFIX<pid> when that process no longer runs (tpctl_<pid> probe groups). */
bool names_orphaned(const char *name, const char *prefix);
/* True for "tpctl-<pid>" when that process no longer runs. */
bool names_instance_orphaned(const char *name);
/* True for tpctl_lat_<pid>_<n> and tpctl_str_<pid>_<n> when that process no longer runs. */
bool names_synth_orphaned(const char *name);

/*
 * The len bytes at s as a name the kernel takes: [A-Za-z0-9_], at most most
 * bytes, and a letter or '_' first when letter_first (a probe's event or
 * argument name, NAMES_PROBE_MAX; a hist key's field is NAMES_FIELD_MAX, any first).
 */
#define NAMES_PROBE_MAX 64
#define NAMES_FIELD_MAX 255
bool names_ident_valid(const char *s, size_t len, size_t most, bool letter_first);

#endif
