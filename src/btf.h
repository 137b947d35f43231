/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btf - the values of the running kernel's enum constants, from its BTF
 * (/sys/kernel/btf/vmlinux, or the file $TPCTL_BTF names), through libbpf.
 * Print fmts name the constants the kernel did not resolve (HRTIMER_MODE_ABS,
 * IOPRIO_CLASS_BE, I_DIRTY_SYNC); with their values, libtraceevent prints
 * what the kernel prints.  Loaded on the first lookup; without BTF every
 * lookup fails quietly and formats stay as they are.
 */
#ifndef TPCTL_BTF_H
#define TPCTL_BTF_H

#include <stdbool.h>
#include <stddef.h>

/* The value of the enum constant name[0..len) (a decode_names.constant). */
bool btf_enum_value(const char *name, size_t len, unsigned long long *value, void *ctx);
/* Whether a lookup has loaded the BTF (for tests of laziness). */
bool btf_loaded(void);

#endif
