#!/bin/bash
# Loss accounting under overload: a generator makes N getpid() calls into a
# stream with a 4 KiB per-CPU buffer.  Every event is either decoded or
# counted as lost: decoded + overwritten + dropped (the stream's summary,
# from the kernel's per-CPU stats) == N, less at most what was still unread
# in the buffer when the stream was stopped (0 in a quiet run).  Lost records appear in the JSON, and with
# --fail-on-loss the same overload exits 1.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs
N=200000
start_gen 1 || skip_all "no event generator (bench/gen or perl on x86_64)"
echo go >&"${GEN[1]}"
wait "$GEN_PID" 2> /dev/null
plan 8

# overload [ARGS...]: the stream of N generator calls; sets sp, st, left
overload() {
	start_gen $N
	"$TPCTL" stream --json syscalls:sys_enter_getpid --filter "common_pid == $gpid" \
		--buffer-kb 4 "$@" > "$TMP/out.json" 2> "$TMP/err" &
	sp=$!
	for _ in $(seq 600); do
		[ "$(cat "$TRACEFS/instances/tpctl-$sp/events/syscalls/sys_enter_getpid/enable" \
			2> /dev/null)" = 1 ] && break
		sleep 0.05
	done
	echo go >&"${GEN[1]}"
	wait "$GEN_PID" 2> /dev/null
	# until the stream has read all it can (its output stops growing)
	local prev=-1 size
	while size=$(stat -c %s "$TMP/out.json") && [ "$size" != "$prev" ]; do
		prev=$size
		sleep 0.3
	done
	# events the stream could not read yet (a partly filled sub-buffer)
	left=$(cat "$TRACEFS/instances/tpctl-$sp"/per_cpu/cpu*/stats 2> /dev/null |
		awk '/^entries:/ { n += $2 } END { print n + 0 }')
	kill -INT $sp
	wait $sp
	st=$?
}

before=$(top_digest)
orph=$(orphans)
overload
[ $st = 0 ]; ok $? "overloaded stream without --fail-on-loss: exit 0 ($st)"
read -r over drop <<< "$(sed -n 's/^tpctl: stream: events lost: \([0-9]*\) overwritten, \([0-9]*\) dropped.*/\1 \2/p' "$TMP/err")"
[ -n "$over" ]; ok $? "a loss summary on stderr: $(head -1 "$TMP/err")"
read -r dec lrec pids <<< "$(python3 -c '
import json, sys
ev = lost = 0
pids = set()
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["type"] == "event":
        ev += 1
        pids.add(r["pid"])
    elif r["type"] == "lost":
        lost += 1
print(ev, lost, ",".join(map(str, sorted(pids))) or "-")' "$TMP/out.json")"
[ "$pids" = "$gpid" ]; ok $? "every decoded event is the generator's ($pids)"
# The stream may still read some of the "unread" events between the look at
# the stats and its stop: what is missing must lie within what was unread.
acc=$((dec + ${over:-0} + ${drop:-0}))
[ $acc -le $N ] && [ $((N - acc)) -le "$left" ]
ok $? "decoded $dec + overwritten ${over:-?} + dropped ${drop:-?} = $acc: produced $N, less at most the $left still unread"
[ "${over:-0}" -gt 0 ] && [ "$lrec" -gt 0 ]
ok $? "events were lost and the JSON says where ($lrec lost records)"
[ ! -e "$TRACEFS/instances/tpctl-$sp" ] && [ "$orph" = "$(orphans)" ] && [ "$before" = "$(top_digest)" ]
ok $? "the private instance is gone, nothing else changed"

overload --fail-on-loss
[ $st = 1 ]; ok $? "the same overload with --fail-on-loss: exit 1 ($st)"
grep -q "^tpctl: stream: events lost: " "$TMP/err"; ok $? "and says what was lost"
done_testing
