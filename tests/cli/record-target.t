#!/bin/bash
# tpctl record TARGET: the trace.dat holds only the workload's events, and
# trace-cmd report (the oracle) reads exactly those: per pid, the known
# numbers of getpid(2) calls of tgen (tests/cli/tgen.c) and its child, none of
# an unrelated process doing the same all along.  -a records every process
# while COMMAND runs; --pid a running one.  INT, TERM, HUP: exit 0, a
# complete file, the command ended, nothing left in tracefs.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v jq > /dev/null || skip_all "no jq"
TC=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
[ -x "$TC" ] || skip_all "no trace-cmd ($TC)"
[ -e "$TRACEFS/events/syscalls/sys_enter_getpid" ] || skip_all "no syscalls:sys_enter_getpid"
need_tgen

top_state() { top_pid_lists | md5sum; }
top_before=$(top_state)
runs=

WAIT_TRIES=600

# tc_counts FILE: "PID COUNT" of the getpid events trace-cmd report reads from FILE
tc_counts() {
	(cd "$(dirname "$1")" && "$TC" report -N "$(basename "$1")" 2> "$1.tcerr") |
		sed -n 's/^ *.*-\([0-9][0-9]*\) *\[[0-9]*\] .* sys_enter_getpid:.*/\1/p' |
		sort -n | uniq -c | awk '{print $2, $1}'
}
# tp_counts FILE: the same from tpctl report --json
tp_counts() {
	"$TPCTL" report --json "$1" | jq -r 'select(.type == "event") | .pid' |
		sort -n | uniq -c | awk '{print $2, $1}'
}
expect() {
	local f=$1
	shift
	grep -o '^pid [0-9]*' "$f" | awk '{print $2}' | paste -d' ' - <(printf '%s\n' "$@") |
		awk '{n[$1] += $2} END {for (p in n) print p, n[p]}' | sort -n
}

"$G" -l &
other=$!
trap 'kill $other 2> /dev/null; _cleanup' EXIT

# ---- -- COMMAND ----------------------------------------------------------------

"$TPCTL" record -o "$TMP/cmd.dat" $EV -- "$G" -o 300 -- "$G" -o 200 -- "$G" -o -e 50 -- "$G" -o 40 \
	> "$TMP/cmd.out" 2> "$TMP/cmd.err" &
tp=$!
runs="$runs $tp"
wait $tp
ok $? "-- COMMAND: exit 0"
diag "$TMP/cmd.err"
grep -c '^pid [0-9]*$' "$TMP/cmd.out" | grep -qx 4
ok $? "-- COMMAND: its standard output is record's (record prints no data there)"
expect "$TMP/cmd.out" 300 200 50 40 > "$TMP/want"
tc_counts "$TMP/cmd.dat" > "$TMP/got"
test_cmp "-- COMMAND: trace-cmd report reads exactly the events of the command, child and grandchild (an exec chain)" \
	"$TMP/want" "$TMP/got"
ok $([ ! -s "$TMP/cmd.dat.tcerr" ]; echo $?) "-- COMMAND: trace-cmd report says nothing on stderr"
diag "$TMP/cmd.dat.tcerr"
tp_counts "$TMP/cmd.dat" > "$TMP/got.tp"
test_cmp "-- COMMAND: tpctl report agrees" "$TMP/want" "$TMP/got.tp"

"$TPCTL" record -o "$TMP/st.dat" $EV -- sh -c 'exit 4' > /dev/null 2> "$TMP/st.err"
st=$?
[ $st = 4 ] && grep -qx "tpctl: record: 'sh' exited with status 4" "$TMP/st.err"
ok $? "a command exiting with 4: record exits 4 too (got $st), the note says 4"

# ---- -a ----------------------------------------------------------------------

