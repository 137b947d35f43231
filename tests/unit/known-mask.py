#!/usr/bin/env python3
# known-mask.py KNOWN < TEXT > TEXT: in the lines of the events that
# tests/unit/fixtures/known-text-differences lists, replace the part the kernel
# cannot print reproducibly with "<masked>"; other lines pass unchanged.
# Prints "masked N" on stderr.
import re, sys

known = {}
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("#") or not line.strip():
        continue
    event, pattern, _why = line.rstrip("\n").split("\t", 2)
    known[event] = re.compile(pattern)
# "comm-pid [cpu] flags ts: event: ..." as the kernel prints it
head = re.compile(r"\] \S{5} +[0-9]+\.[0-9]{6}: ([^ :]+): ")
masked = 0
for line in sys.stdin.buffer:
    text = line.decode("utf-8", "surrogateescape")
    m = head.search(text)
    if m and m.group(1) in known:
        text, n = known[m.group(1)].subn("<masked>", text)
        masked += n > 0
    sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
print("masked %d" % masked, file=sys.stderr)
