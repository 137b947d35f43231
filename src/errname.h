/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * errname - errno names ("ENOENT") from a table the build generates from the
 * system's headers (src/gen/errname_gen.sh: linux/errno.h, and the kernel's
 * own ERESTARTSYS... where its headers are installed), for a syscall's
 * return value as strace names it.  One table for every user.
 *
 * A leaf: nothing here calls into the rest of tpctl.
 */
#ifndef TPCTL_ERRNAME_H
#define TPCTL_ERRNAME_H

#include <stdint.h>

/* No name is longer (errname.c checks the generated table against it). */
#define ERRNAME_LEN_MAX 23

/* The name of errno e (ENOENT for 2); NULL for a number no header names. */
const char *errname(int64_t e);
/*
 * The name of the error a syscall's return value ret says (-2: "ENOENT"),
 * as the kernel's IS_ERR_VALUE reads it (-4095 to -1); NULL when ret is not
 * an error or no header names it.
 */
static inline const char *errname_ret(int64_t ret)
{
	return ret < 0 && ret >= -4095 ? errname(-ret) : NULL;
}

#endif
