#!/bin/bash
# stream --threads N: N reader threads that decode and format their own
# CPUs' records, merged in time order by the main thread (src/stream_cpu.c),
# or, where the instance joins records (stacks, a tracer), N threads that
# format beside the one reading thread (src/output_pool.c).  The text and
# JSON of every event at once are checked against the kernel by
# stream-oracle-all.t; here what surrounds a record: the kernel's stack
# records of options/stacktrace between the events they follow (the pool),
# lost-event markers, the merged order of two busy CPUs and the names in it,
# --count, signals, a closed pipe, tpctl's threads hidden, and bad values.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "no python3"
need_tgen
plan 21
make_instance
known=$TOP/tests/unit/fixtures/known-text-differences
before=$(state_digest)

# 1. stacks between events: the instance's own option, text as the kernel's
echo 0 > "$IDIR/options/hash-ptr"
echo 1 > "$IDIR/options/stacktrace"
echo 1 > "$IDIR/events/syscalls/sys_enter_getpid/enable"
"$G" 300 > /dev/null
echo 0 > "$IDIR/tracing_on"
grep -av '^#' "$IDIR/trace" > "$TMP/kernel"
"$TPCTL" -i "$INST" stream --drain --threads 2 > "$TMP/text" 2> "$TMP/err"
ok $? "-i with options/stacktrace: stream --drain --threads 2 exits 0"
diag "$TMP/err"
python3 "$TOP/tests/cli/text-oracle.py" "$TMP/kernel" "$TMP/text" "$known" > "$TMP/py" 2>&1
st=$?
ok $st "each event, then its stack, as the kernel's text ($(head -1 "$TMP/py"))"
[ $st = 0 ] || diag "$TMP/py"
[ "$(grep -c '<stack trace>' "$TMP/text")" -ge 300 ]
ok $? "the stacks are there ($(grep -c '<stack trace>' "$TMP/text"))"
echo 0 > "$IDIR/options/stacktrace"

# 2. lost events: a tiny buffer overwritten, the marker before what survived
fill() {
	echo 0 > "$IDIR/tracing_on"
	echo > "$IDIR/trace"
	echo 4 > "$IDIR/buffer_size_kb"
	echo 1 > "$IDIR/tracing_on"
	"$G" 50000 > /dev/null
	echo 0 > "$IDIR/tracing_on"
}
fill
"$TPCTL" -i "$INST" stream --drain --json --threads 3 > "$TMP/json" 2> "$TMP/err"
st=$?
python3 "$TOP/tests/cli/stream-check.py" lost-first "$TMP/json" > /dev/null
ok $? "JSON: lost records before their CPU's surviving events, events in time order"
ok $([ $st = 0 ] && grep -q "^tpctl: stream: events lost" "$TMP/err"; echo $?) \
	"exit 0 and the loss summary on stderr"
fill
"$TPCTL" -i "$INST" stream --drain --threads 2 > "$TMP/text" 2> "$TMP/err"
grep -qE '^CPU:[0-9]+ \[LOST( [0-9]+)? EVENTS\]$' "$TMP/text"
ok $? "text: the kernel's lost-events marker line"
echo 0 > "$IDIR/events/syscalls/sys_enter_getpid/enable"

# 3. a live stream: --count, a closed pipe, a signal
"$TPCTL" stream "$EV" --threads 2 --count 7 -- "$G" 2000 > "$TMP/count" 2> "$TMP/err"
ok $([ "$(wc -l < "$TMP/count")" = 7 ]; echo $?) "--count 7: seven lines ($(wc -l < "$TMP/count"))"
"$TPCTL" stream "$EV" --json --threads 2 -- "$G" 100000 2> "$TMP/err" | head -3 > "$TMP/head"
st=${PIPESTATUS[0]}
ok $([ "$(wc -l < "$TMP/head")" = 3 ] && [ $st = 0 ]; echo $?) \
	"| head -3: three lines, exit 0 (got $st)"
# (allowed: the note that COMMAND still ran and was ended, and a loss summary
# where the generator outran a slow build, ThreadSanitizer's)
ok $([ -z "$(grep -vE "still ran when tracing stopped|^tpctl: stream: events lost" "$TMP/err")" ]
	echo $?) \
	"| head -3: no error on stderr"
