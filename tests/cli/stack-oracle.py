#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Stacks in tpctl's NDJSON against the kernel's `trace` text of the same records.

  stack-oracle.py [--min-stacks N] [--want-sym NAME] TRACE NDJSON

The kernel prints a stack record as a line of its own ("<stack trace>" or
"<user stack trace>") followed by one " => frame" line per frame.  Here the
rule of docs/DESIGN.md section 2 is applied to the kernel's text, independently of tpctl: a
stack belongs to the record before it on the same CPU when that is an event
of the same task that has no stack of that kind yet; any other stack stands
alone.  The records of both sides, ordered by (microsecond, CPU), must then
agree one for one: header (time, CPU, pid), event name where the text shows
one, and every frame: a kernel frame's "sym" is the kernel's text (or, when
null, the text is the address as "0x%08x"), a user frame's text is its
address as " <%016x>".  Prints "checks N" and up to 20 differences; exit
status 1 on any difference or when fewer than --min-stacks stacks (kernel
and user, together) were compared.  --want-sym: some kernel frame must be
this symbol (e.g. a function of a module).
"""
import argparse
import json
import re
import sys

HDR = re.compile(r"^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(\S{5})\s+(\d+)\.(\d{6}): (.*)$")


def kernel_records(text):
    recs = []
    last = {}		# cpu -> the record before, for the rule above
    cur = None		# the stack record collecting " => " lines
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        if line.startswith(" => "):
            if cur is None:
                raise ValueError("frame line outside a stack: %r" % line)
            cur["frames"].append(line[4:])
            continue
        m = HDR.match(line)
        if not m:
            raise ValueError("line not understood: %r" % line)
        comm, pid, cpu, flags, sec, usec, body = m.groups()
        r = {"pid": int(pid), "cpu": int(cpu), "us": int(sec) * 1000000 + int(usec),
             "body": body}
        cur = None
        if body in ("<stack trace>", "<user stack trace>"):
            kind = "stack" if body == "<stack trace>" else "user_stack"
            st = {"kind": kind, "frames": []}
            cur = st
            ev = last.get(r["cpu"])
            if ev is not None and ev["pid"] == r["pid"] and kind not in ev:
                ev[kind] = st
                continue
            r["event"] = "kernel_stack" if kind == "stack" else "user_stack"
            r["own"] = st
            r["stackrec"] = True
        else:
            b = re.match(r"^([\w-]+): ", body)
            r["event"] = b.group(1) if b else None
            r["named"] = bool(b)
            if not r["event"]:
                r["event"] = ""		# ftrace prints and syscalls: no name in the text
        recs.append(r)
        last[r["cpu"]] = r if not r.get("stackrec") else None
    return recs


def frames_diff(kind, want, got):
    """Differences between the kernel's frame lines and a JSON frame list."""
    if not isinstance(got, list):
        return ["%s: tpctl has none, kernel %d frames" % (kind, len(want))]
    if len(got) != len(want):
        return ["%s: kernel %d frames, tpctl %d" % (kind, len(want), len(got))]
    diffs = []
    for i, (w, g) in enumerate(zip(want, got)):
        addr = g.get("addr")
        if not isinstance(addr, int):
            diffs.append("%s frame %d: no integer addr: %r" % (kind, i, g))
            continue
        if kind == "user_stack":
            text = " <%016x>" % addr
        else:
            sym = g.get("sym")
            text = sym if sym is not None else "0x%08x" % addr
            if sym is not None and g.get("off") is not None and not isinstance(g["off"], int):
                diffs.append("%s frame %d: off %r" % (kind, i, g["off"]))
        if text != w:
            diffs.append("%s frame %d: kernel %r, tpctl %r" % (kind, i, w, text))
    return diffs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-stacks", type=int, default=1)
    ap.add_argument("--want-sym")
    ap.add_argument("trace")
    ap.add_argument("ndjson")
    a = ap.parse_args()
    with open(a.trace, "rb") as f:
        krecs = kernel_records(f.read().decode("utf-8", "replace"))
    objs = []
    with open(a.ndjson, "rb") as f:
        for line in f:
            o = json.loads(line)
            if o.get("type") == "event":
                objs.append(o)
    key = lambda r: (r["us"], r["cpu"])
    krecs.sort(key=key)
    for o in objs:
        o["us"] = (o["ts_ns"] + 500) // 1000
    objs.sort(key=key)
    errs = []
    checks = stacks = 0
    syms = set()
    if len(krecs) != len(objs):
        errs.append("kernel %d records, tpctl %d JSON objects" % (len(krecs), len(objs)))
    for k, o in zip(krecs, objs):
        checks += 1
        head = (k["us"], k["cpu"], k["pid"])
        if head != (o["us"], o["cpu"], o["pid"]):
            errs.append("header: kernel %r, tpctl %r" % (head, (o["us"], o["cpu"], o["pid"])))
            continue
        # ftrace's print records show as "tracing_mark_write: ..."
        if k.get("named") and k["event"] != o.get("event") and o.get("system") != "ftrace":
            errs.append("%r: kernel event %s, tpctl %s" % (head, k["event"], o.get("event")))
        if k.get("stackrec") and k["event"] != o.get("event"):
            errs.append("%r: a stack on its own, tpctl has %s" % (head, o.get("event")))
        for kind in ("stack", "user_stack"):
            st = k.get(kind) or (k["own"] if k.get("own", {}).get("kind") == kind else None)
            if st is None:
                if kind in o:
                    errs.append("%r: tpctl has a %s the kernel does not" % (head, kind))
                continue
            stacks += 1
            d = frames_diff(kind, st["frames"], o.get(kind))
            checks += len(st["frames"])
            errs += ["%r: %s" % (head, x) for x in d]
            if kind == "stack":
                syms.update(st["frames"])
    print("checks %d, stacks %d" % (checks, stacks))
    if stacks < a.min_stacks:
        errs.append("only %d stacks compared, want at least %d" % (stacks, a.min_stacks))
    if a.want_sym and a.want_sym not in syms:
        errs.append("no kernel frame is %s" % a.want_sym)
    for e in errs[:20]:
        print(e)
    sys.exit(1 if errs else 0)


if __name__ == "__main__":
    main()
