#!/bin/bash
# tpctl stream EVENT... works in a private instance tpctl-<pid> and leaves nothing
# behind whichever way it ends: INT, TERM, HUP while streaming, the reader of
# stdout going away (| head -1), --count, --duration.  The top level is untouched.
# A storm of TERMs while record, stream and count put things back (uprobes,
# whose removal takes the kernel a grace period each) cuts no rollback short:
# no instance, no probe, no change is left.
. "$(dirname "$0")/lib.sh"
need_tracefs
plan 24

# the top level's own state (the instance list changes under concurrent tests)
top_state() {
	{
		cat "$TRACEFS/tracing_on" "$TRACEFS/set_event" "$TRACEFS/buffer_size_kb"
		grep -H . "$TRACEFS"/events/*/*/filter 2>/dev/null | grep -v ':none$'
	} | md5sum
}
top_before=$(top_state)
pids=

# wait_for COND: up to 10 s

for sig in INT TERM HUP; do
	"$TPCTL" stream sched:sched_switch sched:sched_wakeup > "$TMP/out.$sig" 2> "$TMP/err.$sig" &
	pid=$!
	pids="$pids $pid"
	wait_for "[ -d '$TRACEFS/instances/tpctl-$pid' ] && [ -s '$TMP/out.$sig' ]"
	ok $? "SIG$sig: tpctl-$pid exists and lines come while streaming"
	kill -$sig $pid
	wait $pid
	st=$?
	gone=1
	[ -d "$TRACEFS/instances/tpctl-$pid" ] || gone=0
	ok $([ $st = 0 ] && [ $gone = 0 ]; echo $?) \
		"SIG$sig: exits 0 (got $st) and the instance is gone"
	# every line written is whole: the last one ends with a newline
	ok $([ "$(tail -c1 "$TMP/out.$sig" | od -An -c | tr -d ' ')" = '\n' ]; echo $?) \
		"SIG$sig: output ends with a whole line"
done

mkfifo "$TMP/fifo"
"$TPCTL" stream sched:sched_switch > "$TMP/fifo" 2> "$TMP/err.pipe" &
pid=$!
pids="$pids $pid"
head -1 < "$TMP/fifo" > "$TMP/head"
wait $pid
st=$?
ok $([ -s "$TMP/head" ] && [ ! -d "$TRACEFS/instances/tpctl-$pid" ]; echo $?) \
	"| head -1: one line, then tpctl ends (exit $st) and tpctl-$pid is gone"
ok $([ ! -s "$TMP/err.pipe" ]; echo $?) "| head -1: nothing on stderr"

"$TPCTL" stream sched:sched_switch --count 5 > "$TMP/count" 2> "$TMP/err"
st=$?
ok $([ $st = 0 ] && [ "$(wc -l < "$TMP/count")" = 5 ]; echo $?) "--count 5: five lines, exit 0"

"$TPCTL" stream --json sched:sched_switch --duration 0.3 > "$TMP/dur" 2> "$TMP/err"
st=$?
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$TMP/dur" 2> /dev/null
ok $([ $st = 0 ] && [ $? = 0 ]; echo $?) "--duration 0.3 --json: exits 0, every line parses"

"$TPCTL" stream sched:sched_switch --cpu 0 --count 3 > "$TMP/cpu0" 2> "$TMP/err"
st=$?
ok $([ $st = 0 ] && [ "$(grep -c '\[000\]' "$TMP/cpu0")" = 3 ]; echo $?) \
	"--cpu 0: three lines, all from cpu 0"
expect_status "--cpu with a CPU that is not there is a usage error" 2 \
	"$TPCTL" stream sched:sched_switch --cpu 0-4096
expect_status "--filter without EVENT is a usage error" 2 "$TPCTL" stream --filter 'pid > 1'
expect_status "--buffer-kb without EVENT is a usage error" 2 "$TPCTL" stream --buffer-kb 64
expect_status "an unknown event is a usage error" 2 "$TPCTL" stream sched:no_such_event
grep -q "no_such_event" "$TMP/err"
ok $? "the error names the unknown event"
expect_status "an invalid filter is a usage error" 2 \
	"$TPCTL" stream sched:sched_switch --filter 'no_such_field == 1'
# ---- TERM, then TERM again every 5 ms until tpctl is gone (its cleanup in between)
P=$TMP/prog
if [ ! -w "$TRACEFS/uprobe_events" ] ||
	! ${CC:-cc} -O2 -g -o "$P" "$TOP/tests/cli/probe-prog.c" 2> "$TMP/cc.err"; then
	for c in record stream count; do skip "TERM storm during $c's cleanup: no uprobes or cc"; done
else
	mkfifo "$TMP/tick"
	# a read that never gets a line: a 5 ms wait without a process per wait
	exec 9<> "$TMP/tick"
	for c in "record -o $TMP/storm.dat" stream count; do
		before=$(state_digest)
		# the program runs until tpctl ends it (a call of work every 20 ms)
		$TPCTL $c sched:sched_switch --probe "u:$P:work arg1" --probe "ur:$P:work retval" \
			--probe "u:$P:main" -- "$P" 1000000 1 \
			> /dev/null 2> "$TMP/err.storm" &
		pid=$!
		pids="$pids $pid"
		wait_for "grep -q 1 '$TRACEFS/instances/tpctl-$pid/tracing_on' 2> /dev/null &&
			grep -q 'tpctl_$pid/' '$TRACEFS/dynamic_events'"
		sleep 0.3
		# (until it ends: a zombie still takes signals)
		n=0
		while read -r _ _ pst _ < "/proc/$pid/stat" && [ "$pst" != Z ] && [ $n -lt 4000 ]
		do
			kill -TERM $pid
			n=$((n + 1))
			read -r -t 0.005 -u 9
		done 2> /dev/null
		wait $pid
		st=$?
		probes=$(grep -c "tpctl_$pid/" "$TRACEFS/dynamic_events")
		# exit 0, or killed by a TERM that came once everything was put back
		ok $([ $st = 0 -o $st = 143 ] && [ "$probes" = 0 ] &&
			[ ! -d "$TRACEFS/instances/tpctl-$pid" ] && [ "$(state_digest)" = "$before" ]
			echo $?) "${c%% *}: $n TERMs during its cleanup leave nothing (exit $st, $probes probes left)"
		diag "$TMP/err.storm"
		for e in $(grep -o "tpctl_$pid/[^ ]*" "$TRACEFS/dynamic_events"); do
			echo "-:$e" >> "$TRACEFS/dynamic_events"
		done
	done
	exec 9<&-
fi

left=
for p in $pids; do [ -d "$TRACEFS/instances/tpctl-$p" ] && left="$left tpctl-$p"; done
ok $([ "$(top_state)" = "$top_before" ] && [ -z "$left" ]; echo $?) \
	"the top level is as before and no instance of these runs is left${left:+:$left}"
done_testing
