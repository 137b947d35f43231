#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Functions of src/ over 100 lines (HACKING.md, Known exceptions).

A function runs from its opening brace at column 0 to its closing brace at
column 0 (the kernel's style, which src/ keeps); its name is the last
identifier before a '(' above the brace.  Prints every function over the
limit, and fails when one is not among the allowed exceptions.

  tests/funclen.py [--dir SRC] [--limit N]
"""
import argparse
import glob
import os
import re
import sys

# the per-record printers (HACKING.md says why)
ALLOWED = {("output.c", "out_text_record"), ("output.c", "json_record")}


def functions(path):
    lines = open(path, errors="replace").read().split("\n")
    start = None
    for i, line in enumerate(lines):
        if line == "{":
            j = i - 1
            while j >= 0 and "(" not in lines[j]:
                j -= 1
            names = re.findall(r"(\w+)\s*\(", lines[j]) if j >= 0 else []
            start = (i, names[0] if names else "?")
        elif line.startswith("}") and start:
            yield start[1], start[0] + 1, i - start[0] + 1
            start = None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.path.join(os.path.dirname(__file__), "..", "src"))
    ap.add_argument("--limit", type=int, default=100)
    a = ap.parse_args()
    bad = 0
    for path in sorted(glob.glob(os.path.join(a.dir, "*.[ch]"))):
        base = os.path.basename(path)
        for name, line, n in functions(path):
            if n < a.limit:
                continue
            allowed = (base, name) in ALLOWED
            print("%s %s:%d %s() %d lines" % ("allowed" if allowed else "LONG", base, line,
                                              name, n))
            bad += not allowed
    if bad:
        print("funclen: FAIL: %d function(s) of %d lines or more" % (bad, a.limit))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
