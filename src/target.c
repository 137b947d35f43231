// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * target - the processes a command traces; see target.h.
 *
 * The selection is the kernel's (set_event_pid, options/event-fork), so
 * nothing here looks at events.  COMMAND is forked early and stops at its
 * exec, as under a debugger: it asks to be traced (PTRACE_TRACEME) and
 * execs, and the kernel stops it with SIGTRAP once the new program is in
 * place, before its first instruction.  Its set-up before the exec (signal
 * dispositions, dup2, prctl, the exec itself) happens before tracing is
 * on, so no command records, counts or joins it, and its first events are
 * the new program's (perf's enable_on_exec does the same for perf).  The
 * release detaches it.  Where it cannot be traced (tpctl runs under strace
 * -f or a debugger, or ptrace is forbidden) it waits on a pipe before the
 * exec instead, as it did before: then its last syscalls before the exec
 * and the exec are traced.  A close-on-exec pipe tells tpctl which of the
 * two it does, and brings back why it could not exec.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <poll.h>
#include <pwd.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "comm.h"
#include "opt.h"
#include "state.h"
#include "target.h"
#include "tfs.h"
#include "util.h"

/* How often target_done() reads set_event_pid: a cheap read, but not per record. */
#define CHECK_INTERVAL_S 0.05
/* Rounds of looking for tasks that appeared while the lists were written. */
#define RESCAN_MAX 16

/* What the child sends back when it cannot run COMMAND: the step and errno. */
enum child_step {
	STEP_STDOUT,
	STEP_GROUPS,
	STEP_SETGID,
	STEP_SETUID,
	STEP_EXEC,
	STEP_TRACED,	/* not an error: it stops at its exec */
	STEP_WAITS,	/* not an error: no ptrace, it waits on the release pipe */
};

struct child_error {
	int step;
	int err;
};

static struct sigaction old_chld;
static bool chld_installed;

/* SIGCHLD ends the reading loop's wait, even one that began just after it looked. */
static void on_sigchld(int sig)
{
	(void)sig;
	state_wake();
}

void target_init(struct target *t)
{
	memset(t, 0, sizeof(*t));
	t->go_fd = -1;
	t->err_fd = -1;
}

void target_free(struct target *t)
{
	size_t i;

	if (t->go_fd >= 0)
		close(t->go_fd);
	if (t->err_fd >= 0)
		close(t->err_fd);
	for (i = 0; t->pidfds && i < t->npids; i++)
		if (t->pidfds[i] >= 0)
			close(t->pidfds[i]);
	free(t->pidfds);
	free(t->pids);
	free(t->tasks);
	free(t->cgroup_dir);
	free(t->path);
	free(t->user_name);
	free(t->user_home);
	if (chld_installed) {
		sigaction(SIGCHLD, &old_chld, NULL);
		chld_installed = false;
	}
	target_init(t);
}

int target_parse_pids(struct target *t, const char *list)
{
	const char *p = list;

	if (!*p)
		goto bad;
	while (*p) {
		unsigned long long v;
		char num[24];
		size_t len = strcspn(p, ",");
		int *np;

		if (!len || len >= sizeof(num))
			goto bad;
		memcpy(num, p, len);
		num[len] = '\0';
		if (!tp_parse_uint(num, &v) || v == 0 || v > INT_MAX)
			goto bad;
		np = realloc(t->pids, (t->npids + 1) * sizeof(*np));
		if (!np)
			return tp_oom();
		t->pids = np;
		t->pids[t->npids++] = (int)v;
		p += len;
		if (*p == ',' && !*++p)
			goto bad;
	}
	return TP_OK;
bad:
	tp_error("invalid value '%s' for --pid: process ids as in 42 or 42,77", list);
	return TP_USAGE;
}

int target_opt_pid(const struct tp_opt *o, const char *arg)
{
	return target_parse_pids(o->value, arg);
}

