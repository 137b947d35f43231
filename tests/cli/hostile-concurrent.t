#!/bin/bash
# Two `tpctl stream` on the same event at the same time: each traces in its
# own private instance, both see the events of one generator (a pid filter),
# neither disturbs the other, both instances go away, nothing else changes.
# (--duration only keeps a broken run from hanging; it is not waited for.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs
N=2000
before=$(top_digest)
orph=$(orphans)
start_gen $N || skip_all "no event generator (bench/gen or perl on x86_64)"
plan 7

for s in a b; do
	"$TPCTL" stream --json syscalls:sys_enter_getpid --filter "common_pid == $gpid" \
		--buffer-kb 1024 --count $N --duration 300 > "$TMP/$s.json" 2> "$TMP/$s.err" &
	eval "pid_$s=$!"
done
# both private instances exist with the event enabled
for _ in $(seq 600); do
	n=0
	for p in $pid_a $pid_b; do
		[ "$(cat "$TRACEFS/instances/tpctl-$p/events/syscalls/sys_enter_getpid/enable" \
			2> /dev/null)" = 1 ] && n=$((n + 1))
	done
	[ $n = 2 ] && break
	sleep 0.05
done
[ $n = 2 ]; ok $? "two private instances tpctl-$pid_a and tpctl-$pid_b trace at once"
echo go >&"${GEN[1]}"
st_a=0 st_b=0
wait $pid_a || st_a=$?
wait $pid_b || st_b=$?
wait "$GEN_PID" 2> /dev/null
[ $st_a = 0 ] && [ $st_b = 0 ]; ok $? "both exit 0 ($st_a, $st_b)"
for s in a b; do
	python3 - "$TMP/$s.json" "$gpid" "$N" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ev = [r for r in recs if r["type"] == "event"]
ok = len(ev) == int(sys.argv[3]) and all(
    r["pid"] == int(sys.argv[2]) and r["event"] == "sys_enter_getpid" for r in ev)
sys.exit(0 if ok else 1)
PY
	ok $? "stream $s saw all $N events of the generator, and only those"
done
[ ! -e "$TRACEFS/instances/tpctl-$pid_a" ] && [ ! -e "$TRACEFS/instances/tpctl-$pid_b" ]
ok $? "both private instances are gone"
[ "$before" = "$(top_digest)" ]; ok $? "the top level did not change"
[ "$orph" = "$(orphans)" ]; ok $? "no orphaned instance was left"
done_testing
