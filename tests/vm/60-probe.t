#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# tpctl probe in the VM, whose 6.1 kernel has kprobes, uprobes and event
# probes (tests/vm/guest/parts/60-probe.sh).  probeload (tests/vm/probeload.c)
# reads fd 37 N times, 100 + i bytes the i-th time: the kprobe on ksys_read
# must see exactly that, the kretprobe return the same, count count N.  An
# event probe on sample-trace:foo_bar carries the values of the foo_bar record
# it fired on.  probe list tells the kinds apart as dynamic_events says them;
# bad input, two runs of one SPEC, KILL with reset, rmmod of the module under
# an event probe and a removal refused partway leave nothing behind.
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

t = v.Tap()
v.results_or_fail(t)
if not os.path.exists(v.path("probe")):
    t.skip("probe checks", "the guest ran no probe part")
    t.done()


def events(step, name=None, system=None):
    objs, _ = v.ndjson(step)
    return [o for o in objs if o.get("type") == "event" and
            (name is None or o["event"] == name) and
            (system is None or re.fullmatch(system, o["system"]))]


def reads(n):
    """What probeload read N does: fd 37, 100 + i bytes."""
    return [(37, 100 + i) for i in range(n)]


def state(name):
    return v.text("probe/" + name)


before = state("state_before")

# ---- k: and kr: on ksys_read
for step, n in (("pr_k", 50), ("pr_kr", 50)):
    got = [(e["fields"].get("fd"), e["fields"].get("n"))
           for e in events(step, "ksys_read", r"tpctl_\d+")]
    t.ok(v.rc(step) == 0 and got == reads(n),
         "%s: exactly %d ksys_read events with fd and count as probeload passed them" % (step, n),
         v.step_diag(step) + "\ngot %r" % got[:10])
    t.ok({e["comm"] for e in events(step, "ksys_read")} == {"probeload"},
         "%s: only probeload's calls (-- COMMAND)" % step, v.step_diag(step))
got = [e["fields"].get("ret") for e in events("pr_kr", "ksys_read__return", r"tpctl_\d+")]
t.ok(got == [c for _, c in reads(50)], "kr: the 50 return values, the bytes read",
     "got %r" % got[:10])
for engine in ("kernel", "user"):
    step = "pr_count_" + engine
    docs, bad = v.ndjson(step)
    rows = {r["key"].get("comm"): r["count"] for d in docs for r in d.get("rows", [])}
    t.ok(v.rc(step) == 0 and not bad and rows.get("probeload") == 50,
         "count --by comm --engine %s: probeload counted 50" % engine,
         v.step_diag(step))
t.ok(state("state_after_runs") == before, "nothing left after the one-run probes",
     state("state_after_runs"))

# ---- faults: a uprobe's copy may fault the page in; a kprobe at openat's
# entry cannot read a path on a page probeload never touched
NEAR, FAR = "/nonexistent/probeload-near", "/nonexistent/probeload-far"
got = [e["fields"].get("path") for e in events("pr_fault_u", "open_path")]
t.ok(v.rc("pr_fault_u") == 0 and got == [NEAR, FAR],
     "uprobe: both paths, the one on an untouched page too", v.step_diag("pr_fault_u"))


def kernel_path(body):
    m = re.search(rb'path=("([^"]*)"|\(fault\))', body)
    return None if not m else m.group(2).decode() if m.group(2) is not None else "(fault)"


kpaths = [kernel_path(r["body"]) for r in v.trace_records(v.read("probe/fault_kernel.trace"))
          if r.get("event") == "pr_fault"]
t.ok(v.rc("pr_fault_add") == 0 and kpaths == [NEAR, "(fault)"],
     "kernel's text of a kprobe at openat's entry: the touched path, (fault) for the other",
     v.text("probe/fault_kernel.trace") + v.step_diag("pr_fault_add"))
want = ["" if p == "(fault)" else p for p in kpaths]
got = [e["fields"].get("path") for e in events("pr_fault_k", "__x64_sys_openat")
       if e["comm"] == "probeload"]
t.ok(v.rc("pr_fault_k") == 0 and got == want,
     "tpctl --json: the same fetches, a fault as an empty string (tpctl-probe(1))",
     v.step_diag("pr_fault_k") + "\nwant %r" % want)
# probeload's lines, found by the pid of the one with its own path: the task's name
# may still be "<...>" (saved_cmdlines has a task's name only after its first switch)
lines = [l for l in v.read("pr_fault_k_text.out").split(b"\n") if b"path=" in l]
pids = {m.group(1) for l in lines if NEAR.encode() in l
        for m in [re.match(rb"\s*.*?-(\d+)\s+\[\d+\]", l)] if m}
got = [kernel_path(l) for l in lines
       if (m := re.match(rb"\s*.*?-(\d+)\s+\[\d+\]", l)) and m.group(1) in pids]
