#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Stream benchmark: tpctl stream (text, --json) against `cat trace_pipe` and
`trace-cmd stream`, all reading syscalls:sys_enter_getpid events of one generator
process (bench/gen, filtered on its pid) in a private instance.  Prints Markdown
tables (bench/RESULTS.md keeps them).

  bench/run.py [--events N] [--pinned-events N] [--quick] [--only SECTION,...]
               [--readers text,json,cat,trace-cmd] [--pinned-buffers default,16384]
               [--tpctl PATH] [--gen PATH] [--trace-cmd PATH]

Sections (all by default):
  unpinned  the generator and the reader where the scheduler puts them, 16 MiB
            per-CPU buffer: loss at full speed, events per CPU-second, CPU-s per
            million events, the highest loss-free paced rate, time to the first
            event, peak RSS.
  pinned    the generator pinned to CPU 1 at full speed, the reader to CPU 0
            (taskset), with the instance's default buffer and with 16 MiB: loss,
            CPU-us per event and its ratio to `cat trace_pipe` in the same run.
  ladder    pinned as above, default buffer, the generator paced: the highest
            rate each reader keeps up with without loss.
  prompt    pinned, default buffer: time from starting the reader to its first
            event line (events flowing at 10,000/s), and how late a lone event
            made on an idle system is shown.
  rss       peak RSS of tpctl stream --json for 10,000 and 10,000,000 events.

CPU is user + system of the reader and its children, from /usr/bin/time -v (the
kernel's work for a read counts as the reader's system time).  Each reader's
stdout is a pipe to this script, which counts the event lines.  The machine
may be shared: the load average is printed before and after; compare readers
within one run.  Needs root and a writable tracefs; every instance it makes is
removed again.
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
BIG_KB = 16384
READER_CPU, GEN_CPU = 0, 1
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wr(path, val):
    with open(path, "w") as f:
        f.write(val)


def rd(path):
    with open(path) as f:
        return f.read()


def pinned(argv, cpu):
    return (["taskset", "-c", str(cpu)] if cpu is not None else []) + argv


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

    def __init__(self, path, n, rate=0, cpu=None):
        args = pinned([path, str(n)] + ([str(rate)] if rate else []), cpu)
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        GENS.append(self.p)
        self.pid = int(self.p.stdout.readline())
        self.t0 = None

    def go(self):
        self.p.stdin.write("go\n")
        self.p.stdin.flush()

    def wait(self):
        """Seconds the calls took; t0 is the monotonic time of the first call."""
        out = self.p.stdout.readline().split()
        self.p.wait()
        if len(out) >= 3:
            self.t0 = float(out[2])
        return float(out[1]) if len(out) >= 2 else 0.0


LIVE = []	# readers running now, stopped if the benchmark itself is stopped
GENS = []	# generators, killed then too


