#!/bin/bash
# count and hist --input FILE: a recording asked instead of the live kernel.
# A workload with a known number of getpid(2) calls (tests/cli/tgen.c) is
# recorded once; count --input finds exactly that number, and every row of
# count and hist agrees with the same sums made by jq over `tpctl report
# --json` of the same file (an independent reader of the records).  --filter
# is applied to the recording.  Events the file lacks, a TARGET, the kernel
# engine, a missing or damaged file: one line, the documented exit status,
# and tracefs is never touched.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v jq > /dev/null || skip_all "jq is not installed (make deps installs it)"
[ -e "$TRACEFS/events/syscalls/sys_enter_getpid" ] || skip_all "no syscalls:sys_enter_getpid"
need_tgen
plan 20

N=1234
F=$TMP/w.dat
"$TPCTL" record -o "$F" "$EV" raw_syscalls:sys_exit sched:sched_switch -- "$G" -o $N \
	> "$TMP/rec.out" 2> "$TMP/rec.err"
ok $? "a workload of $N getpid calls recorded"
pid=$(sed -n 's/^pid //p' "$TMP/rec.err" "$TMP/rec.out" | head -1)
"$TPCTL" report --json "$F" > "$TMP/all.json"
ok $? "tpctl report --json reads the recording"

before=$(state_digest)

# rows of a count document as "KEY COUNT" lines, sorted
rows() { jq -r '.rows[] | "\(.key | to_entries | map(.value | tostring) | join(",")) \(.count)"' | sort; }

expect_status "count --input by pid" 0 "$TPCTL" count --input "$F" "$EV" --by pid --json
got=$(rows < "$TMP/out" | awk -v p="$pid" '$1 == p {print $2}')
[ "$got" = "$N" ]
ok $? "count --input: exactly $N getpid calls of pid $pid (got '$got')"

jq -r 'select(.type == "event" and .event == "sys_enter_getpid") | .pid' "$TMP/all.json" |
	sort | uniq -c | awk '{print $2, $1}' | sort > "$TMP/want"
rows < "$TMP/out" > "$TMP/got"
test_cmp "count --input by pid equals report --json's records" "$TMP/want" "$TMP/got"

expect_status "count --input sched_switch by prev_comm,cpu" 0 \
	"$TPCTL" count --input "$F" sched:sched_switch --by prev_comm,cpu --json
jq -r 'select(.type == "event" and .event == "sched_switch") | "\(.fields.prev_comm),\(.cpu)"' \
	"$TMP/all.json" | sort | uniq -c | awk '{print $2, $1}' | sort > "$TMP/want"
rows < "$TMP/out" > "$TMP/got"
test_cmp "every row of count --input sched_switch equals report --json's" "$TMP/want" "$TMP/got"

expect_status "count --input --filter" 0 "$TPCTL" count --input "$F" raw_syscalls:sys_exit \
	--filter 'id != 39 && (id < 3 || id > 9)' --json
all=$(jq -r 'select(.type == "event" and .event == "sys_exit") | 1' "$TMP/all.json" | wc -l)
want=$(jq -r 'select(.type == "event" and .event == "sys_exit" and .fields.id != 39
	and (.fields.id < 3 or .fields.id > 9)) | 1' "$TMP/all.json" | wc -l)
got=$(jq '[.rows[].count] | add // 0' "$TMP/out")
[ "$got" = "$want" ] && [ "$want" -gt 0 ] && [ "$want" -lt "$all" ]
ok $? "--filter is applied to the recording ($got, want $want of $all)"

expect_status "hist --input of sys_exit's ret by pid" 0 "$TPCTL" hist --input "$F" \
	raw_syscalls:sys_exit --field ret --by pid --json
# exact 64-bit sums: python's integers, not awk's doubles
python3 -c '
import json, sys
g = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("type") == "event" and e["event"] == "sys_exit":
        v = e["fields"]["ret"]
        n, s, lo, hi = g.get(e["pid"], (0, 0, v, v))
        g[e["pid"]] = (n + 1, s + v, min(lo, v), max(hi, v))
for p, (n, s, lo, hi) in g.items():
    print(p, n, s, lo, hi)
' "$TMP/all.json" | sort > "$TMP/want"
jq -r '.groups[] | "\(.key.pid) \(.count) \(.sum) \(.min) \(.max)"' "$TMP/out" | sort > "$TMP/got"
test_cmp "hist --input: count, sum, min and max per pid equal report --json's" \
	"$TMP/want" "$TMP/got"

expect_status "an event the recording lacks: exit 2" 2 \
	"$TPCTL" count --input "$F" irq:irq_handler_entry
grep -q "no event 'irq:irq_handler_entry' in '$F'" "$TMP/err" && [ "$(wc -l < "$TMP/err")" = 1 ]
ok $? "... one line naming the event and the file"

expect_status "--input with -- COMMAND: exit 2" 2 "$TPCTL" count --input "$F" "$EV" -- true
expect_status "--input with --engine kernel: exit 2" 2 \
	"$TPCTL" count --input "$F" "$EV" --engine kernel
expect_status "a missing file: exit 1" 1 "$TPCTL" count --input "$TMP/none.dat" "$EV"
head -c 3000 "$F" > "$TMP/cut.dat"
expect_status "a damaged file: exit 1" 1 "$TPCTL" hist --input "$TMP/cut.dat" "$EV" --field id

[ "$(state_digest)" = "$before" ]
ok $? "no --input run changed tracefs"

# trace-cmd's recording, its events in the buffer of the instance -B made
TC=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
if [ -x "$TC" ]; then
	B=tpt-input-$$
	# trace-cmd 3.1.6 here now and then writes a file with empty buffers
	# (0 bytes per CPU, the generator's events nowhere), or, on a loaded
	# machine, without some of them: it is tried again until the oracle
	# holds the generator's 500 calls
	for try in 1 2 3 4 5; do
		(cd "$TMP" && "$TC" record --no-filter -B "$B" -e sched:sched_switch -e "$EV" \
			-o tc.dat "$G" 500 > tc.log 2>&1)
		if [ -d "$TRACEFS/instances/$B" ]; then
			echo 0 > "$TRACEFS/instances/$B/events/enable" 2> /dev/null
			rmdir "$TRACEFS/instances/$B" 2> /dev/null
		fi
		"$TPCTL" report --json "$TMP/tc.dat" 2> /dev/null | jq -r 'select(.type == "event" and
			.event == "sys_enter_getpid") | .pid' | sort | uniq -c | grep -q '^ *500 ' && break
		diag "$TMP/tc.log"
	done
	expect_status "count --input of trace-cmd's recording" 0 \
		"$TPCTL" count --input "$TMP/tc.dat" sched:sched_switch "$EV" --by event,pid --json
	"$TPCTL" report --json "$TMP/tc.dat" | jq -r 'select(.type == "event") |
		"\(.system):\(.event),\(.pid)"' | sort | uniq -c | awk '{print $2, $1}' | sort > "$TMP/want"
	rows < "$TMP/out" > "$TMP/got"
	grep -q "sys_enter_getpid,[0-9]* 500$" "$TMP/got" && test_cmp \
		"... every row equals report --json's, the 500 getpid calls among them" \
		"$TMP/want" "$TMP/got" || { ok 1 "... 500 getpid calls counted"; diag "$TMP/got";
		diag "$TMP/tc.log"; }
else
	skip "no trace-cmd"
	skip "no trace-cmd"
fi

done_testing
