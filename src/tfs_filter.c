// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tfs_filter - event filters: checked before they are written (libtraceevent's
 * parser, unknown fields told with the closest one), walked for libtracefs's
 * builders, written and cleared through the journal; the kernel's error_log.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "near.h"
#include "state.h"
#include "tfs.h"
#include "tfs_local.h"
#include "util.h"

/* The kernel refuses filter writes of a page or more (EINVAL); say so before trying. */
#define FILTER_MAX 4095

char *tfs_event_filter_get(struct tracefs_instance *inst, const struct tfs_event *ev)
{
	char *buf;
	size_t len;

	if (!tfs_name_valid(ev->system) || !tfs_name_valid(ev->name))
		return NULL;
	buf = tracefs_event_file_read(inst, ev->system, ev->name, "filter", NULL);
	if (!buf)
		return NULL;
	len = strcspn(buf, "\n");
	buf[len] = '\0';
	if (len == 0 || !strcmp(buf, "none")) {
		free(buf);
		return NULL;
	}
	return buf;
}

static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static bool mentions_special_field(const char *expr)
{
	static const char *const names[] = { "CPU", "COMM", "common_cpu", "common_comm" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *p = expr;
		size_t len = strlen(names[i]);

		while ((p = strstr(p, names[i]))) {
			if ((p == expr || !is_ident(p[-1])) && !is_ident(p[len]))
				return true;
			p += len;
		}
	}
	return false;
}

/*
 * An indented detail line under an error (an expression and its caret).
 * The expression is the user's: a control byte in it becomes '?', one
 * column as before, so the caret still points right and an escape
 * sequence cannot reach the terminal.
 */
static void put_detail(const char *line)
{
	const unsigned char *p;

	fputs("  ", stderr);
	for (p = (const unsigned char *)line; *p; p++)
		fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, stderr);
	fputc('\n', stderr);
}

/*
 * libtracefs explains a rejected filter as lines "EXPR", "   ^", "reason":
 * print the reason on the error line and the expression with its caret below.
 */
static void print_verify_error(const struct tfs_event *ev, char *err)
{
	char *lines[8], *save = NULL, *l;
	int n = 0, i;

	for (l = err ? strtok_r(err, "\n", &save) : NULL; l && n < 8; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	tp_error("invalid filter for '%s:%s': %s", ev->system, ev->name,
		 n ? lines[n - 1] : "rejected by libtracefs");
	for (i = 0; i + 1 < n; i++)
		put_detail(lines[i]);
}

/*
 * The next word of expr after *pp in a field's place (before a comparison
 * operator, outside quotes): its length in *len, the operator at *op; *pp
 * moves past it.  NULL when there is none.
 */
static const char *field_word(const char *expr, const char **pp, size_t *len, const char **op)
{
	const char *p = *pp, *w, *q;
	char quote = 0;

	while (*p) {
		if (quote) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == quote)
				quote = 0;
			p++;
			continue;
		}
		if (*p == '"' || *p == '\'') {
			quote = *p++;
			continue;
		}
		if (!is_ident(*p) || (*p >= '0' && *p <= '9') || (p > expr && is_ident(p[-1]))) {
			p++;
			continue;
		}
		for (q = p; q > expr && (q[-1] == ' ' || q[-1] == '\t'); q--)
			;
		for (w = p; is_ident(*p); p++)
			;
		/* a word after a comparison is its value (prev_comm == bash), no field */
		if (q > expr && strchr("=<>~", q[-1]))
			continue;
		for (q = p; *q == ' ' || *q == '\t'; q++)
			;
		/* a field is compared: "==", "!=", "<", ">", "<=", ">=", "~", "&" */
		if (!*q || !strchr("=!<>~&", *q))
			continue;
		*pp = p;
		*len = p - w;
		*op = q;
		return w;
	}
	*pp = p;
	return NULL;
}

/*
 * A string field compared with a bare word (prev_comm == bash), which the
 * kernel takes for an invalid value: the hint of the expression quoted.
 */
