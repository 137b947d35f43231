// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysdec - a system call as strace writes it, from numbers only (sysdec.h).
 *
 * Each syscall strace decodes has a line in calls[] below: a letter per
 * argument saying how strace prints it (what no header says), the kind of
 * its return value and its strace classes.  The names and values behind
 * the letters come from the generated sysdec_tab.h (src/gen/sysdec_gen.py),
 * the errno names from errname.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/prctl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "digits.h"
#include "errname.h"
#include "sysdec.h"

struct sysdec_xlat {
	unsigned long long val;
	const char *name;
};

#include "sysdec_tab.h"

#define XL(t) { xl_##t, sizeof(xl_##t) / sizeof(xl_##t[0]) }
struct xlat_ref {
	const struct sysdec_xlat *x;
	size_t n;
};

/*
 * Argument letters:
 *   d int, u unsigned int, l long, U unsigned long (decimal); x hex; p pointer;
 *   s path (a string), b data (a string up to -s), f fd, D dirfd (AT_FDCWD),
 *   O open flags with the access mode, o O_* flags alone, m mode (octal),
 *   M mode when the flags before it create a file, P prot, F mmap flags,
 *   S signal, H sigprocmask how, A at flags, R unlinkat flags, W whence,
 *   C fcntl command (its argument decides the next), L rlimit, a arch_prctl,
 *   I ioctl request, c clock, T timer flags, X futex op, G getrandom flags,
 *   w wait options, K access mode, V madvise, r prctl option, N socket
 *   family, k socket type, Z statx flags, z statx mask, E epoll_ctl op,
 *   e epoll flags, Q fallocate mode, i idtype, k clone flags (Y).
 * Return letters: d decimal, x hex address, ? none, f fcntl's, o octal.
 */
struct call_spec {
	const char *name;
	const char *args;
	char ret;
	unsigned char cls;
};

