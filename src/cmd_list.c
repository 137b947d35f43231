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

#include "opt.h"
#include "print.h"
#include "tfs.h"
#include "cmd.h"
#include "util.h"

/* The fields of an event: " name" each in the text, [{"name","type"}] in JSON. */
static void print_fields(struct print *p, struct tep_event *ev)
{
	struct tep_format_field *f;

	print_open_array(p, "fields");
	for (f = ev->format.fields; f; f = f->next) {
		print_open_object(p, NULL);
		print_string(p, PRINT_ANY, "name", " %s", f->name);
		print_string(p, PRINT_JSON, "type", NULL, f->type);
		print_close_object(p);
	}
	print_close_array(p);
}

int cmd_list(int argc, char **argv)
{
	struct tracefs_instance *inst = NULL;
	struct tfs_event_list evs;
	struct tep_handle *tep = NULL;
	bool json = false, fields = false;
	struct print p;
	int ret;
	size_t i;
	const struct tp_opt opts[] = {
		OPT_ARG("PATTERN", "system, system:event or a glob (sched:sched_*); default: all events"),
		OPT_BOOL('j', "json", &json, "one JSON document"),
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
	print_start(&p, stdout, json);
	print_string(&p, PRINT_JSON, "instance", NULL,
		     inst ? tracefs_instance_get_name(inst) : NULL);
	print_open_array(&p, "events");
	for (i = 0; i < evs.n; i++) {
		struct tfs_event *e = &evs.v[i];
		struct tep_event *ev = NULL;

		if (tep)
			ev = tfs_tep_add_event(tep, e->system, e->name);
		print_open_object(&p, NULL);
		print_string(&p, PRINT_ANY, "system", "%s:", e->system);
		print_string(&p, PRINT_ANY, "event", "%s", e->name);
		if (ev)
			print_fields(&p, ev);
		else if (tep)
			print_null(&p, PRINT_JSON, "fields", NULL, NULL);
		print_close_object(&p);
		print_nl(&p);
	}
	print_close_array(&p);
	print_end(&p);
	tfs_tep_free(tep);
out_list:
	tfs_event_list_free(&evs);
out:
	tracefs_instance_free(inst);
	return ret;
}
