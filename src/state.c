// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * state - journal of tracefs changes and their undo; see state.h.
 *
 * The journal lives in memory allocated before each change, so the undo
 * path (state_rollback) needs no allocation and no stdio: a signal handler
 * may run it.  libtracefs is not async-signal-safe, which is why undo writes
 * the files itself through the paths libtracefs gave us.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state.h"
#include "util.h"

enum entry_type {
	ENTRY_WRITE,
	ENTRY_RMDIR,
	ENTRY_APPEND,	/* a command appended to a list file (dynamic_events): old */
	ENTRY_LATE,	/* a write undone after everything else (state_journal_late) */
};

struct entry {
	enum entry_type type;
	char *path;
	char *old;	/* ENTRY_WRITE: what to write back */
};

#define MAX_FDS 1024

static struct entry *journal;
static volatile sig_atomic_t njournal;
static size_t journal_alloc;
static int reg_fds[MAX_FDS];
static volatile sig_atomic_t nfds;
static volatile sig_atomic_t graceful;
static volatile sig_atomic_t rolling_back;
/* a signal that came to another thread while a rollback ran: acted on at its end */
static volatile sig_atomic_t deferred;
/* state_mirror(): every write entry is also appended there, for a later process */
static int mirror_fd = -1;
static char *mirror_path;
volatile sig_atomic_t state_stop;
/* state_wake(): a byte written to [1] makes [0] readable until state_pause() takes it */
static int wake_pipe[2] = { -1, -1 };

static void write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t r = write(fd, s, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		s += r;
		len -= r;
	}
}

