// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target 7: the sets of `tpctl strace -e` (src/sysdec.c): trace=SET
 * when the first byte is even, signal=SET when it is odd; the rest is the
 * set.  A set refused names one of its words; a set taken prints back (the
 * names it holds, or '!' and those it leaves out) and that text parses to
 * the same set; the last word, when it is a name, has the set's say.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysdec.h"

#ifndef FUZZ_ENTRY
#define FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

static void ft_fail(const char *why, const char *set, const char *back)
{
	fprintf(stderr, "fuzz_traceset: %s\nset: '%s'\nprinted back: '%s'\n", why, set,
		back ? back : "");
	abort();
}

/* A refused set: *bad is one whole word of it, between commas. */
static void ft_bad_word(const char *set, const char *bad, size_t len)
{
	const char *start = set + (*set == '!');

	if (bad < start || bad + len > set + strlen(set) || !len)
		ft_fail("the word refused is not within the set", set, NULL);
	if ((bad > start && bad[-1] != ',') || (bad[len] && bad[len] != ',') ||
	    memchr(bad, ',', len))
		ft_fail("the word refused is not a whole word", set, NULL);
}

/* The last word of set when it is a syscall's name: its mark is the set's value. */
static void ft_last_word(const char *set, const bool *mark)
{
	const char *w = strrchr(set, ',');
	int nr;

	w = w ? w + 1 : set + (*set == '!');
	nr = sysdec_nr(w);
	if (nr >= 0 && mark[nr] != (*set != '!'))
		ft_fail("the last name does not have its say", set, NULL);
}

static void ft_trace(const char *set)
{
	int count = sysdec_nr_count(), nr, nameless = -1;
	bool *mark = malloc(count), *again = malloc(count);
	char *back = malloc((size_t)count * 40 + 2), *p;
	const char *bad = NULL;
	size_t len = 0;

	if (!mark || !again || !back)
		abort();
	if (sysdec_trace_set(set, mark, &bad, &len)) {
		ft_bad_word(set, bad, len);
		goto out;
	}
	ft_last_word(set, mark);
	/* the numbers no header names cannot be named: all are in the set, or none */
	for (nr = 0; nr < count; nr++) {
		if (sysdec_name(nr))
			continue;
		if (nameless >= 0 && nameless != mark[nr])
			ft_fail("numbers without names differ", set, NULL);
		nameless = mark[nr];
	}
	p = back;
	if (nameless == 1)
		*p++ = '!';
	for (nr = 0; nr < count; nr++) {
		if (!sysdec_name(nr) || mark[nr] == (nameless == 1))
			continue;
		if (sysdec_nr(sysdec_name(nr)) != nr)
			ft_fail("a syscall's name is another number's", set, sysdec_name(nr));
		p += sprintf(p, "%s%s", p > back + (nameless == 1) ? "," : "", sysdec_name(nr));
	}
	*p = '\0';
	if (sysdec_trace_set(back, again, &bad, &len))
		ft_fail("the set printed back is refused", set, back);
	if (memcmp(mark, again, count))
		ft_fail("the set printed back is another set", set, back);
out:
	free(mark);
	free(again);
	free(back);
}

static void ft_signal(const char *set)
{
	uint64_t mask, again;
	const char *bad = NULL, *name;
	char back[64 * 16 + 2], *p = back;
	size_t len = 0;
	int sig;

	if (sysdec_signal_set(set, &mask, &bad, &len)) {
		ft_bad_word(set, bad, len);
		return;
	}
	for (sig = 1; sig <= 64; sig++) {
		if (!(mask >> (sig - 1) & 1))
			continue;
		name = sysdec_signal_name(sig);
		if (p > back)
			*p++ = ',';
		/* by name, without SIG on odd numbers; the rest by number */
		p += name ? sprintf(p, "%s", name + (sig & 1) * 3) : sprintf(p, "%d", sig);
	}
	*p = '\0';
	if (sysdec_signal_set(back, &again, &bad, &len))
		ft_fail("the signals printed back are refused", set, back);
	if (again != mask)
		ft_fail("the signals printed back are other signals", set, back);
}

int FUZZ_ENTRY(const uint8_t *data, size_t size);
int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	char *set;

	if (!size)
		return 0;
	set = strndup((const char *)data + 1, size - 1);
	if (!set)
		abort();
	if (data[0] & 1)
		ft_signal(set);
	else
		ft_trace(set);
	free(set);
	return 0;
}
