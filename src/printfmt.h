/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * printfmt - the argument expressions of a format's "print fmt:" line, read
 * with a small C expression parser, and the text rewrites the decode layer
 * makes before libtraceevent parses them.  Part of the decode layer: it
 * works on bytes only; what it cannot know from the format (the values of
 * enum constants, kernel variables) comes in through struct decode_names.
 */
#ifndef TPCTL_PRINTFMT_H
#define TPCTL_PRINTFMT_H

#include <stddef.h>

struct decode_names;

enum {
	/* a raw tab inside a string literal becomes "\t" (libtraceevent stops at it) */
	PF_ESCAPE = 1 << 0,
	/* enum constants the format leaves as names become their values */
	PF_CONSTANTS = 1 << 1,
	/* kernel variables become calls of the __tpctl_kvar() print helper */
	PF_VARIABLES = 1 << 2,
	/* operands that are operator expressions get a "(u64)" cast, see printfmt.c */
	PF_OPERANDS = 1 << 3,
	/* an unknown name as a __print_flags() value becomes 0, see printfmt.c */
	PF_FLAGS_ZERO = 1 << 4,
};

/*
 * The whole format text with its print fmt rewritten as flags say, or NULL
 * when nothing changes (or the print fmt cannot be read).  Caller frees.
 */
char *printfmt_rewrite(const char *buf, size_t len, const struct decode_names *names,
		       unsigned flags);

/*
 * The whole format text with the conversions libtraceevent would print
 * otherwise than the kernel rewritten: %pS, %ps, %pB (and %pF, %pf) print a
 * symbol through the __tpctl_sym* helpers around their arguments, a bare %p
 * as "%016lx", "%#x" with the kernel's prefix.  NULL when nothing changes
 * (or the print fmt cannot be read).  Caller frees.
 */
char *printfmt_convert(const char *buf, size_t len);
/*
 * How each conversion of the format (counting "*" arguments) prints a
 * symbol, an enum dec_sym into how[PRINTFMT_MAX_CONV]: their number, or -1
 * when printfmt_convert() would change none.
 */
#define PRINTFMT_MAX_CONV 64
int printfmt_convs(const char *buf, size_t len, unsigned char *how);

/* The name of kernel variable n of __tpctl_kvar(n), or NULL. */
const char *printfmt_kvar_name(unsigned long long n);

#endif
