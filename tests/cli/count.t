#!/bin/bash
# tpctl count and tpctl hist on the live tracefs (the user engine: this
# kernel has no hist triggers; tests/vm/50-agg.t compares both engines):
# exact counts for generators that make a known number of events each, keyed
# by pid, by comm and by a field; dd's reads in hist's log2 buckets; JSON that
# python3 and jq parse; --interval blocks; unknown keys and fields refused
# with exit 2 and nothing changed; INT, TERM, HUP and the end of the reader
# of stdout print the totals (or end quietly) and leave nothing behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs
command -v jq > /dev/null || skip_all "jq is not installed (make deps installs it)"
if [ -x "$TOP/bench/gen" ]; then
	GEN=("$TOP/bench/gen")
elif [ "$(uname -m)" = x86_64 ] && command -v perl > /dev/null; then
	GEN=(perl -e '$| = 1; print "$$\n"; <STDIN>; syscall(39) for 1 .. $ARGV[0]')
else
	skip_all "no event generator (bench/gen or perl on x86_64)"
fi
plan 35

# gen_start N: a generator of N getpid() calls waiting on its own fifo; appends
# its pid to GPIDS and its fifo to GFIFOS.  gen_go: all of them start.
GPIDS=()
GFIFOS=()
gen_start() {
	local f=$TMP/go.${#GPIDS[@]}
	mkfifo "$f"
	# read-write, so that opening the fifo does not wait for a writer
	"${GEN[@]}" "$1" <> "$f" > "$f.pid" &
	GJOBS="$GJOBS $!"
	until [ -s "$f.pid" ]; do sleep 0.02; done
	GPIDS+=("$(cat "$f.pid")")
	GFIFOS+=("$f")
}
gen_go() {
	local f
	for f in "${GFIFOS[@]}"; do echo go > "$f"; done
	wait $GJOBS 2> /dev/null
	GJOBS=
	GFIFOS=()
}

# until_ready PID: until tpctl PID's private instance has its events enabled
until_ready() {
	local i
	for ((i = 0; i < 400; i++)); do
		# (tracefs files say size 0: read them)
		[ -n "$(cat "$TRACEFS/instances/tpctl-$1/set_event" 2> /dev/null)" ] && return 0
		sleep 0.025
	done
	return 1
}

# stop PID: INT, and its exit status in st
stop() {
	kill -INT "$1"
	wait "$1"
	st=$?
}

before=$(top_digest)
orph=$(orphans)

# ---- exact counts per pid, per comm ------------------------------------------
gen_start 1000
gen_start 2500
gen_start 4000
# one more, named aggcomm, that stays until it is told (a name is read while a
# task runs: a task gone by then gets the kernel's saved_cmdlines, which a busy
# machine may have recycled)
mkfifo "$TMP/linger"
perl -e '$0 = "aggcomm"; $| = 1; print "$$\n"; <STDIN>; getppid() for 1 .. 1500; <STDIN>' \
	<> "$TMP/linger" > "$TMP/linger.pid" &
LJOB=$!
until [ -s "$TMP/linger.pid" ]; do sleep 0.02; done
lpid=$(cat "$TMP/linger.pid")
filter="common_pid == ${GPIDS[0]} || common_pid == ${GPIDS[1]} || common_pid == ${GPIDS[2]}"
"$TPCTL" count syscalls:sys_enter_getpid --by pid --filter "$filter" --json \
	> "$TMP/pid.json" 2> "$TMP/pid.err" &
cp=$!
"$TPCTL" count syscalls:sys_enter_getppid --by comm --filter "common_pid == $lpid" \
	> "$TMP/comm.txt" 2> "$TMP/comm.err" &
cc=$!
until_ready $cp && until_ready $cc
ok $? "count is set up in its private instances tpctl-$cp and tpctl-$cc"
gen_go
echo go > "$TMP/linger"
sleep 0.3
stop $cp
ok $st "INT ends count --by pid with exit 0 ($st)"
stop $cc
echo done > "$TMP/linger"
wait $LJOB
printf '%s\n' "${GPIDS[0]} 1000" "${GPIDS[1]} 2500" "${GPIDS[2]} 4000" | sort > "$TMP/want"
jq -r '.rows[] | "\(.key.pid) \(.count)"' "$TMP/pid.json" | sort > "$TMP/got"
test_cmp "--by pid: each generator's exact number of getpid() calls (jq)" "$TMP/want" "$TMP/got"
python3 -c '
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
d = docs[0]
assert len(docs) == 1 and d["type"] == "count" and d["by"] == ["pid"] and d["lost"] == 0
assert d["interval_ns"] > 0 and d["ts_ns"] > 0
assert [r["count"] for r in d["rows"]] == [4000, 2500, 1000]
' "$TMP/pid.json" 2> "$TMP/py.err"
ok $? "--json: one document, parsed by python3, docs/DESIGN.md's schema, rows by count"
diag "$TMP/py.err"
printf '%s\n' "comm     COUNT" "aggcomm   1500" > "$TMP/want"
test_cmp "--by comm: the task's name and its 1500 calls, as a text table" \
	"$TMP/want" "$TMP/comm.txt"
ok $([ $st = 0 ] && [ ! -s "$TMP/comm.err" ]; echo $?) "INT: exit 0 and nothing on stderr"

# ---- a field key, and the default key --------------------------------------
# dd (the target) reads 12345 bytes 77 times, and other sizes when it starts
"$TPCTL" count syscalls:sys_enter_read --by count --filter 'count == 12345' --json \
	-- dd if=/dev/zero of=/dev/null bs=12345 count=77 > "$TMP/field.json" 2> "$TMP/field.err"
"$TPCTL" count 'syscalls:sys_enter_getp*' --filter "common_pid == $$" > "$TMP/event.txt" \
	2> "$TMP/event.err" &
ce=$!
until_ready $ce
jq -c '.rows' "$TMP/field.json" > "$TMP/got"
echo '[{"key":{"count":12345},"count":77}]' > "$TMP/want"
test_cmp "--by count: a field of the event as a key (--filter 'count == 12345')" \
	"$TMP/want" "$TMP/got"
stop $ce
printf 'event  COUNT\n' > "$TMP/want"
test_cmp "the default key is the event; a --filter that matches nothing: an empty table" \
	"$TMP/want" "$TMP/event.txt"

# ---- hist: dd's reads of 4096 bytes -------------------------------------------
# as the issue asks it: dd is the target, tpctl starts it and stops when it exits
"$TPCTL" hist syscalls:sys_enter_read --field count --log2 --json \
	-- dd if=/dev/zero of=/dev/null bs=4096 count=3000 > "$TMP/hist.json" 2> "$TMP/hist.err"
st=$?
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["type"] == "hist" and d["field"] == "count" and d["by"] == [] and d["lost"] == 0, d
assert len(d["groups"]) == 1 and d["groups"][0]["key"] == {}, d
g = d["groups"][0]
# 3000 reads of 4096 bytes, and the start-up reads (ld.so, locale files): a few
# of them read 4096 bytes as well
b = [x for x in g["buckets"] if x["min"] <= 4096 < x["max"]]
assert len(b) == 1 and b[0]["min"] == 4096 and b[0]["max"] == 8192, b
assert 3000 <= b[0]["count"] <= 3010, b
assert g["count"] == sum(x["count"] for x in g["buckets"]) > b[0]["count"], g
assert g["max"] == 4096 and g["min"] < 4096, g
assert all(x["max"] == 2 * x["min"] or (x["min"], x["max"]) == (0, 1) for x in g["buckets"])
' "$TMP/hist.json" 2> "$TMP/py.err"
ok $([ $st = 0 ] && [ $? = 0 ]; echo $?) \
	"hist --log2 -- dd ... count=3000: 3000 reads and start-up reads in [4096, 8192), exit 0 when dd ends"
diag "$TMP/py.err" "$TMP/hist.err"
grep -q 'records out' "$TMP/hist.err"
ok $? "-- COMMAND: dd's own output goes to stderr, stdout has only the table"
"$TPCTL" hist syscalls:sys_enter_read --field count --by fd --filter 'count == 4096' \
	-- dd if=/dev/zero of=/dev/null bs=4096 count=3000 > "$TMP/hist.txt" 2> "$TMP/hist.err2"
grep -A1 '^fd=0 ' "$TMP/hist.txt" | sed 's/  */ /g' > "$TMP/got"
printf '%s\n' "fd=0 count=3000 sum=12288000 min=4096 max=4096" \
	"[4K, 8K) 3000 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|" > "$TMP/want"
test_cmp "hist text: dd's reads of its input (fd 0), a bpftrace-style bar" "$TMP/want" "$TMP/got"

# -p: the generators' pids given to the kernel (set_event_pid), not a filter
gen_start 700
gen_start 1300
"$TPCTL" count syscalls:sys_enter_getpid --by pid -p "${GPIDS[3]},${GPIDS[4]}" --json \
	> "$TMP/p.json" 2> "$TMP/p.err" &
cp=$!
until_ready $cp
gen_go
wait $cp
st=$?
jq -r '.rows[] | "\(.key.pid) \(.count)"' "$TMP/p.json" | sort > "$TMP/got"
printf '%s\n' "${GPIDS[3]} 700" "${GPIDS[4]} 1300" | sort > "$TMP/want"
test_cmp "-p PID,PID: exact counts, and count ends by itself when they exit (exit $st)" \
	"$TMP/want" "$TMP/got"

# ---- the kernel stack as a key ----------------------------------------------------
# each event's stack as stream --stack shows it (the stacktrace trigger's records)
"$TPCTL" count syscalls:sys_enter_getpid --stack --json -- "${GEN[@]}" 300 <<< go \
	> "$TMP/stack.json" 2> "$TMP/stack.err"
st=$?
"$TPCTL" stream syscalls:sys_enter_getpid --stack --json -- "${GEN[@]}" 3 <<< go \
	> "$TMP/stack-stream.json" 2> /dev/null
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = [json.loads(l) for l in open(sys.argv[2])]
ev = [e for e in ev if e.get("type") == "event"]
assert d["by"] == ["event", "stack"] and d["lost"] == 0, d
# the generator starts by printing its pid (bench/gen calls getpid for it)
assert 300 <= sum(r["count"] for r in d["rows"]) <= 301, d
top = d["rows"][0]
assert top["count"] >= 300 and top["key"]["event"] == "syscalls:sys_enter_getpid", top
frames = [(f["sym"], f["off"]) for f in top["key"]["stack"]]
want = [(f["sym"], f["off"]) for f in ev[-1]["stack"]]
assert frames and frames == want, (frames, want)
' "$TMP/stack.json" "$TMP/stack-stream.json" 2> "$TMP/py.err"
ok $([ $st = 0 ] && [ $? = 0 ]; echo $?) \
	"--stack: every getpid() under the stack stream --stack shows for it"
diag "$TMP/py.err" "$TMP/stack.err"

# ---- --interval -----------------------------------------------------------------
"$TPCTL" count syscalls:sys_enter_getpid --interval 0.3 --duration 1.3 > "$TMP/int.txt" 2> "$TMP/int.err"
st=$?
blocks=$(grep -c -E '^[0-9]{2}:[0-9]{2}:[0-9]{2} \([0-9.]+ s' "$TMP/int.txt")
ok $([ $st = 0 ] && [ "$blocks" -ge 4 ] && [ "$blocks" -le 6 ]; echo $?) \
	"--interval 0.3 --duration 1.3: a block per interval on a pipe ($blocks)"
[ "$(grep -c '^totals (' "$TMP/int.txt")" = 1 ] && [ "$(tail -n +1 "$TMP/int.txt" |
	grep -n '^totals' | cut -d: -f1)" -gt "$(grep -n -E '^[0-9]{2}:' "$TMP/int.txt" |
	tail -1 | cut -d: -f1)" ]
ok $? "--interval: the totals come last"
"$TPCTL" hist syscalls:sys_enter_read --field count --interval 0.25 --duration 1.1 --json \
	> "$TMP/int.json" 2> "$TMP/int.err"
st=$?
python3 -c '
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
assert 4 <= len(docs) <= 6, len(docs)
assert all(d["type"] == "hist" and 0 < d["interval_ns"] < 600000000 for d in docs)
' "$TMP/int.json" 2> "$TMP/py.err"
ok $([ $st = 0 ] && [ $? = 0 ]; echo $?) "--interval --json: one document per interval, each parses"
diag "$TMP/py.err"
jq -e -s 'length >= 4 and all(.[]; .groups | type == "array")' "$TMP/int.json" > /dev/null
ok $? "--interval --json: jq reads every document"

# ---- refused: exit 2, nothing changed ---------------------------------------------
MSG="unknown key 'nosuch' in 'syscalls:sys_enter_read' \(the keys: event, comm, pid, cpu, stack, .*count"
run_refused "count --by an unknown field" 2 "$TPCTL" count syscalls:sys_enter_read --by nosuch
MSG="unknown field 'nosuch' in 'syscalls:sys_enter_read' \(its fields: .*count"
run_refused "hist --field an unknown field" 2 \
	"$TPCTL" hist syscalls:sys_enter_read --field nosuch
MSG="not a number"
run_refused "hist --field of a string field" 2 \
	"$TPCTL" hist task:task_rename --field newcomm
MSG="twice"
run_refused "--by a key twice" 2 "$TPCTL" count syscalls:sys_enter_read --by comm,pid,comm
MSG="empty key"
run_refused "--by an empty key" 2 "$TPCTL" count syscalls:sys_enter_read --by comm,,pid
MSG="invalid key"
run_refused "--by a key that is no name" 2 "$TPCTL" count syscalls:sys_enter_read --by 'co mm'
MSG="invalid engine"
run_refused "--engine something else" 2 \
	"$TPCTL" count syscalls:sys_enter_read --engine gpu
MSG="no field given"
run_refused "hist without --field" 2 "$TPCTL" hist syscalls:sys_enter_read
MSG="cannot be used together"
run_refused "--log2 and --linear" 2 \
	"$TPCTL" hist syscalls:sys_enter_read --field count --log2 --linear 10
MSG="no event given"
run_refused "count without EVENT" 2 "$TPCTL" count --by comm
MSG="no such event"
run_refused "an unknown event" 2 "$TPCTL" count syscalls:sys_enter_nosuch
MSG="private instance"
run_refused "-i NAME" 2 "$TPCTL" -i foo count syscalls:sys_enter_read
MSG="invalid filter"
run_refused "an invalid filter" 2 "$TPCTL" count syscalls:sys_enter_read --filter 'nosuch > 1'
MSG=
if [ -e "$TRACEFS/events/syscalls/sys_enter_read/hist" ]; then
	skip "--engine kernel without hist triggers: this kernel has them"
else
	MSG="no hist triggers"
	run_refused "--engine kernel on a kernel without hist triggers: exit 1" 1 \
		"$TPCTL" count syscalls:sys_enter_read --engine kernel
	MSG=
fi

# ---- signals and the end of stdout ------------------------------------------------
for sig in TERM HUP; do
	"$TPCTL" count syscalls:sys_enter_getpid --filter "common_pid == $$" --by comm \
		> "$TMP/sig.out" 2> "$TMP/sig.err" &
	p=$!
	until_ready $p
	kill -$sig $p
	wait $p
	st=$?
	ok $([ $st = 0 ] && [ "$(head -1 "$TMP/sig.out")" = "comm  COUNT" ] &&
		[ ! -d "$TRACEFS/instances/tpctl-$p" ]; echo $?) \
		"SIG$sig: the totals, exit 0 ($st), tpctl-$p gone"
done
mkfifo "$TMP/fifo"
"$TPCTL" count syscalls:sys_enter_getpid --interval 0.1 > "$TMP/fifo" 2> "$TMP/pipe.err" &
p=$!
head -1 < "$TMP/fifo" > /dev/null
wait $p
st=$?
ok $([ $st = 0 ] && [ ! -s "$TMP/pipe.err" ] && [ ! -d "$TRACEFS/instances/tpctl-$p" ]; echo $?) \
	"| head -1: ends quietly (exit $st) once the reader is gone, tpctl-$p gone"

ok $([ "$(top_digest)" = "$before" ] && [ "$(orphans)" = "$orph" ]; echo $?) \
	"the top level is as before and no private instance is left"
done_testing
