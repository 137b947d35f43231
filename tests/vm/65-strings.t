#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# --strings in the VM (Debian's 6.1: event probes, synthetic events, hist
# triggers), from tests/vm/guest/parts/65-strings.sh.  tests/vm/strload.c
# opens known paths, a third of them from pages it never touched; what it
# opened is known twice over without tpctl: from its own code (the list
# below) and from Debian's strace of the same program.  tpctl's paths must be
# those, each one, with fewer than 1 % that the kernel could not fetch; the
# naive event probe at entry is run too, to show that the untouched pages do
# fault there.  A recording reads the same in tpctl report and trace-cmd
# report (on the host), and nothing is left after INT, TERM, and KILL with
# tpctl reset.
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

t = v.Tap()
v.results_or_fail(t)

CHECKS = ["strace", "json paths", "json values", "faults", "text", "count", "count text",
          "hist", "filter", "naive", "exec", "all", "record", "INT", "TERM", "KILL"]
if v.text("strings/available").strip() != "yes":
    for name in CHECKS:
        t.skip(name, "--strings not built yet")
    t.done()

N = 200


def strload_paths(n):
    """What tests/vm/strload.c opens, in order, from its source's logic."""
    paths = ["/tmp/strload.map"]
    for i in range(n):
        paths += ["/etc/passwd", "/proc/version", "/tmp/strload/fresh-%d" % i]
    return paths


def events(step, event="sys_enter_openat"):
    objs, bad = v.ndjson(step)
    return [o for o in objs if o.get("type") == "event" and o.get("event") == event], bad


# strace's view: pid  openat(AT_FDCWD, "PATH", FLAGS) = RET
STRACE = re.compile(r'^\d+\s+openat\([^,]+, "((?:[^"\\]|\\.)*)",.*\)\s+=\s+(-?\d+)')
strace = []
for line in v.text("strings/strace.txt").splitlines():
    m = STRACE.match(line)
    if m:
        strace.append((m.group(1), int(m.group(2)) >= 0))
t.ok(v.text("strings/strace.rc").strip() == "0" and
     [p for p, _ in strace] == strload_paths(N),
     "strace of strload %d: the %d paths strload.c opens, in order" % (N, 3 * N + 1),
     v.text("strings/strace.txt")[:1500])

evs, bad = events("str_json")
got = [e["fields"].get("filename") for e in evs]
nulls = sum(1 for p in got if p is None)
fetched = [p for p in got if p is not None]
t.ok(v.rc("str_json") == 0 and not bad and len(got) == len(strace) and
     all(g is None or g == s for g, (s, _) in zip(got, strace)),
     "stream --strings --json: strace's %d paths in its order (%d fetched)" %
     (len(strace), len(fetched)), v.step_diag("str_json"))
vals = [(e["fields"].get("filename"), e["fields"].get("ret")) for e in evs]
t.ok(len(vals) == len(strace) and
     all(isinstance(r, int) and (r >= 0) == ok for (_, r), (_, ok) in zip(vals, strace)) and
     all(e["system"] == "syscalls" and e["fields"].get("dfd") == 0xffffff9c and
         e["fields"].get("__syscall_nr") == 257 for e in evs),
     "JSON: syscalls:sys_enter_openat with dfd AT_FDCWD, __syscall_nr and ret (strace's "
     "success or failure)", str(vals[:10]))
t.ok(nulls * 100 < len(got) and len(got) > 0 and
     (nulls == 0 or "could not fetch" in v.text("str_json.err")),
     "fewer than 1 %% of the strings could not be fetched (%d of %d)" % (nulls, len(got)),
     v.text("str_json.err"))

# text: the kernel's syscall layout, the string quoted, the return value after "->"
TEXT = re.compile(r'^\s*\S.*-(\d+)\s+\[\d{3}\] \S{5}\s+\d+\.\d{6}: sys_openat\(dfd: 0xffffff9c, '
                  r'filename: ("(.*)"|\(fault\)), flags: 0x[0-9a-f]+, mode: 0x[0-9a-f]+\) '
                  r'-> 0x([0-9a-f]+)$')
tl = [TEXT.match(l) for l in v.text("str_text.out").splitlines()]
t.ok(v.rc("str_text") == 0 and tl and all(tl) and
     [m.group(3) for m in tl] == strload_paths(20) and
     all((int(m.group(4), 16) < 1 << 63) == (not m.group(3).startswith("/tmp/strload/fresh"))
         for m in tl),
     "text: sys_openat(dfd: ..., filename: \"PATH\", ...) -> RET for every path of strload 20",
     v.step_diag("str_text"))

# count --by filename: opensnoop's summary, exact
want = collections.Counter(p for p, _ in strace)
doc = v.json_doc("str_count")
rows = {r["key"].get("filename"): r["count"] for r in (doc or {}).get("rows", [])}
t.ok(v.rc("str_count") == 0 and rows == dict(want),
     "count --by filename --strings: the exact count of every path (%d paths)" % len(want),
     "want %s\ngot  %s\n%s" % (sorted(want.items())[:8], sorted(rows.items())[:8],
                               v.step_diag("str_count")))
