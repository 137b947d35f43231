/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rbpage - the records of one ring-buffer sub-buffer, read in place.
 *
 * What libtraceevent's kbuffer does (kbuffer_load_subbuffer,
 * kbuffer_read_event, kbuffer_next_event, kbuffer_event_size,
 * kbuffer_missed_events), for sub-buffers of this host's own byte order and
 * word size (which is what trace_pipe_raw gives and what the reader asks
 * kbuffer for), inline and without its indirect calls: the kbuffer calls
 * cost more than the rest of a record's decoding (bench/RESULTS.md).  The
 * layout (include/linux/ring_buffer.h): a page header (u64 time stamp, long
 * commit whose high bits flag missed events), then records, each a u32 of
 * type_len (5 bits) and time_delta (27 bits) and its data:
 *   type_len 1..28   data of type_len * 4 bytes
 *   type_len 0       a u32 length (itself included), then the data
 *   29 padding       a u32 length of padding
 *   30 time extend   a u32 of the delta's upper bits
 *   31 time stamp    an absolute stamp (its upper 5 bits from the current one)
 * Every quirk of kbuffer is kept (a missed-events count shows only when the
 * first record sits at the start of the data), so that a record reads the
 * same either way; a length that would step backwards ends the page, where
 * kbuffer would loop (a damaged saved page), and so does a header (or the
 * u32 after it) that would reach past the page's records.
 */
#ifndef TPCTL_RBPAGE_H
#define TPCTL_RBPAGE_H

#include <stdint.h>
#include <string.h>

#define RBPAGE_TS_SHIFT 27
#define RBPAGE_TS_MSB (0xf8ULL << 56)
#define RBPAGE_MISSED (1UL << 31)
#define RBPAGE_MISSED_STORED (1UL << 30)
#define RBPAGE_COMMIT_MASK ((1U << 27) - 1)

struct rbpage {
	const char *data;		/* the records: the sub-buffer after its header */
	unsigned size;			/* bytes of records */
	unsigned curr, index, next;	/* as kbuffer's: this record, its data, the next */
	unsigned long long ts;
	long long lost;			/* missed before this sub-buffer: 0, -1 unknown, count */
};

static inline uint32_t rbpage_u32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Step to the next data record: its data, or NULL at the end of the page. */
static inline void *rbpage_step(struct rbpage *pg, unsigned long long *ts)
{
	for (;;) {
		unsigned curr = pg->next, type_len, length;
		const char *p;
		uint64_t delta, ext;
		uint32_t h;

		pg->curr = curr;
		/* a record's header must fit in what the page holds */
		if ((unsigned long long)curr + 4 > pg->size)
			return NULL;
		p = pg->data + curr;
		h = rbpage_u32(p);
		p += 4;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		type_len = h >> 27;
		delta = h & ((1U << 27) - 1);
#else
		type_len = h & 31;
		delta = h >> 5;
#endif
		/* padding, time extend, stamp and long records: a second u32 */
		if ((type_len == 0 || type_len >= 29) && (unsigned long long)curr + 8 > pg->size) {
			pg->next = pg->size;
			return NULL;
		}
		switch (type_len) {
		case 29:	/* padding */
			length = rbpage_u32(p);
			pg->ts += delta;
			break;
		case 30:	/* time extend */
		case 31:	/* absolute time stamp */
			ext = ((uint64_t)rbpage_u32(p) << RBPAGE_TS_SHIFT) + delta;
			p += 4;
			length = 0;
			if (type_len == 31)
				pg->ts = ext | (pg->ts & RBPAGE_TS_MSB);
			else
				pg->ts += ext;
			break;
		case 0:
			length = (rbpage_u32(p) - 4 + 3) & ~3U;
			p += 4;
			pg->ts += delta;
			break;
		default:
			length = type_len * 4;
			pg->ts += delta;
			break;
		}
		pg->index = p - pg->data;
		pg->next = pg->index + length;
		/* a damaged length: kbuffer would step backwards or stay */
		if (pg->next <= curr) {
			pg->next = pg->size;
			if (type_len >= 29)
				continue;
		}
		if (type_len < 29) {
			*ts = pg->ts;
			return (void *)p;
		}
	}
}

/*
 * Load a sub-buffer of page_size bytes (its commit checked by the caller):
 * its first record, or NULL.
 */
static inline void *rbpage_load(struct rbpage *pg, const void *page, unsigned page_size,
				unsigned long long *ts)
{
	const char *p = page;
	unsigned long commit;
	void *first;

	memcpy(&pg->ts, p, 8);
	memcpy(&commit, p + 8, sizeof(commit));
	pg->data = p + 8 + sizeof(long);
	pg->size = (unsigned)commit & RBPAGE_COMMIT_MASK;
	if (commit & RBPAGE_MISSED) {
		if ((commit & RBPAGE_MISSED_STORED) &&
		    8 + 2 * sizeof(long) + pg->size <= page_size) {
			unsigned long n;

			memcpy(&n, pg->data + pg->size, sizeof(n));
			pg->lost = n;
		} else {
			pg->lost = -1;
		}
	} else {
		pg->lost = 0;
	}
	pg->index = pg->next = 0;
	first = rbpage_step(pg, ts);
	/* kbuffer_missed_events(): only while the first record is at the start */
	if (pg->curr)
		pg->lost = 0;
	return first;
}

/* Bytes of the current record's data. */
static inline int rbpage_size(const struct rbpage *pg)
{
	return pg->next - pg->index;
}

/*
 * A sub-buffer whose commit (bytes of data) fits in it: the loaders above
 * trust the commit and would read past a damaged one (a saved page: found
 * by tests/fuzz).  The commit's bits from 30 up are the missed-events
 * flags, sign-extended into the upper half.
 */
static inline int rbpage_sane(const void *page, unsigned page_size)
{
	unsigned long commit;

	memcpy(&commit, (const char *)page + 8, sizeof(commit));
	commit &= (1UL << 30) - 1;
	return commit <= (unsigned long)page_size - 8 - sizeof(long);
}

/*
 * The current record's bytes, at data, no more than what is left of its
 * sub-buffer (which ends at end): a damaged length must not let the
 * decoders read past the page.
 */
static inline int rbpage_size_within(const struct rbpage *pg, const void *data, const char *end)
{
	long room = end - (const char *)data;
	int size = rbpage_size(pg);

	return size > room ? (room > 0 ? (int)room : 0) : size;
}

#endif
