// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl probe list [--json] | add SPEC [ARG...] [--name NAME] | remove NAME...
 *
 * The dynamic events of the machine, and persistent probes in the group
 * "tpctl" (see probe.h for SPEC and the names).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "opt.h"
#include "print.h"
#include "probe.h"
#include "state.h"
#include "tfs.h"
#include "cmd.h"
#include "util.h"

/*
 * The kind of a dynamic event.  libtracefs 1.6.4 reads dynamic_events by
 * the line's prefix alone, so a uprobe ("p:grp/ev /path:0x...") comes back
 * as a kprobe and a uretprobe as a kretprobe (later versions look at the
 * place).  Read around it: a place that is a path is a uprobe's.
 */
static const char *dynevent_kind(enum tracefs_dynevent_type type, const char *addr)
{
	bool user = addr && addr[0] == '/';

	switch (type) {
	case TRACEFS_DYNEVENT_KPROBE:
	case TRACEFS_DYNEVENT_UPROBE:
		return user ? "uprobe" : "kprobe";
	case TRACEFS_DYNEVENT_KRETPROBE:
	case TRACEFS_DYNEVENT_URETPROBE:
		return user ? "uretprobe" : "kretprobe";
	case TRACEFS_DYNEVENT_EPROBE:
		return "eprobe";
	case TRACEFS_DYNEVENT_SYNTH:
		return "synthetic";
	default:
		return "unknown";
	}
}

static bool made_by_tpctl(const char *sys)
{
	return !strcmp(sys, PROBE_GROUP) || !strncmp(sys, PROBE_RUN_PREFIX,
						      strlen(PROBE_RUN_PREFIX));
}

/*
 * One dynamic event: "SYS:EV<tab>KIND<tab>PLACE ARGS[<tab>(tpctl)]" in the
 * text, an object in JSON.
 */
static void print_dynevent(struct print *p, const char *sys, const char *ev, const char *kind,
			   const char *addr, const char *fmt)
{
	bool tpctl = sys && made_by_tpctl(sys);

	print_open_object(p, NULL);
	print_string(p, PRINT_JSON, "system", NULL, sys);
	print_string(p, PRINT_TEXT, NULL, "%s:", sys ? sys : "?");
	print_string(p, PRINT_JSON, "event", NULL, ev);
	print_string(p, PRINT_TEXT, NULL, "%s", ev ? ev : "?");
	print_string(p, PRINT_ANY, "kind", "\t%s", kind);
	print_string(p, PRINT_JSON, "place", NULL, addr);
	print_string(p, PRINT_TEXT, NULL, "\t%s", addr ? addr : "");
	print_string(p, PRINT_JSON, "args", NULL, fmt && *fmt ? fmt : NULL);
	print_text(p, "%s%s", addr && *addr && fmt && *fmt ? " " : "", fmt ? fmt : "");
	print_bool(p, PRINT_JSON, "tpctl", NULL, tpctl);
	print_text(p, "%s\n", tpctl ? "\t(tpctl)" : "");
	print_close_object(p);
}

static int probe_list(bool json)
{
	struct tracefs_dynevent **all = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_ALL, NULL);
	struct print p;
	int i;

	if (!all && errno && errno != ENOENT) {
		tp_error("cannot read dynamic_events: %s", strerror(errno));
		return TP_FAIL;
	}
	print_start(&p, stdout, json);
	print_open_array(&p, "probes");
	for (i = 0; all && all[i]; i++) {
		char *sys = NULL, *ev = NULL, *prefix = NULL, *addr = NULL, *fmt = NULL;
		enum tracefs_dynevent_type t;

		t = tracefs_dynevent_info(all[i], &sys, &ev, &prefix, &addr, &fmt);
		if (!probe_dynevent_seen(all, i, sys, ev))
			print_dynevent(&p, sys, ev, dynevent_kind(t, addr), addr, fmt);
		free(sys);
		free(ev);
		free(prefix);
		free(addr);
		free(fmt);
	}
	print_close_array(&p);
	print_end(&p);
	tracefs_dynevent_list_free(all);
	return TP_OK;
}

static int probe_add(char **argv, int argc, const char *name)
{
	struct probe p;
	int ret;

	if (argc < 1) {
		tp_error("'add' needs a SPEC");
		return TP_USAGE;
	}
	ret = probe_parse(argv[0], argv + 1, argc - 1, name, &p);
	if (ret)
		return ret;
	ret = probe_create(&p, PROBE_GROUP);
	if (!ret) {
		state_commit();
		tp_note("made probe '%s:%s'", PROBE_GROUP, p.name);
	}
	probe_free(&p);
	return ret;
}

