#!/usr/bin/env python3
"""Start-up cost of enum names from BTF (see bench/RESULTS-btf.md).

A private instance has one event enabled and nothing recorded, so
`tpctl -i INST stream --drain` only starts, parses the enabled event's format
(preloaded from set_event) and exits.  For timer:hrtimer_start, whose print fmt
names HRTIMER_MODE_* constants, that parse loads the kernel's BTF; with
TPCTL_BTF naming no file it cannot; sched:sched_switch names no constant.
Each case runs N times, interleaved; the table gives the median wall time and
the median CPU time (user + system) of the runs, and the ratio to the first row.
"""
import os, resource, statistics, subprocess, sys, time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TPCTL = os.path.join(TOP, "tpctl")
T = "/sys/kernel/tracing"
N = 10 if "--quick" in sys.argv else 40


def run(inst, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run([TPCTL, "-i", inst, "stream", "--drain"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    cases = [("sched:sched_switch (no names)", "sched/sched_switch", {}),
             ("timer:hrtimer_start, no BTF", "timer/hrtimer_start",
              {"TPCTL_BTF": "/nonexistent"}),
             ("timer:hrtimer_start, BTF", "timer/hrtimer_start", {})]
    insts = []
    try:
        for i, (_, ev, _) in enumerate(cases):
            name = "tpctl-bench-btf-%d-%d" % (os.getpid(), i)
            os.mkdir(os.path.join(T, "instances", name))
            insts.append((name, ev))
            with open(os.path.join(T, "instances", name, "tracing_on"), "w") as f:
                f.write("0")
            with open(os.path.join(T, "instances", name, "events", ev, "enable"), "w") as f:
                f.write("1")
        res = [[] for _ in cases]
        for _ in range(N):
            for i, (_, _, extra) in enumerate(cases):
                env = dict(os.environ, **extra)
                res[i].append(run(insts[i][0], env))
        base_w = statistics.median(w for w, _ in res[0])
        base_c = statistics.median(c for _, c in res[0])
        print("| case | median wall ms | ratio | median CPU ms | ratio |")
        print("|---|---|---|---|---|")
        for (label, _, _), r in zip(cases, res):
            w = statistics.median(x for x, _ in r)
            c = statistics.median(y for _, y in r)
            print("| %s | %.1f | %.2f | %.1f | %.2f |" % (label, w * 1e3, w / base_w, c * 1e3,
                                                         c / base_c if base_c else 0))
    finally:
        for name, ev in insts:
            d = os.path.join(T, "instances", name)
            with open(os.path.join(d, "events", ev, "enable"), "w") as f:
                f.write("0")
            os.rmdir(d)


main()
