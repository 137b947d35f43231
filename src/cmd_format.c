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

#include "opt.h"
#include "print.h"
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

/*
 * One field: a line of the table in the text (its type cut at 255 bytes),
 * an object in JSON.
 */
static void print_field(struct print *p, const struct tep_format_field *f, bool common)
{
	bool sign = f->flags & TEP_FIELD_IS_SIGNED;

	print_open_object(p, NULL);
	print_string(p, PRINT_ANY, "name", "    %-28s ", f->name);
	print_string(p, PRINT_ANY, "type", "%-32.255s ", f->type);
	print_int(p, PRINT_ANY, "offset", "%6lld ", f->offset);
	print_int(p, PRINT_ANY, "size", "%5lld  ", f->size);
	print_string(p, PRINT_TEXT, NULL, "%s\n", sign ? "signed" : "unsigned");
	print_bool(p, PRINT_JSON, "signed", NULL, sign);
	print_bool(p, PRINT_JSON, "common", NULL, common);
	print_string(p, PRINT_JSON, "kind", NULL, field_kind(f));
	if ((f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC))
		print_int(p, PRINT_JSON, "array_len", NULL, f->arraylen);
	print_close_object(p);
}

static int show_event(struct print *p, struct tep_handle *tep, const struct tfs_event *e)
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
	print_open_object(p, NULL);
	print_string(p, PRINT_ANY, "system", "%s:", e->system);
	print_string(p, PRINT_ANY, "event", "%s", e->name);
	print_int(p, PRINT_ANY, "id", " (id %lld)\n", ev->id);
	print_text(p, "    %-28s %-32s %6s %5s  %s\n", "FIELD", "TYPE", "OFFSET", "SIZE", "SIGN");
	print_open_array(p, "fields");
	for (f = ev->format.common_fields; f; f = f->next)
		print_field(p, f, true);
	for (f = ev->format.fields; f; f = f->next)
		print_field(p, f, false);
	print_close_array(p);
	print_string(p, PRINT_TEXT, NULL, "    print fmt: %s", fmt ? fmt : "(none)");
	print_string(p, PRINT_JSON, "print_fmt", NULL, fmt);
	print_bool(p, PRINT_JSON, "print_fmt_parsed", NULL, !failed);
	print_text(p, "%s\n\n", failed ? "  (libtraceevent cannot parse it)" : "");
	print_close_object(p);
	free(fmt);
	return TP_OK;
}

int cmd_format(int argc, char **argv)
{
	struct tracefs_instance *inst = NULL;
	struct tfs_event_list evs;
	struct tep_handle *tep;
	bool json = false;
	struct print p;
	int ret;
	size_t i;
	const struct tp_opt opts[] = {
		OPT_ARG("EVENT", "system:event, system or a glob"),
		OPT_BOOL('j', "json", &json, "one JSON document"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = { "tpctl format EVENT... [--json]", opts, 0, NULL };
	struct tp_args args;

	ret = opt_parse_operands(argc, argv, &spec, &args, "event");
	if (ret)
		return opt_status(ret);
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
	print_start(&p, stdout, json);
	print_open_array(&p, "events");
	for (i = 0; i < evs.n; i++) {
		int r = show_event(&p, tep, &evs.v[i]);

		/* go on with the others; the exit status says one failed */
		if (r && !ret)
			ret = r;
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