class Reader:
    """One tool under /usr/bin/time -v; counts the lines with the event on its stdout."""

    def __init__(self, name, argv, inst, setup=None, teardown=None, cpu=None):
        self.name, self.argv, self.inst = name, argv, inst
        self.setup, self.teardown, self.cpu = setup, teardown, cpu

    def start(self, pid):
        self.tfile = tempfile.NamedTemporaryFile(prefix="tpbench-time.", delete=False)
        self.tfile.close()
        # the clock starts before any set-up, ours (cat) or the tool's
        self.t0 = time.monotonic()
        if self.setup:
            self.setup(pid)
        argv = [a.replace("PID", str(pid)) for a in self.argv]
        # taskset execs /usr/bin/time, which stays our child; the tool is its child
        self.p = subprocess.Popen(pinned(["/usr/bin/time", "-v", "-o", self.tfile.name] + argv,
                                         self.cpu),
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
        LIVE.append(self)
        self.fd = self.p.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.count = 0
        self.rest = b""
        self.first = self.first_at = None

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
            self.first_at = time.monotonic()
            self.first = self.first_at - self.t0
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
        # (trace-cmd hangs when its reader children get it as well); then
        # SIGKILL to the tool's children (trace-cmd 3.1.6 can also hang with
        # a reader child blocked writing to the parent, which waits for it
        # without reading: once the child is gone the parent exits and
        # /usr/bin/time still reports); then the whole session, SIGINT, SIGKILL
        tool = self.tool_pid()
        kids = lambda: [int(k) for k in rd("/proc/%d/task/%d/children" % (tool, tool)).split()]
        for who, sig, wait in ((tool, signal.SIGINT, 10), (kids, signal.SIGKILL, 5),
                               (None, signal.SIGINT, 5), (None, signal.SIGKILL, 5)):
            try:
                if who is kids:
                    for k in kids():
                        os.kill(k, sig)
                elif who:
                    os.kill(who, sig)
                else:
                    os.killpg(self.p.pid, sig)
            except (ProcessLookupError, FileNotFoundError, TypeError):
                if who:
                    continue
                break
            end = time.monotonic() + wait
            while time.monotonic() < end and self.pump(0.2):
                pass
            # the output's end comes as the tool exits, a moment before
            # /usr/bin/time has written its report: let it finish that
            try:
                self.p.wait(timeout=max(1.0, end - time.monotonic()))
                break
            except subprocess.TimeoutExpired:
                pass
        self.p.wait()
        if self in LIVE:
            LIVE.remove(self)
        if self.teardown:
            self.teardown()
        t = rd(self.tfile.name)
        os.unlink(self.tfile.name)
        user = re.search(r"User time \(seconds\): ([\d.]+)", t)
        sys_ = re.search(r"System time \(seconds\): ([\d.]+)", t)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", t)
        if not (user and sys_ and rss):
            # /usr/bin/time itself was killed: a tool that would not stop
            return float("nan"), 0
        return float(user.group(1)) + float(sys_.group(1)), int(rss.group(1))


def wait_ready(reader, g):
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
    return inst


def run(reader, gen_path, n, rate=0, gen_cpu=None):
    g = Gen(gen_path, n, rate, gen_cpu)
    reader.start(g.pid)
    inst = wait_ready(reader, g)
    time.sleep(0.1)
    g.go()
    while g.p.poll() is None and reader.pump(0.01):
        pass
    secs = g.wait()
    cpu, rss = reader.stop(inst)
    return {"got": reader.count, "cpu": cpu, "rss": rss, "gen_s": secs, "first": reader.first}


def first_event(reader, gen_path, gen_cpu=None):
    """Seconds from starting the reader until its first event line, events flowing."""
    g = Gen(gen_path, 10 ** 9, 10000, gen_cpu)
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


def lone_event(reader, gen_path, gen_cpu=None, idle=1.0, limit=2.0):
    """Seconds from a single event, made after idle seconds of nothing, until
    its line arrives (None: not within limit seconds)."""
    g = Gen(gen_path, 1, 0, gen_cpu)
    reader.start(g.pid)
    inst = wait_ready(reader, g)
    time.sleep(idle)
    g.go()
    g.wait()
    deadline = time.monotonic() + limit
    while reader.first is None and time.monotonic() < deadline:
        reader.pump(0.001)
    late = reader.first_at - g.t0 if reader.first_at is not None else None
    reader.stop(inst)
    return late


def cat_reader(buf_kb, cpu=None):
    inst = "tpbench-cat-%d" % os.getpid()
    d = os.path.join(TRACEFS, "instances", inst)

    def setup(pid):
        os.mkdir(d)
        if buf_kb:
            wr(os.path.join(d, "buffer_size_kb"), str(buf_kb))
        wr(os.path.join(d, "events", EVENT, "filter"), "common_pid == %d" % pid)
        wr(os.path.join(d, "events", EVENT, "enable"), "1")

    def teardown():
        wr(os.path.join(d, "events", EVENT, "enable"), "0")
        os.rmdir(d)

    r = Reader("cat trace_pipe", ["cat", os.path.join(d, "trace_pipe")], inst, setup, teardown,
               cpu)
    r.ready = lambda: inst if os.path.isdir(d) else None
    return r


def readers(a, buf_kb, cpu=None):
    """(name, factory) of the four readers, buf_kb KiB per CPU (None: the default)."""
    ev = EVENT.replace("/", ":")
    filt = "common_pid == PID"
    tpctl = [a.tpctl, "stream", ev, "--filter", filt]
    if buf_kb:
        tpctl += ["--buffer-kb", str(buf_kb)]
    tc_inst = "tpbench-tc-%d" % os.getpid()

    def tc_teardown():
        # trace-cmd leaves its -B instance behind
        d = os.path.join(TRACEFS, "instances", tc_inst)
        if os.path.isdir(d):
            wr(os.path.join(d, "events", EVENT, "enable"), "0")
            wr(os.path.join(d, "events", EVENT, "filter"), "0")
            os.rmdir(d)

    tc = [a.trace_cmd, "stream", "--no-filter", "-B", tc_inst, "-e", ev, "-f", filt]
    if buf_kb:
        tc += ["-b", str(buf_kb)]
    all_ = [
        ("text", "tpctl stream", lambda: Reader("tpctl stream", tpctl, "tpctl-PID", cpu=cpu)),
        ("json", "tpctl stream --json",
         lambda: Reader("tpctl stream --json", tpctl + ["--json"], "tpctl-PID", cpu=cpu)),
        ("cat", "cat trace_pipe", lambda: cat_reader(buf_kb, cpu)),
        ("trace-cmd", "trace-cmd stream", lambda: Reader("trace-cmd stream", tc, tc_inst,
                                                         teardown=tc_teardown, cpu=cpu)),
    ]
    return [(name, make) for key, name, make in all_ if key in a.readers.split(",")]


def default_kb():
    """The per-CPU buffer size a new instance gets."""
    d = os.path.join(TRACEFS, "instances", "tpbench-probe-%d" % os.getpid())
    os.mkdir(d)
    try:
        return int(rd(os.path.join(d, "buffer_size_kb")).split()[0])
    finally:
        os.rmdir(d)


def ms(s):
    return "%.0f ms" % (s * 1000) if s is not None else "never"


def out(line=""):
    print(line)
    sys.stdout.flush()


def section_unpinned(a):
    n = a.events
    rates = [250000, 500000, 1000000, 2000000] if not a.quick else [500000, 1000000]
    out("### Unpinned: %d events, %d KiB per-CPU buffer\n" % (n, BIG_KB))
    out("| reader | loss % (full speed) | events per CPU-s | CPU-s per M events "
        "| highest loss-free rate (events/s) | time to first event | peak RSS |")
    out("|---|---|---|---|---|---|---|")
    for name, make in readers(a, BIG_KB):
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
        out("| %s | %.2f | %.0f | %.2f | %s | %s | %d MiB |" % (
            name, loss, eps, cpm, best, ms(first), res["rss"] // 1024))
    out()


def section_pinned(a, dkb):
    n = a.pinned_events
    out("### Pinned: %d events, generator on CPU %d at full speed, reader on CPU %d\n" %
        (n, GEN_CPU, READER_CPU))
    out("| buffer/CPU | reader | loss % | CPU-us per event | x cat trace_pipe "
        "| generator (M events/s) |")
    out("|---|---|---|---|---|---|")
    for kb in a.pinned_kb:
        rows = []
        for name, make in readers(a, kb, READER_CPU):
            res = run(make(), a.gen, n, 0, GEN_CPU)
            cpe = res["cpu"] / res["got"] * 1e6 if res["got"] else float("inf")
            rows.append((name, 100.0 * (n - res["got"]) / n, cpe, n / res["gen_s"] / 1e6))
        cat = [r[2] for r in rows if r[0] == "cat trace_pipe"] or [float("nan")]
        for name, loss, cpe, rate in rows:
            out("| %s | %s | %.2f | %.3f | %.2f | %.2f |" % (
                "%d KiB%s" % (kb or dkb, "" if kb else " (default)"), name, loss, cpe,
                cpe / cat[0], rate))
    out()


def section_ladder(a, dkb):
    rates = ([250000, 500000, 750000, 1000000, 1500000, 2000000, 2500000] if not a.quick
             else [500000, 1000000, 2000000])
    out("### Rate ladder: pinned, %d KiB default buffer, generator paced "
        "(2 s per rate, up to %d events)\n" % (dkb, a.pinned_events))
    out("| reader | highest loss-free rate (events/s) | first lossy rate (loss %) |")
    out("|---|---|---|")
    for name, make in readers(a, None, READER_CPU):
        best, bad = "none", "-"
        for rate in rates:
            m = min(a.pinned_events, rate * 2)
            res = run(make(), a.gen, m, rate, GEN_CPU)
            made = m / res["gen_s"]
            if res["got"] < m:
                bad = "%d (%.2f)" % (rate, 100.0 * (m - res["got"]) / m)
                if made < 0.95 * rate:
                    bad = "%d, made %.0f/s (%.2f)" % (rate, made, 100.0 * (m - res["got"]) / m)
                break
            if made < 0.95 * rate:
                # the generator's own limit: no higher rate can be asked for
                best = "all it could make: %.0f/s" % made
                break
            best = "%d" % rate
        out("| %s | %s | %s |" % (name, best, bad))
    out()


def section_prompt(a):
    tries = 3 if not a.quick else 1
    out("### Promptness: pinned, default buffer\n")
    out("Time to first event: from starting the reader (events flowing at 10,000/s) to "
        "its first event line.  Lone event: a single event after 1 s of nothing, until "
        "its line arrives (%d tries each).\n" % tries)
    out("| reader | time to first event | lone event |")
    out("|---|---|---|")
    for name, make in readers(a, None, READER_CPU):
        if name == "trace-cmd stream" and a.quick:
            continue
        firsts = [first_event(make(), a.gen, GEN_CPU) for _ in range(tries)]
        lones = [lone_event(make(), a.gen, GEN_CPU) for _ in range(tries)]
        out("| %s | %s | %s |" % (name, ", ".join(ms(f) for f in firsts),
                                 ", ".join(ms(x) for x in lones)))
    out()


def section_rss(a):
    # paced at 1M/s: on a small machine the generator, the reader and this
    # script would otherwise compete for the CPUs for seconds
    out("### Peak RSS of tpctl stream --json, 1M events/s, %d KiB buffer "
        "(flat memory: no growth per event)\n" % BIG_KB)
    out("| events | peak RSS | loss % |")
    out("|---|---|---|")
    make = [m for name, m in readers(a, BIG_KB) if name == "tpctl stream --json"][0]
    for m in (10000, 10000000):
        res = run(make(), a.gen, m, 1000000)
        out("| %d | %d KiB | %.2f |" % (m, res["rss"], 100.0 * (m - res["got"]) / m))
    out()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=1000000, help="events of the unpinned case")
    ap.add_argument("--pinned-events", type=int, default=10000000)
    ap.add_argument("--quick", action="store_true", help="fewer rates and tries, no RSS run")
    ap.add_argument("--only", default="unpinned,pinned,ladder,prompt,rss",
                    help="sections to run, comma-separated")
    ap.add_argument("--readers", default="text,json,cat,trace-cmd",
                    help="readers to run, comma-separated (the rss section needs json)")
    ap.add_argument("--pinned-buffers", default="default,%d" % BIG_KB,
                    help="per-CPU buffers of the pinned section, KiB or 'default', comma-separated")
    ap.add_argument("--tpctl", default=os.path.join(TOP, "tpctl"))
    ap.add_argument("--gen", default=os.path.join(TOP, "bench", "gen"))
    ap.add_argument("--trace-cmd", default="/work/shared/tools/trace-cmd-here")
    a = ap.parse_args()
    a.pinned_kb = [None if b == "default" else int(b) for b in a.pinned_buffers.split(",")]
    only = a.only.split(",")
    if a.quick and "rss" in only:
        only.remove("rss")
    if os.cpu_count() < 2 and set(only) & {"pinned", "ladder", "prompt"}:
        raise SystemExit("the pinned cases need 2 CPUs")
    dkb = default_kb()
    out("kernel %s, %d CPUs, getpid events; load before: %s\n" %
        (os.uname().release, os.cpu_count(), rd("/proc/loadavg").strip()))
    everywhere = os.sched_getaffinity(0)
    for sec in only:
        # pinned: this script, which reads the readers' output, stays off the
        # reader's CPU (with the generator, which it slows down a little)
        os.sched_setaffinity(0, {GEN_CPU} if sec in ("pinned", "ladder", "prompt")
                             else everywhere)
        if sec == "unpinned":
            section_unpinned(a)
        elif sec == "pinned":
            section_pinned(a, dkb)
        elif sec == "ladder":
            section_ladder(a, dkb)
        elif sec == "prompt":
            section_prompt(a)
        elif sec == "rss":
            section_rss(a)
        else:
            raise SystemExit("unknown section '%s'" % sec)
    os.sched_setaffinity(0, everywhere)
    out("load after: %s" % rd("/proc/loadavg").strip())


def bail(signum, frame):
    raise SystemExit("stopped by signal %d" % signum)


if __name__ == "__main__":
    # started in the background by a script (nohup, &), SIGINT comes ignored and
    # every tool would inherit that: cat would not stop on the SIGINT that ends
    # each run; with a handler here the tools start with the default again
    signal.signal(signal.SIGINT, signal.default_int_handler)
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
