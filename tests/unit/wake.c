// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The wake-up pipe of src/state.c: a signal that comes after a loop has
 * looked at state_stop and before it sleeps must still end the sleep.  The
 * signal is raised here exactly there (between the look and the wait), so
 * a wait that only an EINTR could end would sleep its whole timeout.
 * Prints TAP; wake.t runs it.
 */
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "state.h"

static int n, failed;

static void ok(int cond, const char *what)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++n, what);
	if (!cond)
		failed = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	double t0;
	int r;

	printf("1..5\n");
	state_init();
	state_set_graceful(true);
	ok(!state_stop, "no signal yet");
	/* the loop looked at state_stop (0) above; the signal comes now */
	raise(SIGTERM);
	ok(state_stop == SIGTERM, "TERM handled gracefully: state_stop set");
	t0 = now();
	r = state_pause(3000);
	ok(r > 0 && now() - t0 < 1.0,
	   "a wait begun after the signal ends at once (woken, not timed out)");
	t0 = now();
	r = state_pause(100);
	ok(r == 0 && now() - t0 >= 0.09, "the wake-up was taken: the next wait times out");
	/* SIGCHLD's handler (target.c) and others call state_wake() alone */
	state_wake();
	state_wake();
	r = state_pause(3000);
	ok(r > 0 && state_pause(0) == 0, "state_wake(): one wait ends, twice woken or not");
	return failed;
}