static void quote_hint(struct tep_event *event, const char *expr)
{
	const char *p = expr, *w, *op, *v, *e;
	struct tep_format_field *f;
	char name[128], fixed[FILTER_MAX + 64];
	size_t len;

	while ((w = field_word(expr, &p, &len, &op))) {
		if (len >= sizeof(name))
			continue;
		memcpy(name, w, len);
		name[len] = '\0';
		f = tep_find_any_field(event, name);
		if (!f || !(f->flags & TEP_FIELD_IS_STRING) ||
		    (strncmp(op, "==", 2) && strncmp(op, "!=", 2) && *op != '~'))
			continue;
		for (v = op + (*op == '~' ? 1 : 2); *v == ' ' || *v == '\t'; v++)
			;
		if (!*v || *v == '"' || *v == '\'' || *v == '(')
			continue;
		for (e = v; *e && !strchr(" \t)&|", *e); e++)
			;
		snprintf(fixed, sizeof(fixed), "did you forget quotes? %.*s\"%.*s\"%s",
			 (int)(v - expr), expr, (int)(e - v), v, e);
		put_detail(fixed);
		return;
	}
}

/*
 * The first word of expr in a field's place that is no field of the event:
 * told with the closest field and a caret under it, as the kernel would say
 * "Field not found".  False when every such word is a field (the error is
 * of another kind).
 */
static bool unknown_field_error(const struct tfs_event *ev, struct tep_event *event,
				const char *expr)
{
	const char *p = expr, *w, *op;
	size_t len;

	while ((w = field_word(expr, &p, &len, &op))) {
		char name[128], caret[FILTER_MAX + 2];
		const char *best;
		struct tep_format_field **f;
		struct near near;
		int k;

		if (len >= sizeof(name))
			continue;
		memcpy(name, w, len);
		name[len] = '\0';
		if (tep_find_any_field(event, name))
			continue;
		near_init(&near, name, 1);
		for (k = 0; k < 2; k++) {
			f = k ? tep_event_fields(event) : tep_event_common_fields(event);
			for (int i = 0; f && f[i]; i++)
				near_add(&near, f[i]->name, strlen(f[i]->name));
			free(f);
		}
		/* a suggestion only where it is close: at most a third of the name changed */
		best = near_best(&near, (len + 2) / 3);
		if (best)
			tp_error("invalid filter for '%s:%s': unknown field '%s' (closest: '%s')",
				 ev->system, ev->name, name, best);
		else
			tp_error("invalid filter for '%s:%s': unknown field '%s'", ev->system,
				 ev->name, name);
		put_detail(expr);
		snprintf(caret, sizeof(caret), "%*s^", (int)(w - expr), "");
		put_detail(caret);
		near_free(&near);
		return true;
	}
	return false;
}

int tfs_filter_check(struct tep_handle *tep, const struct tfs_event *ev, const char *expr)
{
	struct tep_event *event;
	char *err = NULL;

	if (strchr(expr, '\n') || strchr(expr, '\r')) {
		tp_error("invalid filter for '%s:%s': it contains a newline", ev->system, ev->name);
		return TP_USAGE;
	}
	if (strlen(expr) > FILTER_MAX) {
		tp_error("invalid filter for '%s:%s': longer than %d bytes", ev->system, ev->name,
			 FILTER_MAX);
		return TP_USAGE;
	}
	if (!*expr) {
		tp_error("invalid filter for '%s:%s': empty (use --clear to remove a filter)",
			 ev->system, ev->name);
		return TP_USAGE;
	}
	event = tfs_tep_add_event(tep, ev->system, ev->name);
	if (!event)
		return TP_OK;	/* nothing to verify against; the kernel decides */
	/*
	 * libtracefs does not know the fields the kernel adds to every event
	 * for filtering (CPU, COMM, common_cpu): leave those to the kernel.
	 */
	if (mentions_special_field(expr))
		return TP_OK;
	if (tracefs_filter_string_verify(event, expr, &err) < 0) {
		if (!unknown_field_error(ev, event, expr)) {
			print_verify_error(ev, err);
			quote_hint(event, expr);
		}
		free(err);
		return TP_USAGE;
	}
	free(err);
	return TP_OK;
}

