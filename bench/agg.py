#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""count/hist benchmark: does the user engine of `tpctl count` keep up with a
producer at full speed on the default buffer, and what does it cost per event
next to `tpctl stream --json` on the same events?

bench/gen (pinned to CPU 1) makes N getpid(2) calls, one
syscalls:sys_enter_getpid event each, as fast as it can; the reader (pinned to
CPU 0) traces them in its private instance with the kernel's default per-CPU
buffer and a filter on the generator's pid:

  tpctl count syscalls:sys_enter_getpid --by pid --engine user --json
  tpctl hist syscalls:sys_enter_getpid --field __syscall_nr --by pid --engine user --json
  tpctl stream syscalls:sys_enter_getpid --json > /dev/null

Per reader: events counted (count/hist: the table; stream: N less what it says
was lost), loss %, and CPU time (user + system, from wait4) per event.  With
--callgrind, also instructions per event under valgrind --tool=callgrind (a
paced generator, so that the reader under valgrind keeps up; N events minus a
run of 10 events, the start-up).  Prints a Markdown table per run
(bench/RESULTS-agg.md keeps some).

  bench/agg.py [--events N] [--runs R] [--callgrind] [--tpctl PATH] [--gen PATH]

Needs root and a writable tracefs; every instance is tpctl's own, removed by it.
"""
import argparse
import glob
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

TRACEFS = "/sys/kernel/tracing"
EVENT = "syscalls:sys_enter_getpid"
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIVE = []


class Gen:
    """bench/gen on CPU 1, waiting for its start line."""

    def __init__(self, path, n, rate=0, cpu=1):
        args = ["taskset", "-c", str(cpu), path, str(n)] + ([str(rate)] if rate else [])
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        LIVE.append(self.p)
        self.pid = int(self.p.stdout.readline())

    def go(self):
        self.p.stdin.write("go\n")
        self.p.stdin.flush()

    def finish(self):
        """Its last line, split: the calls made and the seconds they took."""
        out = self.p.stdout.readline().split()
        self.p.wait()
        return out

    def wait(self):
        out = self.finish()
        return float(out[1]) if len(out) >= 2 else 0.0


def ready(pid, timeout=20):
    """tpctl pid's instance has its event enabled."""
    path = os.path.join(TRACEFS, "instances", "tpctl-%d" % pid, "set_event")
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(path) as f:
                if f.read().strip():
                    return True
        except OSError:
            pass
        time.sleep(0.01)
    return False


def readers(tpctl):
    filt = "common_pid == PID"
    return [
        ("tpctl count --json", [tpctl, "count", EVENT, "--by", "pid", "--engine", "user",
                                "--json", "--filter", filt], "table"),
        ("tpctl hist --json", [tpctl, "hist", EVENT, "--field", "__syscall_nr", "--by", "pid",
                               "--engine", "user", "--json", "--filter", filt], "table"),
        ("tpctl stream --json", [tpctl, "stream", EVENT, "--json", "--filter", filt], "stream"),
    ]


def run_one(argv, kind, gen_path, n, rate=0, wrap=None):
    """One reader over one generator: (events seen, CPU seconds, wall seconds of gen)."""
    g = Gen(gen_path, n, rate)
    argv = [a.replace("PID", str(g.pid)) for a in argv]
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    cmd = (wrap or []) + argv
    p = subprocess.Popen(["taskset", "-c", "0"] + cmd,
                         stdout=out if kind == "table" else subprocess.DEVNULL, stderr=err)
    LIVE.append(p)
    # under valgrind the pid is valgrind's, which is tpctl's too (it runs in place)
    if not ready(p.pid, 120 if wrap else 20):
        p.kill()
        g.go()
        g.wait()
        raise SystemExit("%s: never became ready" % argv[1])
    time.sleep(0.1)
    g.go()
    secs = g.wait()
    time.sleep(0.3 if not wrap else 2)
    os.kill(p.pid, signal.SIGINT)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status
    LIVE.remove(p)
    cpu = ru.ru_utime + ru.ru_stime
    out.seek(0)
    err.seek(0)
    errtext = err.read().decode("utf-8", "replace")
    if kind == "table":
        doc = json.loads(out.read().decode())
        rows = doc.get("rows") or doc.get("groups")
        seen = sum(r["count"] for r in rows if r["key"]["pid"] == g.pid)
        lost = doc["lost"]
    else:
        m = re.search(r"events lost: (\d+) overwritten, (\d+) dropped", errtext)
        lost = int(m.group(1)) + int(m.group(2)) if m else 0
        seen = n - lost
    return seen, lost, cpu, secs, errtext


