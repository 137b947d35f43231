#!/bin/bash
# tpctl enable / disable: read back from the instance's enable files.
. "$(dirname "$0")/lib.sh"
need_tracefs
make_instance
plan 14
T() { "$TPCTL" -i "$INST" "$@"; }
E=$IDIR/events

expect_status "enable two events" 0 T enable sched:sched_switch irq:irq_handler_entry
printf '1\n1\n' > "$TMP/expect"
cat "$E/sched/sched_switch/enable" "$E/irq/irq_handler_entry/enable" > "$TMP/actual"
test_cmp "their enable files read 1" "$TMP/expect" "$TMP/actual"
printf 'irq:irq_handler_entry\nsched:sched_switch\n' > "$TMP/expect"
sort "$IDIR/set_event" > "$TMP/actual"
test_cmp "set_event lists exactly those" "$TMP/expect" "$TMP/actual"
[ -z "$(cat "$TRACEFS/set_event")" ]
ok $? "nothing enabled at the top level"

expect_status "disable one" 0 T disable sched:sched_switch
echo 0 > "$TMP/expect"; cat "$E/sched/sched_switch/enable" > "$TMP/actual"
test_cmp "its enable file reads 0" "$TMP/expect" "$TMP/actual"

expect_status "enable a glob" 0 T enable 'sched:sched_wak*'
grep '^sched:sched_wak' "$TRACEFS/available_events" | sort > "$TMP/expect"
grep '^sched:' "$IDIR/set_event" | sort > "$TMP/actual"
test_cmp "every matching event and nothing else is enabled" "$TMP/expect" "$TMP/actual"

expect_status "disable --all" 0 T disable --all
: > "$TMP/expect"; cat "$IDIR/set_event" > "$TMP/actual"
test_cmp "set_event is empty after disable --all" "$TMP/expect" "$TMP/actual"

expect_status "enable with --filter" 0 T enable sched:sched_switch --filter 'prev_pid > 1'
printf '1\nprev_pid > 1\n' > "$TMP/expect"
cat "$E/sched/sched_switch/enable" "$E/sched/sched_switch/filter" > "$TMP/actual"
test_cmp "enable and filter files read back" "$TMP/expect" "$TMP/actual"

# the second event cannot take that filter: nothing at all may change
before=$(state_digest "$IDIR")
expect_status "enable with a filter one event cannot take fails" 2 \
	T enable sched:sched_waking sched:sched_wakeup --filter 'prev_pid > 1'
[ "$before" = "$(state_digest "$IDIR")" ]
ok $? "and leaves every enable and filter file as it was"
done_testing
