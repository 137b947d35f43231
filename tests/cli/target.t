#!/bin/bash
# tpctl stream TARGET: only the processes named, from their first event.
# tgen (tests/cli/tgen.c) makes known numbers of getpid(2) calls in a chain
# of processes and prints their pids; an unrelated tgen calls getpid(2)
# without end the whole time.  The events counted per pid must be exactly
# the workload's, none of the other's: for -- COMMAND (child and grandchild,
# an exec chain), --pid of a running process, --follow of a child started
# after tpctl, --cgroup, and -a.  tpctl's own pid never shows.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v jq > /dev/null || skip_all "no jq"
[ -e "$TRACEFS/events/syscalls/sys_enter_getpid" ] || skip_all "no syscalls:sys_enter_getpid"
need_tgen

# the top level's pid lists and options are as they were at the end
top_state() { top_pid_lists | md5sum; }
top_before=$(top_state)
runs=

WAIT_TRIES=600

# counts FILE: "PID COUNT" of every event line of an NDJSON stream, by pid
counts() {
	jq -r 'select(.type == "event") | .pid' "$1" | sort -n | uniq -c | awk '{print $2, $1}'
}

# expect PIDFILE N...: "PID N" for the i-th "pid P" line of PIDFILE and the i-th N
# (a pid printed twice, by an exec chain, adds up)
expect() {
	local f=$1
	shift
	grep -o '^pid [0-9]*' "$f" | awk '{print $2}' | paste -d' ' - <(printf '%s\n' "$@") |
		awk '{n[$1] += $2} END {for (p in n) print p, n[p]}' | sort -n
}

# the unrelated process: the same event, as fast as it can, all along
"$G" -l &
other=$!
trap 'kill $other 2> /dev/null; _cleanup' EXIT

# ---- -- COMMAND: a child and a grandchild ------------------------------------

"$TPCTL" stream --json $EV -- "$G" -o 300 -- "$G" -o 200 -- "$G" -o 100 \
	> "$TMP/cmd.json" 2> "$TMP/cmd.err" &
tp=$!
runs="$runs $tp"
wait $tp
ok $? "-- COMMAND: exit 0"
diag "$TMP/cmd.err"
expect "$TMP/cmd.err" 300 200 100 > "$TMP/want"
counts "$TMP/cmd.json" > "$TMP/got"
test_cmp "-- COMMAND: exactly the counts of the command, its child and grandchild" \
	"$TMP/want" "$TMP/got"
ok $(! grep -q "\"pid\":$other," "$TMP/cmd.json"; echo $?) "-- COMMAND: no event of the unrelated process"
first=$(head -1 "$TMP/want" | cut -d' ' -f1)
[ "$(head -1 "$TMP/cmd.json" | jq -r '"\(.type) \(.pid) \(.event)"')" = "event $first sys_enter_getpid" ]
ok $? "-- COMMAND: the first line is the command's first getpid"
jq -c . "$TMP/cmd.json" > /dev/null 2>&1
ok $? "-- COMMAND: every line of stdout parses (the command's stdout went to stderr)"
[ "$(tail -1 "$TMP/cmd.json")" = "{\"type\":\"exit\",\"pid\":$first,\"status\":0,\"signal\":null}" ]
ok $? "-- COMMAND: the last line is the command's exit"
ok $(! grep -q "\"pid\":$tp," "$TMP/cmd.json"; echo $?) "-- COMMAND: tpctl's own pid is not there"

# text: the same counts, by the pid in the kernel's "comm-pid" column
"$TPCTL" stream $EV -- "$G" -o 30 -- "$G" -o 20 > "$TMP/cmd.txt" 2> "$TMP/cmd.terr"
ok $? "-- COMMAND, text: exit 0"
expect "$TMP/cmd.terr" 30 20 > "$TMP/want"
sed -n 's/^ *.*-\([0-9][0-9]*\) *\[[0-9]*\] .*sys_getpid()$/\1/p' "$TMP/cmd.txt" |
	sort -n | uniq -c | awk '{print $2, $1}' > "$TMP/got"
