#!/bin/bash
# The other way round: a file written by `trace-cmd record` (version 7,
# compressed, its data in an instance buffer with -B) is reported by tpctl
# with the same events and text as `trace-cmd report` shows.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "no python3"
TC=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
[ -x "$TC" ] || skip_all "no trace-cmd ($TC)"
NORM=$TOP/tests/cli/report-norm.py
plan 6

# trace-cmd creates the instance named by -B; it is ours to remove (trace-cmd
# may leave it behind when it cannot reset set_ftrace_filter on this host).
B=tpt-report-tracecmd-$$
cleanup_b() {
	if [ -d "$TRACEFS/instances/$B" ]; then
		echo 0 > "$TRACEFS/instances/$B/events/enable" 2>/dev/null
		rmdir "$TRACEFS/instances/$B" 2>/dev/null
	fi
	_cleanup
}
trap cleanup_b EXIT

(cd "$TMP" && "$TC" record --no-filter -B "$B" -e sched:sched_switch -e sched:sched_wakeup \
	-e sched:sched_process_exec -e sched:sched_process_exit -e irq:softirq_entry \
	-o tc.dat sh -c 'ls / > /dev/null; sleep 0.05' > tc.log 2>&1)
# trace-cmd may exit 1 after writing a good file (EPERM on set_ftrace_filter)
ok $([ -s "$TMP/tc.dat" ]; echo $?) "trace-cmd record wrote a file"
diag "$TMP/tc.log"

(cd "$TMP" && "$TC" report -N tc.dat > tc.txt 2> tc.err)
ok $? "trace-cmd report reads it"
"$TPCTL" report "$TMP/tc.dat" > "$TMP/tp.txt" 2> "$TMP/tp.err"
ok $? "tpctl report reads it"
diag "$TMP/tp.err"
python3 "$NORM" --strip-instance < "$TMP/tc.txt" > "$TMP/tc.n"
python3 "$NORM" < "$TMP/tp.txt" > "$TMP/tp.n"
ok $([ "$(wc -l < "$TMP/tp.n")" -gt 0 ]; echo $?) "the file has events ($(wc -l < "$TMP/tp.n"))"
test_cmp "same events and text as trace-cmd report" "$TMP/tc.n" "$TMP/tp.n"

"$TPCTL" report --json "$TMP/tc.dat" | jq -c . > /dev/null 2>&1 &&
	[ "$("$TPCTL" report --json "$TMP/tc.dat" | wc -l)" = "$(wc -l < "$TMP/tp.txt")" ]
ok $? "report --json parses, one line per event"
done_testing
