// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * strload - opens known paths for tpctl --strings in the test VM, some of
 * them from memory the process has never touched, so that the page holding
 * the path is not mapped yet when the system call starts:
 *
 *   strload N [MAPFILE]   N rounds of three openat(2) calls:
 *                         - "/etc/passwd", a literal of the program (read-only
 *                           data, touched once its page is mapped),
 *                         - "/proc/version" copied to the stack,
 *                         - "/tmp/strload/fresh-I" (I the round) read from
 *                           MAPFILE (default /tmp/strload.map), written here
 *                           with pwrite(2) and mapped afterwards, one path
 *                           every 256 KiB: the kernel maps neighbouring
 *                           pages of a file fault (fault-around, 64 KiB) but
 *                           never that far, so each path's page is first
 *                           touched by the openat itself.
 *
 * The fresh paths do not exist (ENOENT): only the path matters here.  The
 * opens are made with syscall(2), so that the C library adds none of its own.
 * Built static (busybox has no libc for it) by run-vm.sh.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STRIDE (256 * 1024)

static void open_path(const char *path)
{
	long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);

	if (fd >= 0)
		close((int)fd);
}

int main(int argc, char **argv)
{
	const char *map_path = argc > 2 ? argv[2] : "/tmp/strload.map";
	char stack_path[32];
	long i, n;
	char *map;
	int fd;

	if (argc < 2 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: strload N [MAPFILE]\n");
		return 2;
	}
	fd = (int)syscall(SYS_openat, AT_FDCWD, map_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, n * STRIDE) < 0) {
		perror(map_path);
		return 1;
	}
	for (i = 0; i < n; i++) {
		char p[64];
		int len = snprintf(p, sizeof(p), "/tmp/strload/fresh-%ld", i);

		if (pwrite(fd, p, len + 1, i * STRIDE) != len + 1) {
			perror("pwrite");
			return 1;
		}
	}
	map = mmap(NULL, n * STRIDE, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < n; i++) {
		open_path("/etc/passwd");
		memcpy(stack_path, "/proc/version", sizeof("/proc/version"));
		open_path(stack_path);
		open_path(map + i * STRIDE);
	}
	munmap(map, n * STRIDE);
	unlink(map_path);
	return 0;
}
