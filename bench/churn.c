// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * churn - short-lived processes, one after another, for the tests and the
 * soak benchmark of what a long-running tpctl keeps per task:
 *
 *   churn [-r RATE] [-n NAMES] N
 *
 *   N       processes (0: until killed)
 *   -r      at most RATE a second (0, the default: as fast as they go)
 *   -n      their names cycle through churn-0 .. churn-(NAMES-1) (default 50)
 *
 * Each child takes its name (prctl), makes a few getppid(2) calls and ends
 * in exit_group(2), a syscall that never returns.  Every tenth instead
 * blocks in pause(2) and is killed there: its syscall never returns either.
 * A line "churn: N" on stderr when done.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long n, i, names = 50;
	double rate = 0, t0;
	int c, p[2];

	while ((c = getopt(argc, argv, "r:n:")) != -1) {
		if (c == 'r')
			rate = atof(optarg);
		else if (c == 'n')
			names = strtoul(optarg, NULL, 10);
		else
			return 2;
	}
	if (optind != argc - 1 || !names) {
		fprintf(stderr, "usage: churn [-r RATE] [-n NAMES] N\n");
		return 2;
	}
	n = strtoul(argv[optind], NULL, 10);
	t0 = now();
	for (i = 0; !n || i < n; i++) {
		pid_t pid;
		char b;

		if (i % 10 == 9 && pipe(p) < 0)
			return 1;
		pid = fork();
		if (pid < 0) {
			perror("churn: fork");
			return 1;
		}
		if (!pid) {
			char name[32];
			int k;

			snprintf(name, sizeof(name), "churn-%lu", i % names);
			prctl(PR_SET_NAME, name);
			for (k = 0; k < 4; k++)
				syscall(SYS_getppid);
			if (i % 10 == 9) {
				/* ready: then blocked in a syscall when killed */
				if (write(p[1], "x", 1) < 0)
					_exit(1);
				for (;;)
					pause();
			}
			_exit(0);
		}
		if (i % 10 == 9) {
			close(p[1]);
			if (read(p[0], &b, 1) == 1)
				usleep(1000);
			close(p[0]);
			kill(pid, SIGKILL);
		}
		waitpid(pid, NULL, 0);
		if (rate > 0) {
			double due = t0 + (i + 1) / rate, d = due - now();

			if (d > 0)
				usleep(d * 1e6);
		}
	}
	fprintf(stderr, "churn: %lu\n", i);
	return 0;
}
