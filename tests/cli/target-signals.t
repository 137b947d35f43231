#!/bin/bash
# stream -- COMMAND ends cleanly whichever way it ends, and COMMAND never
# outlives it unnoticed: INT, TERM, HUP and a closed stdout end tracing, the
# command gets SIGTERM (SIGKILL if it ignores that), the private instance with
# its set_event_pid and options is gone, the top level is as it was.  SIGKILL
# of tpctl: the command is told by its parent-death signal.  A command that
# cannot run, --user, and the usage errors of the TARGET options.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v jq > /dev/null || skip_all "no jq"
need_tgen

top_state() {
	{
		top_pid_lists
		grep -H . "$TRACEFS"/events/*/*/filter 2> /dev/null | grep -v ':none$'
	} | md5sum
}
top_before=$(top_state)
runs=

WAIT_TRIES=600

# the command tpctl ($1) runs, once it has exec'd $2
child_of() {
	ps -o pid=,comm= --ppid "$1" 2> /dev/null | awk -v c="$2" '$2 == c {print $1; exit}'
}

# ... and runs: tpctl has let it go from its stop at the exec (no tracer any more)
child_runs() {
	local c
	c=$(child_of "$1" "$2")
	[ -n "$c" ] && grep -q '^TracerPid:[[:space:]]*0$' "/proc/$c/status" 2> /dev/null
}

for sig in INT TERM HUP; do
	"$TPCTL" stream --json $EV -- sleep 60 > "$TMP/out.$sig" 2> "$TMP/err.$sig" &
	tp=$!
	runs="$runs $tp"
	wait_for "child_runs $tp sleep"
	c=$(child_of $tp sleep)
	grep -qx "$c" "$TRACEFS/instances/tpctl-$tp/set_event_pid" 2> /dev/null &&
		grep -qx 1 "$TRACEFS/instances/tpctl-$tp/options/event-fork"
	ok $? "SIG$sig: COMMAND $c runs, listed in set_event_pid of tpctl-$tp, event-fork on"
	kill -$sig $tp
	wait $tp
	st=$?
	gone=0
	[ -d "$TRACEFS/instances/tpctl-$tp" ] && gone=1
	kill -0 "$c" 2> /dev/null && gone=1
	ok $([ $st = 0 ] && [ $gone = 0 ]; echo $?) \
		"SIG$sig: exit 0 (got $st), the instance and the command are gone"
	[ "$(tail -1 "$TMP/out.$sig")" = "{\"type\":\"exit\",\"pid\":$c,\"status\":null,\"signal\":15}" ] &&
		grep -qx "tpctl: stream: 'sleep' still ran when tracing stopped; ended by SIGTERM" "$TMP/err.$sig"
	ok $? "SIG$sig: the exit line and the note say tpctl ended it with SIGTERM"
	diag "$TMP/err.$sig"
done

# closed stdout: the command makes events without end; head takes one line
mkfifo "$TMP/fifo"
"$TPCTL" stream --json $EV -- "$G" -l > "$TMP/fifo" 2> "$TMP/err.pipe" &
tp=$!
runs="$runs $tp"
head -1 < "$TMP/fifo" > "$TMP/head"
wait $tp
st=$?
c=$(jq -r .pid "$TMP/head")
[ $st = 0 ] && [ -n "$c" ] && ! kill -0 "$c" 2> /dev/null && [ ! -d "$TRACEFS/instances/tpctl-$tp" ]
ok $? "| head -1: exit 0 (got $st), the command ($c) and the instance are gone"

# a command that ignores SIGTERM gets SIGKILL after the grace period
"$TPCTL" stream $EV -- sh -c 'trap "" TERM; while :; do sleep 0.1; done' > /dev/null 2> "$TMP/err.kill" &
tp=$!
runs="$runs $tp"
wait_for "[ -n \"\$(child_of $tp sh)\" ] && grep -q 1 '$TRACEFS/instances/tpctl-$tp/events/syscalls/sys_enter_getpid/enable' 2> /dev/null"
c=$(child_of $tp sh)
sleep 0.2	# past the exec: sh has set its trap
kill -INT $tp
wait $tp
st=$?
[ $st = 0 ] && ! kill -0 "$c" 2> /dev/null &&
	grep -qx "tpctl: stream: 'sh' still ran when tracing stopped; ended by SIGKILL" "$TMP/err.kill"
ok $? "a command ignoring SIGTERM: SIGKILL after the grace period, exit 0 (got $st)"
diag "$TMP/err.kill"

# SIGKILL of tpctl: nothing of tpctl runs, the parent-death signal tells the command
"$TPCTL" stream $EV -- sleep 60 > /dev/null 2>&1 &
tp=$!
wait_for "[ -n \"\$(child_of $tp sleep)\" ]"
c=$(child_of $tp sleep)
kill -KILL $tp
wait $tp 2> /dev/null
wait_for "! kill -0 $c 2> /dev/null"
ok $? "SIGKILL of tpctl: the command ($c) gets SIGTERM and ends"
kill -KILL "$c" 2> /dev/null
# the instance a killed tpctl leaves is this test's to remove
if [ -d "$TRACEFS/instances/tpctl-$tp" ]; then
	echo 0 > "$TRACEFS/instances/tpctl-$tp/events/enable"
	rmdir "$TRACEFS/instances/tpctl-$tp"
fi

