#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# tpctl count and hist in the VM, whose kernel has hist triggers: the kernel
# engine and the user engine, run at the same time on the same workload
# (tests/vm/aggload.c, filtered on its pid), give the same rows; the counts
# are the workload's; what the kernel cannot aggregate is an error with
# --engine kernel and the user engine's work by default; nothing is left.
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

t = v.Tap()
v.results_or_fail(t)

PAIRS = ["count_sys", "count_field", "hist_log2", "hist_linear", "count_str", "hist_str"]
if v.text("agg_available").strip() != "yes":
    for name in PAIRS + ["agg_default", "agg_kernel_stack", "agg_kernel_keys", "agg_auto_keys",
                         "agg_interval", "agg_target_kernel", "agg_target_user", "agg_true",
                         "agg_stack",
                         "agg_left",
                         "rmdir"]:
        t.skip(name, "count/hist not built yet")
    t.done()

N_SYS, N_RENAME = 1000, 300


def doc(step):
    """The one JSON document a run printed (without --interval), or None."""
    objs, bad = v.ndjson(step)
    return objs[0] if len(objs) == 1 and not bad else None


docs = {}
for name in PAIRS:
    k, u = "agg/%s.kernel" % name, "agg/%s.user" % name
    dk, du = doc(k), doc(u)
    docs[name] = (dk, du)
    t.ok(v.rc(k) == 0 and v.rc(u) == 0 and dk is not None and du is not None,
         "%s: both engines exit 0 after INT with one JSON document" % name,
         v.step_diag(k) + "\n" + v.step_diag(u))
    if dk is None or du is None:
        t.skip("%s: the same rows" % name, "no documents")
        continue
    rows = "groups" if dk.get("type") == "hist" else "rows"
    t.ok(dk.get(rows) == du.get(rows) and dk.get(rows) and dk["lost"] == 0 and du["lost"] == 0,
         "%s: the kernel and the user engine give the same %d rows, nothing lost" %
         (name, len(dk.get(rows) or [])),
         "kernel: %s\nuser:   %s" % (json.dumps(dk)[:1500], json.dumps(du)[:1500]))
    t.ok("kernel engine" in v.text(k + ".err") and "user engine" in v.text(u + ".err"),
         "%s: each engine was the one asked for" % name,
         v.text(k + ".err")[:500] + v.text(u + ".err")[:500])

# the counts are the workload's: N getpid() and N read() of its pid
dk = docs["count_sys"][0] or {}
pid = int(v.text("agg/count_sys.loadpid").strip() or 0)
per_event = {}
for r in dk.get("rows", []):
    per_event[r["key"]["event"]] = per_event.get(r["key"]["event"], 0) + r["count"]
t.ok(per_event == {"syscalls:sys_enter_read": N_SYS, "syscalls:sys_enter_getpid": N_SYS} and
     all(r["key"]["pid"] == pid and r["key"]["comm"] == "aggload" for r in dk.get("rows", [])),
     "count --by event,comm,pid,cpu: %d reads and %d getpid of aggload (pid %d)" %
     (N_SYS, N_SYS, pid), json.dumps(dk)[:1000])
dk = docs["hist_log2"][0] or {}
g = (dk.get("groups") or [{}])[0]
sizes = [(i * 7919) % 1500 + 1 for i in range(N_SYS)]
t.ok(g.get("count") == N_SYS and g.get("sum") == sum(sizes) and g.get("min") == min(sizes) and
     g.get("max") == max(sizes),
     "hist --field count: count, sum, min and max of the sizes aggload read", json.dumps(g)[:800])
dk = docs["count_str"][0] or {}
renames = {}
names = ["agg-a", "agg-b", "agg-c", "agg-d", "agg-e"]
for i in range(N_RENAME):
    renames[names[0 if i % 15 < 8 else 1 if i % 15 < 12 else i % 5]] = \
        renames.get(names[0 if i % 15 < 8 else 1 if i % 15 < 12 else i % 5], 0) + 1
got = {}
for r in dk.get("rows", []):
    got[r["key"]["newcomm"]] = got.get(r["key"]["newcomm"], 0) + r["count"]
t.ok(got == renames, "count --by newcomm,oldcomm: the names aggload gave itself, as often",
     "got %r want %r" % (got, renames))

t.ok(v.rc("agg_default") == 0 and "kernel engine" in v.text("agg_default.err"),
     "the default engine is the kernel's where there are hist triggers",
     v.step_diag("agg_default"))
t.ok(v.rc("agg_kernel_stack") == 2 and "stack" in v.text("agg_kernel_stack.err"),
     "--by stack --engine kernel: exit 2, says why", v.step_diag("agg_kernel_stack"))
t.ok(v.rc("agg_kernel_keys") == 2 and "more than three keys" in v.text("agg_kernel_keys.err"),
     "four kernel keys with --engine kernel: exit 2, says why", v.step_diag("agg_kernel_keys"))
t.ok(v.rc("agg_auto_keys") == 0 and "user engine" in v.text("agg_auto_keys.err"),
     "four kernel keys by default: the user engine does it", v.step_diag("agg_auto_keys"))
objs, bad = v.ndjson("agg_interval")
t.ok(v.rc("agg_interval") == 0 and not bad and 4 <= len(objs) <= 6 and
     all(o.get("type") == "count" and o.get("interval_ns", 0) > 0 for o in objs),
     "--interval 0.4 --duration 1.8 --json: a document per interval (%d)" % len(objs),
     v.step_diag("agg_interval"))
for e in ("kernel", "user"):
    d = doc("agg_target_" + e)
    # 500, and the getpid() of its start (it prints its pid)
    t.ok(v.rc("agg_target_" + e) == 0 and d is not None and
         d["rows"] == [{"key": {"comm": "aggload"}, "count": 501}] and d["lost"] == 0,
         "-- aggload sys 500, --engine %s: its 501 getpid() calls, nothing else" % e,
         v.step_diag("agg_target_" + e))
# -- /bin/true: both engines count from its exec on (tpctl holds it at its exec
# until the pid filter is set), so they count the same syscalls
cnt = {}
for e in ("kernel", "user"):
    d = doc("agg_true_" + e)
    cnt[e] = sum(r["count"] for r in (d or {}).get("rows") or []) if d else None
t.ok(v.rc("agg_true_kernel") == 0 and v.rc("agg_true_user") == 0 and
     cnt["kernel"] and cnt["kernel"] == cnt["user"],
     "count raw_syscalls:sys_enter -- /bin/true: the same count on both engines (%s)" % cnt,
     v.step_diag("agg_true_kernel") + v.step_diag("agg_true_user"))
d = doc("agg_stack")
rows = (d or {}).get("rows") or []
t.ok(v.rc("agg_stack") == 0 and "user engine" in v.text("agg_stack.err") and
     sum(r["count"] for r in rows) == 101 and
     all(r["key"]["stack"] and all("addr" in f and "sym" in f for f in r["key"]["stack"])
         for r in rows),
     "--stack: the user engine counts aggload's 101 getpid() per kernel stack",
     v.step_diag("agg_stack"))
left = [l for l in v.text("agg/instances_after").split() if l.startswith("tpctl-")]
trig = [l for l in v.text("agg/toplevel_trigger_after").splitlines() if not l.startswith("#")]
t.ok(not left and not trig, "no tpctl-* instance and no trigger left behind",
     "instances: %r, trigger: %r" % (left, trig))
t.ok(v.text("agg/rmdir_with_triggers.rc").strip() == "0",
     "an instance with hist triggers can be removed at once (what a SIGKILL leaves)",
     v.text("agg/rmdir_with_triggers.err"))
t.done()
