// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl status [--json]
 *
 * What the chosen instance is doing: tracing_on, tracer, clock, buffer size,
 * enabled events and their filters, the per-CPU ring-buffer counters (lost
 * events show up here as overrun and dropped), and at the top level the
 * instances that exist, orphaned tpctl ones marked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "names.h"
#include "opt.h"
#include "print.h"
#include "tfs.h"
#include "cmd.h"
#include "util.h"

/* The per-CPU counters of per_cpu/cpuN/stats that we report, in file order. */
static const char *const stat_keys[] = {
	"entries", "overrun", "commit overrun", "bytes", "dropped events", "read events",
};
#define NSTATS (sizeof(stat_keys) / sizeof(stat_keys[0]))

struct cpu_stats {
	unsigned long long v[NSTATS];
	bool have[NSTATS];
};

static void parse_stats(const char *buf, struct cpu_stats *st)
{
	size_t k;

	memset(st, 0, sizeof(*st));
	for (k = 0; k < NSTATS; k++) {
		const char *p = buf;
		size_t len = strlen(stat_keys[k]);

		while (p && *p) {
			if (!strncmp(p, stat_keys[k], len) && p[len] == ':') {
				st->v[k] = strtoull(p + len + 1, NULL, 10);
				st->have[k] = true;
				break;
			}
			p = strchr(p, '\n');
			if (p)
				p++;
		}
	}
}

