// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * comm.c's tables of saved_cmdlines and tfs_tep.c's walk of its lines: a
 * line that is no "PID NAME" skipped (the second part of a name with a
 * newline), a pid's first name kept, names past the table's first size
 * found, the read before kept beside the last.  Prints TAP; comm.t runs it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "tfs.h"

static int n, failed;

static void ok(int cond, const char *what)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++n, what);
	if (!cond)
		failed = 1;
}

/* a loader as a session's: the lines of one text */
static int load_text(void *ctx, comm_line_fn fn, void *fctx)
{
	const char *text = ctx;

	if (!text)
		return -1;
	tfs_cmdlines_walk(text, strlen(text), fn, fctx);
	return 0;
}

static int same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

int main(void)
{
	struct comm_saved s = { 0 };
	const char *first = "1 init\n42 two words\n7 a\nb-after-newline\n 9 lead\n"
			    "x12 bad\n13\n14 \n42 later\n99999999999 big\n15 sixteen-bytes-long-x";
	char *many;
	size_t len = 0;
	int i, found = 0;

	printf("1..14\n");
	ok(!comm_saved_reload(&s, load_text, (void *)first), "a text read");
	ok(same(comm_saved_find(&s, 1), "init"), "pid 1: init");
	ok(same(comm_saved_find(&s, 42), "two words"), "a name with a space; the first of two lines kept");
	ok(same(comm_saved_find(&s, 7), "a"), "the part before a newline is the name");
	ok(!comm_saved_find(&s, 9) && !comm_saved_find(&s, 12) && !comm_saved_find(&s, 13) &&
	   !comm_saved_find(&s, 14), "lines that are no \"PID NAME\" give nothing");
	ok(same(comm_saved_find(&s, 15), "sixteen-bytes-l"), "a name cut to 15 bytes");
	ok(!comm_saved_find(&s, 2) && !comm_saved_find(&s, 0) && !comm_saved_find(&s, -1),
	   "pids not read, 0 and -1: none");
	ok(comm_saved_reload(&s, load_text, NULL) < 0 && same(comm_saved_find(&s, 1), "init"),
	   "a read that fails keeps the tables");

	/* 5,000 names: past the first size, and the read before still asked */
	many = malloc(5000 * 24);
	for (i = 1; i <= 5000; i++)
		len += sprintf(many + len, "%d task-%d\n", i * 7, i);
	ok(!comm_saved_reload(&s, load_text, many), "5,000 names read");
	for (i = 1; i <= 5000; i++) {
		char want[32];

		snprintf(want, sizeof(want), "task-%d", i);
		found += same(comm_saved_find(&s, i * 7), want);
	}
	ok(found == 5000, "each of the 5,000 found");
	ok(same(comm_saved_find(&s, 42), "task-6"), "a pid in both reads: the last read's name");
	ok(same(comm_saved_find(&s, 1), "init"), "a pid of the read before only: its name there");
	ok(!comm_saved_reload(&s, load_text, "3 third\n") && !comm_saved_find(&s, 1) &&
	   same(comm_saved_find(&s, 35), "task-5"), "two reads kept, the oldest dropped");
	ok(!comm_saved_find(&s, 6), "a pid between the others: none");
	comm_saved_free(&s);
	free(many);
	return failed;
}