def callgrind(argv, kind, gen_path, n, rate):
    """Instructions per event: n events minus 10 events, under callgrind."""
    res = []
    for m in (10, n):
        d = tempfile.mkdtemp(prefix="tpbench-cg.")
        wrap = ["valgrind", "--tool=callgrind", "--callgrind-out-file=%s/cg.%%p" % d]
        seen, lost, cpu, secs, err = run_one(argv, kind, gen_path, m, rate, wrap)
        total = 0
        for f in glob.glob(os.path.join(d, "cg.*")):
            with open(f) as fh:
                for line in fh:
                    if line.startswith("summary:") or line.startswith("totals:"):
                        total = max(total, int(line.split()[1]))
            os.unlink(f)
        os.rmdir(d)
        if lost or seen != m:
            print("# callgrind run of %d events: saw %d, lost %d" % (m, seen, lost))
        res.append(total)
    return (res[1] - res[0]) / (n - 10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=2000000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--cg-events", type=int, default=100000)
    ap.add_argument("--cg-rate", type=int, default=20000)
    ap.add_argument("--tpctl", default=os.path.join(TOP, "tpctl"))
    ap.add_argument("--gen", default=os.path.join(TOP, "bench", "gen"))
    a = ap.parse_args()
    with open(os.path.join(TRACEFS, "buffer_size_kb")) as f:
        buf = f.read().strip()
    # "7 (expanded: 1408)": a buffer not allocated yet, the size a new instance gets
    m = re.search(r"expanded: (\d+)", buf)
    buf = m.group(1) if m else buf
    print("kernel %s, %d CPUs, %d getpid events at full speed (bench/gen on CPU 1, the reader "
          "on CPU 0), default per-CPU buffer (%s KiB at the top level)\n" %
          (os.uname().release, os.cpu_count(), a.events, buf))
    for run in range(1, a.runs + 1):
        print("Run %d:\n" % run)
        print("| reader | events seen | lost % | CPU s | CPU us / event | vs stream --json | "
              "generator rate |")
        print("|---|---|---|---|---|---|---|")
        rows = []
        for name, argv, kind in readers(a.tpctl):
            seen, lost, cpu, secs, err = run_one(argv, kind, a.gen, a.events)
            rows.append((name, seen, lost, cpu, secs))
        ref = [r for r in rows if r[0].startswith("tpctl stream")][0]
        ref_us = ref[3] / a.events * 1e6
        for name, seen, lost, cpu, secs in rows:
            us = cpu / a.events * 1e6
            print("| %s | %d | %.2f | %.2f | %.3f | %.2fx | %.1fM/s |" % (
                name, seen, 100.0 * (a.events - seen) / a.events, cpu, us,
                us / ref_us if ref_us else 0, a.events / secs / 1e6 if secs else 0))
        print()
        sys.stdout.flush()
    if a.callgrind:
        print("Instructions per event (valgrind --tool=callgrind, %d events at %d/s, minus a "
              "10-event run):\n" % (a.cg_events, a.cg_rate))
        print("| reader | instructions / event | vs stream --json |")
        print("|---|---|---|")
        res = [(name, callgrind(argv, kind, a.gen, a.cg_events, a.cg_rate))
               for name, argv, kind in readers(a.tpctl)]
        ref = res[-1][1]
        for name, ipe in res:
            print("| %s | %.0f | %.2fx |" % (name, ipe, ipe / ref if ref else 0))
        sys.stdout.flush()


if __name__ == "__main__":
    try:
        main()
    finally:
        for p in LIVE:
            if p.poll() is None:
                p.kill()
