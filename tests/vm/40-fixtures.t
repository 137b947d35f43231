#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The fixtures captured in the VM (fresh in tests/vm/work/out, committed in
# tests/unit/fixtures/vm-6.1): the raw pages hold exactly the records of the
# kernel's text, every event is there, and the committed formats are those
# of the module as it is now built.
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

SAVED = os.path.join(v.TOP, "tests", "unit", "fixtures", "vm-6.1")
PAGE = 4096


def header_layout(data):
    """Offsets and sizes of timestamp, commit and data from a header_page file."""
    lay = {}
    for m in re.finditer(r"field: \S+ (\w+);\s*offset:(\d+);\s*size:(\d+);", data.decode()):
        lay[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return lay


def page_records(raw, lay):
    """Timestamps (ns) of the data records in raw ring-buffer pages, in order."""
    ts_off, ts_size = lay["timestamp"]
    c_off, c_size = lay["commit"]
    d_off = lay["data"][0]
    out = []
    fmt = {4: "<I", 8: "<Q"}
    for p in range(0, len(raw) - PAGE + 1, PAGE):
        page = raw[p:p + PAGE]
        ts = struct.unpack_from(fmt[ts_size], page, ts_off)[0]
        commit = struct.unpack_from(fmt[c_size], page, c_off)[0] & 0xfffff
        pos, end = d_off, d_off + commit
        while pos < end:
            (hdr,) = struct.unpack_from("<I", page, pos)
            tlen, delta = hdr & 0x1f, hdr >> 5
            arr0 = struct.unpack_from("<I", page, pos + 4)[0] if pos + 8 <= PAGE else 0
            if tlen == 29:              # padding
                if delta == 0:
                    break
                pos += 4 + arr0
            elif tlen == 30:            # time extend
                ts += (arr0 << 27) | delta
                pos += 8
            elif tlen == 31:            # absolute time stamp
                ts = (arr0 << 27) | delta
                pos += 8
            else:
                ts += delta
                out.append(ts)
                pos += 4 + (arr0 if tlen == 0 else tlen * 4)
    return out


def check_set(t, label, lay_data, raw_of, trace):
    lay = header_layout(lay_data)
    t.ok({"timestamp", "commit", "data"} <= set(lay), "%s: header_page describes the page"
         % label, lay_data.decode("utf-8", "replace"))
    recs = v.trace_records(trace)
    t.ok(recs and not [r for r in recs if "unparsed" in r],
         "%s: every line of the kernel's text parses" % label)
    cpus = sorted({r["cpu"] for r in recs if "cpu" in r})
    t.ok(len(cpus) >= 2, "%s: records on more than one CPU (%s)" % (label, cpus))
    for cpu in cpus:
        raw = raw_of(cpu)
        t.ok(len(raw) > 0 and len(raw) % PAGE == 0, "%s: cpu%d.raw is whole pages (%d bytes)"
             % (label, cpu, len(raw)))
        have = [(ts + 500) // 1000 for ts in page_records(raw, lay)] if lay else []
        want = [r["ts_us"] for r in recs if r.get("cpu") == cpu]
        t.ok(have == want, "%s: cpu%d pages hold the %d records of the kernel's text"
             % (label, cpu, len(want)), "pages %s...\ntext  %s..." % (have[:8], want[:8]))
    events = {r.get("event") for r in recs}
    want = set(v.module_events())
    t.ok(events >= want, "%s: every sample-trace event is in the capture" % label,
         "missing %s" % sorted(want - events))


def no_id(data):
    return b"\n".join(l for l in data.split(b"\n") if not l.startswith(b"ID:"))


t = v.Tap()
if os.path.exists(os.path.join(v.WORK, "out.ok")):
    t.ok(v.rc("fixture/rawdump") == 0, "rawdump in the VM", v.text("fixture/rawdump.out"))
    check_set(t, "fresh capture", v.read("kernel/events/header_page"),
              lambda c: v.read("fixture/raw/cpu%d.raw" % c), v.read("fixture/trace"))
    for ev in v.module_events():
        fresh = v.read("kernel/events/sample-trace/%s/format" % ev)
        try:
            with open(os.path.join(SAVED, "formats", "sample-trace:" + ev), "rb") as f:
                saved = f.read()
        except OSError:
            saved = b""
        t.ok(fresh and no_id(fresh) == no_id(saved),
             "committed format of %s is the module's current one (else: make vm-fixtures)" % ev)
else:
    t.skip("fresh capture", "no VM run in tests/vm/work (make check-vm)")


def saved(name):
    try:
        with open(os.path.join(SAVED, name), "rb") as f:
            return f.read()
    except OSError:
        return b""


check_set(t, "committed fixture", saved("header_page"), lambda c: saved("cpu%d.raw" % c),
          saved("trace"))
t.done()
