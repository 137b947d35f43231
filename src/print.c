// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * print - a document as text or JSON by the same calls; see print.h.
 */
#include <stdarg.h>

#include "print.h"

void print_start(struct print *p, FILE *f, bool json)
{
	p->f = f;
	p->json = json;
	if (json) {
		json_init(&p->j, f, false);
		json_obj_open(&p->j, NULL);
	}
}

void print_end(struct print *p)
{
	if (p->json) {
		json_obj_close(&p->j);
		json_end_line(&p->j);
	}
}

void print_open_object(struct print *p, const char *key)
{
	if (p->json)
		json_obj_open(&p->j, key);
}

void print_close_object(struct print *p)
{
	if (p->json)
		json_obj_close(&p->j);
}

void print_open_array(struct print *p, const char *key)
{
	if (p->json)
		json_arr_open(&p->j, key);
}

void print_close_array(struct print *p)
{
	if (p->json)
		json_arr_close(&p->j);
}

/* Does a value of type t go to the JSON (else: to the text, if fmt says how)? */
static bool to_json(const struct print *p, enum print_type t)
{
	return p->json && t != PRINT_TEXT;
}

static bool to_text(const struct print *p, enum print_type t, const char *fmt)
{
	return !p->json && t != PRINT_JSON && fmt;
}

void print_string(struct print *p, enum print_type t, const char *key, const char *fmt,
		  const char *s)
{
	if (to_json(p, t))
		json_str(&p->j, key, s);
	else if (to_text(p, t, fmt))
		fprintf(p->f, fmt, s);
}

void print_int(struct print *p, enum print_type t, const char *key, const char *fmt,
	       long long v)
{
	if (to_json(p, t))
		json_int(&p->j, key, v);
	else if (to_text(p, t, fmt))
		fprintf(p->f, fmt, v);
}

void print_uint(struct print *p, enum print_type t, const char *key, const char *fmt,
		unsigned long long v)
{
	if (to_json(p, t))
		json_uint(&p->j, key, v);
	else if (to_text(p, t, fmt))
		fprintf(p->f, fmt, v);
}

void print_i128(struct print *p, enum print_type t, const char *key, const char *fmt,
		__int128 v)
{
	char buf[JSON_I128_LEN];

	if (to_json(p, t))
		json_i128(&p->j, key, v);
	else if (to_text(p, t, fmt))
		fprintf(p->f, fmt, json_i128_digits(buf + sizeof(buf), v));
}

void print_bool(struct print *p, enum print_type t, const char *key, const char *fmt, bool v)
{
	if (to_json(p, t))
		json_bool(&p->j, key, v);
	else if (to_text(p, t, fmt))
		fprintf(p->f, fmt, v ? "true" : "false");
}

void print_null(struct print *p, enum print_type t, const char *key, const char *fmt,
		const char *text)
{
	if (to_json(p, t))
		json_null(&p->j, key);
	else if (to_text(p, t, fmt))
		fprintf(p->f, fmt, text);
}

void print_text(struct print *p, const char *fmt, ...)
{
	va_list ap;

	if (p->json)
		return;
	va_start(ap, fmt);
	vfprintf(p->f, fmt, ap);
	va_end(ap);
}

void print_nl(struct print *p)
{
	if (!p->json)
		putc('\n', p->f);
}
