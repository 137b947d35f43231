#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# funcflame-oracle.py [ROOT_GLOB] < REPORT.ndjson: the time per call path of
# a function_graph recording, rebuilt from `tpctl report --json` records, as
# folded lines ("root;...;func us"), sorted: what `tpctl latency --function
# ROOT_GLOB --by stack --folded --input FILE` must print.  Each task's frames
# come from its entries (graph_entry, graph_leaf) at their depth; a return's
# own time is its duration less its children's, summed per path in ns, then
# rounded to microseconds; paths of 0 us are left out.  A return without its
# entry has no path (its time goes to its caller's children only); a call
# deeper than the task's open frames (an entry at depth d with none open at
# d - 1: an interrupt just after a return was recorded) and its callees
# have none either.
import collections
import fnmatch
import json
import sys


def paths(objs, root=None):
    """{path: own ns}, and the number of returns without their entry."""
    stacks, out, unpaired = {}, collections.defaultdict(int), 0
    for o in objs:
        typ = o.get("type", "")
        if typ not in ("graph_entry", "graph_return", "graph_leaf"):
            continue
        st = stacks.setdefault(o["pid"], {"frames": [], "skip": False})
        # a frame: [function (None: a gap), children's ns, outside the open calls]
        fr, d, f = st["frames"], o["depth"], o["func"]
        if typ != "graph_return":
            if d == 0 and root:
                st["skip"] = not fnmatch.fnmatchcase(f, root)
            del fr[d:]
            while len(fr) < d:
                fr.append([None, 0, True])
            fr.append([f, 0, d > 0 and fr[d - 1][2]])
            if typ == "graph_entry":
                continue
        dur = o["duration_ns"]
        if d > 0 and len(fr) >= d:
            fr[d - 1][1] += dur
        if len(fr) <= d or fr[d][0] != f:
            unpaired += 1
            del fr[d:]
            continue
        if not st["skip"] and not fr[d][2]:
            out[";".join(x[0] for x in fr[:d + 1])] += max(dur - fr[d][1], 0)
        del fr[d:]
    return out, unpaired


def folded(p):
    """The folded lines of paths p: microseconds, rounded, no zero weights."""
    return sorted("%s %d" % (k, (ns + 500) // 1000) for k, ns in p.items()
                  if (ns + 500) // 1000)


if __name__ == "__main__":
    objs = [json.loads(l) for l in sys.stdin if l.strip()]
    p, _ = paths(objs, sys.argv[1] if len(sys.argv) > 1 else None)
    for line in folded(p):
        print(line)
