// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Helpers every command shares: the global options, messages on stderr in
 * one format, stdout's final flush, number parsing and whole-file reads.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util.h"

#ifndef TPCTL_PLUGIN_DIR
#define TPCTL_PLUGIN_DIR "/usr/local/lib/tpctl/plugins"
#endif

struct tp_global tp;

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	char *msg = NULL;
	const unsigned char *p;

	fflush(stdout);
	fputs("tpctl: ", stderr);
	if (tp.cmd)
		fprintf(stderr, "%s: ", tp.cmd);
	if (kind)
		fprintf(stderr, "%s: ", kind);
	if (vasprintf(&msg, fmt, ap) < 0) {
		fputs("out of memory\n", stderr);
		return;
	}
	/*
	 * One line whatever a name holds: a newline or escape sequence in an
	 * event, instance or file name must not forge further lines or
	 * control the terminal.
	 */
	for (p = (const unsigned char *)msg; *p; p++) {
		if (*p == '\n')
			fputs("\\n", stderr);
		else if (*p == '\t')
			fputs("\\t", stderr);
		else if (*p == '\r')
			fputs("\\r", stderr);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(stderr, "\\x%02x", *p);
		else
			fputc(*p, stderr);
	}
	free(msg);
	fputc('\n', stderr);
}

void tp_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
}

void tp_warn(const char *fmt, ...)
{
	va_list ap;

	if (tp.quiet)
		return;
	va_start(ap, fmt);
	vmsg("warning", fmt, ap);
	va_end(ap);
}

void tp_note(const char *fmt, ...)
{
	va_list ap;

	if (tp.quiet)
		return;
	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
}

void tp_debug(const char *fmt, ...)
{
	va_list ap;

	if (tp.verbose < 1)
		return;
	va_start(ap, fmt);
	vmsg("debug", fmt, ap);
	va_end(ap);
}

