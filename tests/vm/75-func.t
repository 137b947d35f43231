#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The function and function_graph tracers in the VM, whose 6.1 kernel has
# both (tests/vm/guest/parts/75-func.sh).  The kernel's own `trace` text of
# the same records is the oracle of tpctl's text, line for line; funcload
# (tests/vm/funcload.c) makes exactly N calls of vfs_read; INT, TERM, KILL
# with reset and mistakes leave the tracer files, the top level's and another
# tool's instance, as they were.
import importlib.util
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

t = v.Tap()
v.results_or_fail(t)
if not os.path.exists(v.path("func")):
    t.skip("function tracer checks", "the guest ran no func part")
    t.done()


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "line %d:\nkernel: %r\ntpctl:  %r" % (i + 1, x, y)
    return "lengths %d (kernel) and %d (tpctl)" % (len(a), len(b))


def out_lines(step):
    return [l for l in v.read(step + ".out").split(b"\n") if l]


# ---- function records: the kernel's text, line for line
kern = v.trace_lines(v.read("func/func_kernel_text.trace"))
got = out_lines("fn_func_text")
t.ok(v.rc("fn_func_text") == 0 and len(kern) >= 2000 and got == kern,
     "function records: tpctl's text equals the kernel's trace, %d lines" % len(kern),
     v.step_diag("fn_func_text") + "\n" + first_diff(kern, got))

# JSON: the same records, func and parent as the kernel names them
FUNC_LINE = re.compile(rb"^\s*(.*)-(\d+)\s+\[(\d+)\] \S+\s+(\d+)\.(\d+): (\S+) <-(\S+)$")
want = []
for l in v.trace_lines(v.read("func/func_kernel_json.trace")):
    m = FUNC_LINE.match(l)
    want.append((int(m.group(2)), int(m.group(3)), int(m.group(4)) * 1000000 + int(m.group(5)),
                 m.group(6).decode(), m.group(7).decode()) if m else l)
