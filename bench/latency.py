#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""latency benchmark: does `tpctl latency syscall` keep up with a producer at full
speed, and what does a pair cost next to `tpctl count` on the same events?

bench/gen makes getpid(2) calls on CPU 1 as fast as it can (two events each:
raw_syscalls:sys_enter and sys_exit); the reader runs on CPU 0 with the default
per-CPU buffer, filtered on the generator's pid:

  tpctl latency syscall --by pid --json
  tpctl count raw_syscalls:sys_enter raw_syscalls:sys_exit --by pid --engine user --json

Events seen: count's rows for the pid; latency's pairs x 2.  CPU per event is
the reader's CPU time (rusage) over the events the generator made.

  bench/latency.py [--events N] [--runs R] [--tpctl PATH] [--gen PATH]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agg as harness  # noqa: E402  (bench/agg.py: the generator and the reader runs)


def readers(tpctl):
    filt = "common_pid == PID"
    return [
        ("tpctl latency syscall --json", [tpctl, "latency", "syscall", "--by", "pid", "--json",
                                          "--filter", filt], 2),
        ("tpctl count --json", [tpctl, "count", "raw_syscalls:sys_enter",
                                "raw_syscalls:sys_exit", "--by", "pid", "--engine", "user",
                                "--json", "--filter", filt], 1),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=1000000, help="getpid calls per run")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tpctl", default=os.path.join(harness.TOP, "tpctl"))
    ap.add_argument("--gen", default=os.path.join(harness.TOP, "bench", "gen"))
    a = ap.parse_args()
    n = a.events
    print("kernel %s, %d CPUs, %d getpid calls (%d events) at full speed, bench/gen on CPU 1, "
          "the reader on CPU 0, default buffer\n" % (os.uname().release, os.cpu_count(), n, 2 * n))
    for run in range(1, a.runs + 1):
        print("Run %d (load %s):\n" % (run, open("/proc/loadavg").read().split(" ", 3)[:3]))
        print("| reader | events seen | lost % | CPU s | CPU us / event | vs count | "
              "generator rate |")
        print("|---|---|---|---|---|---|---|")
        rows = []
        for name, argv, per in readers(a.tpctl):
            seen, lost, cpu, secs, err = harness.run_one(argv, "table", a.gen, n)
            rows.append((name, seen * per, cpu, secs))
        ref_us = rows[-1][2] / (2 * n) * 1e6
        for name, seen, cpu, secs in rows:
            us = cpu / (2 * n) * 1e6
            # the generator's own exit adds a few syscalls: more seen than made is no loss
            print("| %s | %d | %.2f | %.2f | %.3f | %.2fx | %.2fM calls/s |" % (
                name, seen, max(0.0, 100.0 * (2 * n - seen) / (2 * n)), cpu, us,
                us / ref_us if ref_us else 0, n / secs / 1e6 if secs else 0))
        print()
        sys.stdout.flush()


if __name__ == "__main__":
    try:
        main()
    finally:
        for p in harness.LIVE:
            if p.poll() is None:
                p.kill()
