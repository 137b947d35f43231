#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Record and report benchmark.

Record: `tpctl record` (trace.dat version 7, zstd-compressed, the default;
and version 6, uncompressed) against `trace-cmd record` (version 7, zstd),
all recording the syscalls:sys_enter_getpid events of one bench/gen process
(filtered on its pid) at full speed into a trace.dat, with the same per-CPU
buffer size.  Columns: events in the file, loss %, recorder CPU seconds
(user + system, from wait4, children included), CPU seconds per million
events, the file's size, and CPU and size as a ratio of trace-cmd's in the
same run.

Report: offline decode of the same tpctl-recorded file by `tpctl report`
(text, --json and --perfetto) and `trace-cmd report`, as instructions per event under
valgrind --tool=callgrind (stable on noisy machines; startup subtracted
using a file with a handful of events) and as wall time (median of 3, output
to /dev/null).

  bench/record.py [--events N] [--callgrind-events N] [--quick] [--record-only] [--out FILE]

Needs root and a writable tracefs; every instance it makes is removed again.
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

TRACEFS = "/sys/kernel/tracing"
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TPCTL = os.path.join(TOP, "tpctl")
GEN = os.path.join(TOP, "bench", "gen")
TC = os.environ.get("TRACE_CMD", "/work/shared/tools/trace-cmd-here")
EVENT = "syscalls:sys_enter_getpid"


def rd(path):
    with open(path) as f:
        return f.read()


def wait_for(cond, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.02)
    return False


def inst_on(name):
    """Tracing in the instance: a new one starts with tracing_on 1, so the event too."""
    d = os.path.join(TRACEFS, "instances", name)
    try:
        return (rd(os.path.join(d, "tracing_on")).strip() == "1" and
                rd(os.path.join(d, "events", EVENT.replace(":", "/"), "enable")).strip() == "1")
    except OSError:
        return False


def remove_instance(name):
    d = os.path.join(TRACEFS, "instances", name)
    if os.path.isdir(d):
        try:
            with open(os.path.join(d, "events", "enable"), "w") as f:
                f.write("0")
        except OSError:
            pass
        try:
            os.rmdir(d)
        except OSError as e:
            print("warning: cannot remove %s: %s" % (d, e), file=sys.stderr)


def count_events(path, pid):
    """Events of the generator in a trace.dat, decoded by tpctl report."""
    p = subprocess.run([TPCTL, "report", "--json", path, EVENT], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, check=False)
    needle = b'"pid":%d,' % pid
    return sum(1 for line in p.stdout.splitlines() if needle in line)


def record(tool, n, buf_kb, out, version=None):
    gen = subprocess.Popen([GEN, str(n)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           text=True)
    pid = int(gen.stdout.readline())
    filt = "common_pid == %d" % pid
    inst = None
    if tool == "tpctl":
        argv = [TPCTL, "record", "-o", out, "--buffer-kb", str(buf_kb), "--filter", filt, EVENT]
        if version:
            argv[2:2] = ["--file-version", str(version)]
    else:
        inst = "tpbench-rec-%d" % os.getpid()
        argv = [TC, "record", "--no-filter", "-B", inst, "-b", str(buf_kb), "-e", EVENT,
                "-f", filt, "-o", out]
    rec = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           cwd=os.path.dirname(out))
    if inst is None:
        inst = "tpctl-%d" % rec.pid
    try:
        if not wait_for(lambda: inst_on(inst)):
            raise RuntimeError("%s did not start tracing" % tool)
        time.sleep(0.3)
        gen.stdin.write("go\n")
        gen.stdin.flush()
        gen.stdout.readline()
        gen.wait()
        time.sleep(0.3)
        rec.send_signal(signal.SIGINT)
        _, status, ru = os.wait4(rec.pid, 0)
        rec.returncode = status
    finally:
        if rec.returncode is None:
            rec.kill()
            rec.wait()
        if tool != "tpctl":
            remove_instance(inst)
    got = count_events(out, pid)
    cpu = ru.ru_utime + ru.ru_stime
    return {"tool": tool, "version": version, "buf": buf_kb, "events": got, "loss": 100.0 * (n - got) / n,
            "cpu": cpu, "cpu_per_m": cpu / (got / 1e6) if got else float("nan"),
            "size": os.path.getsize(out)}


def callgrind_ir(argv, ns=False):
    """Instructions of the main program (the largest profile: wrappers run first)."""
    with tempfile.TemporaryDirectory() as d:
        cmd = ["valgrind", "--tool=callgrind", "--trace-children=yes",
               "--callgrind-out-file=" + os.path.join(d, "cg.%p")] + argv
        if ns:
            # trace-cmd-here bind-mounts a copy of ftrace_enabled with mount(8),
            # which valgrind cannot follow (set-uid); do that first, outside.
            fake = os.path.join(d, "ftrace_enabled")
            with open(fake, "w") as f:
                f.write(rd("/proc/sys/kernel/ftrace_enabled"))
            cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c",
                   'mount --bind "$0" /proc/sys/kernel/ftrace_enabled && exec "$@"',
                   fake] + cmd
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        best = 0
        for f in os.listdir(d):
            if not f.startswith("cg."):
                continue
            m = re.search(r"^summary: (\d+)", rd(os.path.join(d, f)), re.M)
            if m:
                best = max(best, int(m.group(1)))
        return best