# A reader of another process keeps the instance (the kernel refuses its
# rmdir): then every write tpctl made in it is undone, the pid lists and
# option included, and the instance left idle.
"$TPCTL" stream $EV -- sleep 60 > /dev/null 2>&1 &
tp=$!
runs="$runs $tp"
wait_for "[ -n \"\$(child_of $tp sleep)\" ]"
dir=$TRACEFS/instances/tpctl-$tp
exec 4< "$dir/trace"
kill -TERM $tp
wait $tp
{
	cat "$dir/set_event_pid" "$dir/options/event-fork" "$dir/tracing_on"
	cat "$dir/set_event_notrace_pid" 2> /dev/null
	cat "$dir/events/syscalls/sys_enter_getpid/enable"
} > "$TMP/kept" 2>&1
exec 4<&-
printf '0\n1\n0\n' > "$TMP/want"
test_cmp "rmdir refused: set_event_pid, notrace and enable cleared, event-fork 0, tracing_on 1" \
	"$TMP/want" "$TMP/kept"
echo 0 > "$dir/events/enable" 2> /dev/null
rmdir "$dir" 2> /dev/null

# ---- commands that cannot run --------------------------------------------------

check_nothing_left() {
	local left=
	for p in $runs; do [ -d "$TRACEFS/instances/tpctl-$p" ] && left="$left tpctl-$p"; done
	[ -z "$left" ] && [ "$(top_state)" = "$top_before" ]
}

"$TPCTL" stream $EV -- no-such-command-tpctl > "$TMP/out" 2> "$TMP/err" &
tp=$!
runs="$runs $tp"
wait $tp
st=$?
[ $st = 2 ] && [ ! -s "$TMP/out" ] &&
	[ "$(cat "$TMP/err")" = "tpctl: stream: no such command 'no-such-command-tpctl'" ]
ok $? "a command that does not exist: exit 2 (got $st), one line naming it"
diag "$TMP/err"
check_nothing_left
ok $? "... nothing left"

printf '#!/nonexistent/interpreter\n' > "$TMP/badscript"
chmod +x "$TMP/badscript"
case $TPCTL_WRAPPER in
*valgrind*)
	# valgrind ends a process whose execve(2) fails ("EXEC FAILED"), so
	# the child cannot report it; it runs without the wrapper
	BAD_TPCTL=$TOP/tpctl ;;
*) BAD_TPCTL=$TPCTL ;;
esac
"$BAD_TPCTL" stream $EV -- "$TMP/badscript" > "$TMP/out" 2> "$TMP/err" &
tp=$!
runs="$runs $tp"
wait $tp
st=$?
[ $st = 1 ] && [ "$(cat "$TMP/err")" = "tpctl: stream: cannot run '$TMP/badscript': No such file or directory" ]
ok $? "a command whose exec fails: exit 1 (got $st), one line saying why"
diag "$TMP/err"
check_nothing_left
ok $? "... nothing left"

# ---- --user ------------------------------------------------------------------

if id nobody > /dev/null 2>&1; then
	"$TPCTL" stream $EV --user nobody -- sh -c 'id -u; id -g; echo "$HOME $USER"' \
		> "$TMP/out" 2> "$TMP/err"
	st=$?
	printf '%s\n%s\n%s %s\n' "$(id -u nobody)" "$(id -g nobody)" \
		"$(getent passwd nobody | cut -d: -f6)" nobody > "$TMP/want"
	test_cmp "--user nobody: COMMAND runs with nobody's uid, gid, HOME and USER (exit $st)" \
		"$TMP/want" "$TMP/err"
else
	skip "no user nobody"
fi
SUDO_UID=65534 SUDO_GID=65534 SUDO_USER=nobody "$TPCTL" stream $EV -- sh -c 'id -u' > "$TMP/out" 2> "$TMP/err"
[ "$(cat "$TMP/err")" = "$(id -u)" ]
ok $? "without --user: COMMAND runs as tpctl does, under sudo too (SUDO_UID is not looked at)"

# ---- usage errors: exit 2, nothing changed -------------------------------------

usage() {
	local name=$1
	shift
	expect_status "$name: exit 2" 2 "$TPCTL" stream "$@"
	[ "$(wc -l < "$TMP/err")" = 1 ] && grep -q '^tpctl: stream: ' "$TMP/err"
	ok $? "$name: one error line ($(cat "$TMP/err"))"
}
sleep 30 &
live=$!
usage "-a without COMMAND" $EV -a
usage "--follow without --pid" $EV -F
usage "--user without COMMAND" $EV --user nobody -p $live
usage "--pid and COMMAND" $EV -p $live -- true
usage "--pid and --cgroup" $EV -p $live --cgroup /
usage "--pid 0" $EV -p 0
usage "--pid with junk" $EV -p 12,x
usage "--pid with an empty entry" $EV -p "$live,"
usage "--pid of a process that does not exist" $EV -p 4194304
usage "a target without EVENT" -p $live
usage "nothing after --" $EV --
usage "--cgroup that does not exist" $EV --cgroup /no/such/cgroup
usage "--user that does not exist" $EV --user no-such-user-tpctl -- true
v1=$(awk '$3 == "cgroup" {print $2; exit}' /proc/mounts)
if [ -n "$v1" ]; then
	usage "--cgroup of a cgroup v1 directory" $EV --cgroup "$v1"
else
	skip "no cgroup v1 mount"
	skip "no cgroup v1 mount"
fi
kill $live
check_nothing_left
ok $? "no instance of these runs left, the top level is as before"
plan $_n
done_testing
