#!/bin/bash
# tpctl latency: the pairs of a mixed workload, recorded once, agree exactly
# (pairs, sums, min, max, buckets, unmatched STARTs) with a reference join
# written apart from tpctl (latency-ref.py over `tpctl report --json` of the
# same file) for wakeup, syscall, irq, softirq and a START END --match pair;
# live, a generator of exactly N getpid calls gives N getpid pairs; bad input
# is one line, exit 2, nothing changed; INT prints the totals and leaves
# nothing behind.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v jq > /dev/null || skip_all "jq is not installed (make deps installs it)"
for e in sched/sched_switch sched/sched_wakeup raw_syscalls/sys_enter irq/softirq_entry \
	syscalls/sys_enter_getpid; do
	[ -e "$TRACEFS/events/$e" ] || skip_all "no $e event"
done
need_tgen
REF=$TOP/tests/cli/latency-ref.py
plan 35

before=$(state_digest)
F=$TMP/mixed.dat
# a mixed workload: processes that wake each other (a pipe), sleep, make
# system calls; every process while it runs (-a), so that interrupts count too
"$TPCTL" record -o "$F" sched:sched_switch sched:sched_wakeup sched:sched_wakeup_new \
	raw_syscalls irq:irq_handler_entry irq:irq_handler_exit irq:softirq_entry \
	irq:softirq_exit -a -- sh -c 'for i in 1 2 3 4 5; do ls -R /usr/include > /dev/null;
		seq 1 20000 | sort -n | tail -1 > /dev/null; sleep 0.05; done' \
	> "$TMP/rec.out" 2> "$TMP/rec.err"
ok $? "a mixed workload recorded"
"$TPCTL" report --json "$F" > "$TMP/all.json"
ok $? "report --json reads it"

# tpctl's groups in the reference's form: one sorted JSON line per group, then unmatched
ours() {
	jq -c --sort-keys '.groups[] | {key, count, sum, min, max, buckets}' "$1" |
		sort > "$TMP/ours"
	jq -c '{unmatched}' "$1" >> "$TMP/ours"
}
# compare RECIPE: the reference's groups and tpctl's, and that there were pairs
compare() {
	local name=$1 n
	shift
	python3 "$REF" "$@" > "$TMP/ref.raw" 2> "$TMP/ref.err" || { ok 1 "$name: reference"; diag "$TMP/ref.err"; return; }
	{ grep -v '^{"unmatched"' "$TMP/ref.raw" | sort; grep '^{"unmatched"' "$TMP/ref.raw"; } |
		jq -c --sort-keys . > "$TMP/ref"
	n=$(grep -c '"count"' "$TMP/ref")
	if [ "$n" -gt 0 ]; then
		test_cmp "$name: every group equals the reference join's ($n groups)" \
			"$TMP/ref" "$TMP/ours"
	else
		ok 1 "$name: the workload made no pairs"
	fi
}

SW=$TRACEFS/events/sched/sched_switch/format
expect_status "latency wakeup --input" 0 "$TPCTL" latency wakeup --input "$F" --json
ours "$TMP/out"
compare "wakeup" wakeup "$TMP/all.json" "$SW"

expect_status "latency syscall --input" 0 "$TPCTL" latency syscall --input "$F" --json
ours "$TMP/out"
compare "syscall" syscall "$TMP/all.json"

expect_status "latency softirq --input" 0 "$TPCTL" latency softirq --input "$F" --json
ours "$TMP/out"
compare "softirq" softirq "$TMP/all.json" "$TRACEFS/events/irq/softirq_entry/format"

expect_status "latency irq --input" 0 "$TPCTL" latency irq --input "$F" --json
ours "$TMP/out"
if [ "$(jq '.groups | length' "$TMP/out")" -gt 0 ]; then
	compare "irq" irq "$TMP/all.json"
else
	skip "no device interrupt during the recording on this machine"
fi

expect_status "START END --match" 0 "$TPCTL" latency sched:sched_wakeup sched:sched_switch \
	--match pid=next_pid --by end.next_comm --input "$F" --json
ours "$TMP/out"
compare "sched_wakeup -> sched_switch by end.next_comm" custom "$TMP/all.json" \
	sched:sched_wakeup sched:sched_switch pid next_pid end.next_comm

# --over: every pair longer than the bound, with both its events, as it closes
expect_status "latency syscall --over 20us --input" 0 "$TPCTL" latency syscall --over 20us \
	--input "$F" --json
