#!/bin/bash
# --function and --graph (tpctl-stream(1), "Function tracers").  On a kernel
# that refuses the function tracer (this host's locked-down 6.18: reading
# available_filter_functions and writing current_tracer give EPERM) a run is
# one line naming what was refused and why, exit 1, and nothing changed: no
# instance, the tracer files as they were, no output file.  Names are checked
# before anything changes (exit 2, the closest real function named): on a fake
# tracefs here, and on a real one in the VM (tests/vm/75-func.t).
. "$(dirname "$0")/lib.sh"
need_tracefs
plan 26

# state STEP: what a run could have changed at the top level
state() {
	for f in current_tracer tracing_on set_event_pid set_event_notrace_pid buffer_percent; do
		echo "== $f"
		cat "$TRACEFS/$f" 2>&1
	done
	for f in set_ftrace_filter set_ftrace_notrace set_ftrace_pid set_graph_function; do
		echo "== $f"
		cat "$TRACEFS/$f" 2>&1 | sed 's/^cat: .*: /cat: /'
	done
}

# run_bg NAME STATUS CMD...: like expect_status, with the pid of tpctl in $pid
run_bg() {
	local name=$1 want=$2 got
	shift 2
	"$@" > "$TMP/out" 2> "$TMP/err" &
	pid=$!
	wait $pid
	got=$?
	[ "$got" -eq "$want" ]; ok $? "$name (exit $got, want $want)" || diag "$TMP/err"
}

one_line() {
	[ "$(wc -l < "$TMP/err")" -eq 1 ]; ok $? "$1: one line" || diag "$TMP/err"
}

if cat "$TRACEFS/available_filter_functions" > /dev/null 2>&1 &&
	grep -qw function "$TRACEFS/available_tracers"; then
	refuses=
else
	refuses=1
fi

state > "$TMP/before"
if [ -n "$refuses" ]; then
	run_bg "--function on a kernel that refuses it: exit 1" 1 \
		"$TPCTL" stream --function vfs_read -- true
	one_line "--function refused"
	grep -qE "^tpctl: stream: the kernel (refused the function tracer \((reading available_filter_functions|writing current_tracer): Operation not permitted; a locked-down kernel refuses it\)|has no function tracer .*)$" "$TMP/err"
	ok $? "it says what the kernel refused and why" || diag "$TMP/err"
	[ ! -e "$TRACEFS/instances/tpctl-$pid" ]; ok $? "no instance left (tpctl-$pid)"
	[ ! -s "$TMP/out" ]; ok $? "nothing on stdout"

	run_bg "--function beside an EVENT: exit 1" 1 \
		"$TPCTL" stream sched:sched_switch --function 'vfs_*' --duration 1
	one_line "--function beside an EVENT"
	grep -q "^tpctl: stream: the kernel .*function tracer" "$TMP/err"; ok $? "the same refusal"
	[ ! -e "$TRACEFS/instances/tpctl-$pid" ]; ok $? "no instance left (tpctl-$pid)"

	run_bg "--graph: exit 1" 1 "$TPCTL" stream --graph vfs_read -- true
	one_line "--graph refused"
	grep -qE "^tpctl: stream: the kernel (refused the function_graph tracer \(.*\)|has no function_graph tracer \(available_tracers: .*\))$" "$TMP/err"
	ok $? "it says what the kernel refused" || diag "$TMP/err"

	run_bg "record --function: exit 1" 1 "$TPCTL" record -o "$TMP/fn.dat" --function vfs_read -- true
	one_line "record --function refused"
	grep -q "^tpctl: record: the kernel .*function tracer" "$TMP/err"; ok $? "record says it" || diag "$TMP/err"
	[ ! -e "$TMP/fn.dat" ] && [ ! -e "$TRACEFS/instances/tpctl-$pid" ]
	ok $? "no output file, no instance"
else
	for i in $(seq 16); do skip "the kernel lets the function tracer run here: see tests/vm/75-func.t"; done
fi
state > "$TMP/after"
test_cmp "the tracer files as they were" "$TMP/before" "$TMP/after"

# ---- usage errors, before anything is read
expect_status "--depth without --graph" 2 "$TPCTL" stream --function vfs_read --depth 2
grep -qx "tpctl: stream: '--depth' needs '--graph'" "$TMP/err"; ok $? "says so" || diag "$TMP/err"
expect_status "--graph-notrace without --graph" 2 "$TPCTL" stream --graph-notrace x --function y
expect_status "an empty pattern" 2 "$TPCTL" stream --function ''
expect_status "a bare '!'" 2 "$TPCTL" stream --function '!'

# ---- names checked first: a fake tracefs that lists its functions
FAKE=$TMP/fake
cp -r "$TOP/tests/cli/fixtures/fake-tracefs" "$FAKE"
printf 'sched:sched_switch\n' > "$FAKE/available_events"
mkdir -p "$FAKE/instances"
echo 'function nop' > "$FAKE/available_tracers"
echo nop > "$FAKE/current_tracer"
printf 'vfs_read\nvfs_write\nksys_read\nsample_fn [sample_trace]\n' > "$FAKE/available_filter_functions"
expect_status "an unknown function: exit 2" 2 "$TPCTL" --tracefs "$FAKE" stream --function vfs_reed
grep -qx "tpctl: stream: no such function 'vfs_reed'; closest: 'vfs_read', .*" "$TMP/err"
ok $? "it names the closest real function" || diag "$TMP/err"
expect_status "a glob that matches nothing: exit 2" 2 "$TPCTL" --tracefs "$FAKE" stream --function 'zz_*'
[ -z "$(ls "$FAKE/instances")" ] && [ "$(cat "$FAKE/current_tracer")" = nop ]
ok $? "nothing made, the tracer untouched"
done_testing
