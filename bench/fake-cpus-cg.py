#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The cost of `tpctl stream` with many busy CPUs, on a 2-CPU machine: a
--tracefs tree of plain files (tfs.c's tfs_ncpus(): as many CPUs as its
per_cpu directories) holding K CPUs' sub-buffers of sys_enter_getpid
records, stamped so that the CPUs' records interleave one by one (as 14
producers at full speed do), one task per CPU.  `tpctl --tracefs TREE stream
--drain` reads it under callgrind, each thread counted apart; the figure is
the difference of an N- and a SMALL-record tree per record: the main
thread's (with --threads: the writer's merge and writes) and all threads'.
No root and no tracefs needed (the tree: tests/cli/fakecpus.py).

  bench/fake-cpus-cg.py [--cpus K] [--events N] [--small N] [--tpctl PATH]
                        [--threads T]... [--text]
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "cli"))
from fakecpus import make_tree  # noqa: E402


def measure(tpctl, tree, args, t):
    cg = os.path.join(t, "cg")
    for f in glob.glob(cg + "*"):
        os.unlink(f)
    subprocess.run(["valgrind", "--tool=callgrind", "--separate-threads=yes",
                    "--callgrind-out-file=" + cg, tpctl, "--tracefs", tree, "stream",
                    "--drain"] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    per = {}
    for f in glob.glob(cg + "*"):
        with open(f) as fh:
            m = re.search(r"^(?:summary|totals): (\d+)", fh.read(), re.M)
        per[f] = int(m.group(1)) if m else 0
    main = per.get(cg + "-01", per.get(cg, 0))
    return main, sum(per.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cpus", type=int, default=16)
    ap.add_argument("--events", type=int, default=160000)
    ap.add_argument("--small", type=int, default=32000)
    ap.add_argument("--tpctl", default=os.path.join(TOP, "tpctl"))
    ap.add_argument("--threads", type=int, action="append")
    ap.add_argument("--text", action="store_true")
    a = ap.parse_args()
    print("| CPUs | output | threads | main thread / record | all threads / record |")
    print("|---:|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as t:
        big, small = os.path.join(t, "big"), os.path.join(t, "small")
        make_tree(big, a.cpus, a.events)
        make_tree(small, a.cpus, a.small)
        k = (a.events // a.cpus - a.small // a.cpus) * a.cpus
        for th in [0] + (a.threads or []):
            args = ([] if a.text else ["--json"]) + (["--threads", str(th)] if th else [])
            bm, ba = measure(a.tpctl, big, args, t)
            sm, sa = measure(a.tpctl, small, args, t)
            print("| %d | %s | %s | %.0f | %.0f |" % (a.cpus, "text" if a.text else "--json",
                                                     th or "-", (bm - sm) / k, (ba - sa) / k))


if __name__ == "__main__":
    main()
