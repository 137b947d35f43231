/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysdec - a system call as strace writes it, from numbers only: the
 * syscall's number, its six raw arguments, the strings the kernel fetched
 * (or none) and its return value in; strace's text of the arguments and of
 * the return value out, and the names the JSON of `tpctl strace` carries.
 * No tracefs, no I/O: tests/fuzz/fuzz_sysdec.c feeds it anything.
 *
 * The tables (syscall names, signals, the flags and constants of open,
 * mmap, clone, fcntl, ...) are made by src/gen/sysdec_gen.py from this
 * system's headers; errno names are errname.c's, the one table of them.  How each syscall prints its arguments (which is a path,
 * which the flags of open) is strace's choice, in sysdec.c; a syscall that
 * table does not know prints its arguments as the types of its tracepoint
 * format say (sysdec_proto()): numbers and addresses, never a wrong name.
 *
 *	struct sysdec *d = sysdec_new(32);		strings cut at 32 bytes (-s)
 *	sysdec_proto(d, nr, nargs, types);		per format file, optional
 *	struct sysdec_call c = { .nr = 257, .args = {...}, .ret = 3 };
 *	n = sysdec_args(d, &c, buf, sizeof(buf), ends);	"AT_FDCWD, 0x7f..., O_RDONLY"
 *	n = sysdec_ret(d, &c, buf, sizeof(buf));	"3", "-1 ENOENT (No such file...)"
 */
#ifndef TPCTL_SYSDEC_H
#define TPCTL_SYSDEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SYSDEC_MAX_ARGS 6
/* the room sysdec_args() and sysdec_ret() need at most, less the strings */
#define SYSDEC_ROOM 1024

struct sysdec;

struct sysdec_call {
	int nr;
	uint64_t args[SYSDEC_MAX_ARGS];
	/* what the kernel fetched behind a pointer argument, or NULL: the address */
	const char *str[SYSDEC_MAX_ARGS];
	size_t strlen[SYSDEC_MAX_ARGS];
	int64_t ret;
	bool has_ret;		/* false: not returned yet (or never: exit) */
};

/* strace's classes (-e trace=%file ...) */
enum {
	SYSDEC_FILE = 1 << 0,
	SYSDEC_PROCESS = 1 << 1,
	SYSDEC_NETWORK = 1 << 2,
	SYSDEC_SIGNAL = 1 << 3,
	SYSDEC_DESC = 1 << 4,
	SYSDEC_MEMORY = 1 << 5,
	SYSDEC_IPC = 1 << 6,
};

/* strsize: -s, the bytes of a string printed before "..." */
struct sysdec *sysdec_new(unsigned strsize);
void sysdec_free(struct sysdec *d);

/*
 * The arguments of syscall nr as its tracepoint format declares them (the
 * types of its fields after __syscall_nr, "const char *", "int", ...):
 * what a syscall sysdec.c does not know prints from.  0, or -1 for a bad nr.
 */
int sysdec_proto(struct sysdec *d, int nr, int nargs, const char *const *types);

/* The highest syscall number + 1 the tables know */
int sysdec_nr_count(void);
/* Syscall nr's name, or NULL where no header names it */
const char *sysdec_name(int nr);
/* The number of a syscall's name, or -1 */
int sysdec_nr(const char *name);
/* Its strace classes (SYSDEC_*) */
unsigned sysdec_classes(int nr);
/* strace prints an argument of nr as a path (a NUL-terminated string it reads) */
bool sysdec_has_path(int nr);
/* A class's name without '%' ("file"), or 0 when there is none by that name */
unsigned sysdec_class(const char *name);
/*
 * -e trace=SET as strace takes it: syscall names, %classes (sysdec_class()),
 * all and none, separated by commas; a leading '!' for all but SET.  Each
 * mark[nr] (sysdec_nr_count() of them) says whether nr is traced.  0, or -1
 * with the word that is none of these in *bad (not NUL-terminated), *badlen.
 */
int sysdec_trace_set(const char *set, bool *mark, const char **bad, size_t *badlen);
/*
 * -e signal=SET: signal names (with or without SIG), numbers 1-64, all and
 * none; '!' for all but SET.  Bit N-1 of *mask for signal N.  0, or -1 as above.
 */
int sysdec_signal_set(const char *set, uint64_t *mask, const char **bad, size_t *badlen);
/* The arguments strace prints for nr (its table's, else the format's, else 6) */
int sysdec_nargs(const struct sysdec *d, int nr);

/*
 * The arguments, as strace writes them between the parentheses, into buf
 * (size: at least SYSDEC_ROOM + 4 * strsize per string): the length.  ends,
 * when not NULL, gets the end of each argument's text (its start is the
 * previous end + 2); returns the count of arguments in *nargs.
 */
size_t sysdec_args(const struct sysdec *d, const struct sysdec_call *c, char *buf, size_t size,
		   size_t *ends, int *nargs);
/* The return value after " = ": "3", "0x7f...", "?", "-1 ENOENT (No such file or directory)" */
size_t sysdec_ret(const struct sysdec *d, const struct sysdec_call *c, char *buf, size_t size);
/* The call failed: its errno (> 0), else 0 */
int sysdec_errno(const struct sysdec_call *c);
/* The syscall does not return (exit, exit_group): " = ?" */
bool sysdec_noreturn(int nr);

/* A signal's name ("SIGCHLD"); NULL for a number no header names (errno's: errname.h) */
const char *sysdec_signal_name(int sig);
/* A signal's number from its name, with or without SIG; -1 */
int sysdec_signal_nr(const char *name);
/* strace's text of a signal's si_code for the --- SIG --- line ("SI_USER", "CLD_EXITED") */
const char *sysdec_si_code(int sig, int code);

#endif
