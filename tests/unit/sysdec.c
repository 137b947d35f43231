// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The syscall decoder (src/sysdec.c) against lines strace 6.1 wrote for the
 * same numbers; its output is TAP.  Pointers print as addresses (no
 * strings fetched) except where a case gives the string.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysdec.h"

struct tcase {
	const char *name;
	unsigned long long a[6];
	long long ret;
	const char *str0, *str1;	/* fetched strings of arguments 0 and 1 */
	const char *want;
};

static const struct tcase cases[] = {
	{ "openat", { -100ULL, 0x7f00, 02000000 }, 3, NULL, NULL,
	  "openat(AT_FDCWD, 0x7f00, O_RDONLY|O_CLOEXEC) = 3" },
	{ "openat", { -100ULL, 0x7f00, 0x241, 0644 }, 3, NULL, "/tmp/x",
	  "openat(AT_FDCWD, \"/tmp/x\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3" },
	{ "access", { 0x10, 4 }, -2, NULL, NULL,
	  "access(0x10, R_OK) = -1 ENOENT (No such file or directory)" },
	{ "mmap", { 0, 8192, 3, 0x22, -1ULL, 0 }, 0x7feec28cb000, NULL, NULL,
	  "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7feec28cb000" },
	{ "mmap", { 0x7feec2703000, 1400832, 5, 0x812, 3, 0x26000 }, 0x7feec2703000, NULL, NULL,
	  "mmap(0x7feec2703000, 1400832, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE, 3, 0x26000) = 0x7feec2703000" },
	{ "arch_prctl", { 0x1002, 0x7feec26da740 }, 0, NULL, NULL,
	  "arch_prctl(ARCH_SET_FS, 0x7feec26da740) = 0" },
	{ "rseq", { 0x7feec26db060, 0x20, 0, 0x53053053 }, 0, NULL, NULL,
	  "rseq(0x7feec26db060, 0x20, 0, 0x53053053) = 0" },
	{ "prlimit64", { 0, 3, 0, 0x7ffc }, 0, NULL, NULL,
	  "prlimit64(0, RLIMIT_STACK, NULL, 0x7ffc) = 0" },
	{ "rt_sigaction", { 17, 0x7ffc, 0, 8 }, 0, NULL, NULL,
	  "rt_sigaction(SIGCHLD, 0x7ffc, NULL, 8) = 0" },
	{ "clone", { 0x1200011, 0, 0, 0x7feec26daa10 }, 28756, NULL, NULL,
	  "clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7feec26daa10) = 28756" },
	{ "wait4", { -1ULL, 0x7ffe, 1, 0 }, -10, NULL, NULL,
	  "wait4(-1, 0x7ffe, WNOHANG, NULL) = -1 ECHILD (No child processes)" },
	{ "exit_group", { 3 }, 0, NULL, NULL, "exit_group(3) = ?" },
	{ "newfstatat", { 3, 0x55, 0x7ffc, 0x1000 }, 0, NULL, NULL,
	  "newfstatat(3, 0x55, 0x7ffc, AT_EMPTY_PATH) = 0" },
	{ "newfstatat", { 3, 0x55, 0x7ffc, 0x1000 }, 0, NULL, "",
	  "newfstatat(3, \"\", 0x7ffc, AT_EMPTY_PATH) = 0" },
	/* PR_GET_NAME is 16, as PR_PAC_APGAKEY (an argument's value) is */
	{ "prctl", { 16, 0x7ffd }, 0, NULL, NULL, "prctl(PR_GET_NAME, 0x7ffd) = 0" },
	{ "prctl", { 15, 0x7ffd }, 0, NULL, NULL, "prctl(PR_SET_NAME, 0x7ffd) = 0" },
	{ "prctl", { 4, 1 }, 0, NULL, NULL, "prctl(PR_SET_DUMPABLE, 0x1, 0, 0, 0) = 0" },
	{ "fcntl", { 3, 1 }, 1, NULL, NULL, "fcntl(3, F_GETFD) = 0x1 (flags FD_CLOEXEC)" },
	{ "fcntl", { 3, 2, 1 }, 0, NULL, NULL, "fcntl(3, F_SETFD, FD_CLOEXEC) = 0" },
	{ "lseek", { 3, 0, 1 }, 0, NULL, NULL, "lseek(3, 0, SEEK_CUR) = 0" },
	{ "write", { 1, 0x55, 3 }, 3, NULL, "hi\n", "write(1, \"hi\\n\", 3) = 3" },
	{ "read", { 3, 0x55, 832 }, 832, NULL, "\177ELF\2\1\1\3\0\0", "read(3, \"\\177ELF\\2\\1\\1\\3\\0\\0\", 832) = 832" },
	{ "getrandom", { 0x55, 8, 1 }, 8, NULL, NULL, "getrandom(0x55, 8, GRND_NONBLOCK) = 8" },
	{ "futex", { 0x55, 0x81, 1 }, 0, NULL, NULL, "futex(0x55, FUTEX_WAKE_PRIVATE, 1) = 0" },
	{ "clock_nanosleep", { 0, 0, 0x7ff, 0x7fe }, 0, NULL, NULL,
	  "clock_nanosleep(CLOCK_REALTIME, 0, 0x7ff, 0x7fe) = 0" },
	{ "kill", { 29171, 15 }, 0, NULL, NULL, "kill(29171, SIGTERM) = 0" },
	{ "wait4", { -1ULL, 0x7ffe, 0, 0 }, -512, NULL, NULL,
	  "wait4(-1, 0x7ffe, 0, NULL) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)" },
	{ "socket", { 1, 0x80801, 0 }, 3, NULL, NULL,
	  "socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, 0) = 3" },
	{ "mprotect", { 0x7f00, 4096, 0 }, 0, NULL, NULL, "mprotect(0x7f00, 4096, PROT_NONE) = 0" },
	{ "umask", { 022 }, 022, NULL, NULL, "umask(022) = 022" },
	{ "unlinkat", { -100ULL, 0x55, 0x200 }, 0, NULL, NULL, "unlinkat(AT_FDCWD, 0x55, AT_REMOVEDIR) = 0" },
	{ "ioctl", { 1, 0x5401, 0x7ffc }, -25, NULL, NULL,
	  "ioctl(1, TCGETS, 0x7ffc) = -1 ENOTTY (Inappropriate ioctl for device)" },
};