objs, bad = v.ndjson("fn_func_json")
# the kernel rounds to microseconds
got = [(o["pid"], o["cpu"], (o["ts_ns"] + 500) // 1000, o["func"], o["parent"])
       for o in objs if o.get("type") == "function"]
t.ok(v.rc("fn_func_json") == 0 and not bad and len(want) >= 2000 and got == want,
     "function records --json: pid, cpu, time, func and parent as the kernel's text (%d)" %
     len(want), v.step_diag("fn_func_json") + "\n" + first_diff(want, got))

# ---- function_graph: the kernel's text, line for line (leaves, nesting, durations)
kern = v.trace_lines(v.read("func/graph_kernel.trace"))
got = out_lines("fn_graph_text")
top = [l for l in kern if re.match(rb"^ \d+\) {15}\|  vfs_read\(\) \{$", l)]
t.ok(v.rc("fn_graph_text") == 0 and len(top) == 1000 and got == kern,
     "function_graph: tpctl's text equals the kernel's trace, %d lines, %d vfs_read calls" %
     (len(kern), len(top)), v.step_diag("fn_graph_text") + "\n" + first_diff(kern, got))

# a module's function: "func [module]" as the kernel's %ps prints it
if os.path.exists(v.path("func/graph_mod_kernel.trace")):
    kern = v.trace_lines(v.read("func/graph_mod_kernel.trace"))
    got = out_lines("fn_graph_mod_text")
    mod = [l for l in kern if b"sample_trace_fn_reg [sample_trace]" in l]
    t.ok(v.rc("fn_graph_mod_text") == 0 and mod and got == kern,
         "function_graph of a module's function: 'sample_trace_fn_reg [sample_trace]', "
         "tpctl's text equals the kernel's, %d lines" % len(kern),
         v.step_diag("fn_graph_mod_text") + "\n" + first_diff(kern, got))
else:
    t.skip("function_graph of a module's function", "sample_trace_fn_reg is not traceable")


def graph_calls(step, comm="funcload"):
    """(entries, returns) of depth 0 of the task named comm."""
    objs, bad = v.ndjson(step)
    ent = [o for o in objs if o.get("type") == "graph_entry" and o.get("comm") == comm and
           o["depth"] == 0]
    ret = [o for o in objs if o.get("type") == "graph_return" and o.get("comm") == comm and
           o["depth"] == 0]
    return objs, bad, ent, ret


# ---- tpctl's own runs
objs, bad, ent, ret = graph_calls("fn_graph_json")
dur = [o.get("duration_ns") for o in ret]
t.ok(v.rc("fn_graph_json") == 0 and not bad and len(ent) == 1000 and len(ret) == 1000 and
     all(o["func"] == "vfs_read" for o in ent + ret) and all(d and d > 0 for d in dur),
     "--graph vfs_read --json: 1000 top-level vfs_read entries and their 1000 returns with "
     "durations", v.step_diag("fn_graph_json") + "\n%d entries, %d returns" % (len(ent), len(ret)))
# every return closes the open entry of its task at its depth (interrupts
# nest on the task's depth as the kernel counts it: the records' own depth;
# a task that sleeps in a call, funcload in pipe_read, may return on another
# CPU than it entered on)
open_, bad_ret, leaves = {}, [], 0
for o in objs:
    typ = o.get("type", "")
    if o.get("comm") != "funcload" or not typ.startswith("graph_"):
        continue
    key = (o["pid"], o["depth"])
    if typ == "graph_entry":
        open_.setdefault(key, []).append(o["func"])
    elif typ == "graph_return":
        if not open_.get(key) or open_[key].pop() != o["func"]:
            bad_ret.append(o)
    else:
        leaves += 1
        if "duration_ns" not in o:
            bad_ret.append(o)
t.ok(not bad_ret and leaves > 0,
     "--graph --json: each return closes its entry (task, depth, function); %d leaves" % leaves,
     repr(bad_ret[:5]))
lines = out_lines("fn_graph")
t.ok(v.rc("fn_graph") == 0 and
     len([l for l in lines if re.match(rb"^ \d+\) {15}\|  vfs_read\(\) \{$", l)]) >= 1000,
     "--graph vfs_read (text): the 1000 calls in the kernel's layout", v.step_diag("fn_graph"))
objs, bad = v.ndjson("fn_graph_depth")
g = [o for o in objs if o.get("type", "").startswith("graph_") and o.get("comm") == "funcload"]
# a call is a leaf when its return is the next record of its CPU; a call the
# task was preempted or moved in (another task's vfs_read between, or the
# return on another CPU) is an entry and a return, as the kernel shows it too
kinds = {k: sum(1 for o in g if o["type"] == k) for k in ("graph_leaf", "graph_entry",
                                                          "graph_return")}
t.ok(v.rc("fn_graph_depth") == 0 and not bad and
     kinds["graph_leaf"] + kinds["graph_entry"] == 100 and
     kinds["graph_entry"] == kinds["graph_return"] and kinds["graph_leaf"] >= 50 and
     all(o["func"] == "vfs_read" and o["depth"] == 0 for o in g),
     "--depth 1: vfs_read alone at depth 0, 100 calls (%d leaves)" % kinds["graph_leaf"],
     v.step_diag("fn_graph_depth") + "\n%r" % kinds)

objs, bad = v.ndjson("fn_func")
f = [(o["func"], o["parent"]) for o in objs if o.get("type") == "function" and
     o.get("comm") == "funcload"]
t.ok(v.rc("fn_func") == 0 and not bad and f.count(("vfs_read", "ksys_read")) == 1000 and
     [x for x, _ in f].count("ksys_read") == 1000 and len(f) == 2000,
     "--function vfs_read --function ksys_read: 1000 calls of each, parents named",
     v.step_diag("fn_func") + "\n%r" % f[:6])
objs, bad = v.ndjson("fn_func_not")
names = {o["func"] for o in objs if o.get("type") == "function"}
t.ok(v.rc("fn_func_not") == 0 and "vfs_read" in names and "vfs_readv" not in names,
     "'!PATTERN' excludes: vfs_read but no vfs_readv (%s)" % sorted(names),
     v.step_diag("fn_func_not"))
lines = out_lines("fn_report")
t.ok(v.rc("fn_record") == 0 and v.rc("fn_report") == 0 and
     len([l for l in lines if re.match(rb"^ \d+\) {15}\|  vfs_read\(\) \{$", l)]) >= 200,
     "record --graph, then report: the 200 calls in the kernel's layout",
     v.step_diag("fn_record") + v.step_diag("fn_report"))

# ---- the recording as trace-cmd reads it: the same calls, depths and durations
def calls(lines):
    """(duration text or '', call text) of function_graph lines, of either layout."""
    out = []
    for l in lines:
        if b"|" not in l or b"-----" in l:
            continue
        head, call = l.rsplit(b"|", 1)
        m = re.search(rb"(\d+\.?\d*) us\s*$", head)
        out.append((m.group(1).decode() if m else "", call.rstrip().decode()))
    return out


tc = shutil.which("trace-cmd")
if tc and os.path.exists(v.path("func/fn.dat")):
    r = subprocess.run([tc, "report", v.path("func/fn.dat")], capture_output=True)
    # trace-cmd writes every duration with three decimals; the kernel (and
    # tpctl) keeps a duration within seven digits: 11152.81 us, not 11152.812
    def kernel_width(d):
        usecs, _, dec = d.partition(".")
        keep = min(3, 7 - len(usecs))
        return usecs + ("." + dec[:keep] if dec and keep > 0 else "")

    theirs = [(kernel_width(d), c)
              for d, c in calls([l for l in r.stdout.split(b"\n") if b"funcgraph_" in l])]
    # a return whose entry is not the open one of its CPU (the task entered on
    # another CPU, or the entry was lost) the kernel closes with the function's
    # name, "} /* f */", and so does tpctl (checked against the kernel's text
    # above); trace-cmd writes "}" for it
    ours = [(d, re.sub(r"^(\s*)\} /\* \S+ \*/$", r"\1}", c))
            for d, c in calls(out_lines("fn_report"))]
    t.ok(r.returncode == 0 and len(ours) >= 200 and theirs == ours,
         "trace-cmd report reads the recording: the same %d calls, depths and durations" %
         len(ours), "trace-cmd: %d lines, exit %d, %s\n%s" %
         (len(theirs), r.returncode, r.stderr[:500], first_diff(theirs, ours)))
else:
    t.skip("trace-cmd report of the recording", "no trace-cmd here or no recording")

# ---- the recording in Perfetto: function_graph as nested slices, a track per task
# the protobuf reader of tests/cli/perfetto-check.py (its varints)
_spec = importlib.util.spec_from_file_location(
    "perfetto_check", os.path.join(v.TOP, "tests", "cli", "perfetto-check.py"))
perfetto_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(perfetto_check)


def pb_fields(buf):
    """(field number, wire type, value) of one protobuf message (varints and bytes)."""
    i, out = 0, []
    while i < len(buf):
        key, i = perfetto_check.varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            val, i = perfetto_check.varint(buf, i)
        elif wt == 2:
            n, i = perfetto_check.varint(buf, i)
            val, i = buf[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % wt)
        out.append((num, wt, val))
    return out


def graph_slices(pf):
    """{track name: [(ts, 'B' or 'E', name)]} of the TrackEvent packets of a trace."""
    names, tracks = {}, {}
    for num, _, pkt in pb_fields(pf):
        if num != 1:
            continue
        f = pb_fields(pkt)
        ts = next((val for n, _, val in f if n == 8), None)
        for n, _, val in f:
            if n == 60:
                d = dict((k, x) for k, _, x in pb_fields(val))
                names[d.get(1)] = d.get(2, b"").decode()
            elif n == 11:
                d = dict((k, x) for k, _, x in pb_fields(val))
                kind = {1: "B", 2: "E"}.get(d.get(9), "?")
                tracks.setdefault(names.get(d.get(11), "?"), []).append(
                    (ts, kind, d.get(23, b"").decode()))
    return tracks


pf = os.path.join(v.path("func"), "fn.pf")
tpctl = os.path.join(v.TOP, "tpctl")
if os.path.exists(v.path("func/fn.dat")):
    r = subprocess.run([tpctl, "report", "--perfetto", pf, v.path("func/fn.dat")],
                       capture_output=True)
    tracks = graph_slices(open(pf, "rb").read()) if r.returncode == 0 else {}
    # report --json's calls per task: an entry or a leaf is a slice begun
    want, errs = {}, []
    for o in v.ndjson("fn_report_json")[0]:
        if o.get("type") in ("graph_entry", "graph_leaf"):
            want.setdefault(o["pid"], []).append(o["func"])
    for name, evs in tracks.items():
        if "<idle>" in name:
            pid = 0
            if len([n for n in tracks if "<idle>" in n]) > 1:
                continue  # the idle task's calls of all CPUs are one list in report --json
        else:
            pid = int(name.split()[-1])
        begun = [n for _, k, n in evs if k == "B"]
        if begun != want.get(pid):
            errs.append("%s: begins %r..., report --json %r..." %
                        (name, begun[:5], (want.get(pid) or [])[:5]))
        depth, last = 0, 0
        for ts, k, n in evs:
            depth += 1 if k == "B" else -1
            if depth < 0 or ts < last:
                errs.append("%s: an end without a begin, or time going back, at %d" % (name, ts))
                break
            last = ts
    nslices = sum(len([e for e in evs if e[1] == "B"]) for evs in tracks.values())
    pids = {0 if "<idle>" in n else int(n.split()[-1]) for n in tracks}
    t.ok(r.returncode == 0 and nslices >= 200 and set(want) == pids and not errs,
         "report --perfetto: function_graph as nested slices, a track per task, the calls of "
         "report --json (%d slices, %d tracks)" % (nslices, len(tracks)),
         "exit %d %s\n%s" % (r.returncode, r.stderr[:300], "\n".join(errs[:5])))
else:
    t.skip("report --perfetto of the recording", "no recording")

# ---- count and latency
docs, bad = v.ndjson("fn_count")
rows = {r["key"].get("comm"): r["count"] for d in docs for r in d.get("rows", [])
        if r["key"].get("func") == "vfs_read"}
t.ok(v.rc("fn_count") == 0 and not bad and rows.get("funcload") == 1000,
     "count --function vfs_read --by comm: funcload 1000 (%r)" % rows, v.step_diag("fn_count"))
lines = v.text("fn_count_text.out").splitlines()
t.ok(v.rc("fn_count_text") == 0 and re.match(r"^func +COUNT$", lines[0] if lines else "") and
     any(re.match(r"^vfs_read +\d+$", l) for l in lines),
     "count --function (text): count's table, a row per function", v.step_diag("fn_count_text"))
docs, bad = v.ndjson("fn_latency")
g = {x["key"].get("comm"): x for d in docs for x in d.get("groups", [])}
fl = g.get("funcload", {})
t.ok(v.rc("fn_latency") == 0 and not bad and fl.get("count") == 1000 and
     sum(b["count"] for b in fl.get("buckets", [])) == 1000 and 0 < fl.get("min", 0) <= fl.get("max", 0),
     "latency --function vfs_read --by comm: 1000 samples of funcload", v.step_diag("fn_latency"))
docs, bad = v.ndjson("fn_lat_dd")
n = sum(x.get("count", 0) for d in docs for x in d.get("groups", []))
t.ok(v.rc("fn_lat_dd") == 0 and not bad and n == 500 and
     b"events lost" not in v.read("fn_lat_dd.err"),
     "latency --function vfs_read -- funcload pipe 500: 500 calls on the default buffer, "
     "none lost (%d)" % n, v.step_diag("fn_lat_dd"))
docs, bad = v.ndjson("fn_lat_input")
g = {x["key"].get("comm"): x for d in docs for x in d.get("groups", [])}
fl = g.get("funcload", {})
# the recording's own graph text: funcload's calls are those of its pid; a
# call with something recorded inside it (an interrupt's functions) ends in
# a "}" at depth 0 instead of being a leaf
text_ns = []
for l in v.read("fn_lat_report.out").split(b"\n"):
    m = re.match(rb"^ \d+\) .\s+(\d+)\.?(\d*) us\s+\|  (vfs_read\(\);|\}( /\* vfs_read \*/)?)$", l)
    if m:
        text_ns.append(int(m.group(1)) * 1000 + int((m.group(2) + b"000")[:3]))
total = sum(text_ns)
docs, bad = v.ndjson("fn_lat_input_all")
al = [x for d in docs for x in d.get("groups", [])]
al = al[0] if len(al) == 1 else {}
t.ok(v.rc("fn_lat_input") == 0 and fl.get("count") == 1000,
     "latency of a recording --by comm: funcload's 1000 samples", v.step_diag("fn_lat_input"))
t.ok(v.rc("fn_lat_input_all") == 0 and len(text_ns) >= 1000 and al.get("count") == len(text_ns) and
     abs(al.get("sum", 0) - total) <= total * 0.01,
     "latency of a recording: %s samples, sum %s ns; the graph's own text: %d calls, %d ns" %
     (al.get("count"), al.get("sum"), len(text_ns), total),
     v.step_diag("fn_lat_input_all") + v.step_diag("fn_lat_report"))
# the text as latency's: START -> END, the group's line, bars 52 wide, buckets of us
lines = v.text("fn_lat_input_text.out").splitlines()
bars = [l for l in lines if re.match(r"^\[.*\) +\d+ \|[@ ]{52}\|$", l)]
m = re.match(r"^count=(\d+) avg=\S+ min=\S+ max=\S+$", lines[2]) if len(lines) > 2 else None
t.ok(v.rc("fn_lat_input_text") == 0 and lines[:2] == ["vfs_read -> vfs_read", ""] and m and
     int(m.group(1)) >= 1000 and sum(int(l.split("|")[0].split()[-1]) for l in bars) ==
     int(m.group(1)),
     "latency --function (text): latency's table, its 52-column histogram",
     v.step_diag("fn_lat_input_text"))
# count --function --by comm of a shell's children: funcload, not null or sh
d = v.json_doc("fn_count_child")
rows = {r["key"].get("comm"): r["count"] for r in (d or {}).get("rows", [])}
t.ok(v.rc("fn_count_child") == 0 and rows.get("funcload") == 500,
     "count --function --by comm -- sh -c 'funcload; funcload': funcload's 500 calls (%r)" % rows,
     v.step_diag("fn_count_child"))
# latency --function GLOB: funcload's 500 vfs_read calls under func vfs_read
d = v.json_doc("fn_lat_glob")
g = [x for x in (d or {}).get("groups", [])
     if x["key"].get("func") == "vfs_read" and x["key"].get("comm") == "funcload"]
t.ok(v.rc("fn_lat_glob") == 0 and d and d.get("by") == ["func", "comm"] and len(g) == 1 and
     g[0]["count"] == 500 and all(x["key"].get("func", "").startswith("vfs_rea")
                                  for x in d["groups"]),
     "latency --function 'vfs_rea*' --by comm: funcload's 500 calls under vfs_read",
     v.step_diag("fn_lat_glob"))
# --interval: a document per interval, funcload's calls in two of them, 600 in all
docs, bad = v.ndjson("fn_count_interval")
per = [sum(r["count"] for r in d.get("rows", []) if r["key"].get("func") == "vfs_read")
       for d in docs]
t.ok(v.rc("fn_count_interval") == 0 and not bad and len(docs) >= 3 and sum(per) == 600 and
     len([p for p in per if p]) >= 2 and all(d.get("interval_ns", 0) > 0 for d in docs),
     "count --function --interval 0.2 --json: %d documents, vfs_read calls %r, 600 in all" %
     (len(docs), per), v.step_diag("fn_count_interval"))
txt = v.text("fn_count_interval_text.out")
tot = re.search(r"^totals \(.*\)\nfunc +COUNT\nvfs_read +(\d+)$", txt, re.M)
t.ok(v.rc("fn_count_interval_text") == 0 and
     len(re.findall(r"^\d\d:\d\d:\d\d \(", txt, re.M)) >= 3 and tot and int(tot.group(1)) >= 600,
     "count --function --interval (text): a table per interval, then the totals",
     v.step_diag("fn_count_interval_text"))
docs, bad = v.ndjson("fn_count_input")
t.diag("count of the recording: %r" % [d.get("rows") for d in docs])

# ---- state
before = v.text("func/state_before_runs")
t.ok(v.text("func/state_before") == before, "the guest's own oracle set-up put back",
     v.text("func/state_before") + "\n----\n" + before)
t.ok(v.text("func/state_after_runs") == before, "the runs leave the tracer files as they were",
     v.text("func/state_after_runs"))
for s in ("fn_bad", "fn_bad_graph", "fn_bad_depth"):
    lines = v.text(s + ".err").splitlines()
    t.ok(v.rc(s) == 2 and len(lines) == 1 and lines[0].startswith("tpctl: stream: "),
         "%s: exit 2, one line" % s, v.step_diag(s))
t.ok("no such function 'vfs_reed'; closest: 'vfs_read'" in v.text("fn_bad_graph.err"),
     "an unknown function names the closest one", v.text("fn_bad_graph.err"))
t.ok(v.text("func/state_after_bad") == before, "mistakes change nothing",
     v.text("func/state_after_bad"))
for s in ("INT", "TERM"):
    for how in ("graph", "function"):
        name = "func/state_after_%s_%s" % (how, s)
        t.ok(v.text(name) == before, "%s of a --%s run: everything as it was" % (s, how),
             "exit %s, stderr %s\n%s" % (v.text("func/sig_%s_%s.rc" % (how, s)),
                                          v.text("func/sig_%s_%s.err" % (how, s)), v.text(name)))
t.ok(v.text("func/storm.rc").strip() in ("0", "143") and
     v.text("func/state_after_storm") == before,
     "TERMs every 10 ms while a --graph record puts things back: everything as it was",
     "exit %s after %s TERMs, stderr %s\n%s" % (
         v.text("func/storm.rc").strip(), v.text("func/storm.n").strip(),
         v.text("func/storm.err"), v.text("func/state_after_storm")))
for how, tracer in (("graph", "function_graph"), ("function", "function")):
    t.ok(v.text("func/kill_%s_tracer" % how).strip() == tracer and v.rc("fn_reset_" + how) == 0 and
         v.text("func/state_after_reset_%s" % how) == before,
         "KILL of a --%s run, then reset: everything as it was" % how,
         v.text("func/kill_%s_tracer" % how) + v.step_diag("fn_reset_" + how) + "\n" +
         v.text("func/state_after_reset_%s" % how))

# ---- latency --function on the kernel engine: a kprobe and a kretprobe paired in the kernel
def lat_groups(step):
    d = v.json_doc(step)
    return d, (d or {}).get("groups", [])


d, g = lat_groups("fn_lat_k")
err = v.text("fn_lat_k.err")
t.ok(v.rc("fn_lat_k") == 0 and d and "kernel engine" in err and len(g) == 1 and
     g[0]["count"] == 500 and sum(b["count"] for b in g[0]["buckets"]) == 500 and
     d.get("lost") == 0 and d.get("start") == "vfs_read" and d.get("end") == "vfs_read" and
     "events lost" not in err,
     "latency --function vfs_read -- funcload pipe 500: the kernel engine by default, 500 "
     "calls, nothing lost (%r)" % ([x["count"] for x in g], ), v.step_diag("fn_lat_k"))
du, gu = lat_groups("fn_lat_u")
t.ok(v.rc("fn_lat_u") == 0 and du and len(gu) == 1 and gu[0]["count"] == 500 and
     du.get("by") == (d or {}).get("by") and du.get("start") == (d or {}).get("start"),
     "--engine user: function_graph's 500 calls, the same document's keys",
     v.step_diag("fn_lat_u"))


def by_comm(step):
    d, g = lat_groups(step)
    return d, {x["key"].get("comm"): x["count"] for x in g}


dk, rk = by_comm("fn_lat_k_comm")
du, ru = by_comm("fn_lat_u_comm")
t.ok(v.rc("fn_lat_k_comm") == 0 and v.rc("fn_lat_u_comm") == 0 and dk and du and
     rk.get("funcload") == 500 and rk == ru and dk.get("by") == du.get("by") == ["comm"],
     "--by comm: the kernel engine's rows equal the user engine's (%r, %r)" % (rk, ru),
     v.step_diag("fn_lat_k_comm") + v.step_diag("fn_lat_u_comm"))
d, g = lat_groups("fn_lat_k_pid")
t.ok(v.rc("fn_lat_k_pid") == 0 and d and d.get("by") == ["pid"] and
     [x["count"] for x in g if x["key"].get("pid", 0) > 0] == [300],
     "--by pid: one task's 300 calls (%r)" % [(x["key"], x["count"]) for x in g],
     v.step_diag("fn_lat_k_pid"))
lines = v.text("fn_lat_k_text.out").splitlines()
m = re.match(r"^count=(\d+) ", lines[2]) if len(lines) > 2 else None
t.ok(v.rc("fn_lat_k_text") == 0 and lines[:2] == ["vfs_read -> vfs_read", ""] and m and
     int(m.group(1)) == 200,
     "--engine kernel (text): latency's table, 200 calls", v.step_diag("fn_lat_k_text"))
for s, what in (("fn_lat_k_glob", "the kernel engine cannot do this latency"),
                ("fn_lat_k_cpu", "takes 'comm' and 'pid' on the kernel engine"),
                ("fn_lat_k_nosuch", "no_such_function_xyz")):
    lines = v.text(s + ".err").splitlines()
    t.ok(v.rc(s) == 2 and len(lines) == 1 and lines[0].startswith("tpctl: latency: ") and
         what in lines[0], "%s: exit 2, one line naming %s" % (s, what), v.step_diag(s))
kbefore = v.text("func/kstate_before")
for name, what in (("kstate_after_runs", "the kernel engine's runs"),
                   ("kstate_after_bad", "its mistakes"),
                   ("kstate_after_int", "INT of a kernel engine run")):
    # tpctl_PID (the probes' group) and tpctl_lat_PID_N (the synthetic event)
    t.ok(v.text("func/" + name) == kbefore and "tpctl_" not in v.text("func/" + name),
         "%s: no probe, synthetic event, trigger or instance left" % what,
         v.text("func/" + name) + "\n----\n" + kbefore)
d = None
try:
    import json
    d = json.loads(v.read("func/lat_k_int.out") or b"null")
except ValueError:
    pass
n = sum(x.get("count", 0) for x in (d or {}).get("groups", []))
t.ok(d and n > 0, "INT of a kernel engine run: its histogram printed (%d calls)" % n,
     "exit %s, stderr %s" % (v.text("func/lat_k_int.rc"), v.text("func/lat_k_int.err")))
t.done()
