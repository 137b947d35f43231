/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tfs - the only layer that touches tracefs (through libtracefs): finding and
 * mounting tracefs, instances, event name resolution and validation, enable,
 * filters and the kernel's error_log.  Every change goes through the state
 * journal (state.h) so that it can be undone on failure or on a signal.
 * One file per object: tfs.c (tracefs, names), tfs_instance.c, tfs_events.c,
 * tfs_tep.c, tfs_filter.c, tfs_pid.c, tfs_hist.c, tfs_stack.c.
 */
#ifndef TPCTL_TFS_H
#define TPCTL_TFS_H

#include <stdbool.h>
#include <stddef.h>

struct tracefs_instance;
struct tep_handle;
struct tep_event;

/* One tracepoint, as named in available_events ("system:event"). */
struct tfs_event {
	char *system;
	char *name;
};

struct tfs_event_list {
	struct tfs_event *v;
	size_t n;
	size_t alloc;
};

/*
 * Find the tracefs mount (or use --tracefs DIR), mounting it at
 * /sys/kernel/tracing when it is not mounted and we may.  Prints the error
 * and returns TP_FAIL when there is no usable tracefs.
 */
int tfs_init(void);
const char *tfs_dir(void);
/*
 * The CPUs whose buffers are read: the machine's configured CPUs, or as
 * many as the tracefs has per_cpu/cpuN directories where that is more (a
 * --tracefs tree of plain files, made for tests and benchmarks)
 */
#define TFS_MAX_CPUS 8192
int tfs_ncpus(void);
/* An instance's per_cpu/cpuN directories (N + 1 for the highest N; NULL: the top level), -1 */
int tfs_count_cpus(struct tracefs_instance *inst);

/*
 * The instance chosen with -i (tp.instance), or NULL for the top level.
 * tfs_open_selected() validates the name and fails (TP_USAGE) if the
 * instance does not exist: instances are never created implicitly.
 */
int tfs_open_selected(struct tracefs_instance **inst);
/* Both steps: tfs_init(), then tfs_open_selected().  What most commands start with. */
int tfs_open(struct tracefs_instance **inst);
const char *tfs_instance_label(struct tracefs_instance *inst);	/* "top level" or name */

/*
 * Create the private instance "tpctl-<pid>" and journal its removal.  Its
 * removal happens in state_rollback() (at exit, on signals).
 */
int tfs_private_instance(struct tracefs_instance **inst);

/*
 * Names: systems, events and instances may contain only [A-Za-z0-9_.-],
 * must not be empty, "." or "..", and at most 255 bytes.  Checked before any
 * path is built from them.
 */
#define TFS_NAME_MAX 255
bool tfs_name_valid(const char *name);
/* Glob patterns additionally allow * ? [ ]. */
bool tfs_pattern_valid(const char *pattern);

/* Every event in the instance's available_events, sorted as the kernel lists them. */
int tfs_events_available(struct tracefs_instance *inst, struct tfs_event_list *out);

/*
 * Resolve user patterns ("system", "system:event", globs in either part,
 * "system/event" is refused) against available_events.  A pattern that
 * matches nothing is an error naming it, with the closest real event
 * suggested (TP_USAGE).  Duplicates are removed; order follows the kernel's.
 */
int tfs_events_resolve(struct tracefs_instance *inst, char **patterns, int npatterns,
		       struct tfs_event_list *out);
/*
 * The same against a list of events that is not the kernel's (a recording's):
 * where names it in the error ("no event 'x' in 'FILE'").
 */
int tfs_events_match(const struct tfs_event_list *all, char **patterns, int npatterns,
		     const char *where, struct tfs_event_list *out);
int tfs_event_list_add(struct tfs_event_list *l, const char *sys, const char *name);
void tfs_event_list_free(struct tfs_event_list *l);
bool tfs_event_list_has(const struct tfs_event_list *l, const char *sys, const char *name);

/*
 * A tep_handle with header_page and the formats of just these events parsed
 * (NULL list: none), plugins loaded (system ones, then TPCTL_PLUGIN_DIR or
 * $TPCTL_PLUGIN_DIR).  Formats that libtraceevent cannot parse are reported
 * with tp_warn() unless quiet; the event is still in the handle when its
 * fields parsed.  Returns NULL after printing an error.
 */
