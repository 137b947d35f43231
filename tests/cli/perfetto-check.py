#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check a `tpctl report --perfetto` file against `tpctl report --json` of the
same trace.dat.

  perfetto-check.py PROTO TRACE JSON [--release R] [--allow-dropped EVENT:FIELD,...]

A protobuf wire-format decoder of its own, with the message and field names
read from PROTO (tests/cli/perfetto.proto), decodes TRACE; every record of
JSON must be there, on the same CPU in the same order, with the same
timestamp, pid and values: a typed message (FtraceEvent's field named as the
event) holds every field of the event by name, except those allowed to be
dropped; a generic event holds every field in order, integers as int_value
(negative ones always) or uint_value, strings as str_value, arrays as the
JSON text of the array.  Lost-event marks must be where JSON has them.
Stack records, which JSON puts inside the event before them ("stack",
"user_stack"), are generic kernel_stack/user_stack events whose "caller"
field holds the same frame addresses.  Prints a one-line summary; exit
status 1 with the differences on failure.
"""
import json
import re
import sys

SCALARS = {"uint64", "uint32", "int64", "int32", "bool", "string", "bytes"}


def parse_proto(text):
    """{message name: {field number: (name, type, repeated)}} of a proto2 file."""
    text = re.sub(r"//[^\n]*", "", text)
    toks = re.findall(r"[A-Za-z_][A-Za-z0-9_.]*|\d+|[{}=;]", text)
    msgs = {}
    i = 0

    def message(i, name):
        fields = {}
        msgs[name] = fields
        while toks[i] != "}":
            t = toks[i]
            if t == "message":
                i = message(i + 3, toks[i + 1])
            elif t == "oneof":
                i += 3
                while toks[i] != "}":
                    fields[int(toks[i + 3])] = (toks[i + 1], toks[i], False)
                    i += 5
                i += 1
            elif t in ("optional", "repeated", "required"):
                fields[int(toks[i + 4])] = (toks[i + 2], toks[i + 1], t == "repeated")
                i += 6
            else:
                raise SyntaxError("unexpected %r in message %s" % (t, name))
        return i + 1

    while i < len(toks):
        if toks[i] == "message":
            i = message(i + 3, toks[i + 1])
        else:
            i += 1
    return msgs


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def decode(msgs, mtype, b):
    """A message as {field name: value or [values]}; unknown fields under their number."""
    fields = msgs[mtype]
    out = {}
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            raw, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            raw = b[i:i + n]
            if len(raw) != n:
                raise ValueError("truncated field %d of %s" % (num, mtype))
            i += n
        else:
            raise ValueError("wire type %d in %s" % (wt, mtype))
        name, typ, rep = fields.get(num, (str(num), None, False))
        if typ is None:
            val = raw
        elif typ in SCALARS:
            if typ == "string":
                val = raw.decode("utf-8")	# must be valid UTF-8
            elif typ == "bytes":
                val = bytes(raw)
            elif typ in ("int64", "int32"):
                val = raw - (1 << 64) if raw >= 1 << 63 else raw
            elif typ == "bool":
                val = bool(raw)
            else:
                val = raw
            if (wt == 2) != (typ in ("string", "bytes")):
                raise ValueError("%s.%s: wire type %d for %s" % (mtype, name, wt, typ))
        else:
            if wt != 2:
                raise ValueError("%s.%s: message as wire type %d" % (mtype, name, wt))
            val = decode(msgs, typ.split(".")[-1], raw)
        if rep:
            out.setdefault(name, []).append(val)
        else:
            out[name] = val
    return out


def main():
    args = sys.argv[1:]
    release = None
    dropped = set()
    while len(args) > 3:
        if args[-2] == "--release":
            release = args[-1]
        elif args[-2] == "--allow-dropped":
            dropped = set(args[-1].split(","))
        else:
            sys.exit("usage: perfetto-check.py PROTO TRACE JSON [--release R] "
                     "[--allow-dropped EVENT:FIELD,...]")
        args = args[:-2]
    proto, trace, jpath = args
    msgs = parse_proto(open(proto).read())
    data = open(trace, "rb").read()
    tr = decode(msgs, "Trace", data)
    errs = []

    # what the Perfetto file holds, per CPU, in order
    pf = {}
    sysinfo, procs = None, {}
    for pkt in tr.get("packet", []):
        unknown = [k for k in pkt if k.isdigit()]
        if unknown:
            errs.append("packet with fields the proto does not name: %s" % unknown)
        if "ftrace_events" in pkt:
            b = pkt["ftrace_events"]
            seq = pf.setdefault(b.get("cpu", 0), [])
            if b.get("lost_events"):
                seq.append("lost")
            seq.extend(b.get("event", []))
        if "system_info" in pkt:
            sysinfo = pkt["system_info"]
        if "process_tree" in pkt:
            for p in pkt["process_tree"].get("processes", []):
                procs[p["pid"]] = p.get("cmdline", [""])[0]

    # what report --json says
    js = {}
    comms = {}
    for line in open(jpath, encoding="utf-8"):
        o = json.loads(line)
        seq = js.setdefault(o["cpu"], [])
        if o["type"] == "lost":
            # several marks before one event are one loss for Perfetto
            if not seq or seq[-1] != "lost":
                seq.append("lost")
            continue
        seq.append(o)
        # a task may have several names over the records (JSON's is the name at the
        # event's time); the process tree has one of them
        if o["pid"] and o["comm"] not in (None, "<...>"):
            comms.setdefault(o["pid"], set()).add(o["comm"])
        # the stack records that followed the event, which JSON puts inside it
        for key, name in (("stack", "kernel_stack"), ("user_stack", "user_stack")):
            if key in o:
                seq.append({"_stack": name, "frames": [f["addr"] for f in o[key]]})

    # the order of a kernel and a user stack after one event is the kernel's:
    # compare runs of stack records sorted by kind
    def stack_kind(x, perfetto):
        if x == "lost":
            return None
        if perfetto:
            name = x.get("generic", {}).get("event_name")
            return name if name in ("kernel_stack", "user_stack") else None
        return x.get("_stack")

    def sort_runs(seq, perfetto):
        out, run = [], []
        for x in seq + [None]:
            k = stack_kind(x, perfetto) if x is not None else None
            if k:
                run.append((k, len(run), x))
                continue
            out.extend(v for _, _, v in sorted(run, key=lambda r: (r[0], r[1])))
            run = []
            if x is not None:
                out.append(x)
        return out

    for cpu in js:
        js[cpu] = sort_runs(js[cpu], False)
    for cpu in pf:
        pf[cpu] = sort_runs(pf[cpu], True)

    typed = generic = lost = 0
    for cpu in sorted(set(js) | set(pf)):
        a, b = js.get(cpu, []), pf.get(cpu, [])
        if len(a) != len(b):
            errs.append("cpu %d: %d records in JSON, %d in the Perfetto file" %
                        (cpu, len(a), len(b)))
        for k, (j, p) in enumerate(zip(a, b)):
            where = "cpu %d record %d" % (cpu, k)
            if j == "lost" or p == "lost":
                if j != p:
                    errs.append("%s: lost mark in only one of them" % where)
                lost += j == "lost"
                continue
            if "_stack" in j:
                ev = p.get("generic", {})
                caller = [f.get("str_value") for f in ev.get("field", [])
                          if f.get("name") == "caller"]
                if ev.get("event_name") != j["_stack"] or not caller or \
                   json.loads(caller[0]) != j["frames"]:
                    errs.append("%s: %s with frames %s, JSON %s" % (
                        where, ev.get("event_name"), caller, j["frames"]))
                generic += 1
                continue
            if p.get("timestamp") != j["ts_ns"] or p.get("pid") != (j["pid"] & 0xffffffff):
                errs.append("%s: ts/pid %s/%s, JSON %s/%s" % (where, p.get("timestamp"),
                                                              p.get("pid"), j["ts_ns"], j["pid"]))
            body = [k2 for k2 in p if k2 not in ("timestamp", "pid", "common_flags")]
            if len(body) != 1:
                errs.append("%s: event with %s" % (where, body))
                continue
            kind = body[0]
            ev = p[kind]
            if kind == "generic":
                generic += 1
                if ev.get("event_name") != j["event"]:
                    errs.append("%s: generic %r, JSON %r" % (where, ev.get("event_name"),
                                                             j["event"]))
                got = []
                for f in ev.get("field", []):
                    if "str_value" in f:
                        v = f["str_value"]
                        if isinstance(j["fields"].get(f["name"]), list):
                            v = json.loads(v)
                    elif "int_value" in f:
                        v = f["int_value"]
                    elif "uint_value" in f:
                        v = f["uint_value"]
                        if isinstance(j["fields"].get(f["name"]), str):
                            errs.append("%s: %s.%s as uint_value %d" % (where, j["event"],
                                                                        f["name"], v))
                    else:
                        v = None
                    got.append((f["name"], v))
                want = list(j["fields"].items())
                if got != want:
                    errs.append("%s: %s fields %s, JSON %s" % (where, j["event"], got, want))
            else:
                typed += 1
                if kind != j["event"]:
                    errs.append("%s: typed %s, JSON %s" % (where, kind, j["event"]))
                unknown = [f for f in ev if f.isdigit()]
                if unknown:
                    errs.append("%s: %s has unnamed fields %s" % (where, kind, unknown))
                for name, v in ev.items():
                    if j["fields"].get(name) != v:
                        errs.append("%s: %s.%s = %r, JSON %r" % (where, kind, name, v,
                                                                 j["fields"].get(name)))
                for name in j["fields"]:
                    if name not in ev and "%s:%s" % (kind, name) not in dropped:
                        errs.append("%s: %s.%s missing" % (where, kind, name))

    if release is not None:
        got = (sysinfo or {}).get("utsname", {}).get("release")
        if got != release:
            errs.append("system_info release %r, want %r" % (got, release))
    # the process tree names a process as the trace.dat's saved_cmdlines does (its name
    # when the recording ended); JSON names a task as it was at each event's time, as
    # the records say it (sched_switch's prev_comm, ...): where those differ the
    # process tree's name cannot be JSON's, so only its presence is checked then
    renamed = sum(1 for pid, names in comms.items() if pid in procs and procs[pid] not in names)
    named = sum(1 for pid in comms if pid in procs)
    if comms and not named:
        errs.append("no task of the JSON records is named in the process tree")

    total = sum(1 for s in pf.values() for e in s if e != "lost")
    print("%d events (%d typed, %d generic), %d lost marks, %d processes, %d of %d tasks named"
          " (%d by another name)" % (total, typed, generic, lost, len(procs), named, len(comms),
                                     renamed))
    for e in errs[:30]:
        print(e)
    sys.exit(1 if errs else 0)


if __name__ == "__main__":
    main()