/* NAME: "EVENT" (group tpctl) or "SYSTEM:EVENT"; both checked before any path is built. */
static int split_name(const char *arg, char *sys, char *ev, size_t len)
{
	const char *colon = strchr(arg, ':');

	if (colon) {
		snprintf(sys, len, "%.*s", (int)(colon - arg), arg);
		snprintf(ev, len, "%s", colon + 1);
	} else {
		snprintf(sys, len, "%s", PROBE_GROUP);
		snprintf(ev, len, "%s", arg);
	}
	if (!tfs_name_valid(sys) || !tfs_name_valid(ev) || strlen(arg) >= len) {
		tp_error("invalid probe name '%s'", arg);
		return TP_USAGE;
	}
	return TP_OK;
}

/*
 * The line of sys:ev in dynamic_events ("p:sys/ev PLACE ARGS", "e:sys/ev
 * BASESYS.BASEEVENT ARGS", "s:sys/ev FIELDS"), with a newline: the kernel
 * takes it back as it shows it, which is how a removal is undone.
 */
static char *dynevent_line(const char *dyn, const char *sys, const char *ev)
{
	size_t ls = strlen(sys), le = strlen(ev);
	const char *l, *g, *nl;

	for (l = dyn; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		g = strchr(l, ':');
		if (!g || (nl && g > nl))
			continue;
		g++;
		if (!strncmp(g, sys, ls) && g[ls] == '/' && !strncmp(g + ls + 1, ev, le) &&
		    (g[ls + 1 + le] == ' ' || g[ls + 1 + le] == '\n' || !g[ls + 1 + le])) {
			char *line;

			if (asprintf(&line, "%.*s\n", nl ? (int)(nl - l) : (int)strlen(l), l) < 0)
				return NULL;
			return line;
		}
	}
	return NULL;
}

struct removal {
	char sys[256];
	char ev[256];
	char *line;	/* its definition, to put it back */
};

/*
 * After a removal failed: the journal puts back what was removed (their
 * definitions were journaled); the error says what is still gone if that
 * failed too, so that the user knows exactly what the command did.
 */
static void remove_undo(struct removal *r, int done, const char *why)
{
	char gone[512] = "";
	size_t n = 0;
	int i;

	state_rollback();
	for (i = 0; i < done && n < sizeof(gone); i++)
		if (!tracefs_event_file_exists(NULL, r[i].sys, r[i].ev, "format"))
			n += snprintf(gone + n, sizeof(gone) - n, "%s'%s:%s'", n ? ", " : "",
				      r[i].sys, r[i].ev);
	if (n)
		tp_error("%s; removed %s (could not put back)", why, gone);
	else
		tp_error("%s; nothing removed", why);
}

/* The kernel refused to remove r (errno err): what the command did is undone and said. */
static void remove_failed(struct removal *r, int done, const struct removal *failed, int err)
{
	char *why;

	if (asprintf(&why, "cannot remove probe '%s:%s': %s%s", failed->sys, failed->ev,
		     strerror(err), err == EBUSY ? " (it is enabled or in use)" : "") < 0) {
		remove_undo(r, done, "out of memory");
		return;
	}
	remove_undo(r, done, why);
	free(why);
}

/*
 * Every NAME is checked to be a dynamic event before the first is removed:
 * bad input removes nothing.  Each removal is journaled with the probe's
 * definition: when one fails (the kernel refuses to remove a probe that is
 * enabled or used by another event: EBUSY), those removed before it are
 * made again, and the error says so (or names those that could not be).
 */
