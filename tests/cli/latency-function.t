#!/bin/bash
# latency --function FUNC and its engines (tpctl-latency(1)): the kernel
# engine (a kprobe and a kretprobe paired by a synthetic event and hist
# triggers) where the kernel has kprobe events, synthetic events and hist
# triggers, else function_graph.  What the kernel engine cannot do is said
# before anything changes; a kernel without those features refuses
# '--engine kernel' with exit 1.  The counts themselves are checked in the VM
# (tests/vm/75-func.t), whose kernel has them.
. "$(dirname "$0")/lib.sh"
need_tracefs
plan 13

# state: what a run could leave behind
state() {
	for f in dynamic_events kprobe_events synthetic_events; do
		echo "== $f"
		cat "$TRACEFS/$f" 2>&1 | sed 's/^cat: .*: /cat: /'
	done
	echo "== instances"
	ls "$TRACEFS/instances"
}

one_line() {
	[ "$(wc -l < "$TMP/err")" -eq 1 ]; ok $? "$1: one line" || diag "$TMP/err"
}

state > "$TMP/before"

expect_status "--engine kernel with a glob: exit 2" 2 \
	"$TPCTL" latency --engine kernel --function 'vfs_rea*' -- true
grep -qx "tpctl: latency: the kernel engine cannot do this latency: the kernel times one function, not a glob" "$TMP/err"
ok $? "it says the kernel times one function" || diag "$TMP/err"

expect_status "--engine kernel with --input: exit 2" 2 \
	"$TPCTL" latency --engine kernel --function vfs_read --input "$TMP/none.dat"
one_line "--engine kernel --input"

expect_status "--engine user --by pid: exit 2" 2 \
	"$TPCTL" latency --engine user --by pid --function vfs_read -- true
grep -q "'--by' takes only 'comm'" "$TMP/err"; ok $? "function_graph's key is comm" || diag "$TMP/err"

if [ -e "$TRACEFS/kprobe_events" ] && [ -e "$TRACEFS/synthetic_events" ] &&
	[ -e "$TRACEFS/events/sched/sched_switch/hist" ]; then
	expect_status "--by cpu on the kernel engine: exit 2" 2 \
		"$TPCTL" latency --by cpu --function vfs_read -- true
	grep -q "takes 'comm' and 'pid' on the kernel engine" "$TMP/err"; ok $? "it names the keys it has" ||
		diag "$TMP/err"
	expect_status "--engine kernel -- true: exit 0" 0 \
		"$TPCTL" latency --engine kernel --json --function vfs_read -- true
	grep -q '"start":"vfs_read","end":"vfs_read"' "$TMP/out"; ok $? "both ends named FUNC" ||
		diag "$TMP/out"
	"$TPCTL" -v latency --function vfs_read -- true > /dev/null 2> "$TMP/err"
	grep -q "kernel engine" "$TMP/err"; ok $? "-v: the kernel engine by default" ||
		diag "$TMP/err"
	skip "this kernel has kprobe events, synthetic events and hist triggers"
else
	# the host: no kprobe events (or no synthetic events, or no hist triggers)
	expect_status "--by cpu: function_graph's refusal, exit 2" 2 \
		"$TPCTL" latency --by cpu --function vfs_read -- true
	grep -q "'--by' takes only 'comm'" "$TMP/err"; ok $? "the user engine's keys" ||
		diag "$TMP/err"
	expect_status "--engine kernel on a kernel without them: exit 1" 1 \
		"$TPCTL" latency --engine kernel --function vfs_read -- true
	grep -Eqx "tpctl: latency: the kernel engine cannot do this latency: this kernel has no (kprobe events|synthetic events|hist triggers)" "$TMP/err"
	ok $? "it says what the kernel lacks" || diag "$TMP/err"
	"$TPCTL" -v latency --function vfs_read -- true > /dev/null 2> "$TMP/err"
	grep -Eq "user engine \(function_graph\): this kernel has no (kprobe events|synthetic events|hist triggers)" "$TMP/err"
	ok $? "-v: the default falls back to function_graph, saying why" || diag "$TMP/err"
	[ ! -s "$TMP/out" ]; ok $? "nothing on stdout from the refusals"
fi
state > "$TMP/after"
test_cmp "nothing left behind: probes, synthetic events, instances" "$TMP/before" "$TMP/after"
