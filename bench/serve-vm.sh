#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tpctl serve's CPU time, kernel engine against user engine, with 10,000
# series (count syscalls:sys_enter_read --by count; tests/vm/aggload.c spread
# reads sizes 1 to 10000 in turn, as fast as it can).  Only the VM's 6.1
# kernel has hist triggers, so this boots it (qemu TCG: an emulated CPU, so
# compare the engines as ratios within one run, not with the host's figures)
# and runs only tests/vm/guest/parts/90-servebench.sh, which reads serve's
# utime + stime from /proc/PID/stat over an idle window and over K scrapes.
# Printed per engine: serve's CPU between scrapes (% of one CPU), CPU per
# scrape (ms, the idle rate taken out; and of it the system time: the kernel
# makes a hist file's text as it is read), series in the answer, the producer's
# CPU share and its reads per second (from the counters of two scrapes).
# Run from the top directory, as root:
#   flock /tmp/tpctl-bench.lock flock /tmp/tpctl-vm.lock bench/serve-vm.sh [RUNS]
# The VM's results replace tests/vm/work/out (make check-vm makes them again).
set -e
cd "$(dirname "$0")/.."
RUNS=${1:-1}
for run in $(seq "$RUNS"); do
	VM_ONLY=servebench make -s vm-run >/dev/null
	python3 - tests/vm/work/out/servebench "$run" <<'EOF'
import os
import re
import sys

d, run = sys.argv[1], sys.argv[2]
TICK = 0.01  # USER_HZ


def counters(path):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return 0, 0
    vals = [int(m) for m in re.findall(r"^tpctl_events_total\{[^}]*\} (\d+)$", text, re.M)]
    return len(vals), sum(vals)


if run == "1":
    print("run engine  idle-CPU%  ms/scrape (system)  series  producer-CPU%  reads/s  exit")
for e in ("kernel", "user"):
    try:
        c0, c1, c2, u0, u1, u2, p0, p1, p2, k, s0, s1, s2 = \
            open(os.path.join(d, e + ".times")).read().split()
    except (OSError, ValueError):
        print("%3s %-6s  no result (%s)" % (run, e, open(os.path.join(d, e + ".err"),
                                                        errors="replace").read()[-300:]))
        continue
    c0, c1, c2, p0, p1, p2, k, s0, s1, s2 = map(int, (c0, c1, c2, p0, p1, p2, k, s0, s1, s2))
    u0, u1, u2 = map(float, (u0, u1, u2))
    idle = (c1 - c0) * TICK / (u1 - u0)
    per = ((c2 - c1) * TICK - idle * (u2 - u1)) / k
    sidle = (s1 - s0) * TICK / (u1 - u0)
    sper = ((s2 - s1) * TICK - sidle * (u2 - u1)) / k
    series, first = counters(os.path.join(d, e + ".first"))
    _, last = counters(os.path.join(d, e + ".last"))
    # the first answer came before the idle window, the last at the end of the scrapes
    rate = (last - first) / (u2 - u0) if last > first else 0
    prod = (p2 - p0) * TICK / (u2 - u0)
    rc = open(os.path.join(d, e + ".rc")).read().strip()
    print("%3s %-6s  %8.1f  %9.1f %8.1f  %6d  %13.0f  %7.0f  %4s" %
          (run, e, 100 * idle, 1000 * per, 1000 * sper, series, 100 * prod, rate, rc))
EOF
done
