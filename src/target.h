/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * target - which processes a tracing command traces (TARGET in tpctl(1)):
 *
 *   -- COMMAND [ARG...]  a command tpctl starts, and every process it starts,
 *                        from its first event on; done when COMMAND exits
 *   -a, --all            with -- COMMAND: every process, while COMMAND runs
 *   -p, --pid PID,...    running processes, all their threads; done when
 *                        they have all exited
 *   -F, --follow         with --pid: also the children they start from now
 *                        on; done when none of them is left
 *   --cgroup PATH        the tasks of a cgroup v2 directory at start, and
 *                        their children; done when none of them is left
 *   --user NAME          run COMMAND as NAME (tpctl's own user otherwise)
 *
 * Without any of them every process is traced.  In every case tpctl's own
 * process is not (set_event_notrace_pid).
 *
 * The kernel does the selecting: the instance's set_event_pid lists the
 * tasks, options/event-fork makes the kernel add their children as they are
 * forked (and drop tasks when they are freed).  So the module knows nothing
 * of how a command reads events or what it prints: stream, record, count and
 * hist use it the same way, in this order:
 *
 *	struct target t;
 *
 *	ret = target_parse(&t, argc, argv, &spec, &args);	TARGET_OPTS in spec
 *	...or by hand: target_init(&t), target_set_command(), target_parse_pids(), t.all...
 *	t.stdout_to_stderr = true;	(commands whose stdout carries data)
 *	ret = target_check(&t);		usage errors (TP_USAGE), nothing changed yet
 *	...create the private instance; enable nothing yet...
 *	ret = target_start(&t);		fork COMMAND's process, which waits
 *	ret = target_apply(&t, inst);	pid lists and event-fork, journaled
 *	...enable events, open the readers, tracing_on 1...
 *	ret = target_release(&t);	COMMAND execs now (TP_FAIL: it could not)
 *	while (!target_done(&t) && !state_stop)
 *		...read events...
 *	...tracing_on 0, read what is still buffered...
 *	target_finish(&t);		end COMMAND if it still runs, reap it
 *	target_report(&t);		how COMMAND ended, as a note on stderr
 *	target_free(&t);
 *
 * target_start() comes before target_apply() because the child's pid must be
 * in set_event_pid before it execs, and before the readers or any other file
 * tpctl opens without O_CLOEXEC.  Every tracefs write is journaled (state.h),
 * so every exit path and INT/TERM/HUP put the pid lists and option back.
 *
 * COMMAND's process:
 *  - is forked with tpctl's signal mask and default dispositions (also for
 *    SIGPIPE, which tpctl ignores); it stays in tpctl's process group, so a
 *    terminal's ^C reaches both;
 *  - runs as --user NAME when given (uid, gid, supplementary groups, HOME,
 *    USER, LOGNAME); tpctl never switches users by itself, under sudo too;
 *  - gets SIGTERM when tpctl dies before it (PR_SET_PDEATHSIG; the kernel
 *    clears that when COMMAND execs a set-user-ID program);
 *  - has its standard output on tpctl's standard error when stdout_to_stderr
 *    is set, so tpctl's own stdout carries only data;
 *  - when tracing stops first (a signal, --duration, a closed stdout),
 *    target_finish() sends it SIGTERM and, if it is still there after
 *    TARGET_GRACE_MS, SIGKILL.
 * target_exit() gives COMMAND's end to the command, which reports it
 * (stream --json: an {"type":"exit"} line); target_status() is tpctl's exit
 * status when tpctl itself succeeded.
 */
#ifndef TPCTL_TARGET_H
#define TPCTL_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct tracefs_instance;

/* How long target_finish() waits after SIGTERM before it sends SIGKILL. */
#define TARGET_GRACE_MS 2000

struct target {
	/* What the options say: set directly or through the functions below. */
	char **argv;		/* -- COMMAND [ARG...], NULL-terminated; NULL: none */
	bool all;		/* -a: every process while COMMAND runs */
	bool follow;		/* -F: children of --pid processes as well */
	int *pids;		/* -p, as given */
	size_t npids;
	const char *cgroup;	/* --cgroup, as given */
	const char *user;	/* --user */
	bool stdout_to_stderr;	/* COMMAND's stdout is tpctl's stderr */

	/* The module's own; read them only through the functions below. */
	char *cgroup_dir;	/* the cgroup v2 directory PATH names */
	char *path;		/* argv[0] as found in PATH */
	uid_t uid;
	gid_t gid;
	char *user_name, *user_home;
	struct tracefs_instance *inst;
	pid_t child;		/* COMMAND's process, 0 before target_start() */
	int go_fd, err_fd;	/* the release pipe and the exec error pipe */
	int *pidfds;		/* --pid without --follow: one per process */
	int *tasks;		/* what target_apply() listed in set_event_pid */
	size_t ntasks;
	bool released, reaped, ended;	/* ended: target_finish() had to stop it */
	bool traced, stopped;	/* it stops at its exec (ptrace); it is stopped there now */
	int wstatus;
	bool checked;		/* target_check() went through */
	double next_check;	/* when target_done() may read set_event_pid again */
};

