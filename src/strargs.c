// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * strings - syscall string arguments fetched by the kernel (--strings); see
 * strargs.h for what is made and why.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "decode.h"
#include "probe.h"
#include "strargs.h"
#include "tfs.h"
#include "util.h"

/*
 * Per task, the arguments wait in the entry trigger's table from entry to
 * exit.  The kernel never frees an entry, so a table holds this many tasks
 * over the run; a task that comes later is counted as "Dropped" there.  The
 * kernel allocates every entry of a table when the trigger is made (about
 * 200 bytes each here): a run of many syscall events (all of "syscalls")
 * gets the kernel's default size.
 */
#define STRINGS_TABLE 8192
#define STRINGS_TABLE_MANY 2048
#define STRINGS_MANY 8

/* The syscall events whose hist triggers strings_arm() writes. */
struct strings_join {
	struct tfs_event enter, exit;
	char *enter_cmd, *exit_cmd;
};

struct strings {
	struct strings_join *v;
	int n;
	int table;		/* entries of each table */
};

/*
 * Names of the NUL-terminated strings syscalls read, as their formats call
 * them ("const char *" or "char *" arguments).  Arguments that are buffers
 * (read, write, getcwd, readlink's buf, gethostname's "char * name") or
 * arrays (execve's argv) are not here; "name" counts only when it is const.
 */
static const char *const string_names[] = {
	"filename", "pathname", "path", "oldname", "newname", "from_pathname", "to_pathname",
	"new_root", "put_old", "specialfile", "special", "library", "dev_name", "dir_name",
	"type", "u_name", "uname", "_type", "_description", "_callout_info", "_fs_name",
	"_key", "uargs", "name_user",
};

bool strings_arg(const struct tep_format_field *f)
{
	bool is_const = !strcmp(f->type, "const char *");
	size_t i;

	if (!is_const && strcmp(f->type, "char *"))
		return false;
	if (!strcmp(f->name, "name"))
		return is_const;
	for (i = 0; i < sizeof(string_names) / sizeof(string_names[0]); i++)
		if (!strcmp(f->name, string_names[i]))
			return true;
	return false;
}

int strings_check(void)
{
	if (!probe_kernel_has_eprobes()) {
		tp_error("'--strings' needs event probes, which this kernel does not have "
			 "(CONFIG_EPROBE_EVENTS is off)");
		return TP_FAIL;
	}
	if (!tfs_has_synth()) {
		tp_error("'--strings' needs synthetic events, which this kernel does not have "
			 "(CONFIG_SYNTH_EVENTS is off)");
		return TP_FAIL;
	}
	return TP_OK;
}

const char *strings_shown_name(const char *system, const char *name)
{
	const char *p;

	if (strncmp(system, PROBE_RUN_PREFIX, strlen(PROBE_RUN_PREFIX)))
		return NULL;
	for (p = system + strlen(PROBE_RUN_PREFIX); *p; p++)
		if (!isdigit((unsigned char)*p))
			return NULL;
	if (strncmp(name, STRINGS_PROBE_PREFIX "sys_enter_", strlen(STRINGS_PROBE_PREFIX) + 10))
		return NULL;
	return name + strlen(STRINGS_PROBE_PREFIX);
}

/*
 * The decoder shows the probes as the syscall events they stand for wherever
 * they are read (a live stream, a count, a trace.dat): linked in, --strings
 * tells it which they are.
 */
__attribute__((constructor)) static void strings_register_shown(void)
{
	decode_set_shown(strings_shown_name);
}

/* A number field of the formats as a synthetic field type and a probe fetch type. */
static const char *num_type(const struct tep_format_field *f)
{
	bool sign = f->flags & TEP_FIELD_IS_SIGNED;

	switch (f->size) {
	case 1:
		return sign ? "s8" : "u8";
	case 2:
		return sign ? "s16" : "u16";
	case 4:
		return sign ? "s32" : "u32";
	default:
		return sign ? "s64" : "u64";
	}
}

