/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe - dynamic events where no tracepoint is: uprobes, kprobes and event
 * probes, made through libtracefs' dynevent API from a SPEC and its ARGs
 * (tpctl-probe(1)):
 *
 *	u:PATH:SYMBOL[+OFF]  u:PATH:0xADDR  ur:PATH:SYMBOL   uprobe, uretprobe
 *	k:SYMBOL[+OFF]       kr:SYMBOL                       kprobe, kretprobe
 *	e:SYSTEM:EVENT                                       event probe
 *
 * Names: the probes of one run are in the group "tpctl_<pid>" (a run cannot
 * meet another's, and 'tpctl reset' finds those of a tpctl that is gone);
 * persistent ones ('probe add') in the group "tpctl".  Every probe made is
 * journaled (state.h): rollback removes it, state_commit() keeps it.
 */
#ifndef TPCTL_PROBE_H
#define TPCTL_PROBE_H

#include <stdbool.h>

#include "names.h"	/* PROBE_GROUP, PROBE_RUN_PREFIX<pid> */

struct tfs_event_list;

enum probe_kind {
	PROBE_UPROBE,
	PROBE_URETPROBE,
	PROBE_KPROBE,
	PROBE_KRETPROBE,
	PROBE_EPROBE,
};

struct probe {
	enum probe_kind kind;
	char *name;		/* the event's name in its group */
	char *path;		/* uprobes: the ELF file, absolute */
	unsigned long long offset;	/* uprobes: the file offset */
	char *symbol;		/* kprobes: SYMBOL[+OFF]; uprobes: as given */
	char *target_sys;	/* event probes: the event probed */
	char *target_event;
	char *args;		/* the kernel's fetch-args, space separated ("" for none) */
};

/* This run's group, tpctl_<pid> (a static buffer, made again on each call). */
const char *probe_run_group(void);

/*
 * Parse and check SPEC and ARGs, resolving a uprobe's symbol in its ELF file.
 * name (NULL: derived from the symbol or event) is the event name.  Prints
 * one error line and returns TP_USAGE for bad input (unknown symbol, not an
 * ELF file, a kind of probe this kernel does not have), TP_OK otherwise.
 */
int probe_parse(const char *spec, char **args, int nargs, const char *name, struct probe *p);
/* The same from one shell word "SPEC [ARG...]" (--probe). */
int probe_parse_word(const char *word, struct probe *p);
void probe_free(struct probe *p);

/*
 * Make the probe in group (journaled, see above).  A definition the kernel
 * refuses is reported with its error_log text and caret: TP_USAGE; another
 * failure (an existing probe of that name, no permission): TP_FAIL.
 */
int probe_create(const struct probe *p, const char *group);

/*
 * --probe: make the probes of the words for this run in group tpctl_<pid>
 * and add their events to evs.
 */
int probe_session_make(char **words, int n, struct tfs_event_list *evs);

/*
 * --probe 'SPEC [ARG...]' (repeatable) of stream, record, count, hist and
 * latency: the words as given (argv's strings), checked by live_open().
 */
#define PROBE_MAX 16
struct probe_words {
	char *v[PROBE_MAX];
	int n;
};
struct tp_opt;
int probe_opt(const struct tp_opt *o, const char *arg);
#define PROBE_OPTS(w)								\
	OPT_CALLBACK(0, "probe", (w), "SPEC", probe_opt,			\
		     "make a probe for this run and trace its event (repeatable):\n" \
		     "'SPEC [ARG...]' as for 'tpctl probe add', removed at the end")

/*
 * libtracefs 1.6.4's tracefs_dynevent_get_all() lists a probe once from
 * dynamic_events and once from its kind's file: all[i] is one listed before.
 */
struct tracefs_dynevent;
bool probe_dynevent_seen(struct tracefs_dynevent **all, int i, const char *sys, const char *ev);

/* The kernel has event probes (CONFIG_EPROBE_EVENTS): their code is in kallsyms. */
bool probe_kernel_has_eprobes(void);

/* Remove the dynamic events of groups tpctl_<pid> whose process is gone ('tpctl reset'). */
int probe_remove_orphans(void);

#endif
