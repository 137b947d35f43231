#!/usr/bin/env python3
# Canonical form of trace text lines, so that the kernel's `trace` file,
# `trace-cmd report` and `tpctl report` can be compared.  The documented
# column differences are removed: the kernel and tpctl print the latency
# flags ("d..2.") and one padding, trace-cmd prints no flags and pads the
# event name; lost-event markers differ in wording.  Everything else (task,
# pid, CPU, timestamp, event name, payload text) is kept.  A line that is
# not understood is kept as "?? <line>" so that it shows up in a diff.
#
#   report-norm.py [--no-ts] [--no-comm] [--strip-instance] < text
#
# --no-comm drops the task name (kept: pid), which the kernel and the file
# resolve from saved_cmdlines at different moments; --strip-instance drops
# the "instance: " prefix trace-cmd prints for data recorded with -B.
#
# Stack records: the kernel and tpctl print "<stack trace>" and one
# " => symbol" line per frame ("0x..." when no symbol holds it), and
# "<user stack trace>" with " =>  <%016lx>" lines up to the first 0 frame;
# trace-cmd prints "kernel_stack: <stack trace >" with "=> symbol (addr)"
# lines, and "user_stack:" with all 8 "=> 0x..." entries of the print fmt,
# zeros included.  Both become "<stack trace>" / " => symbol" and
# "<user stack trace>" / " => <hex>" (up to the first 0 frame).
import re
import signal
import sys

# a reader that stops early (grep -q) is not an error
signal.signal(signal.SIGPIPE, signal.SIG_DFL)

no_ts = "--no-ts" in sys.argv[1:]
no_comm = "--no-comm" in sys.argv[1:]
strip_inst = "--strip-instance" in sys.argv[1:]
inst = re.compile(r"^[^\s:]+:\s+(?=\S+-\d+\s+\[\d+\])")
ev = re.compile(r"^\s*(?P<task>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+"
                r"(?:(?P<flags>\S{4,6})\s+)?(?P<ts>\d+\.\d+):\s+(?P<body>.*)$")
# "name: payload"; ftrace's own events and the kernel's syscall lines have no name
evname = re.compile(r"^(?P<ev>[^:\s]+):\s?(?P<rest>.*)$")
lost_k = re.compile(r"^\s*CPU:(\d+) \[LOST (\d+) EVENTS\]\s*$")
lost_u = re.compile(r"^\s*CPU:(\d+) \[LOST EVENTS\]\s*$")
lost_t = re.compile(r"^\s*CPU:(\d+) \[(\d+) EVENTS DROPPED\]\s*$")
lost_tu = re.compile(r"^\s*CPU:(\d+) \[EVENTS DROPPED\]\s*$")
kframe_k = re.compile(r"^ => (\S.*)$")			# kernel, tpctl
kframe_t = re.compile(r"^=> (\S+)(?: \(([0-9a-f]+)\))?$")	# trace-cmd
uframe = re.compile(r"^\s*=>\s+(?:<([0-9a-f]+)>|0x([0-9a-f]+))$")
stack = None	# "k" or "u" while the lines of a stack record follow; "u0": past its 0
for line in sys.stdin:
    line = line.rstrip("\n")
    if strip_inst:
        line = inst.sub("", line, count=1)
    if stack == "k":
        m = kframe_k.match(line) or kframe_t.match(line)
        if m:
            sym = m.group(1)
            if re.match(r"^(0x)?[0-9a-f]{8,}$", sym):
                sym = "0x%x" % int(sym, 16)	# an address no symbol holds
            print(" => " + sym)
            continue
    if stack in ("u", "u0"):
        m = uframe.match(line)
        if m:
            addr = int(m.group(1) or m.group(2), 16)
            if addr == 0:
                stack = "u0"
            if stack == "u":
                print(" => <%x>" % addr)
            continue
    stack = None
    if not line.strip() or line.startswith("#") or re.match(r"^cpus=\d+$", line):
        continue
    m = lost_k.match(line) or lost_t.match(line)
    if m:
        print("LOST cpu=%d count=%s" % (int(m.group(1)), m.group(2)))
        continue
    m = lost_u.match(line) or lost_tu.match(line)
    if m:
        print("LOST cpu=%d count=?" % int(m.group(1)))
        continue
    m = ev.match(line)
    if not m:
        print("?? " + line)
        continue
    b = evname.match(m.group("body"))
    name, rest = (b.group("ev") + ":", b.group("rest").strip()) if b else ("", m.group("body").strip())
    first = None
    if name == "kernel_stack:" or m.group("body").strip() in ("<stack trace>", "<stack trace >"):
        name, rest, stack = "", "<stack trace>", "k"
    elif name == "user_stack:" or m.group("body").strip() == "<user stack trace>":
        # trace-cmd prints the first frame on the header line
        first = uframe.match(rest) if name == "user_stack:" else None
        name, rest, stack = "", "<user stack trace>", "u"
    ts = "" if no_ts else " " + m.group("ts")
    task = "" if no_comm else m.group("task").strip()
    print("%s-%s [%03d]%s %s %s" % (task, m.group("pid"), int(m.group("cpu")), ts, name, rest))
    if first:
        addr = int(first.group(1) or first.group(2), 16)
        if addr:
            print(" => <%x>" % addr)
        else:
            stack = "u0"
