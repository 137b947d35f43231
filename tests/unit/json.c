// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Feeds the JSON writer hostile strings and extreme integers; json.t checks
 * the output with python3's json parser.  One NDJSON record per case.
 */
#include <stdint.h>
#include <string.h>

#include "json.h"

static const struct {
	const char *name;
	const char *bytes;
	size_t len;
} cases[] = {
#define C(n, s) { n, s, sizeof(s) - 1 }
	C("ascii", "hello, world"),
	C("quote_backslash", "a\"b\\c"),
	C("controls", "\x01\x1f\n\t\r\x7f"),
	C("nul", "a\0b"),
	C("utf8_2_3_4", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"),
	C("lone_continuation", "a\x80z"),
	C("truncated_3", "a\xe2\x82"),
	C("overlong_slash", "\xc0\xaf"),
	C("overlong_3", "\xe0\x80\xaf"),
	C("surrogate", "\xed\xa0\x80"),
	C("beyond_10ffff", "\xf4\x90\x80\x80"),
	C("ff_fe", "\xff\xfe"),
	C("max_10ffff", "\xf4\x8f\xbf\xbf"),
#undef C
};

int main(void)
{
	struct json j;
	size_t i;

	json_init(&j, stdout, false);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "case", cases[i].name);
		json_strn(&j, "value", cases[i].bytes, cases[i].len);
		json_obj_close(&j);
		json_end_line(&j);
	}
	json_obj_open(&j, NULL);
	json_str(&j, "case", "integers");
	json_arr_open(&j, "value");
	json_int(&j, NULL, INT64_MIN);
	json_int(&j, NULL, INT64_MAX);
	json_uint(&j, NULL, UINT64_MAX);
	json_int(&j, NULL, -1);
	json_uint(&j, NULL, 0);
	json_arr_close(&j);
	json_bool(&j, "t", true);
	json_null(&j, "n");
	json_arr_open(&j, "empty");
	json_arr_close(&j);
	json_obj_open(&j, "nested");
	json_obj_close(&j);
	json_obj_close(&j);
	json_end_line(&j);
	return 0;
}