want=$(OVER=20000 python3 "$REF" syscall "$TMP/all.json" | jq -r 'select(.over) | .over')
got=$(jq -c 'select(.type == "pair")' "$TMP/out" | wc -l)
[ "$got" = "$want" ] && [ "$got" -gt 0 ]
ok $? "--over: the pairs longer than 20us, as many as the reference finds ($got, want $want)"
jq -e -s '[.[] | select(.type == "pair")] | all(.latency_ns > 20000 and
	.latency_ns == .events[1].ts_ns - .events[0].ts_ns and .events[0].event == "sys_enter" and
	.events[1].event == "sys_exit" and .events[0].pid == .events[1].pid)' "$TMP/out" > /dev/null
ok $? "--over: each pair's time is its events' and the events are its START and END"
jq -e -s 'last | .type == "latency"' "$TMP/out" > /dev/null
ok $? "--over: the histograms after the pairs"

# live: exactly N getpid calls, exactly N getpid pairs
N=3000
expect_status "latency syscall -- tgen $N" 0 "$TPCTL" latency syscall --json -- "$G" $N
got=$(jq '[.groups[] | select(.key.syscall == "getpid") | .count] | add // 0' "$TMP/out")
[ "$got" = "$N" ]
ok $? "latency syscall counts exactly $N getpid pairs of the command (got $got)"
jq -e '.type == "latency" and .start == "raw_syscalls:sys_enter" and .unit == "ns"
	and (.by == ["syscall"]) and (.lost == 0)' "$TMP/out" > /dev/null
ok $? "the document says what it measured, in ns, nothing lost"

# text: a histogram per key with units a reader wants
expect_status "text" 0 "$TPCTL" latency syscall --by comm -- "$G" 100
grep -Eq '^comm=tgen  count=[0-9]+ avg=[0-9.]+(ns|us|ms) min=' "$TMP/out" &&
	grep -Eq '^\[[0-9.]+(us|ms), [0-9.]+(us|ms)\) +[0-9]+ \|@*' "$TMP/out"
ok $? "text: count, avg, min and max, buckets in us or ms"; diag "$TMP/out"

# bad input: one line, exit 2, nothing changed
expect_status "unknown recipe" 2 "$TPCTL" latency nosuch
expect_status "START END without --match" 2 "$TPCTL" latency sched:sched_wakeup sched:sched_switch
expect_status "a match field one side lacks" 2 "$TPCTL" latency sched:sched_wakeup \
	sched:sched_switch --match pid=nope
grep -q "unknown field 'nope' in 'sched:sched_switch'" "$TMP/err"
ok $? "... the error names the field and the event"
expect_status "an unknown key" 2 "$TPCTL" latency syscall --by nosuchkey
expect_status "a duration with an unknown unit" 2 "$TPCTL" latency syscall --linear 5d
"$TPCTL" record -o "$TMP/small.dat" syscalls:sys_enter_getpid -- "$G" 10 > /dev/null 2>&1
expect_status "--input without the recipe's events" 2 "$TPCTL" latency wakeup --input "$TMP/small.dat"
# INT: the totals printed, exit 0, the private instance gone
"$TPCTL" latency syscall --json > "$TMP/int.out" 2> "$TMP/int.err" &
lp=$!
wait_for '[ -n "$(cat "$TRACEFS/instances/tpctl-$lp/set_event" 2> /dev/null)" ]'
"$G" 50 > /dev/null
kill -INT $lp
wait $lp
st=$?
[ $st = 0 ] && jq -e '.type == "latency" and (.groups | length) > 0' "$TMP/int.out" > /dev/null
ok $? "INT: the histograms, exit 0 (exit $st)"
wait_for '[ ! -d "$TRACEFS/instances/tpctl-$lp" ]' 40
ok $? "INT: tpctl-$lp removed"

# START END naming probes of this run by NAME: from the entry of a function
# to its return, once per call
if [ -w "$TRACEFS/uprobe_events" ] && ${CC:-cc} -O2 -g -o "$TMP/prog" \
	"$TOP/tests/cli/probe-prog.c" 2> /dev/null; then
	N=37
	expect_status "latency work work__return of two --probe" 0 "$TPCTL" latency --json \
		--probe "u:$TMP/prog:work" --probe "ur:$TMP/prog:work retval" work work__return \
		--match common_pid -- "$TMP/prog" $N
	n=$(jq '[.groups[].count] | add' "$TMP/out")
	[ "$n" = $N ] && [ "$(jq '.unmatched' "$TMP/out")" = 0 ]
	ok $? "... $N pairs, none unmatched (got $n)"; diag "$TMP/out"
	expect_status "a bare name no --probe has" 2 "$TPCTL" latency --probe "u:$TMP/prog:work" \
		wrok work --match common_pid -- true
	grep -q "'wrok' is neither system:event nor the name of a --probe" "$TMP/err"
	ok $? "... the error names it"
else
	for i in 1 2 3 4; do skip "no uprobe events or no C compiler"; done
fi

[ "$(state_digest)" = "$before" ]
ok $? "nothing changed in tracefs"

done_testing
