#!/bin/bash
# Small things a user of strace, perf and trace-cmd expects: one duration
# syntax everywhere (a unit, or bare seconds), record writes trace.dat
# without -o, stream says so when nothing is enabled to read.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v jq > /dev/null || skip_all "no jq"
plan 15
make_instance

# ---- durations: ns us ms s m h, or bare seconds, for every option that takes one
expect_status "count --duration 200ms" 0 "$TPCTL" count sched:sched_switch --json --duration 200ms
iv=$(jq '.interval_ns' "$TMP/out")
ok "$([ "${iv:-0}" -ge 200000000 ] && [ "$iv" -lt 60000000000 ]; echo $?)" \
	"count --duration 200ms: an interval of 0.2 s or more (got $iv ns)"
expect_status "count --duration 0.2 (bare seconds)" 0 "$TPCTL" count sched:sched_switch --duration 0.2
expect_status "count --interval 100ms --duration 0.3s" 0 "$TPCTL" count sched:sched_switch \
	--interval 100ms --duration 0.3s
expect_status "latency wakeup --over 1 (bare seconds) --linear 1ms --duration 100ms" 0 \
	"$TPCTL" latency wakeup --over 1 --linear 1ms --duration 100ms
expect_status "latency wakeup --linear 0.001 (bare seconds)" 0 \
	"$TPCTL" latency wakeup --linear 0.001 --duration 100ms
for bad in "--duration 5x" "--duration 1d" "--duration -1s" "--over 1x" "--linear ms"; do
	case $bad in --duration*) c="count sched:sched_switch" ;; *) c="latency wakeup --duration 0.1" ;; esac
	# shellcheck disable=SC2086
	"$TPCTL" $c $bad > /dev/null 2> "$TMP/err"
	st=$?
	ok "$([ $st = 2 ] && [ "$(wc -l < "$TMP/err")" = 1 ]; echo $?)" "$c $bad: exit 2 (got $st), one line"
done

# ---- record without -o: trace.dat in the current directory, as trace-cmd
mkdir "$TMP/rec"
(cd "$TMP/rec" && "$TPCTL" record --duration 100ms sched:sched_switch > /dev/null 2>&1)
ok "$([ $? = 0 ] && [ -s "$TMP/rec/trace.dat" ]; echo $?)" "record without -o writes trace.dat"
"$TPCTL" report "$TMP/rec/trace.dat" > /dev/null 2>&1
ok $? "and tpctl report reads it"

# ---- stream of an instance with nothing enabled says so (it would wait in silence)
timeout 0.5 "$TPCTL" -i "$INST" stream > /dev/null 2> "$TMP/err"
grep -q "^tpctl: stream: warning: no event is enabled in instance '$INST'" "$TMP/err"
ok $? "stream -i with nothing enabled: a warning says so"
diag "$TMP/err"
echo 1 > "$IDIR/events/sched/sched_switch/enable"
timeout 0.5 "$TPCTL" -i "$INST" stream > /dev/null 2> "$TMP/err"
ok "$([ ! -s "$TMP/err" ]; echo $?)" "stream -i with an event enabled: no warning"
echo 0 > "$IDIR/events/sched/sched_switch/enable"
done_testing
