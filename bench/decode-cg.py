#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Decode and write cost per record, no tracefs needed: instructions under
callgrind of `decode-fixtures repeat-text|repeat-json DIR EVENT N [CPUS]` (the
first EVENT record of a saved fixture, N times on pages built in memory, dealt
out to CPUS CPUs in turn, through the reader's merge and the output layer),
the difference of a run of N and one of SMALL records per record.  Deterministic: builds compare on a busy
machine.  bench/stream-cg.py measures the same on a live instance (root).

  bench/decode-cg.py [--events N] [--small N] [--dir FIXTURE]
                     [--event NAME]... [--tep] [--cpus K]

--cpus K: the records of K busy CPUs, interleaved in time (the merge's cost
on a many-CPU machine, which the live bench cannot make here).

--tep also measures with TPCTL_TEXTPLAN=0 (libtraceevent prints the text).
"""
import argparse
import os
import re
import subprocess
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(TOP, "tests", "unit", "bin", "decode-fixtures")


def instructions(argv, env):
    with tempfile.TemporaryDirectory() as t:
        cg = os.path.join(t, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                       check=True)
        with open(cg) as f:
            return int(re.search(r"^summary: (\d+)", f.read(), re.M).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=120000)
    ap.add_argument("--small", type=int, default=20000)
    ap.add_argument("--dir", default=os.path.join(TOP, "tests", "unit", "fixtures", "host"))
    ap.add_argument("--event", action="append")
    ap.add_argument("--tep", action="store_true")
    ap.add_argument("--cpus", type=int, default=1)
    a = ap.parse_args()
    events = a.event or ["sys_enter_getpid", "sched_switch", "sched_wakeup"]
    plans = [("plan", None)] + ([("tep", "0")] if a.tep else [])
    print("| event | mode | text by | CPUs | instructions per record |")
    print("|---|---|---|---:|---:|")
    for ev in events:
        for mode in ("text", "json"):
            for name, val in plans:
                if mode == "json" and name == "tep":
                    continue
                env = dict(os.environ)
                if val is not None:
                    env["TPCTL_TEXTPLAN"] = val
                big = instructions([BIN, "repeat-" + mode, a.dir, ev, str(a.events),
                                    str(a.cpus)], env)
                small = instructions([BIN, "repeat-" + mode, a.dir, ev, str(a.small),
                                      str(a.cpus)], env)
                print("| %s | %s | %s | %d | %.0f |" % (ev, mode, name if mode == "text" else "-",
                                                       a.cpus, (big - small) /
                                                       (a.events - a.small)))


if __name__ == "__main__":
    main()
