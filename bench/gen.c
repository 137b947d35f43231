// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen - an event generator for the stream benchmark: N calls of getpid(2)
 * (one syscalls:sys_enter_getpid event each), at full speed or paced at RATE
 * calls per second.
 *
 *   gen N [RATE]
 *
 * It prints its pid and waits for a line on stdin before it starts, so that a
 * tracer can be set up with a filter on that pid first; when done it prints
 * the calls made, the seconds they took and the CLOCK_MONOTONIC time of the
 * first call (to time how late a reader shows it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
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
	unsigned long long n, i;
	double rate = 0, t0, t1;
	char line[64];

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: gen N [RATE]\n");
		return 2;
	}
	n = strtoull(argv[1], NULL, 10);
	if (argc == 3)
		rate = strtod(argv[2], NULL);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	t0 = now();
	if (rate <= 0) {
		for (i = 0; i < n; i++)
			syscall(SYS_getpid);
	} else {
		/* batches of 64 calls, each batch waits for its slot: smooth at any rate */
		for (i = 0; i < n; i += 64) {
			unsigned long long j, end = i + 64 < n ? i + 64 : n;
			double due = t0 + i / rate;

			double t = now();

			/* sleep through long gaps, spin through short ones */
			if (due - t > 200e-6) {
				struct timespec ts = { 0, (long)((due - t - 100e-6) * 1e9) };

				nanosleep(&ts, NULL);
			}
			while (now() < due)
				;
			for (j = i; j < end; j++)
				syscall(SYS_getpid);
		}
	}
	t1 = now();
	printf("%llu %.6f %.6f\n", n, t1 - t0, t0);
	return 0;
}
