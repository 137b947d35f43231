// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * plugin_sample_trace FIXDIR PLUGINDIR: TAP test of plugins/plugin_sample_trace.so
 * on the sample-trace pages captured in the VM (tests/unit/fixtures/vm-6.1).
 *
 * Every record of the raw pages is printed by libtraceevent ("event: info")
 * and compared with the kernel's own `trace` text for the same record, once
 * without any plugin and once with ours: with it every event must print
 * exactly as the kernel did; without it foo_with_template_print, whose print
 * fmt calls a kernel function, cannot.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <trace-seq.h>

#include "decode.h"

#define PAGE 4096

static int ntest;
static int nfail;

static void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		nfail++;
}

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	struct stat st;
	char *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !(buf = malloc(st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	if (read(fd, buf, st.st_size) != st.st_size) {
		free(buf);
		close(fd);
		return NULL;
	}
	close(fd);
	buf[st.st_size] = '\0';
	*len = st.st_size;
	return buf;
}

/* One record: timestamp in microseconds, CPU, and its "event: info" text. */
struct rec {
	unsigned long long us;
	int cpu;
	int seq;
	char *event;
	char *text;
};

struct recs {
	struct rec *v;
	int n;
};

static void recs_add(struct recs *r, unsigned long long us, int cpu, const char *event,
		     const char *text)
{
	r->v = realloc(r->v, (r->n + 1) * sizeof(*r->v));
	if (!r->v)
		abort();
	r->v[r->n].us = us;
	r->v[r->n].cpu = cpu;
	r->v[r->n].seq = r->n;
	r->v[r->n].event = strdup(event);
	r->v[r->n].text = strdup(text);
	r->n++;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->us != y->us)
		return x->us < y->us ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu - y->cpu;
	return x->seq - y->seq;
}

/* The kernel's `trace` text: "comm-pid [cpu] flags sec.usec: event: info". */
static void read_kernel_text(const char *dir, struct recs *out)
{
	size_t len;
	char *buf = slurp(dir, "trace", &len);
	char *line, *save = NULL;

	if (!buf)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *br, *colon, *ev, *evend, *p;
		unsigned long sec, usec;
		int cpu;

		if (line[0] == '#')
			continue;
		br = strstr(line, "] ");
		p = strchr(line, '[');
		if (!br || !p || sscanf(p, "[%d]", &cpu) != 1)
			continue;
		/* The timestamp is the first "sec.usec:" after the flags. */
		colon = strchr(br + 2, ':');
		if (!colon)
			continue;
		for (p = colon; p > br && p[-1] != ' '; p--)
			;
		if (sscanf(p, "%lu.%lu:", &sec, &usec) != 2)
			continue;
		ev = colon + 2;
		evend = strstr(ev, ": ");
		if (!evend)
			continue;
		*evend = '\0';
		recs_add(out, sec * 1000000ULL + usec, cpu, ev, evend + 2);
	}
	free(buf);
}

static void register_comms(struct tep_handle *tep, const char *dir)
{
	size_t len;
	char *buf = slurp(dir, "saved_cmdlines", &len);
	char *line, *save = NULL;
	char comm[64];
	int pid;

	if (!buf)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%d %63s", &pid, comm) == 2)
			tep_register_comm(tep, comm, pid);
	free(buf);
}

/*
 * Parse header_page and every format (after loading the plugin, if any:
 * print functions are looked up while parsing), then decode every page.
 */
static struct tep_handle *load(const char *dir, const char *plugindir, struct recs *out,
			       struct tep_plugin_list **plugins, int *failed_formats)
{
	struct tep_handle *tep = tep_alloc();
	char path[4096];
	struct dirent *d;
	size_t len;
	char *buf;
	DIR *dd;
	int cpu;

	*failed_formats = 0;
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	buf = slurp(dir, "header_page", &len);
	if (!buf || tep_parse_header_page(tep, buf, len, 8) < 0)
		return NULL;
	free(buf);
	if (plugindir) {
		tep_set_flag(tep, TEP_DISABLE_SYS_PLUGINS);
		tep_add_plugin_path(tep, (char *)plugindir, TEP_PLUGIN_FIRST);
		*plugins = tep_load_plugins(tep);
	}
	snprintf(path, sizeof(path), "%s/formats", dir);
	dd = opendir(path);
	if (!dd)
		return NULL;
	while ((d = readdir(dd))) {
		struct tep_event *ev = NULL;
		char name[64];

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "formats/%s", d->d_name);
		buf = slurp(dir, path, &len);
		if (!buf)
			continue;
		/*
		 * Through tpctl's own loader: libtraceevent 1.7.1 frees a token
		 * twice on foo_bar's "sizeof(int)", which decode_add_format()
		 * replaces first.
		 */
		if (sscanf(buf, "name: %63s", name) != 1 ||
		    decode_add_format(tep, "sample-trace", buf, len) != 0 ||
		    !(ev = tep_find_event_by_name(tep, "sample-trace", name)) ||
		    (ev->flags & TEP_EVENT_FL_FAILED))
			(*failed_formats)++;
		free(buf);
	}
	closedir(dd);
	register_comms(tep, dir);

	for (cpu = 0; cpu < 64; cpu++) {
		struct kbuffer *kbuf;
		struct trace_seq s;
		size_t off;

		snprintf(path, sizeof(path), "cpu%d.raw", cpu);
		buf = slurp(dir, path, &len);
		if (!buf)
			continue;
		kbuf = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
		trace_seq_init(&s);
		for (off = 0; off + PAGE <= len; off += PAGE) {
			unsigned long long ts;
			void *data;

			if (kbuffer_load_subbuffer(kbuf, buf + off) < 0)
				break;
			for (data = kbuffer_read_event(kbuf, &ts); data;
			     data = kbuffer_next_event(kbuf, &ts)) {
				struct tep_record rec = {
					.ts = ts, .cpu = cpu, .data = data,
					.size = kbuffer_event_size(kbuf),
				};
				struct tep_event *ev = tep_find_event_by_record(tep, &rec);

				trace_seq_reset(&s);
				tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
				trace_seq_terminate(&s);
				/* The kernel rounds to the nearest microsecond. */
				recs_add(out, (ts + 500) / 1000, cpu, ev ? ev->name : "?",
					 s.buffer);
			}
		}
		trace_seq_destroy(&s);
		kbuffer_free(kbuf);
		free(buf);
	}
	return tep;
}

