#!/usr/bin/env python3
# text-oracle.py KERNEL TPCTL KNOWN: tpctl's text of a buffer against the
# kernel's own `trace` text of the same records, line for line.
#
# In the lines of the events KNOWN (tests/unit/fixtures/known-text-differences)
# lists, the part the kernel cannot print reproducibly is masked on both sides.
# A line may also differ in its task name alone where one side found none
# ("<...>"): the kernel resolves names from saved_cmdlines, a small cache,
# when `trace` is read, and a busy machine replaces entries between its read
# and ours; such lines are counted, not failed.  Every other difference is an error.  Prints one summary line
# ("lines N, kinds K, masked M, task names C, differing D"), then the kinds
# that differ with one example each; exit 1 when D > 0 or the line counts
# differ.
import collections, re, sys

kpath, tpath, kpath_known = sys.argv[1:4]
known = {}
for line in open(kpath_known, encoding="utf-8"):
    if line.startswith("#") or not line.strip():
        continue
    event, pattern, _why = line.rstrip("\n").split("\t", 2)
    known[event] = re.compile(pattern)


def lines(path):
    return open(path, "rb").read().decode("utf-8", "surrogateescape").split("\n")[:-1]


kernel, ours = lines(kpath), lines(tpath)
# "%16s-%-7d [%03d] FLAGS TS: " then "name: " for most events, "sys_x(" and
# "sys_x -> " for syscalls
head = re.compile(r"^(.{16})-(\d+ +\[\d{3}\] \S{5} +\d+\.\d{6}: )(([^ :(]+)(: |\(| -> ))?")
kinds, bad, examples = set(), collections.Counter(), {}
masked = comm = 0
for k, t in zip(kernel, ours):
    m = head.match(k)
    kind = (m.group(4) + ("" if m.group(5) == ": " else m.group(5).strip())
            if m and m.group(4) else "?")
    kinds.add(kind)
    if kind in known:
        k2, n = known[kind].subn("<masked>", k)
        t = known[kind].sub("<masked>", t)
        masked += n > 0
        k = k2
    if k == t:
        continue
    mt = head.match(t)
    if m and mt and k[16:] == t[16:] and "<...>" in (k[:16].strip(), t[:16].strip()):
        comm += 1
        continue
    bad[kind] += 1
    examples.setdefault(kind, (k, t))
print("lines %d, kinds %d, masked %d, task names %d, differing %d" %
      (len(kernel), len(kinds), masked, comm, sum(bad.values())))
if len(kernel) != len(ours):
    print("%d kernel lines, %d tpctl lines" % (len(kernel), len(ours)))
for kind, n in bad.most_common(30):
    k, t = examples[kind]
    print("%d %s\n  kernel %s\n  tpctl  %s" % (n, kind, k[:300], t[:300]))
sys.exit(1 if bad or len(kernel) != len(ours) else 0)
