/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * digits - decimal digits written two at a time, for the writers that
 * format numbers per record (output_local.h's, textplan.c's): no division
 * per digit, no printf.
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

#endif
