// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A parent that waits 1 s uninterruptibly: vfork() holds it (D, in
 * wait_for_vfork_done) until the child execs or exits, and the child sleeps
 * (S, in do_nanosleep) for that second first.  latency-offcpu-state.t's D.
 */
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	struct timespec t = { 1, 0 };
	pid_t pid = vfork();

	if (pid == 0) {
		/* the raw call: the child shares the parent's memory until it exits */
		syscall(SYS_nanosleep, &t, NULL);
		_exit(0);
	}
	if (pid < 0)
		return 1;
	return waitpid(pid, NULL, 0) == pid ? 0 : 1;
}
