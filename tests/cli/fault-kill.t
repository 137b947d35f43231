#!/bin/bash
# SIGKILL during `tpctl stream EVENT`: nothing can catch it, so its private
# instance tpctl-<pid> stays behind.  `tpctl status` notes the orphan (text,
# and "orphaned": true in JSON) and `tpctl reset` removes it and says so.
# reset also disables what is enabled at the top level, so it runs only when
# nothing is (otherwise other tracers' state would be touched): else skipped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs
plan 8

ORPH=
_kill_cleanup() {
	if [ -n "$ORPH" ] && [ -d "$TRACEFS/instances/$ORPH" ]; then
		echo 0 > "$TRACEFS/instances/$ORPH/events/enable" 2> /dev/null
		rmdir "$TRACEFS/instances/$ORPH" 2> /dev/null
	fi
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
done_testing
