// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-regress TOP TARGET FILE...: replay saved fuzz inputs (tests/fuzz/regress/
 * <target>/) through the fuzz targets' own code, built here without
 * libFuzzer, so that every crash found and fixed stays fixed.  Prints one
 * TAP line per file; a crash ends the run (and fails the test).  Under
 * `make check-asan` the same replay runs with the sanitizers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/fuzz_common.h"

#define FUZZ_ENTRY fuzz_page_one
#include "../fuzz/fuzz_page.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_format_one
#include "../fuzz/fuzz_format.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_dat_one
#include "../fuzz/fuzz_dat.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_json_one
#include "../fuzz/fuzz_json.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_flame_one
#include "../fuzz/fuzz_flame.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_sysdec_one
#include "../fuzz/fuzz_sysdec.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_traceset_one
#include "../fuzz/fuzz_traceset.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_stopon_one
#include "../fuzz/fuzz_stopon.c"
#undef FUZZ_ENTRY
#include "../fuzz/fuzz_common.c"

static const struct {
	const char *name;
	int (*fn)(const uint8_t *data, size_t size);
} targets[] = {
	{ "page", fuzz_page_one },
	{ "format", fuzz_format_one },
	{ "dat", fuzz_dat_one },
	{ "json", fuzz_json_one },
	{ "flame", fuzz_flame_one },
	{ "sysdec", fuzz_sysdec_one },
	{ "traceset", fuzz_traceset_one },
	{ "stopon", fuzz_stopon_one },
};

int main(int argc, char **argv)
{
	int (*fn)(const uint8_t *, size_t) = NULL;
	size_t i, len;
	char *buf;
	int a;

	if (argc < 3) {
		fprintf(stderr, "usage: fuzz-regress TOP TARGET FILE...\n");
		return 2;
	}
	fuzz_top = argv[1];
	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (!strcmp(targets[i].name, argv[2]))
			fn = targets[i].fn;
	if (!fn) {
		fprintf(stderr, "fuzz-regress: unknown target '%s'\n", argv[2]);
		return 2;
	}
	for (a = 3; a < argc; a++) {
		buf = fuzz_slurp(argv[a], &len);
		if (!buf) {
			printf("not ok - %s %s: cannot read\n", argv[2], argv[a]);
			continue;
		}
		fflush(stdout);
		fn((const uint8_t *)buf, len);
		printf("ok - %s %s\n", argv[2], strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 :
		       argv[a]);
		fflush(stdout);
		free(buf);
	}
	return 0;
}
