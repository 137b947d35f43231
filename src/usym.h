/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * usym - names for the frames of user stacks, from the live process: its
 * mappings (/proc/PID/maps) and the symbol tables of the ELF files mapped
 * there, through elfutils' libdwfl.
 *
 * Best effort, by nature of a live lookup: a process that has exited by the
 * time its stack is written has no mappings left to read, and a pid the
 * kernel has given to a new process since would name the new one's frames
 * (the executable is checked again at most every second, which catches an
 * exec).  Only the files' own tables (.symtab, else .dynsym) are read:
 * separate debug info is not looked for, and nothing is fetched from the
 * network.  /proc/PID must be the traced task's (the same pid namespace).
 */
#ifndef TPCTL_USYM_H
#define TPCTL_USYM_H

#include <stdbool.h>
#include <stdint.h>

struct usym;

struct usym *usym_new(void);
void usym_free(struct usym *u);
/*
 * The symbol holding addr in process tgid, or NULL.  ret: addr is a return
 * address (every frame but the first), so the call before it is looked up.
 * *off: addr's distance from the symbol; *obj: the mapped file's path.
 */
const char *usym_lookup(struct usym *u, int tgid, uint64_t addr, bool ret,
			unsigned long long *off, const char **obj);

#endif