#define F SYSDEC_FILE
#define P SYSDEC_PROCESS
#define N SYSDEC_NETWORK
#define SG SYSDEC_SIGNAL
#define DS SYSDEC_DESC
#define MM SYSDEC_MEMORY
#define IP SYSDEC_IPC
static const struct call_spec calls[] = {
	{ "read", "fbU", 'd', DS }, { "write", "fbU", 'd', DS },
	{ "pread64", "fbUl", 'd', DS }, { "pwrite64", "fbUl", 'd', DS },
	{ "readv", "fpd", 'd', DS }, { "writev", "fpd", 'd', DS },
	{ "open", "sOM", 'd', F | DS }, { "openat", "DsOM", 'd', F | DS },
	{ "creat", "sm", 'd', F | DS }, { "close", "f", 'd', DS },
	{ "close_range", "uuu", 'd', DS },
	{ "stat", "sp", 'd', F }, { "lstat", "sp", 'd', F }, { "fstat", "fp", 'd', DS },
	{ "newfstatat", "DspA", 'd', F | DS }, { "statx", "DsZzp", 'd', F | DS },
	{ "statfs", "sp", 'd', F }, { "fstatfs", "fp", 'd', DS },
	{ "lseek", "flW", 'd', DS }, { "mmap", "pUPFfx", 'x', MM | DS },
	{ "mprotect", "pUP", 'd', MM }, { "munmap", "pU", 'd', MM }, { "brk", "p", 'x', MM },
	{ "mremap", "pUUxp", 'x', MM }, { "madvise", "pUV", 'd', MM },
	{ "rt_sigaction", "SppU", 'd', SG }, { "rt_sigprocmask", "HppU", 'd', SG },
	{ "rt_sigreturn", "q", 'd', SG }, { "sigaltstack", "pp", 'd', SG },
	{ "rt_sigsuspend", "pU", 'd', SG }, { "pause", "", 'd', SG },
	{ "kill", "dS", 'd', SG | P }, { "tkill", "dS", 'd', SG | P },
	{ "tgkill", "ddS", 'd', SG | P },
	{ "ioctl", "fIx", 'd', DS }, { "access", "sK", 'd', F }, { "faccessat", "DsK", 'd', F | DS },
	{ "faccessat2", "DsKA", 'd', F | DS }, { "pipe", "p", 'd', DS }, { "pipe2", "po", 'd', DS },
	{ "dup", "f", 'd', DS }, { "dup2", "ff", 'd', DS }, { "dup3", "ffo", 'd', DS },
	{ "nanosleep", "pp", 'd', 0 }, { "clock_nanosleep", "cTpp", 'd', 0 },
	{ "clock_gettime", "cp", 'd', 0 }, { "clock_getres", "cp", 'd', 0 },
	{ "gettimeofday", "pp", 'd', 0 }, { "time", "p", 'd', 0 },
	{ "getpid", "", 'd', 0 }, { "getppid", "", 'd', 0 }, { "gettid", "", 'd', 0 },
	{ "getuid", "", 'd', 0 }, { "geteuid", "", 'd', 0 }, { "getgid", "", 'd', 0 },
	{ "getegid", "", 'd', 0 }, { "getpgrp", "", 'd', 0 }, { "setsid", "", 'd', 0 },
	{ "getpgid", "d", 'd', 0 }, { "setpgid", "dd", 'd', 0 }, { "getsid", "d", 'd', 0 },
	{ "setuid", "u", 'd', 0 }, { "setgid", "u", 'd', 0 },
	{ "socket", "Nkd", 'd', N | DS }, { "connect", "fpd", 'd', N | DS },
	{ "bind", "fpd", 'd', N | DS }, { "listen", "fd", 'd', N | DS },
	{ "accept", "fpp", 'd', N | DS }, { "accept4", "fppk", 'd', N | DS },
	{ "sendto", "fbUxpd", 'd', N | DS }, { "recvfrom", "fbUxpp", 'd', N | DS },
	{ "shutdown", "fd", 'd', N | DS }, { "socketpair", "Nkdp", 'd', N | DS },
	{ "getsockname", "fpp", 'd', N | DS }, { "getpeername", "fpp", 'd', N | DS },
	{ "clone", "Y", 'd', P }, { "clone3", "pU", 'd', P }, { "fork", "", 'd', P },
	{ "vfork", "", 'd', P }, { "execve", "spp", 'd', F | P },
	{ "execveat", "DsppA", 'd', F | DS | P },
	{ "exit", "d", '?', P }, { "exit_group", "d", '?', P },
	{ "wait4", "dpwp", 'd', P }, { "waitid", "idpwp", 'd', P },
	{ "fcntl", "fC", 'f', DS }, { "flock", "fd", 'd', DS }, { "fsync", "f", 'd', DS },
	{ "fdatasync", "f", 'd', DS }, { "truncate", "sl", 'd', F }, { "ftruncate", "fl", 'd', DS },
	{ "getdents64", "fpu", 'd', DS }, { "getcwd", "pU", 'd', F }, { "chdir", "s", 'd', F },
	{ "fchdir", "f", 'd', DS }, { "rename", "ss", 'd', F }, { "renameat", "DsDs", 'd', F | DS },
	{ "renameat2", "DsDsx", 'd', F | DS }, { "mkdir", "sm", 'd', F },
	{ "mkdirat", "Dsm", 'd', F | DS }, { "rmdir", "s", 'd', F }, { "link", "ss", 'd', F },
	{ "linkat", "DsDsA", 'd', F | DS }, { "unlink", "s", 'd', F },
	{ "unlinkat", "DsR", 'd', F | DS }, { "symlink", "ss", 'd', F },
	{ "symlinkat", "sDs", 'd', F | DS }, { "readlink", "spU", 'd', F },
	{ "readlinkat", "DspU", 'd', F | DS }, { "chmod", "sm", 'd', F }, { "fchmod", "fm", 'd', DS },
	{ "fchmodat", "Dsm", 'd', F | DS }, { "chown", "sdd", 'd', F },
	{ "fchown", "fdd", 'd', DS }, { "lchown", "sdd", 'd', F }, { "umask", "m", 'o', 0 },
	{ "utimensat", "DspA", 'd', F | DS }, { "uname", "p", 'd', 0 }, { "sysinfo", "p", 'd', 0 },
	{ "arch_prctl", "ax", 'd', P }, { "set_tid_address", "p", 'd', 0 },
	{ "set_robust_list", "pU", 'd', 0 }, { "get_robust_list", "dpp", 'd', 0 },
	{ "rseq", "pxdx", 'd', 0 }, { "prlimit64", "dLpp", 'd', 0 }, { "getrlimit", "Lp", 'd', 0 },
	{ "setrlimit", "Lp", 'd', 0 }, { "getrandom", "bUG", 'd', 0 },
	{ "futex", "X", 'd', 0 }, { "sched_yield", "", 'd', 0 },
	{ "sched_getaffinity", "dUp", 'd', 0 }, { "sched_setaffinity", "dUp", 'd', 0 },
	{ "poll", "pud", 'd', DS }, { "ppoll", "pupp", 'd', DS },
	{ "select", "dpppp", 'd', DS }, { "pselect6", "dppppp", 'd', DS },
	{ "epoll_create1", "e", 'd', DS }, { "epoll_ctl", "fEfp", 'd', DS },
	{ "epoll_wait", "fpdd", 'd', DS }, { "epoll_pwait", "fpddpU", 'd', DS },
	{ "eventfd2", "uo", 'd', DS }, { "fadvise64", "fllv", 'd', DS },
	{ "fallocate", "fQll", 'd', DS }, { "sendfile", "ffpU", 'd', DS | N },
	{ "copy_file_range", "fpfpUu", 'd', DS }, { "prctl", "rxxxx", 'd', 0 },
	{ "getgroups", "dp", 'd', 0 }, { "setgroups", "dp", 'd', 0 },
	{ "getresuid", "ppp", 'd', 0 }, { "getresgid", "ppp", 'd', 0 },
	{ "memfd_create", "sx", 'd', DS }, { "mlock", "pU", 'd', MM }, { "munlock", "pU", 'd', MM },
	{ "shmget", "xUx", 'd', IP }, { "shmat", "dpx", 'x', IP | MM }, { "shmdt", "p", 'd', IP | MM },
	{ "semget", "xdx", 'd', IP }, { "msgget", "xx", 'd', IP },
	{ "getxattr", "sspU", 'd', F }, { "lgetxattr", "sspU", 'd', F },
	{ "fgetxattr", "fspU", 'd', DS }, { "listxattr", "spU", 'd', F },
	{ "llistxattr", "spU", 'd', F }, { "getcpu", "ppp", 'd', 0 },
	{ "alarm", "u", 'd', 0 }, { "setitimer", "dpp", 'd', 0 }, { "getitimer", "dp", 'd', 0 },
	{ "sync", "", 'd', 0 }, { "syncfs", "f", 'd', DS }, { "mknodat", "Dsmu", 'd', F | DS },
	{ "pidfd_open", "dx", 'd', DS }, { "pidfd_send_signal", "fSpx", 'd', DS | SG },
};
#undef F
#undef P
#undef N
#undef SG
#undef DS
#undef MM
#undef IP

