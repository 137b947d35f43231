#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# TARGET on Debian's 6.1 kernel: `stream -- COMMAND` shows the command's own
# events (its exec) and none of the module's kernel thread, which fires
# foo_bar all along; `-a -- COMMAND` shows that thread's too.  Both end with
# the command's exit line and leave no instance, pid list or option behind.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

t = v.Tap()
v.results_or_fail(t)

CHECKS = ["-- COMMAND: exit 0, JSON", "-- COMMAND: its exec, no event of the kernel thread",
          "-- COMMAND: the exit line", "-a: the kernel thread's events", "-a: the exit line",
          "nothing left"]
if v.text("target_available").strip() != "yes":
    for name in CHECKS:
        t.skip(name, "no TARGET options in this tpctl")
    t.done()


def exit_line(objs):
    return objs[-1] if objs and objs[-1].get("type") == "exit" else None


objs, bad = v.ndjson("tgt_cmd")
t.ok(v.rc("tgt_cmd") == 0 and not bad and objs,
     "stream -- sh -c '...': exit 0, every line JSON", v.step_diag("tgt_cmd"))
evs = [o for o in objs if o.get("type") == "event"]
execs = [o for o in evs if o.get("event") == "sched_process_exec"]
foo = [o for o in evs if o.get("event") == "foo_bar"]
t.ok(execs and not foo, "-- COMMAND: its exec (%d), no foo_bar of the kernel thread (%d)"
     % (len(execs), len(foo)))
ex = exit_line(objs)
t.ok(ex is not None and ex.get("status") == 0 and ex.get("signal") is None and
     any(o.get("pid") == ex.get("pid") for o in execs),
     "-- COMMAND: the last line is the exit of the process that exec'd", repr(objs[-1:]))

objs, bad = v.ndjson("tgt_all")
evs = [o for o in objs if o.get("type") == "event"]
t.ok(v.rc("tgt_all") == 0 and not bad and any(o.get("event") == "foo_bar" for o in evs),
     "-a -- sleep: the kernel thread's foo_bar events (%d)" % len(evs), v.step_diag("tgt_all"))
ex = exit_line(objs)
t.ok(ex is not None and ex.get("status") == 0, "-a: the last line is the exit of sleep",
     repr(objs[-1:]))

left = [n for n in v.text("instances_after_target").split() if n.startswith("tpctl-")]
top = v.text("target_top_level").split()
t.ok(not left and top == ["0"], "no tpctl-* instance left, top-level pid lists empty and "
     "event-fork 0", "instances %r, top level %r" % (left, top))
t.done()
