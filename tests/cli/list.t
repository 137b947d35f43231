#!/bin/bash
# tpctl list: the kernel's available_events is the oracle.
. "$(dirname "$0")/lib.sh"
need_tracefs
make_instance
plan 11

grep ':' "$TRACEFS/available_events" > "$TMP/expect"
"$TPCTL" list > "$TMP/actual"
test_cmp "list prints every line of available_events, in order" "$TMP/expect" "$TMP/actual"

[ "$(wc -l < "$TMP/actual")" -eq "$(wc -l < "$TRACEFS/available_events")" ]
ok $? "list count equals available_events ($(wc -l < "$TMP/actual"))"

# the instance's own list: the event directories it has that can be enabled
# (ftrace's internal events have a directory and a format but no enable file)
(cd "$IDIR/events" && for d in */*/; do
	d=${d%/}; [ -e "$d/enable" ] && echo "${d%%/*}:${d#*/}"; done) | sort > "$TMP/expect"
"$TPCTL" -i "$INST" list | sort > "$TMP/actual"
test_cmp "list -i names exactly the instance's event directories" "$TMP/expect" "$TMP/actual"

grep '^sched:' "$TRACEFS/available_events" > "$TMP/expect"
"$TPCTL" list sched > "$TMP/actual"
test_cmp "list SYSTEM" "$TMP/expect" "$TMP/actual"

grep -E '^sched:sched_wak' "$TRACEFS/available_events" > "$TMP/expect"
"$TPCTL" list 'sched:sched_wak*' > "$TMP/actual"
test_cmp "list with a glob" "$TMP/expect" "$TMP/actual"

"$TPCTL" list --json > "$TMP/json"
jq -r '.events[] | "\(.system):\(.event)"' "$TMP/json" > "$TMP/actual"
grep ':' "$TRACEFS/available_events" > "$TMP/expect"
test_cmp "list --json parses with jq and names every event" "$TMP/expect" "$TMP/actual"

# --fields: the field names of the format file, common ones excluded
sed -n 's/^\tfield:.* \([A-Za-z0-9_]*\)\(\[.*\]\)\?;\toffset.*/\1/p' \
	"$TRACEFS/events/sched/sched_switch/format" | grep -v '^common_' > "$TMP/expect"
"$TPCTL" list --json --fields sched:sched_switch | jq -r '.events[0].fields[].name' > "$TMP/actual"
test_cmp "list --fields names the format file's fields" "$TMP/expect" "$TMP/actual"

expect_status "list of an unknown event exits 2" 2 "$TPCTL" list no_such_sys:no_such_ev
grep -q "^tpctl: list: no such event 'no_such_sys:no_such_ev'" "$TMP/err"
ok $? "and names it"
"$TPCTL" list sched:sched_swich 2> "$TMP/err"
grep -qx "tpctl: list: no such event 'sched:sched_swich' (did you mean 'sched:sched_switch'?)" "$TMP/err"
ok $? "a near miss gets the closest real event suggested"
"$TPCTL" list nosuchthing 2> "$TMP/err"
grep -qx "tpctl: list: no such event 'nosuchthing'" "$TMP/err"
ok $? "a name close to nothing gets no suggestion"

done_testing