struct sysdec {
	unsigned strsize;
	int count;
	/* per syscall number: its letters (calls[] or the format's), return, classes */
	const char **args;
	char *ret;
	unsigned char *cls;
	char (*proto)[SYSDEC_MAX_ARGS + 1];
};

/* the text being written: w moves, end is where it must stop (slack left for digits.h) */
struct out {
	char *w, *end;
};

static bool room(struct out *o, size_t n)
{
	return o->w + n + 24 <= o->end;
}

static void put(struct out *o, const char *s, size_t n)
{
	if (!room(o, n))
		n = o->end - o->w > 24 ? (size_t)(o->end - o->w - 24) : 0;
	memcpy(o->w, s, n);
	o->w += n;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_dec(struct out *o, int64_t v)
{
	if (room(o, 0))
		o->w = dec_i64(o->w, v);
}

static void put_udec(struct out *o, uint64_t v)
{
	if (room(o, 0))
		o->w = dec_u64(o->w, v);
}

/* strace's hex: 0 as "0" */
static void put_hex(struct out *o, uint64_t v)
{
	if (!room(o, 0))
		return;
	if (!v)
		*o->w++ = '0';
	else
		o->w = hex0x_at(o->w, v);
}

static void put_ptr(struct out *o, uint64_t v)
{
	if (v)
		put_hex(o, v);
	else
		puts_(o, "NULL");
}

static void put_oct(struct out *o, uint64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%#03llo", (unsigned long long)v);

	put(o, tmp, n);
}

static const char *xlat_find(const struct sysdec_xlat *x, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x[mid].val == v)
			return x[mid].name;
		if (x[mid].val < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
#define XFIND(t, v) xlat_find(xl_##t, sizeof(xl_##t) / sizeof(xl_##t[0]), (v))

/* bits as strace writes them: NAME|NAME|0x..., "0" for none; sep: already written */
static void put_flags_x(struct out *o, const struct sysdec_xlat *x, size_t n, uint64_t v, bool sep)
{
	size_t i;

	for (i = 0; i < n && v; i++) {
		if ((v & x[i].val) != x[i].val)
			continue;
		if (sep)
			put(o, "|", 1);
		puts_(o, x[i].name);
		v &= ~x[i].val;
		sep = true;
	}
	if (v || !sep) {
		if (sep)
			put(o, "|", 1);
		put_hex(o, v);
	}
}
#define PUT_FLAGS(o, t, v, sep) put_flags_x((o), xl_##t, sizeof(xl_##t) / sizeof(xl_##t[0]), (v), (sep))

/* an enum's name, else the number (signed) */
static void put_enum_x(struct out *o, const char *name, int64_t v)
{
	if (name)
		puts_(o, name);
	else
		put_dec(o, v);
}
#define PUT_ENUM(o, t, v) put_enum_x((o), XFIND(t, (uint64_t)(v)), (v))

const char *sysdec_signal_name(int sig)
{
	return XFIND(signal, (uint64_t)sig);
}

static void put_signal(struct out *o, int sig)
{
	const char *name = sysdec_signal_name(sig);

	if (name) {
		puts_(o, name);
	} else if (sig == 32) {
		puts_(o, "SIGRTMIN");
	} else if (sig > 32 && sig <= 64) {
		puts_(o, "SIGRT_");
		put_dec(o, sig - 32);
	} else {
		put_dec(o, sig);
	}
}

int sysdec_signal_nr(const char *name)
{
	size_t i;

	if (!strncasecmp(name, "SIG", 3))
		name += 3;
	for (i = 0; i < sizeof(xl_signal) / sizeof(xl_signal[0]); i++)
		if (!strcasecmp(xl_signal[i].name + 3, name))
			return xl_signal[i].val;
	return -1;
}

const char *sysdec_si_code(int sig, int code)
{
	const char *name = NULL;

	/* a positive code is the signal's own (the kernel's faults, a child's end) */
	if (code > 0) {
		switch (sig) {
		case SIGCHLD: name = XFIND(cld, (uint64_t)code); break;
		case SIGSEGV: name = XFIND(segv, (uint64_t)code); break;
		case SIGBUS: name = XFIND(bus, (uint64_t)code); break;
		case SIGFPE: name = XFIND(fpe, (uint64_t)code); break;
		case SIGILL: name = XFIND(ill, (uint64_t)code); break;
		case SIGTRAP: name = XFIND(trap, (uint64_t)code); break;
		case SIGIO: name = XFIND(poll, (uint64_t)code); break;
		}
	}
	return name ? name : XFIND(si, (uint64_t)(int64_t)code);
}

/* a string as strace quotes it: C escapes, octal for the rest, "..." past max bytes */
static void put_quoted(struct out *o, const char *s, size_t len, size_t max)
{
	static const char esc[] = "\t\n\v\f\r";
	static const char letter[] = "tnvfr";
	size_t i, n = len < max ? len : max;

	if (!room(o, 4 * n + 8)) {
		put(o, "\"\"...", 5);
		return;
	}
	*o->w++ = '"';
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];
		const char *e = c ? strchr(esc, c) : NULL;

		if (e) {
			*o->w++ = '\\';
			*o->w++ = letter[e - esc];
		} else if (c == '"' || c == '\\') {
			*o->w++ = '\\';
			*o->w++ = c;
		} else if (c >= ' ' && c < 0x7f) {
			*o->w++ = c;
		} else {
			bool full = i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7';

			*o->w++ = '\\';
			if (full || c >= 64)
				*o->w++ = '0' + (c >> 6);
			if (full || c >= 8)
				*o->w++ = '0' + ((c >> 3) & 7);
			*o->w++ = '0' + (c & 7);
		}
	}
	*o->w++ = '"';
	if (len > max)
		put(o, "...", 3);
}

