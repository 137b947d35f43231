#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Stream benchmark: tpctl stream (text, --json) against `cat trace_pipe` and
`trace-cmd stream`, all reading syscalls:sys_enter_getpid events of one generator
process (bench/gen, filtered on its pid) in a private instance with a 16 MiB
per-CPU buffer.  Prints a Markdown table (bench/RESULTS.md keeps one).

  bench/run.py [--events N] [--quick] [--tpctl PATH] [--gen PATH] [--trace-cmd PATH]

Columns: loss % at full speed; events per CPU-second and CPU seconds per million
events of the reader (user + system, from /usr/bin/time -v, children included);
highest paced rate (events/s) without loss; time from starting the reader until
its first event line arrives; peak RSS.  Needs root and a writable tracefs; every
instance it makes is removed again.
"""
import argparse
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

TRACEFS = "/sys/kernel/tracing"
EVENT = "syscalls/sys_enter_getpid"
BUF_KB = 16384
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wr(path, val):
    with open(path, "w") as f:
        f.write(val)


def rd(path):
    with open(path) as f:
        return f.read()


def entries(inst):
    """Events still buffered in the instance, over all CPUs."""
    total = 0
    base = os.path.join(TRACEFS, "instances", inst, "per_cpu")
    for cpu in os.listdir(base):
        m = re.search(r"^entries: (\d+)", rd(os.path.join(base, cpu, "stats")), re.M)
        total += int(m.group(1)) if m else 0
    return total


class Gen:
    """bench/gen waiting for its start line."""

    def __init__(self, path, n, rate=0):
        args = [path, str(n)] + ([str(rate)] if rate else [])
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        GENS.append(self.p)
        self.pid = int(self.p.stdout.readline())

    def go(self):
        self.p.stdin.write("go\n")
        self.p.stdin.flush()

    def wait(self):
        out = self.p.stdout.readline().split()
        self.p.wait()
        return float(out[1]) if len(out) == 2 else 0.0


LIVE = []	# readers running now, stopped if the benchmark itself is stopped
GENS = []	# generators, killed then too


class Reader:
    """One tool under /usr/bin/time -v; counts the lines with the event on its stdout."""

    def __init__(self, name, argv, inst, setup=None, teardown=None):
        self.name, self.argv, self.inst = name, argv, inst
        self.setup, self.teardown = setup, teardown

    def start(self, pid):
        self.tfile = tempfile.NamedTemporaryFile(prefix="tpbench-time.", delete=False)
        self.tfile.close()
        # the clock starts before any set-up, ours (cat) or the tool's
        self.t0 = time.monotonic()
        if self.setup:
            self.setup(pid)
        argv = [a.replace("PID", str(pid)) for a in self.argv]
        self.p = subprocess.Popen(["/usr/bin/time", "-v", "-o", self.tfile.name] + argv,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
        LIVE.append(self)
        self.fd = self.p.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.count = 0
        self.rest = b""
        self.first = None

    def pump(self, timeout=0.05):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return True
        try:
            data = os.read(self.fd, 1 << 20)
        except BlockingIOError:
            return True
        if not data:
            return False
        # count in C: lines are whole up to the last newline; each event line
        # names the event once ("getpid"), lost-event lines do not
        buf = self.rest + data
        cut = buf.rfind(b"\n") + 1
        n = buf.count(b"getpid", 0, cut)
        self.rest = buf[cut:]
        if n and self.first is None:
            self.first = time.monotonic() - self.t0
        self.count += n
        return True

    def tool_pid(self):
        """The tool is the child of /usr/bin/time."""
        try:
            kids = rd("/proc/%d/task/%d/children" % (self.p.pid, self.p.pid)).split()
        except OSError:
            kids = []
        return int(kids[0]) if kids else None

    def ready(self):
        """The tool's instance exists, the event is enabled there and tracing is on."""
        inst = self.inst.replace("PID", str(self.tool_pid()))
        try:
            # trace-cmd enables the event first and turns tracing on later
            d = os.path.join(TRACEFS, "instances", inst)
            if (rd(os.path.join(d, "events", EVENT, "enable"))[0] == "1" and
                    rd(os.path.join(d, "tracing_on"))[0] == "1"):
                return inst
        except OSError:
            pass
        return None

    def stop(self, inst):
        # drained: nothing left in the buffer and nothing more for a while (a
        # reader that leaves the last partial page, as splice does, gets 1 s)
        last, quiet = self.count, 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            self.pump(0.05)
            try:
                left = entries(inst)
            except OSError:
                left = 0
            quiet = quiet + 1 if self.count == last else 0
            last = self.count
            if (quiet >= 6 and left == 0) or quiet >= 20:
                break
        # SIGINT to the tool itself, as a user's Ctrl-C would reach it first
        # (trace-cmd hangs when its reader children get it as well); then to
        # the whole session, then SIGKILL, for a tool that does not stop
        tool = self.tool_pid()
        for who, sig, wait in ((tool, signal.SIGINT, 30), (None, signal.SIGINT, 5),
                               (None, signal.SIGKILL, 5)):
            try:
                if who:
                    os.kill(who, sig)
                else:
                    os.killpg(self.p.pid, sig)
            except ProcessLookupError:
                if who:
                    continue
                break
            end = time.monotonic() + wait
            while time.monotonic() < end and self.pump(0.2):
                pass
            if self.p.poll() is not None:
                break
        self.p.wait()
        if self in LIVE:
            LIVE.remove(self)
        if self.teardown:
            self.teardown()
        t = rd(self.tfile.name)
        os.unlink(self.tfile.name)
        user = float(re.search(r"User time \(seconds\): ([\d.]+)", t).group(1))
        sys_ = float(re.search(r"System time \(seconds\): ([\d.]+)", t).group(1))
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
        return user + sys_, rss


