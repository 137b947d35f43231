#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The call graph between the files of src/, drawn from their objects, and its circles.

DESIGN.md section 3: layers call down only, and no two files call each other (the
object graph from `nm` has no cycle).  For each src/*.o, `nm` gives the symbols it
defines and those it leaves undefined; an undefined symbol that another src/*.o defines
is an edge from this file to that one (a call, or a use of its data).  The strongly
connected components of more than one file are the circles; each is printed with the
symbols that make its edges, and any circle not on the allow-list below fails the run.

It also says, for information, which files other than tfs.c call tracefs_* functions
(tfs.h: tfs is the code that touches tracefs).

  tests/deps.py [--dir DIR] [--quiet] [--layers]

--layers also prints each file with the files it calls and its height: 0 for a file
that calls no other, else one more than the highest it calls (a circle counts as one).

Exit status: 0 when the only circles are allowed ones, 1 when there is another circle,
2 when the objects cannot be read (build first: make).
"""
import argparse
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Circles that are known and allowed for now, each as the set of its files (none).
ALLOWED = []


def symbols(obj):
    """(defined, undefined) global symbols of one object, from nm."""
    p = subprocess.run(["nm", "-P", "-g", obj], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("nm %s: %s" % (obj, p.stderr.strip()))
    defined, undefined = set(), set()
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind == "U":
            undefined.add(name)
        elif kind not in ("w", "v"):
            defined.add(name)
    return defined, undefined


def sccs(nodes, edges):
    """Tarjan's strongly connected components, in a stable order."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.path.join(TOP, "src"))
    ap.add_argument("--quiet", action="store_true", help="only the circles and the verdict")
    ap.add_argument("--layers", action="store_true", help="each file, its height and callees")
    a = ap.parse_args()

    srcs = sorted(f for f in os.listdir(a.dir) if f.endswith(".c"))
    defs, undefs, owner = {}, {}, {}
    for c in srcs:
        obj = os.path.join(a.dir, c[:-2] + ".o")
        if not os.path.exists(obj) or \
                os.path.getmtime(obj) < os.path.getmtime(os.path.join(a.dir, c)):
            print("deps: %s is missing or older than %s: build first (make)" % (obj, c))
            return 2
        try:
            defs[c], undefs[c] = symbols(obj)
        except (OSError, RuntimeError) as e:
            print("deps: %s" % e)
            return 2
        for s in defs[c]:
            owner.setdefault(s, c)

    # file -> file -> the symbols that make the edge
    edges = {}
    for c in srcs:
        for s in undefs[c]:
            d = owner.get(s)
            if d and d != c:
                edges.setdefault(c, {}).setdefault(d, set()).add(s)

    if not a.quiet:
        n = sum(len(v) for v in edges.values())
        print("deps: %d files, %d file-to-file edges" % (len(srcs), n))

    comps = sccs(srcs, edges)
    bad = 0
    seen_allowed = set()
    for comp in comps:
        if len(comp) < 2:
            continue
        key = frozenset(comp)
        allowed = key in ALLOWED
        if allowed:
            seen_allowed.add(key)
        else:
            bad += 1
        print("%s circle of %d: %s" % ("allowed (temporary, to be removed)" if allowed
                                       else "CIRCLE", len(comp), " ".join(comp)))
        for c in comp:
            for d in sorted(edges.get(c, {})):
                if d in key:
                    print("    %s -> %s: %s" % (c, d, ", ".join(sorted(edges[c][d]))))
    for key in ALLOWED:
        if key not in seen_allowed:
            print("deps: the allowed circle %s is gone: remove it from ALLOWED in %s"
                  % (" ".join(sorted(key)), os.path.relpath(__file__, TOP)))

    if a.layers:
        # Tarjan's components come out callees first: heights in one pass
        comp_of = {c: i for i, comp in enumerate(comps) for c in comp}
        height = {}
        for i, comp in enumerate(comps):
            below = [height[comp_of[d]] for c in comp for d in edges.get(c, {})
                     if comp_of[d] != i]
            height[i] = 1 + max(below) if below else 0
        print("deps: layers (height, file, the files it calls)")
        for c in sorted(srcs, key=lambda c: (-height[comp_of[c]], c)):
            print("    %2d %-16s %s" % (height[comp_of[c]], c, " ".join(sorted(edges.get(c, {})))))

    if not a.quiet:
        users = []
        for c in srcs:
            if c == "tfs.c":
                continue
            calls = sorted(s for s in undefs[c] if re.match(r"tracefs_", s))
            if calls:
                text = open(os.path.join(a.dir, c), errors="replace").read()
                sites = len(re.findall(r"\btracefs_\w+\s*\(", text))
                users.append((c, calls, sites))
        print("deps: information: %d files other than tfs.c call tracefs_* (%d distinct "
              "functions, %d call sites in their sources)"
              % (len(users), sum(len(x) for _, x, _ in users), sum(n for _, _, n in users)))
        for c, calls, sites in users:
            print("    %-16s %2d sites  %s" % (c, sites, " ".join(calls)))

    if bad:
        print("deps: FAIL: %d circle%s between files of src/ (DESIGN.md section 3)"
              % (bad, "" if bad == 1 else "s"))
        return 1
    print("deps: ok: no circle between files of src/%s"
          % (" but the allowed ones" if ALLOWED else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