/* O_RDONLY|O_CLOEXEC: the access mode, then the flags */
static void put_open(struct out *o, uint64_t v)
{
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };

	puts_(o, acc[v & 3]);
	if (v & ~3ULL)
		PUT_FLAGS(o, open, v & ~3ULL, true);
}

/* MAP_PRIVATE|MAP_ANONYMOUS: the type, then the flags */
static void put_mmap(struct out *o, uint64_t v)
{
	const char *type = XFIND(maptype, v & 0xf);

	if (type)
		puts_(o, type);
	else
		put_hex(o, v & 0xf);
	if (v & ~0xfULL)
		PUT_FLAGS(o, map, v & ~0xfULL, true);
}

/* flags with a signal in the low byte (clone): CLONE_...|SIGCHLD */
static void put_clone_flags(struct out *o, uint64_t v)
{
	bool sep = false;

	if (v & ~0xffULL) {
		PUT_FLAGS(o, clone, v & ~0xffULL, false);
		sep = true;
	}
	if ((v & 0xff) || !sep) {
		if (sep)
			put(o, "|", 1);
		put_signal(o, v & 0xff);
	}
}

/* x86_64's clone(flags, stack, parent_tid, child_tid, tls), as strace names them */
static void put_clone(struct out *o, const uint64_t *a)
{
	puts_(o, "child_stack=");
	put_ptr(o, a[1]);
	puts_(o, ", flags=");
	put_clone_flags(o, a[0]);
	if (a[0] & (CLONE_PARENT_SETTID | CLONE_PIDFD)) {
		puts_(o, ", parent_tid=");
		put_ptr(o, a[2]);
	}
	if (a[0] & (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID)) {
		puts_(o, ", child_tidptr=");
		put_ptr(o, a[3]);
	}
	if (a[0] & CLONE_SETTLS) {
		puts_(o, ", tls=");
		put_ptr(o, a[4]);
	}
}

