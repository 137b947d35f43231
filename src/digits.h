/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * digits - numbers written for the writers that format them per record
 * (output_local.h's, textplan.c's): decimal digits two at a time, no
 * division per digit, no printf.  The writers at w (dec_u64, dec_i64,
 * hex_at, hex0x_at) may store a byte past the end they return: the room
 * they write into has slack.
 */
#ifndef TPCTL_DIGITS_H
#define TPCTL_DIGITS_H

#include <stdint.h>
#include <string.h>

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal digits of v into the end of buf; returns the start. */
static inline char *fmt_u64(char *end, uint64_t v)
{
	uint32_t w;

	*--end = '\0';
	/*
	 * A nanosecond stamp has 13 digits or more: eight at a time in 32-bit
	 * arithmetic, two per step (cheaper than 64-bit divisions per digit)
	 */
	while (v >= 100000000) {
		uint32_t lo = v % 100000000;
		int k;

		v /= 100000000;
		for (k = 0; k < 4; k++) {
			end -= 2;
			memcpy(end, digit_pairs + 2 * (lo % 100), 2);
			lo /= 100;
		}
	}
	w = v;
	while (w >= 100) {
		end -= 2;
		memcpy(end, digit_pairs + 2 * (w % 100), 2);
		w /= 100;
	}
	if (w >= 10) {
		end -= 2;
		memcpy(end, digit_pairs + 2 * w, 2);
	} else {
		*--end = '0' + w;
	}
	return end;
}

/* Decimal v at w; returns the end. */
static inline char *dec_u64(char *w, uint64_t v)
{
	static const uint64_t p10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
	};
	unsigned t;

	if (v < 10) {
		*w = '0' + v;
		return w + 1;
	}
	if (v < 100) {
		memcpy(w, digit_pairs + 2 * v, 2);
		return w + 2;
	}
	/* digits: log10 from the highest bit set, corrected by one comparison */
	t = ((64 - __builtin_clzll(v)) * 1233) >> 12;
	t += v >= p10[t];
	/* fmt_u64 ends the digits with a NUL, at w + t: within the slack */
	fmt_u64(w + t + 1, v);
	return w + t;
}

/*
 * Decimal v at w, for 32-bit values (pids, priorities, CPUs): the digits
 * counted by comparisons, then written two at a time from the end in 32-bit
 * arithmetic.  Returns the end (nothing is written past it).
 */
static inline char *dec_u32(char *w, uint32_t v)
{
	unsigned n;
	char *e, *p;

	if (v < 10) {
		*w = '0' + v;
		return w + 1;
	}
	if (v < 100) {
		memcpy(w, digit_pairs + 2 * v, 2);
		return w + 2;
	}
	n = v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5 : v < 1000000 ? 6 :
	    v < 10000000 ? 7 : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
	e = p = w + n;
	while (v >= 100) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(p - 2, digit_pairs + 2 * v, 2);
	else
		p[-1] = '0' + v;
	return e;
}

static inline char *dec_i32(char *w, int32_t v)
{
	if (v < 0) {
		*w++ = '-';
		return dec_u32(w, -(uint32_t)v);
	}
	return dec_u32(w, v);
}

static inline char *dec_i64(char *w, int64_t v)
{
	if (v < 0) {
		*w++ = '-';
		return dec_u64(w, -(uint64_t)v);
	}
	return dec_u64(w, v);
}

/* v in hex at w, as "%llx" writes it (or "%llX": dig is the upper digits); returns the end */
static inline char *hex_at(char *w, uint64_t v, const char *dig)
{
	char *e = w + (64 - __builtin_clzll(v | 1) + 3) / 4, *p = e;

	do {
		*--p = dig[v & 15];
		v >>= 4;
	} while (p > w);
	return e;
}

/* "0x" and v in lowercase hex at w, as "0x%llx" writes it; returns the end */
static inline char *hex0x_at(char *w, uint64_t v)
{
	w[0] = '0';
	w[1] = 'x';
	return hex_at(w + 2, v, "0123456789abcdef");
}

#endif
