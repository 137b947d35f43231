#!/bin/bash
# stream --read-thread yes: a thread of its own reads the ring buffers and
# merges their records (src/readq.c) while the main thread formats and
# writes them.  The kernel's text of every event goes through it in
# stream-oracle-all.t, the merge of 16 and 40 CPUs in stream-many-cpus.t and
# the hand-over itself (its ring wrapping, its waits) in tests/unit/merge;
# here what a live stream around it does: lost-event markers, two busy CPUs
# merged, --count, a closed pipe, signals, COMMAND's end and exit status,
# the thread hidden from the trace, what auto picks, and bad values.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "no python3"
need_tgen
plan 18
make_instance
before=$(state_digest)

# 1. lost events in an -i instance: a tiny buffer overwritten
echo 1 > "$IDIR/events/syscalls/sys_enter_getpid/enable"
echo 0 > "$IDIR/tracing_on"
echo 4 > "$IDIR/buffer_size_kb"
echo 1 > "$IDIR/tracing_on"
"$G" 50000 > /dev/null
echo 0 > "$IDIR/tracing_on"
"$TPCTL" -i "$INST" stream --drain --json --read-thread yes > "$TMP/json" 2> "$TMP/err"
st=$?
python3 "$TOP/tests/cli/stream-check.py" lost-first "$TMP/json" > /dev/null
ok $? "-i, overwritten: lost records before their CPU's surviving events, in time order"
ok $([ $st = 0 ] && grep -q "^tpctl: stream: events lost" "$TMP/err"; echo $?) \
	"exit 0 and the loss summary on stderr"
echo 0 > "$IDIR/events/syscalls/sys_enter_getpid/enable"

# 2. two CPUs busy at once: every record in time order, none lost, each task named
stream_two_cpus --read-thread yes

# 3. --count, a closed pipe, COMMAND's exit status, an overrun
"$TPCTL" stream "$EV" --read-thread yes --count 7 -- "$G" 2000 > "$TMP/count" 2> "$TMP/err"
ok $([ "$(wc -l < "$TMP/count")" = 7 ]; echo $?) "--count 7: seven lines ($(wc -l < "$TMP/count"))"
"$TPCTL" stream "$EV" --json --read-thread yes -- "$G" 100000 2> "$TMP/err" | head -3 > "$TMP/head"
st=${PIPESTATUS[0]}
ok $([ "$(wc -l < "$TMP/head")" = 3 ] && [ $st = 0 ]; echo $?) \
	"| head -3: three lines, exit 0 (got $st)"
"$TPCTL" stream "$EV" --json --read-thread yes -- sh -c "$G 5000; exit 3" > "$TMP/cmd" 2> "$TMP/err"
st=$?
python3 - "$TMP/cmd" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
n = sum(1 for r in recs if r["type"] == "event" and r["event"] == "sys_enter_getpid")
print("# %d records, %d getpid, last %s" % (len(recs), n, recs[-1] if recs else None))
sys.exit(0 if n >= 5000 and recs[-1]["type"] == "exit" and recs[-1]["status"] == 3 else 1)
PY
ok $([ $? = 0 ] && [ $st = 3 ]; echo $?) \
	"-- COMMAND: all its events, then its exit line; its status 3 is tpctl's (got $st)"
diag "$TMP/err"
stream_overrun --read-thread yes

# 4. signals: whole lines, exit 0, the instance gone
for sig in INT TERM HUP; do
	rm -f "$TMP/sig"
	"$TPCTL" stream sched:sched_switch --read-thread yes > "$TMP/sig" 2> "$TMP/err" &
	pid=$!
	wait_for "[ -d '$TRACEFS/instances/tpctl-$pid' ] && [ -s '$TMP/sig' ]"
	kill -$sig $pid
	wait $pid
	st=$?
	ok $([ ! -d "$TRACEFS/instances/tpctl-$pid" ] &&
		[ "$(tail -c1 "$TMP/sig" | od -An -c | tr -d ' ')" = '\n' ]; echo $?) \
		"SIG$sig: whole lines, tpctl-$pid gone (exit $st)"
done

# 5. the thread is not traced: every syscall of every task but tpctl's
stream_own_tasks 2 --read-thread yes
ok $([ "$(wc -l < "$TMP/tids")" -ge 2 ] &&
	[ "$notrace" = "$(sort -n "$TMP/tids" | tr '\n' ' ')" ]
	echo $?) "the private instance hides tpctl and its reading thread ($notrace)"
python3 "$TOP/tests/cli/stream-check.py" not-own "$TMP/self" "$TMP/hidden" > "$TMP/py"
ok $? "no syscall of tpctl's own tasks is in the stream ($(head -1 "$TMP/py"))"

# 6. auto: the thread where 4 CPUs or more are read and tpctl may run on 4
tasks_of() {
	rm -f "$TMP/auto"
	"$TPCTL" stream sched:sched_switch "$@" > "$TMP/auto" 2> "$TMP/err" &
	pid=$!
	# (streaming: its threads are there)
	wait_for "[ -d '$TRACEFS/instances/tpctl-$pid' ] && [ -s '$TMP/auto' ]"
	ls "/proc/$pid/task" | wc -l
	kill -INT $pid
	wait $pid
}
want=1
[ "$(nproc)" -ge 4 ] && [ "$(getconf _NPROCESSORS_CONF)" -ge 4 ] && want=2
n=$(tasks_of)
ok $([ "$n" = "$want" ]; echo $?) "auto on $(nproc) CPUs: $want task(s) ($n)"
n=$(tasks_of --cpu 0)
ok $([ "$n" = 1 ]; echo $?) "auto, --cpu 0 (one CPU read): one task ($n)"

# 7. bad values, and nothing left behind
expect_status "--read-thread maybe is a usage error" 2 "$TPCTL" stream "$EV" --read-thread maybe
expect_status "--threads 2 --read-thread yes is a usage error" 2 \
	"$TPCTL" stream "$EV" --threads 2 --read-thread yes
[ "$before" = "$(state_digest)" ]
ok $? "tracefs is as it was"
done_testing
