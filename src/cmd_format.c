// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl format EVENT... [--json]
 *
 * The fields of each event (name, type, offset, size, signedness) and its
 * print fmt, as libtraceevent parsed them from the event's format file.
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

/* What kind of value a field holds, in the words of the JSON schema. */
static const char *field_kind(const struct tep_format_field *f)
{
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		return (f->flags & TEP_FIELD_IS_STRING) ? "rel_loc_string" : "rel_loc_array";
	if (f->flags & TEP_FIELD_IS_DYNAMIC)
		return (f->flags & TEP_FIELD_IS_STRING) ? "data_loc_string" : "data_loc_array";
	if (f->flags & TEP_FIELD_IS_ARRAY)
		return (f->flags & TEP_FIELD_IS_STRING) ? "string" : "array";
	if (f->flags & TEP_FIELD_IS_POINTER)
		return "pointer";
	return "int";
}

/* The "print fmt: ..." line of the format file, without the prefix. */
static char *print_fmt_line(const char *text)
{
	const char *p = strstr(text, "\nprint fmt: ");

	if (!p)
		return NULL;
	p += strlen("\nprint fmt: ");
	return strndup(p, strcspn(p, "\n"));
}

static void field_json(struct json *j, const struct tep_format_field *f, bool common)
{
	json_obj_open(j, NULL);
	json_str(j, "name", f->name);
	json_str(j, "type", f->type);
	json_int(j, "offset", f->offset);
	json_int(j, "size", f->size);
	json_bool(j, "signed", f->flags & TEP_FIELD_IS_SIGNED);
	json_bool(j, "common", common);
	json_str(j, "kind", field_kind(f));
	if ((f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC))
		json_int(j, "array_len", f->arraylen);
	json_obj_close(j);
}

static void field_text(const struct tep_format_field *f)
{
	char type[256];

	snprintf(type, sizeof(type), "%s", f->type);
	printf("    %-28s %-32s %6d %5d  %s\n", f->name, type, f->offset, f->size,
	       (f->flags & TEP_FIELD_IS_SIGNED) ? "signed" : "unsigned");
}

static int show_event(struct json *j, struct tep_handle *tep, const struct tfs_event *e)
{
	struct tep_format_field *f;
	struct tep_event *ev;
	char *text, *fmt;
	bool failed;
	int size;

	text = tfs_event_format_text(e->system, e->name, &size);
	if (!text) {
		tp_error("cannot read the format of '%s:%s'", e->system, e->name);
		return TP_FAIL;
	}
	ev = tfs_tep_add_event(tep, e->system, e->name);
	if (!ev) {
		free(text);
		tp_error("libtraceevent cannot parse the format of '%s:%s'", e->system, e->name);
		return TP_FAIL;
	}
	fmt = print_fmt_line(text);
	free(text);
	failed = ev->flags & TEP_EVENT_FL_FAILED;
	if (j) {
		json_obj_open(j, NULL);
		json_str(j, "system", e->system);
		json_str(j, "event", e->name);
		json_int(j, "id", ev->id);
		json_arr_open(j, "fields");
		for (f = ev->format.common_fields; f; f = f->next)
			field_json(j, f, true);
		for (f = ev->format.fields; f; f = f->next)
			field_json(j, f, false);
		json_arr_close(j);
		json_str(j, "print_fmt", fmt);
		json_bool(j, "print_fmt_parsed", !failed);
		json_obj_close(j);
	} else {
		printf("%s:%s (id %d)\n", e->system, e->name, ev->id);
		printf("    %-28s %-32s %6s %5s  %s\n", "FIELD", "TYPE", "OFFSET", "SIZE", "SIGN");
		for (f = ev->format.common_fields; f; f = f->next)
			field_text(f);
		for (f = ev->format.fields; f; f = f->next)
			field_text(f);
		printf("    print fmt: %s%s\n\n", fmt ? fmt : "(none)",
		       failed ? "  (libtraceevent cannot parse it)" : "");
	}
	free(fmt);
	return TP_OK;
}

int cmd_format(int argc, char **argv)
{
	struct tracefs_instance *inst = NULL;
	struct tfs_event_list evs;
	struct tep_handle *tep;
	bool as_json = false;
	struct json j;
	int ret;
	size_t i;
	const struct tp_opt opts[] = {
		OPT_ARG("EVENT", "system:event, system or a glob"),
		OPT_BOOL('j', "json", &as_json, "one JSON document"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = { "tpctl format EVENT... [--json]", opts, 0, NULL };
	struct tp_args args;

	ret = opt_parse(argc, argv, &spec, &args);
	if (ret)
		return opt_status(ret);
	if (!args.argc) {
		tp_error("no event given; try 'tpctl format --help'");
		return TP_USAGE;
	}
	ret = tfs_open(&inst);
	if (!ret)
		ret = tfs_events_resolve(inst, args.argv, args.argc, &evs);
	if (ret)
		goto out;
	tep = tfs_tep_load(NULL);
	if (!tep) {
		ret = TP_FAIL;
		goto out_list;
	}
	if (as_json) {
		json_init(&j, stdout, false);
		json_obj_open(&j, NULL);
		json_arr_open(&j, "events");
	}
	for (i = 0; i < evs.n; i++) {
		int r = show_event(as_json ? &j : NULL, tep, &evs.v[i]);

		/* go on with the others; the exit status says one failed */
		if (r && !ret)
			ret = r;
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
