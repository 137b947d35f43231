#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The call graph between the files of src/, drawn from their objects, against the layers.

docs/DESIGN.md section 3: layers call down only, and no two files call each other (the
object graph from `nm` has no cycle).  For each src/*.o, `nm` gives the symbols it
defines and those it leaves undefined; an undefined symbol that another src/*.o defines
is an edge from this file to that one (a call, or a use of its data).  It fails on:

- a circle: a strongly connected component of more than one file, printed with the
  symbols that make its edges (unless it is on the allow-list below);
- a call that climbs: the layers are HACKING.md's map (the `### ...` headings of "The
  layers, from the commands down to tracefs", top layer first, and the `src/X.c` lines
  under each); a file may call files of its own layer (so a command may use another
  command's option parsers) and of the layers below, never of a layer above.  Each such
  call is printed with its caller, its callee and the symbols;
- a src/*.c that the map does not place, or a map line for a file that is not there;
- an #include of cmd.h (the commands) in src/ by any file but tpctl.c and cmd_*.c.

It also says, for information, which files other than tfs*.c call tracefs_* functions
(tfs.h: tfs is the code that touches tracefs).

  tests/deps.py [--dir DIR] [--map FILE] [--nm LISTING] [--quiet] [--layers]

--map is the map's file (HACKING.md by default).  --nm reads the symbols from LISTING,
the output of `nm -P -g -A` over the objects, instead of running nm on DIR's objects:
tests/unit/structure.t plants calls in a copy of the listing to see them fail.  --layers
also prints each file with its layer in the map, the files it calls, and its height: 0
for a file that calls no other, else one more than the highest it calls (a circle counts
as one).

Exit status: 0 when none of the above is found (but the allowed circles), 1 when one
is, 2 when the objects or the map cannot be read (build first: make).
"""
import argparse
import glob
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Circles that are known and allowed for now, each as the set of its files (none).
ALLOWED = []

# The section of the map that holds the layers, and what may include cmd.h.
MAP_SECTION = "## The layers, from the commands down to tracefs"
CMD_H_USERS = re.compile(r"^(tpctl|cmd_\w+)\.c$")


class Unreadable(Exception):
    """The objects or the map cannot be read: exit status 2."""


def parse_nm(text):
    """{file.c: (defined, undefined)} from `nm -P -g -A` lines ("dir/x.o: name kind ...")."""
    syms = {}
    for line in text.splitlines():
        obj, sep, rest = line.partition(": ")
        f = rest.split()
        if not sep or len(f) < 2 or not obj.endswith(".o"):
            continue
        defined, undefined = syms.setdefault(os.path.basename(obj)[:-2] + ".c",
                                             (set(), set()))
        name, kind = f[0], f[1]
        if kind == "U":
            undefined.add(name)
        elif kind not in ("w", "v"):
            defined.add(name)
    return syms


def read_objects(d, srcs):
    """nm over the objects of srcs in d, each newer than its source."""
    objs = []
    for c in srcs:
        obj = os.path.join(d, c[:-2] + ".o")
        if not os.path.exists(obj) or \
                os.path.getmtime(obj) < os.path.getmtime(os.path.join(d, c)):
            raise Unreadable("%s is missing or older than %s: build first (make)" % (obj, c))
        objs.append(obj)
    p = subprocess.run(["nm", "-P", "-g", "-A"] + objs, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise Unreadable("nm: %s" % p.stderr.strip())
    return parse_nm(p.stdout)


def read_map(path):
    """HACKING.md's layers, top first: [(heading, [file.c, ...]), ...]."""
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        raise Unreadable("the map: %s" % e)
    layers, inside = [], False
    for line in lines:
        if line.startswith("## "):
            inside = line.rstrip() == MAP_SECTION
        elif inside and line.startswith("### "):
            layers.append((line[4:].strip(), []))
        elif inside and layers:
            m = re.match(r"src/(\w+\.c)\b", line)
            if m:
                layers[-1][1].append(m.group(1))
    if not layers:
        raise Unreadable("%s has no layers under \"%s\"" % (path, MAP_SECTION))
    return layers


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


def check_circles(comps, edges):
    """The circles not on the allow-list, printed with their edges: how many."""
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
    return bad


def check_layers(srcs, edges, layers, mapname):
    """Files the map does not place (or places twice, or that are not there), and the
    calls that climb its layers, each printed: how many of each."""
    layer_of, bad, climbs = {}, 0, 0
    for i, (_, files) in enumerate(layers):
        for c in files:
            if c in layer_of:
                print("MAP %s places src/%s twice" % (mapname, c))
                bad += 1
            layer_of.setdefault(c, i)
    for c in sorted(set(srcs) - set(layer_of)):
        print("MAP src/%s is not in %s's map: give it a line under its layer" % (c, mapname))
        bad += 1
    for c in sorted(set(layer_of) - set(srcs)):
        print("MAP %s's map names src/%s, which is not there" % (mapname, c))
        bad += 1
    for c in sorted(edges):
        for d in sorted(edges[c]):
            if c in layer_of and d in layer_of and layer_of[d] < layer_of[c]:
                print("CLIMB %s (%s) -> %s (%s): %s"
                      % (c, layers[layer_of[c]][0], d, layers[layer_of[d]][0],
                         ", ".join(sorted(edges[c][d]))))
                climbs += 1
    return bad, climbs


def check_cmd_h(d):
    """The files of d that include cmd.h but may not, each printed: how many."""
    bad = 0
    for path in sorted(glob.glob(os.path.join(d, "*.[ch]"))):
        name = os.path.basename(path)
        text = open(path, errors="replace").read()
        if re.search(r'^\s*#\s*include\s*"cmd\.h"', text, re.M) and \
                not CMD_H_USERS.match(name):
            print("INCLUDE src/%s includes cmd.h (the commands): only tpctl.c and "
                  "cmd_*.c may" % name)
            bad += 1
    return bad


def print_layers(srcs, comps, edges, layers):
    """Each file with its layer in the map, its height and the files it calls."""
    layer_of = {c: i for i, (_, files) in enumerate(layers) for c in files}
    # Tarjan's components come out callees first: heights in one pass
    comp_of = {c: i for i, comp in enumerate(comps) for c in comp}
    height = {}
    for i, comp in enumerate(comps):
        below = [height[comp_of[d]] for c in comp for d in edges.get(c, {})
                 if comp_of[d] != i]
        height[i] = 1 + max(below) if below else 0
    print("deps: layers (layer in the map, height, file, the files it calls)")
    for c in sorted(srcs, key=lambda c: (layer_of.get(c, -1), -height[comp_of[c]], c)):
        print("    %2s %2d %-16s %s" % (layer_of.get(c, "?"), height[comp_of[c]], c,
                                       " ".join(sorted(edges.get(c, {})))))


def print_tracefs_users(d, srcs, syms):
    """For information: the files other than tfs*.c that call tracefs_* themselves."""
    users = []
    for c in srcs:
        if c.startswith("tfs"):
            continue
        calls = sorted(s for s in syms[c][1] if re.match(r"tracefs_", s))
        if calls:
            path = os.path.join(d, c)
            text = open(path, errors="replace").read() if os.path.exists(path) else ""
            sites = len(re.findall(r"\btracefs_\w+\s*\(", text))
            users.append((c, calls, sites))
    print("deps: information: %d files other than tfs*.c call tracefs_* (%d distinct "
          "functions, %d call sites in their sources)"
          % (len(users), sum(len(x) for _, x, _ in users), sum(n for _, _, n in users)))
    for c, calls, sites in users:
        print("    %-16s %2d sites  %s" % (c, sites, " ".join(calls)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.path.join(TOP, "src"))
    ap.add_argument("--map", default=os.path.join(TOP, "HACKING.md"))
    ap.add_argument("--nm", help="read the symbols from this `nm -P -g -A` listing")
    ap.add_argument("--quiet", action="store_true", help="only what fails and the verdict")
    ap.add_argument("--layers", action="store_true", help="each file, its layer and callees")
    a = ap.parse_args()
    mapname = os.path.basename(a.map)

    try:
        layers = read_map(a.map)
        if a.nm:
            syms = parse_nm(open(a.nm).read())
            srcs = sorted(syms)
        else:
            srcs = sorted(f for f in os.listdir(a.dir) if f.endswith(".c"))
            syms = read_objects(a.dir, srcs)
    except (OSError, Unreadable) as e:
        print("deps: %s" % e)
        return 2
    for c in srcs:
        syms.setdefault(c, (set(), set()))
    owner = {}
    for c in srcs:
        for s in syms[c][0]:
            owner.setdefault(s, c)

    # file -> file -> the symbols that make the edge
    edges = {}
    for c in srcs:
        for s in syms[c][1]:
            d = owner.get(s)
            if d and d != c:
                edges.setdefault(c, {}).setdefault(d, set()).add(s)

    if not a.quiet:
        n = sum(len(v) for v in edges.values())
        print("deps: %d files, %d file-to-file edges, %d layers in %s"
              % (len(srcs), n, len(layers), mapname))

    comps = sccs(srcs, edges)
    circles = check_circles(comps, edges)
    misplaced, climbs = check_layers(srcs, edges, layers, mapname)
    includes = check_cmd_h(a.dir)
    if a.layers:
        print_layers(srcs, comps, edges, layers)
    if not a.quiet:
        print_tracefs_users(a.dir, srcs, syms)

    fails = [(circles, "circle", "circles", "between files of src/"),
             (climbs, "call", "calls", "up %s's layers" % mapname),
             (misplaced, "file", "files", "that %s's map does not match" % mapname),
             (includes, "include", "includes", "of cmd.h outside the commands")]
    if any(f[0] for f in fails):
        print("deps: FAIL: %s (docs/DESIGN.md section 3)"
              % "; ".join("%d %s %s" % (n, one if n == 1 else many, what)
                          for n, one, many, what in fails if n))
        return 1
    print("deps: ok: no circle between files of src/%s, no call up %s's layers, "
          "cmd.h in the commands only" % (" but the allowed ones" if ALLOWED else "", mapname))
    return 0


if __name__ == "__main__":
    sys.exit(main())
