#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks of a `tpctl stream --json` output that the tests of its threads
share (stream-threads.t, stream-read-thread.t).  Exit 0 when it holds, 1
when not; a summary line ("# ...") on stdout.

  stream-check.py lost-first FILE
      lost records come before their CPU's first surviving event, a lost
      count is unknown (null) or positive, the events are in time order
  stream-check.py two-cpus FILE N
      two generators (tasks named tgen) on CPUs 0 and 1 made N getpid
      events in all: every one is there, named, the events are in time
      order, nothing was lost, the last line is COMMAND's exit
  stream-check.py not-own FILE TIDS
      no event of the tasks listed in TIDS (one a line: tpctl's own), and
      at least 100 lines
"""
import json
import sys


def records(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def lost_first(path):
    recs = records(path)
    lost = [i for i, r in enumerate(recs) if r["type"] == "lost"]
    events = [r for r in recs if r["type"] == "event"]
    ts = [r["ts_ns"] for r in events]
    first = {}
    for i, r in enumerate(recs):
        if r["type"] == "event":
            first.setdefault(r["cpu"], i)
    print("# %d records, %d lost lines" % (len(recs), len(lost)))
    return bool(lost and events and ts == sorted(ts) and
                all(recs[i]["count"] is None or recs[i]["count"] > 0 for i in lost) and
                all(i < first.get(recs[i]["cpu"], 1 << 60) for i in lost))


def two_cpus(path, n):
    recs = records(path)
    ev = [r for r in recs if r["type"] == "event"]
    # the generators: the tasks named tgen somewhere in the stream (before a
    # task's first switch out, its name is saved_cmdlines', which may still be
    # the one it had before its exec: sh or taskset)
    gens = {r["pid"] for r in ev if r["comm"] == "tgen"}
    gp = [r for r in ev if r["event"] == "sys_enter_getpid" and r["pid"] in gens]
    cpus = {r["cpu"] for r in gp}
    back = [i for i in range(1, len(ev)) if ev[i]["ts_ns"] < ev[i - 1]["ts_ns"]]
    lost = [r for r in recs if r["type"] == "lost"]
    names = {r["comm"] for r in ev}
    print("# %d records, %d getpid of tgen's %d tasks on CPUs %s, %d out of order, "
          "%d lost lines, names %s" % (len(recs), len(gp), len(gens), sorted(cpus), len(back),
                                       len(lost), sorted(x or "null" for x in names)))
    for i in back[:3]:
        print("#  %s\n#  %s" % (ev[i - 1], ev[i]))
    # (named: every getpid of the two generators carries a name; another
    # task, gone before its name was read, may be null)
    return (len(gp) == n and len(gens) == 2 and cpus == {0, 1} and not back and not lost and
            all(r["comm"] for r in gp) and recs[-1]["type"] == "exit")


def not_own(path, tids):
    with open(tids) as f:
        own = {int(x) for x in f if x.strip()}
    seen = records(path)
    mine = [r for r in seen if r.get("type") == "event" and r["pid"] in own]
    print("# %d events, %d of tpctl's tasks %s" % (len(seen), len(mine), sorted(own)))
    return not mine and len(seen) >= 100


def main():
    what, args = sys.argv[1], sys.argv[2:]
    if what == "lost-first":
        good = lost_first(*args)
    elif what == "two-cpus":
        good = two_cpus(args[0], int(args[1]))
    elif what == "not-own":
        good = not_own(*args)
    else:
        sys.exit("stream-check.py: no check '%s'" % what)
    sys.exit(0 if good else 1)


if __name__ == "__main__":
    main()
