#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# record --flight on Debian's 6.1 kernel (tests/vm/guest/parts/80-flight.sh),
# which has the traceoff trigger the flight recorder stops on, and the
# snapshot trigger and file (said here; the recorder does not use them).
# SIGUSR1: FILE.1 holds the first load's getpid calls, FILE.2 the second's
# and none of the first's, both read by trace-cmd and tpctl report; --stop-on
# 'exit_group if error_code == 77': tpctl ends on its own, the newest event is
# that exit_group, nothing of a process started after it; SIGKILL then tpctl
# reset; tracefs as it was.
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

t = v.Tap()
v.part_or_skip(t, "flight", "flight recorder checks")

TC = os.environ.get("TRACE_CMD", "/work/shared/tools/trace-cmd-here")
TPCTL = os.environ.get("TPCTL", os.path.join(v.TOP, "tpctl"))
# a getpid event's pid: trace-cmd's text names the event, tpctl's is the kernel's
PID_GETPID = re.compile(rb"-(\d+)\s+\[\d+\].* (?:sys_enter_getpid:|sys_getpid\(\))")

t.diag("6.1's triggers: %s; snapshot file: %s" % (
    v.text("flight/triggers").strip(), v.text("flight/snapshot_file").strip()))


def tc_report(name):
    """trace-cmd report of a file the guest sent: (exit status, stdout, stderr)."""
    f = v.path("flight/" + name)
    if not os.path.exists(f):
        return None, b"", b"no file"
    r = subprocess.run([TC, "report", os.path.basename(f)], cwd=os.path.dirname(f),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    return r.returncode, r.stdout, r.stderr


def getpids(out, pid):
    return sum(1 for l in out.split(b"\n") if (m := PID_GETPID.search(l)) and
               int(m.group(1)) == pid)


def pid(name):
    try:
        return int(v.text("flight/%s.pid" % name).strip())
    except ValueError:
        return -1


# ---- SIGUSR1
err = v.text("flight/usr1.err")
t.ok(v.text("flight/usr1_overwrite").strip() == "1", "--flight: the instance in overwrite mode",
     v.text("flight/usr1_overwrite"))
t.ok(v.text("flight/usr1.rc").strip() == "0" and "f.dat.1'" in err and "f.dat.2'" in err and
     not os.path.exists(v.path("flight/usr1_instance")),
     "SIGUSR1 twice, then INT: FILE.1 and FILE.2 said, exit 0, the instance gone", err)
t.ok(not re.search(r"\.part", v.text("flight/usr1.ls")), "no FILE.part left",
     v.text("flight/usr1.ls"))
a, b = pid("usr1_a"), pid("usr1_b")
r1, out1, err1 = tc_report("f.dat.1")
r2, out2, err2 = tc_report("f.dat.2")
t.ok(r1 == 0 and r2 == 0, "trace-cmd report reads FILE.1 and FILE.2",
     (err1 + err2).decode("utf-8", "replace")[:2000])
# aggload's own getpid that prints its pid, and busybox timeout's before it execs
n = getpids(out1, a)
t.ok(1001 <= n <= 1002, "FILE.1 holds the first load's 1000 calls (and its 1-2 before): %d" % n)
n = getpids(out1, b)
t.ok(n == 0, "FILE.1 holds nothing of the load after the signal: %d" % n)
n = getpids(out2, b)
t.ok(1001 <= n <= 1002, "FILE.2 holds the second load's 1000 calls: %d" % n)
n = getpids(out2, a)
t.ok(n == 0, "FILE.2 holds none of the first's: %d" % n)
r = subprocess.run([TPCTL, "report", v.path("flight/f.dat.2")], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, check=False)
t.ok(r.returncode == 0 and getpids(r.stdout, b) == getpids(out2, b),
     "tpctl report reads FILE.2: the same calls as trace-cmd",
     r.stderr.decode("utf-8", "replace")[:1500])

# ---- --stop-on, the kernel's traceoff trigger
trig = v.text("flight/stop_trigger")
t.ok(re.search(r"^traceoff.*error_code == 77", trig, re.M) is not None,
     "--stop-on: the traceoff trigger armed with its filter", trig)
t.ok(v.text("flight/stop.rc").strip() == "0" and "wrote '/tmp/fl/s.dat'" in v.text("flight/stop.err"),
     "tpctl ends on its own at exit_group(77), FILE written, exit 0 (124: it did not)",
     "exit %s\n%s" % (v.text("flight/stop.rc").strip(), v.text("flight/stop.err")))
r = subprocess.run([TPCTL, "report", v.path("flight/s.dat")], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, check=False)
lines = [l for l in r.stdout.split(b"\n") if l.strip()]
last = lines[-1].decode("utf-8", "replace") if lines else ""
t.ok(r.returncode == 0 and re.search(r"sys_exit_group.*0x4d", last) is not None,
     "the newest event in FILE is that exit_group: %s" % last,
     r.stderr.decode("utf-8", "replace")[:1500])
n = getpids(r.stdout, pid("stop_after"))
t.ok(n == 0, "nothing of a process started after it: %d" % n)
t.ok(not os.path.exists(v.path("flight/stop_instance")), "the instance and its trigger gone")

# ---- SIGKILL, tpctl reset
t.ok(re.search(r"tpctl-\d+ .*orphaned", v.text("fl_status.out")) is not None,
     "tpctl status lists the killed recorder's instance as orphaned", v.step_diag("fl_status"))
t.ok(v.text("flight/kill_left").strip() == "yes" and v.rc("fl_reset") == 0 and
     not os.path.exists(v.path("flight/kill_instance")),
     "SIGKILL leaves the instance, tpctl reset removes it with its trigger",
     v.step_diag("fl_reset"))
t.ok(re.search(r"k\.dat", v.text("flight/kill.ls")) is None,
     "no file half written under its final name", v.text("flight/kill.ls"))
t.ok(v.text("flight/state_after") == v.text("flight/state_before"),
     "tracefs as it was: tracing_on, set_event, instances, triggers",
     "before:\n%s\nafter:\n%s" % (v.text("flight/state_before"), v.text("flight/state_after")))
t.done()
