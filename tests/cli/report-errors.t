#!/bin/bash
# tpctl report on files it cannot read: a missing file, something that is not
# a trace.dat, files truncated anywhere and files with flipped bits.  Always one
# error line and exit 1 (or a clean report), never a crash or a hang.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "no python3"
plan 10

expect_status "missing file: exit 1" 1 "$TPCTL" report "$TMP/nope.dat"
grep -qx "tpctl: report: cannot open '$TMP/nope.dat': No such file or directory" "$TMP/err"
ok $? "missing file: one line naming it"
head -c 4096 /dev/urandom > "$TMP/random.dat"
expect_status "not a trace.dat: exit 1" 1 "$TPCTL" report "$TMP/random.dat"
grep -qx "tpctl: report: '$TMP/random.dat' is not a trace.dat file" "$TMP/err"
ok $? "not a trace.dat: one line saying so"
expect_status "no file: usage error" 2 "$TPCTL" report

"$TPCTL" record -o "$TMP/good.dat" sched:sched_switch sched:sched_wakeup irq:softirq_entry -- \
	sh -c 'ls / > /dev/null; sleep 0.05' 2> "$TMP/err"
ok $? "record a file to damage"

# Runs every damaged copy; prints a line for each bad outcome.
python3 - "$TPCTL" "$TMP/good.dat" "$TMP" > "$TMP/py" 2>&1 <<'PY'
import os, random, subprocess, sys
tpctl, good, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
data = open(good, "rb").read()
bad = 0
def run(blob, what):
    global bad
    path = os.path.join(tmp, "damaged.dat")
    open(path, "wb").write(blob)
    try:
        p = subprocess.run([tpctl, "report", path], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=20)
    except subprocess.TimeoutExpired:
        print("%s: hangs" % what)
        bad += 1
        return None
    err = p.stderr.decode(errors="replace").splitlines()
    if p.returncode not in (0, 1) or len(err) > 1 or \
       (p.returncode == 1 and not (err and err[0].startswith("tpctl: report: "))):
        print("%s: exit %d, stderr %r" % (what, p.returncode, err[:3]))
        bad += 1
    return p.returncode
mode = os.environ.get("MODE", sys.argv[4] if len(sys.argv) > 4 else "")
r = random.Random(1234)
cuts = sorted(set([0, 1, 5, 11, 12, 17, 18, 40, 100] +
                  [r.randrange(len(data)) for _ in range(60)] + [len(data) - 1]))
fails = 0
for c in cuts:
    if run(data[:c], "truncated at %d" % c) == 1:
        fails += 1
print("truncated: %d cuts, %d refused with exit 1" % (len(cuts), fails))
for seed in range(150):
    r = random.Random(seed)
    b = bytearray(data)
    for _ in range(r.randint(1, 8)):
        i = r.randrange(len(b))
        b[i] ^= 1 << r.randrange(8)
    run(bytes(b), "bit flips, seed %d" % seed)
sys.exit(1 if bad else 0)
PY
ok $? "truncated and bit-flipped files: exit 0 or 1, at most one error line, no crash"
diag "$TMP/py"
head -c 1000 "$TMP/good.dat" > "$TMP/cut.dat"
expect_status "a file cut in its header: exit 1" 1 "$TPCTL" report "$TMP/cut.dat"
grep -qx "tpctl: report: cannot read '$TMP/cut.dat': truncated or corrupt trace.dat" "$TMP/err"
ok $? "a file cut in its header: one line saying so"
expect_status "unknown event in the file: usage error" 2 \
	"$TPCTL" report "$TMP/good.dat" sched:no_such_event
done_testing
