#!/bin/bash
# tpctl latency sched: the command runs the sched table (src/sched.c, checked
# against perf in latency-sched.t through tests/unit/bin/sched-dat) over the
# session: on a recording it prints what the driver prints for the same
# file (text and JSON, --sort); live with -- COMMAND the table holds the
# command's tasks; options of the histograms and bad sort keys are refused
# with one line, exit 2, nothing changed; INT, TERM and HUP print the table
# and leave nothing behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "python3 is not installed (make deps installs it)"
DRV=$TOP/tests/unit/bin/sched-dat
[ -x "$DRV" ] || make -s -C "$TOP" tests/unit/bin/sched-dat > /dev/null 2>&1
[ -x "$DRV" ] || skip_all "$DRV cannot be built"
plan 16

before=$(top_digest)
orph=$(orphans)

F=$TMP/s.dat
"$TPCTL" record -o "$F" sched:sched_switch sched:sched_wakeup sched:sched_wakeup_new \
	sched:sched_stat_runtime -a -- sh -c 'for i in 1 2 3 4 5; do sleep 0.01
		ls /usr/bin > /dev/null; done' > /dev/null 2> "$TMP/rec.err"
ok $? "a recording of the sched events"

for args in "--json" "" "--sort max,pid" "--json --sort runtime"; do
	"$DRV" "$F" $args > "$TMP/want" 2>&1
	"$TPCTL" latency sched --input "$F" $args > "$TMP/got" 2>&1
	test_cmp "latency sched --input $args: the sched table of the file" "$TMP/want" "$TMP/got"
done
n=$(python3 -c 'import json, sys; print(len(json.loads(open(sys.argv[1]).readline())["tasks"]))' "$TMP/got")
ok $([ "$n" -gt 2 ]; echo $?) "the table is not empty ($n tasks)"

# live: the tasks of the command and only those (the kernel's pid filter also
# passes a switch with a task beside them: those are left out), every time:
# 20 runs as the scheduler places them, 5 with the command on the last CPU
# (this host's 6.18 records no switch out of idle on CPU 1: the switches in
# that lack are inferred and said on stderr)
last=$(( $(nproc) - 1 ))
live_bad=0
for i in $(seq 25); do
	pin=()
	[ "$i" -gt 20 ] && pin=(taskset -c "$last")
	"$TPCTL" latency sched --json -- "${pin[@]}" sh -c 'sleep 0.05; /bin/true; sleep 0.05' \
		> "$TMP/live.json" 2> "$TMP/live.err"
	st=$?
	python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["tasks"]
names = sorted(k["comm"] for k in t)
assert names == ["sh", "sleep", "sleep", "true"], names
assert all(k["switches"] >= 1 and k["max_delay_ns"] >= k["avg_delay_ns"] for k in t), t
' "$TMP/live.json" > "$TMP/live.chk" 2>&1
	if [ $st != 0 ] || [ -s "$TMP/live.chk" ] ||
		grep -v "switches in that the kernel did not record were inferred" "$TMP/live.err" |
		grep -q .; then
		live_bad=$((live_bad + 1))
		echo "# run $i (${pin[*]}): exit $st"
		awk '{ print "# " $0 }' "$TMP/live.chk" "$TMP/live.err" | tail -5
	fi
done
ok $live_bad "-- COMMAND: sh, both sleeps and true, each with its switches, 25 of 25 runs"

MSG="recipe 'sched' takes only"
run_refused "--by with sched" 2 "$TPCTL" latency sched --by comm
run_refused "--over with sched" 2 "$TPCTL" latency sched --over 5ms
MSG="'--sort' is for the recipe 'sched'"
run_refused "--sort with another recipe" 2 "$TPCTL" latency syscall --sort max
MSG="unknown sort key 'nosuch'"
run_refused "an unknown sort key" 2 "$TPCTL" latency sched --sort nosuch
MSG="no event 'sched:sched_stat_runtime'"
"$TPCTL" record -o "$TMP/sw.dat" sched:sched_switch sched:sched_wakeup \
	sched:sched_wakeup_new -- true > /dev/null 2>&1
run_refused "--input of a recording without sched_stat_runtime" 2 \
	"$TPCTL" latency sched --input "$TMP/sw.dat"
MSG=

for sig in INT TERM HUP; do
	"$TPCTL" latency sched > "$TMP/sig.out" 2> "$TMP/sig.err" &
	p=$!
	wait_for "[ -n \"\$(cat $TRACEFS/instances/tpctl-$p/set_event 2> /dev/null)\" ]"
	sleep 0.2
	kill -$sig $p
	wait $p
	st=$?
	ok $([ $st = 0 ] && grep -q 'Task  *| *Runtime ms' "$TMP/sig.out" &&
		[ ! -d "$TRACEFS/instances/tpctl-$p" ]; echo $?) \
		"SIG$sig: the table, exit 0 ($st), tpctl-$p gone"
done

ok $([ "$(top_digest)" = "$before" ] && [ "$(orphans)" = "$orph" ]; echo $?) \
	"the top level is as before and no private instance is left"
done_testing
