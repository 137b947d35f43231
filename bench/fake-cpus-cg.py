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
No root and no tracefs needed (the formats come from this machine's
tracefs when it has one, else from the decode fixtures).

  bench/fake-cpus-cg.py [--cpus K] [--events N] [--small N] [--tpctl PATH]
                        [--threads T]... [--text]
"""
import argparse
import glob
import os
import re
import shutil
import struct
import subprocess
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIVE = "/sys/kernel/tracing"
FIXTURE = os.path.join(TOP, "tests", "unit", "fixtures", "host")
SUBBUF = 4096


def source_files():
    """header_page and the getpid format: this machine's, or the fixture's."""
    fmt = os.path.join(LIVE, "events", "syscalls", "sys_enter_getpid", "format")
    if os.path.exists(fmt):
        return os.path.join(LIVE, "events", "header_page"), fmt
    return (os.path.join(FIXTURE, "header_page"),
            os.path.join(FIXTURE, "formats", "syscalls:sys_enter_getpid"))


def make_tree(root, ncpu, n):
    header, fmt = source_files()
    ev = os.path.join(root, "events", "syscalls", "sys_enter_getpid")
    os.makedirs(ev)
    os.makedirs(os.path.join(root, "instances"))
    os.makedirs(os.path.join(root, "options"))
    shutil.copy(header, os.path.join(root, "events", "header_page"))
    shutil.copy(fmt, os.path.join(ev, "format"))
    text = open(fmt).read()
    eid = int(re.search(r"^ID: (\d+)", text, re.M).group(1))
    files = {
        "available_events": "syscalls:sys_enter_getpid\n",
        "set_event": "syscalls:sys_enter_getpid\n",
        "tracing_on": "0\n",
        "buffer_size_kb": "1408\n",
        "trace_clock": "[local] global\n",
        "saved_cmdlines": "".join("%d prod%d\n" % (1000 + c, c) for c in range(ncpu)),
        "events/syscalls/enable": "1\n",
        "events/syscalls/sys_enter_getpid/enable": "1\n",
        "events/syscalls/sys_enter_getpid/filter": "none\n",
    }
    for name, data in files.items():
        with open(os.path.join(root, name), "w") as f:
            f.write(data)
    per = n // ncpu
    for c in range(ncpu):
        d = os.path.join(root, "per_cpu", "cpu%d" % c)
        os.makedirs(d)
        with open(os.path.join(d, "stats"), "w") as f:
            f.write("entries: 0\noverrun: 0\ncommit overrun: 0\nbytes: 0\n"
                    "oldest event ts: 0.0\nnow ts: 0.0\ndropped events: 0\nread events: 0\n")
        ts, out, k = 1000000000 + 100 * c, bytearray(), 0
        while k < per:
            page = bytearray(SUBBUF)
            struct.pack_into("<Q", page, 0, ts)
            off, first = 16, True
            while k < per and off + 16 <= SUBBUF:
                delta = 0 if first else 100 * ncpu
                first = False
                ts += delta
                # type_len 3: 12 bytes of record (common header, __syscall_nr)
                struct.pack_into("<IHBBii", page, off, delta << 5 | 3, eid, 0, 0, 1000 + c, 39)
                off, k = off + 16, k + 1
            struct.pack_into("<Q", page, 8, off - 16)
            ts += 100 * ncpu
            out += page
        with open(os.path.join(d, "trace_pipe_raw"), "wb") as f:
            f.write(out)


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
