/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dat - writer of trace-cmd "trace.dat" files, version 6 (see
 * trace-cmd.dat.v6(5)): uncompressed, read by trace-cmd 3.x and KernelShark.
 * The writer never touches tracefs: the caller hands it the metadata (text
 * of header_page, header_event, formats, printk_formats, saved_cmdlines) and
 * raw ring-buffer pages, so it also works from saved files.
 *
 * Layout, chosen so that a file cut off at any point (SIGKILL, full disk) is
 * still a valid trace.dat holding every page that was committed:
 *
 *   header, formats, kallsyms, printk formats
 *   saved cmdlines          reserved space, rewritten in place at the end
 *   options                 CPUSTAT options with reserved space, likewise
 *   "flyrecord" table       per-CPU (offset, size), size patched after pages
 *   CPU 0 region            each CPU writes into its own region of a sparse
 *   CPU 1 region            file (DAT_REGION bytes apart), so that every
 *   ...                     CPU's data is contiguous as version 6 requires
 *
 * dat_cpu_commit() patches the CPU's size in the table only after its pages
 * are in the file, so the table never covers an incomplete page.
 * dat_finish() then moves the regions together (each move is followed by
 * the patch of that CPU's offset, so a kill during the move still leaves a
 * valid file) and truncates the file to its real length.
 */
#ifndef TPCTL_DAT_H
#define TPCTL_DAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct dat_writer;

/* One format file: events/<system>/<name>/format. */
struct dat_format {
	const char *system;
	const char *name;
	const char *text;
	size_t len;
};

struct dat_info {
	int ncpus;			/* CPUs with a ring buffer (per_cpu/cpuN) */
	unsigned int page_size;		/* ring-buffer sub-buffer size */
	const char *header_page;	/* events/header_page */
	size_t header_page_len;
	const char *header_event;	/* events/header_event */
	size_t header_event_len;
	/* ftrace's own formats (events/ftrace/...) */
	const struct dat_format *ftrace;
	size_t nftrace;
	/* The recorded events' formats, grouped by system (same systems adjacent). */
	const struct dat_format *events;
	size_t nevents;
	const char *kallsyms;		/* /proc/kallsyms text, or NULL */
	size_t kallsyms_len;
	const char *printk;		/* printk_formats text, or NULL */
	size_t printk_len;
	const char *cmdlines;		/* saved_cmdlines at start, or NULL */
	size_t cmdlines_len;
	const char *clock;		/* trace_clock content, or NULL */
	const char *uname;		/* "sysname release version machine", or NULL */
	const char *version;		/* writer version string, or NULL */
};

/*
 * Create path (truncating it) and write the header.  Returns NULL with
 * errno set on failure.
 */
struct dat_writer *dat_create(const char *path, const struct dat_info *info);

/*
 * A file descriptor whose position is the end of cpu's committed data: pages
 * may be written (or spliced) to it directly, then dat_cpu_commit() makes
 * them part of the file.  Every CPU has its own descriptor.
 */
int dat_cpu_fd(struct dat_writer *w, int cpu);
/* Publish what was written to the cpu's fd (whole pages only). 0 or -1/errno. */
int dat_cpu_commit(struct dat_writer *w, int cpu);
/* Convenience for saved pages: write len bytes (whole pages) and commit. */
int dat_cpu_write(struct dat_writer *w, int cpu, const void *pages, size_t len);
/* Bytes of committed data for cpu. */
uint64_t dat_cpu_size(struct dat_writer *w, int cpu);

/* The per_cpu/cpuN/stats text, stored as a CPUSTAT option (truncated to fit). */
int dat_set_cpustat(struct dat_writer *w, int cpu, const char *stats);
/* saved_cmdlines at the end of the recording (truncated at a line to fit). */
int dat_set_cmdlines(struct dat_writer *w, const char *text, size_t len);

/* Move the CPU data together, truncate, close. Frees w. 0 or -1/errno. */
int dat_finish(struct dat_writer *w);
/* Close without finishing (the file stays valid up to the last commit). Frees w. */
void dat_close(struct dat_writer *w);

#endif
