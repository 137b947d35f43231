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

#include "json.h"
#include "names.h"
#include "opt.h"
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

static void json_key(char *dst, size_t len, const char *key)
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

int cmd_status(int argc, char **argv)
{
	struct tracefs_instance *inst = NULL;
	char *tracer = NULL, *clock = NULL, *set_event = NULL, **names = NULL;
	bool as_json = false;
	ssize_t bufkb;
	int ret, on, cpu, ncpus;
	struct json j;
	size_t i;
	const struct tp_opt opts[] = {
		OPT_BOOL('j', "json", &as_json, "one JSON document"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = { "tpctl status [--json]", opts, 0, NULL };
	struct tp_args args;

	ret = opt_parse(argc, argv, &spec, &args);
	if (ret)
		return opt_status(ret);
	if (args.argc > 0) {
		tp_error("unexpected argument '%s'", args.argv[0]);
		return TP_USAGE;
	}
	ret = tfs_open(&inst);
	if (ret)
		return ret;

	on = tracefs_trace_is_on(inst);
	tracer = read_trimmed(inst, "current_tracer");
	clock = tracefs_get_clock(inst);
	bufkb = buffer_kb(inst);
	set_event = tracefs_instance_file_read(inst, "set_event", NULL);
	ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (!inst)
		names = tracefs_instances(NULL);

	if (as_json) {
		json_init(&j, stdout, false);
		json_obj_open(&j, NULL);
		json_str(&j, "instance", inst ? tracefs_instance_get_name(inst) : NULL);
		json_str(&j, "tracefs", tfs_dir());
		if (on < 0)
			json_null(&j, "tracing_on");
		else
			json_bool(&j, "tracing_on", on);
		json_str(&j, "current_tracer", tracer);
		json_str(&j, "clock", clock);
		if (bufkb < 0)
			json_null(&j, "buffer_size_kb");
		else
			json_int(&j, "buffer_size_kb", bufkb);
		json_arr_open(&j, "events");
	} else {
		printf("instance:        %s\n", tfs_instance_label(inst));
		printf("tracing_on:      %s\n", on < 0 ? "unknown" : on ? "1" : "0");
		printf("current_tracer:  %s\n", tracer ? tracer : "unknown");
		printf("clock:           %s\n", clock ? clock : "unknown");
		if (bufkb >= 0)
			printf("buffer_size_kb:  %zd (per CPU)\n", bufkb);
		printf("enabled events:\n");
	}
	for (char *save = NULL, *line = set_event ? strtok_r(set_event, "\n", &save) : NULL;
	     line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		struct tfs_event ev;
		char *filter;

		if (!colon)
			continue;
		*colon = '\0';
		ev.system = line;
		ev.name = colon + 1;
		filter = tfs_event_filter_get(inst, &ev);
		if (as_json) {
			json_obj_open(&j, NULL);
			json_str(&j, "system", ev.system);
			json_str(&j, "event", ev.name);
			json_str(&j, "filter", filter);
			json_obj_close(&j);
		} else {
			printf("  %s:%s%s%s\n", ev.system, ev.name, filter ? "  filter: " : "",
			       filter ? filter : "");
		}
		free(filter);
	}
	if (as_json) {
		json_arr_close(&j);
		json_arr_open(&j, "cpus");
	} else {
		printf("per-CPU ring buffer (overrun and dropped count lost events):\n");
		printf("  %-4s", "cpu");
		for (i = 0; i < NSTATS; i++)
			printf(" %15s", stat_keys[i]);
		putchar('\n');
	}
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
		if (as_json) {
			json_obj_open(&j, NULL);
			json_int(&j, "cpu", cpu);
			for (i = 0; i < NSTATS; i++) {
				json_key(key, sizeof(key), stat_keys[i]);
				if (st.have[i])
					json_uint(&j, key, st.v[i]);
				else
					json_null(&j, key);
			}
			json_obj_close(&j);
		} else {
			printf("  %-4d", cpu);
			for (i = 0; i < NSTATS; i++)
				printf(" %15llu", st.v[i]);
			putchar('\n');
		}
	}
	if (as_json) {
		json_arr_close(&j);
		if (!inst) {
			json_arr_open(&j, "instances");
			for (i = 0; names && names[i]; i++) {
				json_obj_open(&j, NULL);
				json_str(&j, "name", names[i]);
				json_bool(&j, "orphaned", names_instance_orphaned(names[i]));
				json_obj_close(&j);
			}
			json_arr_close(&j);
		}
		json_obj_close(&j);
		json_end_line(&j);
	} else if (!inst) {
		printf("instances:%s\n", names && names[0] ? "" : " none");
		for (i = 0; names && names[i]; i++)
			printf("  %s%s\n", names[i], names_instance_orphaned(names[i]) ?
			       "  (orphaned: its tpctl process is gone; 'tpctl reset' removes it)" :
			       "");
	}
	for (i = 0; names && names[i]; i++)
		if (names_instance_orphaned(names[i]))
			tp_note("orphaned instance '%s' left by a tpctl that is gone; "
				"'tpctl reset' removes it", names[i]);
	tracefs_list_free(names);
	free(set_event);
	free(tracer);
	free(clock);
	tracefs_instance_free(inst);
	return ret;
}
