// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * decode-fixtures MODE DIR: decode the saved raw pages of a fixture directory
 * (written by tests/unit/fixtures/capture.sh) with the decode core, the
 * reader's merge and the output layer, no tracefs involved.
 *   text  - every record as text (to compare with the kernel's DIR/trace)
 *   json  - every record as NDJSON
 *   lost  - DIR/lost.raw (a page after overwritten events) as NDJSON
 * Formats that do not parse are listed on stderr.  DIR/enums, when there,
 * holds the values of the enum constants the formats name ("NAME VALUE" lines,
 * written by enum-table from the capturing kernel's BTF): the test never
 * reads the BTF of the machine it runs on.
 *
 * decode-fixtures repeat-text|repeat-json DIR EVENT N [CPUS]: the first
 * record of EVENT (its name) in DIR's pages, N times on pages built here
 * (100 ns apart; with CPUS, dealt out to that many CPUs in turn, as busy
 * CPUs' records interleave), through the same reader and output: the
 * decode and merge cost per record under callgrind (bench/decode-cg.py),
 * no tracefs needed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "decode.h"
#include "output.h"
#include "reader.h"
#include "util.h"

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	char *buf = NULL;
	size_t alloc = 0, n = 0, r;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	for (;;) {
		if (alloc - n < 4096) {
			alloc = alloc ? alloc * 2 : 65536;
			buf = realloc(buf, alloc + 1);
			if (!buf)
				exit(1);
		}
		r = fread(buf + n, 1, alloc - n, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The saved enum table, sorted by name for bsearch. */
struct enum_entry {
	char *name;
	unsigned long long value;
};
static struct enum_entry *enums;
static size_t nenums;

static int enum_cmp(const void *a, const void *b)
{
	return strcmp(((const struct enum_entry *)a)->name, ((const struct enum_entry *)b)->name);
}

static void enums_load(const char *dir)
{
	char *buf, *line, *save = NULL, name[256];
	unsigned long long v;
	size_t len;

	buf = slurp(dir, "enums", &len);
	if (!buf)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%255s %lli", name, (long long *)&v) != 2)
			continue;
		enums = realloc(enums, (nenums + 1) * sizeof(*enums));
		if (!enums)
			exit(1);
		enums[nenums].name = strdup(name);
		enums[nenums++].value = v;
	}
	free(buf);
	if (nenums)
		qsort(enums, nenums, sizeof(*enums), enum_cmp);
}

static bool enum_value(const char *name, size_t len, unsigned long long *value, void *ctx)
{
	struct enum_entry key, *e;
	char buf[256];

	(void)ctx;
	if (len >= sizeof(buf) || !nenums)
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	key.name = buf;
	e = bsearch(&key, enums, nenums, sizeof(*enums), enum_cmp);
	if (e)
		*value = e->value;
	return e != NULL;
}

/*
 * Pages of n copies of rec (one CPU's), in the kernel's sub-buffer layout,
 * the first stamped ts, the others step ns apart.
 */
static char *repeat_pages(const struct tep_record *rec, long n, int subbuf, size_t *len,
			  uint64_t ts, unsigned step)
{
	size_t dlen = (rec->size + 3) & ~3, each = dlen + 4 + (dlen > 112 ? 4 : 0);
	long per = (subbuf - 16) / each, npages = (n + per - 1) / per, i;
	char *buf = calloc(npages ? npages : 1, subbuf);

	if (!buf)
		exit(1);
	for (i = 0; i < npages; i++) {
		char *pg = buf + (size_t)i * subbuf, *w = pg + 16;
		long k, m = n - i * per < per ? n - i * per : per;
		uint64_t commit;

		memcpy(pg, &ts, 8);
		for (k = 0; k < m; k++) {
			/* type_len: the length in words, or 0 and the length in the next word */
			uint32_t h = (k ? step : 0u) << 5 | (dlen > 112 ? 0 : dlen / 4);

			memcpy(w, &h, 4);
			w += 4;
			if (dlen > 112) {
				uint32_t l = dlen + 4;

				memcpy(w, &l, 4);
				w += 4;
			}
			memcpy(w, rec->data, rec->size);
			w += dlen;
			ts += k ? step : 0;
		}
		commit = w - pg - 16;
		memcpy(pg + 8, &commit, 8);
		ts += step;
	}
	*len = (size_t)npages * subbuf;
	return buf;
}

int main(int argc, char **argv)
{
	static const struct decode_names names = { .constant = enum_value };
	const char *mode, *dir;
	struct tep_handle *tep;
	struct output *o;
	struct reader *r;
	struct tep_record rec;
	struct dirent *de;
	char *buf, *pages[256];
	size_t len;
	long long lost;
	int ncpu = 0, bad = 0, cpu;
	DIR *d;
	char path[4096];

	const char *rep_event = NULL;
	long rep_n = 0;
	int rep_cpus = 1;

	if ((argc == 5 || argc == 6) && !strncmp(argv[1], "repeat-", 7)) {
		rep_event = argv[3];
		rep_n = atol(argv[4]);
		rep_cpus = argc == 6 ? atoi(argv[5]) : 1;
		argv[1] += 7;
	}
	if ((!rep_event && argc != 3) || rep_cpus < 1 || rep_cpus > 256) {
		fprintf(stderr, "usage: decode-fixtures text|json|lost DIR\n"
			"       decode-fixtures repeat-text|repeat-json DIR EVENT N [CPUS]\n");
		return 2;
	}
	mode = argv[1];
	dir = argv[2];
	tep = decode_tep_new(getenv("TPCTL_PLUGIN_DIR") != NULL);
	buf = slurp(dir, "header_page", &len);
	if (!tep || !buf || decode_header_page(tep, buf, len)) {
		fprintf(stderr, "cannot load %s/header_page\n", dir);
		return 1;
	}
	free(buf);
	enums_load(dir);
	if (nenums)
		decode_set_names(&names);
	snprintf(path, sizeof(path), "%s/formats", dir);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "no %s\n", path);
		return 1;
	}
	while ((de = readdir(d))) {
		char sys[256], *colon;

		if (de->d_name[0] == '.')
			continue;
		snprintf(sys, sizeof(sys), "%s", de->d_name);
		colon = strchr(sys, ':');
		if (!colon)
			continue;
		*colon = '\0';
		snprintf(path, sizeof(path), "%s/formats", dir);
		buf = slurp(path, de->d_name, &len);
		if (!buf || decode_add_format(tep, sys, buf, len)) {
			fprintf(stderr, "format %s does not parse\n", de->d_name);
			bad++;
		}
		free(buf);
	}
	closedir(d);
	buf = slurp(dir, "saved_cmdlines", &len);
	if (buf)
		tep_parse_saved_cmdlines(tep, buf);
	free(buf);
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	decode_kallsyms_set_path(path);

	r = reader_new(tep_get_sub_buffer_size(tep));
	if (!strcmp(mode, "lost")) {
		pages[0] = slurp(dir, "lost.raw", &len);
		if (!pages[0])
			return 1;
		reader_add_mem(r, 0, pages[0], len);
		ncpu = 1;
	} else {
		for (cpu = 0; cpu < 256; cpu++) {
			char name[32];

			snprintf(name, sizeof(name), "cpu%d.raw", cpu);
			pages[cpu] = slurp(dir, name, &len);
			if (!pages[cpu])
				break;
			reader_add_mem(r, cpu, pages[cpu], len);
			ncpu++;
		}
	}
	if (rep_event) {
		/* the event's first record, then N copies of it as the only input */

		while (reader_next(r, &rec, &lost) > 0) {
			struct tep_event *ev = tep_find_event(tep, *(uint16_t *)rec.data);

			if (ev && !strcmp(ev->name, rep_event))
				break;
			rec.data = NULL;
		}
		if (!rec.data) {
			fprintf(stderr, "no %s record in %s\n", rep_event, dir);
			return 1;
		}
		char *rp[256];
		size_t rlen[256];

		/* CPU c: records c, c + CPUS, ...: stamped in that order, 100 ns apart */
		for (cpu = 0; cpu < rep_cpus; cpu++) {
			long k = rep_n / rep_cpus + (cpu < rep_n % rep_cpus);

			rp[cpu] = repeat_pages(&rec, k, tep_get_sub_buffer_size(tep), &rlen[cpu],
					       1000000000ULL + 100ULL * cpu, 100 * rep_cpus);
		}
		/* (rec lies in the fixture's pages: they go once the copies are made) */
		reader_free(r);
		for (cpu = 0; cpu < ncpu; cpu++)
			free(pages[cpu]);
		r = reader_new(tep_get_sub_buffer_size(tep));
		for (cpu = 0; cpu < rep_cpus; cpu++) {
			pages[cpu] = rp[cpu];
			reader_add_mem(r, cpu, pages[cpu], rlen[cpu]);
		}
		ncpu = rep_cpus;
	}
	o = output_new(tep, stdout, strcmp(mode, "text") ? OUTPUT_JSON : OUTPUT_TEXT);
	buf = slurp(dir, "uname", &len);
	if (buf) {
		buf[strcspn(buf, "\n")] = '\0';
		output_set_kernel_release(o, buf);
	}
	free(buf);
	while (reader_next(r, &rec, &lost) > 0) {
		if (lost)
			output_lost(o, rec.cpu, lost);
		output_record(o, &rec);
	}
	if (output_flush(o))
		return 1;
	output_free(o);
	reader_free(r);
	for (cpu = 0; cpu < ncpu; cpu++)
		free(pages[cpu]);
	tep_free(tep);
	return bad ? 3 : 0;
}
