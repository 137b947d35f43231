#!/bin/bash
# Lost events: a recorder stopped (SIGSTOP) while a generator fills a tiny
# buffer must lose events, warn about them, and leave the kernel's loss marks
# in the file, which tpctl report (text and JSON) and trace-cmd report show
# at the same places.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "no python3"
TC=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
[ -x "$TC" ] || skip_all "no trace-cmd ($TC)"
GEN=$TOP/bench/gen
if [ ! -x "$GEN" ]; then
	cc -O2 -o "$TMP/gen" "$TOP/bench/gen.c" 2> /dev/null || skip_all "cannot build bench/gen"
	GEN=$TMP/gen
fi
NORM=$TOP/tests/cli/report-norm.py
plan 6

python3 - "$TPCTL" "$GEN" "$TMP/loss.dat" "$TRACEFS" > "$TMP/py" 2> "$TMP/err" <<'PY'
import os, signal, subprocess, sys, time
tpctl, gen_path, out, tracefs = sys.argv[1:5]
gen = subprocess.Popen([gen_path, "200000"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       text=True)
pid = int(gen.stdout.readline())
rec = subprocess.Popen([tpctl, "record", "-o", out, "--buffer-kb", "16",
                        "--filter", "common_pid == %d" % pid, "syscalls:sys_enter_getpid"])
# a new instance starts with tracing_on 1: wait for the event's enable too
inst = os.path.join(tracefs, "instances", "tpctl-%d" % rec.pid)
on = os.path.join(inst, "tracing_on")
enable = os.path.join(inst, "events", "syscalls", "sys_enter_getpid", "enable")
end = time.time() + 60
while time.time() < end:
    try:
        if open(enable).read().strip() == "1" and open(on).read().strip() == "1":
            break
    except OSError:
        pass
    time.sleep(0.02)
else:
    print("record did not start tracing within 60 s")
    gen.kill()
    rec.send_signal(signal.SIGINT)
    rec.wait()
    sys.exit(3)
os.kill(rec.pid, signal.SIGSTOP)
gen.stdin.write("go\n")
gen.stdin.flush()
gen.stdout.readline()
gen.wait()
os.kill(rec.pid, signal.SIGCONT)
time.sleep(0.2)
os.kill(rec.pid, signal.SIGINT)
st = rec.wait()
print("gen pid", pid, "status", st)
sys.exit(st)
PY
ok $? "record exits 0 after losing events"
diag "$TMP/py"
grep -q "^tpctl: record: warning: [0-9]* events were lost" "$TMP/err"
ok $? "record warns about the lost events"
diag "$TMP/err"

"$TPCTL" report "$TMP/loss.dat" > "$TMP/tp.txt"
grep -q '^CPU:[0-9]* \[LOST' "$TMP/tp.txt"
ok $? "tpctl report shows the kernel's loss marker ($(grep -c '^CPU:' "$TMP/tp.txt"))"
# task, pid, CPU and time of each event (syscall events print differently in
# trace-cmd, see tpctl-report(1)), and the loss markers in place
(cd "$TMP" && "$TC" report -N loss.dat 2> /dev/null) | python3 "$NORM" | cut -d' ' -f1-3 > "$TMP/tc.n"
python3 "$NORM" < "$TMP/tp.txt" | cut -d' ' -f1-3 > "$TMP/tp.n"
cmp_tracecmd "trace-cmd report shows the same events and losses" "$TMP/tc.n" "$TMP/tp.n"
"$TPCTL" report --json "$TMP/loss.dat" > "$TMP/tp.json"
[ "$(grep -c '^{"type":"lost"' "$TMP/tp.json")" = "$(grep -c '^CPU:' "$TMP/tp.txt")" ]
ok $? "report --json has one lost object per marker"
[ "$(wc -l < "$TMP/tp.json")" = "$(wc -l < "$TMP/tp.txt")" ]
ok $? "report --json has one line per text line"
done_testing
