#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Stack traces on Debian's 6.1 kernel: an instance with options/stacktrace and
# options/userstacktrace (kernel stacks through the sample module's functions,
# user stacks of cat), read by tpctl as text (byte for byte the kernel's) and
# as JSON (every stack in its event, frame by frame the kernel's, checked by
# tests/cli/stack-oracle.py); then tpctl stream --stack --user-stack, which
# uses the kernel's stacktrace trigger here.
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

t = v.Tap()
v.results_or_fail(t)

CHECKS = ["text with stacks", "text is the kernel's", "kernel stacks through the module",
          "user stacks", "JSON with stacks", "JSON stacks are the kernel's",
          "--stack --user-stack --json", "trigger", "every event has its stack",
          "--stack text", "nothing left behind"]
if v.text("stacks_available").strip() != "yes":
    for name in CHECKS:
        t.skip(name, "stream --stack not built yet")
    t.done()

MODULE_SYM = "st_main_fn"	# module/sample_trace.c: the thread that fires the events


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "line %d\nkernel: %s\ntpctl:  %s" % (i + 1, x.decode("utf-8", "replace"),
                                                        y.decode("utf-8", "replace"))
    return "kernel %d lines, tpctl %d lines" % (len(a), len(b))


# Text: the kernel's lines, stack lines included.
kern = v.trace_lines(v.read("stk_text.trace"))
mine = [l for l in v.read("stk_text.out").split(b"\n") if l]
t.ok(v.rc("stk_text") == 0, "tpctl -i X stream --drain of an instance with stacks",
     v.step_diag("stk_text"))
t.ok(len(kern) > 0 and mine == kern,
     "the text of %d lines is the kernel's, byte for byte" % len(kern), first_diff(kern, mine))
frames = [l[4:].decode() for l in kern if l.startswith(b" => ")]
t.ok(MODULE_SYM in frames,
     "kernel stacks run through the module (%s among %d frames)" % (MODULE_SYM, len(frames)))
ustacks = [i for i, l in enumerate(kern) if l.endswith(b": <user stack trace>")]
t.ok(any(i + 1 < len(kern) and kern[i + 1].startswith(b" =>  <") for i in ustacks),
     "user stacks with frames (%d user stacks)" % len(ustacks))

# JSON: the oracle applies the stack rule to the kernel's text on its own.
t.ok(v.rc("stk_json") == 0, "tpctl -i X stream --drain --json of an instance with stacks",
     v.step_diag("stk_json"))
oracle = os.path.join(v.TOP, "tests", "cli", "stack-oracle.py")
r = subprocess.run([sys.executable, oracle, "--min-stacks", "10", "--want-sym", MODULE_SYM,
                    v.path("stk_json.trace"), v.path("stk_json.out")],
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
t.ok(r.returncode == 0, "every JSON stack is in its event, frame by frame the kernel's (%s)" %
     (r.stdout.splitlines() or ["no output"])[0], r.stdout)

# --stack --user-stack: tpctl's private instance, a stacktrace trigger per event.
# The kernel may record a stack whose event it dropped while tracing_on went
# from 0 to 1 (its own `trace` shows that too): allowed before the first event.
objs, bad = v.ndjson("stk_trig_json")
while objs and objs[0].get("event") == "kernel_stack":
    objs.pop(0)
t.ok(v.rc("stk_trig_json") == 0 and not bad and len(objs) == 5,
     "tpctl stream sample-trace:foo_bar --filter 'bar > 5' --stack --user-stack --json --count 5",
     v.step_diag("stk_trig_json"))
t.ok("kernel stacks by trigger" in v.text("stk_trig_json.err"),
     "this kernel's stacktrace trigger is used", v.text("stk_trig_json.err"))
t.ok(all(o.get("event") == "foo_bar" and o["fields"]["bar"] > 5 and
         MODULE_SYM in [f.get("sym") for f in o.get("stack", [])] and
         all(isinstance(f.get("addr"), int) and isinstance(f.get("off"), int)
             for f in o["stack"]) and o.get("user_stack") == [] for o in objs),
     "every event is foo_bar with bar > 5 and carries its kernel stack (the trigger honours "
     "the filter) and its empty user stack (a kernel thread)",
     "\n".join(str(o)[:400] for o in objs[:3]))

# --stack in text: each event followed by its stack, the last one complete.
lines = v.text("stk_trig_text.out").split("\n")
while lines and lines[0].endswith(": <stack trace>"):
    lines.pop(0)
    while lines and lines[0].startswith(" => "):
        lines.pop(0)
heads = [i for i, l in enumerate(lines) if re.search(r"\] \S{5} +\d+\.\d{6}: ", l)]
ok = v.rc("stk_trig_text") == 0 and len(heads) == 6
blocks = []
for a, b in zip(heads[0::2], heads[1::2]):
    end = heads[heads.index(b) + 1] if heads.index(b) + 1 < len(heads) else len(lines)
    blocks.append((lines[a], lines[b], [l[4:] for l in lines[b + 1:end] if l.startswith(" => ")]))
ok = ok and all(": foo_bar: " in e and s.endswith(": <stack trace>") and MODULE_SYM in f and
                f[-1] == "ret_from_fork" for e, s, f in blocks)
t.ok(ok, "tpctl stream sample-trace:foo_bar --stack --count 3: three events, each with its "
     "whole stack", v.step_diag("stk_trig_text"))

t.ok(v.text("stk_trigger_before") == v.text("stk_trigger_after") and
     v.text("stk_top_level").strip() == "0" and
     not [n for n in v.text("instances_after_stacks").split() if n.startswith("tpctl-")],
     "the top level's trigger and buffer untouched, no tpctl-* instance left",
     "top-level stacks: %s; instances: %s" % (v.text("stk_top_level").strip(),
                                              v.text("instances_after_stacks").split()))
t.done()
