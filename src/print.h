/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print - one document (a command's answer, a table) written as text or as
 * one JSON object by the same calls.  The mode is set once, by print_start();
 * each value is then one call that says where it goes:
 *
 *	PRINT_ANY	both: the text through fmt, the JSON as member key
 *	PRINT_TEXT	the text only (fmt); nothing in JSON
 *	PRINT_JSON	the JSON only (key); nothing in the text
 *
 *	struct print p;
 *	print_start(&p, stdout, json);		JSON: the document's {
 *	print_string(&p, PRINT_ANY, "clock", "clock: %s\n", clock);
 *	print_open_array(&p, "events");		JSON only, as the object calls
 *	...
 *	print_close_array(&p);
 *	print_end(&p);				JSON: } and the newline
 *
 * A fmt of NULL writes nothing in the text; a key of NULL is an array's
 * element.  Text formats take the value as printf does: "%s" for strings,
 * "%lld" for print_int, "%llu" for print_uint.  A NULL string is null in
 * JSON (and must not reach a text format).  The JSON is json.c's, member by
 * member: the per-record printers of output.c do not come through here.
 */
#ifndef TPCTL_PRINT_H
#define TPCTL_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "json.h"

enum print_type {
	PRINT_ANY,
	PRINT_TEXT,
	PRINT_JSON,
};

struct print {
	FILE *f;
	bool json;
	struct json j;
};

/* Begin a document on f; json: one JSON object, else text. */
void print_start(struct print *p, FILE *f, bool json);
/* End it: JSON closes the object and writes the newline; text writes nothing. */
void print_end(struct print *p);
static inline bool print_is_json(const struct print *p)
{
	return p->json;
}

/* Objects and arrays are JSON's: the text has no brackets (its own lines say what follows). */
void print_open_object(struct print *p, const char *key);
void print_close_object(struct print *p);
void print_open_array(struct print *p, const char *key);
void print_close_array(struct print *p);

void print_string(struct print *p, enum print_type t, const char *key, const char *fmt,
		  const char *s);
void print_int(struct print *p, enum print_type t, const char *key, const char *fmt,
	       long long v);
void print_uint(struct print *p, enum print_type t, const char *key, const char *fmt,
		unsigned long long v);
/* Exact beyond 64 bits (JSON); the text gets the decimal digits through fmt's "%s". */
void print_i128(struct print *p, enum print_type t, const char *key, const char *fmt,
		__int128 v);
/* JSON true or false; the text gets "true" or "false" through fmt's "%s". */
void print_bool(struct print *p, enum print_type t, const char *key, const char *fmt, bool v);
/* JSON null; the text gets text (what stands for no value there) through fmt's "%s". */
void print_null(struct print *p, enum print_type t, const char *key, const char *fmt,
		const char *text);

/* Text only: a printf of its own (headings, padding, rules); nothing in JSON. */
void print_text(struct print *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text only: the end of a line. */
void print_nl(struct print *p);

#endif
