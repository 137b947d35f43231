// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * funcload - known kernel function calls for the function tracer checks in
 * the test VM (tests/vm/75-func.t):
 *
 *   funcload pipe N     writes N bytes into a pipe, then reads them back
 *                       one read(2) at a time: N calls of vfs_read, each
 *                       returning 1
 *   funcload loop       the same, 100 bytes at a time, until killed
 *
 * It writes nothing.  Built static by run-vm.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int reads(int n)
{
	char buf[4096], c;
	int fd[2], i, done;

	if (pipe(fd) < 0)
		return -1;
	memset(buf, 'x', sizeof(buf));
	for (done = 0; done < n; done += i) {
		i = n - done > (int)sizeof(buf) ? (int)sizeof(buf) : n - done;
		if (write(fd[1], buf, i) != i)
			return -1;
		/* the pipe holds 64 KiB: read what was written before writing more */
		for (int k = 0; k < i; k++)
			if (read(fd[0], &c, 1) != 1)
				return -1;
	}
	close(fd[0]);
	close(fd[1]);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "pipe"))
		return reads(atoi(argv[2])) ? 1 : 0;
	if (argc == 2 && !strcmp(argv[1], "loop")) {
		for (;;) {
			if (reads(100))
				return 1;
			usleep(1000);
		}
	}
	fprintf(stderr, "usage: funcload pipe N | loop\n");
	return 2;
}
