/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small streaming JSON writer.  One writer per output document; the caller
 * opens and closes objects and arrays and adds members, the writer handles
 * commas, quoting and escaping.  Strings are validated as UTF-8: invalid
 * bytes become U+FFFD, control characters are escaped as \u00XX, so the
 * output always parses whatever bytes the kernel or a file hands us.
 *
 * Integers are written from int64_t/uint64_t directly, never through a
 * double, so 64-bit values stay exact.
 *
 * "key" is the member name inside an object and must be NULL inside an array.
 */
#ifndef TPCTL_JSON_H
#define TPCTL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	bool pretty;			/* indent (for single documents on a tty) */
	int depth;
	bool first[JSON_MAX_DEPTH];	/* nothing written yet at this level */
};

void json_init(struct json *j, FILE *f, bool pretty);

void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);

void json_str(struct json *j, const char *key, const char *s);
/* A string of exactly len bytes (may contain NUL: written as \u0000). */
void json_strn(struct json *j, const char *key, const char *s, size_t len);
void json_int(struct json *j, const char *key, int64_t v);
void json_uint(struct json *j, const char *key, uint64_t v);
/* Exact beyond 64 bits: bucket bounds run from -2^63 to 2^64. */
void json_i128(struct json *j, const char *key, __int128 v);
/*
 * The decimal digits of v (a '-' first when negative) written backwards so
 * that they end, NUL and all, at end: returns where they start.  end needs
 * JSON_I128_LEN bytes before it.
 */
#define JSON_I128_LEN 42
char *json_i128_digits(char *end, __int128 v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);

/* End of one NDJSON record (or of a document): newline. */
void json_end_line(struct json *j);

/*
 * Length of the valid UTF-8 sequence at s (1..4), or 0 if it is not valid
 * (overlong forms, surrogates and values past U+10FFFF are not).  Writers of
 * other formats use it to replace invalid bytes as the JSON writer does.
 */
size_t json_utf8_len(const unsigned char *s, size_t left);

/* Write s as a quoted JSON string to f (the escaping used by all of the above). */
void json_write_string(FILE *f, const char *s, size_t len);

#endif
