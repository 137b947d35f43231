#!/usr/bin/env python3
# cmp-tracecmd.py TC TP: two normalised texts (report-norm.py) of the same
# records, trace-cmd report's and tpctl's, line for line; exit 1 and the
# first differences when they differ.  One difference is allowed: a task that
# trace-cmd leaves unnamed ("<...>") may have its name in tpctl's line.
# libtracecmd (like libtraceevent's tep_parse_saved_cmdlines) stops reading
# a file's saved_cmdlines at a task name that holds a newline, so every task
# listed after it is unnamed there; tpctl reads past that line
# (tests/cli/comm-newline.t makes such a task).
import re
import sys

a = open(sys.argv[1]).read().split("\n")
b = open(sys.argv[2]).read().split("\n")
task = re.compile(r"^(.*?)-(\d+) \[")
bad = []
if len(a) != len(b):
    bad.append("%d lines against %d" % (len(a), len(b)))
for i, (x, y) in enumerate(zip(a, b)):
    mx, my = task.match(x), task.match(y)
    if x == y or (mx and my and mx.group(1) == "<...>" and mx.group(2) == my.group(2) and
                  x[mx.end():] == y[my.end():]):
        continue
    bad.append("line %d:\n- %s\n+ %s" % (i + 1, x, y))
print("\n".join(bad[:10]))
sys.exit(1 if bad else 0)