bool tp_stdout_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };
	struct stat st;

	if (fstat(STDOUT_FILENO, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return false;
	/* a pipe with no reader left polls POLLERR for its writer; a socket POLLHUP */
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

/*
 * A reader of stdout that went away (| head -1) is a normal end, as for
 * stream, which stops when it sees it: exit 0 and no message, whatever the
 * command made of the EPIPE (1, or a message of its own it then dropped).
 * SIGPIPE is ignored (state.c) so that the private instance goes: a
 * process killed by it, as git or coreutils are, could not clean up, and
 * 141 would fail `set -o pipefail` for a plain `tpctl list | head -1`.
 */
int tp_finish_stdout(int ret)
{
	bool failed = fflush(stdout) != 0 || ferror(stdout);
	int err = errno;

	if (ret != TP_USAGE && (failed ? err == EPIPE || tp_stdout_gone() : ret == TP_FAIL &&
				tp_stdout_gone())) {
		/* nothing more may reach it, not even from exit()'s flush */
		clearerr(stdout);
		return TP_OK;
	}
	if (failed) {
		tp_error("cannot write to standard output: %s", strerror(err));
		return ret ? ret : TP_FAIL;
	}
	return ret;
}

bool tp_parse_uint(const char *s, unsigned long long *val)
{
	char *end;

	if (!s || !*s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*val = strtoull(s, &end, 10);
	return errno == 0 && *end == '\0';
}

/*
 * One duration syntax for every option: a number with a unit (ns, us, ms,
 * s, m, h) or a bare number of seconds, as in 500ms, 1.5s, 2m or 0.5.
 * *mul is the unit in seconds.
 */
static bool duration_split(const char *s, double *v, double *mul)
{
	static const struct {
		const char *unit;
		double mul;
	} u[] = { { "", 1 }, { "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
		  { "m", 60 }, { "h", 3600 } };
	char *end;
	size_t i;

	if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return false;
	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || !isfinite(*v) || *v < 0)
		return false;
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (!strcmp(end, u[i].unit)) {
			*mul = u[i].mul;
			return true;
		}
	}
	return false;
}

bool tp_parse_seconds(const char *s, double *val)
{
	double v, mul;

	if (!duration_split(s, &v, &mul))
		return false;
	/* a bare number stays exactly what strtod made of it */
	*val = mul == 1 ? v : v * mul;
	return isfinite(*val);
}

bool tp_parse_cpus(const char *s, bool *cpus, int ncpu)
{
	if (!s || !*s)
		return false;
	while (*s) {
		unsigned long a, b;
		char *end;

		if (*s < '0' || *s > '9')
			return false;
		a = strtoul(s, &end, 10);
		b = a;
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return false;
			b = strtoul(s, &end, 10);
		}
		if (b < a || b >= (unsigned long)ncpu)
			return false;
		for (; a <= b; a++)
			cpus[a] = true;
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return false;
		s = end;
	}
	return true;
}

int tp_option_error(char **argv, int opt, const char *long_name)
{
	const char *arg = argv[optind - 1];

	if (opt == ':' && long_name)
		tp_error("option '--%s' needs an argument", long_name);
	else if (opt == ':' && optopt > 0 && optopt < 128 && isprint(optopt))
		tp_error("option '-%c' needs an argument", optopt);
	else if (opt == ':')
		tp_error("option '%s' needs an argument", arg);
	else if (optopt > 0 && optopt < 128 && isprint(optopt))
		tp_error("unknown option '-%c'", optopt);
	else
		tp_error("unknown option '%s'", arg);
	fprintf(stderr, "try 'tpctl%s%s --help'\n", tp.cmd ? " " : "", tp.cmd ? tp.cmd : "");
	return TP_USAGE;
}

bool tp_array_grow(void *arr, int *n, int want, size_t size)
{
	void **pp = arr;
	char *v;

	if (want <= *n)
		return true;
	v = realloc(*pp, (size_t)want * size);
	if (!v)
		return false;
	memset(v + (size_t)*n * size, 0, (size_t)(want - *n) * size);
	*pp = v;
	*n = want;
	return true;
}

bool tp_reserve_grow(void *arr, size_t *cap, size_t need, size_t size, size_t first)
{
	void **pp = arr;
	size_t c = *cap ? *cap : first;
	void *v;

	while (c < need)
		c *= 2;
	v = realloc(*pp, c * size);
	if (!v)
		return false;
	*pp = v;
	*cap = c;
	return true;
}

char *tp_read_file(const char *path, size_t *len)
{
	size_t n = 0, alloc = 4096;
	char *buf = malloc(alloc);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (!buf || fd < 0)
		goto fail;
	for (;;) {
		if (n + 1 >= alloc) {
			char *more = realloc(buf, alloc * 2);

			if (!more)
				goto fail;
			buf = more;
			alloc *= 2;
		}
		r = read(fd, buf + n, alloc - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

bool tp_parse_duration(const char *s, unsigned long long *ns)
{
	double v, mul, n;

	if (!duration_split(s, &v, &mul))
		return false;
	/* 1e9 * 1e-9 is not quite 1: count in the unit's own ns */
	n = mul >= 1 ? v * (mul * (double)TP_NS_PER_S) :
			 v * (double)(unsigned long long)(mul * (double)TP_NS_PER_S + 0.5);
	if (n >= 1.8e19)
		return false;
	*ns = (unsigned long long)(n + 0.5);
	return true;
}

const char *tp_plugin_dir(void)
{
	static char buf[PATH_MAX];
	const char *env = getenv("TPCTL_PLUGIN_DIR");
	struct stat st;
	char *slash;
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 16);
	if (n > 0) {
		buf[n] = '\0';
		slash = strrchr(buf, '/');
		if (slash) {
			strcpy(slash, "/plugins");
			if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
				return buf;
		}
	}
	return TPCTL_PLUGIN_DIR;
}

double tp_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + (double)ts.tv_nsec / TP_NS_PER_S;
}

int tp_oom(void)
{
	tp_error("out of memory");
	return TP_FAIL;
}
