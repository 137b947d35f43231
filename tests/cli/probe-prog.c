// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The program tests/cli/probe.t probes: N calls of work(i, 3 * i + 1) and
 * of getenv("TPCTL_PROBE_<i>"); with a second argument, 20 ms apart (for
 * the tests that change the file while it runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long work(long a, long b)
{
	/* not folded into main: the probe needs the call */
	__asm__ volatile("" ::: "memory");
	return a * 10 + b;
}

int main(int argc, char **argv)
{
	struct timespec gap = { 0, 20 * 1000 * 1000 };
	long n = argc > 1 ? atol(argv[1]) : 3, i, sum = 0;
	char name[64];

	for (i = 0; i < n; i++) {
		sum += work(i, 3 * i + 1);
		snprintf(name, sizeof(name), "TPCTL_PROBE_%ld", i);
		if (getenv(name))
			sum++;
		if (argc > 2)
			nanosleep(&gap, NULL);
	}
	fprintf(stderr, "%ld\n", sum);
	return 0;
}