/* statx's flags: the sync type first, as strace writes it */
static void put_statx_at(struct out *o, uint64_t v)
{
	puts_(o, "AT_STATX_SYNC_AS_STAT");
	if (v)
		PUT_FLAGS(o, at, v, true);
}

/* a string argument: what the kernel fetched, else the address (as strace an unreadable one) */
static void put_string(const struct sysdec *d, struct out *o, const struct sysdec_call *c, int i,
		       bool data)
{
	if (!c->str[i]) {
		put_ptr(o, c->args[i]);
		return;
	}
	put_quoted(o, c->str[i], c->strlen[i], data ? d->strsize : 4096);
}

/* fcntl's command and the argument it takes (none for the F_GET* ones) */
static void put_fcntl(struct out *o, const uint64_t *a)
{
	int cmd = (int)a[1];

	PUT_ENUM(o, fcntl, cmd);
	switch (cmd) {
	case F_GETFD: case F_GETFL: case F_GETOWN: case F_GETSIG: case F_GETLEASE:
	case F_GETPIPE_SZ: case F_GET_SEALS:
		return;
	case F_SETFD:
		puts_(o, ", ");
		PUT_FLAGS(o, fdflags, a[2], false);
		return;
	case F_SETFL:
		puts_(o, ", ");
		put_open(o, a[2]);
		return;
	case F_GETLK: case F_SETLK: case F_SETLKW: case F_OFD_GETLK: case F_OFD_SETLK:
	case F_OFD_SETLKW: case F_GETOWN_EX: case F_SETOWN_EX:
		puts_(o, ", ");
		put_ptr(o, a[2]);
		return;
	default:
		puts_(o, ", ");
		put_dec(o, (int)a[2]);
	}
}

/* futex(addr, op, val[, timeout[, bitset]]): the arguments its command uses */
static void put_futex(struct out *o, const uint64_t *a)
{
	int op = (int)a[1], cmd = op & FUTEX_CMD_MASK;
	const char *name = XFIND(futex, (uint64_t)(op & ~FUTEX_CLOCK_REALTIME));

	put_ptr(o, a[0]);
	puts_(o, ", ");
	put_enum_x(o, name, op & ~FUTEX_CLOCK_REALTIME);
	if (op & FUTEX_CLOCK_REALTIME)
		puts_(o, "|FUTEX_CLOCK_REALTIME");
	puts_(o, ", ");
	put_dec(o, (int)a[2]);
	if (cmd == FUTEX_WAKE)
		return;
	if (cmd == FUTEX_WAKE_BITSET || cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET) {
		if (cmd != FUTEX_WAKE_BITSET) {
			puts_(o, ", ");
			put_ptr(o, a[3]);
		}
		if (cmd == FUTEX_WAIT)
			return;
		puts_(o, ", ");
		if ((uint32_t)a[5] == 0xffffffff)
			puts_(o, "FUTEX_BITSET_MATCH_ANY");
		else
			put_hex(o, (uint32_t)a[5]);
		return;
	}
	for (int i = 3; i < 6; i++) {
		puts_(o, ", ");
		put_hex(o, a[i]);
	}
}

/* prctl's option and, for those strace knows, the arguments it takes (else four in hex) */
static bool put_prctl(struct out *o, const uint64_t *a)
{
	PUT_ENUM(o, prctl, (int)a[0]);
	if ((int)a[0] != PR_SET_NAME && (int)a[0] != PR_GET_NAME)
		return true;
	/* the name: a string behind an unsigned long, never fetched */
	puts_(o, ", ");
	put_ptr(o, a[1]);
	return false;
}