diag "$TMP/err"
"$TPCTL" stream sched:sched_switch --threads 2 > "$TMP/int" 2> "$TMP/err" &
pid=$!
wait_for "[ -d '$TRACEFS/instances/tpctl-$pid' ] && [ -s '$TMP/int' ]"
kill -INT $pid
wait $pid
st=$?
ok $([ $st = 0 ] && [ ! -d "$TRACEFS/instances/tpctl-$pid" ] &&
	[ "$(tail -c1 "$TMP/int" | od -An -c | tr -d ' ')" = '\n' ]; echo $?) \
	"SIGINT: exit 0 (got $st), whole lines, tpctl-$pid gone"

# 4. tpctl's own threads are not traced: every syscall of every task but
# tpctl's, while the workers wait for batches (futex) and format them
stream_own_tasks 3 --threads 2
# every task of tpctl's, and nothing else, in the list: tpctl and its two
# formatting threads (and a sanitizer runtime's own thread, where there is
# one: the kernel lists a listed task's new threads itself, options/event-fork)
ok $([ "$(wc -l < "$TMP/tids")" -ge 3 ] &&
	[ "$notrace" = "$(sort -n "$TMP/tids" | tr '\n' ' ')" ] &&
	echo " $notrace" | grep -q " $pid "
	echo $?) "the private instance hides tpctl and its 2 threads ($notrace)"
python3 "$TOP/tests/cli/stream-check.py" not-own "$TMP/self" "$TMP/hidden" > "$TMP/py"
ok $? "no syscall of tpctl's own tasks is in the stream ($(head -1 "$TMP/py"))"

# 5. the merge of the reader threads (a private instance: an empty CPU is
# probed with poll()): two CPUs busy at once, every record in time order,
# none lost (a large buffer), each task named
stream_two_cpus --threads 2
run2="taskset -c 0 $G 40000 & taskset -c 1 $G 40000; wait"
"$TPCTL" stream "$EV" sched:sched_switch --threads 2 --buffer-kb 16384 \
	-- sh -c "$run2" > "$TMP/two" 2> "$TMP/err"
python3 - "$TMP/two" <<'PY'
import re, sys
ts = [float(m.group(1)) for m in (re.search(r" (\d+\.\d+): ", l) for l in open(sys.argv[1])) if m]
back = sum(1 for i in range(1, len(ts)) if ts[i] < ts[i - 1])
print("# %d lines, %d out of order" % (len(ts), back))
sys.exit(0 if len(ts) >= 80000 and not back else 1)
PY
ok $? "text: the same, in time order"
# a tiny buffer overrun: the markers, the account on stderr, --fail-on-loss
stream_overrun --threads 2
# COMMAND's end: what it left in the buffers is read to the last record,
# then its exit line; and --cpu: only those CPUs' records
"$TPCTL" stream "$EV" --json --threads 2 -- "$G" 5000 > "$TMP/cmd" 2> "$TMP/err"
st=$?
python3 - "$TMP/cmd" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
n = sum(1 for r in recs if r["type"] == "event" and r["comm"] == "tgen")
print("# %d records, %d getpid of tgen, last %s" % (len(recs), n, recs[-1] if recs else None))
sys.exit(0 if n == 5000 and recs[-1]["type"] == "exit" and recs[-1]["status"] == 0 else 1)
PY
ok $([ $? = 0 ] && [ $st = 0 ]; echo $?) "-- COMMAND: all its 5000 events, then its exit line (exit $st)"
diag "$TMP/err"
"$TPCTL" stream "$EV" --threads 2 --cpu 1 -- sh -c "taskset -c 0 $G 3000; taskset -c 1 $G 2000" \
	> "$TMP/cpu1" 2> "$TMP/err"
st=$?
# (by CPU: a task's name in the text may still be its name before exec)
n1=$(grep -c '\[001\]' "$TMP/cpu1")
ok $([ $st = 0 ] && [ "$n1" -ge 2000 ] && [ "$n1" -lt 3000 ] &&
	[ "$(grep -vc '\[001\]' "$TMP/cpu1")" = 0 ]; echo $?) \
	"--cpu 1: CPU 1's 2000 events and nothing else ($n1 lines there)"
diag "$TMP/err"
expect_status "--threads 300 is a usage error" 2 "$TPCTL" stream "$EV" --threads 300

# 6. bad values, and nothing left behind
expect_status "--threads 0 is a usage error" 2 "$TPCTL" stream "$EV" --threads 0
[ "$before" = "$(state_digest)" ]
ok $? "tracefs is as it was"
done_testing
