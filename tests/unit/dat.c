// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Write a trace.dat from a saved fixture (tests/unit/dat/: metadata files and
 * raw ring-buffer pages captured by capture.sh); dat.t has trace-cmd read it.
 *
 *   dat FIXTURE OUT [--version V] [--kill N]
 *
 * Without --kill: a complete file (dat_finish).  --kill N: stop after N
 * pages in total, without dat_finish, as a SIGKILL would leave it; for
 * version 7 every page is then committed as a chunk of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dat.h"

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	FILE *f;
	char *p = NULL;
	size_t n = 0, alloc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "dat: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (;;) {
		if (n + 4096 > alloc) {
			alloc = alloc ? alloc * 2 : 8192;
			p = realloc(p, alloc + 1);
			if (!p)
				exit(1);
		}
		size_t r = fread(p + n, 1, 4096, f);

		n += r;
		if (r < 4096)
			break;
	}
	fclose(f);
	p[n] = 0;
	*len = n;
	return p;
}

#define FMT(sys, ev) { sys, ev, NULL, 0 }

int main(int argc, char **argv)
{
	struct dat_format ftrace[] = { FMT("ftrace", "print"), FMT("ftrace", "bprint") };
	struct dat_format events[] = {
		FMT("sched", "sched_switch"), FMT("sched", "sched_wakeup"),
		FMT("sched", "sched_process_fork"), FMT("sched", "sched_process_exec"),
		FMT("sched", "sched_process_exit"),
	};
	struct dat_info in = { 0 };
	struct dat_writer *w;
	const char *dir, *out;
	long kill_after = -1, written = 0;
	size_t len;
	char name[256], *s;

	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--kill") && i + 1 < argc)
			kill_after = atol(argv[++i]);
		else if (!strcmp(argv[i], "--version") && i + 1 < argc)
			in.version = atoi(argv[++i]);
		else
			argc = 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: dat FIXTURE OUT [--version V] [--kill PAGES]\n");
		return 2;
	}
	dir = argv[1];
	out = argv[2];

	s = slurp(dir, "ncpus", &len);
	in.ncpus = atoi(s);
	in.page_size = 4096;
	in.header_page = slurp(dir, "header_page", &in.header_page_len);
	in.header_event = slurp(dir, "header_event", &in.header_event_len);
	for (size_t i = 0; i < sizeof(ftrace) / sizeof(*ftrace); i++) {
		snprintf(name, sizeof(name), "events/%s/%s/format", ftrace[i].system,
			 ftrace[i].name);
		ftrace[i].text = slurp(dir, name, &ftrace[i].len);
	}
	for (size_t i = 0; i < sizeof(events) / sizeof(*events); i++) {
		snprintf(name, sizeof(name), "events/%s/%s/format", events[i].system,
			 events[i].name);
		events[i].text = slurp(dir, name, &events[i].len);
	}
	in.ftrace = ftrace;
	in.nftrace = sizeof(ftrace) / sizeof(*ftrace);
	in.events = events;
	in.nevents = sizeof(events) / sizeof(*events);
	in.cmdlines = slurp(dir, "saved_cmdlines", &in.cmdlines_len);
	in.clock = "[local] global counter uptime perf mono mono_raw boot tai x86-tsc";
	in.uname = "Linux fixture 6.18 x86_64";
	in.version_text = "tpctl-unit";

	w = dat_create(out, &in);
	if (!w) {
		fprintf(stderr, "dat: create %s: %s\n", out, strerror(errno));
		return 1;
	}
	for (int c = 0; c < in.ncpus; c++) {
		char *pages;

		snprintf(name, sizeof(name), "cpu%d", c);
		pages = slurp(dir, name, &len);
		for (size_t off = 0; off < len; off += in.page_size) {
			if (kill_after >= 0 && written >= kill_after) {
				/* What a SIGKILL leaves: no dat_finish. */
				dat_close(w);
				return 0;
			}
			if (dat_cpu_write(w, c, pages + off, in.page_size) < 0 ||
			    (kill_after >= 0 && dat_cpu_flush(w, c) < 0)) {
				fprintf(stderr, "dat: write: %s\n", strerror(errno));
				return 1;
			}
			written++;
		}
		free(pages);
		snprintf(name, sizeof(name), "CPU: %d\nentries: 0\noverrun: 0\n", c);
		if (dat_set_cpustat(w, c, name) < 0)
			return 1;
	}
	if (dat_set_cmdlines(w, in.cmdlines, in.cmdlines_len) < 0)
		return 1;
	if (kill_after >= 0) {
		dat_close(w);
		return 0;
	}
	if (dat_finish(w) < 0) {
		fprintf(stderr, "dat: finish: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