def wall(argv, runs=3):
    times = []
    for _ in range(runs):
        t0 = time.monotonic()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.monotonic() - t0)
    return statistics.median(times)


# (name, argv for a file, needs the ftrace_enabled namespace under valgrind)
READERS = [
    ("tpctl report", lambda f: [TPCTL, "report", f], False),
    ("tpctl report --json", lambda f: [TPCTL, "report", "--json", f], False),
    ("tpctl report --perfetto", lambda f: [TPCTL, "report", f, "--perfetto", "/dev/null"], False),
    ("trace-cmd report", lambda f: [TC, "report", "-i", f], True),
]


def main():
    global TPCTL
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=1000000)
    ap.add_argument("--callgrind-events", type=int, default=100000)
    ap.add_argument("--buffers", default="1024,16384", help="per-CPU buffer sizes in KiB")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--record-only", action="store_true", help="skip the report part")
    ap.add_argument("--out", help="also write the Markdown tables to this file")
    ap.add_argument("--tpctl", help="the tpctl binary to measure (default: the tree's)")
    a = ap.parse_args()
    if a.tpctl:
        TPCTL = a.tpctl
    if a.quick:
        a.events, a.callgrind_events, a.buffers = 100000, 20000, "1024"
    if os.geteuid() != 0:
        sys.exit("record.py: needs root")
    for p in (TPCTL, GEN):
        if not os.access(p, os.X_OK):
            sys.exit("record.py: build %s first (make tpctl bench/gen)" % p)

    lines = []
    tmp = tempfile.mkdtemp(prefix="tpbench-rec.")
    rows = []
    for buf in [int(b) for b in a.buffers.split(",")]:
        for tool, version in (("tpctl", 7), ("tpctl", 6), ("trace-cmd", None)):
            name = tool if tool == "trace-cmd" else "%s-v%d" % (tool, version)
            out = os.path.join(tmp, "%s-%d.dat" % (name, buf))
            rows.append(record(tool, a.events, buf, out, version))
    lines.append("Record: %d getpid events at full speed, one generator process" % a.events)
    lines.append("")
    lines.append("| recorder | buffer/CPU | events in file | loss | CPU s | CPU s / M events "
                 "| file size | CPU vs trace-cmd | size vs trace-cmd |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        tc = [t for t in rows if t["tool"] == "trace-cmd" and t["buf"] == r["buf"]][0]
        label = "trace-cmd record" if r["tool"] == "trace-cmd" else \
            "tpctl record --file-version %d" % r["version"]
        lines.append("| %s | %d KiB | %d | %.2f %% | %.3f | %.3f | %.2f MiB | %.2fx | %.2fx |" % (
            label, r["buf"], r["events"], r["loss"], r["cpu"], r["cpu_per_m"],
            r["size"] / 1048576.0, r["cpu_per_m"] / tc["cpu_per_m"],
            r["size"] / float(tc["size"])))
    lines.append("")
    if a.record_only:
        finish(lines, a, tmp)
        return

    # Decode: the tpctl-recorded file with the largest buffer (least loss).
    big = os.path.join(tmp, "tpctl-v7-%s.dat" % a.buffers.split(",")[-1])
    small_n = a.callgrind_events
    cg = os.path.join(tmp, "cg.dat")
    tiny = os.path.join(tmp, "tiny.dat")
    cg_events = record("tpctl", small_n, 16384, cg)["events"]
    tiny_events = record("tpctl", 10, 16384, tiny)["events"]
    lines.append("Report: offline decode of a tpctl-recorded file (version 7, getpid events); "
                 "instructions per event from callgrind on a %d-event file, startup "
                 "(a %d-event file) subtracted; wall time on the %d-event file, median of 3, "
                 "stdout to /dev/null" % (cg_events, tiny_events, a.events))
    lines.append("")
    lines.append("| reader | instructions / event | vs trace-cmd report | startup instructions "
                 "| wall s (%d events) | events / s |" % a.events)
    lines.append("|---|---:|---:|---:|---:|---:|")
    res = []
    n_big = [r for r in rows if r["version"] == 7][-1]["events"]
    for name, argv, ns in READERS:
        ir = callgrind_ir(argv(cg), ns)
        ir0 = callgrind_ir(argv(tiny), ns)
        per = (ir - ir0) / max(cg_events - tiny_events, 1)
        w = wall(argv(big))
        res.append((name, per, ir0, w, n_big / w if w else 0))
    base = [r for r in res if r[0] == "trace-cmd report"][0][1]
    for name, per, ir0, w, eps in res:
        lines.append("| %s | %.0f | %.2fx | %.1f M | %.2f | %.0f |" % (
            name, per, per / base if base else 0, ir0 / 1e6, w, eps))
    finish(lines, a, tmp)


def finish(lines, a, tmp):
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    subprocess.run(["rm", "-rf", tmp], check=False)


if __name__ == "__main__":
    main()
