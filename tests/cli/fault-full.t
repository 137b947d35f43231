#!/bin/bash
# Output to a full disk (a small tmpfs in a private mount namespace):
# `stream > file` (JSON and text) and `record -o` report the write error and
# exit 1, the private instance goes away, nothing else changes, and the
# partial trace.dat (version 6 and 7) is still read by tpctl report and
# trace-cmd report, with the same events.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs
tc=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
mkdir "$TMP/full"
# infull SCRIPT ARGS...: sh -c SCRIPT with a fresh tmpfs of $SIZE (256k) on $TMP/full
infull() {
	local script=$1
	shift
	unshare -m --propagation private sh -c \
		'mount -t tmpfs -o size='"${SIZE:-256k}"' tpctl-full "$0" || exit 99; '"$script" \
		"$TMP/full" "$@"
}
infull true 2> /dev/null || skip_all "cannot mount a tmpfs in a private mount namespace"
start_gen 1 || skip_all "no event generator (bench/gen or perl on x86_64)"
echo go >&"${GEN[1]}"
wait "$GEN_PID" 2> /dev/null
plan 20

# stream_full MODE: a stream of the generator's getpid calls into the full disk
stream_full() {
	local before orph inst=
	before=$(top_digest)
	orph=$(orphans)
	start_gen 200000
	infull '"$1" stream $2 syscalls:sys_enter_getpid --filter "common_pid == $3" \
		--count 200000 --duration 300 --buffer-kb 1024 > "$0/out" 2> "$4"; echo $? > "$5"' \
		"$TPCTL" "$1" "$gpid" "$TMP/err" "$TMP/st" &
	local ns=$!
	for _ in $(seq 600); do
		inst=$(grep -l "common_pid == $gpid" \
			"$TRACEFS"/instances/tpctl-*/events/syscalls/sys_enter_getpid/filter 2> /dev/null)
		[ -n "$inst" ] && break
		sleep 0.05
	done
	echo go >&"${GEN[1]}"
	wait "$GEN_PID" 2> /dev/null
	wait $ns
	[ "$(cat "$TMP/st")" = 1 ] && grep -q "^tpctl: stream: .*No space left on device" "$TMP/err"
	ok $? "stream $1 > full disk: exit 1 ($(cat "$TMP/st")) with the write error"
	diag "$TMP/err"
	inst=${inst%/events/*}
	[ -n "$inst" ] && [ ! -e "$inst" ] && [ "$orph" = "$(orphans)" ]
	ok $? "stream $1 > full disk: its private instance ${inst##*/} is gone"
	[ "$before" = "$(top_digest)" ]; ok $? "stream $1 > full disk: nothing else changed"
}
stream_full --json
stream_full ""

# record -o on the full disk, then read what it left (inside the namespace).
# The reading tpctl runs without TPCTL_WRAPPER: the unfinished file is sparse
# with an apparent size of CPUs x 32 GiB, which report maps whole, more
# address space than valgrind gives.
if [ -x "$TOP/bench/gen" ]; then
	load="echo | '$TOP/bench/gen' 1000000 > /dev/null"
else
	load="perl -e 'syscall(39) for 1 .. 1000000'"
fi
# record_full VERSION SIZE: record -o on a full disk of SIZE, then read what it left
record_full() {
	local v=$1 n m
	before=$(top_digest)
	orph=$(orphans)
	rm -f "$TMP"/rec.* "$TMP"/rep.* "$TMP"/tc.*
	SIZE=$2 infull '"$1" record --file-version $6 -o "$0/x.dat" syscalls:sys_enter_getpid \
			--buffer-kb 256 -- sh -c "$2" > /dev/null 2> "$3/rec.err"; echo $? > "$3/rec.st"
		"$5" report "$0/x.dat" > "$3/rep.txt" 2> "$3/rep.err"; echo $? > "$3/rep.st"
		if [ -x "$4" ]; then
			(cd "$0" && "$4" report x.dat > "$3/tc.txt" 2> "$3/tc.err"); echo $? > "$3/tc.st"
		fi' "$TPCTL" "$load" "$TMP" "$tc" "$TOP/tpctl" "$v"
	[ "$(cat "$TMP/rec.st")" = 1 ] &&
		grep -q "^tpctl: record: .*No space left on device" "$TMP/rec.err"
	ok $? "v$v: record -o on a full disk: exit 1 ($(cat "$TMP/rec.st")) with the write error"
	diag "$TMP/rec.err"
	[ "$orph" = "$(orphans)" ]; ok $? "v$v: record: no private instance left"
	[ "$before" = "$(top_digest)" ]; ok $? "v$v: record: nothing else changed"
	# the kernel's text for the event, as tpctl prints it: "sys_getpid()"
	n=$(grep -c ': sys_getpid()$' "$TMP/rep.txt")
	[ "$(cat "$TMP/rep.st")" = 0 ] && [ "$n" -gt 0 ]
	ok $? "v$v: tpctl report reads the partial trace.dat ($n events, exit $(cat "$TMP/rep.st"))"
	diag "$TMP/rep.err"
	if [ -f "$TMP/tc.st" ]; then
		m=$(grep -c ' sys_enter_getpid: ' "$TMP/tc.txt")
		[ "$(cat "$TMP/tc.st")" = 0 ]
		ok $? "v$v: trace-cmd report reads it too (exit $(cat "$TMP/tc.st"))"
		[ "$n" = "$m" ]; ok $? "v$v: both see the same events ($n, $m)"
	else
		skip "no trace-cmd ($tc)"
		skip "no trace-cmd ($tc)"
	fi
}
# room for the header (formats, kallsyms: about 200 KiB) and some pages;
# compressed, a million events take about 0.8 MiB
record_full 6 4m
record_full 7 256k
# and a stream with stdout on /dev/full
before=$(top_digest)
orph=$(orphans)
"$TPCTL" stream sched:sched_switch --count 100000 > /dev/full 2> "$TMP/err"
st=$?
[ $st = 1 ] && grep -q "^tpctl: stream: .*No space left on device" "$TMP/err"
ok $? "stream > /dev/full: exit 1 ($st) with the write error"
[ "$orph" = "$(orphans)" ] && [ "$before" = "$(top_digest)" ]
ok $? "stream > /dev/full: no instance left, nothing changed"
done_testing
