// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tgen - a workload with known numbers of events for the TARGET tests:
 * getpid(2) calls (one syscalls:sys_enter_getpid event each; the C library
 * makes none of its own), in processes it forks or execs.
 *
 *   tgen [-w] [-o] [-e] N [-- ARGV...]
 *
 *   N      getpid(2) calls, the first thing the program does after exec
 *   -w     wait for a line on standard input first (a tracer gets ready)
 *   -o     print "pid N" on standard output (and, with -w, before waiting)
 *   -e     then exec ARGV in this process (an exec chain: same pid)
 *   ARGV   otherwise: then fork a child that execs ARGV, and wait for it
 *   -l     loop until killed: 64 getpid(2) calls a millisecond (the unrelated
 *          process; paced, so that it leaves the CPUs to the rest)
 *
 * The exit status is the child's, so a chain reports its deepest failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int i = 1, wait_line = 0, out = 0, exec_it = 0, loop = 0, status;
	unsigned long n, k;
	char line[64];
	pid_t pid;

	/* before anything else: the first event after exec is one of these */
	for (; i < argc && argv[i][0] == '-' && argv[i][1] && argv[i][1] != '-'; i++) {
		wait_line |= !!strchr(argv[i], 'w');
		out |= !!strchr(argv[i], 'o');
		exec_it |= !!strchr(argv[i], 'e');
		loop |= !!strchr(argv[i], 'l');
	}
	if (loop) {
		struct timespec ms = { 0, 1000 * 1000 };

		for (;;) {
			for (k = 0; k < 64; k++)
				syscall(SYS_getpid);
			nanosleep(&ms, NULL);
		}
	}
	if (i >= argc) {
		fprintf(stderr, "usage: tgen [-w] [-o] [-e] N [-- ARGV...]\n");
		return 2;
	}
	n = strtoul(argv[i++], NULL, 10);
	if (out) {
		printf("pid %d\n", (int)syscall(SYS_gettid));
		fflush(stdout);
	}
	if (wait_line && !fgets(line, sizeof(line), stdin))
		return 1;
	for (k = 0; k < n; k++)
		syscall(SYS_getpid);
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc)
		return 0;
	if (exec_it) {
		execvp(argv[i], argv + i);
		perror(argv[i]);
		return 127;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execvp(argv[i], argv + i);
		perror(argv[i]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
