// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target 3: the trace.dat read path of `tpctl report` (cmd_report():
 * its header checks, libtracecmd's reader, the output layer).  The input is
 * the file; it is handed over in a memfd.  Under libFuzzer the decoding runs
 * in this process (report_isolate = false), so that a crash in libtracecmd
 * or libtraceevent is still found and saved.  Inputs of odd length are reported
 * with --json, and that output must parse; lengths of the form 4n+2 are
 * written as a Perfetto trace (--perfetto /dev/null).  Standard output goes to another
 * memfd for the call, standard error to /dev/null (the damaged-file message
 * is expected there).
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "cmd.h"
#include "util.h"

#ifndef FUZZ_ENTRY
#define FUZZ_ENTRY LLVMFuzzerTestOneInput
/*
 * libFuzzer sees coverage and crashes of this process only: decode here,
 * not in report's child.  The regression replay (tests/unit/fuzz-regress.c)
 * keeps the child, as tpctl runs it.
 */
#define FUZZ_DECODE_IN_PROCESS 1
#endif

int FUZZ_ENTRY(const uint8_t *data, size_t size);
int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	static int in_fd = -1, out_fd = -1, null_fd = -1;
	static bool keep_err;
	static char path[64];
	char arg0[] = "report", json[] = "--json", pf[] = "--perfetto", null[] = "/dev/null";
	char *argv[] = { arg0, path, NULL, NULL, NULL };
	int argc = 2;
	int saved_out, saved_err, ret;
	off_t olen;
	char *obuf;

	if (in_fd < 0) {
		in_fd = memfd_create("fuzz-in.dat", MFD_CLOEXEC);
		out_fd = memfd_create("fuzz-out", MFD_CLOEXEC);
		null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (in_fd < 0 || out_fd < 0 || null_fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", in_fd);
		/* to see a crash's report: FUZZ_KEEP_STDERR=1 fuzz_dat CRASH-FILE */
		keep_err = getenv("FUZZ_KEEP_STDERR") != NULL;
#ifdef FUZZ_DECODE_IN_PROCESS
		report_isolate = false;
#endif
	}
	if (ftruncate(in_fd, 0) || pwrite(in_fd, data, size, 0) != (ssize_t)size)
		abort();
	if (ftruncate(out_fd, 0) || lseek(out_fd, 0, SEEK_SET) != 0)
		abort();

	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	dup2(out_fd, 1);
	if (!keep_err)
		dup2(null_fd, 2);
	tp.cmd = "report";
	optind = 0;
	opterr = 0;
	if (size & 1) {
		argv[argc++] = json;
	} else if (size & 2) {
		argv[argc++] = pf;
		argv[argc++] = null;
	}
	ret = cmd_report(argc, argv);
	fflush(stdout);
	clearerr(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	tp.cmd = NULL;

	if (ret != 0 && ret != 1) {
		fprintf(stderr, "fuzz_dat: report returned %d for a file\n", ret);
		abort();
	}
	olen = lseek(out_fd, 0, SEEK_END);
	if (olen > 0 && (size & 1)) {
		obuf = malloc(olen);
		if (!obuf || pread(out_fd, obuf, olen, 0) != olen)
			abort();
		fuzz_ndjson_check(obuf, olen);
		free(obuf);
	}
	return 0;
}
