#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# tpctl strace --strings in the VM (Debian's 6.1 has event probes): each
# command of tests/vm/guest/parts/66-strace.sh under Debian's strace -f -o and
# under tpctl strace -f --strings -o, compared process by process with the
# host oracle's code (tests/cli/strace-oracle.py) with the paths kept: only
# what tpctl cannot know (write data, what the kernel writes back, argv
# arrays, structs, addresses) is normalised.  At least 95 % of strace's
# lines equal over the corpus, no command below 90 %.
import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "strace_oracle", os.path.join(here, "..", "cli", "strace-oracle.py"))
oracle = importlib.util.module_from_spec(spec)
spec.loader.exec_module(oracle)

t = v.Tap()
v.part_or_skip(t, "strace", "tpctl strace --strings against strace")
if not os.path.exists(v.path("strace/1.cmd")):
    t.skip("tpctl strace --strings against strace", "this tpctl has no strace --strings")
    t.done()

def path_lines(s_path):
    """strace's lines that still hold a quoted string (a path) once normalised"""
    lists, _ = oracle.lines_by_pid(s_path)
    return sum('"' in oracle.norm_args(x, True) for lines in lists for x in lines)


n, total, equal, paths = 1, 0, 0, 0
while os.path.exists(v.path("strace/%d.cmd" % n)):
    cmd = v.text("strace/%d.cmd" % n).strip()
    s_path, t_path = v.path("strace/%d.s" % n), v.path("strace/%d.t" % n)
    if os.path.exists(s_path) and os.path.exists(t_path):
        eq, ns, diffs = oracle.score(*oracle.compare(s_path, t_path, paths=True))
        paths += path_lines(s_path)
    else:
        eq, ns, diffs = 0, 0, []
    pct = 100.0 * eq / ns if ns else 0
    total += ns
    equal += eq
    t.ok(ns > 0 and pct >= 90, "%s: %d of %d strace lines equal, paths kept (%.1f %%)" %
         (cmd, eq, ns, pct), "\n".join(diffs[:40]) + "\n" + v.text("strace/%d.err" % n))
    for d in diffs[:40] if pct >= 90 else []:
        t.diag("  " + d)
    n += 1
pct = 100.0 * equal / total if total else 0
t.ok(n > 12 and pct >= 95, "overall, %d commands: %d of %d strace lines equal, paths kept "
     "(%.1f %%)" % (n - 1, equal, total, pct))
# the corpus is about paths: opens, stats, mkdir, rename, readlink, chdir, ...
t.ok(paths >= 50, "%d of strace's lines compared with their paths (at least 50)" % paths)
t.done()
