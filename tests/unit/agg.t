#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The count/hist row model (src/agg.c) and its output (src/output_table.c) without
tracefs, through tests/unit/bin/agg.

User engine: random records (fixed seed) of real formats go in as text lines;
what tpctl prints (JSON) must be what this script computes from the same
lines: keys, counts, sums, min, max, log2 and linear buckets, signed values,
strings, kernel symbols (%pS with the kallsyms fixture), order, --top.
Kernel engine: hist files written by Debian's 6.1 kernel (tests/unit/agg/vm-6.1,
saved by the VM test) must give the rows this script reads from them, and the
same rows as the user engine fed the events they counted.  Text: one hist and
one count table compared with expected files (bpftrace-style bars).
"""
import json
import os
import random
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(TOP, "tests", "unit", "bin", "agg")
FIX = os.path.join(TOP, "tests", "unit", "agg")
HOST = os.path.join(TOP, "tests", "unit", "fixtures", "host")

n = 0
failed = 0


def ok(cond, name, diag=""):
    global n, failed
    n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, name))
    if not cond:
        failed += 1
        for line in str(diag).splitlines()[:40]:
            print("# " + line)
    sys.stdout.flush()


def run(args, stdin=""):
    p = subprocess.run([BIN] + args, input=stdin.encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, cwd=TOP)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode()


# ---- the oracle -------------------------------------------------------------

def load_kallsyms(path):
    syms = []
    for line in open(path):
        a, _, name = line.split()[:3]
        syms.append((int(a, 16), name))
    syms.sort(key=lambda s: s[0])
    return syms


KSYMS = load_kallsyms(os.path.join(HOST, "kallsyms"))


def symoff(addr):
    """%pS as the kernel prints it: sym+0xoff/0xsize, or the bare address."""
    best = None
    for i, (a, name) in enumerate(KSYMS):
        if a <= addr:
            best = i
    if best is None:
        return "0x%x" % addr
    a, name = KSYMS[best]
    while best > 0 and KSYMS[best - 1][0] == a:
        best -= 1
        name = KSYMS[best][1]
    nxt = [s for s in KSYMS if s[0] > a]
    if not nxt:
        return "0x%x" % addr
    return "%s+0x%x/0x%x" % (name, addr - a, nxt[0][0] - a)


def log2_bucket(v, signed):
    if signed and v < 0:
        return (-2 ** 63, 0)
    if v == 0:
        return (0, 1)
    k = v.bit_length()
    return (2 ** (k - 1), 2 ** k)


def linear_bucket(v, step):
    lo = (v // step) * step   # python's // floors, as tpctl's buckets do
    return (lo, lo + step)


def aggregate(events, keys, field=None, step=None, signed=False, top=0):
    """events: dicts with the key values (already as printed) and the value."""
    groups = {}
    for e in events:
        k = tuple(e[x] for x in keys)
        g = groups.setdefault(k, {"count": 0, "sum": 0, "min": None, "max": None,
                                  "b": {}})
        g["count"] += 1
        if field:
            v = e[field]
            g["sum"] += v
            g["min"] = v if g["min"] is None else min(g["min"], v)
            g["max"] = v if g["max"] is None else max(g["max"], v)
            b = linear_bucket(v, step) if step else log2_bucket(v, signed)
            g["b"][b] = g["b"].get(b, 0) + 1
    # by count, largest first; equal counts by key
    # equal counts by key; a name nothing knows sorts as the "<...>" it is inside
    order = sorted(groups, key=lambda k: (-groups[k]["count"],
                                          tuple("<...>" if x is None else x for x in k)))
    if top:
        order = order[:top]
    out = []
    for k in order:
        g = groups[k]
        row = {"key": dict(zip(keys, k)), "count": g["count"]}
        if field:
            wrap = (lambda x: x) if signed else (lambda x: x % 2 ** 64)
            row.update({"sum": wrap(g["sum"]) if not signed else
                        (g["sum"] + 2 ** 63) % 2 ** 64 - 2 ** 63,
                        "min": wrap(g["min"]), "max": wrap(g["max"]),
                        "buckets": [{"min": lo, "max": hi, "count": c}
                                    for (lo, hi), c in sorted(g["b"].items())]})
        out.append(row)
    return out


def check_json(name, args, stdin, want, kind):
    rc, out, err = run(args, stdin)
    try:
        doc = json.loads(out)
        got = doc["groups" if kind == "hist" else "rows"]
    except Exception as e:
        ok(False, name, "rc %d, %s\n%s\n%s" % (rc, e, out[:500], err))
        return None
    ok(rc == 0 and got == want and doc["type"] == kind, name,
       "rc %d %s\ngot  %s\nwant %s" % (rc, err, json.dumps(got)[:1500], json.dumps(want)[:1500]))
    return doc


# ---- user engine ------------------------------------------------------------

rnd = random.Random(13)
COMMS = {100: "bash", 200: "dd", 300: "a-b, c d", 400: "python3"}
lines = ["comm %d %s" % (p, c) for p, c in COMMS.items() if " " not in c]
evs = []
for i in range(3000):
    pid = rnd.choice(list(COMMS))
    cpu = rnd.randrange(4)
    if rnd.random() < 0.7:
        fd = rnd.choice([0, 3, 4, 7])
        count = rnd.choice([0, 1, 2, 3, 4095, 4096, 4097, 65536, 2 ** 63 + 5,
                            rnd.randrange(1, 100000)])
        lines.append("syscalls:sys_enter_read %d %d fd=%d count=%d" % (cpu, pid, fd, count))
        evs.append({"event": "syscalls:sys_enter_read", "pid": pid, "cpu": cpu, "fd": fd,
                    "count": count})
    else:
        lines.append("syscalls:sys_enter_getpid %d %d" % (cpu, pid))
        evs.append({"event": "syscalls:sys_enter_getpid", "pid": pid, "cpu": cpu})
stdin = "\n".join(lines) + "\n"
stdin_reads = "\n".join(l for l in lines if "getpid" not in l) + "\n"
# pid 300 has no saved name: JSON says null (docs/DESIGN.md section 2: never "<...>")
for e in evs:
    e["comm"] = COMMS[e["pid"]] if e["pid"] != 300 else None
reads = [e for e in evs if e["event"] == "syscalls:sys_enter_read"]
both = ["syscalls:sys_enter_read", "syscalls:sys_enter_getpid"]

check_json("count: by event (the default), two events", ["user"] + both, stdin,
           aggregate(evs, ["event"]), "count")
check_json("count: by comm,pid", ["--by", "comm,pid", "user"] + both, stdin,
           aggregate(evs, ["comm", "pid"]), "count")
check_json("count: by cpu,event", ["--by", "cpu,event", "user"] + both, stdin,
           aggregate(evs, ["cpu", "event"]), "count")
check_json("count: by two fields (fd,count)", ["--by", "fd,count", "user",
                                               "syscalls:sys_enter_read"], stdin_reads,
           aggregate(reads, ["fd", "count"]), "count")
check_json("count: --top 3", ["--by", "comm,fd", "--top", "3", "user",
                              "syscalls:sys_enter_read"], stdin_reads,
           aggregate(reads, ["comm", "fd"], top=3), "count")
check_json("hist: log2 of count, by comm", ["--by", "comm", "--field", "count", "user",
                                            "syscalls:sys_enter_read"], stdin_reads,
           aggregate(reads, ["comm"], "count"), "hist")
check_json("hist: log2, one group", ["--field", "count", "user",
                                     "syscalls:sys_enter_read"], stdin_reads,
           aggregate(reads, [], "count"), "hist")
check_json("hist: linear 1000, by pid", ["--by", "pid", "--field", "count", "--linear", "1000",
                                         "user", "syscalls:sys_enter_read"], stdin_reads,
           aggregate(reads, ["pid"], "count", step=1000), "hist")

# tasks gone (--reap: live, the tasks tracked): each "reap" line forgets the
# pids that are not there (from 5000000 up: never a pid), their rows folded
# into one per name (two pids of one name, one without a name), as "tick"
# lines end intervals: the tables are what they would be without
GONE = {5000100: "bash", 5000200: "dd", 5000300: None, 5000400: "bash"}
lines = ["comm %d %s" % (p, c) for p, c in GONE.items() if c]
evs = []
for i in range(3000):
    pid = rnd.choice(list(GONE))
    fd = rnd.choice([0, 3, 4])
    count = rnd.choice([1, 4096, rnd.randrange(1, 100000)])
    lines.append("syscalls:sys_enter_read %d %d fd=%d count=%d" % (i % 2, pid, fd, count))
    evs.append({"pid": pid, "fd": fd, "count": count, "comm": GONE[pid]})
    if rnd.random() < 0.01:
        lines.append(rnd.choice(["reap", "tick"]))
stdin = "\n".join(lines) + "\nreap\n"
for by, field in (("comm,fd", None), ("comm,pid", None), ("comm", "count")):
    args = ["--by", by] + (["--field", field] if field else []) + ["user",
                                                                    "syscalls:sys_enter_read"]
    kind = "hist" if field else "count"
    plain = run(args, stdin.replace("reap\n", "").replace("tick\n", ""))
    check_json("tasks gone: --by %s%s, their rows folded by name" %
               (by, " --field " + field if field else ""), ["--reap"] + args, stdin,
               json.loads(plain[1])["groups" if field else "rows"], kind)
    want = aggregate(evs, by.split(","), field)
    ok(json.loads(plain[1])["groups" if field else "rows"] == want,
       "tasks gone: --by %s, the same without --reap is the oracle's" % by, plain[1][:500])
rc, out, err = run(["--reap", "--by", "comm", "user", "syscalls:sys_enter_read"], stdin)
ok(rc == 0 and err == "tracked 0 open 0 refused 0\n", "tasks gone: none tracked after the last reap",
   err)
# a task's rows are gone with it, not only its name: 400 tasks of 2 names, one
# after another, fit in 4 rows (--by comm, a name and its interval's) when each
# is reaped before the next
lines = ["comm %d t%d" % (5000000 + i, i % 2) for i in range(400)]
for i in range(400):
    lines += ["syscalls:sys_enter_getpid 0 %d" % (5000000 + i)] * 3 + ["tick", "reap"]
stdin = "\n".join(lines) + "\n"
rc, out, err = run(["--reap", "--max-rows", "4", "--by", "comm", "user",
                    "syscalls:sys_enter_getpid"], stdin)
ok(rc == 0 and err == "tracked 0 open 0 refused 0\n" and json.loads(out)["rows"] ==
   [{"key": {"comm": "t0"}, "count": 600}, {"key": {"comm": "t1"}, "count": 600}],
   "tasks gone: 400 tasks of 2 names in 4 rows", out + err)
rc, out, err = run(["--max-rows", "4", "--by", "comm", "user", "syscalls:sys_enter_getpid"],
                   stdin.replace("reap\n", ""))
ok(rc == 0 and sum(r["count"] for r in json.loads(out)["rows"]) == 12,
   "tasks gone: without reaping them 4 rows hold 4 tasks", out + err)

# signed values: sys_exit_read's ret (long), negative ones included
lines, evs = [], []
for i in range(2000):
    ret = rnd.choice([-4, -11, -1, 0, 1, 5, 4096, rnd.randrange(-300, 3000), -2 ** 63])
    lines.append("syscalls:sys_exit_read %d 100 ret=%d" % (i % 2, ret))
    evs.append({"ret": ret, "cpu": i % 2})
stdin = "\n".join(lines) + "\n"
check_json("hist: signed field, log2 (negative values in (..., 0))",
           ["--by", "cpu", "--field", "ret", "user", "syscalls:sys_exit_read"], stdin,
           aggregate(evs, ["cpu"], "ret", signed=True), "hist")
check_json("hist: signed field, linear 100 (floor)",
           ["--field", "ret", "--linear", "100", "user", "syscalls:sys_exit_read"], stdin,
           aggregate(evs, [], "ret", step=100, signed=True), "hist")

# strings: task_rename's comms, and a field named like a reserved key
lines, evs = [], []
for i in range(500):
    old, new = rnd.choice(["bash", "x"]), rnd.choice(["agg-a", "agg-b", "agg-c", "w" * 15])
    pid = rnd.choice([5, 6])
    lines.append("task:task_rename 0 %d pid=%d oldcomm=%s newcomm=%s" % (pid, pid + 1, old, new))
    evs.append({"newcomm": new, "oldcomm": old, "fields.pid": pid + 1, "pid": pid})
stdin = "\n".join(lines) + "\n"
check_json("count: by string fields", ["--by", "newcomm,oldcomm", "user", "task:task_rename"],
           stdin, aggregate(evs, ["newcomm", "oldcomm"]), "count")
check_json("count: fields.pid is the event's pid field, pid the task's",
           ["--by", "fields.pid,pid", "user", "task:task_rename"], stdin,
           aggregate(evs, ["fields.pid", "pid"]), "count")

# kernel symbols: kmalloc's call_site prints as %pS
lines, evs = [], []
addrs = [KSYMS[3][0] + 0x10, KSYMS[10][0], KSYMS[10][0] + 5, KSYMS[0][0] - 1]
for i in range(300):
    a = rnd.choice(addrs)
    size = rnd.choice([8, 64, 192, 4096])
    lines.append("kmem:kmalloc 0 1 call_site=%d bytes_req=%d" % (a, size))
    evs.append({"call_site": symoff(a), "bytes_req": size})
stdin = "\n".join(lines) + "\n"
check_json("count: --by call_site prints symbols as the format does (%pS)",
           ["--kallsyms", os.path.join(HOST, "kallsyms"), "--by", "call_site", "user",
            "kmem:kmalloc"], stdin, aggregate(evs, ["call_site"]), "count")

# kernel stacks: each event's stack is the ftrace:kernel_stack record after it on
# its CPU; an event whose stack does not come counts with an empty one
def ksym_frame(addr):
    best = None
    for a, name in KSYMS:
        if a <= addr:
            best = (a, name)
    a, name = best
    first = [n for x, n in KSYMS if x == a][0]
    return {"addr": addr, "sym": first, "off": addr - a}


K = [a for a, _ in KSYMS]
STACKS = [(K[3] + 0x10, K[10] + 5, K[20] + 0x30), (K[3] + 0x10, K[11]), (K[40] + 1,),
          tuple(K[5] + i for i in range(130))]
lines, evs = ["comm 100 bash", "comm 200 dd"], []
waiting = {}
for i in range(2000):
    cpu = rnd.randrange(3)
    pid = rnd.choice([100, 200])
    if cpu in waiting and rnd.random() < 0.7:
        # the stack of the event waiting on this CPU (of its task)
        e = waiting.pop(cpu)
        st = rnd.choice(STACKS)
        lines.append("ftrace:kernel_stack %d %d frames=%s" % (cpu, e["pid"],
                                                             ",".join(str(a) for a in st)))
        e["stack"] = tuple(st[:128])
        continue
    if cpu in waiting and rnd.random() < 0.3:
        # a stack of another task: not the waiting event's
        lines.append("ftrace:kernel_stack %d %d frames=%d" % (cpu, 999, K[7]))
    lines.append("syscalls:sys_enter_getpid %d %d" % (cpu, pid))
    e = {"comm": COMMS[pid], "pid": pid, "stack": ()}
    waiting[cpu] = e
    evs.append(e)
stdin = "\n".join(lines) + "\n"
want = aggregate(evs, ["comm", "stack"])
for r in want:
    r["key"]["stack"] = [ksym_frame(a) for a in r["key"]["stack"]]
check_json("count --by comm,stack: frames of each event's stack record, none when it did not come",
           ["--kallsyms", os.path.join(HOST, "kallsyms"), "--by", "comm,stack", "user",
            "syscalls:sys_enter_getpid"], stdin, want, "count")
rc, out, err = run(["--text", "--kallsyms", os.path.join(HOST, "kallsyms"), "--by",
                    "comm,stack", "--top", "1", "user", "syscalls:sys_enter_getpid"], stdin)
top = want[0]
expect = "comm=%s  count=%d\n" % (top["key"]["comm"], top["count"]) + "".join(
    "    %s+0x%x\n" % (f["sym"], f["off"]) for f in top["key"]["stack"]) + \
    ("    (no stack)\n" if not top["key"]["stack"] else "") + \
    "... %d more\n" % (len(want) - 1)
ok(rc == 0 and out == expect, "text: a row with a stack is a block, frames as sym+0xoff",
   "got:\n%s\nwant:\n%s" % (out, expect))

# ---- text -------------------------------------------------------------------

stdin = open(os.path.join(FIX, "text.in")).read()
for name, args in (("hist.txt", ["--by", "comm", "--field", "count"]),
                   ("count.txt", ["--by", "comm,fd"])):
    rc, out, err = run(["--text"] + args + ["user", "syscalls:sys_enter_read"], stdin)
    want = open(os.path.join(FIX, name)).read()
    ok(rc == 0 and out == want, "text: %s" % name,
       "".join("# got:  %s\n" % l for l in out.splitlines()) + err)

# ---- kernel engine ----------------------------------------------------------

VM = os.path.join(FIX, "vm-6.1")


def parse_hist(path, keys):
    """The kernel's hist file read with regular expressions: a list of
    (dict of key -> value, hitcount), plus the Hits total."""
    entries, hits = [], None
    names = [k.split(".")[0] for k in keys]
    # "{ k1: v1, k2: v2 } hitcount: N", the values padded; names in the file's order
    pat = r"^\{ " + ", ".join(r"%s: (.*?) *" % re.escape(k if k != "cpu" else "cpu")
                              for k in names) + r" \} hitcount: +(\d+)"
    for line in open(path):
        m = re.match(pat, line)
        if m:
            d = {}
            for k, v in zip(keys, m.groups()):
                if k == "common_pid.execname":
                    mm = re.match(r"^(.{16})\[ *(\d+)\]$", v)
                    d["comm"], d["pid"] = mm.group(1).rstrip(" "), int(mm.group(2))
                else:
                    v = v.strip(" ")
                    d[k] = int(v) if v.isdigit() else v
            entries.append((d, int(m.group(len(keys) + 1))))
        m = re.match(r"^\s*Hits: (\d+)", line)
        if m:
            hits = int(m.group(1))
    return entries, hits


CASES = [
    # hist file, event, kernel keys (as in the file), tpctl options, key names
    ("raw_sys_enter_getpid.hist", "syscalls:sys_enter_getpid",
     ["common_pid.execname", "cpu"], ["--by", "comm,pid,cpu"], ["comm", "pid", "cpu"], None),
    ("raw_sys_enter_read.hist", "syscalls:sys_enter_read",
     ["common_pid", "count"], ["--by", "pid", "--field", "count"], ["pid"], "count"),
    ("raw_task_rename.hist", "task:task_rename",
     ["pid", "oldcomm", "newcomm"], ["--by", "fields.pid,oldcomm,newcomm"],
     ["fields.pid", "oldcomm", "newcomm"], None),
]
if not os.path.isdir(VM):
    for c in CASES:
        ok(True, "kernel engine: %s # SKIP no hist fixtures in %s" % (c[0], VM))
for hist, event, kkeys, opts, names, field in CASES if os.path.isdir(VM) else []:
    path = os.path.join(VM, hist)
    entries, hits = parse_hist(path, kkeys)
    events = []
    for d, c in entries:
        e = dict(d)
        if "pid" in d and "fields.pid" in names:
            e["fields.pid"] = d["pid"]
        if "common_pid" in d:
            e["pid"] = d["common_pid"]
        events += [e] * c
    want = aggregate(events, names, field)
    kind = "hist" if field else "count"
    args = ["--formats", VM] + opts
    doc = check_json("kernel engine: %s gives the rows in the file" % hist,
                     args + ["--hist", path, "kernel", event], "", want, kind)
    ok(doc is not None and sum(r["count"] for r in doc[("groups" if field else "rows")]) == hits
       and hits > 0, "kernel engine: %s: the counts add up to the kernel's Hits (%s)" % (hist, hits))
    # the user engine fed the same events: the same rows
    lines = []
    for d, c in entries:
        pid = d.get("common_pid", d.get("pid", 1)) if "comm" not in d else d["pid"]
        if "comm" in d:
            lines.append("comm %d %s" % (d["pid"], d["comm"]))
        fields = " ".join("%s=%s" % (k, v) for k, v in d.items()
                          if k not in ("comm", "pid", "cpu", "common_pid") or
                          (k == "pid" and "fields.pid" in names))
        lines += ["%s %d %d %s" % (event, d.get("cpu", 0), pid, fields)] * c
    rc, out, err = run(["--formats", VM] + opts + ["user", event], "\n".join(lines) + "\n")
    rc2, out2, err2 = run(args + ["--hist", path, "kernel", event])
    ok(rc == 0 and out == out2, "kernel engine: %s: the user engine gives the same rows" % hist,
       "user:   %s\nkernel: %s\n%s%s" % (out[:600], out2[:600], err, err2))

# A pid's entries made before and after its exec carry different execnames:
# each keeps its own (a row must not move from one name to another between
# two reads of the file); a string key holding a newline is one entry.
if os.path.isdir(VM):
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        f1 = os.path.join(tmp, "getpid.hist")
        with open(f1, "w") as f:
            f.write("# event histogram\n#\n\n"
                    "{ common_pid: aggload         [       300], cpu:          1 } hitcount:"
                    "          7\n"
                    "{ common_pid: exe             [       300], cpu:          0 } hitcount:"
                    "          5\n\nTotals:\n    Hits: 12\n    Entries: 2\n    Dropped: 0\n")
        check_json("kernel engine: one pid under two execnames keeps both names",
                   ["--formats", VM, "--by", "comm,pid,cpu", "--hist", f1, "kernel",
                    "syscalls:sys_enter_getpid"], "",
                   [{"key": {"comm": "aggload", "pid": 300, "cpu": 1}, "count": 7},
                    {"key": {"comm": "exe", "pid": 300, "cpu": 0}, "count": 5}], "count")
        f2 = os.path.join(tmp, "rename.hist")
        with open(f2, "wb") as f:
            f.write(b"# event histogram\n#\n\n"
                    b"{ pid:        301, oldcomm: " + b"agg\nnl".ljust(50) +
                    b", newcomm: " + b"agg\"q".ljust(50) + b" } hitcount:          4\n"
                    b"{ pid:        301, oldcomm: " + b"aggload".ljust(50) +
                    b", newcomm: " + b"agg\nnl".ljust(50) + b" } hitcount:          3\n"
                    b"\nTotals:\n    Hits: 7\n    Entries: 2\n    Dropped: 0\n")
        rc, out, err = run(["--formats", VM, "--by", "fields.pid,oldcomm,newcomm", "--hist", f2,
                            "kernel", "task:task_rename"])
        ok(rc == 0 and not err and json.loads(out)["rows"] ==
           [{"key": {"fields.pid": 301, "oldcomm": "agg\nnl", "newcomm": "agg\"q"}, "count": 4},
            {"key": {"fields.pid": 301, "oldcomm": "aggload", "newcomm": "agg\nnl"}, "count": 3}],
           "kernel engine: string keys holding a newline are whole entries", out + err)
else:
    for what in ("two execnames", "newline"):
        ok(True, "kernel engine: %s # SKIP no hist fixtures in %s" % (what, VM))

print("1..%d" % n)
sys.exit(1 if failed else 0)
