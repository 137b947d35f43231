/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the fuzz targets (tests/fuzz/fuzz_*.c): fixture loading, a
 * strict JSON checker used as the oracle for every JSON the targets make,
 * and the entry-point naming that lets tests/unit/fuzz-regress.c replay the
 * saved inputs through the same code without libFuzzer.
 */
#ifndef TPCTL_FUZZ_COMMON_H
#define TPCTL_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;

/* The repository's top directory (fixtures are found under it). */
extern const char *fuzz_top;

/* Whole file into a NUL-terminated buffer; NULL when it cannot be read. */
char *fuzz_slurp(const char *path, size_t *len);

/*
 * A tep for a fixture directory (tests/unit/fixtures/host or vm-6.1):
 * header_page, every formats/<sys>:<event>, saved_cmdlines.  Built once per
 * directory and kept for the whole run.
 */
struct tep_handle *fuzz_fixture_tep(const char *name);

/*
 * Strict RFC 8259 check of one JSON text of len bytes (surrounding
 * whitespace allowed): valid UTF-8 throughout, no raw control bytes in
 * strings, proper escapes, numbers in JSON's grammar.  Each string (member
 * names too) is decoded and handed to str_cb in document order.  Returns
 * NULL when it is valid, else a short reason.
 */
typedef void (*fuzz_str_fn)(const char *s, size_t len, void *ctx);
const char *fuzz_json_check(const char *buf, size_t len, fuzz_str_fn str_cb, void *ctx);

/*
 * Check NDJSON: every '\n'-terminated line is one JSON value; aborts with the
 * offending line on stderr when one is not.
 */
void fuzz_ndjson_check(const char *buf, size_t len);

/* What the JSON writer must make of arbitrary bytes (docs/DESIGN.md section 2). */
size_t fuzz_expected_utf8(const unsigned char *in, size_t len, char *out);

#endif