int target_set_command(struct target *t, char **argv)
{
	if (!argv || !argv[0]) {
		tp_error("no command after '--'");
		return TP_USAGE;
	}
	t->argv = argv;
	return TP_OK;
}

int target_parse(struct target *t, int argc, char **argv, const struct tp_cmd_spec *spec,
		 struct tp_args *args)
{
	int ret;

	target_init(t);
	ret = opt_parse(argc, argv, spec, args);
	if (!ret && args->cmd)
		ret = target_set_command(t, args->cmd);
	if (ret)
		target_free(t);
	return ret;
}

bool target_given(const struct target *t)
{
	return t->argv || t->npids || t->cgroup || t->all || t->follow || t->user;
}

/* argv[0] as execvp() would find it; NULL and errno set when it would fail. */
static char *command_find(const char *name)
{
	const char *path = getenv("PATH"), *p;
	int err = ENOENT;
	struct stat st;

	if (strchr(name, '/')) {
		if (stat(name, &st) < 0)
			return NULL;
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return NULL;
		}
		if (access(name, X_OK) < 0)
			return NULL;
		return strdup(name);
	}
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	for (p = path;; p++) {
		const char *end = strchrnul(p, ':');
		char *cand;

		/* an empty PATH entry is the current directory */
		if (asprintf(&cand, "%.*s%s%s", (int)(end - p), p, end > p ? "/" : "", name) < 0)
			return NULL;
		if (stat(cand, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(cand, X_OK) == 0)
				return cand;
			err = errno;
		}
		free(cand);
		if (!*end)
			break;
		p = end;
	}
	errno = err;
	return NULL;
}

/* The cgroup v2 directory PATH names: as given, or under a cgroup2 mount. */
static int cgroup_resolve(struct target *t)
{
	struct mntent *m;
	struct stat st;
	char *cand = NULL, file[PATH_MAX];
	FILE *f;

	if (stat(t->cgroup, &st) == 0 && S_ISDIR(st.st_mode)) {
		cand = realpath(t->cgroup, NULL);
	} else if ((f = setmntent("/proc/self/mounts", "r"))) {
		while (!cand && (m = getmntent(f))) {
			char *c;

			if (strcmp(m->mnt_type, "cgroup2"))
				continue;
			if (asprintf(&c, "%s/%s", m->mnt_dir, t->cgroup) < 0)
				break;
			if (stat(c, &st) == 0 && S_ISDIR(st.st_mode))
				cand = realpath(c, NULL);
			free(c);
		}
		endmntent(f);
	}
	if (!cand) {
		tp_error("no such cgroup '%s'", t->cgroup);
		return TP_USAGE;
	}
	snprintf(file, sizeof(file), "%s/cgroup.threads", cand);
	if (access(file, R_OK) < 0) {
		snprintf(file, sizeof(file), "%s/tasks", cand);
		tp_error("not a cgroup v2 directory '%s'%s", t->cgroup,
			 access(file, F_OK) == 0 ? " (cgroup v1 is not supported)" : "");
		free(cand);
		return TP_USAGE;
	}
	t->cgroup_dir = cand;
	return TP_OK;
}

static int user_resolve(struct target *t)
{
	unsigned long long uid;
	struct passwd *pw;

	errno = 0;
	pw = getpwnam(t->user);
	if (!pw && tp_parse_uint(t->user, &uid) && uid < (uid_t)-1)
		pw = getpwuid((uid_t)uid);
	if (!pw) {
		tp_error("no such user '%s'", t->user);
		return TP_USAGE;
	}
	t->uid = pw->pw_uid;
	t->gid = pw->pw_gid;
	t->user_name = strdup(pw->pw_name);
	t->user_home = strdup(pw->pw_dir);
	if (!t->user_name || !t->user_home)
		return tp_oom();
	return TP_OK;
}

