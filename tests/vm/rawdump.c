// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rawdump - copy what is buffered in each per_cpu/cpuN/trace_pipe_raw of a
 * tracefs instance into OUTDIR/cpuN.raw, without waiting for more.
 *
 *   rawdump /sys/kernel/tracing/instances/fix /out/raw
 *
 * Runs inside the test VM to capture raw ring-buffer pages as fixtures.
 * busybox dd cannot open a file non-blocking, and a blocking read of an
 * empty trace_pipe_raw never returns.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int dump_cpu(const char *inst, const char *cpu, const char *outdir, long page)
{
	char in[4096], out[4096];
	char *buf;
	ssize_t n;
	int ifd, ofd, ret = 0;
	long pages = 0;

	snprintf(in, sizeof(in), "%s/per_cpu/%s/trace_pipe_raw", inst, cpu);
	snprintf(out, sizeof(out), "%s/%s.raw", outdir, cpu);
	buf = malloc(page);
	if (!buf)
		return -1;
	ifd = open(in, O_RDONLY | O_NONBLOCK);
	if (ifd < 0) {
		fprintf(stderr, "rawdump: cannot open '%s': %s\n", in, strerror(errno));
		free(buf);
		return -1;
	}
	ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (ofd < 0) {
		fprintf(stderr, "rawdump: cannot create '%s': %s\n", out, strerror(errno));
		close(ifd);
		free(buf);
		return -1;
	}
	for (;;) {
		n = read(ifd, buf, page);
		if (n == 0 || (n < 0 && errno == EAGAIN))
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "rawdump: read '%s': %s\n", in, strerror(errno));
			ret = -1;
			break;
		}
		/* Keep whole pages: the decoder expects page-sized units. */
		if (n < page)
			memset(buf + n, 0, page - n);
		if (write(ofd, buf, page) != page) {
			fprintf(stderr, "rawdump: write '%s': %s\n", out, strerror(errno));
			ret = -1;
			break;
		}
		pages++;
	}
	printf("%s %ld\n", cpu, pages);
	close(ofd);
	close(ifd);
	free(buf);
	return ret;
}

int main(int argc, char **argv)
{
	char path[4096];
	struct dirent *d;
	DIR *dir;
	long page = sysconf(_SC_PAGESIZE);
	int ret = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: rawdump INSTANCE_DIR OUTDIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/per_cpu", argv[1]);
	dir = opendir(path);
	if (!dir) {
		fprintf(stderr, "rawdump: cannot open '%s': %s\n", path, strerror(errno));
		return 1;
	}
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, "cpu", 3) != 0)
			continue;
		if (dump_cpu(argv[1], d->d_name, argv[2], page) < 0)
			ret = 1;
	}
	closedir(dir);
	return ret;
}
