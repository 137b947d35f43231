// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reader's merge (src/reader.c) of many CPUs' sub-buffers: records
 * must come out by stamp, the lower CPU first on equal stamps, each CPU's
 * in its own order, none lost or doubled.  Random stamps with many ties
 * (within a CPU and across CPUs), sub-buffers filled in part, 1 to 40
 * CPUs, runs of one CPU's records and records dealt out in turn.  The
 * same through the reading thread (src/readq.c): records of 8 to 112 bytes
 * through rings small enough to wrap many times and to keep the thread
 * waiting for room, their bytes checked.  TAP.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "reader.h"
#include "readq.h"
#include "tap.h"

#define SUBBUF 4096


struct want {
	uint64_t ts;
	uint32_t cpu, seq;
};

static int by_order(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A record's bytes after its cpu and seq */
static unsigned char fill_byte(uint32_t seq, int i)
{
	return (unsigned char)(seq * 7 + i);
}

/*
 * cpu's n records as sub-buffers: each record 8 bytes (its cpu and seq),
 * or with var 8 to 112 (the rest fill_byte()), stamped from *ts on by
 * steps of 0 to maxstep ns; a sub-buffer takes 1 to 340 of them.  Their
 * stamps go to w.
 */
static char *cpu_pages(uint32_t cpu, int n, uint64_t ts, unsigned maxstep, bool var,
		       size_t *len, struct want *w)
{
	int per_max = (SUBBUF - 16) / (var ? 116 : 12), npages = 0, done = 0;
	char *buf = NULL;

	while (done < n) {
		int m = 1 + rnd() % per_max, k;
		char *pg, *p;
		uint64_t commit;

		if (m > n - done)
			m = n - done;
		buf = realloc(buf, (size_t)(npages + 1) * SUBBUF);
		if (!buf)
			exit(1);
		pg = buf + (size_t)npages++ * SUBBUF;
		memset(pg, 0, SUBBUF);
		memcpy(pg, &ts, 8);
		p = pg + 16;
		for (k = 0; k < m; k++, done++) {
			unsigned delta = k ? rnd() % (maxstep + 1) : 0;
			/* type_len 2..28: 8..112 bytes of data; the delta in the upper 27 bits */
			uint32_t tl = var ? 2 + rnd() % 27 : 2, h = delta << 5 | tl;
			uint32_t id[2] = { cpu, (uint32_t)done };
			unsigned i;

			ts += delta;
			memcpy(p, &h, 4);
			memcpy(p + 4, id, 8);
			for (i = 8; i < tl * 4; i++)
				p[4 + i] = fill_byte(done, i);
			p += 4 + tl * 4;
			w[done] = (struct want){ ts, cpu, (uint32_t)done };
		}
		commit = p - pg - 16;
		memcpy(pg + 8, &commit, 8);
		/* the next sub-buffer starts at or after this one's last stamp */
		ts += rnd() % (maxstep + 1);
	}
	*len = (size_t)npages * SUBBUF;
	return buf;
}

/* rec's bytes after its cpu and seq: as cpu_pages() wrote them */
static bool bytes_ok(const struct tep_record *rec, uint32_t seq)
{
	const unsigned char *d = rec->data;
	int i;

	if (rec->size < 8 || rec->size > 112 || rec->size % 4)
		return false;
	for (i = 8; i < rec->size; i++)
		if (d[i] != fill_byte(seq, i))
			return false;
	return true;
}

/*
 * ncpu CPUs, about n records each: the merge's order against the sorted
 * records, from reader_next(), or through the reading thread with a ring
 * of ring bytes (records of 8 to 112 bytes then)
 */
static void one(int ncpu, int n, unsigned maxstep, size_t ring, const char *what)
{
	struct readq *q = NULL;
	struct reader *r = reader_new(SUBBUF);
	struct want *w = malloc(sizeof(*w) * (size_t)ncpu * (2 * n + 1));
	char *pages[64], msg[200];
	struct tep_record rec;
	long long lost;
	int total = 0, got = 0, bad = -1, c;

	for (c = 0; c < ncpu; c++) {
		int k = n / 2 + rnd() % (n + 1);
		size_t len;

		/* CPUs start within a few steps of each other, or far apart */
		pages[c] = cpu_pages(c, k, 1000 + rnd() % (4 * maxstep + 1), maxstep, ring > 0,
				     &len, w + total);
		reader_add_mem(r, c, pages[c], len);
		total += k;
	}
	qsort(w, total, sizeof(*w), by_order);
	if (ring && readq_start(&q, r, SUBBUF, ring)) {
		ok(0, "the reading thread starts");
		return;
	}
	for (;;) {
		uint32_t id[2];
		int ret = q ? readq_next(q, &rec, &lost) : reader_next(r, &rec, &lost);

		if (ret < 0)
			break;
		if (!ret) {
			if (!q || readq_eof(q))
				break;
			/* (its CPUs are files: read to their end, the thread ends) */
			readq_finish(q);
			readq_wait(q, 100);
			continue;
		}
		memcpy(id, rec.data, 8);
		if (bad < 0 && (got >= total || rec.ts != w[got].ts || (uint32_t)rec.cpu != id[0] ||
				id[0] != w[got].cpu || id[1] != w[got].seq ||
				(ring && !bytes_ok(&rec, id[1]))))
			bad = got;
		got++;
	}
	readq_stop(q);
	snprintf(msg, sizeof(msg), "%s: %d CPUs, %d records in order (%d out)%s", what, ncpu,
		 total, got, ring ? ", through the reading thread" : "");
	ok(bad < 0 && got == total, msg);
	if (bad >= 0 && bad < total)
		printf("# first wrong at %d: want ts %llu cpu %u seq %u\n", bad,
		       (unsigned long long)w[bad].ts, w[bad].cpu, w[bad].seq);
	reader_free(r);
	for (c = 0; c < ncpu; c++)
		free(pages[c]);
	free(w);
}

int main(void)
{
	static const int cpus[] = { 1, 2, 3, 7, 16, 40 };
	size_t i;

	/* a reading thread that never hands over its last records fails, not hangs */
	alarm(120);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%zu\n", 3 * sizeof(cpus) / sizeof(cpus[0]) + 5);
	for (i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		/* steps of 0..2 ns: ties everywhere */
		one(cpus[i], 3000, 2, 0, "many equal stamps");
		/* steps up to 1 us: records interleave one by one */
		one(cpus[i], 3000, 1000, 0, "interleaved");
		/* long steps against short: one CPU's records come in runs */
		one(cpus[i], 2000, i % 2 ? 100000 : 50, 0, "runs");
	}
	/* the smallest ring (4 sub-buffers) wraps every few hundred records */
	one(1, 20000, 1000, 1, "one CPU, smallest ring");
	one(16, 3000, 1000, 1, "interleaved, smallest ring");
	one(7, 3000, 2, 1, "many equal stamps, smallest ring");
	one(40, 2000, 50, 65536, "runs, 64 KiB ring");
	one(40, 3000, 1000, 0x400000, "interleaved, the default ring");
	return 0;
}
