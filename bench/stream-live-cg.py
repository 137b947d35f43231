#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Cost of live `tpctl stream` per event under callgrind: what a stream of a
running program costs, its reader's per-record work and target check
included (bench/stream-cg.py drains a filled instance instead).

Two processes pinned to one CPU pass a byte back and forth through a
socket pair (each pass a wake-up and a switch on either side) while `tpctl stream
sched:sched_switch sched:sched_wakeup -p PID,PID` follows them under valgrind
--tool=callgrind; with --event getpid, bench/gen calls getpid(2) and tpctl
streams syscalls:sys_enter_getpid with -p.  The program waits until tpctl's
instance has its events on, runs, and exits, which ends the stream.  The
same with SMALL passes gives the fixed cost (start-up, the drain at the end),
which is subtracted: the figure is the difference over the events between
the two runs.

  bench/stream-live-cg.py [--passes N] [--small N] [--tpctl PATH ...]
                          [--event sched|getpid] [--annotate DIR]

Several --tpctl builds (e.g. before and after a change) are measured each on
a run of its own.  With --annotate DIR the long runs' callgrind files
(--dump-instr=yes) are kept in DIR for callgrind_annotate.  Also printed:
the events per second one stream thread would format at the measured cost
on a 3 GHz core at one instruction per cycle (a rough bound, not a timing).
Needs root.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TRACEFS = "/sys/kernel/tracing"
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(TOP, "bench", "gen")

# Prints both pids, waits for a line, passes a byte N times, exits.
PINGPONG = """
import os, socket, sys
a, b = socket.socketpair()
pid = os.fork()
if pid == 0:
    a.close()
    c = b.recv(1)
    while c:
        b.send(c)
        c = b.recv(1)
    os._exit(0)
b.close()
print(os.getpid(), pid, flush=True)
for i in range(10 if sys.stdin.readline().strip() == "warm" else 0):
    a.send(b"x")
    a.recv(1)
print("warm", flush=True)
sys.stdin.readline()
for i in range(int(sys.argv[1])):
    a.send(b"x")
    a.recv(1)
a.close()
os.waitpid(pid, 0)
"""

EVENTS = {
    "sched": ["sched:sched_switch", "sched:sched_wakeup"],
    "getpid": ["syscalls:sys_enter_getpid"],
}


WARM = "bench-cmdlines-%d" % os.getpid()


def wr(path, val):
    with open(path, "w") as f:
        f.write(val)


def warm(p):
    """
    The ping-pong's tasks switched while an instance of the bench's own
    records sched_switch, so that the kernel's saved_cmdlines has their
    names before tpctl reads it: tpctl reads it again (some 10 M
    instructions) every 100 ms while a task of the records is unknown, a
    cost of the clock, not of the events, that callgrind's slowed clock
    would count a varying number of times.
    """
    d = os.path.join(TRACEFS, "instances", WARM)
    os.mkdir(d)
    try:
        en = os.path.join(d, "events", "sched", "sched_switch", "enable")
        wr(en, "1")
        p.stdin.write("warm\n")
        p.stdin.flush()
        p.stdout.readline()
        wr(en, "0")
    finally:
        os.rmdir(d)


def program(event, n):
    """The traced program, started on CPU 0 and waiting; (process, pids)."""
    if event == "getpid":
        argv = [GEN, str(n)]
    else:
        argv = [sys.executable, "-c", PINGPONG, str(n)]
    p = subprocess.Popen(["taskset", "-c", "0"] + argv, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    pids = p.stdout.readline().split()
    if event != "getpid":
        warm(p)
    return p, pids


def ready(vg_pid, event):
    """tpctl's private instance has its (first) event on."""
    sys_, name = EVENTS[event][0].split(":")
    en = os.path.join(TRACEFS, "instances", "tpctl-%d" % vg_pid, "events", sys_, name, "enable")
    try:
        with open(en) as f:
            return f.read().strip() == "1"
    except OSError:
        return False


def run(tpctl, event, n, json, keep=None):
    """Instructions of one run and the lines it wrote."""
    prog, pids = program(event, n)
    with tempfile.TemporaryDirectory() as t:
        cg = os.path.join(t, "cg.out")
        out = os.path.join(t, "out")
        argv = ["taskset", "-c", "1", "valgrind", "--tool=callgrind",
                "--callgrind-out-file=" + cg]
        if keep:
            argv.append("--dump-instr=yes")
        argv += [tpctl, "stream", "--buffer-kb", "65536", "-p", ",".join(pids)]
        argv += EVENTS[event] + (["--json"] if json else [])
        with open(out, "wb") as f:
            vg = subprocess.Popen(argv, stdout=f, stderr=subprocess.DEVNULL)
            # taskset execs valgrind, which runs tpctl in the same process
            deadline = time.time() + 120
            while not ready(vg.pid, event):
                if vg.poll() is not None or time.time() > deadline:
                    prog.kill()
                    vg.kill()
                    sys.exit("stream-live-cg.py: tpctl did not start")
                time.sleep(0.1)
            time.sleep(0.5)
            prog.stdin.write("go\n")
            prog.stdin.flush()
            prog.wait()
            vg.wait()
        with open(cg) as f:
            ir = int(re.search(r"^summary: (\d+)", f.read(), re.M).group(1))
        if keep:
            shutil.copy(cg, keep)
        with open(out, "rb") as f:
            lines = sum(1 for _ in f)
    return ir, lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passes", type=int, default=120000)
    ap.add_argument("--small", type=int, default=20000)
    ap.add_argument("--tpctl", action="append")
    ap.add_argument("--event", default="sched", choices=tuple(EVENTS))
    ap.add_argument("--output", default="both", choices=("both", "json", "text"))
    ap.add_argument("--annotate")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("stream-live-cg.py: needs root")
    builds = a.tpctl or [os.path.join(TOP, "tpctl")]
    outs = {"both": (True, False), "json": (True,), "text": (False,)}[a.output]
    print("| build | events | output | instructions / event | events | events/s at 3 G instr/s |")
    print("|---|---|---|---:|---:|---:|")
    for k, b in enumerate(builds):
        for json in outs:
            keep = None
            if a.annotate:
                os.makedirs(a.annotate, exist_ok=True)
                keep = os.path.join(a.annotate, "cg.%d.%s.%s" % (k, a.event,
                                                                "json" if json else "text"))
            ir, lines = run(b, a.event, a.passes, json, keep)
            ir0, lines0 = run(b, a.event, a.small, json)
            ev = max(lines - lines0, 1)
            per = (ir - ir0) / ev
            print("| %s | %s | %s | %.0f | %d | %.1f M |" % (
                b, a.event, "--json" if json else "text", per, ev, 3e9 / per / 1e6))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
