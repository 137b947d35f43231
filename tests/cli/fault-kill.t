#!/bin/bash
# SIGKILL during `tpctl stream EVENT`: nothing can catch it, so its private
# instance tpctl-<pid> stays behind.  `tpctl status` notes the orphan (text,
# and "orphaned": true in JSON) and `tpctl reset` removes it and says so.
# reset also disables what is enabled at the top level, so it runs only when
# nothing is (otherwise other tracers' state would be touched): else skipped.
# SIGKILL during `tpctl record` at full speed, for both file versions: the
# file is read by tpctl and trace-cmd with the same events, up to the last
# page (version 6) or chunk (version 7) committed before the kill.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs
plan 14

ORPH=
_kill_cleanup() {
	local o
	for o in $ORPH $REC_ORPH; do
		if [ -d "$TRACEFS/instances/$o" ]; then
			echo 0 > "$TRACEFS/instances/$o/events/enable" 2> /dev/null
			rmdir "$TRACEFS/instances/$o" 2> /dev/null
		fi
	done
	_cleanup
}
trap _kill_cleanup EXIT

before=$(top_digest)
"$TPCTL" stream sched:sched_switch > /dev/null 2>&1 &
sp=$!
ORPH=tpctl-$sp
for _ in $(seq 600); do
	[ "$(cat "$TRACEFS/instances/$ORPH/events/sched/sched_switch/enable" 2> /dev/null)" = 1 ] &&
		break
	sleep 0.05
done
kill -KILL $sp
wait $sp 2> /dev/null
[ -d "$TRACEFS/instances/$ORPH" ]; ok $? "after SIGKILL the private instance $ORPH is left"
[ "$before" = "$(top_digest)" ]; ok $? "the top level was not touched"

"$TPCTL" status > "$TMP/out" 2> "$TMP/err"
st=$?
[ $st = 0 ] && grep -q "orphaned instance '$ORPH'" "$TMP/err"
ok $? "status: exit 0 ($st) and a note on stderr naming $ORPH"
grep -q "^ *$ORPH .*orphaned" "$TMP/out"; ok $? "status lists it as orphaned"
"$TPCTL" status --json 2> /dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
def walk(o):
    if isinstance(o, dict):
        if o.get("name") == sys.argv[1] and o.get("orphaned") is True:
            return True
        return any(walk(v) for v in o.values())
    if isinstance(o, list):
        return any(walk(v) for v in o)
    return False
sys.exit(0 if walk(d) else 1)' "$ORPH"
ok $? "status --json marks it \"orphaned\": true"

if [ -z "$(cat "$TRACEFS/set_event")" ]; then
	"$TPCTL" reset > "$TMP/out" 2> "$TMP/err"
	st=$?
	[ $st = 0 ] && [ ! -e "$TRACEFS/instances/$ORPH" ]
	ok $? "reset: exit 0 ($st) and $ORPH is gone"
	grep -q "removed orphaned instance '$ORPH'" "$TMP/err"; ok $? "and says so"
	[ "$before" = "$(top_digest)" ]; ok $? "and changed nothing else at the top level"
else
	skip "events are enabled at the top level: reset would disable them"
	skip "events are enabled at the top level: reset would disable them"
	skip "events are enabled at the top level: reset would disable them"
fi

TC=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
for v in 6 7; do
	if [ ! -x "$TC" ] || ! start_gen 20000000; then
		skip "no trace-cmd or no event generator"
		skip "no trace-cmd or no event generator"
		skip "no trace-cmd or no event generator"
		continue
	fi
	"$TPCTL" record --file-version $v -o "$TMP/rec$v.dat" --buffer-kb 1024 \
		--filter "common_pid == $gpid" syscalls:sys_enter_getpid > /dev/null 2>&1 &
	rp=$!
	REC_ORPH=tpctl-$rp
	# tracing_on is switched on once the event is enabled: wait for both
	for _ in $(seq 600); do
		[ "$(cat "$TRACEFS/instances/$REC_ORPH/events/syscalls/sys_enter_getpid/enable" \
			"$TRACEFS/instances/$REC_ORPH/tracing_on" 2> /dev/null)" = "1
1" ] && break
		sleep 0.05
	done
	echo go >&"${GEN[1]}"
	# until data have reached the file, while the generator still runs
	for _ in $(seq 200); do
		[ "$(stat -c %b "$TMP/rec$v.dat" 2> /dev/null || echo 0)" -gt 200 ] && break
		sleep 0.02
	done
	sleep 0.1
	kill -KILL $rp
	kill -0 "$GEN_PID" 2> /dev/null
	ok $? "version $v: record killed while the generator still runs"
	kill "$GEN_PID" 2> /dev/null
	wait "$GEN_PID" $rp 2> /dev/null
	echo 0 > "$TRACEFS/instances/$REC_ORPH/events/enable"
	rmdir "$TRACEFS/instances/$REC_ORPH"
	n=$("$TPCTL" report "$TMP/rec$v.dat" 2> "$TMP/err" | grep -c ': sys_getpid()$')
	[ "$n" -gt 0 ] && [ ! -s "$TMP/err" ]
	ok $? "version $v: tpctl report reads the killed recording ($n events)"
	diag "$TMP/err"
	m=$( (cd "$TMP" && "$TC" report "rec$v.dat" 2> /dev/null) | grep -c ' sys_enter_getpid: ')
	[ "$n" = "$m" ]
	ok $? "version $v: trace-cmd report reads the same events ($m)"
done
done_testing