def run(reader, gen_path, n, rate=0):
    g = Gen(gen_path, n, rate)
    reader.start(g.pid)
    inst = None
    deadline = time.monotonic() + 10
    while not inst and time.monotonic() < deadline:
        reader.pump(0.01)
        inst = reader.ready()
    if not inst:
        g.go()
        g.wait()
        reader.stop(reader.inst)
        raise SystemExit("%s: never became ready" % reader.name)
    time.sleep(0.1)
    g.go()
    while g.p.poll() is None and reader.pump(0.01):
        pass
    secs = g.wait()
    cpu, rss = reader.stop(inst)
    return {"got": reader.count, "cpu": cpu, "rss": rss, "gen_s": secs, "first": reader.first}


def first_event(reader, gen_path):
    """Seconds from starting the reader until its first event line, events flowing."""
    g = Gen(gen_path, 10 ** 9, 10000)
    g.go()
    reader.start(g.pid)
    deadline = time.monotonic() + 10
    while reader.first is None and time.monotonic() < deadline:
        reader.pump(0.001)
    first = reader.first
    inst = reader.ready() or reader.inst
    g.p.kill()
    g.p.wait()
    reader.stop(inst)
    return first


def cat_reader():
    inst = "tpbench-cat-%d" % os.getpid()
    d = os.path.join(TRACEFS, "instances", inst)

    def setup(pid):
        os.mkdir(d)
        wr(os.path.join(d, "buffer_size_kb"), str(BUF_KB))
        wr(os.path.join(d, "events", EVENT, "filter"), "common_pid == %d" % pid)
        wr(os.path.join(d, "events", EVENT, "enable"), "1")

    def teardown():
        wr(os.path.join(d, "events", EVENT, "enable"), "0")
        os.rmdir(d)

    r = Reader("cat trace_pipe", ["cat", os.path.join(d, "trace_pipe")], inst, setup, teardown)
    r.ready = lambda: inst if os.path.isdir(d) else None
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=1000000)
    ap.add_argument("--quick", action="store_true", help="fewer paced rates, no 10M RSS run")
    ap.add_argument("--tpctl", default=os.path.join(TOP, "tpctl"))
    ap.add_argument("--gen", default=os.path.join(TOP, "bench", "gen"))
    ap.add_argument("--trace-cmd", default="/work/shared/tools/trace-cmd-here")
    a = ap.parse_args()
    n = a.events
    ev = EVENT.replace("/", ":")
    filt = "common_pid == PID"
    tpctl = [a.tpctl, "stream", ev, "--filter", filt, "--buffer-kb", str(BUF_KB)]
    tc_inst = "tpbench-tc-%d" % os.getpid()
    def tc_teardown():
        # trace-cmd leaves its -B instance behind
        d = os.path.join(TRACEFS, "instances", tc_inst)
        if os.path.isdir(d):
            wr(os.path.join(d, "events", EVENT, "enable"), "0")
            wr(os.path.join(d, "events", EVENT, "filter"), "0")
            os.rmdir(d)

    readers = [
        lambda: Reader("tpctl stream", tpctl, "tpctl-PID"),
        lambda: Reader("tpctl stream --json", tpctl + ["--json"], "tpctl-PID"),
        cat_reader,
        lambda: Reader("trace-cmd stream", [a.trace_cmd, "stream", "--no-filter", "-B", tc_inst,
                                            "-b", str(BUF_KB), "-e", ev, "-f", filt], tc_inst,
                              teardown=tc_teardown),
    ]
    rates = [250000, 500000, 1000000, 2000000] if not a.quick else [500000, 1000000]
    print("kernel %s, %d CPUs, %d getpid events, %d KiB per-CPU buffer\n" %
          (os.uname().release, os.cpu_count(), n, BUF_KB))
    print("| reader | loss % (full speed) | events per CPU-s | CPU-s per M events "
          "| highest loss-free rate (events/s) | time to first event | peak RSS |")
    print("|---|---|---|---|---|---|---|")
    for make in readers:
        r = make()
        res = run(r, a.gen, n)
        loss = 100.0 * (n - res["got"]) / n
        eps = res["got"] / res["cpu"] if res["cpu"] else 0
        cpm = res["cpu"] / res["got"] * 1e6 if res["got"] else float("inf")
        best = "none"
        for rate in rates:
            rr = run(make(), a.gen, min(n, rate * 2), rate)
            if rr["got"] < min(n, rate * 2):
                break
            best = "%d" % rate
        if res["got"] == n:
            best = "full speed (%.1fM/s)" % (n / res["gen_s"] / 1e6)
        first = first_event(make(), a.gen)
        print("| %s | %.2f | %.0f | %.2f | %s | %s | %d MiB |" % (
            r.name, loss, eps, cpm, best,
            "%.0f ms" % (first * 1000) if first is not None else "never", res["rss"] // 1024))
        sys.stdout.flush()
    if not a.quick:
        # paced at 1M/s: on a small machine the generator, the reader and this
        # script would otherwise compete for the CPUs for seconds
        print("\nPeak RSS of tpctl stream --json, 1M events/s (flat memory: no growth "
              "per event):\n")
        print("| events | peak RSS | loss % |")
        print("|---|---|---|")
        for m in (10000, 10000000):
            res = run(Reader("tpctl stream --json", tpctl + ["--json"], "tpctl-PID"), a.gen, m,
                      1000000)
            print("| %d | %d KiB | %.2f |" % (m, res["rss"], 100.0 * (m - res["got"]) / m))
            sys.stdout.flush()


def bail(signum, frame):
    raise SystemExit("stopped by signal %d" % signum)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, bail)
    signal.signal(signal.SIGHUP, bail)
    try:
        main()
    finally:
        for g in GENS:
            if g.poll() is None:
                g.kill()
        for r in list(LIVE):
            for sig in (signal.SIGINT, signal.SIGKILL):
                try:
                    os.killpg(r.p.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    r.p.wait(timeout=3)
                    break
                except subprocess.TimeoutExpired:
                    pass
            if r.teardown:
                try:
                    r.teardown()
                except OSError:
                    pass
