// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target 8: record --flight's --stop-on 'EVENT [if FILTER]'
 * (flight_stop_split(), src/record_flight.c), the input being the argument.
 * A refused one says why and leaves no event; one taken has system:event of
 * names tracefs takes and a FILTER that is not empty, fits the trigger's
 * page and lies in the argument, and "EVENT if FILTER" written back splits
 * the same.  When the event is one of the host fixture's, its filter goes
 * through tfs_filter_check() as record does before it arms the trigger:
 * one it takes is one line, and tfs_filter_walk() reads it without harm.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "fuzz_common.h"
#include "record_flight.h"
#include "tfs.h"
#include "util.h"

#ifndef FUZZ_ENTRY
#define FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

static void fo_fail(const char *why, const char *arg)
{
	fprintf(stderr, "fuzz_stopon: %s\nargument: '%s'\n", why, arg);
	abort();
}

static int fo_walk(void *ctx, enum tracefs_filter type, const char *field,
		   enum tracefs_compare cmp, const char *val)
{
	(void)cmp;
	if (type == TRACEFS_FILTER_COMPARE && (!field || !*field || !val || !*val))
		fo_fail("the filter walk gave a comparison without field or value", ctx);
	return 0;
}

/* The filter as record checks it, against the fixture's event of that name. */
static void fo_filter(const char *arg, char *event, const char *filter)
{
	static int null_fd = -1, keep_err = -1;
	struct tep_handle *tep = fuzz_fixture_tep("host");
	char *colon = strchr(event, ':');
	struct tfs_event ev = { event, colon + 1 };
	int saved_err, ret;

	*colon = '\0';
	if (!tep_find_event_by_name(tep, ev.system, ev.name))
		goto out;
	if (keep_err < 0) {
		/* to see the messages: FUZZ_KEEP_STDERR=1 fuzz_stopon FILE */
		keep_err = getenv("FUZZ_KEEP_STDERR") != NULL;
		null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	}
	fflush(stderr);
	saved_err = dup(2);
	if (!keep_err)
		dup2(null_fd, 2);
	ret = tfs_filter_check(tep, &ev, filter);
	dup2(saved_err, 2);
	close(saved_err);
	if (ret != TP_OK && ret != TP_USAGE)
		fo_fail("the filter check's status is neither 0 nor 2", arg);
	if (!ret && (strchr(filter, '\n') || strchr(filter, '\r')))
		fo_fail("a filter of more than one line taken", arg);
	if (!ret)
		tfs_filter_walk(filter, fo_walk, (void *)arg);
out:
	*colon = ':';
}

int FUZZ_ENTRY(const uint8_t *data, size_t size);
int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	char *arg = strndup((const char *)data, size), *event, *event2, *back, *colon;
	const char *filter, *filter2, *why = NULL;
	int ret;

	if (!arg)
		abort();
	ret = flight_stop_split(arg, &event, &filter, &why);
	if (ret) {
		if (ret != TP_USAGE || !why || event)
			fo_fail("refused without a reason, or with an event", arg);
		free(arg);
		return 0;
	}
	colon = strchr(event, ':');
	if (!colon || strchr(colon + 1, ':'))
		fo_fail("not one ':' in the event", arg);
	*colon = '\0';
	if (!tfs_name_valid(event) || !tfs_name_valid(colon + 1))
		fo_fail("a system or event name tracefs does not take", arg);
	*colon = ':';
	if (filter && (!*filter || strlen(filter) > FLIGHT_FILTER_MAX ||
		       filter < arg || filter > arg + strlen(arg)))
		fo_fail("a filter empty, too long or outside the argument", arg);
	if (asprintf(&back, "%s%s%s", event, filter ? " if " : "", filter ? filter : "") < 0)
		abort();
	if (flight_stop_split(back, &event2, &filter2, &why))
		fo_fail("the argument written back is refused", arg);
	if (strcmp(event, event2) || !filter != !filter2 || (filter && strcmp(filter, filter2)))
		fo_fail("the argument written back splits otherwise", arg);
	if (filter)
		fo_filter(arg, event, filter);
	free(event2);
	free(back);
	free(event);
	free(arg);
	return 0;
}
