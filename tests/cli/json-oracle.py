#!/usr/bin/env python3
# json-oracle.py JSON TEXT EVENTS_DIR: tpctl's NDJSON of a buffer against the
# kernel's own `trace` text of the same records, value by value.
#
# One JSON record per text line, in order; the header (pid, cpu, flags,
# microseconds) must agree, and the task name unless one side found none
# ("<...>"): the kernel's small cache of names changes between the two reads,
# or JSON's is the one the records gave the task at the event's time.  For the body, each event's print fmt (from
# EVENTS_DIR/<system>/<event>/format) is turned into a pattern: its literal
# text, one group per conversion.  Where the kernel's line matches it, every
# conversion whose argument is a plain field (REC->f, a cast of it,
# __get_str(f)) must show the JSON value of f: integers in the conversion's
# base (their low 32 bits: an int conversion or a cast may narrow), strings
# as they are.  Syscall events and ftrace's print are checked in their own forms.
# Prints "records N, values M, unmatched K, task names C" then the first
# errors; exit 1 on any error.
import json, os, re, sys

jpath, tpath, evdir = sys.argv[1:4]

CONV = re.compile(r"%(%|[-+ #0]*(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|z|L|j|t)?"
                  r"(p[A-Za-z0-9]*|[a-zA-Z]))")
FIELD = re.compile(r"^\s*(?:\(\s*[A-Za-z_][\w\s]*\**\s*\)\s*)?REC->(\w+)\s*$")
GETSTR = re.compile(r"^\s*__get_str\(\s*(\w+)\s*\)\s*$")
ESC = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def split_args(s):
    """The top-level comma-separated arguments after the format string."""
    args, depth, cur, i = [], 0, "", 0
    while i < len(s):
        c = s[i]
        if c in "\"'":
            j = i + 1
            while j < len(s) and s[j] != c:
                j += 2 if s[j] == "\\" else 1
            cur += s[i:j + 1]
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    args.append(cur)
    return args


patterns = {}


def pattern(system, event):
    """(regex, [(conversion, field or None)]) of an event's print fmt."""
    key = (system, event)
    if key in patterns:
        return patterns[key]
    patterns[key] = None
    try:
        txt = open(os.path.join(evdir, system, event, "format"), encoding="utf-8",
                   errors="replace").read()
    except OSError:
        return None
    m = re.search(r'^print fmt: "((?:[^"\\]|\\.)*)"(.*)$', txt, re.M)
    if not m:
        return None
    fmt = re.sub(r"\\(.)", lambda e: ESC.get(e.group(1), e.group(1)), m.group(1))
    args = split_args(m.group(2))[1:] if m.group(2).strip() else []
    regex, convs, pos, ai = "^", [], 0, 0
    for c in CONV.finditer(fmt):
        regex += re.escape(fmt[pos:c.start()])
        pos = c.end()
        if c.group(1) == "%":
            regex += "%"
            continue
        for star in (c.group(2), c.group(3)):
            if star == "*":
                ai += 1
        arg = args[ai] if ai < len(args) else ""
        ai += 1
        f = FIELD.match(arg) or GETSTR.match(arg)
        convs.append((c.group(5), f.group(1) if f else None))
        regex += "(.*?)"
    regex += re.escape(fmt[pos:]) + "$"
    patterns[key] = (re.compile(regex, re.S), convs)
    return patterns[key]


def int_equal(text, value, base):
    try:
        t = int(text, base)
    except ValueError:
        return None
    # an int conversion of a wider field, or a narrowing cast, prints the low 32 bits
    return (t - value) % (1 << 32) == 0


recs = [json.loads(l) for l in open(jpath, "rb")]
text = open(tpath, "rb").read().decode("utf-8", "replace").split("\n")[:-1]
errs, values, unmatched, comms = [], 0, 0, 0
if len(recs) != len(text):
    errs.append("%d JSON records, %d kernel lines" % (len(recs), len(text)))
