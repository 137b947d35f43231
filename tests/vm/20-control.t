#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# tpctl list, format, enable, filter, status and disable on sample-trace in
# the VM, each compared with what the kernel's own files say.
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

t = v.Tap()
v.results_or_fail(t)

kernel_events = [l.split(":", 1)[1] for l in v.text("available_events").split()]

# list
doc = v.json_doc("list")
t.ok(v.rc("list") == 0 and doc is not None, "tpctl list sample-trace --json", v.step_diag("list"))
listed = []
if isinstance(doc, dict):
    listed = [(e.get("system"), e.get("event")) for e in doc.get("events", [])]
t.ok(listed == [("sample-trace", e) for e in kernel_events],
     "list --json names the kernel's sample-trace events, in its order",
     "kernel %s\ntpctl %s" % (kernel_events, listed))
t.ok(v.rc("list_text") == 0 and
     v.text("list_text.out").split() == ["sample-trace:" + e for e in kernel_events],
     "tpctl list sample-trace (text)", v.step_diag("list_text"))


def check_format(step, ev, jev):
    kfmt = v.parse_format(v.read("kernel/events/sample-trace/%s/format" % ev))
    want = [(f[0], f[2], f[3], f[4]) for f in kfmt["fields"]]
    have = [(f.get("name"), f.get("offset"), f.get("size"), f.get("signed"))
            for f in (jev or {}).get("fields", [])]
    t.ok(have == want, "%s: %s fields (name, offset, size, signed) match the format file"
         % (step, ev), "kernel %s\ntpctl %s" % (want, have))
    t.ok((jev or {}).get("print_fmt") == kfmt.get("print_fmt"),
         "%s: %s print fmt matches the format file" % (step, ev),
         "kernel %r\ntpctl %r" % (kfmt.get("print_fmt"), (jev or {}).get("print_fmt")))


# format: foo_bar alone, then the whole system.
doc = v.json_doc("format")
t.ok(v.rc("format") == 0 and doc is not None, "tpctl format sample-trace:foo_bar --json",
     v.step_diag("format"))
jevs = (doc or {}).get("events", []) if isinstance(doc, dict) else []
t.ok(len(jevs) == 1 and jevs[0].get("event") == "foo_bar", "format names foo_bar only")
check_format("format", "foo_bar", jevs[0] if jevs else None)

doc = v.json_doc("format_all")
t.ok(v.rc("format_all") == 0 and doc is not None, "tpctl format sample-trace --json",
     v.step_diag("format_all"))
byname = {}
if isinstance(doc, dict):
    byname = {e.get("event"): e for e in doc.get("events", [])}
t.ok(sorted(byname) == sorted(kernel_events), "format sample-trace covers every event",
     "%s" % sorted(byname))
for ev in kernel_events:
    check_format("format_all", ev, byname.get(ev))

# filter, set before enabling so that every foo_bar record in the buffer passed it.
t.ok(v.rc("filter") == 0, "tpctl -i vmctl filter sample-trace:foo_bar 'bar > 5'",
     v.step_diag("filter"))
t.ok(v.text("filter_file").strip() == "bar > 5", "the kernel's filter file says 'bar > 5'",
     v.text("filter_file"))
t.ok(v.rc("filter_show") == 0 and "bar > 5" in v.text("filter_show.out"),
     "tpctl filter EVENT shows the filter", v.step_diag("filter_show"))

# enable
t.ok(v.rc("enable") == 0, "tpctl -i vmctl enable sample-trace", v.step_diag("enable"))
state = dict(l.split() for l in v.text("enable_state").splitlines() if l.strip())
t.ok(sorted(state) == sorted(kernel_events) and set(state.values()) == {"1"},
     "every sample-trace enable file is 1", v.text("enable_state"))

recs = v.trace_records(v.read("filter_trace"))
foo_bars = [r for r in recs if r.get("event") == "foo_bar"]
bars = [v.expected_fields("foo_bar", r["body"]) for r in foo_bars]
t.ok(len(foo_bars) > 0, "the kernel traced foo_bar records with the filter on")
t.ok(all(b is not None and b["bar"] > 5 for b in bars),
     "every foo_bar record in the kernel's trace has bar > 5",
     "\n".join(r["line"].decode("utf-8", "replace") for r in foo_bars[:5]))
others = [v.expected_fields(r["event"], r["body"]) for r in recs
          if r.get("event") == "foo_with_template_simple"]
t.ok(any(o and o["bar"] <= 5 for o in others),
     "the filter applies to foo_bar only (other events keep bar <= 5)")

# A filter the kernel rejects: usage error, its explanation, nothing changed.
err = v.text("filter_bad.err")
t.ok(v.rc("filter_bad") == 2, "an invalid filter exits 2", v.step_diag("filter_bad"))
t.ok(err.startswith("tpctl: filter: ") and v.text("filter_bad.out") == "",
     "an invalid filter is reported on stderr only, git style", err)
t.ok(v.text("filter_file_after_bad").strip() == "bar > 5",
     "an invalid filter leaves the old one in place", v.text("filter_file_after_bad"))

# status
doc = v.json_doc("status")
t.ok(v.rc("status") == 0 and isinstance(doc, dict), "tpctl -i vmctl status --json",
     v.step_diag("status"))
sev = {}
if isinstance(doc, dict):
    sev = {(e.get("system"), e.get("event")): e for e in doc.get("events", [])
           if isinstance(e, dict)}
t.ok(sorted(e for _s, e in sev) == sorted(kernel_events) and
     sev.get(("sample-trace", "foo_bar"), {}).get("filter") == "bar > 5",
     "status lists the enabled events and foo_bar's filter", v.text("status.out")[:2000])

# disable
t.ok(v.rc("disable") == 0, "tpctl -i vmctl disable sample-trace", v.step_diag("disable"))
state = dict(l.split() for l in v.text("disable_state").splitlines() if l.strip())
t.ok(sorted(state) == sorted(kernel_events) and set(state.values()) == {"0"},
     "every sample-trace enable file is 0 again", v.text("disable_state"))
t.done()
