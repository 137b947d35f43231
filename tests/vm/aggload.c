// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * aggload - a known workload for comparing the kernel and user engines of
 * tpctl count and hist in the test VM.  It prints its pid and waits for a
 * line on stdin (so that the tracers can be set up filtering on that pid),
 * then:
 *
 *   aggload sys N      N times: getpid(), and read(2) of /dev/zero with a
 *                      size from 1 to 1500 that changes every call
 *   aggload rename N   N times prctl(PR_SET_NAME) with one of five names,
 *                      the first most often (task:task_rename events)
 *   aggload sleep N    N times nanosleep(2) of 1.5 ms: system calls whose
 *                      time is far from a log2 bucket's edge (1.02, 2.05 ms)
 *   aggload oddname N  N times prctl(PR_SET_NAME), in turn with the names
 *                      agg"q, agg\b, agg\xff\xfe and agg\nnl (a double
 *                      quote, a backslash, bytes that are not UTF-8, a
 *                      newline): keys that an exposition format must escape
 *   aggload spread N   N times read(2) of /dev/zero with a size from 1 to
 *                      10000 in turn: 10,000 keys (bench: serve's series)
 *
 * Built static (busybox has no libc for it) by run-vm.sh.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[10001];
	static const char *const names[] = { "agg-a", "agg-b", "agg-c", "agg-d", "agg-e" };
	static const char *const odd[] = { "agg\"q", "agg\\b", "agg\xff\xfe", "agg\nnl" };
	char line[64];
	long i, n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: aggload sys|rename|sleep|oddname|spread N\n");
		return 2;
	}
	n = atol(argv[2]);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	if (!strcmp(argv[1], "sys")) {
		fd = open("/dev/zero", O_RDONLY);
		if (fd < 0)
			return 1;
		for (i = 0; i < n; i++) {
			syscall(SYS_getpid);
			if (read(fd, buf, (i * 7919) % 1500 + 1) < 0)
				return 1;
		}
		close(fd);
	} else if (!strcmp(argv[1], "sleep")) {
		struct timespec ts = { 0, 1500000 };

		for (i = 0; i < n; i++)
			nanosleep(&ts, NULL);
	} else if (!strcmp(argv[1], "spread")) {
		fd = open("/dev/zero", O_RDONLY);
		if (fd < 0)
			return 1;
		for (i = 0; i < n; i++)
			if (read(fd, buf, i % 10000 + 1) < 0)
				return 1;
		close(fd);
	} else if (!strcmp(argv[1], "oddname")) {
		for (i = 0; i < n; i++)
			prctl(PR_SET_NAME, odd[i % 4], 0, 0, 0);
	} else {
		for (i = 0; i < n; i++)
			prctl(PR_SET_NAME, names[i % 15 < 8 ? 0 : i % 15 < 12 ? 1 : i % 5], 0, 0, 0);
	}
	return 0;
}