struct tep_handle *tfs_tep_load(const struct tfs_event_list *events);
/* Parse one more event's format into tep (lazy loading); NULL if it fails. */
struct tep_event *tfs_tep_add_event(struct tep_handle *tep, const char *sys, const char *name);
/* Unload the plugins tfs_tep_load loaded and free tep. */
void tfs_tep_free(struct tep_handle *tep);
/* The raw text of events/<sys>/<name>/format (validated names); caller frees. */
char *tfs_event_format_text(const char *sys, const char *name, int *size);
/*
 * Check a filter before anything is written: no newline, not empty, shorter
 * than a page, and accepted by libtraceevent's filter parser for the event.
 * Prints the error; TP_USAGE when invalid.
 */
int tfs_filter_check(struct tep_handle *tep, const struct tfs_event *ev, const char *expr);
/*
 * A filter as libtracefs's filter builders take it (tracefs_hist_append_filter,
 * tracefs_synth_append_*_filter): the grammar tfs_filter_check verified
 * (comparisons "field op value", !, &&, ||, parentheses) in calls of fn.
 * -1 when a part cannot be given that way (the kernel's CPU and COMM, say)
 * or fn failed.
 */
enum tracefs_filter;
enum tracefs_compare;
typedef int (*tfs_filter_fn)(void *ctx, enum tracefs_filter type, const char *field,
			     enum tracefs_compare cmp, const char *val);
int tfs_filter_walk(const char *expr, tfs_filter_fn fn, void *ctx);
/*
 * saved_cmdlines' text (its length in *len), each line "PID NAME": a newline
 * in a task's name is written as '?'.  NULL where it cannot be read.
 */
char *tfs_saved_cmdlines(int *len);
/*
 * Each "PID NAME" line of saved_cmdlines' text (a recording's too) to fn,
 * past the lines that are none (the second part of a name with a newline).
 */
typedef void (*tfs_cmdline_fn)(void *ctx, int pid, const char *name, size_t len);
void tfs_cmdlines_walk(const char *text, size_t len, tfs_cmdline_fn fn, void *ctx);
/* The same for the kernel's saved_cmdlines now: 0, or -1 when it cannot be read. */
int tfs_cmdlines_each(tfs_cmdline_fn fn, void *ctx);
/* Load saved_cmdlines into tep so comm names resolve. */
int tfs_tep_load_cmdlines(struct tep_handle *tep);
/* saved_cmdlines' text (a recording's too) into tep, past lines that are no "PID NAME". */
void tfs_tep_parse_cmdlines(struct tep_handle *tep, const char *text, size_t len);

/* The kernel's explanation from error_log (NULL: top level), its last entry with the caret. */
void tfs_error_log_print(struct tracefs_instance *inst);
/* The same for an entry read before (tracefs_error_last()). */
void tfs_error_log_put(const char *text);

/* Journaled writes to events/<sys>/<event>/{enable,filter}. */
int tfs_event_enable(struct tracefs_instance *inst, const struct tfs_event *ev, bool on);
int tfs_event_is_enabled(struct tracefs_instance *inst, const struct tfs_event *ev);
/*
 * Verify the filter with libtraceevent against the event's format, then
 * write it.  A filter the kernel refuses is reported with the kernel's
 * error_log text (and caret) and the old filter stays.  TP_USAGE for an
 * invalid filter, TP_FAIL when the kernel refuses for another reason.
 */
int tfs_event_filter_set(struct tracefs_instance *inst, struct tep_handle *tep,
			 const struct tfs_event *ev, const char *expr);
int tfs_event_filter_clear(struct tracefs_instance *inst, const struct tfs_event *ev);
/* Current filter text, or NULL when there is none ("none" in the file). Caller frees. */
char *tfs_event_filter_get(struct tracefs_instance *inst, const struct tfs_event *ev);

/*
 * Hist triggers (the kernel engine of count and hist).  tfs_event_has_hist():
 * the kernel has them for this event (events/<sys>/<event>/hist exists; not
 * every kernel is built with them).  tfs_hist_start(): start the trigger
 * described by hist in inst, or make it paused, journaled so that rollback
 * removes it; size: entries of its table (0: the kernel's default, 2048);
 * when the kernel refuses it, TP_FAIL, and unless quiet the error
 * with the kernel's error_log.  tfs_hist_continue(): a paused one counts from
 * now on.  tfs_hist_read(): the text of the hist file, NULL on failure;
 * caller frees.
 */
