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

/* Each trigger an event arms to fn (its trigger file, the comment lines left out). */
static void each_trigger(struct tracefs_instance *inst, const struct tfs_event *ev,
			 void (*fn)(void *ctx, const char *trigger), void *ctx)
{
	char *text = tracefs_event_file_read(inst, ev->system, ev->name, "trigger", NULL);
	char *save = NULL, *line;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (*line != '#')
			fn(ctx, line);
	free(text);
}

/* Each event an instance has on (its set_event) to fn. */
static void each_event(struct tracefs_instance *inst,
		       void (*fn)(void *ctx, struct tracefs_instance *inst, const struct tfs_event *ev),
		       void *ctx)
{
	char *set_event = tracefs_instance_file_read(inst, "set_event", NULL);
	char *save = NULL, *line, *colon;

	for (line = set_event ? strtok_r(set_event, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!(colon = strchr(line, ':')))
			continue;
		*colon = '\0';
		fn(ctx, inst, &(struct tfs_event){ .system = line, .name = colon + 1 });
	}
	free(set_event);
}

static void print_trigger(void *ctx, const char *trigger)
{
	print_string(ctx, PRINT_ANY, NULL, "  trigger: %s", trigger);
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

/* print_event()'s: the document, and how many events it has listed */
struct event_list {
	struct print *p;
	long long n;
};

/* One enabled event with its filter and triggers; the text's title before the first. */
static void print_event(void *ctx, struct tracefs_instance *inst, const struct tfs_event *ev)
{
	struct event_list *el = ctx;
	struct print *p = el->p;
	char *filter = tfs_event_filter_get(inst, ev);

	if (!el->n++)
		print_text(p, "enabled events:\n");
	print_open_object(p, NULL);
	print_string(p, PRINT_ANY, "system", "  %s:", ev->system);
	print_string(p, PRINT_ANY, "event", "%s", ev->name);
	print_string(p, PRINT_JSON, "filter", NULL, filter);
	if (filter)
		print_string(p, PRINT_TEXT, NULL, "  filter: %s", filter);
	print_open_array(p, "triggers");
	each_trigger(inst, ev, print_trigger, p);
	print_close_array(p);
	print_nl(p);
	print_close_object(p);
	free(filter);
}

/* The events set_event lists, each with its filter. */
static void print_events(struct print *p, struct tracefs_instance *inst)
{
	struct event_list el = { p, 0 };

	print_open_array(p, "events");
	each_event(inst, print_event, &el);
	/* none: said, not an empty list under its title */
	if (!el.n)
		print_text(p, "enabled events: none\n");
	print_close_array(p);
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

/* count_event()'s counts: events on, triggers they arm */
struct event_count {
	long long events, triggers;
};

static void count_trigger(void *ctx, const char *trigger)
{
	(void)trigger;
	((struct event_count *)ctx)->triggers++;
}

static void count_event(void *ctx, struct tracefs_instance *inst, const struct tfs_event *ev)
{
	((struct event_count *)ctx)->events++;
	each_trigger(inst, ev, count_trigger, ctx);
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
	struct event_count c = { 0, 0 };

	if (!inst)
		return;
	each_event(inst, count_event, &c);
	print_text(p, "  (");
	if (kb >= 0)
		print_int(p, PRINT_ANY, "buffer_size_kb", "%lld KiB per CPU, ", kb);
	if (ow)
		print_bool(p, PRINT_JSON, "overwrite", NULL, !strcmp(ow, "1"));
	print_text(p, "%s", ow && !strcmp(ow, "1") ? "overwrite, " : "");
	print_int(p, PRINT_ANY, "events", "%lld event", c.events);
	print_text(p, "%s, ", c.events == 1 ? "" : "s");
	print_int(p, PRINT_ANY, "triggers", "%lld trigger", c.triggers);
	print_text(p, "%s armed)", c.triggers == 1 ? "" : "s");
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