static void on_signal(int sig)
{
	int saved = errno;

	if (graceful && !state_stop) {
		state_stop = sig;
		state_wake();
		errno = saved;
		return;
	}
	/*
	 * A rollback runs (with the signals blocked in its thread, so this is
	 * another one): dying now would cut it short, so it acts on the
	 * signal when it is done.
	 */
	if (rolling_back) {
		deferred = sig;
		errno = saved;
		return;
	}
	state_rollback();
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

void state_wake(void)
{
	int saved = errno;
	ssize_t r = 0;

	/* a full pipe (EAGAIN) has a wake-up waiting already: nothing to add */
	if (wake_pipe[1] >= 0)
		r = write(wake_pipe[1], "", 1);
	(void)r;
	errno = saved;
}

int state_wake_fd(void)
{
	return wake_pipe[0];
}

void state_wake_drain(void)
{
	char buf[64];

	while (wake_pipe[0] >= 0 && read(wake_pipe[0], buf, sizeof(buf)) > 0)
		;
}

int state_pause(int timeout_ms)
{
	struct pollfd p = { .fd = wake_pipe[0], .events = POLLIN };
	int ret;

	ret = poll(&p, wake_pipe[0] >= 0, timeout_ms);
	if (ret > 0)
		state_wake_drain();
	return ret;
}

void state_init(void)
{
	struct sigaction sa;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	size_t i;

	/* made before any handler can write to it; without it, waits only end by EINTR */
	if (wake_pipe[0] < 0 && pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		wake_pipe[0] = wake_pipe[1] = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	/* no SA_RESTART: a blocking poll or read must return EINTR */
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void state_set_graceful(bool on)
{
	graceful = on;
}

/*
 * Journal updates run with the signals we handle blocked, so the handler never
 * sees a half-made entry or an array that realloc just freed.
 */
static void block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigprocmask(SIG_BLOCK, &set, old);
}

void state_block_signals(sigset_t *old)
{
	block_signals(old);
}

/*
 * Room for entry njournal.  A rollback outside a signal handler leaves its
 * entries' strings in their slots (it cannot free them, see state_rollback):
 * a process that goes on and journals again (tpctl serve reading its config
 * again) frees them here, as it reuses the slot.
 */
static int journal_reserve(void)
{
	size_t na = journal_alloc ? journal_alloc * 2 : 16;
	struct entry *n;

	if ((size_t)njournal < journal_alloc) {
		free(journal[njournal].path);
		free(journal[njournal].old);
		journal[njournal].path = journal[njournal].old = NULL;
		return 0;
	}
	n = realloc(journal, na * sizeof(*n));
	if (!n)
		return -1;
	memset(n + journal_alloc, 0, (na - journal_alloc) * sizeof(*n));
	/* the handler may read the journal: publish the new array atomically */
	journal = n;
	journal_alloc = na;
	return 0;
}

/* What writing back restores the state that `cur` describes. */
static char *restore_value(const char *cur, enum state_kind kind)
{
	size_t len = strcspn(cur, "\n");

	switch (kind) {
	case STATE_ENABLE:
		return strdup(cur[0] == '1' ? "1" : "0");
	case STATE_FILTER:
		if (len == 0 || strncmp(cur, "none", len) == 0)
			return strdup("0");
		return strndup(cur, len);
	case STATE_LIST: {
		/* a truncating write clears the list; writing it back refills it */
		char *r = strdup(cur), *q;

		for (q = r; q && *q; q++)
			if (*q == '\n')
				*q = ' ';
		return r;
	}
	case STATE_FTRACE: {
		/*
		 * set_ftrace_filter, set_graph_function, set_ftrace_pid: a line
		 * per entry; "#### all functions enabled ####" and "no pid"
		 * stand for the empty list, which a truncating write restores
		 */
		char *r = malloc(strlen(cur) + 1), *q = r;
		const char *line = cur;

		if (!r)
			return NULL;
		while (*line) {
			size_t n = strcspn(line, "\n");

			if (n && line[0] != '#' && strncmp(line, "no pid", n)) {
				if (q != r)
					*q++ = ' ';
				memcpy(q, line, n);
				q += n;
			}
			line += n + (line[n] == '\n');
		}
		*q = '\0';
		return r;
	}
	case STATE_PLAIN:
	default:
		return strndup(cur, len);
	}
}

static int write_file(const char *path, const char *val)
{
	size_t len = strlen(val);
	int fd, err = 0;
	ssize_t r;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* set_ftrace_filter and its kin take one word per write(2) */
	while (len) {
		r = write(fd, val, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = errno;
			break;
		}
		if (!r)
			break;
		val += r;
		len -= r;
	}
	close(fd);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/*
 * Journal that path is to get old back (old is the caller's malloc'd copy,
 * NULL when making it failed: freed on failure).  Signals must be blocked.
 */
static int journal_write_entry(const char *path, char *old)
{
	char *p = strdup(path);
	struct entry *e;

	if (!old || !p || journal_reserve() < 0) {
		free(old);
		free(p);
		errno = ENOMEM;
		return -1;
	}
	e = &journal[njournal];
	e->type = ENTRY_WRITE;
	e->path = p;
	e->old = old;
	njournal++;
	if (mirror_fd >= 0 && !strchr(p, '\n') && !strchr(old, '\n')) {
		write_all(mirror_fd, p, strlen(p));
		write_all(mirror_fd, "\t", 1);
		write_all(mirror_fd, old, strlen(old));
		write_all(mirror_fd, "\n", 1);
	}
	return 0;
}

int state_write(const char *path, const char *val, enum state_kind kind)
{
	char *cur, *old;
	sigset_t sigs;
	int ret;

	if (kind == STATE_TRIGGER) {
		/* a trigger file lists the triggers set, not what writing it back would do */
		if (asprintf(&old, "!%.*s", (int)strcspn(val, " :\n"), val) < 0)
			old = NULL;
	} else {
		cur = tp_read_file(path, NULL);
		if (!cur)
			return -1;
		old = restore_value(cur, kind);
		free(cur);
	}
	block_signals(&sigs);
	/* journal first, then change: a signal in between undoes a no-op */
	ret = journal_write_entry(path, old);
	if (!ret)
		ret = write_file(path, val);
	sigprocmask(SIG_SETMASK, &sigs, NULL);
	return ret;
}

int state_journal_late(const char *path, const char *restore_val)
{
	sigset_t sigs;
	int ret;

	block_signals(&sigs);
	ret = journal_write_entry(path, restore_val ? strdup(restore_val) : NULL);
	if (!ret)
		journal[njournal - 1].type = ENTRY_LATE;
	sigprocmask(SIG_SETMASK, &sigs, NULL);
	return ret;
}

int state_journal(const char *path, const char *restore_val)
{
	sigset_t sigs;
	int ret;

	block_signals(&sigs);
	ret = journal_write_entry(path, restore_val ? strdup(restore_val) : NULL);
	sigprocmask(SIG_SETMASK, &sigs, NULL);
	return ret;
}

int state_journal_append(const char *path, const char *undo)
{
	sigset_t sigs;
	int ret;

	block_signals(&sigs);
	ret = journal_write_entry(path, strdup(undo));
	if (!ret)
		journal[njournal - 1].type = ENTRY_APPEND;
	sigprocmask(SIG_SETMASK, &sigs, NULL);
	return ret;
}

int state_created_instance(const char *path)
{
	struct entry *e;
	char *p = strdup(path);
	sigset_t sigs;

	block_signals(&sigs);
	if (!p || journal_reserve() < 0) {
		sigprocmask(SIG_SETMASK, &sigs, NULL);
		free(p);
		errno = ENOMEM;
		return -1;
	}
	e = &journal[njournal];
	e->type = ENTRY_RMDIR;
	e->path = p;
	e->old = NULL;
	njournal++;
	sigprocmask(SIG_SETMASK, &sigs, NULL);
	return 0;
}

void state_register_fd(int fd)
{
	if (nfds < MAX_FDS)
		reg_fds[nfds++] = fd;
}

void state_unregister_fd(int fd)
{
	int i;

	for (i = 0; i < nfds; i++) {
		if (reg_fds[i] == fd) {
			reg_fds[i] = reg_fds[nfds - 1];
			nfds--;
			return;
		}
	}
}

void state_commit(void)
{
	int i, n = njournal;

	/* forget first: a signal from here on has nothing to undo */
	njournal = 0;
	for (i = 0; i < n; i++) {
		free(journal[i].path);
		free(journal[i].old);
		journal[i].path = journal[i].old = NULL;
	}
}

/* path lies inside the directory dir */
static bool path_under(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	return !strncmp(path, dir, len) && path[len] == '/';
}

static void undo_write(const struct entry *e)
{
	/*
	 * Opening dynamic_events or synthetic_events (the only files of late
	 * entries) with O_TRUNC removes every dynamic or synthetic event of the
	 * machine, other tools' too: their undo commands are appended.
	 */
	int fd = open(e->path, O_WRONLY | O_CLOEXEC |
		      (e->type == ENTRY_APPEND || e->type == ENTRY_LATE ? O_APPEND : O_TRUNC));

	if (fd < 0)
		return;
	write_all(fd, e->old, strlen(e->old));
	close(fd);
}

/* A write inside an instance this journal created (an earlier RMDIR entry). */
static bool in_created_instance(int i)
{
	int k;

	for (k = 0; k < i; k++)
		if (journal[k].type == ENTRY_RMDIR && path_under(journal[i].path, journal[k].path))
			return true;
	return false;
}

void state_rollback(void)
{
	sigset_t sigs;
	int i, j, sig;

	if (rolling_back)
		return;
	/*
	 * A second INT or TERM while we put things back (a slow machine, an
	 * impatient user or a supervisor that signals again) waits for the
	 * end: its handler would find the rollback running and die halfway,
	 * leaving an instance, probes or the top level's tracer files behind.
	 * Blocked here, it is delivered when the mask is restored below, with
	 * nothing left to undo.  In a handler the mask blocks them already.
	 */
	block_signals(&sigs);
	rolling_back = 1;
	/* an instance with open per-CPU readers cannot be removed */
	for (i = 0; i < nfds; i++)
		close(reg_fds[i]);
	nfds = 0;
	/*
	 * Removing an instance we created takes everything written inside it
	 * along, so those writes are not undone one by one: each undo of a pid
	 * list, an option or an event probe costs the kernel a grace period
	 * (~50-100 ms each here).  Only when the kernel refuses the rmdir (a
	 * reader of another process holds a file open) are they undone, so the
	 * instance that stays behind is idle.
	 */
	for (i = njournal - 1; i >= 0; i--) {
		struct entry *e = &journal[i];

		if (e->type == ENTRY_APPEND) {
			undo_write(e);
			continue;
		}
		if (e->type == ENTRY_WRITE) {
			if (!in_created_instance(i))
				undo_write(e);
			continue;
		}
		if (e->type == ENTRY_LATE)
			continue;
		if (rmdir(e->path) == 0 || errno == ENOENT)
			continue;
		for (j = njournal - 1; j > i; j--)
			if (journal[j].type == ENTRY_WRITE && path_under(journal[j].path, e->path))
				undo_write(&journal[j]);
		rmdir(e->path);
	}
	/* what the instances' contents used (a synthetic event their triggers named) */
	for (i = njournal - 1; i >= 0; i--)
		if (journal[i].type == ENTRY_LATE)
			undo_write(&journal[i]);
	if (mirror_path) {
		unlink(mirror_path);
		close(mirror_fd);
		mirror_fd = -1;
	}
	/*
	 * Entries are leaked on purpose when called from a signal handler
	 * (free is not async-signal-safe); the process is about to die.
	 */
	njournal = 0;
	rolling_back = 0;
	sig = deferred;
	deferred = 0;
	sigprocmask(SIG_SETMASK, &sigs, NULL);
	if (sig)
		on_signal(sig);
}

int state_mirror(const char *path)
{
	sigset_t sigs;
	int fd, i;

	if (mirror_fd >= 0)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	block_signals(&sigs);
	mirror_fd = fd;
	mirror_path = strdup(path);
	/* what is journaled already goes there too */
	for (i = 0; i < njournal; i++) {
		const struct entry *e = &journal[i];

		if (e->type != ENTRY_WRITE || strchr(e->path, '\n') || strchr(e->old, '\n'))
			continue;
		write_all(fd, e->path, strlen(e->path));
		write_all(fd, "\t", 1);
		write_all(fd, e->old, strlen(e->old));
		write_all(fd, "\n", 1);
	}
	sigprocmask(SIG_SETMASK, &sigs, NULL);
	return 0;
}

int state_replay(const char *path)
{
	char *buf = tp_read_file(path, NULL), **lines = NULL, *line, *save = NULL;
	size_t n = 0, alloc = 0;
	int ret = 0;

	if (!buf)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (n == alloc) {
			char **nl = realloc(lines, (alloc = alloc ? alloc * 2 : 16) * sizeof(*nl));

			if (!nl) {
				ret = -1;
				goto out;
			}
			lines = nl;
		}
		lines[n++] = line;
	}
	while (n--) {
		struct entry e = { .type = ENTRY_WRITE };
		char *tab = strchr(lines[n], '\t');

		if (!tab)
			continue;
		*tab = '\0';
		e.path = lines[n];
		e.old = tab + 1;
		/* a file of an instance gone since: nothing to put back */
		if (access(e.path, F_OK) == 0)
			undo_write(&e);
	}
out:
	free(lines);
	free(buf);
	return ret;
}
