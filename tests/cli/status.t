#!/bin/bash
# tpctl status and reset against the instance's own files.
. "$(dirname "$0")/lib.sh"
need_tracefs
make_instance
plan 9
T() { "$TPCTL" -i "$INST" "$@"; }

T enable sched:sched_switch --filter 'prev_pid > 0' && T enable irq:irq_handler_entry
T status --json > "$TMP/json"
ok $? "status --json succeeds"
jq -r '.events[] | "\(.system):\(.event)"' "$TMP/json" | sort > "$TMP/actual"
sort "$IDIR/set_event" > "$TMP/expect"
test_cmp "status lists what set_event lists" "$TMP/expect" "$TMP/actual"
jq -r '.events[] | select(.event == "sched_switch") | .filter' "$TMP/json" > "$TMP/actual"
cat "$IDIR/events/sched/sched_switch/filter" > "$TMP/expect"
test_cmp "status shows the filter file's filter" "$TMP/expect" "$TMP/actual"
[ "$(jq -r '.tracing_on' "$TMP/json")" = "$([ "$(cat "$IDIR/tracing_on")" = 1 ] && echo true || echo false)" ]
ok $? "tracing_on matches the file"
ls -d "$IDIR"/per_cpu/cpu* | wc -l > "$TMP/expect"
jq '.cpus | length' "$TMP/json" > "$TMP/actual"
test_cmp "one counter set per CPU" "$TMP/expect" "$TMP/actual"
echo 0 > "$IDIR/tracing_on"
T status --json > "$TMP/json"
for c in $(seq 0 $(($(jq '.cpus | length' "$TMP/json") - 1))); do
	sed -n 's/^overrun: //p' "$IDIR/per_cpu/cpu$c/stats"
done > "$TMP/expect"
jq '.cpus[].overrun' "$TMP/json" > "$TMP/actual"
test_cmp "overrun counters equal per_cpu/cpuN/stats" "$TMP/expect" "$TMP/actual"
echo 1 > "$IDIR/tracing_on"

expect_status "reset the instance" 0 T reset
: > "$TMP/expect"; cat "$IDIR/set_event" > "$TMP/actual"
test_cmp "nothing enabled after reset" "$TMP/expect" "$TMP/actual"
echo none > "$TMP/expect"; cat "$IDIR/events/sched/sched_switch/filter" > "$TMP/actual"
test_cmp "filter cleared by reset" "$TMP/expect" "$TMP/actual"
done_testing
