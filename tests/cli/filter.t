#!/bin/bash
# tpctl filter: set, show, clear, read back from the filter file; a filter the
# kernel refuses shows the kernel's reason and leaves the old filter.
. "$(dirname "$0")/lib.sh"
need_tracefs
make_instance
plan 14
T() { "$TPCTL" -i "$INST" "$@"; }
F=$IDIR/events/sched/sched_switch/filter

expect_status "set a filter" 0 T filter sched:sched_switch 'prev_pid > 1 && next_comm ~ "kworker*"'
echo 'prev_pid > 1 && next_comm ~ "kworker*"' > "$TMP/expect"
cat "$F" > "$TMP/actual"
test_cmp "the filter file reads it back" "$TMP/expect" "$TMP/actual"

T filter sched:sched_switch > "$TMP/actual"
printf 'sched:sched_switch\t%s\n' "$(cat "$F")" > "$TMP/expect"
test_cmp "show prints event and filter" "$TMP/expect" "$TMP/actual"

expect_status "unquoted words are joined" 0 T filter sched:sched_switch prev_prio '<' 100
echo 'prev_prio < 100' > "$TMP/expect"; cat "$F" > "$TMP/actual"
test_cmp "joined filter reads back" "$TMP/expect" "$TMP/actual"

expect_status "a filter naming no field is refused" 2 T filter sched:sched_switch 'prv_pid > 1'
grep -qx "tpctl: filter: invalid filter for 'sched:sched_switch': unknown field 'prv_pid' (closest: 'prev_pid')" "$TMP/err"
ok $? "with the reason and the closest field"
printf '  %s\n' 'prev_prio < 9 && prev_pidd == 1' '                 ^' > "$TMP/expect"
T filter sched:sched_switch 'prev_prio < 9 && prev_pidd == 1' 2>&1 | tail -2 > "$TMP/actual"
test_cmp "the caret is under the unknown field" "$TMP/expect" "$TMP/actual"
echo 'prev_prio < 100' > "$TMP/expect"; cat "$F" > "$TMP/actual"
test_cmp "and the old filter stays" "$TMP/expect" "$TMP/actual"

# CPU is a kernel-side field libtracefs does not know: the kernel itself judges it
expect_status "a filter the kernel refuses exits 2" 2 T filter sched:sched_switch 'CPU == '
grep -q 'Command: CPU ==' "$TMP/err" && grep -q '\^' "$TMP/err"
ok $? "the kernel's error_log text with its caret is shown"
echo 'prev_prio < 100' > "$TMP/expect"; cat "$F" > "$TMP/actual"
test_cmp "and the old filter is back in place" "$TMP/expect" "$TMP/actual"

expect_status "clear" 0 T filter sched:sched_switch --clear
echo none > "$TMP/expect"; cat "$F" > "$TMP/actual"
test_cmp "the filter file reads none" "$TMP/expect" "$TMP/actual"
done_testing
