#!/bin/bash
# --tracefs DIR on a fake tracefs tree of plain files: works without root and
# without a kernel, and the writes land in the fake tree only.
. "$(dirname "$0")/lib.sh"
plan 15

FAKE=$TMP/fake
cp -r "$TOP/tests/cli/fixtures/fake-tracefs" "$FAKE"
printf 'sched:sched_switch\nsched:sched_wakeup\nirq:irq_handler_entry\n' > "$FAKE/available_events"
for f in "$FAKE"/events/*/*/format; do
	d=$(dirname "$f"); echo 0 > "$d/enable"; echo none > "$d/filter"
done
echo 1 > "$FAKE/tracing_on"; : > "$FAKE/set_event"; mkdir -p "$FAKE/instances"
F() { "$TPCTL" --tracefs "$FAKE" "$@"; }

F list > "$TMP/actual"
test_cmp "list reads the fake available_events" "$FAKE/available_events" "$TMP/actual"

F list --json sched | jq -r '.events[].event' > "$TMP/actual"
printf 'sched_switch\nsched_wakeup\n' > "$TMP/expect"
test_cmp "list --json SYSTEM" "$TMP/expect" "$TMP/actual"

F format --json irq:irq_handler_entry | jq -r '.events[0].fields[-2:][] | .name' > "$TMP/actual"
printf 'irq\nname\n' > "$TMP/expect"
test_cmp "format parses the fake format file" "$TMP/expect" "$TMP/actual"

expect_status "enable in the fake tree" 0 F enable sched:sched_switch
printf 1 > "$TMP/expect"
test_cmp "the fake enable file was written" "$TMP/expect" "$FAKE/events/sched/sched_switch/enable"

expect_status "filter in the fake tree" 0 F filter sched:sched_wakeup 'pid == 1'
printf "pid == 1" > "$TMP/expect"
test_cmp "the fake filter file was written" "$TMP/expect" "$FAKE/events/sched/sched_wakeup/filter"

expect_status "an invalid filter is refused without a kernel" 2 F filter sched:sched_wakeup 'nope == 1'
test_cmp "and the fake filter file keeps its value" "$TMP/expect" "$FAKE/events/sched/sched_wakeup/filter"

# an orphan: the private instance of a tpctl that is gone (pid of a finished child)
sh -c 'exit 0' & dead=$!; wait $dead
mkdir "$FAKE/instances/tpctl-$dead" "$FAKE/instances/keepme"
mkdir "$FAKE/instances/tpctl-$$"
expect_status "reset in the fake tree" 0 F reset
[ ! -d "$FAKE/instances/tpctl-$dead" ] && [ -d "$FAKE/instances/keepme" ] && [ -d "$FAKE/instances/tpctl-$$" ]
ok $? "reset removes the orphaned tpctl-<pid> instance only"
grep -q "removed orphaned instance 'tpctl-$dead'" "$TMP/err"; ok $? "and says so"
printf 0 > "$TMP/expect"
test_cmp "reset disabled the event enabled above" "$TMP/expect" "$FAKE/events/sched/sched_switch/enable"

expect_status "--tracefs on a missing dir fails with status 1" 1 "$TPCTL" --tracefs /nonexistent list
grep -q "^tpctl: list: no tracefs at '/nonexistent'" "$TMP/err"
ok $? "and says so"
done_testing
