// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl list [PATTERN...] [--json] [--fields]
 *
 * Events of the chosen instance, from its available_events, in the kernel's
 * order.  --fields parses the formats of just the listed events.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "json.h"
#include "opt.h"
#include "tfs.h"
#include "cmd.h"
#include "util.h"

static void print_fields_text(struct tep_event *ev)
{
	struct tep_format_field *f;

	for (f = ev->format.fields; f; f = f->next)
		printf(" %s", f->name);
}

static void print_fields_json(struct json *j, struct tep_event *ev)
{
	struct tep_format_field *f;

	json_arr_open(j, "fields");
	for (f = ev->format.fields; f; f = f->next) {
		json_obj_open(j, NULL);
		json_str(j, "name", f->name);
		json_str(j, "type", f->type);
		json_obj_close(j);
	}
	json_arr_close(j);
}

int cmd_list(int argc, char **argv)
{
	struct tracefs_instance *inst = NULL;
	struct tfs_event_list evs;
	struct tep_handle *tep = NULL;
	bool as_json = false, fields = false;
	struct json j;
	int ret;
	size_t i;
	const struct tp_opt opts[] = {
		OPT_ARG("PATTERN", "system, system:event or a glob (sched:sched_*); default: all events"),
		OPT_BOOL('j', "json", &as_json, "one JSON document"),
		OPT_BOOL('f', "fields", &fields, "also show each event's fields (parses their formats)"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = { "tpctl list [PATTERN...] [--json] [--fields]", opts, 0, NULL };
	struct tp_args args;

	ret = opt_parse(argc, argv, &spec, &args);
	if (ret)
		return opt_status(ret);
	ret = tfs_open(&inst);
	if (ret)
		return ret;
	if (args.argc > 0)
		ret = tfs_events_resolve(inst, args.argv, args.argc, &evs);
	else
		ret = tfs_events_available(inst, &evs);
	if (ret)
		goto out;
	if (fields) {
		tep = tfs_tep_load(NULL);
		if (!tep) {
			ret = TP_FAIL;
			goto out_list;
		}
	}
	if (as_json) {
		json_init(&j, stdout, false);
		json_obj_open(&j, NULL);
		json_str(&j, "instance", inst ? tracefs_instance_get_name(inst) : NULL);
		json_arr_open(&j, "events");
	}
	for (i = 0; i < evs.n; i++) {
		struct tfs_event *e = &evs.v[i];
		struct tep_event *ev = NULL;

		if (tep)
			ev = tfs_tep_add_event(tep, e->system, e->name);
		if (as_json) {
			json_obj_open(&j, NULL);
			json_str(&j, "system", e->system);
			json_str(&j, "event", e->name);
			if (tep) {
				if (ev)
					print_fields_json(&j, ev);
				else
					json_null(&j, "fields");
			}
			json_obj_close(&j);
		} else {
			printf("%s:%s", e->system, e->name);
			if (ev)
				print_fields_text(ev);
			putchar('\n');
		}
	}
	if (as_json) {
		json_arr_close(&j);
		json_obj_close(&j);
		json_end_line(&j);
	}
	tfs_tep_free(tep);
out_list:
	tfs_event_list_free(&evs);
out:
	tracefs_instance_free(inst);
	return ret;
}
