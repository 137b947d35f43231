// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workload of bench/probe.sh: N calls of a function of its own (the
 * uprobe's place), then N getpid(2) system calls (the tracepoint), each
 * loop timed; prints "work NS_PER_CALL getpid NS_PER_CALL S CPU_SECONDS" on
 * stderr (its own CPU time, which the caller's time(1) counts as tpctl's child).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) long work(long a)
{
	__asm__ volatile("" ::: "memory");
	return a + 1;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, i, s = 0;
	double t0, t1, t2;
	struct rusage ru;

	t0 = now();
	for (i = 0; i < n; i++)
		s += work(i);
	t1 = now();
	for (i = 0; i < n; i++)
		s += syscall(SYS_getpid);
	t2 = now();
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "work %.1f getpid %.1f %ld %.3f\n", (t1 - t0) / n, (t2 - t1) / n, s & 1,
		ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	return 0;
}