[ "$(wc -l < "$TMP/cmd.txt")" = 50 ]
ok $? "-- COMMAND, text: 50 lines, all events"
test_cmp "-- COMMAND, text: the same counts" "$TMP/want" "$TMP/got"

# an exec chain: one pid, two programs
"$TPCTL" stream --json $EV -- "$G" -o -e 40 -- "$G" -o 25 > "$TMP/exec.json" 2> "$TMP/exec.err"
ok $? "exec chain: exit 0"
expect "$TMP/exec.err" 40 25 > "$TMP/want"
counts "$TMP/exec.json" > "$TMP/got"
[ "$(wc -l < "$TMP/want")" = 1 ]
ok $? "exec chain: one pid for both programs"
test_cmp "exec chain: 65 events of that pid" "$TMP/want" "$TMP/got"

# the command's exit status reaches a script: tpctl's own is the command's
"$TPCTL" stream --json $EV -- "$G" 2 -- sh -c 'exit 3' > "$TMP/st.json" 2> "$TMP/st.err"
st=$?
[ $st = 3 ] && [ "$(tail -1 "$TMP/st.json" | jq -r '.status')" = 3 ] &&
	grep -q "^tpctl: stream: '$G' exited with status 3$" "$TMP/st.err"
ok $? "exit status 3: tpctl exits 3 (got $st), the exit line and a note say 3"
"$TPCTL" stream --json $EV -- sh -c 'kill -KILL $$' > "$TMP/sig.json" 2> "$TMP/sig.err"
st=$?
[ $st = 137 ] && [ "$(tail -1 "$TMP/sig.json" | jq -c '[.status, .signal]')" = '[null,9]' ]
ok $? "killed by SIGKILL: the exit line says signal 9, tpctl exits 128 + 9 (got $st)"

# ---- -a: every process while COMMAND runs ------------------------------------

mkfifo "$TMP/fifo.a"
exec 3<> "$TMP/fifo.a"	# held open: tgen's open for reading does not wait for a writer
"$G" -w -o 77 < "$TMP/fifo.a" > "$TMP/a.pid" &
apid=$!
wait_for "[ -s '$TMP/a.pid' ]"
# the command lets the unrelated tgen go and waits until it is done
"$TPCTL" stream --json --buffer-kb 8192 -a $EV -- sh -c "echo go > '$TMP/fifo.a'; while kill -0 $apid 2> /dev/null; do sleep 0.02; done" \
	> "$TMP/all.json" 2> "$TMP/all.err" &
tp=$!
runs="$runs $tp"
wait $tp
ok $? "-a: exit 0"
wait $apid 2> /dev/null
exec 3>&-
[ "$(counts "$TMP/all.json" | awk -v p=$apid '$1 == p {print $2}')" = 77 ]
ok $? "-a: all 77 events of a process outside the command"
[ "$(counts "$TMP/all.json" | awk -v p=$other '$1 == p {print $2}')" -gt 0 ]
ok $? "-a: and the unrelated process's"
ok $(! grep -q "\"pid\":$tp," "$TMP/all.json"; echo $?) "-a: but not tpctl's own"

# ---- --pid, --follow ---------------------------------------------------------

# pid_run NAME TPCTL-OPTS...: a tgen waiting on a fifo (300 calls, then a child
# with 120) is traced with --pid PID OPTS; released once tpctl is ready; tpctl
# must end by itself when the target is gone.
pid_run() {
	local name=$1 i
	shift
	rm -f "$TMP/fifo"
	mkfifo "$TMP/fifo"
	exec 3<> "$TMP/fifo"
	"$G" -w -o 300 -- "$G" -o 120 < "$TMP/fifo" > "$TMP/$name.pids" &
	gp=$!
	wait_for "[ -s '$TMP/$name.pids' ]"
	"$TPCTL" stream --json $EV -p $gp "$@" > "$TMP/$name.json" 2> "$TMP/$name.err" &
	tp=$!
	runs="$runs $tp"
	wait_for "grep -qx $gp '$TRACEFS/instances/tpctl-$tp/set_event_pid' 2> /dev/null &&
		grep -q 1 '$TRACEFS/instances/tpctl-$tp/events/syscalls/sys_enter_getpid/enable' 2> /dev/null"
	ok $? "$name: tpctl is ready"
	echo go >&3
	exec 3>&-
	wait $gp
	for ((i = 0; i < 600; i++)); do
		kill -0 $tp 2> /dev/null || break
		sleep 0.05
	done
	kill -0 $tp 2> /dev/null && kill $tp
	wait $tp
	ok $? "$name: tpctl ends by itself when the target is gone, exit 0"
	diag "$TMP/$name.err"
}