struct tracefs_hist;
bool tfs_event_has_hist(struct tracefs_instance *inst, const struct tfs_event *ev);
int tfs_hist_start(struct tracefs_instance *inst, const struct tfs_event *ev,
		   struct tracefs_hist *hist, bool paused, bool quiet, size_t size);
int tfs_hist_continue(struct tracefs_instance *inst, const struct tfs_event *ev,
		      struct tracefs_hist *hist);
char *tfs_hist_read(struct tracefs_instance *inst, const struct tfs_event *ev);
/*
 * Synthetic events (the kernel engine of latency).  tfs_has_synth(): the
 * kernel has them.  tfs_synth_create(): "NAME FIELDS" into synthetic_events,
 * removed ("!NAME") after every other undo, once the private instance whose
 * triggers name it is gone.  tfs_trigger_add(): one trigger command into an
 * event's trigger file of inst, journaled (rollback empties the file).  Both:
 * TP_OK, or TP_FAIL with the kernel's error_log unless quiet.
 */
bool tfs_has_synth(void);
/* Remove every trigger of every event of inst (an instance the kernel would not rmdir). */
int tfs_instance_clear_triggers(struct tracefs_instance *inst);
/* tpctl reset: remove tpctl_lat_PID_N of processes that no longer run (after their instances). */
int tfs_synth_remove_orphans(void);
int tfs_synth_create(const char *name, const char *fields, bool quiet);
int tfs_trigger_add(struct tracefs_instance *inst, const struct tfs_event *ev, const char *cmd,
		    bool quiet);

/*
 * tracing_on of the private instance switched without a journal entry each
 * time (a flight recorder's dumps): the session journaled it once, and the
 * instance goes at the end.  tfs_tracing_is_on(): 1, 0 (a traceoff trigger
 * fired, or it was switched off), -1 when it cannot be read.
 */
int tfs_tracing_set(struct tracefs_instance *inst, bool on);
int tfs_tracing_is_on(struct tracefs_instance *inst);
/* What the instance's buffers hold is dropped (its trace file truncated). */
int tfs_buffer_clear(struct tracefs_instance *inst);
/* Journaled write of an instance file (tracing_on, buffer_size_kb, ...). */
int tfs_instance_write(struct tracefs_instance *inst, const char *file, const char *val);
/* The instance has this file (set_event_notrace_pid appeared in Linux 5.8). */
bool tfs_has_file(struct tracefs_instance *inst, const char *file);
/* Journaled write of options/NAME. */
int tfs_option_set(struct tracefs_instance *inst, const char *name, bool on);

/*
 * The event pid lists of an instance: set_event_pid, or set_event_notrace_pid
 * when notrace.  tfs_pids_set() replaces the list, journaled (rollback puts
 * the old list back).  tfs_pids_add() adds to it; call it only after a
 * tfs_pids_set() of the same list, whose journal entry also undoes the
 * additions.  tfs_pids_get() reads the list as the kernel has it now: with
 * options/event-fork on, it adds the children of listed tasks when they are
 * forked and drops tasks when they are freed.
 */
int tfs_pids_set(struct tracefs_instance *inst, bool notrace, const int *pids, size_t n);
int tfs_pids_add(struct tracefs_instance *inst, bool notrace, const int *pids, size_t n);
int tfs_pids_get(struct tracefs_instance *inst, bool notrace, int **pids, size_t *n);

/*
 * Stack traces for events of a (private) instance, journaled.  Kernel stacks:
 * the event's own "stacktrace" trigger where the kernel offers it, with
 * filter (or NULL) as its condition, since a trigger fires whatever the
 * event's filter decides; else the instance's options/stacktrace, which
 * stacks every event the instance records.  *how says which ("trigger" or
 * "options/stacktrace").  User stacks exist only as options/userstacktrace.
 */
int tfs_event_stacktrace(struct tracefs_instance *inst, const struct tfs_event *ev,
			 const char *filter, const char **how);
int tfs_user_stacktrace(struct tracefs_instance *inst);
/*
 * Does the instance record stacks now (options/stacktrace or
 * options/userstacktrace on, or a stacktrace trigger on an enabled event)?
 */
bool tfs_instance_stacks(struct tracefs_instance *inst);

#endif
