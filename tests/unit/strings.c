// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --strings without a kernel: the format of a strings probe as Debian's 6.1
 * made it (tests/unit/fixtures/strings/, taken from a recording of
 * tests/vm/65-strings.t) and records built here byte by byte, decoded and
 * written by the output layer: shown as syscalls:sys_enter_openat, the
 * string quoted in the text and a JSON string, the return value last, a
 * fetch that failed (__data_loc length 0) "(fault)" and null, and counted.
 * Also the rule for string arguments and the probe names.  TAP on stdout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "decode.h"
#include "output.h"
#include "strargs.h"

static int n, failed;

static void ok(int cond, const char *what, const char *got)
{
	printf("%s %d - %s\n", cond ? "ok" : "not ok", ++n, what);
	if (!cond) {
		printf("# got: %s\n", got ? got : "(null)");
		failed = 1;
	}
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;

	if (!f)
		return NULL;
	buf = calloc(1, 1 << 16);
	*len = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	return buf;
}

/* A record of the probe: __syscall_nr, dfd, filename (len 0: a fault), flags, mode, ret. */
static size_t record(unsigned char *b, int id, const char *path, int64_t ret)
{
	uint16_t type = id;
	int32_t pid = 4242, nr = 257;
	uint64_t dfd = 0xffffff9c, flags = 0, mode = 0;
	uint32_t loc = 48 | (uint32_t)(path ? strlen(path) + 1 : 0) << 16;
	size_t len = 48 + (path ? strlen(path) + 1 : 0);

	memset(b, 0, 64);
	memcpy(b, &type, 2);
	b[3] = 4;
	memcpy(b + 4, &pid, 4);
	memcpy(b + 8, &nr, 4);
	memcpy(b + 12, &dfd, 8);
	memcpy(b + 20, &loc, 4);
	memcpy(b + 24, &flags, 8);
	memcpy(b + 32, &mode, 8);
	memcpy(b + 40, &ret, 8);
	if (path)
		memcpy(b + 48, path, strlen(path) + 1);
	return (len + 3) & ~(size_t)3;
}

/* Both records through the output layer in one mode; the faults it counted. */
static char *run(struct tep_handle *tep, int id, enum output_mode mode, unsigned long long *faults)
{
	unsigned char b1[96], b2[96];
	struct tep_record rec = { .cpu = 1, .ts = 5000000000ULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct output *o = output_new(tep, f, mode);

	output_set_kernel_release(o, "6.1.0");
	rec.data = b1;
	rec.size = record(b1, id, "/etc/passwd", 3);
	output_record(o, &rec);
	rec.data = b2;
	rec.size = record(b2, id, NULL, -14);
	rec.ts += 1000;
	output_record(o, &rec);
	output_flush(o);
	*faults = output_faults(o);
	output_free(o);
	fclose(f);
	return buf;
}

static struct tep_format_field *field(const char *type, const char *name)
{
	static struct tep_format_field f;

	f.type = (char *)type;
	f.name = (char *)name;
	return &f;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/unit/fixtures";
	struct tep_handle *tep = decode_tep_new(false);
	struct tep_event *ev;
	unsigned long long faults;
	char path[4096], *fmt, *hp, *out;
	size_t flen = 0, hlen = 0;

	snprintf(path, sizeof(path), "%s/vm-6.1/header_page", dir);
	hp = slurp(path, &hlen);
	snprintf(path, sizeof(path), "%s/strings/strings_sys_enter_openat.format", dir);
	fmt = slurp(path, &flen);
	if (!tep || !hp || !fmt || decode_header_page(tep, hp, hlen) ||
	    decode_add_format(tep, "tpctl_157", fmt, flen)) {
		printf("1..0 # SKIP cannot read the fixtures in %s\n", dir);
		return 0;
	}
	ev = tep_find_event_by_name(tep, "tpctl_157", "strings_sys_enter_openat");

	out = run(tep, ev->id, OUTPUT_TEXT, &faults);
	ok(out && strstr(out, ": sys_openat(dfd: 0xffffff9c, filename: \"/etc/passwd\", "
			     "flags: 0x0, mode: 0x0) -> 0x3\n"),
	   "text: the syscall's layout, the string quoted, the return value after ->", out);
	ok(out && strstr(out, ": sys_openat(dfd: 0xffffff9c, filename: (fault), flags: 0x0, "
			     "mode: 0x0) -> 0xfffffffffffffff2\n"),
	   "text: a string the kernel could not fetch is (fault)", out);
	ok(faults == 1, "text: the fault is counted", NULL);
	free(out);

	out = run(tep, ev->id, OUTPUT_JSON, &faults);
	ok(out && strstr(out, "\"system\":\"syscalls\",\"event\":\"sys_enter_openat\",\"fields\":"
			     "{\"__syscall_nr\":257,\"dfd\":4294967196,\"filename\":\"/etc/passwd\","
			     "\"flags\":0,\"mode\":0,\"ret\":3,\"errno\":null}}\n"),
	   "JSON: syscalls:sys_enter_openat, filename a string, ret signed", out);
	ok(out && strstr(out, "\"filename\":null,\"flags\":0,\"mode\":0,\"ret\":-14,"
			     "\"errno\":\"EFAULT\"}}\n"),
	   "JSON: a string the kernel could not fetch is null", out);
	ok(faults == 1, "JSON: the fault is counted", NULL);
	free(out);

	ok(strings_shown_name("tpctl_157", "strings_sys_enter_openat") &&
	   !strcmp(strings_shown_name("tpctl_157", "strings_sys_enter_openat"), "sys_enter_openat"),
	   "a strings probe stands for its syscall event", NULL);
	ok(!strings_shown_name("tpctl", "strings_sys_enter_openat") &&
	   !strings_shown_name("tpctl_1x", "strings_sys_enter_openat") &&
	   !strings_shown_name("tpctl_157", "sys_enter_openat") &&
	   !strings_shown_name("other_157", "strings_sys_enter_openat"),
	   "other groups and names are not strings probes", NULL);

	ok(strings_arg(field("const char *", "filename")) &&
	   strings_arg(field("const char *", "pathname")) &&
	   strings_arg(field("char *", "dev_name")) &&
	   strings_arg(field("const char *", "name")),
	   "string arguments: paths and names a syscall reads", NULL);
	ok(!strings_arg(field("const char *", "buf")) && !strings_arg(field("char *", "buf")) &&
	   !strings_arg(field("char *", "name")) &&
	   !strings_arg(field("const char *const *", "argv")) &&
	   !strings_arg(field("unsigned long", "filename")),
	   "not strings: buffers, gethostname's char * name, arrays, numbers", NULL);

	printf("1..%d\n", n);
	free(hp);
	free(fmt);
	tep_free(tep);
	return failed;
}
