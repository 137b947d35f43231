#!/usr/bin/env python3
# flame-check.py DOM FOLDED [NAME]: the DOM chromium made of an SVG that
# tpctl --flamegraph wrote, against the folded stacks of the same run: one
# <svg> element; every frame (a <g> with its <title> and <rect>) is a path of
# the folded lines with that path's weight, its width that weight's share of
# the root's; every path wide enough to draw is there.  With NAME: a <title>
# holds NAME as text.  Prints what differs; exit 0 when nothing does.
import sys
import xml.dom.minidom

dom = xml.dom.minidom.parse(sys.argv[1])
folded = open(sys.argv[2], encoding="utf-8", errors="replace").read().splitlines()
name = sys.argv[3] if len(sys.argv) > 3 else None
bad = []
svgs = dom.getElementsByTagName("svg")
if len(svgs) != 1:
    bad.append("%d <svg> elements" % len(svgs))

# the paths of the folded lines: (depth, name, weight), weights summed per path
want, total = {}, 0
for line in folded:
    frames, w = line.rsplit(" ", 1)
    w = int(w)
    total += w
    parts = frames.split(";")
    for d in range(1, len(parts) + 1):
        key = tuple(parts[:d])
        want[key] = want.get(key, 0) + w

frames = []
for g in dom.getElementsByTagName("g"):
    titles = g.getElementsByTagName("title")
    rects = g.getElementsByTagName("rect")
    if not titles or not rects:
        continue
    t = "".join(n.data for n in titles[0].childNodes if n.nodeType == n.TEXT_NODE)
    head, rest = t.rsplit(" (", 1)
    w = int(rest.split(" ")[0])
    r = rects[0]
    frames.append((float(r.getAttribute("y")), float(r.getAttribute("x")),
                   float(r.getAttribute("width")), head, w))
if not frames:
    bad.append("no frames")
    print("\n".join(bad))
    sys.exit(1)
root = max(frames, key=lambda f: f[0])
if root[3] != "all" or root[4] != total:
    bad.append("the root is %r of %d, want all of %d" % (root[3], root[4], total))
scale = root[2] / total
# rebuild each frame's path from the rows: its parent is the frame one row
# below whose span holds it
rows = sorted({f[0] for f in frames}, reverse=True)
depth = {y: i for i, y in enumerate(rows)}
paths = {}
for f in sorted(frames, key=lambda f: -f[0]):
    d = depth[f[0]]
    if d == 0:
        paths[f] = ()
        continue
    par = [p for p in frames if depth[p[0]] == d - 1 and p[1] - 0.01 <= f[1] and
           f[1] + f[2] <= p[1] + p[2] + 0.01 and p in paths]
    if not par:
        bad.append("frame %r has no parent" % (f[3],))
        continue
    paths[f] = paths[par[0]] + (f[3],)
seen = set()
for f, p in paths.items():
    if not p:
        continue
    seen.add(p)
    if want.get(p) != f[4]:
        bad.append("frame %s weighs %d, the folded lines %s" % (";".join(p), f[4], want.get(p)))
    if abs(f[2] - f[4] * scale) > 0.02:
        bad.append("frame %s is %.2f wide, want %.2f" % (";".join(p), f[2], f[4] * scale))
for p, w in want.items():
    if p not in seen and w * scale >= 0.1:
        bad.append("path %s (%d) is not drawn" % (";".join(p), w))
if name is not None and not any(f[3] == name for f in frames):
    bad.append("no <title> holds %r as text" % name)
if bad:
    print("\n".join(bad))
print("# %d frames, total %d" % (len(frames), total), file=sys.stderr)
sys.exit(1 if bad else 0)
