// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The TARGET options without a tracefs: pid lists, the checks that make a
 * usage error (exit 2) before anything changes, finding COMMAND in PATH,
 * users.  Prints TAP; target.t runs it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target.h"
#include "util.h"

static int n, failed;

static void ok(int cond, const char *what)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++n, what);
	if (!cond)
		failed = 1;
}

static int parse(struct target *t, const char *list)
{
	target_init(t);
	return target_parse_pids(t, list);
}

static int check(char **argv, bool all, bool follow, const char *pids, const char *cgroup,
		 const char *user)
{
	struct target t;
	int ret;

	target_init(&t);
	t.argv = argv;
	t.all = all;
	t.follow = follow;
	t.cgroup = cgroup;
	t.user = user;
	if (pids && target_parse_pids(&t, pids))
		return -1;
	ret = target_check(&t);
	target_free(&t);
	return ret;
}

int main(void)
{
	static const char *const bad[] = {
		"", ",", "1,", ",1", "1,,2", "a", "1a", "0", "-1", "+1", " 1", "2147483648",
		"99999999999999999999",
	};
	char self[32], *sh[] = { "sh", NULL }, *none[] = { "no-such-command-tpctl", NULL };
	char *dir[] = { "/etc", NULL }, *noexec[] = { "/etc/passwd", NULL };
	char *abs[] = { "/bin/sh", NULL }, what[128];
	struct target t;
	size_t i;

	tp.cmd = "test";
	tp.quiet = true;

	ok(parse(&t, "42") == TP_OK && t.npids == 1 && t.pids[0] == 42, "one pid");
	target_free(&t);
	ok(parse(&t, "1,22,333") == TP_OK && t.npids == 3 && t.pids[2] == 333, "a list");
	ok(target_parse_pids(&t, "4") == TP_OK && t.npids == 4 && t.pids[3] == 4,
	   "-p given again adds to the list");
	ok(target_given(&t), "a pid list is a target");
	target_free(&t);
	ok(parse(&t, "2147483647") == TP_OK && t.pids[0] == INT_MAX, "the largest pid_t");
	target_free(&t);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(what, sizeof(what), "'%s' is refused", bad[i]);
		ok(parse(&t, bad[i]) == TP_USAGE, what);
		target_free(&t);
	}
	target_init(&t);
	ok(!target_given(&t), "nothing given: no target");
	ok(target_set_command(&t, none + 1) == TP_USAGE, "nothing after --: usage error");

	snprintf(self, sizeof(self), "%d", (int)getpid());
	ok(check(NULL, false, false, NULL, NULL, NULL) == TP_OK, "no target: fine");
	ok(check(sh, false, false, NULL, NULL, NULL) == TP_OK, "-- sh: found in PATH");
	ok(check(abs, true, false, NULL, NULL, NULL) == TP_OK, "-a -- /bin/sh");
	ok(check(none, false, false, NULL, NULL, NULL) == TP_USAGE, "a command not in PATH");
	ok(check(dir, false, false, NULL, NULL, NULL) == TP_USAGE, "a directory");
	ok(check(noexec, false, false, NULL, NULL, NULL) == TP_USAGE, "a file not executable");
	setenv("PATH", "/nonexistent", 1);
	ok(check(sh, false, false, NULL, NULL, NULL) == TP_USAGE, "PATH decides");
	setenv("PATH", "/nonexistent::/bin", 1);
	ok(check(sh, false, false, NULL, NULL, NULL) == TP_OK, "PATH with an empty entry");
	ok(check(NULL, true, false, NULL, NULL, NULL) == TP_USAGE, "-a without COMMAND");
	ok(check(NULL, false, true, NULL, NULL, NULL) == TP_USAGE, "-F without --pid");
	ok(check(NULL, false, true, self, NULL, NULL) == TP_OK, "-p self -F");
	ok(check(sh, false, true, NULL, NULL, NULL) == TP_OK, "-F with COMMAND: it follows anyway");
	ok(check(NULL, false, false, self, NULL, "root") == TP_USAGE, "--user without COMMAND");
	ok(check(sh, false, false, self, NULL, NULL) == TP_USAGE, "--pid and COMMAND");
	ok(check(NULL, false, false, self, "/", NULL) == TP_USAGE, "--pid and --cgroup");
	ok(check(NULL, true, false, self, NULL, NULL) == TP_USAGE, "-a and --pid");
	/* above PID_MAX_LIMIT (4194304): no such process can exist */
	ok(check(NULL, false, false, "4194305", NULL, NULL) == TP_USAGE,
	   "a pid that does not exist");
	ok(check(NULL, false, false, NULL, "/no/such/cgroup", NULL) == TP_USAGE,
	   "a cgroup that does not exist");
	ok(check(NULL, false, false, NULL, "/etc", NULL) == TP_USAGE,
	   "a directory that is no cgroup");
	ok(check(sh, false, false, NULL, NULL, "root") == TP_OK, "--user root");
	ok(check(sh, false, false, NULL, NULL, "0") == TP_OK, "--user 0 (a uid)");
	ok(check(sh, false, false, NULL, NULL, "no-such-user-tpctl") == TP_USAGE,
	   "a user that does not exist");
	printf("1..%d\n", n);
	return failed;
}