void target_init(struct target *t);
void target_free(struct target *t);

/*
 * The TARGET options, declared once for every command's option table
 * (opt.h); t is the command's struct target *.  The table's spec needs
 * OPT_COMMAND; pass tp_args.cmd, when not NULL, to target_set_command().
 */
struct tp_opt;
int target_opt_pid(const struct tp_opt *o, const char *arg);
/* The TARGET options in a command's usage line (the spec's synopsis). */
#define TARGET_USAGE "[-p PID,... [-F] | --cgroup PATH | [-a] [--user USER] -- COMMAND [ARG...]]"
#define TARGET_OPTS(t)								\
	OPT_ARG("-- COMMAND [ARG...]", "run COMMAND; trace it and the processes it starts,\n" \
		"from its first event to its exit"),				\
	OPT_BOOL('a', "all", &(t)->all, "with -- COMMAND: trace every process while it runs"), \
	OPT_CALLBACK('p', "pid", (t), "PID,...", target_opt_pid,		\
		     "trace only these running processes (all their threads)"), \
	OPT_BOOL('F', "follow", &(t)->follow,					\
		 "with --pid: also the children they start from now on"),	\
	OPT_STRING(0, "cgroup", &(t)->cgroup, "PATH",				\
		   "trace the tasks of this cgroup v2 directory and their children"), \
	OPT_STRING(0, "user", &(t)->user, "USER", "run COMMAND as USER (default: as tpctl)")

/*
 * Option helpers.  target_parse_pids() adds "PID[,PID...]" (repeatable),
 * TP_USAGE on anything else.  target_set_command() takes the words after
 * "--" (argv[argc] must be NULL); no word is a usage error.
 */
int target_parse_pids(struct target *t, const char *list);
int target_set_command(struct target *t, char **argv);

/*
 * What every command with TARGET_OPTS does first: target_init(t), then
 * opt_parse() and target_set_command() with the words after "--".  0: go on
 * with args filled; otherwise t is freed already and the command returns
 * opt_status() of the value (TP_USAGE, or OPT_SHOWN after --help), which
 * keeps --help apart from a parse that went through.
 */
struct tp_cmd_spec;
struct tp_args;
int target_parse(struct target *t, int argc, char **argv, const struct tp_cmd_spec *spec,
		 struct tp_args *args);

/* Any of the options was given (the command may then need events to trace, ...). */
bool target_given(const struct target *t);

/*
 * Check the options together and against the system: combinations, the
 * processes exist, the cgroup is a cgroup v2 directory, COMMAND can be found
 * in PATH, the user exists.  Prints the error; TP_USAGE.  Changes nothing.
 */
int target_check(struct target *t);

/* Fork COMMAND's process (no-op without COMMAND); it waits for target_release(). */
int target_start(struct target *t);

/*
 * Journaled: tpctl's pid into set_event_notrace_pid, options/event-fork on
 * when following, the tasks into set_event_pid.  Processes that start
 * threads or children meanwhile are looked at again until nothing new
 * appears.  With no target (or -a) only the notrace entry is written.
 */
int target_apply(struct target *t, struct tracefs_instance *inst);

/* The target names its tasks (COMMAND without -a, --pid, --cgroup): not every task is traced. */
bool target_lists(const struct target *t);

/*
 * After target_apply(): the tasks it listed in set_event_pid (sorted), and
 * whether the kernel adds the children they fork (event-fork).  false when
 * the target lists none (every task is traced).
 */
bool target_tasks(const struct target *t, const int **pids, size_t *n, bool *follow);

/*
 * Let COMMAND exec (no-op without it).  Call once tracing is on.  Waits
 * until it has exec'd; TP_FAIL after printing why it could not.
 */
int target_release(struct target *t);

/*
 * Non-blocking: true once the target is gone (COMMAND exited, the --pid
 * processes exited, or with --follow or --cgroup no traced task is left).
 * Always false with no target.  COMMAND's exit interrupts a poll() with
 * EINTR (a SIGCHLD handler, SA_RESTART for every other call).
 */
bool target_done(struct target *t);

/*
 * COMMAND's process, or 0.  Its exit, once reaped: *status the exit status
 * or -1, *sig the signal that ended it or 0; false while it is not reaped.
 */
pid_t target_pid(const struct target *t);
bool target_exit(const struct target *t, int *status, int *sig);

/*
 * What tpctl's exit status is for COMMAND's sake: its exit status, or 128 + N
 * when signal N ended it; 0 when there is none, it never ran, or tpctl
 * ended it (tracing stopped first: --duration, --count, a closed stdout).
 */
int target_status(const struct target *t);

/* End COMMAND if it still runs (SIGTERM, SIGKILL after TARGET_GRACE_MS) and reap it. */
void target_finish(struct target *t);

/*
 * A note on stderr (silenced by -q) when COMMAND did not exit with 0:
 * "tpctl: CMD: 'make' exited with status 2", or the signal that ended it.
 */
void target_report(const struct target *t);

#endif