/* one argument by its letter; false: strace prints no more arguments */
static bool put_arg(const struct sysdec *d, struct out *o, const struct sysdec_call *c, int i,
		    char k)
{
	uint64_t v = c->args[i];

	switch (k) {
	case 'd': case 'f': put_dec(o, (int32_t)v); break;
	case 'u': put_udec(o, (uint32_t)v); break;
	case 'l': put_dec(o, (int64_t)v); break;
	case 'U': put_udec(o, v); break;
	case 'x': put_hex(o, v); break;
	case 'p': put_ptr(o, v); break;
	case 's': put_string(d, o, c, i, false); break;
	case 'b': put_string(d, o, c, i, true); break;
	case 'D':
		if ((int32_t)v == AT_FDCWD)
			puts_(o, "AT_FDCWD");
		else
			put_dec(o, (int32_t)v);
		break;
	case 'O': put_open(o, v); break;
	case 'o': PUT_FLAGS(o, open, v, false); break;
	case 'm': put_oct(o, v); break;
	case 'M':
		if (!(c->args[i - 1] & O_CREAT) && (c->args[i - 1] & O_TMPFILE) != O_TMPFILE)
			return false;
		put_oct(o, v);
		break;
	case 'P':
		if (v)
			PUT_FLAGS(o, prot, v, false);
		else
			puts_(o, "PROT_NONE");
		break;
	case 'F': put_mmap(o, v); break;
	case 'S': put_signal(o, (int)v); break;
	case 'H': PUT_ENUM(o, sigprocmask, (int)v); break;
	case 'A': PUT_FLAGS(o, at, (uint32_t)v, false); break;
	case 'R': PUT_FLAGS(o, unlinkat, (uint32_t)v, false); break;
	case 'W': PUT_ENUM(o, seek, (int)v); break;
	case 'L': PUT_ENUM(o, rlimit, (int)v); break;
	case 'a': PUT_ENUM(o, archprctl, (int)v); break;
	case 'I': put_enum_x(o, XFIND(ioctl, (uint32_t)v), (uint32_t)v); break;
	case 'c': PUT_ENUM(o, clock, (int)v); break;
	case 'T': PUT_FLAGS(o, timerflags, v, false); break;
	case 'G': PUT_FLAGS(o, grnd, v, false); break;
	case 'w': PUT_FLAGS(o, wait, (uint32_t)v, false); break;
	case 'K':
		if ((uint32_t)v)
			PUT_FLAGS(o, access, v, false);
		else
			puts_(o, "F_OK");
		break;
	case 'V': PUT_ENUM(o, madv, (int)v); break;
	case 'v': PUT_ENUM(o, fadvise, (int)v); break;
	case 'r': return put_prctl(o, c->args);
	case 'N': PUT_ENUM(o, af, (int)v); break;
	case 'k':
		PUT_ENUM(o, socktype, (int)(v & 0xf));
		if (v & ~0xfULL)
			PUT_FLAGS(o, sockflags, (uint32_t)v & ~0xfU, true);
		break;
	case 'Z': put_statx_at(o, (uint32_t)v); break;
	case 'z': PUT_FLAGS(o, statx, (uint32_t)v, false); break;
	case 'E': PUT_ENUM(o, epollctl, (int)v); break;
	case 'e': PUT_FLAGS(o, epollflags, v, false); break;
	case 'Q': PUT_FLAGS(o, falloc, v, false); break;
	case 'i': PUT_ENUM(o, idtype, (int)v); break;
	case 'q': puts_(o, "{mask=...}"); break;	/* the frame's mask: not in the event */
	case 'Y': put_clone(o, c->args); return false;
	case 'C': put_fcntl(o, c->args); return false;
	case 'X': put_futex(o, c->args); return false;
	default: put_hex(o, v);
	}
	return true;
}

size_t sysdec_args(const struct sysdec *d, const struct sysdec_call *c, char *buf, size_t size,
		   size_t *ends, int *nargs)
{
	struct out o = { buf, buf + size };
	const char *k = c->nr >= 0 && c->nr < d->count ? d->args[c->nr] : NULL;
	int i, n = 0;

	if (!k)
		k = "xxxxxx";
	for (i = 0; k[i] && i < SYSDEC_MAX_ARGS; i++) {
		char *start = o.w;

		if (i)
			put(&o, ", ", 2);
		if (!put_arg(d, &o, c, i, k[i])) {
			if (o.w == start + (i ? 2 : 0))
				o.w = start;	/* an argument strace leaves out */
			else if (ends)
				ends[n++] = o.w - buf;
			break;
		}
		if (ends)
			ends[n] = o.w - buf;
		n++;
	}
	if (nargs)
		*nargs = n;
	*o.w = '\0';
	return o.w - buf;
}

/* the kernel's own errno values strace names, with the texts strace gives them */
static const char *errno_text(int err)
{
	switch (err) {
	case 512: return "To be restarted if SA_RESTART is set";
	case 513: return "To be restarted";
	case 514: return "To be restarted if no handler";
	case 515: return "No ioctl command";
	case 516: return "Interrupted by signal";
	}
	return err < 512 ? strerror(err) : NULL;
}

int sysdec_errno(const struct sysdec_call *c)
{
	return c->has_ret && c->ret < 0 && c->ret >= -4095 ? (int)-c->ret : 0;
}