mkfifo "$TMP/fifo.a"
exec 3<> "$TMP/fifo.a"
"$G" -w -o 77 < "$TMP/fifo.a" > "$TMP/a.pid" &
apid=$!
"$TPCTL" record -o "$TMP/all.dat" --buffer-kb 8192 -a $EV -- \
	sh -c "echo go > '$TMP/fifo.a'; while kill -0 $apid 2> /dev/null; do sleep 0.02; done" \
	> /dev/null 2> "$TMP/all.err" &
tp=$!
runs="$runs $tp"
wait $tp
ok $? "-a: exit 0"
wait $apid 2> /dev/null
exec 3>&-
tc_counts "$TMP/all.dat" > "$TMP/got"
[ "$(awk -v p=$apid '$1 == p {print $2}' "$TMP/got")" = 77 ] &&
	[ "$(awk -v p=$other '$1 == p {print $2}' "$TMP/got")" -gt 0 ] &&
	! grep -q "^$tp " "$TMP/got"
ok $? "-a: every process (all 77 of one outside the command, the unrelated one's), not tpctl"

# ---- --pid -------------------------------------------------------------------

mkfifo "$TMP/fifo"
exec 3<> "$TMP/fifo"
"$G" -w -o 250 -- "$G" -o 30 < "$TMP/fifo" > "$TMP/p.pids" &
gp=$!
"$TPCTL" record -o "$TMP/pid.dat" $EV -p $gp > /dev/null 2> "$TMP/pid.err" &
tp=$!
runs="$runs $tp"
wait_for "grep -q 1 '$TRACEFS/instances/tpctl-$tp/tracing_on' 2> /dev/null &&
	grep -q 1 '$TRACEFS/instances/tpctl-$tp/events/syscalls/sys_enter_getpid/enable' 2> /dev/null"
echo go >&3
exec 3>&-
wait $gp
wait_for "! kill -0 $tp 2> /dev/null"
ok $? "--pid: record ends by itself when the process is gone"
kill $tp 2> /dev/null
wait $tp
ok $? "--pid: exit 0"
echo "$gp 250" > "$TMP/want"
tc_counts "$TMP/pid.dat" > "$TMP/got"
test_cmp "--pid: the file holds the process's 250 events, not its child's" "$TMP/want" "$TMP/got"

# ---- signals -----------------------------------------------------------------

for sig in INT TERM HUP; do
	"$TPCTL" record -o "$TMP/$sig.dat" $EV -- "$G" -o -e 20 -- sleep 60 \
		> "$TMP/$sig.out" 2> "$TMP/$sig.err" &
	tp=$!
	runs="$runs $tp"
	wait_for "[ \"\$(ps -o comm= --ppid $tp)\" = sleep ]"
	c=$(ps -o pid= --ppid $tp)
	kill -$sig $tp
	wait $tp
	st=$?
	gone=0
	[ -d "$TRACEFS/instances/tpctl-$tp" ] && gone=1
	kill -0 $c 2> /dev/null && gone=1
	ok $([ $st = 0 ] && [ $gone = 0 ]; echo $?) \
		"SIG$sig: exit 0 (got $st), the instance and the command are gone"
	expect "$TMP/$sig.out" 20 > "$TMP/want"
	tc_counts "$TMP/$sig.dat" > "$TMP/got"
	test_cmp "SIG$sig: the file is complete: the command's 20 events" "$TMP/want" "$TMP/got"
done

expect_status "a command that does not exist: exit 2" 2 \
	"$TPCTL" record -o "$TMP/x.dat" $EV -- no-such-command-tpctl
[ ! -e "$TMP/x.dat" ]
ok $? "... and no file is created"

kill $other
wait $other 2> /dev/null
left=
for p in $runs; do [ -d "$TRACEFS/instances/tpctl-$p" ] && left="$left tpctl-$p"; done
[ -z "$left" ] && [ "$(top_state)" = "$top_before" ]
ok $? "no instance left${left:+:$left}; the top level's pid lists and options are as before"
plan $_n
done_testing
