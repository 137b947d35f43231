#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The reference join of tests/cli/latency.t, written apart from tpctl's own.

    latency-ref.py RECIPE REPORT.ndjson [SWITCH_FORMAT]
    latency-ref.py custom REPORT.ndjson START END SFIELD EFIELD KEY

Reads the records `tpctl report --json` printed for a recording and pairs
them as tpctl-latency(1) says each recipe does; prints the groups as JSON
lines sorted by key, each {"key":..,"count":..,"sum":..,"min":..,"max":..,
"buckets":[..]}, then {"unmatched":N}.  Log2 buckets count microseconds:
[0, 1000), [1000, 2000), [2000, 4000), ... in ns.
"""
import json
import os
import re
import sys


def syscall_names():
    names = {}
    for path in ("/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h"):
        try:
            with open(path) as f:
                for line in f:
                    m = re.match(r"#define __NR_(\w+) (\d+)", line)
                    if m:
                        names.setdefault(int(m.group(2)), m.group(1))
            break
        except OSError:
            continue
    return names


def softirq_names(fmt_path):
    with open(fmt_path) as f:
        text = f.read()
    m = re.search(r"__print_symbolic\(REC->vec,(.*?)\)\s*$", text, re.S | re.M)
    return {int(n, 0): s for n, s in re.findall(r'\{\s*(\w+),\s*"(\w+)"\s*\}', m.group(1))}


def state_mask(fmt_path):
    """prev_state bits below TASK_REPORT_MAX, from the format's print fmt."""
    with open(fmt_path) as f:
        text = f.read()
    m = re.search(r"REC->prev_state & \(\(\(\(([^)]*)\) \+ 1\) << 1\) - 1\)", text)
    bits = 0
    for n in m.group(1).split("|"):
        bits |= int(n.strip(), 0)
    return ((bits + 1) << 1) - 1


def bucket(ns):
    us = ns // 1000
    if us == 0:
        return (0, 1000)
    k = us.bit_length()
    return ((1 << (k - 1)) * 1000, (1 << k) * 1000)


class Join:
    def __init__(self):
        self.open = {}
        self.unmatched = 0
        self.groups = {}

    def start(self, mkey, ts, part):
        if mkey in self.open:
            self.unmatched += 1
        self.open[mkey] = (ts, part)

    def end(self, mkey, ts, endpart, make_key):
        if mkey not in self.open:
            return
        sts, part = self.open.pop(mkey)
        if ts < sts:
            self.unmatched += 1
            return
        d = ts - sts
        key = make_key(part, endpart)
        g = self.groups.setdefault(json.dumps(key, sort_keys=True), [])
        g.append(d)

    def dump(self):
        for k in sorted(self.groups):
            ds = self.groups[k]
            bs = {}
            for d in ds:
                b = bucket(d)
                bs[b] = bs.get(b, 0) + 1
            print(json.dumps({"key": json.loads(k), "count": len(ds), "sum": sum(ds),
                              "min": min(ds), "max": max(ds),
                              "buckets": [{"min": lo, "max": hi, "count": c}
                                          for (lo, hi), c in sorted(bs.items())]},
                             sort_keys=True))
        print(json.dumps({"unmatched": self.unmatched + len(self.open)}))
        over = os.environ.get("OVER")
        if over:
            print(json.dumps({"over": sum(1 for ds in self.groups.values() for d in ds
                                          if d > int(over))}))


def events(path):
    with open(path) as f:
        for line in f:
            e = json.loads(line)
            if e.get("type") == "event":
                yield e


def main():
    recipe, path = sys.argv[1], sys.argv[2]
    j = Join()
    if recipe == "wakeup":
        mask = state_mask(sys.argv[3])
        for e in events(path):
            name, f, ts = e["event"], e["fields"], e["ts_ns"]
            if e["system"] != "sched":
                continue
            if name == "sched_switch":
                # the task switched in first, then the one switched out
                if f["next_pid"] != 0:
                    j.end(f["next_pid"], ts, None, lambda p, q: {})
                if f["prev_pid"] != 0 and not (f["prev_state"] & mask):
                    j.start(f["prev_pid"], ts, None)
            elif name in ("sched_wakeup", "sched_wakeup_new") and f["pid"] != 0:
                j.start(f["pid"], ts, None)
    elif recipe == "syscall":
        names = syscall_names()
        for e in events(path):
            if e["system"] != "raw_syscalls":
                continue
            if e["event"] == "sys_exit":
                j.end(e["pid"], e["ts_ns"], None, lambda p, q: {"syscall": p})
            elif e["event"] == "sys_enter":
                i = e["fields"]["id"]
                j.start(e["pid"], e["ts_ns"], names.get(i, "sys_%d" % i))
    elif recipe == "irq":
        for e in events(path):
            if e["system"] != "irq":
                continue
            f = e["fields"]
            if e["event"] == "irq_handler_exit":
                j.end((f["irq"], e["cpu"]), e["ts_ns"], None, lambda p, q: p)
            elif e["event"] == "irq_handler_entry":
                j.start((f["irq"], e["cpu"]), e["ts_ns"], {"irq": f["irq"], "name": f["name"]})
    elif recipe == "softirq":
        names = softirq_names(sys.argv[3])
        for e in events(path):
            if e["system"] != "irq":
                continue
            f = e["fields"]
            if e["event"] == "softirq_exit":
                j.end((f["vec"], e["cpu"]), e["ts_ns"], None, lambda p, q: p)
            elif e["event"] == "softirq_entry":
                j.start((f["vec"], e["cpu"]), e["ts_ns"], {"vec": names.get(f["vec"], str(f["vec"]))})
    elif recipe == "custom":
        start, end, sf, ef, key = sys.argv[3:8]
        for e in events(path):
            name = "%s:%s" % (e["system"], e["event"])
            f = e["fields"]
            if name == end:
                j.end(f[ef], e["ts_ns"], f[key.split(".", 1)[1]],
                      lambda p, q: {key: q})
            if name == start:
                j.start(f[sf], e["ts_ns"], None)
    else:
        sys.exit("unknown recipe " + recipe)
    j.dump()


main()