static char *read_trimmed(struct tracefs_instance *inst, const char *file)
{
	char *s = tracefs_instance_file_read(inst, file, NULL);

	if (s)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

/* A counter's name as a JSON member: "commit overrun" -> "commit_overrun". */
static void stat_member(char *dst, size_t len, const char *key)
{
	size_t i;

	for (i = 0; key[i] && i + 1 < len; i++)
		dst[i] = key[i] == ' ' ? '_' : key[i];
	dst[i] = '\0';
}

/*
 * buffer_size_kb per CPU.  Until the top-level buffer is first used the file
 * reads "7 (expanded: 1408)": the size it will have is the one to report.
 */
static ssize_t buffer_kb(struct tracefs_instance *inst)
{
	char *s = tracefs_instance_file_read(inst, "buffer_size_kb", NULL);
	const char *exp;
	ssize_t kb = -1;

	if (!s)
		return -1;
	exp = strstr(s, "expanded: ");
	kb = strtoll(exp ? exp + strlen("expanded: ") : s, NULL, 10);
	free(s);
	return kb;
}

/* The instance's settings: a line each in the text, members in JSON. */
/* options/overwrite: the newest events push the oldest out (a flight recorder's window) */
static void print_overwrite(struct print *p, struct tracefs_instance *inst)
{
	char *v = read_trimmed(inst, "options/overwrite");

	if (!v)
		print_null(p, PRINT_JSON, "overwrite", NULL, NULL);
	else
		print_bool(p, PRINT_JSON, "overwrite", NULL, !strcmp(v, "1"));
	if (v)
		print_string(p, PRINT_TEXT, NULL, "overwrite:       %s\n", v);
	free(v);
}

/* An event's triggers armed (its trigger file, the comment lines left out). */
static void print_triggers(struct print *p, struct tracefs_instance *inst,
			   const struct tfs_event *ev)
{
	char *text = tracefs_event_file_read(inst, ev->system, ev->name, "trigger", NULL);
	char *save = NULL, *line;

	print_open_array(p, "triggers");
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (*line != '#')
			print_string(p, PRINT_ANY, NULL, "  trigger: %s", line);
	print_close_array(p);
	free(text);
}

static void print_settings(struct print *p, struct tracefs_instance *inst)
{
	char *tracer = read_trimmed(inst, "current_tracer"), *clock = tracefs_get_clock(inst);
	ssize_t bufkb = buffer_kb(inst);
	int on = tracefs_trace_is_on(inst);

	print_string(p, PRINT_JSON, "instance", NULL,
		     inst ? tracefs_instance_get_name(inst) : NULL);
	print_string(p, PRINT_TEXT, NULL, "instance:        %s\n", tfs_instance_label(inst));
	print_string(p, PRINT_JSON, "tracefs", NULL, tfs_dir());
	if (on < 0) {
		print_null(p, PRINT_ANY, "tracing_on", "tracing_on:      %s\n", "unknown");
	} else {
		print_bool(p, PRINT_JSON, "tracing_on", NULL, on);
		print_int(p, PRINT_TEXT, NULL, "tracing_on:      %lld\n", on);
	}
	print_string(p, PRINT_JSON, "current_tracer", NULL, tracer);
	print_string(p, PRINT_TEXT, NULL, "current_tracer:  %s\n", tracer ? tracer : "unknown");
	print_string(p, PRINT_JSON, "clock", NULL, clock);
	print_string(p, PRINT_TEXT, NULL, "clock:           %s\n", clock ? clock : "unknown");
	if (bufkb < 0)
		print_null(p, PRINT_JSON, "buffer_size_kb", NULL, NULL);
	else
		print_int(p, PRINT_ANY, "buffer_size_kb", "buffer_size_kb:  %lld (per CPU)\n",
			  bufkb);
	print_overwrite(p, inst);
	free(tracer);
	free(clock);
}

/* The events set_event lists, each with its filter. */
static void print_events(struct print *p, struct tracefs_instance *inst)
{
	char *set_event = tracefs_instance_file_read(inst, "set_event", NULL);
	char *save = NULL, *line;

	/* none: said, not an empty list under its title */
	print_text(p, set_event && strchr(set_event, ':') ? "enabled events:\n" :
		   "enabled events: none\n");
	print_open_array(p, "events");
	for (line = set_event ? strtok_r(set_event, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		struct tfs_event ev;
		char *filter;

		if (!colon)
			continue;
		*colon = '\0';
		ev.system = line;
		ev.name = colon + 1;
		filter = tfs_event_filter_get(inst, &ev);
		print_open_object(p, NULL);
		print_string(p, PRINT_ANY, "system", "  %s:", ev.system);
		print_string(p, PRINT_ANY, "event", "%s", ev.name);
		print_string(p, PRINT_JSON, "filter", NULL, filter);
		if (filter)
			print_string(p, PRINT_TEXT, NULL, "  filter: %s", filter);
		print_triggers(p, inst, &ev);
		print_nl(p);
		print_close_object(p);
		free(filter);
	}
	print_close_array(p);
	free(set_event);
}

/* The per-CPU counters: a table in the text, an object per CPU in JSON (null: not read). */
static void print_cpus(struct print *p, struct tracefs_instance *inst)
{
	int cpu, ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	size_t i;

	print_text(p, "per-CPU ring buffer (overrun and dropped count lost events):\n");
	print_text(p, "  %-4s", "cpu");
	for (i = 0; i < NSTATS; i++)
		print_text(p, " %15s", stat_keys[i]);
	print_nl(p);
	print_open_array(p, "cpus");
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct cpu_stats st;
		char file[64], key[32];
		char *buf;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		buf = tracefs_instance_file_read(inst, file, NULL);
		if (!buf)
			continue;
		parse_stats(buf, &st);
		free(buf);
		print_open_object(p, NULL);
		print_int(p, PRINT_ANY, "cpu", "  %-4lld", cpu);
		for (i = 0; i < NSTATS; i++) {
			stat_member(key, sizeof(key), stat_keys[i]);
			if (st.have[i])
				print_uint(p, PRINT_JSON, key, NULL, st.v[i]);
			else
				print_null(p, PRINT_JSON, key, NULL, NULL);
			print_uint(p, PRINT_TEXT, NULL, " %15llu", st.v[i]);
		}
		print_nl(p);
		print_close_object(p);
	}
	print_close_array(p);
}

/* How many events an instance has on, and how many triggers they arm. */
static void count_events(struct tracefs_instance *inst, long long *nev, long long *ntrig)
{
	char *set_event = tracefs_instance_file_read(inst, "set_event", NULL);
	char *save = NULL, *line;

	*nev = *ntrig = 0;
	for (line = set_event ? strtok_r(set_event, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *text, *s2 = NULL, *t;

		if (!colon)
			continue;
		*colon = '\0';
		(*nev)++;
		text = tracefs_event_file_read(inst, line, colon + 1, "trigger", NULL);
		for (t = text ? strtok_r(text, "\n", &s2) : NULL; t; t = strtok_r(NULL, "\n", &s2))
			*ntrig += *t != '#';
		free(text);
	}
	free(set_event);
}

/*
 * One instance in brief: its window (buffer per CPU, overwrite: a flight
 * recorder's newest events kept), its events and the triggers they arm.
 */
static void print_instance_brief(struct print *p, const char *name)
{
	struct tracefs_instance *inst = tracefs_instance_alloc(tfs_dir(), name);
	char *ow = inst ? read_trimmed(inst, "options/overwrite") : NULL;
	ssize_t kb = inst ? buffer_kb(inst) : -1;
	long long nev = 0, ntrig = 0;

	if (!inst)
		return;
	count_events(inst, &nev, &ntrig);
	print_text(p, "  (");
	if (kb >= 0)
		print_int(p, PRINT_ANY, "buffer_size_kb", "%lld KiB per CPU, ", kb);
	if (ow)
		print_bool(p, PRINT_JSON, "overwrite", NULL, !strcmp(ow, "1"));
	print_text(p, "%s", ow && !strcmp(ow, "1") ? "overwrite, " : "");
	print_int(p, PRINT_ANY, "events", "%lld event", nev);
	print_text(p, "%s, ", nev == 1 ? "" : "s");
	print_int(p, PRINT_ANY, "triggers", "%lld trigger", ntrig);
	print_text(p, "%s armed)", ntrig == 1 ? "" : "s");
	free(ow);
	tracefs_instance_free(inst);
}

/* At the top level: the instances, each in brief, orphaned tpctl ones marked. */
static void print_instances(struct print *p, char **names)
{
	size_t i;

	print_text(p, "instances:%s\n", names && names[0] ? "" : " none");
	print_open_array(p, "instances");
	for (i = 0; names && names[i]; i++) {
		bool orphaned = names_instance_orphaned(names[i]);

		print_open_object(p, NULL);
		print_string(p, PRINT_ANY, "name", "  %s", names[i]);
		print_instance_brief(p, names[i]);
		print_bool(p, PRINT_JSON, "orphaned", NULL, orphaned);
		print_text(p, "%s\n", orphaned ? "  (orphaned: its tpctl process is gone; "
			   "'tpctl reset' removes it)" : "");
		print_close_object(p);
	}
	print_close_array(p);
}

int cmd_status(int argc, char **argv)
{
	struct tracefs_instance *inst = NULL;
	char **names = NULL;
	bool json = false;
	struct print p;
	int ret;
	size_t i;
	const struct tp_opt opts[] = {
		OPT_BOOL('j', "json", &json, "one JSON document"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = { "tpctl status [--json]", opts, 0, NULL };
	struct tp_args args;

	ret = opt_parse_operands(argc, argv, &spec, &args, NULL);
	if (ret)
		return opt_status(ret);
	ret = tfs_open(&inst);
	if (ret)
		return ret;

	print_start(&p, stdout, json);
	print_settings(&p, inst);
	print_events(&p, inst);
	print_cpus(&p, inst);
	if (!inst) {
		names = tracefs_instances(NULL);
		print_instances(&p, names);
	}
	print_end(&p);
	for (i = 0; names && names[i]; i++)
		if (names_instance_orphaned(names[i]))
			tp_note("orphaned instance '%s' left by a tpctl that is gone; "
				"'tpctl reset' removes it", names[i]);
	tracefs_list_free(names);
	tracefs_instance_free(inst);
	return ret;
}
