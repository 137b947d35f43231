#!/bin/bash
# Recordings with stacks read the same in tpctl report and trace-cmd report.
# tpctl record --stack --user-stack writes the stack records (and the symbols
# for them) into its file; trace-cmd record -T writes them into its own.  Both
# files, reported by both tools, must show the same records and frames once the
# documented layout differences are normalised (tests/cli/report-norm.py,
# tpctl-report(1)); report --json must carry each stack in its event, frame by
# frame what the text shows; and report EVENT keeps the stacks of EVENT.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "no python3"
TC=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
[ -x "$TC" ] || skip_all "no trace-cmd ($TC)"
NORM=$TOP/tests/cli/report-norm.py
ORACLE=$TOP/tests/cli/stack-oracle.py
plan 13

# Events that trace-cmd prints from their print fmt (no plugin of its own).
events="sched:sched_process_exec sched:sched_process_fork sched:sched_process_exit
task:task_newtask signal:signal_generate sched:sched_waking"
before=$(state_digest)
# shellcheck disable=SC2086
"$TPCTL" record -o "$TMP/tp.dat" --stack --user-stack $events -- \
	sh -c 'ls / > /dev/null; (sleep 0.01; true); kill -0 $$' > "$TMP/out" 2> "$TMP/err"
ok $? "record --stack --user-stack exits 0"
diag "$TMP/err"
after=$(state_digest)
ok $([ "$before" = "$after" ]; echo $?) "record left nothing behind"

(cd "$TMP" && "$TC" report tp.dat > tc.txt 2> tc.err)
ok $? "trace-cmd report reads tpctl's file"
"$TPCTL" report "$TMP/tp.dat" > "$TMP/tp.txt" 2> "$TMP/err"
ok $? "tpctl report reads it"
python3 "$NORM" < "$TMP/tc.txt" > "$TMP/tc.n"
python3 "$NORM" < "$TMP/tp.txt" > "$TMP/tp.n"
awk '/: <stack trace>$/ { k++; n = 0; s = 1; next } /: <user stack trace>$/ { u++; s = 0; next }
     /^ => / { if (s && ++n > max) max = n; next } { s = 0 }
     END { print k + 0, u + 0, max + 0 }' "$TMP/tp.txt" > "$TMP/counts"
read -r nk nu maxf < "$TMP/counts"
ok $([ "$nk" -ge 5 ] && [ "$nu" -ge 5 ] && [ "$maxf" -gt 8 ]; echo $?) \
	"the file has $nk kernel stacks (longest $maxf frames) and $nu user stacks"
cmp_tracecmd "same records and frames as trace-cmd report ($(wc -l < "$TMP/tp.n") lines)" \
	"$TMP/tc.n" "$TMP/tp.n"

"$TPCTL" report --json "$TMP/tp.dat" > "$TMP/tp.json" 2> "$TMP/err"
ok $? "tpctl report --json reads it"
python3 "$ORACLE" --min-stacks 10 "$TMP/tp.txt" "$TMP/tp.json" > "$TMP/py" 2>&1
st=$?
ok $st "every stack is in the JSON of its event, frame by frame the text's ($(head -1 "$TMP/py"))"
[ $st = 0 ] || diag "$TMP/py"

# EVENT: the exec records and their stacks, nothing else.
"$TPCTL" report "$TMP/tp.dat" sched:sched_process_exec > "$TMP/sel.txt" 2> "$TMP/err"
ok $? "tpctl report FILE sched:sched_process_exec"
python3 - "$TMP/tp.txt" > "$TMP/sel.want" <<'PY'
import re, sys
# a stack record goes with the record before it on its CPU
shown, keep = {}, False
for line in open(sys.argv[1]):
    if not line.startswith(" => "):
        cpu = re.search(r"\[(\d+)\]", line).group(1)
        body = re.sub(r"^.*?\d: ", "", line)
        if not body.startswith("<"):
            shown[cpu] = body.startswith("sched_process_exec: ")
        keep = shown.get(cpu, False)
    if keep:
        sys.stdout.write(line)
PY
test_cmp "the selected events keep their stacks ($(grep -c 'stack trace>' "$TMP/sel.txt") stacks)" \
	"$TMP/sel.want" "$TMP/sel.txt"

# trace-cmd's own recording with stacks (-T), in an instance buffer (-B).
B=tpt-record-stacks-$$
cleanup_b() {
	if [ -d "$TRACEFS/instances/$B" ]; then
		echo 0 > "$TRACEFS/instances/$B/events/enable" 2>/dev/null
		echo 0 > "$TRACEFS/instances/$B/options/stacktrace" 2>/dev/null
		rmdir "$TRACEFS/instances/$B" 2>/dev/null
	fi
	_cleanup
}
trap cleanup_b EXIT
# shellcheck disable=SC2046
(cd "$TMP" && "$TC" record --no-filter -B "$B" -T $(printf -- '-e %s ' $events) -o tc.dat \
	sh -c 'ls / > /dev/null; sleep 0.05' > tc.log 2>&1)
if [ -d "$TRACEFS/instances/$B" ]; then
	echo 0 > "$TRACEFS/instances/$B/events/enable"
	echo 0 > "$TRACEFS/instances/$B/options/stacktrace"
	rmdir "$TRACEFS/instances/$B"
fi
(cd "$TMP" && "$TC" report tc.dat > tc2.txt 2> tc.err)
ok $? "trace-cmd report reads its own recording with -T"
"$TPCTL" report "$TMP/tc.dat" > "$TMP/tp2.txt" 2> "$TMP/err" &&
	[ "$(grep -c ': <stack trace>$' "$TMP/tp2.txt")" -ge 3 ]
ok $? "tpctl report reads it, with stacks"
diag "$TMP/err"
python3 "$NORM" --strip-instance < "$TMP/tc2.txt" > "$TMP/tc2.n"
python3 "$NORM" < "$TMP/tp2.txt" > "$TMP/tp2.n"
cmp_tracecmd "same records and frames as trace-cmd report ($(grep -c '<stack trace>' "$TMP/tp2.n") stacks)" \
	"$TMP/tc2.n" "$TMP/tp2.n"
done_testing