hdr = re.compile(r"^ *(.{1,16}?)-(\d+) +\[(\d{3})\] (\S{5}) +(\d+)\.(\d{6}): (.*)$", re.S)
# a task's name as the records so far give it: JSON's name at the event's time
names = {}
PAIRS = (("comm", "pid"), ("prev_comm", "prev_pid"), ("next_comm", "next_pid"),
         ("parent_comm", "parent_pid"), ("newcomm", "pid"))
for r, line in zip(recs, text):
    fl = r.get("fields") or {}
    for c, p in PAIRS:
        if isinstance(fl.get(c), str):
            names[fl.get(p, r.get("pid"))] = fl[c][:15]
    if r.get("event") == "sched_process_exec" and isinstance(fl.get("filename"), str):
        names[r.get("pid")] = fl["filename"].rsplit("/", 1)[-1][:15]
    m = hdr.match(line)
    if r.get("type") != "event" or not m:
        if not (r.get("type") == "lost" and "LOST" in line):
            errs.append("not an event line: %r" % line[:100])
        continue
    comm, pid, cpu, flags, sec, usec, rest = m.groups()
    us = (r["ts_ns"] + 500) // 1000
    got = (r["pid"], r["cpu"], r["flags"], us // 1000000, us % 1000000)
    if got != (int(pid), int(cpu), flags, int(sec), int(usec)):
        errs.append("header %r != %r" % (got, (pid, cpu, flags, sec, usec)))
        continue
    # the kernel names tasks from saved_cmdlines, a small cache, when `trace` is
    # read; a busy machine replaces entries between its read and ours
    if r["comm"] != comm:
        # null: nothing knew the name when tpctl read the record (never "<...>")
        if "<...>" not in (r["comm"], comm) and r["comm"] is not None and \
                r["comm"] != names.get(r["pid"]):
            errs.append("task %r, the kernel's %r" % (r["comm"], comm))
        comms += 1
    f, sysname, ev = r["fields"], r["system"], r["event"]
    if sysname == "syscalls" and " -> 0x" in rest:
        values += 1
        if int(rest.split(" -> 0x")[1], 16) != f["ret"] % (1 << 64):
            errs.append("%s: %r, json ret %r" % (ev, rest, f["ret"]))
        continue
    if sysname == "syscalls" and rest.startswith("sys_"):
        for k, v in re.findall(r"(\w+): (0x[0-9a-f]+|\d+)", rest):
            values += 1
            # the text is the 8 bytes stored, JSON the declared type's
            # (an int dfd of 0xffffff9c is -100, a u32 the low half of 8 bytes): a
            # value of 32 bits agrees in the text's low 32 bits
            tv = int(v, 0)
            if k not in f or (tv - f[k]) % (1 << (32 if -(1 << 31) <= f[k] < 1 << 32 else 64)):
                errs.append("%s: %s=%s, json %r" % (ev, k, v, f.get(k)))
        continue
    if sysname == "ftrace" and ev == "print":
        values += 1
        if not rest.endswith(f["buf"].rstrip("\n")):
            errs.append("print %r vs %r" % (f["buf"], rest))
        continue
    if not rest.startswith(ev + ": "):
        unmatched += 1
        continue
    p = pattern(sysname, ev)
    bm = p[0].match(rest[len(ev) + 2:]) if p else None
    if not bm:
        unmatched += 1
        continue
    for (conv, field), v in zip(p[1], bm.groups()):
        if field not in f:
            continue
        jv = f[field]
        ok = None
        if isinstance(jv, int) and conv in ("d", "i", "u"):
            ok = int_equal(v, jv, 10)
        elif isinstance(jv, int) and conv in ("x", "X"):
            ok = int_equal(v, jv, 16)
        elif isinstance(jv, int) and conv == "o":
            ok = int_equal(v, jv, 8)
        elif isinstance(jv, str) and conv == "s":
            ok = v == jv
        if ok is None:
            continue
        values += 1
        if not ok:
            errs.append("%s:%s: %s=%r in the text, json %r" % (sysname, ev, field, v, jv))
print("records %d, values %d, unmatched %d, task names %d" %
      (len(recs), values, unmatched, comms))
for e in errs[:20]:
    print(e)
sys.exit(1 if errs else 0)