/* Compare record by record; count the mismatches of each event. */
static int compare(struct recs *k, struct recs *u, const char *event, int *nrec, int show)
{
	int i, bad = 0;

	*nrec = 0;
	for (i = 0; i < k->n && i < u->n; i++) {
		if (strcmp(k->v[i].event, event) != 0)
			continue;
		(*nrec)++;
		if (k->v[i].us != u->v[i].us || k->v[i].cpu != u->v[i].cpu ||
		    strcmp(u->v[i].event, event) != 0 || strcmp(k->v[i].text, u->v[i].text) != 0) {
			if (bad++ < show)
				printf("# kernel: %s: %s\n#  tep:   %s: %s\n", k->v[i].event,
				       k->v[i].text, u->v[i].event, u->v[i].text);
		}
	}
	return bad;
}

static const char *const events[] = {
	"foo_bar", "foo_bar_with_cond", "foo_bar_with_fn", "foo_with_template_simple",
	"foo_with_template_cond", "foo_with_template_fn", "foo_with_template_print",
	"foo_rel_loc",
};

int main(int argc, char **argv)
{
	struct tep_plugin_list *plugins = NULL;
	struct recs kernel = { 0 }, bare = { 0 }, plug = { 0 };
	struct tep_handle *tep_bare, *tep_plug;
	int failed_bare, failed_plug, n, bad;
	size_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s FIXDIR PLUGINDIR\n", argv[0]);
		return 2;
	}
	read_kernel_text(argv[1], &kernel);
	tep_bare = load(argv[1], NULL, &bare, NULL, &failed_bare);
	tep_plug = load(argv[1], argv[2], &plug, &plugins, &failed_plug);
	ok(kernel.n > 0, "the kernel's trace text has %d records", kernel.n);
	ok(tep_bare && tep_plug, "header_page and formats load");
	if (!tep_bare || !tep_plug) {
		printf("1..%d\n", ntest);
		return 1;
	}
	ok(plugins != NULL, "plugin_sample_trace.so loads from %s", argv[2]);
	ok(bare.n == kernel.n && plug.n == kernel.n,
	   "the raw pages hold the same number of records (%d, %d)", bare.n, plug.n);
	qsort(kernel.v, kernel.n, sizeof(*kernel.v), rec_cmp);
	qsort(bare.v, bare.n, sizeof(*bare.v), rec_cmp);
	qsort(plug.v, plug.n, sizeof(*plug.v), rec_cmp);

	ok(failed_plug == 0, "with the plugin every print fmt parses (%d failed)", failed_plug);
	ok(failed_bare == 1, "without it exactly one does not (%d failed)", failed_bare);
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		bad = compare(&kernel, &plug, events[i], &n, 3);
		ok(n > 0 && bad == 0, "with the plugin %s prints as the kernel does (%d of %d differ)",
		   events[i], bad, n);
	}
	bad = compare(&kernel, &bare, "foo_with_template_print", &n, 1);
	ok(n > 0 && bad == n, "without it foo_with_template_print cannot (%d of %d differ)", bad, n);
	/* The events whose print fmt libtraceevent handles need no plugin. */
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		if (!strcmp(events[i], "foo_bar") || !strcmp(events[i], "foo_rel_loc") ||
		    !strcmp(events[i], "foo_with_template_print"))
			continue;
		bad = compare(&kernel, &bare, events[i], &n, 3);
		ok(n > 0 && bad == 0, "without it %s prints as the kernel does (%d of %d differ)",
		   events[i], bad, n);
	}
	/*
	 * foo_bar's __print_array and cpumasks print differently in
	 * libtraceevent 1.7 than in the kernel: shown, not asserted, as a
	 * newer libtraceevent may agree with the kernel.
	 */
	printf("# without the plugin:\n");
	bad = compare(&kernel, &bare, "foo_bar", &n, 1);
	printf("# foo_bar: %d of %d records differ from the kernel\n", bad, n);
	bad = compare(&kernel, &bare, "foo_rel_loc", &n, 1);
	printf("# foo_rel_loc: %d of %d records differ from the kernel\n", bad, n);

	tep_unload_plugins(plugins, tep_plug);
	tep_free(tep_plug);
	tep_free(tep_bare);
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