int target_check(struct target *t)
{
	int kinds = !!t->argv + !!t->npids + !!t->cgroup;
	size_t i;
	int ret = TP_OK;

	/* once is enough: a session opened again (another engine) asks again */
	if (t->checked)
		return TP_OK;
	if (kinds > 1) {
		tp_error("'-- COMMAND', '--pid' and '--cgroup' are different targets; give one");
		return TP_USAGE;
	}
	if (t->all && !t->argv) {
		tp_error("'--all' needs '-- COMMAND' (without a target every process is traced)");
		return TP_USAGE;
	}
	if (t->follow && !kinds) {
		tp_error("'--follow' needs '--pid'");
		return TP_USAGE;
	}
	if (t->user && !t->argv) {
		tp_error("'--user' needs '-- COMMAND'");
		return TP_USAGE;
	}
	if (t->argv) {
		t->path = command_find(t->argv[0]);
		if (!t->path) {
			if (errno == ENOENT)
				tp_error("no such command '%s'", t->argv[0]);
			else
				tp_error("cannot run '%s': %s", t->argv[0], strerror(errno));
			return TP_USAGE;
		}
	}
	for (i = 0; i < t->npids; i++) {
		char proc[32];

		snprintf(proc, sizeof(proc), "/proc/%d", t->pids[i]);
		if (access(proc, F_OK) < 0 || (kill(t->pids[i], 0) < 0 && errno == ESRCH)) {
			tp_error("no such process '%d'", t->pids[i]);
			return TP_USAGE;
		}
	}
	if (t->cgroup && cgroup_resolve(t))
		return TP_USAGE;
	if (t->user)
		ret = user_resolve(t);
	t->checked = !ret;
	return ret;
}

static void child_fail(int fd, enum child_step step)
{
	struct child_error e = { step, errno };

	if (write(fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* In COMMAND's process: get ready, wait for the release, exec. */
static void child_run(struct target *t, int go, int err, pid_t parent, const sigset_t *mask)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD };
	struct child_error mode = { 0, 0 };
	size_t i;
	char c;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	if (t->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		child_fail(err, STEP_STDOUT);
	if (t->user) {
		if (initgroups(t->user_name, t->gid) < 0)
			child_fail(err, STEP_GROUPS);
		if (setgid(t->gid) < 0)
			child_fail(err, STEP_SETGID);
		if (setuid(t->uid) < 0)
			child_fail(err, STEP_SETUID);
		setenv("HOME", t->user_home, 1);
		setenv("USER", t->user_name, 1);
		setenv("LOGNAME", t->user_name, 1);
	}
	/* after setuid: a change of credentials clears the parent-death signal */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	sigprocmask(SIG_SETMASK, mask, NULL);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0) {
		mode.step = STEP_TRACED;
		if (write(err, &mode, sizeof(mode)) != sizeof(mode))
			_exit(127);
	} else {
		mode.step = STEP_WAITS;
		mode.err = errno;
		if (write(err, &mode, sizeof(mode)) != sizeof(mode))
			_exit(127);
		/* EOF: tpctl gave up before tracing began */
		if (read(go, &c, 1) != 1)
			_exit(127);
	}
	/* execvp: a script without #! runs under /bin/sh, as from a shell */
	execvp(t->path, t->argv);
	child_fail(err, STEP_EXEC);
}

static bool child_reap(struct target *t, int flags);

static const char *const step_names[] = {
	[STEP_STDOUT] = "its standard output",
	[STEP_GROUPS] = "initgroups",
	[STEP_SETGID] = "setgid",
	[STEP_SETUID] = "setuid",
	[STEP_EXEC] = "exec",
};

/* Why COMMAND's process could not exec, as its error pipe says (r bytes read into e). */
static void child_error_report(const struct target *t, ssize_t r, const struct child_error *e)
{
	if (r == sizeof(*e) && e->step == STEP_EXEC)
		tp_error("cannot run '%s': %s", t->argv[0], strerror(e->err));
	else if (r == sizeof(*e) && e->step >= 0 && e->step < STEP_EXEC)
		tp_error("cannot run '%s' as '%s': %s: %s", t->argv[0], t->user ? t->user : "?",
			 step_names[e->step], strerror(e->err));
	else
		tp_error("cannot run '%s'", t->argv[0]);
}

static ssize_t read_full(int fd, void *buf, size_t len)
{
	ssize_t r;

	do {
		r = read(fd, buf, len);
	} while (r < 0 && errno == EINTR);
	return r;
}

/*
 * After the fork: learn whether COMMAND's process stops at its exec, and
 * wait for that stop; nothing is traced yet.  A signal that reaches it
 * before the exec is passed on (a stop signal is not: tpctl would wait for
 * it forever).  TP_FAIL after printing why it could not exec.
 */
static int child_wait_exec(struct target *t)
{
	struct child_error e = { 0, 0 };
	ssize_t r;
	int st;

	r = read_full(t->err_fd, &e, sizeof(e));
	if (r == sizeof(e) && e.step == STEP_WAITS) {
		tp_debug("cannot trace '%s' to its exec (ptrace: %s): its set-up before the exec "
			 "is traced", t->argv[0], strerror(e.err));
		tp_debug("started '%s' as process %d, waiting", t->argv[0], (int)t->child);
		return TP_OK;
	}
	if (r != sizeof(e) || e.step != STEP_TRACED) {
		child_error_report(t, r, &e);
		target_finish(t);
		return TP_FAIL;
	}
	t->traced = true;
	for (;;) {
		pid_t w = waitpid(t->child, &st, 0);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			tp_error("cannot wait for '%s': %s", t->argv[0], strerror(errno));
			kill(t->child, SIGKILL);
			child_reap(t, 0);
			return TP_FAIL;
		}
		if (WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP)
			break;
		if (WIFSTOPPED(st)) {
			int sig = WSTOPSIG(st);

			if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
				sig = 0;
			ptrace(PTRACE_CONT, t->child, NULL, (void *)(long)sig);
			continue;
		}
		/* it ended before the exec: the error pipe says why */
		t->wstatus = st;
		t->reaped = true;
		child_error_report(t, read_full(t->err_fd, &e, sizeof(e)), &e);
		return TP_FAIL;
	}
	t->stopped = true;
	tp_debug("started '%s' as process %d, stopped at its exec", t->argv[0], (int)t->child);
	return TP_OK;
}