static int probe_remove(char **argv, int argc)
{
	struct removal *r = calloc(argc ? argc : 1, sizeof(*r));
	char *path = NULL, *dyn = NULL, *undo;
	int i, done = 0, ret = TP_OK;
	sigset_t old;

	if (!r || asprintf(&path, "%s/dynamic_events", tfs_dir()) < 0) {
		free(r);
		return tp_oom();
	}
	if (argc < 1) {
		tp_error("'remove' needs a NAME");
		ret = TP_USAGE;
	} else if (!(dyn = tp_read_file(path, NULL))) {
		tp_error("cannot read dynamic_events: %s", strerror(errno));
		ret = TP_FAIL;
	}
	for (i = 0; !ret && i < argc; i++) {
		ret = split_name(argv[i], r[i].sys, r[i].ev, sizeof(r[i].sys));
		if (!ret && !(r[i].line = dynevent_line(dyn, r[i].sys, r[i].ev))) {
			tp_error("no probe '%s:%s'; 'tpctl probe list' shows them", r[i].sys,
				 r[i].ev);
			ret = TP_USAGE;
		}
	}
	for (i = 0; !ret && i < argc; i++, done++) {
		if (asprintf(&undo, "-:%s/%s\n", r[i].sys, r[i].ev) < 0) {
			remove_undo(r, done, "out of memory");
			ret = TP_FAIL;
			break;
		}
		/* a signal between the removal and its journal entry would lose the probe */
		state_block_signals(&old);
		if (tracefs_instance_file_append(NULL, "dynamic_events", undo) < 0) {
			int err = errno;

			sigprocmask(SIG_SETMASK, &old, NULL);
			remove_failed(r, done, &r[i], err);
			ret = TP_FAIL;
		} else if (state_journal_append(path, r[i].line) < 0) {
			/* cannot promise to put it back: put it back now, and stop */
			tracefs_instance_file_append(NULL, "dynamic_events", r[i].line);
			sigprocmask(SIG_SETMASK, &old, NULL);
			remove_undo(r, done, "out of memory");
			ret = TP_FAIL;
		} else {
			sigprocmask(SIG_SETMASK, &old, NULL);
			tp_debug("probe %s:%s removed", r[i].sys, r[i].ev);
		}
		free(undo);
	}
	if (!ret)
		state_commit();
	for (i = 0; i < argc; i++)
		free(r[i].line);
	free(r);
	free(dyn);
	free(path);
	return ret;
}

int cmd_probe(int argc, char **argv)
{
	const char *name = NULL;
	bool json = false;
	int ret;
	const struct tp_opt opts[] = {
		OPT_ARG("list|add|remove", "what to do: list the dynamic events, add a probe, "
			"remove probes"),
		OPT_ARG("SPEC", "add: u:PATH:SYMBOL[+OFF], u:PATH:0xADDR, ur:PATH:SYMBOL, "
			"k:SYMBOL[+OFF], kr:SYMBOL or e:SYSTEM:EVENT"),
		OPT_ARG("ARG", "add: the kernel's fetch-arg syntax, or arg1..arg6, retval, "
			"NAME=argN:string; for e: FIELD:string"),
		OPT_ARG("NAME", "remove: EVENT (group tpctl) or SYSTEM:EVENT"),
		OPT_BOOL('j', "json", &json, "list: one JSON document"),
		OPT_STRING('n', "name", &name, "NAME", "add: the event's name (default: from SPEC)"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = {
		"tpctl probe list [--json]\n"
		"       tpctl probe add SPEC [ARG...] [--name NAME]\n"
		"       tpctl probe remove NAME...",
		opts, 0,
		"Probes are made in the group 'tpctl' and stay until removed; stream, record,\n"
		"count, hist and latency make probes for one run (see tpctl-probe(1))." };
	struct tp_args args;

	ret = opt_parse(argc, argv, &spec, &args);
	if (ret)
		return opt_status(ret);
	if (args.argc < 1) {
		tp_error("which: 'list', 'add' or 'remove'");
		return TP_USAGE;
	}
	if (strcmp(args.argv[0], "list") && strcmp(args.argv[0], "add") &&
	    strcmp(args.argv[0], "remove")) {
		tp_error("unknown subcommand '%s': 'list', 'add' or 'remove'", args.argv[0]);
		return TP_USAGE;
	}
	if (strcmp(args.argv[0], "list") && json) {
		tp_error("'--json' is for 'list'");
		return TP_USAGE;
	}
	if (strcmp(args.argv[0], "add") && name) {
		tp_error("'--name' is for 'add'");
		return TP_USAGE;
	}
	if (!strcmp(args.argv[0], "list") && args.argc > 1) {
		tp_error("unexpected argument '%s'", args.argv[1]);
		return TP_USAGE;
	}
	ret = tfs_init();
	if (ret)
		return ret;
	if (!strcmp(args.argv[0], "list"))
		return probe_list(json);
	if (!strcmp(args.argv[0], "add"))
		return probe_add(args.argv + 1, args.argc - 1, name);
	return probe_remove(args.argv + 1, args.argc - 1);
}
