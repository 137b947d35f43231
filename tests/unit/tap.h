/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tap - what the C unit tests share: TAP lines, and a small random
 * generator (xorshift64) whose sequence is the same on every run.
 */
#ifndef TPCTL_TEST_TAP_H
#define TPCTL_TEST_TAP_H

#include <stdint.h>
#include <stdio.h>

static int test_no;

static void ok(int cond, const char *what)
{
	printf("%s %d - %s\n", cond ? "ok" : "not ok", ++test_no, what);
}

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

#endif
