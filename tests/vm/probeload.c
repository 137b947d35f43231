// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * probeload - known system calls with known arguments, for the kprobe and
 * event probe checks of tpctl probe in the test VM (tests/vm/60-probe.t):
 *
 *   probeload read N [slow]   N times read(2) on fd 37 (/dev/zero) of
 *                             100 + i bytes (i from 0), so ksys_read sees
 *                             fd 37 and count 100 + i and returns 100 + i;
 *                             "slow" sleeps 50 ms after each
 *   probeload work N          N calls of work(i) (a uprobe target: the
 *                             probe list tells kinds apart)
 *   probeload open            open_path() of PROBELOAD_NEAR, a string on
 *                             its stack, then of PROBELOAD_FAR, a
 *                             string alone in 256 KiB of read-only data
 *                             nothing touched (fault-around maps at most
 *                             64 KiB around a fault): a probe at the
 *                             syscall's entry finds its page not present
 *
 * It writes nothing: its stdout is that of the tpctl that started it.
 * Built static (busybox has no libc for it) by run-vm.sh.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOAD_FD 37

/* a function of its own for a uprobe: not inlined, not folded away */
__attribute__((noinline)) long work(long i)
{
	__asm__ volatile("" : : "r"(i) : "memory");
	return 3 * i + 1;
}

#define PROBELOAD_NEAR "/nonexistent/probeload-near"
#define PROBELOAD_FAR "/nonexistent/probeload-far"

static const struct {
	char pad[128 * 1024];
	char path[64];
	char pad2[128 * 1024];
} far = { .path = PROBELOAD_FAR };

/* a uprobe target whose first argument is the path */
__attribute__((noinline)) int open_path(const char *path)
{
	return open(path, O_RDONLY);
}

int main(int argc, char **argv)
{
	static char buf[4096];
	long i, n, sum = 0;
	int fd;

	if (argc == 2 && !strcmp(argv[1], "open")) {
		/* on the stack: a page that is present when the kernel reads it */
		char near[64];

		snprintf(near, sizeof(near), "%s", PROBELOAD_NEAR);
		return open_path(near) >= 0 || open_path(far.path) >= 0;
	}
	if (argc < 3)
		return 2;
	n = atol(argv[2]);
	if (!strcmp(argv[1], "work")) {
		for (i = 0; i < n; i++)
			sum += work(i);
		return sum < 0;
	}
	if (strcmp(argv[1], "read"))
		return 2;
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0 || dup2(fd, LOAD_FD) < 0)
		return 1;
	close(fd);
	for (i = 0; i < n; i++) {
		if (read(LOAD_FD, buf, 100 + i % 1000) != 100 + i % 1000)
			return 1;
		if (argc > 3 && !strcmp(argv[3], "slow")) {
			struct timespec ts = { 0, 50000000 };

			nanosleep(&ts, NULL);
		}
	}
	return 0;
}
