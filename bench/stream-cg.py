#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Decode cost of `tpctl stream`: instructions per event under callgrind
(deterministic, so two builds compare on a busy machine), with and without
stack traces.

A private instance is filled with N syscalls:sys_enter_getpid events of
bench/gen (filtered on its pid, tracing then off), and `tpctl -i INST stream
--drain [--json]` decodes it under valgrind --tool=callgrind; the same with a
small N gives the start-up cost, which is subtracted.  With --stacks the
instance also records a kernel stack (options/stacktrace) and a user stack
(options/userstacktrace) after each event: the figure is then per event with
its two stack records.

  bench/stream-cg.py [--events N] [--small N] [--tpctl PATH ...] [--stacks]
                     [--event getpid|sched_switch|sched_wakeup] [--threads N]

With --event sched_switch or sched_wakeup the instance holds that event of
the whole machine while two processes pass a byte back and forth through
pipes (each pass a wake-up and a switch), at least N of them, and tpctl
reads it with --count N, and a second instance filled at the same time (so
holding the same records) with --count SMALL: the difference per event.

With --threads N, tpctl formats with N threads beside the reading one
(stream --threads) and callgrind counts each thread apart: the table then
says the reading thread's instructions per event and all threads' together.

Several --tpctl builds (e.g. before and after a change) are measured on the
same kind of data, one fresh instance per run.  Needs root.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

TRACEFS = "/sys/kernel/tracing"
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(TOP, "bench", "gen")


def wr(path, val):
    with open(path, "w") as f:
        f.write(val)