/* See tfs.h: the filter as libtracefs's filter calls take it. */
int tfs_filter_walk(const char *expr, tfs_filter_fn fn, void *ctx)
{
	static const struct {
		const char *op;
		enum tracefs_compare cmp;
	} ops[] = {
		{ "==", TRACEFS_COMPARE_EQ }, { "!=", TRACEFS_COMPARE_NE },
		{ ">=", TRACEFS_COMPARE_GE }, { "<=", TRACEFS_COMPARE_LE },
		{ ">", TRACEFS_COMPARE_GT }, { "<", TRACEFS_COMPARE_LT },
		{ "~", TRACEFS_COMPARE_RE }, { "&", TRACEFS_COMPARE_AND },
	};
	const char *p = expr;
	char field[256], val[4096];
	size_t i, n;

	while (*p) {
		enum tracefs_filter type = TRACEFS_FILTER_COMPARE;
		enum tracefs_compare cmp = TRACEFS_COMPARE_EQ;

		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		if (*p == '(' || *p == ')') {
			type = *p == '(' ? TRACEFS_FILTER_OPEN_PAREN : TRACEFS_FILTER_CLOSE_PAREN;
			p++;
		} else if (!strncmp(p, "&&", 2) || !strncmp(p, "||", 2)) {
			type = *p == '&' ? TRACEFS_FILTER_AND : TRACEFS_FILTER_OR;
			p += 2;
		} else if (*p == '!' && p[1] != '=' && p[1] != '~') {
			type = TRACEFS_FILTER_NOT;
			p++;
		} else {
			for (n = 0; p[n] == '_' || ((p[n] | 0x20) >= 'a' && (p[n] | 0x20) <= 'z') ||
				    (n && p[n] >= '0' && p[n] <= '9'); n++)
				;
			if (!n || n >= sizeof(field))
				return -1;
			memcpy(field, p, n);
			field[n] = '\0';
			for (p += n; *p == ' ' || *p == '\t'; p++)
				;
			for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
				if (!strncmp(p, ops[i].op, strlen(ops[i].op)))
					break;
			if (i == sizeof(ops) / sizeof(ops[0]) || (*p == '&' && p[1] == '&'))
				return -1;
			cmp = ops[i].cmp;
			for (p += strlen(ops[i].op); *p == ' ' || *p == '\t'; p++)
				;
			if (*p == '"' || *p == '\'') {
				/* the quoted string as written, escapes and all */
				for (n = 1; p[n] && p[n] != *p; n++)
					if (p[n] == '\\' && p[n + 1])
						n++;
				if (!p[n])
					return -1;
				n++;
			} else {
				for (n = 0; p[n] && !strchr(" \t()&|!", p[n]); n++)
					;
			}
			if (!n || n >= sizeof(val))
				return -1;
			memcpy(val, p, n);
			val[n] = '\0';
			p += n;
		}
		if (fn(ctx, type, type == TRACEFS_FILTER_COMPARE ? field : NULL, cmp,
		       type == TRACEFS_FILTER_COMPARE ? val : NULL) < 0)
			return -1;
	}
	return 0;
}

/* Print the kernel's explanation from error_log: its last entry, caret and all. */
void tfs_error_log_print(struct tracefs_instance *inst)
{
	char *log = tracefs_error_last(inst);

	tfs_error_log_put(log);
	free(log);
}

void tfs_error_log_put(const char *text)
{
	char *log = text ? strdup(text) : NULL;
	char *line, *save = NULL;

	if (!log)
		return;
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* drop the "[  123.456] " time stamp of the first line */
		if (line[0] == '[') {
			char *end = strchr(line, ']');

			if (end)
				line = end + 1 + (end[1] == ' ');
		}
		put_detail(line);
	}
	free(log);
}

int tfs_event_filter_set(struct tracefs_instance *inst, struct tep_handle *tep,
			 const struct tfs_event *ev, const char *expr)
{
	int ret = tfs_filter_check(tep, ev, expr);

	if (ret)
		return ret;
	if (tfs_event_write(inst, ev, "filter", expr, STATE_FILTER) < 0) {
		int err = errno;

		if (err == EINVAL) {
			tp_error("invalid filter for '%s:%s': the kernel refused it:", ev->system,
				 ev->name);
			tfs_error_log_print(inst);
			return TP_USAGE;
		}
		tp_error("cannot set the filter of '%s:%s': %s%s", ev->system, ev->name,
			 strerror(err), tfs_perm_hint(err));
		return TP_FAIL;
	}
	return TP_OK;
}

int tfs_event_filter_clear(struct tracefs_instance *inst, const struct tfs_event *ev)
{
	if (tfs_event_write(inst, ev, "filter", "0", STATE_FILTER) < 0) {
		int err = errno;

		tp_error("cannot clear the filter of '%s:%s': %s%s", ev->system, ev->name,
			 strerror(err), tfs_perm_hint(err));
		return TP_FAIL;
	}
	return TP_OK;
}