bool sysdec_noreturn(int nr)
{
	const char *name = sysdec_name(nr);

	return name && (!strcmp(name, "exit") || !strcmp(name, "exit_group"));
}

/* -1 ENOENT (No such file or directory); "?" for the kernel's restart values */
static void put_error(struct out *o, int err)
{
	const char *name = errname(err), *text = errno_text(err);

	puts_(o, err >= 512 && err <= 516 ? "? " : "-1 ");
	if (name) {
		puts_(o, name);
	} else {
		puts_(o, "(errno ");
		put_dec(o, err);
		puts_(o, ")");
		text = NULL;
	}
	if (text) {
		puts_(o, " (");
		puts_(o, text);
		puts_(o, ")");
	}
}

/* fcntl's F_GETFD and F_GETFL: the flags after the value */
static void put_fcntl_ret(struct out *o, const struct sysdec_call *c)
{
	int cmd = (int)c->args[1];

	if (cmd == F_GETFD && c->ret) {
		put_hex(o, c->ret);
		puts_(o, " (flags ");
		PUT_FLAGS(o, fdflags, c->ret, false);
		puts_(o, ")");
	} else if (cmd == F_GETFL) {
		put_hex(o, c->ret);
		puts_(o, " (flags ");
		put_open(o, c->ret);
		puts_(o, ")");
	} else {
		put_dec(o, c->ret);
	}
}

size_t sysdec_ret(const struct sysdec *d, const struct sysdec_call *c, char *buf, size_t size)
{
	struct out o = { buf, buf + size };
	char k = c->nr >= 0 && c->nr < d->count ? d->ret[c->nr] : 'd';
	int err = sysdec_errno(c);

	if (!c->has_ret || k == '?')
		puts_(&o, "?");
	else if (err)
		put_error(&o, err);
	else if (k == 'x')
		put_hex(&o, c->ret);
	else if (k == 'o')
		put_oct(&o, c->ret);
	else if (k == 'f')
		put_fcntl_ret(&o, c);
	else
		put_dec(&o, c->ret);
	*o.w = '\0';
	return o.w - buf;
}

int sysdec_nr_count(void)
{
	return SYSDEC_NR_COUNT;
}

const char *sysdec_name(int nr)
{
	return nr >= 0 ? XFIND(nr, (uint64_t)nr) : NULL;
}

int sysdec_nr(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(xl_nr) / sizeof(xl_nr[0]); i++)
		if (!strcmp(xl_nr[i].name, name))
			return xl_nr[i].val;
	return -1;
}

static const struct call_spec *call_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(calls) / sizeof(calls[0]); i++)
		if (!strcmp(calls[i].name, name))
			return &calls[i];
	return NULL;
}

unsigned sysdec_classes(int nr)
{
	const struct call_spec *s = call_find(sysdec_name(nr));

	return s ? s->cls : 0;
}

bool sysdec_has_path(int nr)
{
	const struct call_spec *s = call_find(sysdec_name(nr));

	return s && strchr(s->args, 's');
}

unsigned sysdec_class(const char *name)
{
	static const struct { const char *name; unsigned cls; } names[] = {
		{ "file", SYSDEC_FILE }, { "process", SYSDEC_PROCESS },
		{ "network", SYSDEC_NETWORK }, { "net", SYSDEC_NETWORK },
		{ "signal", SYSDEC_SIGNAL }, { "desc", SYSDEC_DESC },
		{ "memory", SYSDEC_MEMORY }, { "ipc", SYSDEC_IPC },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, name))
			return names[i].cls;
	return 0;
}

/*
 * The words of a set between its commas, each as a string to fn (empty ones
 * skipped); the first that fn refuses, or that is too long to be a name, in
 * *bad and *badlen: -1.
 */
static int set_walk(const char *set, int (*fn)(const char *w, void *ctx), void *ctx,
		    const char **bad, size_t *badlen)
{
	char w[64];
	size_t n;

	for (; *set; set += n + (set[n] == ',')) {
		n = strcspn(set, ",");
		if (!n)
			continue;
		if (n < sizeof(w)) {
			memcpy(w, set, n);
			w[n] = '\0';
		}
		if (n >= sizeof(w) || fn(w, ctx) < 0) {
			*bad = set;
			*badlen = n;
			return -1;
		}
	}
	return 0;
}

struct set_ctx {
	bool *mark;
	uint64_t *mask;
	bool val;
};

