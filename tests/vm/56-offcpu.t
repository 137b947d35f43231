#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# latency offcpu --by stack --folded in the VM (Debian's 6.1), from
# tests/vm/guest/parts/56-offcpu.sh: every line is frames and a weight, and
# the stacks through do_nanosleep weigh sleep 1's second (+-5 %), with every
# switch out and with --state S; with --state D none goes through it (sleep
# sleeps in S; the letters' bits come from this kernel's format, which
# differs from the host's).  No instance is left.
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

t = v.Tap()
v.results_or_fail(t)

LINE = re.compile(r"^(\S+) (\d+)$")


def nanosleep_us(step):
    """The lines' microseconds through do_nanosleep, or None if a line is not 'frames N'."""
    total = 0
    for line in v.text(step + ".out").splitlines():
        m = LINE.match(line)
        if not m:
            return None
        if "do_nanosleep" in m.group(1).split(";"):
            total += int(m.group(2))
    return total


for step, what in (("off_folded", "every switch out"), ("off_state_s", "--state S")):
    us = nanosleep_us(step)
    t.ok(v.rc(step) == 0 and us is not None and v.text(step + ".out").strip() != "",
         "%s: exit 0, lines of frames and a weight" % what, v.step_diag(step))
    t.ok(us is not None and 950000 <= us <= 1050000,
         "%s: the stacks through do_nanosleep weigh 1 s +-5 %% (%s us)" % (what, us),
         v.step_diag(step))

us = nanosleep_us("off_state_d")
t.ok(v.rc("off_state_d") == 0 and us == 0,
     "--state D: exit 0, no stack through do_nanosleep (%s us)" % us, v.step_diag("off_state_d"))
t.ok(v.text("offcpu/instances_after") == v.text("offcpu/instances_before"),
     "no instance left", "before: %s\nafter: %s" % (v.text("offcpu/instances_before"),
                                                    v.text("offcpu/instances_after")))
t.done()
