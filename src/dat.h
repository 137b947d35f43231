/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dat - everything tpctl knows about trace-cmd "trace.dat" files: the writers
 * of version 6 (trace-cmd.dat.v6(5), uncompressed) and version 7
 * (trace-cmd.dat.v7(5), zstd-compressed sections and pages), both read by
 * trace-cmd 3.x and KernelShark, and the reader that checks a file of either
 * version before libtracecmd is let at it and hands out its metadata.
 *
 * The writers never touch tracefs: the caller hands them the metadata (text
 * of header_page, header_event, formats, printk_formats, saved_cmdlines) and
 * raw ring-buffer pages, so they also work from saved files.
 *
 * Both layouts are chosen so that a file cut off at any point (SIGKILL, full
 * disk) is still a valid trace.dat holding every page that was committed.
 *
 * Version 6:
 *   header, formats, kallsyms, printk formats
 *   saved cmdlines          reserved space, rewritten in place at the end
 *   options                 CPUSTAT options with reserved space, likewise
 *   "flyrecord" table       per-CPU (offset, size), size patched after pages
 *   CPU 0 region            each CPU writes into its own region of a sparse
 *   CPU 1 region            file (far apart), so that every CPU's data is
 *   ...                     contiguous as the format requires
 *
 * dat_cpu_commit() patches the CPU's size in the table only after its pages
 * are in the file, so the table never covers an incomplete page.
 * dat_finish() then moves the regions together (each move is followed by
 * the patch of that CPU's offset, so a kill during the move still leaves a
 * valid file) and truncates the file to its real length.
 *
 * Version 7 keeps the same idea with sections:
 *   header, compression "zstd"
 *   strings, header info, ftrace and event formats, kallsyms, printk
 *   formats, saved cmdlines (at start)      sections, compressed
 *   options                 clock, uname, CPU count, and the BUFFER option
 *                           holding the per-CPU (offset, size) table
 *   flyrecord section       its size spans every region until the end
 *   CPU regions             per CPU: chunk count, then chunks of pages,
 *                           each compressed on its own
 * A chunk is written, then the CPU's size in the BUFFER option covers it,
 * then the chunk count counts it: a reader sees only whole chunks.  Pages
 * wait in memory until a chunk is full or dat_cpu_flush() is called.
 * dat_finish() moves the regions together, truncates, and appends the final
 * saved cmdlines and a second options section (CPUSTAT), linked last.
 *
 * Threads: the dat_cpu_*() calls of different CPUs may run at the same time
 * (each CPU has its own descriptor, compressor and buffers, and the table
 * entries they patch are apart); one CPU's calls, and everything else, from
 * one thread at a time.
 */
#ifndef TPCTL_DAT_H
#define TPCTL_DAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct dat_writer;

/* The file version record writes unless told otherwise. */
#define DAT_VERSION_DEFAULT 7

/* One format file: events/<system>/<name>/format. */
struct dat_format {
	const char *system;
	const char *name;
	const char *text;
	size_t len;
};

struct dat_info {
	int version;			/* 6 or 7; 0 is DAT_VERSION_DEFAULT */
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
	const char *version_text;	/* writer version string, or NULL */
};

/*
 * Create path (truncating it) and write the header.  Returns NULL with
 * errno set on failure.
 */
struct dat_writer *dat_create(const char *path, const struct dat_info *info);
int dat_version(const struct dat_writer *w);

/*
 * Version 6 only (-1 for version 7): a file descriptor whose position is the
 * end of cpu's committed data: pages may be written (or spliced) to it
 * directly, then dat_cpu_commit() makes them part of the file.  Every CPU
 * has its own descriptor.
 */
int dat_cpu_fd(struct dat_writer *w, int cpu);
/* Publish what was written to the cpu's fd (whole pages only). 0 or -1/errno. */
int dat_cpu_commit(struct dat_writer *w, int cpu);
/*
 * Add len bytes (whole pages) of cpu's data.  Version 6 writes and commits
 * them; version 7 compresses and commits every full chunk, and keeps the
 * rest for the next call or dat_cpu_flush().  0 or -1/errno.
 */
int dat_cpu_write(struct dat_writer *w, int cpu, const void *pages, size_t len);
/* Version 7: commit the pages kept back as a (short) chunk. 0 or -1/errno. */
int dat_cpu_flush(struct dat_writer *w, int cpu);
/* Bytes of committed data for cpu, as stored (compressed for version 7). */
uint64_t dat_cpu_size(struct dat_writer *w, int cpu);
/* Bytes of ring-buffer pages committed for cpu, before compression. */
uint64_t dat_cpu_pages_size(struct dat_writer *w, int cpu);

/* The per_cpu/cpuN/stats text, stored as a CPUSTAT option (truncated to fit). */
int dat_set_cpustat(struct dat_writer *w, int cpu, const char *stats);
/* saved_cmdlines at the end of the recording (version 6: truncated at a line to fit). */
int dat_set_cmdlines(struct dat_writer *w, const char *text, size_t len);

/* Commit what is kept back, move the CPU data together, close. Frees w. 0 or -1/errno. */
int dat_finish(struct dat_writer *w);
/* Close without finishing (the file stays valid up to the last commit). Frees w. */
void dat_close(struct dat_writer *w);

/*
 * Reading.  dat_open() checks what libtracecmd 3.1.6 trusts without
 * checking (the header, option strings, where the CPU data and compressed
 * chunks lie) and hands out the metadata, decompressed, so that a reader
 * can set up its own tep.  Errors are reported with tp_error() in tpctl's
 * words; the return value is TP_OK or TP_FAIL.
 */
struct dat_file_format {
	const char *system;	/* NUL-terminated */
	const char *text;	/* not NUL-terminated: len bytes */
	size_t len;
	int id;			/* the format's ID: line, -1 when it has none */
};

struct dat_file {
	int version;			/* 6 or 7 */
	uint32_t page_size;
	uint64_t file_len;
	const char *compression;	/* version 7: "zstd" or "none" */
	const char *header_page;	/* NULL when absent */
	size_t header_page_len;
	const char *kallsyms, *printk, *cmdlines;
	size_t kallsyms_len, printk_len, cmdlines_len;
	const char *uname;		/* the UNAME option, NUL-terminated, or NULL */
	struct dat_file_format *fmts;
	size_t nfmts;
	/* private */
	const unsigned char *map;
	size_t map_len;
	void **owned;
	size_t nowned;
};

int dat_open(const char *path, struct dat_file *df);
/*
 * libtracecmd's handle of a file dat_open() checked, opened without letting
 * the libraries print on stdout; NULL after one error line.
 */
struct tracecmd_input;
struct tracecmd_input *dat_tracecmd_open(const char *path);
void dat_file_close(struct dat_file *df);

/*
 * The parts of a UNAME option.  tpctl writes "sysname release version
 * machine", trace-cmd "sysname nodename release machine": the release is
 * the first word after the sysname that starts with "N.N".  Missing parts
 * are empty strings.  false when text has no release.
 */
struct dat_uname {
	char sysname[65];
	char release[65];
	char version[257];
	char machine[65];
};
bool dat_uname_parse(const char *text, struct dat_uname *u);

#endif