t.ok(v.rc("pr_fault_k_text") == 0 and got == want, "tpctl text: the same",
     v.step_diag("pr_fault_k_text") + "\nwant %r\ngot %r" % (want, got))
t.ok(v.rc("pr_fault_remove") == 0, "the persistent probe removed", v.step_diag("pr_fault_remove"))

# ---- event probe: the values of the record it fired on
for step, names in (("pr_e", ("bar", "foo", "str")), ("pr_e_short", ("bar", "foo"))):
    last, bad, n = {}, [], 0
    for e in events(step):
        if e["system"] == "sample-trace" and e["event"] == "foo_bar":
            last[e["cpu"]] = e["fields"]
        elif re.fullmatch(r"tpctl_\d+", e["system"]) and e["event"] == "foo_bar":
            n += 1
            orig = last.get(e["cpu"])
            want = {k: orig[k] for k in names} if orig else None
            got = {k: e["fields"].get(k) for k in names}
            if want != got:
                bad.append("original %r, probe %r" % (want, got))
    nbase = len(events(step, "foo_bar", "sample-trace"))
    t.ok(v.rc(step) == 0 and n >= 10 and abs(nbase - n) <= 2 and not bad,
         "%s: %d event probe records, each with %s of its foo_bar record (%d)" %
         (step, n, "/".join(names), nbase),
         v.step_diag(step) + "\n" + "\n".join(bad[:5]))

# ---- persistent probes: add, list (kinds as dynamic_events has them), remove
for s in ("pr_add_k", "pr_add_kr", "pr_add_u", "pr_add_ur", "pr_add_e"):
    t.ok(v.rc(s) == 0, "probe add: %s" % s, v.step_diag(s))


