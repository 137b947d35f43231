#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# latency --function PATTERN --by stack in the VM, whose 6.1 kernel has
# function_graph (tests/vm/guest/parts/77-funcflame.sh): the folded paths of
# a recording equal the ones rebuilt from report's records of it
# (tests/cli/funcflame-oracle.py), they add up to the roots' durations that
# latency's table gives, and vfs_read's paths carry funcload's 500 calls.
import importlib.util
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

t = v.Tap()
v.part_or_skip(t, "funcflame", "latency --function --by stack")

_spec = importlib.util.spec_from_file_location(
    "funcflame_oracle", os.path.join(v.TOP, "tests", "cli", "funcflame-oracle.py"))
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)

LINE = re.compile(r"^(\S(?:[^;]*;)*[^;]*) (\d+)$")


def folded(step):
    """{path: us} of a step's folded lines, and the lines that are not 'frames weight'."""
    out, bad = {}, []
    for l in v.text(step + ".out").splitlines():
        m = LINE.match(l)
        if m and m.group(1) not in out:
            out[m.group(1)] = int(m.group(2))
        else:
            bad.append(l)
    return out, bad


def rooted(p, func):
    return {k: w for k, w in p.items() if k.split(";")[0] == func}


# ---- live: the paths under vfs_* of funcload's 500 reads
live, bad = folded("ff_live")
roots = {k.split(";")[0] for k in live}
rd = rooted(live, "vfs_read")
t.ok(v.rc("ff_live") == 0 and not bad and live and all(r.startswith("vfs_") for r in roots) and
     any(k.startswith("vfs_read;") and "pipe_read" in k.split(";") for k in rd),
     "live --by stack --folded: %d paths, roots %s, vfs_read's through pipe_read (%d us)" %
     (len(live), sorted(roots), sum(rd.values())),
     v.step_diag("ff_live") + "\nbad: %r" % bad[:5])
svg = v.read("funcflame/live.svg")
try:
    titles = [e.text or "" for e in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}title")]
except ET.ParseError as e:
    titles = ["parse error: %s" % e]
t.ok(v.rc("ff_live_one") == 0 and not v.read("ff_live_one.out") and
     any(x.startswith("vfs_read (") for x in titles),
     "live --flamegraph: an SVG with vfs_read's frame, nothing on stdout",
     v.step_diag("ff_live_one") + "\n%r" % titles[:5])

# ---- the recording: tpctl's paths against the ones rebuilt from report's records
objs, badj = v.ndjson("ff_report")
want_ns, unpaired = oracle.paths(objs, "vfs_*")
want = {l.rsplit(" ", 1)[0]: int(l.rsplit(" ", 1)[1]) for l in oracle.folded(want_ns)}
got, bad = folded("ff_input")
diff = sorted(set(want.items()) ^ set(got.items()))
t.ok(v.rc("ff_record") == 0 and v.rc("ff_input") == 0 and not bad and not badj and
     len(want) >= 3 and got == want,
     "--input: the folded paths equal report's records rebuilt (%d paths, %d returns "
     "without entry)" % (len(want), unpaired),
     v.step_diag("ff_input") + "\ndiffer: %r" % diff[:10])

# the weights add up to the roots' durations (latency's table of the same
# returns), within the rounding of each path to a microsecond
docs, badl = v.ndjson("ff_input_json")
groups = {x["key"].get("func"): x for d in docs for x in d.get("groups", [])}
total_us = sum(x.get("sum", 0) for x in groups.values()) / 1000.0
sum_us = sum(got.values())
t.ok(v.rc("ff_input_json") == 0 and not badl and groups and
     abs(sum_us - total_us) <= len(got) + 1,
     "the paths' weights, %d us, are the roots' durations, %.1f us (%d paths)" %
     (sum_us, total_us, len(got)), v.step_diag("ff_input_json"))
vr = groups.get("vfs_read", {})
rd = rooted(got, "vfs_read")
calls = sum(1 for o in objs if o.get("type") in ("graph_entry", "graph_leaf") and
            o.get("depth") == 0 and o.get("func") == "vfs_read" and o.get("comm") == "funcload")
t.ok(vr.get("count", 0) >= 500 and calls == 500 and
     abs(sum(rd.values()) - vr.get("sum", 0) / 1000.0) <= len(rd) + 1,
     "vfs_read's paths: %d us, its %d calls' durations %.1f us (funcload's: %d)" %
     (sum(rd.values()), vr.get("count", 0), vr.get("sum", 0) / 1000.0, calls),
     "vfs_read's paths: %r" % sorted(rd.items())[:10])
# the SVG of the same paths: each root's frame titled with its weight, the
# sum of its paths' (frames narrower than 0.1 pixel are left out of it)
try:
    titles = [e.text or "" for e in
              ET.fromstring(v.read("funcflame/input.svg")).iter("{http://www.w3.org/2000/svg}title")]
except ET.ParseError as e:
    titles = ["parse error: %s" % e]
roots = {}
for k, w in got.items():
    roots[k.split(";")[0]] = roots.get(k.split(";")[0], 0) + w
miss = [(r, w) for r, w in roots.items() if w * 1000 >= sum_us and
        not any(x.startswith("%s (%d us," % (r, w)) for x in titles)]
t.ok(v.rc("ff_input_svg") == 0 and titles and not miss,
     "--input --flamegraph: the roots' frames titled with their weights (%s)" % sorted(roots.items()),
     v.step_diag("ff_input_svg") + "\nnot found: %r\n%r" % (miss, titles[:8]))
t.ok(v.rc("ff_fixture") == 0 and os.path.getsize(v.path("funcflame/graph-vfs_read.dat")) > 0,
     "the host's fixture recorded (funcflame/graph-vfs_read.dat)", v.step_diag("ff_fixture"))
before, after = v.text("funcflame/state_before"), v.text("funcflame/state_after")
t.ok(before and before == after, "the tracer files and instances as they were",
     "before:\n%s\nafter:\n%s" % (before, after))
t.done()