/* Append printf text to *buf (NULL: nothing yet); false when out of memory. */
static bool cat(char **buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool cat(char **buf, const char *fmt, ...)
{
	char *add, *n;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vasprintf(&add, fmt, ap);
	va_end(ap);
	if (len < 0)
		return false;
	n = *buf ? realloc(*buf, strlen(*buf) + len + 1) : NULL;
	if (!*buf) {
		*buf = add;
		return true;
	}
	if (n)
		strcat(n, add);
	free(add);
	if (!n)
		return false;
	*buf = n;
	return true;
}

/* The fields of an event after the common_* ones, as the format lists them. */
static struct tep_format_field *first_field(struct tep_event *ev)
{
	return ev->format.fields;
}

/*
 * The probe's fetch-args for the fields of ev, each by the name it has in
 * the probed event ($name): strings as ustring, the rest as numbers.
 */
static char *probe_args(struct tep_event *enter, const struct tep_format_field *ret)
{
	struct tep_format_field *f;
	char *args = NULL;
	bool ok = true;

	for (f = first_field(enter); f && ok; f = f->next) {
		if (strings_arg(f))
			ok = cat(&args, "%s%s=+0($%s):ustring", args ? " " : "", f->name, f->name);
		else
			ok = cat(&args, "%s%s=$%s:%s", args ? " " : "", f->name, f->name,
				 num_type(f));
	}
	if (ok && ret)
		ok = cat(&args, " %s=$%s:%s", ret->name, ret->name, num_type(ret));
	if (!ok) {
		free(args);
		return NULL;
	}
	return args;
}

static bool has_string_arg(struct tep_event *ev)
{
	struct tep_format_field *f;

	for (f = first_field(ev); f; f = f->next)
		if (strings_arg(f))
			return true;
	return false;
}

/* The kernel records the strings itself (Linux 6.19): a __data_loc char[] field. */
static bool kernel_has_strings(struct tep_event *ev)
{
	struct tep_format_field *f;

	for (f = first_field(ev); f; f = f->next)
		if (!strncmp(f->type, "__data_loc ", 11) && strstr(f->type, "char"))
			return true;
	return false;
}

/* The event probe strings_<event> in the run's group on sys:event, with args. */
static int make_probe(const char *event, const char *sys, const char *target, char *args,
		      struct tfs_event *out)
{
	struct probe p = { .kind = PROBE_EPROBE };
	const char *group = probe_run_group();
	int ret;

	if (asprintf(&p.name, STRINGS_PROBE_PREFIX "%s", event) < 0)
		p.name = NULL;
	p.target_sys = strdup(sys);
	p.target_event = strdup(target);
	p.args = args;
	if (!p.name || !p.target_sys || !p.target_event) {
		probe_free(&p);
		return tp_oom();
	}
	ret = probe_create(&p, group);
	if (!ret) {
		free(out->system);
		free(out->name);
		out->system = strdup(group);
		out->name = p.name;
		p.name = NULL;
		if (!out->system || !out->name) {
			ret = tp_oom();
		}
	}
	probe_free(&p);
	return ret;
}

/*
 * The synthetic event of sys_enter_X's fields and sys_exit_X's ret, and the
 * two triggers that fire it (written by strings_arm()).
 */
static int make_join(struct strings *s, struct tep_event *enter, struct tep_event *exit,
		     const struct tep_format_field *ret, char **synth)
{
	struct strings_join *j, *v = realloc(s->v, (s->n + 1) * sizeof(*v));
	struct tep_format_field *f;
	char *fields = NULL, *save = NULL, *fire = NULL;
	int k, n = s->n, r = TP_FAIL;
	bool ok = true;

	if (!v)
		goto oom;
	s->v = v;
	j = &v[n];
	memset(j, 0, sizeof(*j));
	if (asprintf(synth, STRINGS_SYNTH_PREFIX "%d_%d", (int)getpid(), n) < 0) {
		*synth = NULL;
		goto oom;
	}
	for (f = first_field(enter), k = 0; f && ok; f = f->next, k++) {
		ok = cat(&fields, "%s%s %s", fields ? "; " : "", num_type(f), f->name) &&
		     cat(&save, "%st%d_%d=%s", save ? "," : "", n, k, f->name) &&
		     cat(&fire, ",$t%d_%d", n, k);
	}
	if (ok)
		ok = cat(&fields, "%s%s %s", fields ? "; " : "", num_type(ret), ret->name) &&
		     cat(&fire, ",$t%d_r", n);
	if (!ok || !save)
		goto oom;
	j->enter.system = strdup("syscalls");
	j->enter.name = strdup(enter->name);
	j->exit.system = strdup("syscalls");
	j->exit.name = strdup(exit->name);
	s->n++;
	if (!j->enter.system || !j->enter.name || !j->exit.system || !j->exit.name ||
	    asprintf(&j->enter_cmd, "hist:keys=common_pid:%s:size=%d", save, s->table) < 0 ||
	    asprintf(&j->exit_cmd, "hist:keys=common_pid:t%d_r=%s:size=%d:"
		     "onmatch(syscalls.%s).trace(%s%s)", n, ret->name, s->table,
		     enter->name, *synth, fire) < 0)
		goto oom;
	r = tfs_synth_create(*synth, fields, false);
	goto out;
oom:
	tp_oom();
out:
	free(fields);
	free(save);
	free(fire);
	return r;
}

/* One event of the run: its probe (and join) when it has string arguments. */
static int make_one(struct tep_handle *tep, struct strings *s, struct tfs_event *ev)
{
	struct tep_event *enter, *exit = NULL;
	const struct tep_format_field *ret = NULL;
	char exit_name[300], *args, *synth = NULL;
	bool at_entry;
	int r;

	if (strcmp(ev->system, "syscalls") || strncmp(ev->name, "sys_enter_", 10))
		return TP_OK;
	enter = tep_find_event_by_name(tep, ev->system, ev->name);
	if (!enter || !has_string_arg(enter))
		return TP_OK;
	if (kernel_has_strings(enter)) {
		tp_debug("%s:%s records its strings itself", ev->system, ev->name);
		return TP_OK;
	}
	/* after a successful exec the pointer is in an address space that is gone */
	at_entry = !strcmp(ev->name, "sys_enter_execve") || !strcmp(ev->name, "sys_enter_execveat");
	if (!at_entry) {
		snprintf(exit_name, sizeof(exit_name), "sys_exit_%s", ev->name + 10);
		exit = tfs_tep_add_event(tep, "syscalls", exit_name);
		ret = exit ? tep_find_field(exit, "ret") : NULL;
		if (!ret) {
			tp_error("cannot read the format of 'syscalls:%s'", exit_name);
			return TP_FAIL;
		}
	}
	args = probe_args(enter, ret);
	if (!args)
		return tp_oom();
	r = at_entry ? TP_OK : make_join(s, enter, exit, ret, &synth);
	if (!r)
		r = make_probe(ev->name, at_entry ? "syscalls" : "synthetic",
			       at_entry ? ev->name : synth, args, ev);
	else
		free(args);
	if (!r)
		tp_debug("--strings: %s:%s for syscalls:%s%s", ev->system, ev->name,
			 ev->name + strlen(STRINGS_PROBE_PREFIX), at_entry ? " (fetched at entry)" : "");
	free(synth);
	return r;
}

int strings_make(struct tep_handle *tep, struct tfs_event_list *evs, struct strings **sp)
{
	struct strings *s = calloc(1, sizeof(*s));
	size_t i, n = 0;
	int ret = TP_OK;

	*sp = NULL;
	if (!s)
		return tp_oom();
	for (i = 0; i < evs->n; i++)
		n += !strcmp(evs->v[i].system, "syscalls") &&
		     !strncmp(evs->v[i].name, "sys_enter_", 10);
	s->table = n > STRINGS_MANY ? STRINGS_TABLE_MANY : STRINGS_TABLE;
	for (i = 0; !ret && i < evs->n; i++)
		ret = make_one(tep, s, &evs->v[i]);
	*sp = s;
	return ret;
}

int strings_arm(struct strings *s, struct tracefs_instance *inst)
{
	int i, ret = TP_OK;

	/* the entry's first: the exit's onmatch names its variables */
	for (i = 0; s && !ret && i < s->n; i++) {
		ret = tfs_trigger_add(inst, &s->v[i].enter, s->v[i].enter_cmd, false);
		if (!ret)
			ret = tfs_trigger_add(inst, &s->v[i].exit, s->v[i].exit_cmd, false);
	}
	return ret;
}

void strings_report(struct strings *s, struct tracefs_instance *inst)
{
	unsigned long long dropped = 0;
	int i;

	for (i = 0; s && i < s->n; i++) {
		char *text = tfs_hist_read(inst, &s->v[i].enter), *p;

		/* the table's totals: "Dropped: N", entries the full table had no room for */
		p = text ? strstr(text, "Dropped: ") : NULL;
		if (p)
			dropped += strtoull(p + 9, NULL, 10);
		free(text);
	}
	if (dropped)
		tp_warn("%llu syscall(s) not seen by '--strings': its table of tasks (%d) was full",
			dropped, s->table);
}

void strings_free(struct strings *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->v[i].enter.system);
		free(s->v[i].enter.name);
		free(s->v[i].exit.system);
		free(s->v[i].exit.name);
		free(s->v[i].enter_cmd);
		free(s->v[i].exit_cmd);
	}
	free(s->v);
	free(s);
}
