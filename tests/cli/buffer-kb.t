#!/bin/bash
# --buffer-kb on latency and serve (the declaration count, hist share): the
# private instance's buffer_size_kb is what was asked while they run; a loss
# says which option keeps the events.
. "$(dirname "$0")/lib.sh"
need_tracefs
for e in sched/sched_switch raw_syscalls/sys_enter; do
	[ -e "$TRACEFS/events/$e" ] || skip_all "no $e event"
done
plan 9

before=$(state_digest)
for c in latency serve; do
	"$TPCTL" $c --help > "$TMP/help" 2>&1
	grep -Eq '^ +-b, --buffer-kb N ' "$TMP/help"
	ok $? "$c --help lists -b, --buffer-kb N"
done

# the buffer of the run's instance, read while it runs: the size asked, as the
# kernel rounds it up to whole sub-buffers (2060 -> 2063 here)
buffer_of() {
	local f=$TRACEFS/instances/tpctl-$1/buffer_size_kb v
	wait_for "{ [ -e $f ] && v=\$(cat $f) && [ \"\$v\" -ge $2 ] && [ \"\$v\" -lt $(($2 + 64)) ]; } || ! kill -0 $1 2>/dev/null" 200
	[ -e "$f" ] && cat "$f"
}
near() { [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -lt $(($2 + 64)) ]; }
"$TPCTL" latency offcpu --buffer-kb 2052 -- sleep 2 > "$TMP/lat.out" 2> "$TMP/lat.err" &
lpid=$!
got=$(buffer_of $lpid 2052)
wait $lpid
st=$?
near "$got" 2052 && [ $st = 0 ]
ok $? "latency --buffer-kb 2052: its instance's buffer_size_kb is 2052 (got '$got', exit $st)"
diag "$TMP/lat.err"

"$TPCTL" latency --function schedule --buffer-kb 2056 -- sleep 2 > "$TMP/fn.out" 2> "$TMP/fn.err" &
fpid=$!
got=$(buffer_of $fpid 2056)
wait $fpid
st=$?
if grep -q "function" "$TMP/fn.err" && [ $st != 0 ]; then
	skip "no function tracer here: $(head -1 "$TMP/fn.err")"
else
	near "$got" 2056
	ok $? "latency --function --buffer-kb 2056: the same (got '$got')"
fi

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$TPCTL" serve --listen "127.0.0.1:$PORT" --buffer-kb 2060 \
	'count raw_syscalls:sys_enter --engine user' > "$TMP/serve.out" 2> "$TMP/serve.err" &
spid=$!
got=$(buffer_of $spid 2060)
kill -TERM $spid
wait $spid
near "$got" 2060
ok $? "serve --buffer-kb 2060: the metrics' instance has 2060 (got '$got')"
diag "$TMP/serve.err"

expect_status "--buffer-kb 0 is refused" 2 "$TPCTL" latency syscall --buffer-kb 0 -- true
grep -q "buffer-kb" "$TMP/err"
ok $? "... naming the option"

# a loss: a tiny buffer and a burst of system calls
"$TPCTL" latency syscall --engine user --buffer-kb 1 -- \
	dd if=/dev/zero of=/dev/null bs=1 count=300000 > "$TMP/loss.out" 2> "$TMP/loss.err"
if grep -q "events lost" "$TMP/loss.err"; then
	grep -Eq '^tpctl: latency: warning: [0-9]+ events lost: the ring buffer overflowed before they were read \(a larger --buffer-kb keeps them\)$' "$TMP/loss.err"
	ok $? "a loss names --buffer-kb"
	diag "$TMP/loss.err"
else
	skip "the 1 KiB buffer lost nothing on this machine"
fi

[ "$(state_digest)" = "$before" ]
ok $? "nothing changed in tracefs"

done_testing
