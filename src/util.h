/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util - what util.c defines for every layer: global options, exit statuses,
 * messages, number and duration parsing, arrays that grow, whole-file reads,
 * the clock.  The commands are declared in cmd.h, which only tpctl.c and the
 * cmd_*.c files include.
 */
#ifndef TPCTL_UTIL_H
#define TPCTL_UTIL_H

#include <stdbool.h>
#include <stdio.h>

/* Exit statuses, documented in tpctl(1) EXIT STATUS. */
enum {
	TP_OK = 0,	/* success */
	TP_FAIL = 1,	/* the operation failed: kernel refused, I/O error, loss */
	TP_USAGE = 2,	/* usage error: bad option, unknown event, invalid filter */
};

/* Global options, parsed by main() before the command. */
struct tp_global {
	const char *instance;	/* -i NAME, NULL for the top level */
	const char *tracefs;	/* --tracefs DIR, NULL for the mounted one */
	int verbose;		/* -v, may repeat */
	bool quiet;		/* -q: no warnings or notes on stderr */
	const char *cmd;	/* name of the running command, for messages */
	/*
	 * -- COMMAND's exit status (128 + N for signal N) once it ended by
	 * itself; tpctl's own when the command succeeded; 0 otherwise.
	 */
	int command_status;
};

extern struct tp_global tp;

/*
 * Error and warning lines on stderr: "tpctl: <cmd>: <message>".  Lower case,
 * no full stop, names in single quotes.  tp_error() always prints;
 * tp_warn() and tp_note() are silenced by -q, tp_debug() needs -v.
 */
void tp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tp_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tp_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Flush stdout and turn a failed write (ENOSPC, EBADF, ...) into TP_FAIL;
 * a reader that went away (EPIPE) is a quiet TP_OK instead, as is a
 * TP_FAIL the command returned for it.
 */
int tp_finish_stdout(int ret);
/* Standard output is a pipe or socket whose reader is gone. */
bool tp_stdout_gone(void);

/* Parse a non-negative decimal integer; false on junk, sign or overflow. */
bool tp_parse_uint(const char *s, unsigned long long *val);
/*
 * A CPU list ("0,2-3") into cpus[0..ncpu-1]: each listed CPU set to true.
 * False on junk, an empty list or item, a range going down, a CPU >= ncpu.
 */
bool tp_parse_cpus(const char *s, bool *cpus, int ncpu);
/*
 * Durations, one syntax everywhere: a number with a unit (ns, us, ms, s, m,
 * h) or a bare number of seconds ("250ns", "5ms", "1.5s", "2m", "0.5").
 * tp_parse_duration() in ns, tp_parse_seconds() in seconds; false on junk,
 * a sign or an unknown unit.
 */
bool tp_parse_duration(const char *s, unsigned long long *ns);
bool tp_parse_seconds(const char *s, double *val);

/*
 * Make the array *arr of *n elements of size bytes hold at least want, the
 * new ones zeroed; false (the array as it was) when out of memory.
 */
bool tp_array_grow(void *arr, int *n, int want, size_t size);

/*
 * Room for need elements of size bytes in the array *arr (*cap of them
 * now), its capacity doubled from first as far as needed, the new room not
 * zeroed; false (the array as it was) when out of memory.  Inline where
 * there is room: buffers filled record by record call it per record.
 */
bool tp_reserve_grow(void *arr, size_t *cap, size_t need, size_t size, size_t first);
static inline bool tp_reserve(void *arr, size_t *cap, size_t need, size_t size, size_t first)
{
	return need <= *cap || tp_reserve_grow(arr, cap, need, size, first);
}

/*
 * A whole file, read to its end (procfs and tracefs files report size 0),
 * NUL-terminated; its length in *len unless len is NULL.  NULL with errno
 * set on failure.
 */
char *tp_read_file(const char *path, size_t *len);

/*
 * tpctl's own libtraceevent plugin dir: $TPCTL_PLUGIN_DIR, else plugins/ beside
 * the binary, else the installed one.
 */
const char *tp_plugin_dir(void);

/*
 * For a command's getopt loop: report the option getopt refused (unknown or
 * missing its argument) and point at --help.  Returns TP_USAGE.
 */
int tp_option_error(char **argv, int opt, const char *long_name);

/* Nanoseconds in a second: timestamps and durations convert through it. */
#define TP_NS_PER_S 1000000000ULL

/* Seconds on CLOCK_MONOTONIC: deadlines, intervals and ticks. */
double tp_now_s(void);

/* "out of memory" as the error line; returns TP_FAIL. */
int tp_oom(void);

#endif
