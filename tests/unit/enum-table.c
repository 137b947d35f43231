// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * enum-table FORMAT...: the enum constants these format files name, with
 * their values from the running kernel's BTF, as "NAME VALUE" lines sorted
 * by name: the DIR/enums file of a decode fixture (capture.sh), so that the
 * fixture test resolves the names of the kernel that captured it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf.h"
#include "decode.h"
#include "util.h"

static bool print_found(const char *name, size_t len, unsigned long long *value, void *ctx)
{
	(void)ctx;
	if (!btf_enum_value(name, len, value, NULL))
		return false;
	printf("%.*s %lld\n", (int)len, name, (long long)*value);
	return true;
}

int main(int argc, char **argv)
{
	static const struct decode_names names = { .constant = print_found };
	int i;

	for (i = 1; i < argc; i++) {
		char *buf = tp_read_file(argv[i], NULL);

		if (!buf) {
			perror(argv[i]);
			return 1;
		}
		free(decode_format_resolve(buf, strlen(buf), &names));
		free(buf);
	}
	return btf_loaded() ? 0 : 1;
}
