/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strings - --strings: the user-space strings behind the pointer arguments of
 * syscall events (sys_enter_openat's filename), fetched by the kernel.
 *
 * Which arguments are strings: a field of a sys_enter_* format whose type
 * is "const char *" or "char *" and whose name says it is a NUL-terminated
 * path or name the syscall reads (strings_arg(): filename, pathname, path,
 * oldname, newname, ...).  A buffer (write's buf) or an array (execve's argv)
 * is not one.
 *
 * How: an event probe fetches "+0($filename):ustring", which never faults a
 * page in, so at syscall entry it often finds the page of the path not
 * mapped yet.  At exit the kernel has read the path itself.  So, per syscall
 * event X of the run:
 *
 *   - a synthetic event tpctl_str_<pid>_<n> with the entry's arguments (as
 *     numbers) and ret;
 *   - in the run's instance, a hist trigger on sys_enter_X that keeps the
 *     arguments per task (keyed by common_pid), and one on sys_exit_X whose
 *     onmatch(sys_enter_X) fires the synthetic event with them and ret;
 *   - an event probe tpctl_<pid>:strings_sys_enter_X on the synthetic event
 *     that fetches each string argument as a ustring and every other field
 *     as it is.  That event is traced instead of sys_enter_X, and the decoder
 *     shows it as sys_enter_X (decode.c), with ret: it is written at exit.
 *
 * execve and execveat are the exception: after a successful exec the
 * pointer belongs to an address space that is gone, so their probe is on
 * sys_enter_X itself and fetches at entry (no ret).  A kernel whose
 * sys_enter_X format has the strings already (a __data_loc char[] field,
 * Linux 6.19) gets its event traced as it is.
 *
 * The synthetic events (journaled to go last), the triggers (in the private
 * instance) and the probes (group tpctl_<pid>, see probe.h) are all undone
 * by the journal; after a KILL, 'tpctl reset' removes what is left.
 */
#ifndef TPCTL_STRARGS_H
#define TPCTL_STRARGS_H

#include <stdbool.h>

#include "names.h"	/* STRINGS_SYNTH_PREFIX<pid>_<n>, STRINGS_PROBE_PREFIX */

struct tep_handle;
struct tep_format_field;
struct tracefs_instance;
struct tfs_event_list;
struct strings;

/* --strings, the option of stream, record, count and hist */
#define STRINGS_OPT(v)								\
	OPT_BOOL(0, "strings", (v), "syscall events: the paths and names their arguments\n" \
		 "point to, fetched by the kernel (needs event probes)")

/* A sys_enter_* field that --strings fetches as a string (the rule above). */
bool strings_arg(const struct tep_format_field *f);

/*
 * Before anything is made: TP_USAGE with one error line when the kernel
 * cannot fetch the strings (no event probes, synthetic events or hist
 * triggers).
 */
int strings_check(void);

/*
 * Make the synthetic events and probes for the syscall events of evs that
 * have string arguments, and put the probes in evs in their place; the
 * formats are parsed into tep.  *sp holds what strings_arm() writes later
 * (NULL when nothing was needed).  TP_OK, or the status after one error line.
 */
int strings_make(struct tep_handle *tep, struct tfs_event_list *evs, struct strings **sp);
/* The hist triggers into the (private) instance, before its events are enabled. */
int strings_arm(struct strings *s, struct tracefs_instance *inst);
/* At the end: the syscalls missed because the table of tasks was full, on stderr. */
void strings_report(struct strings *s, struct tracefs_instance *inst);
void strings_free(struct strings *s);

/*
 * A strings probe's event name in a recording or a live stream (group
 * tpctl_<pid>, name strings_sys_enter_X): the syscall event it stands for,
 * "sys_enter_X", or NULL.
 */
const char *strings_shown_name(const char *system, const char *name);

#endif
