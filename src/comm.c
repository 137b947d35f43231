// SPDX-License-Identifier: GPL-2.0-or-later
/* comm - task names tpctl knows better than saved_cmdlines (see comm.h). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"

/* tpctl starts one COMMAND per run (serve: one per metric at most) */
#define KNOWN_MAX 16

static struct {
	int pid;
	char name[COMM_MAX + 1];
} known[KNOWN_MAX];
static unsigned nknown;

void comm_note_exec(int pid, const char *path)
{
	const char *base = strrchr(path, '/');
	unsigned i = nknown < KNOWN_MAX ? nknown++ : (nknown++ % KNOWN_MAX);

	/*
	 * The kernel names a task after exec by the basename of the file
	 * given to execve (a #! script's own name, not its interpreter's),
	 * cut to 15 bytes.  execvp()'s fallback for a script without #!
	 * runs /bin/sh, which this cannot see (it would say "sh").
	 */
	base = base ? base + 1 : path;
	known[i].pid = pid;
	snprintf(known[i].name, sizeof(known[i].name), "%s", base);
}

const char *comm_known(int pid)
{
	unsigned i, n = nknown < KNOWN_MAX ? nknown : KNOWN_MAX;

	/* the latest note of a pid wins */
	for (i = n; i-- > 0;)
		if (known[i].pid == pid && pid > 0)
			return known[i].name;
	return NULL;
}

size_t comm_proc(int pid, char *buf, size_t size)
{
	char path[40];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = pid > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	return n;
}
