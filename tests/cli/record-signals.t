#!/bin/bash
# tpctl record ends cleanly whichever way it ends (INT, TERM, HUP, --duration,
# the command exiting), removing its private instance and leaving a complete
# file; after SIGKILL the file (version 6 and 7) is still readable up to the
# last page or chunk it committed.  Usage errors exit 2 and change nothing.
. "$(dirname "$0")/lib.sh"
need_tracefs
TC=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
[ -x "$TC" ] || skip_all "no trace-cmd ($TC)"
plan 24

# the top level's own state (the instance list changes with other users' work)
top_digest() {
	{
		cat "$TRACEFS/tracing_on" "$TRACEFS/set_event"
		grep -H . "$TRACEFS"/events/*/*/filter 2> /dev/null | grep -v ':none$'
	} | md5sum
}
top_before=$(top_digest)


# readable FILE: both readers accept it and it holds events
readable() {
	(cd "$(dirname "$1")" && "$TC" report -N "$(basename "$1")" > "$1.tc" 2> "$1.tcerr") &&
		"$TPCTL" report "$1" > "$1.tp" 2> "$1.tperr" &&
		[ "$(grep -c 'sched_switch' "$1.tp")" -gt 0 ] &&
		[ "$(grep -c 'sched_switch' "$1.tc")" = "$(grep -c 'sched_switch' "$1.tp")" ]
}

for sig in INT TERM HUP; do
	"$TPCTL" record -o "$TMP/$sig.dat" sched:sched_switch > /dev/null 2> "$TMP/err.$sig" &
	pid=$!
	# a new instance starts with tracing_on 1: the event's enable says record is set up
	wait_for "grep -q 1 '$TRACEFS/instances/tpctl-$pid/events/sched/sched_switch/enable' 2>/dev/null && grep -q 1 '$TRACEFS/instances/tpctl-$pid/tracing_on' 2>/dev/null"
	ok $? "SIG$sig: tpctl-$pid exists and traces"
	sleep 0.3
	kill -$sig $pid
	wait $pid
	st=$?
	ok $([ $st = 0 ] && [ ! -d "$TRACEFS/instances/tpctl-$pid" ]; echo $?) \
		"SIG$sig: exits 0 (got $st) and the instance is gone"
	readable "$TMP/$sig.dat"
	ok $? "SIG$sig: the file is complete for trace-cmd and tpctl"
done

"$TPCTL" record -o "$TMP/dur.dat" --duration 0.3 sched:sched_switch 2> "$TMP/err"
ok $? "--duration 0.3 exits 0"
readable "$TMP/dur.dat"
ok $? "--duration: the file is complete"

# SIGKILL: nothing runs at the end; the committed pages (version 6) or
# chunks (version 7, committed at least every second) must still be there.
for v in 6 7; do
	"$TPCTL" record --file-version $v -o "$TMP/kill$v.dat" --buffer-kb 64 sched:sched_switch \
		sched:sched_wakeup -- sh -c 'while :; do sleep 0.001; done' > /dev/null 2>&1 &
	pid=$!
	wait_for "[ -d '$TRACEFS/instances/tpctl-$pid' ]"
	# until data have reached the file (however slow tpctl runs, e.g. under valgrind)
	wait_for "'$TOP/tpctl' report '$TMP/kill$v.dat' 2> /dev/null | grep -q sched_switch"
	sleep 0.2
	children=$(ps -o pid= --ppid $pid)
	kill -KILL $pid
	wait $pid 2> /dev/null
	# the command and the instance a killed tpctl leaves behind are this test's to end
	for c in $children; do kill -KILL "$c" 2> /dev/null; done
	if [ -d "$TRACEFS/instances/tpctl-$pid" ]; then
		echo 0 > "$TRACEFS/instances/tpctl-$pid/events/enable"
		rmdir "$TRACEFS/instances/tpctl-$pid"
	fi
	[ "$(head -c 12 "$TMP/kill$v.dat" | tail -c 2 | od -An -c | tr -d ' ')" = "$v\\0" ] &&
		readable "$TMP/kill$v.dat"
	ok $? "SIGKILL, version $v: trace-cmd and tpctl read the file with the same events ($(grep -c sched_switch "$TMP/kill$v.dat.tp" 2>/dev/null))"
	diag "$TMP/kill$v.dat.tcerr"
	diag "$TMP/kill$v.dat.tperr"
done

# a writer and a reader of a pipe on one CPU switch to each other, idle machine
# or not (a lone sleep switches only to and from the idle task, pid 0)
"$TPCTL" record -o "$TMP/filt.dat" --filter 'prev_pid > 0 && next_pid > 0' sched:sched_switch \
	-- taskset -c 0 sh -c 'dd if=/dev/zero bs=64k count=400 2> /dev/null | cat > /dev/null' \
	2> "$TMP/err"
ok $? "--filter: exits 0"
"$TPCTL" report "$TMP/filt.dat" > "$TMP/filt.txt"
ok $([ -s "$TMP/filt.txt" ] && ! grep -q 'prev_pid=0 \|next_pid=0 ' "$TMP/filt.txt"; echo $?) \
	"--filter: only matching events are in the file"

# no -o: trace.dat in the current directory, as trace-cmd record
(cd "$TMP" && "$TPCTL" record --duration 0.1 sched:sched_switch > /dev/null 2>&1)
ok "$([ $? = 0 ] && [ -s "$TMP/trace.dat" ]; echo $?)" "no -o: trace.dat in the current directory"
expect_status "no event: usage error" 2 "$TPCTL" record -o "$TMP/x.dat"
expect_status "unknown event: usage error" 2 "$TPCTL" record -o "$TMP/x.dat" sched:no_such_event
grep -q "no_such_event" "$TMP/err"
ok $? "the error names the unknown event"
expect_status "bad --duration: usage error" 2 "$TPCTL" record -o "$TMP/x.dat" -d soon sched:sched_switch
expect_status "invalid filter: usage error" 2 \
	"$TPCTL" record -o "$TMP/x.dat" --filter 'no_field > 1' sched:sched_switch
expect_status "a command that does not exist: usage error" 2 \
	"$TPCTL" record -o "$TMP/x.dat" sched:sched_switch -- /nonexistent/cmd
[ "$(wc -l < "$TMP/err")" = 1 ] && grep -q "^tpctl: record: no such command '/nonexistent/cmd'" "$TMP/err"
ok $? "... with one error line naming it"

ok $([ "$(top_digest)" = "$top_before" ]; echo $?) "the top level is as it was"
done_testing
