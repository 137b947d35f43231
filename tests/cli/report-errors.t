#!/bin/bash
# tpctl report on files it cannot read: a missing file, something that is not
# a trace.dat, files truncated anywhere and files with flipped bits.  Always one
# error line and exit 1 (or a clean report), never a crash or a hang.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "no python3"
plan 18

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
import os, random, re, subprocess, sys
tpctl, good, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
data = open(good, "rb").read()
bad = 0
faults = 0
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
    if any("decoding stopped by" in l for l in err):
        # under make check-valgrind: valgrind's account of the library fault
        # that killed report's decoding child
        err = [l for l in err if not re.match(r"==\d+==", l)]
    global faults
    if err and "decoding stopped by" in err[0]:
        faults += 1
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
print("library faults contained in the decoding child: %d" % faults)
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

# Files that crashed or misled the system libraries while fuzzing
# (tests/fuzz/RESULTS.md): one error line, exit 1, and nothing but NDJSON on
# standard output.
R=$TOP/tests/fuzz/regress/dat
bad=
for f in "$R"/*.dat; do
	timeout 120 "$TPCTL" report --json "$f" > "$TMP/out" 2> "$TMP/err.all"
	st=$?
	# under check-asan: ASan's note on a huge malloc it answers with NULL;
	# under check-valgrind: valgrind's account of a fault it saw kill the
	# decoding child (tpctl's own line says so)
	if grep -q 'decoding stopped by' "$TMP/err.all"; then
		grep -v '^==[0-9]*==' "$TMP/err.all" > "$TMP/err"
	else
		grep -v '^==[0-9]*==WARNING: AddressSanitizer failed to allocate' "$TMP/err.all" > "$TMP/err"
	fi
	python3 -c 'import json, sys
for l in open(sys.argv[1], encoding="utf-8"): json.loads(l)' "$TMP/out" 2> /dev/null || bad="$bad ${f##*/}(stdout)"
	case $st in
	0) [ -s "$TMP/err" ] && bad="$bad ${f##*/}(stderr)" ;;
	1) [ "$(wc -l < "$TMP/err")" = 1 ] && grep -q '^tpctl: report: ' "$TMP/err" ||
		bad="$bad ${f##*/}(message)" ;;
	*) bad="$bad ${f##*/}(exit $st)" ;;
	esac
done
[ -z "$bad" ]; ok $? "fuzz inputs: exit 0 or 1, one error line, stdout parses${bad:+:$bad}"

"$TPCTL" report "$R/record-past-page.dat" > "$TMP/out" 2> "$TMP/err"
[ $? = 1 ] && grep -qx "tpctl: report: cannot read '$R/record-past-page.dat': corrupt record at offset [0-9]*" "$TMP/err"
ok $? "a record longer than its page: refused by offset, exit 1"
[ -s "$TMP/out" ]; ok $? "a record longer than its page: the records before it are printed"

"$TPCTL" report --json "$R/library-message-on-stdout.dat" > "$TMP/out" 2> "$TMP/err"
[ $? = 1 ] && [ ! -s "$TMP/out" ]
ok $? "libtracecmd's own complaint does not reach standard output"

"$TPCTL" report "$R/hostile-format-in-file.dat" > "$TMP/out" 2> "$TMP/err"
[ $? = 1 ] && grep -qx "tpctl: report: cannot read '$R/hostile-format-in-file.dat': corrupt trace.dat (decoding stopped by SEGV)" "$TMP/err"
ok $? "a format that crashes libtraceevent: contained, one line, exit 1"

"$TPCTL" report "$R/option-string-without-nul.dat" > "$TMP/out" 2> "$TMP/err"
[ $? = 1 ] && grep -qx "tpctl: report: cannot read '$R/option-string-without-nul.dat': truncated or corrupt trace.dat" "$TMP/err"
ok $? "an option string without its NUL: refused before libtracecmd reads it"

# A file larger than the address space allowed (ulimit -v): report maps only
# what it must.  The copy is sparse, data past the CPU data is ignored by
# version 6.  Version 7 is walked section by section from the start to the
# end by libtracecmd, which never ends over 8 GiB of zeros read as empty
# sections: refused at once instead.
if [ -n "$ASAN_OPTIONS$TPCTL_WRAPPER" ]; then
	# ASan's shadow memory and valgrind need more than 1 GB of address space
	skip "ulimit -v: not under a sanitizer or valgrind"
else
	"$TPCTL" record --file-version 6 -o "$TMP/good6.dat" sched:sched_switch -- \
		sh -c 'ls / > /dev/null; sleep 0.05' 2> "$TMP/err"
	cp "$TMP/good6.dat" "$TMP/big.dat" && truncate -s +8G "$TMP/big.dat"
	"$TPCTL" report "$TMP/good6.dat" > "$TMP/want"
	(ulimit -v 1000000 && exec "$TPCTL" report "$TMP/big.dat") > "$TMP/out" 2> "$TMP/err"
	st=$?
	[ $st = 0 ] && [ -s "$TMP/want" ] && cmp -s "$TMP/want" "$TMP/out"
	ok $? "an 8 GiB version 6 file under ulimit -v 1 GB: read, same text (exit $st)"
	rm -f "$TMP/big.dat"
fi
cp "$TMP/good.dat" "$TMP/big.dat" && truncate -s +8G "$TMP/big.dat"
timeout 60 "$TPCTL" report "$TMP/big.dat" > "$TMP/out" 2> "$TMP/err"
st=$?
[ $st = 1 ] && [ "$(wc -l < "$TMP/err")" = 1 ] &&
	grep -qx "tpctl: report: cannot read '$TMP/big.dat': truncated or corrupt trace.dat" "$TMP/err"
ok $? "a version 7 file with 8 GiB of zeros after it: refused at once (exit $st)"
rm -f "$TMP/big.dat"
done_testing
