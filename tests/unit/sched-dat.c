// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sched-dat FILE [--json] [--sort KEYS]: the sched table (src/schedlat.c) of a
 * trace.dat, written by the output layer.  A driver for
 * tests/cli/latency-sched.t, which compares it with perf sched latency -p
 * on the same workload; `tpctl latency sched --input FILE` gives the same.
 */
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "live.h"
#include "output.h"
#include "schedlat.h"
#include "util.h"

int main(int argc, char **argv)
{
	const char *file = NULL, *sort_keys = NULL;
	enum output_mode mode = OUTPUT_TEXT;
	const char *const *ev = sched_events();
	struct sched_sort sort;
	struct sched_table *t;
	struct tep_record rec;
	struct sched *s = NULL;
	struct live *l = NULL;
	long long lost;
	bool perf_only = false;
	int i, n, ret;

	/* messages as tpctl latency prints them: "tpctl: latency: ..." */
	tp.cmd = "latency";
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			mode = OUTPUT_JSON;
		else if (!strcmp(argv[i], "--perf-only"))
			perf_only = true;
		else if (!strcmp(argv[i], "--sort") && i + 1 < argc)
			sort_keys = argv[++i];
		else
			file = argv[i];
	}
	if (!file) {
		fprintf(stderr, "usage: sched-dat FILE [--json] [--sort KEYS] [--perf-only]\n");
		return TP_USAGE;
	}
	ret = sched_sort_parse(&sort, sort_keys);
	if (ret)
		return ret;
	for (n = 0; ev[n]; n++)
		;
	struct live_spec spec = { .events = (char **)ev, .nevents = n, .input = file };

	ret = live_open(&l, &spec);
	if (!ret)
		ret = sched_new(&s, live_tep(l));
	if (!ret && perf_only)
		sched_perf_only(s);
	if (!ret)
		ret = live_start(l);
	while (!ret) {
		int r = live_next(l, &rec, &lost);

		if (r < 0)
			ret = TP_FAIL;
		if (r <= 0)
			break;
		if (lost)
			sched_lost(s, rec.cpu);
		sched_record(s, &rec);
	}
	if (!ret) {
		t = sched_table(s, &sort);
		if (!t || output_sched(stdout, mode, t, live_clock_ns(l)))
			ret = TP_FAIL;
		sched_table_free(t);
		sched_warn_gaps(s);
	}
	sched_free(s);
	return live_close(l, ret);
}