static int one(struct sysdec *d, const struct tcase *t, int n)
{
	struct sysdec_call c = { .nr = sysdec_nr(t->name), .ret = t->ret, .has_ret = true };
	char args[4096], ret[256], line[8192];
	int i;

	for (i = 0; i < 6; i++)
		c.args[i] = t->a[i];
	if (t->str0) {
		c.str[0] = t->str0;
		c.strlen[0] = strlen(t->str0);
	}
	if (t->str1) {
		c.str[1] = t->str1;
		/* the ELF case has NULs in it: its length is the bytes in the literal */
		c.strlen[1] = !strcmp(t->name, "read") ? 10 : strlen(t->str1);
	}
	sysdec_args(d, &c, args, sizeof(args), NULL, NULL);
	sysdec_ret(d, &c, ret, sizeof(ret));
	snprintf(line, sizeof(line), "%s(%s) = %s", t->name, args, ret);
	if (strcmp(line, t->want)) {
		printf("not ok %d - %s\n# got  %s\n# want %s\n", n, t->name, line, t->want);
		return 1;
	}
	printf("ok %d - %s\n", n, line);
	return 0;
}

/* -e trace= and signal= sets: what they hold, the word a refused one names */
static int sets(int *n)
{
	bool *mark = calloc(sysdec_nr_count(), sizeof(bool));
	int rd = sysdec_nr("read"), wr = sysdec_nr("write"), op = sysdec_nr("openat");
	const char *bad = NULL;
	size_t len = 0;
	uint64_t mask = 0;
	bool good, all;

	good = mark && !sysdec_trace_set("read,,write", mark, &bad, &len) && mark[rd] &&
	       mark[wr] && !mark[op] && !sysdec_trace_set("!%file,read", mark, &bad, &len) &&
	       !mark[op] && !mark[rd] && mark[wr] &&
	       sysdec_trace_set("read,opnat,%bogus", mark, &bad, &len) == -1 && len == 5 &&
	       !strncmp(bad, "opnat,", 6);
	printf("%s %d - trace sets\n", good ? "ok" : "not ok", ++*n);
	free(mark);
	all = good;
	good = !sysdec_signal_set("INT,SIGTERM,9", &mask, &bad, &len) &&
	       mask == (1ULL << 1 | 1ULL << 14 | 1ULL << 8) &&
	       !sysdec_signal_set("!chld", &mask, &bad, &len) && mask == ~(1ULL << 16) &&
	       sysdec_signal_set("1,65", &mask, &bad, &len) == -1 && len == 2 && !strcmp(bad, "65");
	printf("%s %d - signal sets\n", good ? "ok" : "not ok", ++*n);
	return !(all && good);
}

int main(void)
{
	struct sysdec *d = sysdec_new(32);
	const char *types[] = { "int", "const char *", "unsigned long" };
	size_t i;
	int fail = 0, n = 0;

	printf("1..%zu\n", sizeof(cases) / sizeof(cases[0]) + 5);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		fail |= one(d, &cases[i], ++n);
	/* a syscall no table knows: its format's types */
	{
		int nr = sysdec_nr("fsconfig");
		struct sysdec_call c = { .nr = nr, .args = { -1ULL, 0x55, 7 }, .ret = 0, .has_ret = true };
		char buf[1024];

		sysdec_proto(d, nr, 3, types);
		sysdec_args(d, &c, buf, sizeof(buf), NULL, NULL);
		printf("%s %d - format types: %s\n", strcmp(buf, "-1, 0x55, 7") ? "not ok" : "ok", ++n, buf);
	}
	printf("%s %d - classes\n", sysdec_classes(sysdec_nr("openat")) & SYSDEC_FILE &&
	       sysdec_class("network") == SYSDEC_NETWORK && !sysdec_class("bogus") ? "ok" : "not ok", ++n);
	printf("%s %d - signal names\n", sysdec_signal_nr("TERM") == 15 &&
	       !strcmp(sysdec_signal_name(9), "SIGKILL") ? "ok" : "not ok", ++n);
	fail |= sets(&n);
	sysdec_free(d);
	return fail;
}
