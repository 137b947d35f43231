#!/bin/bash
# latency --function PATTERN --by stack (tpctl-latency(1)): the time per call
# path from function_graph's records.  Mistakes are said before anything
# changes; a kernel without function_graph refuses it with exit 1.  A small
# recording the test VM made (fixtures/graph-vfs_read.dat: record --graph
# vfs_read --depth 4 -- funcload pipe 20) is read with --input, its paths
# checked against those funcflame-oracle.py rebuilds from report's records of
# it.  The live paths are checked in the VM (tests/vm/77-funcflame.t).
. "$(dirname "$0")/lib.sh"
need_tracefs
plan 20

FIX=$(dirname "$0")/fixtures/graph-vfs_read.dat
ORACLE=$(dirname "$0")/funcflame-oracle.py

# what a run could change: the top level's graph files, the instances
state() {
	cat "$TRACEFS/current_tracer" "$TRACEFS/set_graph_function" "$TRACEFS/max_graph_depth" 2>&1
	ls "$TRACEFS/instances"
}
state > "$TMP/before"

expect_status "--by stack --json: exit 2" 2 \
	"$TPCTL" latency --function vfs_read --by stack --json -- true
grep -qx "tpctl: latency: '--by stack' of '--function' writes folded stacks or an SVG, not JSON" \
	"$TMP/err"; ok $? "it says JSON is not its form" || diag "$TMP/err"

expect_status "--function --folded without --by stack: exit 2" 2 \
	"$TPCTL" latency --function vfs_read --engine user --folded -- true
grep -q "'--folded' of '--function' draws call paths: latency --function FUNC --by stack" \
	"$TMP/err"; ok $? "it names the spelling that draws them" || diag "$TMP/err"

expect_status "--engine kernel --by stack: exit 2" 2 \
	"$TPCTL" latency --engine kernel --function vfs_read --by stack -- true
grep -qx "tpctl: latency: the kernel engine cannot do this latency: it times calls, not their call paths ('--by stack': function_graph)" \
	"$TMP/err"; ok $? "it says the kernel engine times calls only" || diag "$TMP/err"

expect_status "--by comm,stack: exit 2" 2 \
	"$TPCTL" latency --function vfs_read --engine user --by comm,stack -- true
grep -q "'--by' takes only 'comm' or 'stack'" "$TMP/err"; ok $? "its keys named" || diag "$TMP/err"

expect_status "--flamegraph into a directory that is not there: exit 1" 1 \
	"$TPCTL" latency --function vfs_read --by stack --flamegraph "$TMP/no/such/f.svg" -- true
[ ! -e "$TMP/no" ] && [ ! -s "$TMP/out" ]; ok $? "nothing written"

if grep -qw function_graph "$TRACEFS/available_tracers" 2>/dev/null; then
	skip "this kernel has function_graph (the VM checks the live paths)"
	skip "this kernel has function_graph"
else
	# the host: no function_graph; the refusal of every function_graph run
	expect_status "a kernel without function_graph: exit 1" 1 \
		"$TPCTL" latency --function 'vfs_*' --by stack --folded -- true
	"$TPCTL" latency --function vfs_read --by stack --flamegraph "$TMP/f.svg" -- true \
		> "$TMP/out" 2> "$TMP/err"
	[ $? -eq 1 ] && [ -z "$(ls "$TMP" | grep 'f\.svg')" ]
	ok $? "refused with --flamegraph: exit 1, no file, not even a temporary one" ||
		diag "$TMP/err"
fi

# the recording: the paths of report's records, rebuilt
if [ -f "$FIX" ]; then
	"$TPCTL" report --json "$FIX" > "$TMP/report" 2> "$TMP/err"
	ok $? "report --json of the fixture" || diag "$TMP/err"
	python3 "$ORACLE" vfs_read < "$TMP/report" > "$TMP/want"
	expect_status "--input --by stack --folded: exit 0" 0 \
		"$TPCTL" latency --function vfs_read --by stack --folded --input "$FIX"
	sort "$TMP/out" > "$TMP/got"
	[ "$(wc -l < "$TMP/want")" -ge 2 ] && ! grep -qv '^vfs_read[^ ]* [0-9][0-9]*$' "$TMP/got"
	ok $? "every line is vfs_read's path and its weight ($(wc -l < "$TMP/got") paths)" ||
		diag "$TMP/got"
	test_cmp "the paths and weights of report's records" "$TMP/want" "$TMP/got"
else
	for i in 1 2 3 4; do skip "no fixture $FIX"; done
fi
# a recording without function_graph records: said, nothing written
"$TPCTL" record -o "$TMP/nog.dat" sched:sched_switch -- true 2> "$TMP/err"
ok $? "a recording of sched_switch" || diag "$TMP/err"
expect_status "--input of a recording without function_graph: exit 1" 1 \
	"$TPCTL" latency --function vfs_read --by stack --flamegraph "$TMP/nog.svg" --input "$TMP/nog.dat"
grep -qx "tpctl: latency: the recording has no function_graph records (tpctl record --graph FUNC)" \
	"$TMP/err" && [ -z "$(ls "$TMP" | grep 'nog\.svg')" ]
ok $? "it says so, and no SVG is left" || diag "$TMP/err"
state > "$TMP/after"
test_cmp "nothing left behind: the tracer files, instances" "$TMP/before" "$TMP/after"