pid_run pid
echo "$gp 300" > "$TMP/want"
counts "$TMP/pid.json" > "$TMP/got"
test_cmp "--pid: the 300 events of the running process, not its child's" "$TMP/want" "$TMP/got"

pid_run follow -F
expect "$TMP/follow.pids" 300 120 > "$TMP/want"
counts "$TMP/follow.json" > "$TMP/got"
test_cmp "--pid --follow: also the 120 of the child it started after tpctl" "$TMP/want" "$TMP/got"

# ---- --cgroup ----------------------------------------------------------------

cg2=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
CG=
if [ -n "$cg2" ] && mkdir "$cg2/tpt-target-$$" 2> /dev/null; then
	CG=$cg2/tpt-target-$$
	trap 'kill $other 2> /dev/null; rmdir "$CG" 2> /dev/null; _cleanup' EXIT
	rm -f "$TMP/fifo"
	mkfifo "$TMP/fifo"
	exec 3<> "$TMP/fifo"
	"$G" -w -o 90 -- "$G" -o 60 < "$TMP/fifo" > "$TMP/cg.pids" &
	gp=$!
	wait_for "[ -s '$TMP/cg.pids' ]"
	echo $gp > "$CG/cgroup.procs"
	"$TPCTL" stream --json $EV --cgroup "$CG" > "$TMP/cg.json" 2> "$TMP/cg.err" &
	tp=$!
	runs="$runs $tp"
	wait_for "grep -qx $gp '$TRACEFS/instances/tpctl-$tp/set_event_pid' 2> /dev/null &&
		grep -q 1 '$TRACEFS/instances/tpctl-$tp/events/syscalls/sys_enter_getpid/enable' 2> /dev/null"
	echo go >&3
	exec 3>&-
	wait $gp
	wait_for "! kill -0 $tp 2> /dev/null"
	ok $? "--cgroup: tpctl ends by itself when no task of the cgroup is left"
	kill $tp 2> /dev/null
	wait $tp
	ok $? "--cgroup: exit 0"
	diag "$TMP/cg.err"
	expect "$TMP/cg.pids" 90 60 > "$TMP/want"
	counts "$TMP/cg.json" > "$TMP/got"
	test_cmp "--cgroup: the events of its task and of the child it started" "$TMP/want" "$TMP/got"
	expect_status "--cgroup of an empty cgroup: exit 2" 2 "$TPCTL" stream $EV --cgroup "$CG"
	rmdir "$CG"
else
	skip "--cgroup: no writable cgroup v2 mount"
	skip "--cgroup: no writable cgroup v2 mount"
	skip "--cgroup: no writable cgroup v2 mount"
	skip "--cgroup: no writable cgroup v2 mount"
fi

# ---- tpctl's own events, without a target ------------------------------------

"$TPCTL" stream --json raw_syscalls:sys_enter --duration 0.3 > "$TMP/self.json" 2> "$TMP/self.err" &
tp=$!
runs="$runs $tp"
wait $tp
st=$?
[ $st = 0 ] && [ -s "$TMP/self.json" ] && ! grep -q "\"pid\":$tp," "$TMP/self.json"
ok $? "no target: every process but tpctl itself (exit $st)"

kill $other
wait $other 2> /dev/null
left=
for p in $runs; do [ -d "$TRACEFS/instances/tpctl-$p" ] && left="$left tpctl-$p"; done
[ -z "$left" ] && [ "$(top_state)" = "$top_before" ]
ok $? "no instance left${left:+:$left}; the top level's pid lists and options are as before"
plan $_n
done_testing
