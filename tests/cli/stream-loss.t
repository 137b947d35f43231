#!/bin/bash
# Lost events are told: a tiny overwrite-mode buffer that wrapped gives a
# {"type":"lost"} record in JSON and the kernel's "CPU:N [LOST ...]" marker in
# text, a summary on stderr (not with -q), and exit 1 with --fail-on-loss.
. "$(dirname "$0")/lib.sh"
need_tracefs
plan 6
make_instance

fill() {
	echo 0 > "$IDIR/tracing_on"
	echo > "$IDIR/trace"
	echo 4 > "$IDIR/buffer_size_kb"
	echo 1 > "$IDIR/events/syscalls/sys_enter_getpid/enable"
	echo 1 > "$IDIR/tracing_on"
	python3 -c 'import os
for _ in range(50000): os.getpid()'
	echo 0 > "$IDIR/tracing_on"
}

fill
"$TPCTL" -i "$INST" stream --drain --json > "$TMP/json" 2> "$TMP/err"
st=$?
python3 - "$TMP/json" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
lost = [r for r in recs if r["type"] == "lost"]
ok = lost and all(isinstance(r["cpu"], int) and (r["count"] is None or r["count"] > 0)
                  for r in lost)
sys.exit(0 if ok and recs[0]["type"] == "lost" or ok else 1)
PY
ok $? "JSON: a lost record before the surviving events"
ok $([ $st = 0 ]; echo $?) "without --fail-on-loss: exit 0"
grep -q "^tpctl: stream: events lost" "$TMP/err"
ok $? "a loss summary on stderr"

fill
"$TPCTL" -i "$INST" stream --drain > "$TMP/text" 2> "$TMP/err"
grep -qE '^CPU:[0-9]+ \[LOST( [0-9]+)? EVENTS\]$' "$TMP/text"
ok $? "text: the kernel's lost-events marker line"

fill
"$TPCTL" -q -i "$INST" stream --drain --fail-on-loss > /dev/null 2> "$TMP/err"
st=$?
ok $([ $st = 1 ]; echo $?) "--fail-on-loss: exit 1 (got $st)"
fill
"$TPCTL" -q -i "$INST" stream --drain > /dev/null 2> "$TMP/err"
ok $([ ! -s "$TMP/err" ]; echo $?) "-q: no summary"
echo 0 > "$IDIR/events/syscalls/sys_enter_getpid/enable"
done_testing
