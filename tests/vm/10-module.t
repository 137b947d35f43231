#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The VM booted Debian's kernel, and the sample-trace module loaded, defined
# its events, ran its TRACE_EVENT_FN hooks and unloaded.
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

t = v.Tap()
v.results_or_fail(t)

uname = v.text("uname").strip()
t.diag("guest kernel %s, %s CPUs" % (uname, v.text("nproc").strip()))
t.ok(re.match(r"\d+\.\d+\.\d+", uname) is not None, "the guest reports its kernel release")
t.ok(v.rc("insmod") == 0, "insmod sample_trace.ko", v.step_diag("insmod"))

feats = v.module_features()
t.diag("built with: %s" % (", ".join(sorted(feats)) or "no optional field kinds"))
want = [e for e in v.module_events() if e != "foo_rel_loc" or "REL_LOC" in feats]
have = [l.split(":", 1)[1] for l in v.text("available_events").split()]
t.ok(sorted(have) == sorted(want), "available_events lists every event of the module",
     "want %s\nhave %s" % (want, have))

for ev in want:
    data = v.read("kernel/events/sample-trace/%s/format" % ev)
    fmt = v.parse_format(data)
    t.ok(fmt.get("name") == ev and "id" in fmt and fmt["fields"] and "print_fmt" in fmt,
         "format file of %s" % ev, data.decode("utf-8", "replace"))

# Which optional kinds the kernel has shows in the format files themselves.
types = {}
for ev in want:
    for f in v.parse_format(v.read("kernel/events/sample-trace/%s/format" % ev))["fields"]:
        types[(ev, f[0])] = f[1]
t.ok(("CPUMASK" in feats) == (types.get(("foo_bar", "cpum")) == "__data_loc cpumask_t"),
     "foo_bar has a cpumask field exactly when the headers have __cpumask")
t.ok(("VSTRING" in feats) == (("foo_bar", "vstr") in types),
     "foo_bar has a vstring field exactly when the headers have __vstring")
t.ok(("REL_LOC" in feats) == (types.get(("foo_rel_loc", "foo")) == "__rel_loc char[]"),
     "foo_rel_loc has __rel_loc fields exactly when the headers have them")

ps_on = v.text("ps_enabled")
ps_off = v.text("ps_disabled")
t.ok(re.search(r"\bsample-trace\b", ps_on) is not None, "the firing thread runs",
     ps_on)
t.ok("sample-trace-fn" in ps_on, "enabling the _fn events started their thread", ps_on)
t.ok("sample-trace-fn" not in ps_off, "disabling them stopped it", ps_off)

t.ok(v.rc("rmmod") == 0, "rmmod sample_trace", v.step_diag("rmmod"))
t.ok(v.text("events_after_rmmod").strip() == "", "no sample-trace event is left after rmmod",
     v.text("events_after_rmmod"))
t.done()
