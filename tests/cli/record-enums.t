#!/bin/bash
# tpctl record writes formats whose enum constants carry the running kernel's
# values (from BTF): `trace-cmd report` of the file prints hrtimer_setup's
# mode by name, which it cannot from the kernel's own format (HRTIMER_MODE_*
# left as names), as a recording made without BTF shows.  The kernel's text of
# a twin instance is the oracle for the names.
. "$(dirname "$0")/lib.sh"
need_tracefs
TC=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
[ -x "$TC" ] || skip_all "no trace-cmd ($TC)"
[ -r /sys/kernel/btf/vmlinux ] || skip_all "no BTF at /sys/kernel/btf/vmlinux"
fmt=$TRACEFS/events/timer/hrtimer_setup/format
[ -r "$fmt" ] || skip_all "no timer:hrtimer_setup event"
plan 9

grep -q 'HRTIMER_MODE_ABS' "$fmt"
ok $? "the kernel's format leaves HRTIMER_MODE_* as names"

make_instance
echo 0 > "$IDIR/tracing_on"
echo 1 > "$IDIR/events/timer/hrtimer_setup/enable"
echo 1 > "$IDIR/tracing_on"
"$TPCTL" record -o "$TMP/rec.dat" timer:hrtimer_setup -- sh -c 'sleep 0.02; sleep 0.02' \
	> "$TMP/out" 2> "$TMP/err"
st=$?
TPCTL_BTF=/nonexistent "$TPCTL" record -o "$TMP/nobtf.dat" timer:hrtimer_setup -- sleep 0.02 \
	> "$TMP/out2" 2> "$TMP/err2"
st2=$?
echo 0 > "$IDIR/tracing_on"
# nothing on stderr but record's one summary line
[ $st = 0 ] && ! grep -qv "^tpctl: record: wrote '" "$TMP/err"
ok $? "record exits 0, nothing on stderr but its summary"
diag "$TMP/err"
[ $st2 = 0 ] && ! grep -qv "^tpctl: record: wrote '" "$TMP/err2"
ok $? "without BTF too (TPCTL_BTF names no file): quietly"
diag "$TMP/err2"

# "comm-pid [cpu] ts: hrtimer_setup: hrtimer=... clockid=C mode=M" -> "comm C M"
modes() { sed -n 's/^ *\([^ ]*\)-[0-9]* .*hrtimer_setup: .* clockid=\([A-Z_]*\) mode=\([^ ]*\).*/\1 \2 \3/p'; }
(cd "$TMP" && "$TC" report rec.dat > tc.raw 2> tc.err)
ok $? "trace-cmd report reads the file"
"$TPCTL" report "$TMP/rec.dat" > "$TMP/tp.names" 2> /dev/null
tracecmd_named "$TMP/tp.names" < "$TMP/tc.raw" > "$TMP/tc.txt"
diag "$TMP/tc.err"
modes < "$TMP/tc.txt" | grep '^sleep ' | sort > "$TMP/tc.modes"
[ -s "$TMP/tc.modes" ] && ! grep -q ' 0x' "$TMP/tc.modes" && grep -qE ' (ABS|REL)' "$TMP/tc.modes"
ok $? "trace-cmd report prints the modes of the file by name ($(sort -u "$TMP/tc.modes" | tr '\n' ';'))"
# the kernel's instance saw both recordings' sleeps (and any other task's
# timers): the same timers are those of the file's sleep tasks, by pid
# "comm-pid [cpu] ...: hrtimer_setup: ... clockid=C mode=M" -> "comm-pid C M"
pmodes() { sed -n 's/^ *\([^ ]*-[0-9]*\) .*hrtimer_setup: .* clockid=\([A-Z_]*\) mode=\([^ ]*\).*/\1 \2 \3/p'; }
pmodes < "$TMP/tc.txt" | grep '^sleep-' | sort > "$TMP/tc.pmodes"
grep -av '^#' "$IDIR/trace" | pmodes | sort > "$TMP/kernel.all"
cut -d' ' -f1 "$TMP/tc.pmodes" | sort -u | sed 's/$/ /' > "$TMP/tc.pids"
grep -F -f "$TMP/tc.pids" "$TMP/kernel.all" | sort > "$TMP/kernel.modes"
[ -s "$TMP/tc.pmodes" ] && cmp -s "$TMP/tc.pmodes" "$TMP/kernel.modes"
st=$?
ok $st "... the names the kernel prints for the same timers"
[ $st = 0 ] || diag "$TMP/tc.pmodes" "$TMP/kernel.modes"

(cd "$TMP" && "$TC" report nobtf.dat > tc2.raw 2> /dev/null)
"$TPCTL" report "$TMP/nobtf.dat" > "$TMP/tp2.names" 2> /dev/null
tracecmd_named "$TMP/tp2.names" < "$TMP/tc2.raw" > "$TMP/tc2.txt"
modes < "$TMP/tc2.txt" | grep '^sleep ' > "$TMP/tc2.modes"
[ -s "$TMP/tc2.modes" ] && ! grep -qE ' (ABS|REL)' "$TMP/tc2.modes"
ok $? "from the kernel's own format it cannot ($(sort -u "$TMP/tc2.modes" | tr '\n' ';'))"

"$TPCTL" report "$TMP/rec.dat" 2> "$TMP/err" | modes | grep '^sleep ' | sort > "$TMP/tp.modes"
test_cmp "tpctl report of the file prints the same modes" "$TMP/tc.modes" "$TMP/tp.modes"
# report never takes names from the machine it runs on: the file may come from another kernel
"$TPCTL" report "$TMP/nobtf.dat" 2> /dev/null | modes | grep '^sleep ' | sort > "$TMP/tp2.modes"
[ -s "$TMP/tp2.modes" ] && ! grep -qE ' (ABS|REL)' "$TMP/tp2.modes"
ok $? "tpctl report of a file without the values does not take them from this machine's BTF"
done_testing
