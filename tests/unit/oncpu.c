// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * oncpu.c, the one inference of a switch in the kernel did not record
 * (latency sched and latency offcpu): where each kind of record places it.
 * Prints TAP; oncpu.t runs it.
 */
#include <stdio.h>
#include <string.h>

#include "oncpu.h"

static int n, failed;

static void ok(int cond, const char *what)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++n, what);
	if (!cond)
		failed = 1;
}

int main(void)
{
	struct oncpu o = { 0 };
	uint64_t at = 0;
	char cpus[64];
	int pid;

	printf("1..10\n");
	/* sleep (100) out on CPU 0, woken at 1000 on CPU 0 (idle), runs on CPU 1 unseen */
	oncpu_switch(&o, 0, 10, 100, 0);
	oncpu_switch(&o, 1, 5, 7, 0);
	ok(!oncpu_record(&o, 0, 1000, 0, &at), "the idle task's record infers nothing");
	oncpu_wakeup(&o, 100, 1000);
	ok(oncpu_record(&o, 1, 1500, 100, &at) && at == 1000,
	   "a woken task's record on an idle CPU: in at its wakeup");
	ok(!oncpu_record(&o, 1, 1600, 100, &at), "... once");
	/* woken at 2000, another task ran on CPU 1 at 2500 before it */
	oncpu_switch(&o, 1, 1700, 100, 0);
	oncpu_wakeup(&o, 100, 2000);
	oncpu_record(&o, 1, 2500, 8, &at);
	ok(oncpu_record(&o, 1, 3000, 100, &at) && at == 2500,
	   "another task ran there after the wakeup: in at the CPU's previous record");
	/* switched out runnable (no wakeup), its CPU's state unknown: the record itself */
	oncpu_switch(&o, 0, 4000, 100, 0);
	oncpu_lost(&o, 1);
	ok(oncpu_record(&o, 1, 4200, 100, &at) && at == 4200,
	   "no wakeup, no CPU state: in at the record itself");
	/* a wakeup of a task still on its CPU leaves it in */
	oncpu_wakeup(&o, 100, 4300);
	ok(!oncpu_record(&o, 1, 4400, 100, &at), "a wakeup of a running task: nothing missing");
	/* a recorded switch in: nothing to infer */
	oncpu_switch(&o, 1, 4500, 100, 0);
	oncpu_wakeup(&o, 100, 5000);
	oncpu_switch(&o, 0, 5100, 0, 100);
	ok(!oncpu_record(&o, 0, 5200, 100, &at), "a recorded switch in: nothing inferred");
	/* a new task first seen woken */
	oncpu_wakeup(&o, 200, 6000);
	ok(oncpu_record(&o, 1, 6100, 200, &at) && at == 6000, "a new task: in at its wakeup");
	oncpu_said(&o, 1);
	oncpu_said(&o, 1);
	ok(oncpu_inferred(&o, cpus, sizeof(cpus)) == 2 && !strcmp(cpus, "CPU 1: 2"),
	   "the count said: CPU 1: 2");
	/* many tasks come and go: those forgotten are unknown again */
	for (pid = 1000; pid < 3000; pid++)
		oncpu_switch(&o, 0, 7000 + pid, pid, 0);
	for (pid = 1000; pid < 3000; pid += 2)
		oncpu_forget(&o, pid);
	for (pid = 1000; pid < 3000; pid++)
		if (oncpu_record(&o, 0, 9000 + pid, pid, &at) != (pid & 1))
			break;
	ok(pid == 3000, "2000 tasks, half forgotten: the others still known");
	oncpu_free(&o);
	return failed;
}
