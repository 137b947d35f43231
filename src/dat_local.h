/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dat_local - what dat.c (the writers) and dat_read.c (the checks a file
 * passes before it is read) share: the ids of the file's options and
 * sections, and the reader's limits.  dat.h is the interface.
 */
#ifndef TPCTL_DAT_LOCAL_H
#define TPCTL_DAT_LOCAL_H

/* Option ids of trace-cmd.dat.v6(5) and v7(5); in version 7, 16-21 are section ids too. */
enum {
	OPT_DONE = 0,
	OPT_CPUSTAT = 2,
	OPT_BUFFER = 3,
	OPT_TRACECLOCK = 4,
	OPT_UNAME = 5,
	OPT_HOOK = 6,
	OPT_CPUCOUNT = 8,
	OPT_VERSION = 9,
	OPT_PROCMAPS = 10,
	OPT_GUEST = 13,
	SEC_STRINGS = 15,
	SEC_HEADER_INFO = 16,
	SEC_FTRACE = 17,
	SEC_EVENTS = 18,
	SEC_KALLSYMS = 19,
	SEC_PRINTK = 20,
	SEC_CMDLINES = 21,
	OPT_BUFFER_TEXT = 22,
};

/* Section flag of version 7: the section's content is compressed. */
#define SEC_COMPRESSED 1
/* Section header: id (2), flags (2), description string id (4), size (8). */
#define SEC_HDR 16

/* A reader's limits for what a file asks it to allocate. */
#define MAX_SECTION (1ULL << 30)
#define MAX_CHUNK (64U << 20)
#define MAX_CPUS 65536

#endif
