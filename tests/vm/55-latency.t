#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# tpctl latency in the VM, whose kernel has synthetic events and hist
# triggers: the kernel engine (a synthetic event fired by END's onmatch, a
# hist trigger on it) and the user engine, run at the same time on the same
# workload (tests/vm/aggload.c, filtered on its pid), pair the same number
# of START/END per key.  Their times differ by what each instance's handlers
# cost inside the other's window (two tracers of one event see each other:
# microseconds in the VM's emulated CPU, where a getpid takes one or two),
# so buckets are compared on sleeps of 1.5 ms: equal but where a time sits
# on a bucket's edge.  What the kernel cannot pair is an error
# with --engine kernel and the user engine's work by default; after TERM no
# synthetic event is left.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

t = v.Tap()
v.results_or_fail(t)

PAIRS = ["lat_syscall", "lat_custom", "lat_sleep"]
if v.text("agg/latency_available").strip() != "yes":
    for name in PAIRS:
        for what in ("documents", "pairs", "buckets", "engines"):
            t.skip("%s: %s" % (name, what), "latency not built yet")
    for name in ("kernel_wakeup", "auto_wakeup", "term", "kill", "left", "other"):
        t.skip(name, "latency not built yet")
    t.done()


def doc(step):
    objs, bad = v.ndjson(step)
    return objs[0] if len(objs) == 1 and not bad else None


def keyed(d):
    return {str(sorted(g["key"].items())): g for g in d.get("groups", [])}


for name in PAIRS:
    k, u = "agg/%s.kernel" % name, "agg/%s.user" % name
    dk, du = doc(k), doc(u)
    t.ok(v.rc(k) == 0 and v.rc(u) == 0 and dk is not None and du is not None,
         "%s: both engines exit 0 after INT with one document" % name,
         v.step_diag(k) + "\n" + v.step_diag(u))
    if dk is None or du is None:
        for what in ("pairs", "buckets", "engines"):
            t.skip("%s: %s" % (name, what), "no documents")
        continue
    gk, gu = keyed(dk), keyed(du)
    counts_k = {key: g["count"] for key, g in gk.items()}
    counts_u = {key: g["count"] for key, g in gu.items()}
    t.ok(counts_k == counts_u and sum(counts_u.values()) >= (200 if name == "lat_sleep" else 1000),
         "%s: the same pairs per key (%d keys, %d pairs)" %
         (name, len(counts_u), sum(counts_u.values())),
         "kernel: %s\nuser:   %s" % (counts_k, counts_u))
    # bucket by bucket: a pair may move only to the next bucket up or down
    diff_ok = True
    why = []
    for key in (set(gk) & set(gu) if name == "lat_sleep" else []):
        bk = {b["min"]: b["count"] for b in gk[key]["buckets"]}
        bu = {b["min"]: b["count"] for b in gu[key]["buckets"]}
        lows = sorted(set(bk) | set(bu))
        carry = 0
        for lo in lows:
            carry += bk.get(lo, 0) - bu.get(lo, 0)
            # what one engine has more in a bucket the other has in a neighbour
            if abs(carry) > max(bk.get(lo, 0), bu.get(lo, 0)):
                diff_ok = False
                why.append("%s at %d: kernel %d user %d" % (key, lo, bk.get(lo, 0),
                                                            bu.get(lo, 0)))
        if carry:
            diff_ok = False
            why.append("%s: totals differ by %d" % (key, carry))
    if name == "lat_sleep":
        sleeps = [g for g in gu.values() if g["key"].get("syscall") in ("nanosleep",
                                                                         "clock_nanosleep",
                                                                         "sys_35", "sys_230")]
        t.ok(diff_ok and sum(g["count"] for g in sleeps) >= 200,
             "%s: bucket counts differ only across bucket edges" % name, "\n".join(why))
    else:
        t.skip("%s: buckets" % name, "microsecond calls: compared on lat_sleep")
    t.ok("kernel engine" in v.text(k + ".err") and "user engine" in v.text(u + ".err"),
         "%s: each engine was the one asked for" % name,
         v.text(k + ".err")[:500] + v.text(u + ".err")[:500])

t.ok(v.rc("lat_kernel_wakeup") == 2 and "several START" in v.text("lat_kernel_wakeup.err"),
     "wakeup --engine kernel: exit 2, the kernel cannot pair several STARTs",
     v.step_diag("lat_kernel_wakeup"))
d = doc("lat_auto_wakeup")
t.ok(v.rc("lat_auto_wakeup") == 0 and d is not None and d.get("type") == "latency" and
     "user engine" in v.text("lat_auto_wakeup.err"),
     "wakeup by default: the user engine, -v says so", v.step_diag("lat_auto_wakeup"))
t.ok(v.text("agg/lat_term.during").strip() == "1" and v.text("agg/lat_term.rc").strip() == "0",
     "TERM while the kernel engine pairs: its synthetic event was there, exit 0",
     v.text("agg/lat_term.during") + v.text("agg/lat_term.rc") + v.text("agg/lat_term.err"))
t.ok(v.text("agg/lat_kill.before").strip() == "1" and v.rc("lat_reset") == 0 and
     "removed orphaned synthetic event" in v.text("lat_reset.err"),
     "after KILL, tpctl reset removes the synthetic event it left",
     v.text("agg/lat_kill.before") + v.step_diag("lat_reset"))
t.ok("tpctl_lat" not in v.text("agg/lat_synth_after"),
     "no synthetic event is left after INT, TERM, and KILL with reset",
     v.text("agg/lat_synth_after"))
t.ok("other_tool_lat" in v.text("agg/lat_synth_after"),
     "another tool's synthetic event is still there", v.text("agg/lat_synth_after"))
t.done()