def kinds_from_kernel(text):
    """(system, event) -> (kind, place and args) from dynamic_events lines."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^([a-z]+)\d*:([^/\s]+)/(\S+)\s+(.*)$", line)
        if not m:
            continue
        pre, sys_, ev, rest = m.groups()
        place = rest.split()[0] if rest.split() else ""
        kind = {"p": "kprobe", "r": "kretprobe", "e": "eprobe", "s": "synthetic"}.get(pre)
        if pre in ("p", "r") and place.startswith("/"):
            kind = "uprobe" if pre == "p" else "uretprobe"
        out[(sys_, ev)] = (kind, " ".join(rest.split()))
    return out


kernel = kinds_from_kernel(state("list_dynamic_events"))
doc = v.json_doc("pr_list")
listed = {}
dups = []
for p in (doc or {}).get("probes", []):
    key = (p["system"], p["event"])
    if key in listed:
        dups.append(key)
    words = " ".join(x for x in (p.get("place"), p.get("args")) if x)
    listed[key] = (p["kind"], " ".join(words.split()))
tp = {k for k, p in (((p["system"], p["event"]), p) for p in (doc or {}).get("probes", []))
      if p["tpctl"]}
t.ok(v.rc("pr_list") == 0 and listed == kernel and not dups and len(kernel) == 7,
     "probe list --json: every dynamic event once, kind, place and args as the kernel has them",
     "kernel: %r\nlisted: %r\nduplicates: %r" % (kernel, listed, dups))
t.ok(tp == {("tpctl", n) for n in ("pr_k", "pr_kr", "pr_u", "pr_ur", "pr_e")},
     "probe list --json: tpctl's are those of group tpctl, not another tool's", repr(tp))
text_kinds = {}
for line in v.text("pr_list_text.out").splitlines():
    f = line.split("\t")
    if len(f) >= 2 and ":" in f[0]:
        text_kinds[tuple(f[0].split(":", 1))] = f[1]
t.ok(text_kinds == {k: kind for k, (kind, _) in kernel.items()},
     "probe list: the same kinds in text", v.text("pr_list_text.out"))
got = [(e["fields"].get("fd"), e["fields"].get("n")) for e in events("pr_persist", "pr_k")]
ret = [e["fields"].get("retval") for e in events("pr_persist", "pr_kr")]
t.ok(v.rc("pr_persist") == 0 and got == reads(20) and ret == [c for _, c in reads(20)],
     "persistent kprobe and kretprobe are ordinary events: 20 of each, values exact",
     v.step_diag("pr_persist"))

err = v.text("pr_remove_busy.err")
t.ok(v.rc("pr_remove_busy") == 1 and len(err.splitlines()) == 1 and
     "cannot remove probe 'tpctl:pr_e'" in err and err.rstrip().endswith("nothing removed"),
     "remove refused partway (pr_e enabled): exit 1, one line, nothing removed",
     v.step_diag("pr_remove_busy"))
t.ok(sorted(state("after_remove_busy").splitlines()) ==
     sorted(state("list_dynamic_events").splitlines()),
     "the probes removed before the refusal are back as they were",
     "before:\n%s\nafter:\n%s" % (state("list_dynamic_events"), state("after_remove_busy")))
t.ok(v.rc("pr_remove") == 0 and state("state_after_persist") == before,
     "probe remove of every kind: nothing left", v.step_diag("pr_remove") + "\n" +
     state("state_after_persist"))

# ---- bad input: exit 2, one line (and the kernel's error_log), nothing changed
for s in ("pr_bad_sym", "pr_bad_edots", "pr_bad_esys", "pr_bad_slash", "pr_bad_dots",
          "pr_bad_rdots"):
    lines = v.text(s + ".err").splitlines()
    t.ok(v.rc(s) == 2 and len(lines) == 1 and re.match(r"^tpctl: (stream|probe): ", lines[0]),
         "%s: exit 2, one line" % s, v.step_diag(s))
t.ok("closest: " in v.text("pr_bad_sym.err"), "unknown kernel function: names the closest",
     v.text("pr_bad_sym.err"))
for s, arg in (("pr_bad_arg", "bad=+0(%zz):u32"), ("pr_bad_type", "x=%di:nosuchtype"),
               ("pr_bad_efield", "x=$nosuchfield")):
    lines = v.text(s + ".err").splitlines()
    cmd = [l for l in lines if "Command: " in l]
    caret = [l for l in lines if l.strip() == "^"]
    where = ""
    if cmd and caret:
        col = caret[0].index("^")
        start = cmd[0].find(arg)
        where = "ok" if start >= 0 and start <= col < start + len(arg) else "caret elsewhere"
    t.ok(v.rc(s) == 2 and lines and lines[0].startswith("tpctl: stream: the kernel refused") and
         any(": error: " in l for l in lines) and where == "ok",
         "%s: exit 2, the kernel's error_log with its caret under '%s'" % (s, arg),
         v.step_diag(s))
t.ok(state("state_after_bad") == before, "bad input: nothing changed", state("state_after_bad"))

# ---- two runs of one SPEC at once
for x in ("a", "b"):
    step = "probe/two_" + x
    evs = events(step)
    # -a: the other run's probeload shows too; this run's is the one it started
    # (whose child, before its exec, waits for the go on a pipe: fd 37 only)
    objs, _ = v.ndjson(step)
    pids = {o["pid"] for o in objs if o.get("type") == "exit"}
    got = [(e["fields"].get("fd"), e["fields"].get("n")) for e in evs
           if e["event"] == "ksys_read" and e["pid"] in pids and e["fields"].get("fd") == 37]
    ep = [e for e in evs if e["event"] == "foo_bar" and re.fullmatch(r"tpctl_\d+", e["system"])]
    t.ok(v.rc(step) == 0 and got == reads(20) and len(ep) > 0,
         "two runs of one SPEC at once (%s): its 20 reads exact, event probe records (%d)" %
         (x, len(ep)), v.step_diag(step))
t.ok(state("state_after_two") == before, "two runs: nothing left", state("state_after_two"))

# ---- KILL, then reset
pid = v.text("probe/kill_pid").strip()
err = v.text("pr_reset.err")
t.ok(v.text("probe/kill_before").strip() == "2" and v.rc("pr_reset") == 0 and
     "removed orphaned probe 'tpctl_%s:ksys_read'" % pid in err and
     "removed orphaned probe 'tpctl_%s:foo_bar'" % pid in err,
     "KILL leaves the run's kprobe and event probe; reset removes both and says so",
     v.text("probe/kill_before") + v.step_diag("pr_reset"))
t.ok(state("state_after_reset") == before, "reset: nothing left", state("state_after_reset"))

# ---- rmmod while streaming the module's events (and an event probe on them)
for name in ("rmmod_plain", "rmmod_eprobe"):
    step = "probe/" + name
    lines = v.text(step + ".err").splitlines()
    refused = v.text(step + ".rmmod_rc").strip() != "0"
    what = "rmmod %s (%s), tpctl %s, exit %s%s" % (
        "refused" if refused else "done", v.text(step + ".rmmod").strip(),
        v.text(step + ".alive").strip(), v.rc(step), ": " + lines[0] if lines else "")
    t.diag(name + ": " + what)
    t.ok((v.rc(step) == 0 and not lines) or
         (v.rc(step) == 1 and len(lines) == 1 and lines[0].startswith("tpctl: stream: ")),
         "%s: tpctl ends with exit 0 or one clear line" % name, what)
    t.ok(state(name + ".state") == before, "%s: nothing left" % name, state(name + ".state"))
    t.ok(v.text(step + ".rmmod_after_rc").strip() in ("", "0") and
         v.text(step + ".insmod_rc").strip() == "0",
         "%s: with tpctl gone the module unloads and loads again" % name,
         v.text(step + ".rmmod_after") + v.text(step + ".insmod"))
t.ok(v.text("probe/rmmod_eprobe.rmmod_rc").strip() != "0",
     "an event probe on the module's event holds the module: rmmod refused while it exists",
     v.text("probe/rmmod_eprobe.rmmod"))
t.done()
