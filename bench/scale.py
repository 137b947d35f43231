#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Scaling benchmark: P producers (bench/gen, getpid(2) at full speed) pinned to
CPUs 1..P, each making N events, read by one consumer:

  json     tpctl stream --json syscalls:sys_enter_getpid -p PIDS | wc -l
  text     tpctl stream syscalls:sys_enter_getpid -p PIDS | wc -l
  record   tpctl record -o FILE syscalls:sys_enter_getpid -p PIDS
           (events counted afterwards with tpctl count --input FILE)
  count    tpctl count --engine user --json syscalls:sys_enter_getpid -p PIDS
  jsonnull tpctl stream --json ... > /dev/null, textnull the same in text: the events
           delivered are those made less those tpctl says were lost (its stderr line)

with the instance's default buffer and with --buffer-kb 65536.  Printed per
run: events lost (%), the consumer's CPU time (user + system, from wait4) per
event made, the producers' rate (events/s while they ran) and the events delivered per
second of that same window (delivered/s).

  bench/scale.py [--producers P] [--events N] [--runs R] [--consumers LIST]
                 [--buffers default,65536] [--pin-consumer CPU] [--tpctl PATH]

Needs root.  The consumer runs where the scheduler puts it unless
--pin-consumer names a CPU (on a 2-CPU machine: --producers 1 --pin-consumer 0).
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agg  # noqa: E402  (bench/agg.py: its Gen)

TRACEFS = "/sys/kernel/tracing"
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(TOP, "bench", "gen")
EVENT = "syscalls:sys_enter_getpid"


def rd(path):
    with open(path) as f:
        return f.read()


class Gen(agg.Gen):
    """bench/gen pinned to cpu; wait() gives the calls made and their seconds."""

    def __init__(self, n, cpu):
        super().__init__(GEN, n, cpu=cpu)

    def wait(self):
        out = self.finish()
        return int(out[0]), float(out[1])


def instance_ready(pid):
    d = os.path.join(TRACEFS, "instances", "tpctl-%d" % pid)
    try:
        return (rd(os.path.join(d, "events/syscalls/sys_enter_getpid/enable"))[0] == "1" and
                rd(os.path.join(d, "tracing_on"))[0] == "1")
    except OSError:
        return False


def one(a, consumer, kb, tmp):
    gens = [Gen(a.events, 1 + i) for i in range(a.producers)]
    pids = ",".join(str(g.pid) for g in gens)
    buf = [] if kb == "default" else ["--buffer-kb", kb]
    pin = ["taskset", "-c", str(a.pin_consumer)] if a.pin_consumer is not None else []
    dat = os.path.join(tmp, "scale.dat")
    if consumer in ("json", "text", "jsonnull", "textnull"):
        argv = [a.tpctl, "stream", EVENT] + (["--json"] if consumer.startswith("json") else [])
    elif consumer == "record":
        argv = [a.tpctl, "record", "-o", dat, EVENT]
    else:
        argv = [a.tpctl, "count", "--engine", "user", "--json", EVENT]
    argv = pin + argv + buf + a.extra + ["-p", pids]
    outf = open(os.path.join(tmp, "out"), "w+")
    errf = open(os.path.join(tmp, "err"), "w+")
    if consumer in ("json", "text"):
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errf)
        wc = subprocess.Popen(["wc", "-l"], stdin=p.stdout, stdout=outf)
        p.stdout.close()
    elif consumer.endswith("null"):
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=errf)
        wc = None
    else:
        p = subprocess.Popen(argv, stdout=outf, stderr=errf)
        wc = None
    deadline = time.monotonic() + 20
    while not instance_ready(p.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    t0 = time.monotonic()
    for g in gens:
        g.go()
    made, secs = 0, 0.0
    for g in gens:
        n, s = g.wait()
        made += n
        secs = max(secs, s)
    # let the consumer take what is buffered, then stop it as Ctrl-C would
    time.sleep(0.5 if a.events * a.producers < 5000000 else 1.0)
    os.kill(p.pid, signal.SIGINT)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status
    if wc:
        wc.wait()
    cpu = ru.ru_utime + ru.ru_stime
    outf.seek(0)
    out = outf.read()
    errf.seek(0)
    err = errf.read()
    if consumer in ("json", "text"):
        # a lost marker is a line too: it stands for many events lost
        got = int(out.split()[0])
    elif consumer.endswith("null"):
        m = re.search(r"events lost: (\d+) overwritten, (\d+) dropped", err)
        got = made - (int(m.group(1)) + int(m.group(2)) if m else 0)
    elif consumer == "record":
        c = subprocess.run([a.tpctl, "count", "--input", dat, "--json", EVENT],
                           capture_output=True, text=True)
        got = sum(r["count"] for line in c.stdout.splitlines()
                  for r in json.loads(line).get("rows", []))
    else:
        got = sum(r["count"] for line in out.splitlines()
                  for r in json.loads(line).get("rows", []))
    lost = max(made - got, 0)
    return {"lost": 100.0 * lost / made, "us": cpu * 1e6 / made, "rate": made / secs if secs else 0,
            "grate": got / secs if secs else 0,
            "got": got, "made": made, "err": err.strip().splitlines()[-1:] if err.strip() else [],
            "exit": os.waitstatus_to_exitcode(status)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--producers", type=int, default=1)
    ap.add_argument("--events", type=int, default=1000000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--consumers", default="json,record,count")
    ap.add_argument("--buffers", default="default,65536")
    ap.add_argument("--pin-consumer", type=int)
    ap.add_argument("--tpctl", default=os.path.join(TOP, "tpctl"))
    ap.add_argument("--extra", default="", help="more tpctl options, space-separated")
    a = ap.parse_args()
    a.extra = a.extra.split()
    ncpu = os.cpu_count()
    if a.producers < 1 or a.producers >= ncpu:
        sys.exit("scale.py: --producers must be 1..%d (CPUs 1..P, CPU 0 kept for others)"
                 % (ncpu - 1))
    print("# %d producer(s) on CPUs 1..%d, %d events each, %d CPUs, load %s" %
          (a.producers, a.producers, a.events, ncpu, os.getloadavg()))
    print("%-8s %-8s %-4s %9s %11s %12s %12s" % ("consumer", "buffer", "run", "lost %",
                                                  "CPU-us/ev", "events/s", "delivered/s"))
    with tempfile.TemporaryDirectory(prefix="tpscale.") as tmp:
        for kb in a.buffers.split(","):
            for consumer in a.consumers.split(","):
                for run in range(a.runs):
                    r = one(a, consumer, kb, tmp)
                    print("%-8s %-8s %-4d %9.3f %11.3f %12.0f %12.0f%s" %
                          (consumer, kb, run + 1, r["lost"], r["us"], r["rate"], r["grate"],
                           ("  (%s)" % r["err"][0] if r["err"] and r["lost"] else "") +
                           ("  (exit %d)" % r["exit"] if r["exit"] not in (0, -2) else "")))
                    sys.stdout.flush()


if __name__ == "__main__":
    main()
