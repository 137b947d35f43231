/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tfs_local - what the tfs_*.c files share, nothing else: the hint added to
 * a permission error, and the journaled write of an event's file.
 */
#ifndef TPCTL_TFS_LOCAL_H
#define TPCTL_TFS_LOCAL_H

#include "state.h"
#include "tfs.h"

/* "; run as root, ..." for EACCES and EPERM, else "". */
const char *tfs_perm_hint(int err);
/* val into events/<sys>/<event>/<file> of inst through the journal (kind); -1 with errno. */
int tfs_event_write(struct tracefs_instance *inst, const struct tfs_event *ev,
		    const char *file, const char *val, enum state_kind kind);

#endif