static int trace_word(const char *w, void *ctx)
{
	struct set_ctx *c = ctx;
	unsigned cls;
	int nr;

	if (!strcmp(w, "all") || !strcmp(w, "none")) {
		for (nr = 0; nr < SYSDEC_NR_COUNT; nr++)
			c->mark[nr] = !strcmp(w, "all") == c->val;
		return 0;
	}
	if (*w == '%') {
		cls = sysdec_class(w + 1);
		if (!cls)
			return -1;
		for (nr = 0; nr < SYSDEC_NR_COUNT; nr++)
			if (sysdec_classes(nr) & cls)
				c->mark[nr] = c->val;
		return 0;
	}
	nr = sysdec_nr(w);
	if (nr < 0 || nr >= SYSDEC_NR_COUNT)
		return -1;
	c->mark[nr] = c->val;
	return 0;
}

int sysdec_trace_set(const char *set, bool *mark, const char **bad, size_t *badlen)
{
	struct set_ctx c = { .mark = mark, .val = *set != '!' };
	int nr;

	/* a negated set starts from all, a plain one from none */
	for (nr = 0; nr < SYSDEC_NR_COUNT; nr++)
		mark[nr] = !c.val;
	return set_walk(set + !c.val, trace_word, &c, bad, badlen);
}

static int signal_word(const char *w, void *ctx)
{
	struct set_ctx *c = ctx;
	size_t n = strlen(w);
	int sig;

	if (!strcmp(w, "all") || !strcmp(w, "none")) {
		*c->mask = !strcmp(w, "all") == c->val ? ~0ULL : 0;
		return 0;
	}
	sig = sysdec_signal_nr(w);
	if (sig < 0 && n <= 2 && strspn(w, "0123456789") == n)
		sig = atoi(w);
	if (sig <= 0 || sig > 64)
		return -1;
	if (c->val)
		*c->mask |= 1ULL << (sig - 1);
	else
		*c->mask &= ~(1ULL << (sig - 1));
	return 0;
}

int sysdec_signal_set(const char *set, uint64_t *mask, const char **bad, size_t *badlen)
{
	struct set_ctx c = { .mask = mask, .val = *set != '!' };

	*mask = c.val ? 0 : ~0ULL;
	return set_walk(set + !c.val, signal_word, &c, bad, badlen);
}

int sysdec_nargs(const struct sysdec *d, int nr)
{
	return nr >= 0 && nr < d->count && d->args[nr] ? (int)strlen(d->args[nr]) : 6;
}

struct sysdec *sysdec_new(unsigned strsize)
{
	struct sysdec *d = calloc(1, sizeof(*d));
	int nr;

	if (!d)
		return NULL;
	d->strsize = strsize;
	d->count = SYSDEC_NR_COUNT;
	d->args = calloc(d->count, sizeof(*d->args));
	d->ret = calloc(d->count, 1);
	d->proto = calloc(d->count, sizeof(*d->proto));
	if (!d->args || !d->ret || !d->proto) {
		sysdec_free(d);
		return NULL;
	}
	for (nr = 0; nr < d->count; nr++) {
		const struct call_spec *s = call_find(sysdec_name(nr));

		d->ret[nr] = s ? s->ret : 'd';
		d->args[nr] = s ? s->args : NULL;
	}
	return d;
}

void sysdec_free(struct sysdec *d)
{
	if (!d)
		return;
	free(d->args);
	free(d->ret);
	free(d->proto);
	free(d);
}

/* a format field's type as a letter: pointer, int, unsigned int, long, unsigned long */
static char type_letter(const char *t)
{
	static const char *const u32[] = { "unsigned int", "u32", "uid_t", "gid_t", "umode_t",
					   "qid_t", "old_uid_t", "old_gid_t", "__u32", NULL };
	static const char *const i32[] = { "int", "pid_t", "clockid_t", "timer_t", "key_t",
					   "mqd_t", "key_serial_t", "rwf_t", "__s32", NULL };
	int i;

	if (strchr(t, '*'))
		return 'p';
	for (i = 0; u32[i]; i++)
		if (!strcmp(t, u32[i]))
			return 'u';
	for (i = 0; i32[i]; i++)
		if (!strcmp(t, i32[i]))
			return 'd';
	if (strstr(t, "unsigned") || strstr(t, "size_t") || strstr(t, "u64"))
		return 'U';
	return 'l';
}

int sysdec_proto(struct sysdec *d, int nr, int nargs, const char *const *types)
{
	int i;

	if (nr < 0 || nr >= d->count || nargs < 0 || nargs > SYSDEC_MAX_ARGS)
		return -1;
	if (call_find(sysdec_name(nr)))
		return 0;	/* strace's way is known */
	for (i = 0; i < nargs; i++)
		d->proto[nr][i] = type_letter(types[i] ? types[i] : "");
	d->proto[nr][nargs] = '\0';
	d->args[nr] = d->proto[nr];
	return 0;
}