def fill(inst, n, stacks):
    """A new instance holding n getpid events of one generator (and their stacks)."""
    d = os.path.join(TRACEFS, "instances", inst)
    os.mkdir(d)
    wr(os.path.join(d, "buffer_size_kb"), "65536" if stacks else "16384")
    wr(os.path.join(d, "tracing_on"), "0")
    gen = subprocess.Popen([GEN, str(n)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           text=True)
    pid = int(gen.stdout.readline())
    ev = os.path.join(d, "events", "syscalls", "sys_enter_getpid")
    wr(os.path.join(ev, "filter"), "common_pid == %d" % pid)
    wr(os.path.join(ev, "enable"), "1")
    if stacks:
        wr(os.path.join(d, "options", "stacktrace"), "1")
        wr(os.path.join(d, "options", "userstacktrace"), "1")
    wr(os.path.join(d, "tracing_on"), "1")
    gen.stdin.write("go\n")
    gen.stdin.flush()
    gen.stdout.readline()
    gen.wait()
    wr(os.path.join(d, "tracing_on"), "0")
    wr(os.path.join(ev, "enable"), "0")
    # the stack options stay on while tpctl reads: they tell it stacks are recorded


def fill_sched(insts, n, event):
    """New instances holding the same records of sched:EVENT, at least n (a ping-pong)."""
    evs = []
    for inst in insts:
        d = os.path.join(TRACEFS, "instances", inst)
        os.mkdir(d)
        wr(os.path.join(d, "buffer_size_kb"), "65536")
        wr(os.path.join(d, "tracing_on"), "0")
        evs.append(os.path.join(d, "events", "sched", event))
        wr(os.path.join(evs[-1], "enable"), "1")
    for inst in insts:
        wr(os.path.join(TRACEFS, "instances", inst, "tracing_on"), "1")
    pp = subprocess.Popen([sys.executable, "-c", """
import os, sys
a, b = os.pipe(), os.pipe()
pid = os.fork()
if pid == 0:
    os.close(a[1]); os.close(b[0])
    while True:
        c = os.read(a[0], 1)
        if not c:
            os._exit(0)
        os.write(b[1], c)
os.close(a[0]); os.close(b[1])
for i in range(int(sys.argv[1])):
    os.write(a[1], b"x")
    os.read(b[0], 1)
os.close(a[1])
os.waitpid(pid, 0)
""", str(n)])
    pp.wait()
    for inst, ev in zip(insts, evs):
        wr(os.path.join(TRACEFS, "instances", inst, "tracing_on"), "0")
        wr(os.path.join(ev, "enable"), "0")


def remove(inst):
    d = os.path.join(TRACEFS, "instances", inst)
    if os.path.isdir(d):
        for o in ("stacktrace", "userstacktrace"):
            wr(os.path.join(d, "options", o), "0")
        os.rmdir(d)


THREADS = 0


def callgrind(argv):
    """Instructions of the run (all threads, the first thread's), and the lines it printed."""
    if THREADS:
        argv = argv + ["--threads", str(THREADS)]
    with tempfile.TemporaryDirectory() as t:
        out = os.path.join(t, "out")
        cg = os.path.join(t, "cg.out")
        with open(out, "wb") as f:
            subprocess.run(["valgrind", "--tool=callgrind", "--separate-threads=yes",
                            "--callgrind-out-file=" + cg] + argv,
                           stdout=f, stderr=subprocess.DEVNULL, check=False)
        total = first = 0
        for name in sorted(os.listdir(t)):
            if not name.startswith("cg.out"):
                continue
            with open(os.path.join(t, name)) as f:
                m = re.search(r"^summary: (\d+)", f.read(), re.M)
            # (a file without a summary: a process that had not run when it was cut off)
            if not m:
                continue
            total += int(m.group(1))
            if name.endswith("-01"):
                first = int(m.group(1))
        with open(out, "rb") as f:
            lines = sum(1 for _ in f)
        return (total, first), lines


def measure(tpctl, n, small, json, stacks, event="getpid"):
    res = []
    if event != "getpid":
        # two instances filled at once hold the same records: the first SMALL
        # records of one are those of the long run of the other
        insts = ["tpbench-cg-%d-%d" % (os.getpid(), k) for k in (n, small)]
        try:
            fill_sched(insts, n, event)
            for inst, k in zip(insts, (n, small)):
                res.append(callgrind([tpctl, "-i", inst, "stream", "--drain", "--count",
                                      str(k)] + (["--json"] if json else [])))
        finally:
            for inst in insts:
                remove(inst)
        return per_event(res, n, small)
    for k in (n, small):
        inst = "tpbench-cg-%d" % os.getpid()
        try:
            fill(inst, k, stacks)
            ir, lines = callgrind([tpctl, "-i", inst, "stream", "--drain"] +
                                  (["--json"] if json else []))
        finally:
            remove(inst)
        res.append((ir, lines))
    return per_event(res, n, small)


def per_event(res, n, small):
    """(all threads, the reading thread) per event, start-up, lines"""
    ((ir, first), lines), ((ir0, first0), _) = res
    return ((ir - ir0) / max(n - small, 1), (first - first0) / max(n - small, 1)), ir0, lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100000)
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--tpctl", action="append")
    ap.add_argument("--stacks", action="store_true")
    ap.add_argument("--event", default="getpid",
                    choices=("getpid", "sched_switch", "sched_wakeup"))
    ap.add_argument("--threads", type=int, default=0)
    a = ap.parse_args()
    global THREADS
    THREADS = a.threads
    if os.geteuid() != 0:
        sys.exit("stream-cg.py: needs root")
    builds = a.tpctl or [os.path.join(TOP, "tpctl")]
    print("| build | event | output | stacks | threads | instructions / event "
          "| of them the reading thread's | start-up instructions | lines (%d events) |"
          % a.events)
    print("|---|---|---|---|---:|---:|---:|---:|---:|")
    for b in builds:
        for json in (True, False):
            (per, first), ir0, lines = measure(b, a.events, a.small, json, a.stacks, a.event)
            print("| %s | %s | %s | %s | %d | %.0f | %.0f | %.1f M | %d |" % (
                b, a.event, "--json" if json else "text", "kernel+user" if a.stacks else "no",
                a.threads, per, first, ir0 / 1e6, lines))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