want20 = collections.Counter(strload_paths(20))
trows = {}
for line in v.text("str_count_text.out").splitlines()[1:]:
    m = re.match(r"^(\S+)\s+(\d+)$", line)
    if m:
        trows[m.group(1)] = int(m.group(2))
t.ok(v.rc("str_count_text") == 0 and trows == dict(want20) and
     v.text("str_count_text.out").split()[0] == "filename",
     "count text: a row per path with its count", v.step_diag("str_count_text"))

doc = v.json_doc("str_hist")
groups = {g["key"].get("filename"): g for g in (doc or {}).get("groups", [])}
t.ok(v.rc("str_hist") == 0 and set(groups) == set(want20) and
     all(g["count"] == want20[p] and (g["max"] < 0) == p.startswith("/tmp/strload/fresh")
         for p, g in groups.items()),
     "hist --field ret --by filename --strings: per path, its calls and return values",
     v.step_diag("str_hist"))

evs, bad = events("str_filter")
t.ok(v.rc("str_filter") == 0 and not bad and
     [e["fields"]["filename"] for e in evs] == ["/tmp/strload/fresh-%d" % i for i in range(20)],
     "--filter 'filename ~ \"*fresh*\"': the kernel filters on the fetched string",
     v.step_diag("str_filter"))

# the naive way: an event probe fetching at entry gets nothing from the untouched pages
objs, bad = v.ndjson("str_naive")
naive = [o["fields"].get("filename") for o in objs if o.get("type") == "event"]
empty = sum(1 for p in naive if not p)
t.ok(v.rc("str_naive") == 0 and len(naive) == len(strace) and empty >= N // 2,
     "the naive probe at entry could not fetch %d of %d (why --strings waits for the exit)" %
     (empty, len(naive)), v.step_diag("str_naive"))

evs, bad = events("str_exec", "sys_enter_execve")
t.ok(v.rc("str_exec") == 0 and not bad and
     any(e["fields"].get("filename") == "/usr/bin/strload" for e in evs) and
     all("ret" not in e["fields"] for e in evs),
     "execve: its filename fetched at entry (no return value)", v.step_diag("str_exec"))

# every syscall event with --strings: openat's paths as with one event, close and the
# others as they are
objs, bad = v.ndjson("str_all")
opens = [o["fields"].get("filename") for o in objs
         if o.get("event") == "sys_enter_openat" and o.get("comm") == "strload"]
closes = [o for o in objs if o.get("event") == "sys_enter_close" and o.get("comm") == "strload"]
t.ok(v.rc("str_all") == 0 and not bad and opens == strload_paths(5) and len(closes) >= 10 and
     v.text("strings/all.after") == v.text("strings/state_before"),
     "stream --strings syscalls (every syscall event): strload's paths, nothing left",
     v.step_diag("str_all") + v.text("strings/all.after"))

# the recording: tpctl report and trace-cmd report read the same strings
rep, bad = events("str_report")
rep_paths = [e["fields"].get("filename") for e in rep]
dat = v.path("strings/strings.dat")
tc = subprocess.run(["/work/shared/tools/trace-cmd-here", "report", dat], capture_output=True)
tc_paths = re.findall(rb'strings_sys_enter_openat: .*filename="([^"]*)"', tc.stdout)
host = subprocess.run([os.path.join(v.TOP, "tpctl"), "report", "--json", dat],
                      capture_output=True)
host_paths = [json.loads(l)["fields"].get("filename") for l in host.stdout.splitlines()
              if b'"sys_enter_openat"' in l]
t.ok(v.rc("str_record") == 0 and v.rc("str_report") == 0 and
     rep_paths == strload_paths(20) and host_paths == rep_paths and
     [p.decode() for p in tc_paths] == rep_paths,
     "record --strings: tpctl report (guest and host) and trace-cmd report read the same paths",
     "guest %s\nhost %s\ntrace-cmd %s\n%s" % (rep_paths[:5], host_paths[:5], tc_paths[:5],
                                              tc.stderr[:500]))

for sig in ("INT", "TERM", "KILL"):
    pid = v.text("strings/sig_%s.pid" % sig).strip()
    during = v.text("strings/sig_%s.during" % sig)
    after = v.text("strings/sig_%s.after" % sig)
    before = v.text("strings/state_before")
    made = ("tpctl-%s" % pid in during and "tpctl_str_%s_0" % pid in during and
            "e:tpctl_%s/strings_sys_enter_openat" % pid in during)
    rc = v.text("strings/sig_%s.rc" % sig).strip()
    if sig == "KILL":
        ok = (made and rc == "137" and v.rc("str_reset") == 0 and after == before and
              "removed orphaned synthetic event 'tpctl_str_%s_0'" % pid in v.text("str_reset.err"))
        what = "KILL, then tpctl reset: nothing left"
    else:
        ok = made and rc == "0" and after == before
        what = "%s: exit 0, nothing left (instance, synthetic event, probe, triggers)" % sig
    t.ok(ok, what, "during:\n%s\nafter:\n%s\nbefore:\n%s\nrc %s\n%s" %
         (during, after, before, rc, v.text("str_reset.err")))
t.done()