int target_start(struct target *t)
{
	struct sigaction sa;
	sigset_t all, old;
	pid_t parent = getpid();
	int go[2], err[2];

	if (!t->argv)
		return TP_OK;
	t->released = t->reaped = t->ended = t->stopped = t->traced = false;
	if (pipe2(go, O_CLOEXEC) < 0)
		goto fail;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		goto fail;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	/* SA_RESTART: stdout writes go on; poll() returns EINTR all the same */
	sa.sa_flags = SA_NOCLDSTOP | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (!chld_installed && sigaction(SIGCHLD, &sa, &old_chld) == 0)
		chld_installed = true;

	/* no handler of tpctl's may run in the child: it would undo tpctl's journal */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	t->child = fork();
	if (t->child == 0) {
		close(go[1]);
		close(err[0]);
		child_run(t, go[0], err[1], parent, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(go[0]);
	close(err[1]);
	if (t->child < 0) {
		t->child = 0;
		close(go[1]);
		close(err[0]);
		goto fail;
	}
	t->go_fd = go[1];
	t->err_fd = err[0];
	return child_wait_exec(t);
fail:
	tp_error("cannot run '%s': %s", t->argv[0], strerror(errno));
	return TP_FAIL;
}

static int pid_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Add v to the sorted set (*s, *n) unless it is there; -1 on ENOMEM. */
static int set_add(int **s, size_t *n, size_t *alloc, int v)
{
	size_t lo = 0, hi = *n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if ((*s)[mid] == v)
			return 0;
		if ((*s)[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (*n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 64;
		int *ns = realloc(*s, na * sizeof(*ns));

		if (!ns)
			return -1;
		*s = ns;
		*alloc = na;
	}
	memmove(*s + lo + 1, *s + lo, (*n - lo) * sizeof(**s));
	(*s)[lo] = v;
	(*n)++;
	return 1;
}

/* Every number in a file or every numeric entry of a directory, into the set. */
static int tasks_read(const char *path, bool dir, int **s, size_t *n, size_t *alloc)
{
	if (dir) {
		DIR *d = opendir(path);
		struct dirent *de;

		/* the process exited meanwhile: it has no threads to add */
		if (!d)
			return errno == ENOENT ? 0 : -1;
		while ((de = readdir(d))) {
			unsigned long long v;

			if (tp_parse_uint(de->d_name, &v) && v && v <= INT_MAX &&
			    set_add(s, n, alloc, (int)v) < 0) {
				closedir(d);
				errno = ENOMEM;
				return -1;
			}
		}
		closedir(d);
	} else {
		char *buf = tp_read_file(path, NULL), *p, *end;

		if (!buf)
			return -1;
		for (p = buf; *p; p = end) {
			long v = strtol(p, &end, 10);

			if (end == p) {
				end = p + 1;
				continue;
			}
			if (v > 0 && set_add(s, n, alloc, (int)v) < 0) {
				free(buf);
				errno = ENOMEM;
				return -1;
			}
		}
		free(buf);
	}
	return 0;
}

/* The tasks the target names now: COMMAND's process, the threads of --pid, the cgroup's. */
static int tasks_now(struct target *t, int **s, size_t *n, size_t *alloc)
{
	char path[PATH_MAX];
	size_t i;

	if (t->child)
		return set_add(s, n, alloc, t->child) < 0 ? -1 : 0;
	for (i = 0; i < t->npids; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task", t->pids[i]);
		if (tasks_read(path, true, s, n, alloc) < 0)
			return -1;
	}
	if (t->cgroup_dir) {
		snprintf(path, sizeof(path), "%s/cgroup.threads", t->cgroup_dir);
		if (tasks_read(path, false, s, n, alloc) < 0)
			return -1;
	}
	return 0;
}

static int pidfds_open(struct target *t)
{
	size_t i;

	t->pidfds = malloc(t->npids * sizeof(*t->pidfds));
	if (!t->pidfds)
		return tp_oom();
	for (i = 0; i < t->npids; i++) {
		/* -1: exited already (ESRCH), or no pidfd here: kill(pid, 0) then */
		t->pidfds[i] = syscall(SYS_pidfd_open, t->pids[i], 0);
		if (t->pidfds[i] < 0 && errno == ESRCH)
			t->pidfds[i] = -2;
	}
	return TP_OK;
}

int target_apply(struct target *t, struct tracefs_instance *inst)
{
	int self = getpid(), *listed = NULL, *cur = NULL, ret = TP_OK, round;
	size_t nlisted = 0, alisted = 0, ncur = 0, acur = 0, i, nnew;
	bool follow = t->child || t->follow || t->cgroup_dir;

	t->inst = inst;
	/*
	 * Every thread of tpctl's (serve's HTTP workers, the readers), not only
	 * the main one: the list holds task ids.  Without a target, event-fork
	 * adds the threads and children tpctl starts later to it (with one, they
	 * are in no set_event_pid).  Not with -a: there it changed what a perf
	 * run as COMMAND recorded (tests/cli/latency-sched.t), and threads that
	 * start later are traced as before.  Before 5.8 there is no notrace
	 * list; tpctl's events then show.
	 */
	if (tfs_has_file(inst, "set_event_notrace_pid")) {
		char path[40];

		snprintf(path, sizeof(path), "/proc/%d/task", self);
		if (tasks_read(path, true, &listed, &nlisted, &alisted) < 0 || !nlisted)
			ret = tfs_pids_set(inst, true, &self, 1);
		else
			ret = tfs_pids_set(inst, true, listed, nlisted);
		free(listed);
		listed = NULL;
		nlisted = alisted = 0;
		if (!ret && !t->all && !(t->child || t->npids || t->cgroup_dir))
			ret = tfs_option_set(inst, "event-fork", true);
	} else {
		tp_debug("no set_event_notrace_pid in %s: tpctl's own events are not hidden",
			 tfs_instance_label(inst));
	}
	if (ret || t->all || !(t->child || t->npids || t->cgroup_dir))
		return ret;
	if (t->npids && !t->follow && (ret = pidfds_open(t)))
		return ret;
	/* the option first: what a listed task forks from then on is added by the kernel */
	if (follow && (ret = tfs_option_set(inst, "event-fork", true)))
		return ret;
	if (tasks_now(t, &listed, &nlisted, &alisted) < 0) {
		tp_error("cannot list the tasks of the target: %s", strerror(errno));
		ret = TP_FAIL;
		goto out;
	}
	if (!nlisted && t->cgroup_dir) {
		tp_error("no task in cgroup '%s' (tasks moved in later are not traced)", t->cgroup);
		ret = TP_USAGE;
		goto out;
	}
	ret = tfs_pids_set(inst, false, listed, nlisted);
	tp_debug("set_event_pid: %zu task(s)%s", nlisted, follow ? ", event-fork on" : "");
	/*
	 * A thread or child started between the listing and the write was
	 * not forked by a listed task: look again until nothing is new.
	 * (COMMAND's process waits, it starts nothing.)
	 */
	for (round = 0; !ret && !t->child && round < RESCAN_MAX; round++) {
		ncur = 0;
		if (tasks_now(t, &cur, &ncur, &acur) < 0)
			break;
		for (i = nnew = 0; i < ncur; i++)
			if (!bsearch(&cur[i], listed, nlisted, sizeof(*listed), pid_cmp))
				cur[nnew++] = cur[i];
		if (!nnew)
			break;
		tp_debug("set_event_pid: %zu more task(s)", nnew);
		ret = tfs_pids_add(inst, false, cur, nnew);
		for (i = 0; !ret && i < nnew; i++)
			if (set_add(&listed, &nlisted, &alisted, cur[i]) < 0)
				ret = TP_FAIL;
	}
out:
	free(cur);
	free(t->tasks);
	t->tasks = listed;
	t->ntasks = nlisted;
	return ret;
}

bool target_lists(const struct target *t)
{
	return !t->all && (t->argv || t->npids || t->cgroup);
}

bool target_tasks(const struct target *t, const int **pids, size_t *n, bool *follow)
{
	*pids = t->tasks;
	*n = t->ntasks;
	*follow = t->child || t->follow || t->cgroup_dir;
	return target_lists(t) && t->inst;
}

int target_release(struct target *t)
{
	struct child_error e = { 0, 0 };
	ssize_t r;

	if (!t->child || t->released || t->reaped)
		return TP_OK;
	if (t->traced) {
		/* it runs on from its first instruction, without the SIGTRAP */
		if (ptrace(PTRACE_DETACH, t->child, NULL, NULL) < 0) {
			tp_error("cannot start '%s': %s", t->argv[0], strerror(errno));
			return TP_FAIL;
		}
		t->stopped = false;
		t->released = true;
		comm_note_exec(t->child, t->path);
		return TP_OK;
	}
	/* EPIPE: it failed before, the error pipe says why */
	if (write(t->go_fd, "g", 1) < 0 && errno != EPIPE) {
		tp_error("cannot start '%s': %s", t->argv[0], strerror(errno));
		return TP_FAIL;
	}
	close(t->go_fd);
	t->go_fd = -1;
	/* EOF when exec succeeded (the pipe is close-on-exec) */
	r = read_full(t->err_fd, &e, sizeof(e));
	close(t->err_fd);
	t->err_fd = -1;
	if (r == 0) {
		t->released = true;
		/* saved_cmdlines may not know it in time: the output layer asks comm.h */
		comm_note_exec(t->child, t->path);
		return TP_OK;
	}
	child_error_report(t, r, &e);
	return TP_FAIL;
}

static bool child_reap(struct target *t, int flags)
{
	pid_t r;

	if (!t->child || t->reaped)
		return t->reaped;
	do {
		r = waitpid(t->child, &t->wstatus, flags);
	} while (r < 0 && errno == EINTR);
	if (r == t->child || (r < 0 && errno == ECHILD))
		t->reaped = true;
	return t->reaped;
}

bool target_done(struct target *t)
{
	size_t i, n;
	int *pids;
	double now;

	if (t->child)
		return child_reap(t, WNOHANG);
	if (!t->inst || t->all)
		return false;
	if (t->pidfds) {
		for (i = 0; i < t->npids; i++) {
			struct pollfd p = { .fd = t->pidfds[i], .events = POLLIN };

			if (t->pidfds[i] == -2)
				continue;
			if (t->pidfds[i] >= 0 ? poll(&p, 1, 0) != 1 :
			    !(kill(t->pids[i], 0) < 0 && errno == ESRCH))
				return false;
		}
		return true;
	}
	if (!t->npids && !t->cgroup_dir)
		return false;
	now = tp_now_s();
	if (now < t->next_check)
		return false;
	t->next_check = now + CHECK_INTERVAL_S;
	/* with event-fork the kernel drops tasks as they are freed; an emptied list matches none */
	/* a failed read was reported once; the stop then comes from a signal or --duration */
	if (tfs_pids_get(t->inst, false, &pids, &n)) {
		t->next_check = 1e300;
		return false;
	}
	free(pids);
	return n == 0;
}

pid_t target_pid(const struct target *t)
{
	return t->child;
}

bool target_exit(const struct target *t, int *status, int *sig)
{
	if (!t->child || !t->reaped)
		return false;
	*status = WIFEXITED(t->wstatus) ? WEXITSTATUS(t->wstatus) : -1;
	*sig = WIFSIGNALED(t->wstatus) ? WTERMSIG(t->wstatus) : 0;
	return true;
}

int target_status(const struct target *t)
{
	int status, sig;

	if (!target_exit(t, &status, &sig) || !t->released || t->ended)
		return 0;
	return sig ? 128 + sig : status;
}

void target_finish(struct target *t)
{
	double end;

	if (!t->child || t->reaped)
		return;
	if (!t->released) {
		/* stopped at its exec: it never ran an instruction of COMMAND */
		if (t->traced)
			kill(t->child, SIGKILL);
		/* it never exec'd: EOF on the release pipe ends it, or it failed */
		if (t->go_fd >= 0) {
			close(t->go_fd);
			t->go_fd = -1;
		}
		child_reap(t, 0);
		return;
	}
	if (child_reap(t, WNOHANG))
		return;
	t->ended = true;
	tp_debug("'%s' still runs: SIGTERM", t->argv[0]);
	kill(t->child, SIGTERM);
	end = tp_now_s() + TARGET_GRACE_MS / 1000.0;
	while (!child_reap(t, WNOHANG)) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (tp_now_s() >= end) {
			tp_debug("'%s' did not end on SIGTERM: SIGKILL", t->argv[0]);
			kill(t->child, SIGKILL);
			child_reap(t, 0);
			break;
		}
		nanosleep(&ts, NULL);
	}
}

void target_report(const struct target *t)
{
	int status, sig;

	if (!target_exit(t, &status, &sig) || !t->released)
		return;
	if (sig && t->ended)
		tp_note("'%s' still ran when tracing stopped; ended by SIG%s", t->argv[0],
			sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	else if (sig)
		tp_note("'%s' was killed by signal %d (SIG%s)", t->argv[0], sig,
			sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	else if (status)
		tp_note("'%s' exited with status %d", t->argv[0], status);
}
