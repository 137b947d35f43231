// SPDX-License-Identifier: GPL-2.0-or-later
/* comm - task names tpctl knows better than saved_cmdlines (see comm.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

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

size_t comm_proc(int pid, unsigned long long ts_ns, char *buf, size_t size,
		 unsigned long long *startp)
{
	char path[40], stat[512], *name, *end, *p;
	unsigned long long start = 0;
	ssize_t n = -1;
	size_t len;
	int fd, i;

	buf[0] = '\0';
	if (startp)
		*startp = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = pid > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		n = read(fd, stat, sizeof(stat) - 1);
		close(fd);
	}
	if (n <= 0)
		return 0;
	stat[n] = '\0';
	/* "pid (comm) state ppid ...": one read gives the name and when the task began */
	name = strchr(stat, '(');
	end = strrchr(stat, ')');
	if (!name || !end || end < name)
		return 0;
	/* starttime is the 22nd field: the 20th after the state */
	for (i = 0, p = end + 2; p && i < 19; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		start = strtoull(p, NULL, 10);
	/*
	 * A task that began after the record is not its task: the pid was
	 * used again (pid_max is 32768 by default).  The start counts clock
	 * ticks of the boot-time clock, the record's stamp the trace clock
	 * (local: since boot as well); 100 ms covers the tick and the drift.
	 */
	if (ts_ns && start > 0 &&
	    start * (1000000000ULL / sysconf(_SC_CLK_TCK)) > ts_ns + 100000000ULL)
		return 0;
	len = end - name - 1;
	if (len > size - 1)
		len = size - 1;
	memcpy(buf, name + 1, len);
	buf[len] = '\0';
	if (startp)
		*startp = start;
	return len;
}

int comm_saved_reload(struct comm_saved *s, int (*load)(struct tep_handle *tep, void *ctx),
		      void *ctx)
{
	struct tep_handle *t = tep_alloc();

	if (!t)
		return -1;
	if (load(t, ctx) < 0) {
		tep_free(t);
		return -1;
	}
	if (s->gen[1])
		tep_free(s->gen[1]);
	s->gen[1] = s->gen[0];
	s->gen[0] = t;
	return 0;
}

const char *comm_saved_find(const struct comm_saved *s, int pid)
{
	int i;

	for (i = 0; i < 2; i++)
		if (s->gen[i] && tep_is_pid_registered(s->gen[i], pid))
			return tep_data_comm_from_pid(s->gen[i], pid);
	return NULL;
}

void comm_saved_free(struct comm_saved *s)
{
	int i;

	for (i = 0; i < 2; i++)
		if (s->gen[i])
			tep_free(s->gen[i]);
	s->gen[0] = s->gen[1] = NULL;
}

const struct comm_rename_event comm_rename_events[COMM_RENAME_EVENTS] = {
	{ "sched", "sched_process_fork", "child_pid", "child_comm", false },
	{ "sched", "sched_process_exec", "pid", "filename", true },
	/* task_rename lost its pid field in later kernels: then the task that traced it */
	{ "task", "task_rename", "pid", "newcomm", false },
};
