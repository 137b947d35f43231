#!/bin/bash
# -- COMMAND is traced from its exec: what tpctl's child does before the
# exec (its set-up: rt_sigaction, dup2, prctl, the wait for tracing) is
# never recorded, counted or joined.  strace(1) is the oracle: the number
# of raw_syscalls:sys_enter of /bin/true is strace's count of its syscalls
# less the execve, the same in every run, for count, stream, record and hist;
# latency syscall has no row for a syscall /bin/true does not make.
# And tpctl's exit status is COMMAND's (128 + N for signal N).
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v jq > /dev/null || skip_all "no jq"
RUNS=${RUNS:-10}
plan 19

if command -v strace > /dev/null && strace -f -qq -o "$TMP/st" /bin/true 2> /dev/null; then
	# one line per syscall, execve left out: tracing starts after it
	grep -v '^[0-9]* *execve(' "$TMP/st" | sed 's/^[0-9]* *//; s/(.*//' | sort > "$TMP/want-names"
	want=$(wc -l < "$TMP/want-names")
else
	want=
fi

# same_every_run NAME CMD...: CMD prints a number; it must be $want in each of $RUNS runs
same_every_run() {
	local name=$1 i got seen=
	shift
	if [ -z "$want" ]; then
		skip "$name: no strace"
		return
	fi
	for i in $(seq "$RUNS"); do
		got=$("$@" 2>> "$TMP/err")
		[ "$got" = "$want" ] || seen="$seen $got"
	done
	ok "$([ -z "$seen" ]; echo $?)" "$name: $want in $RUNS of $RUNS runs${seen:+, got$seen}"
}

count_n() {
	"$TPCTL" count raw_syscalls:sys_enter --json -- /bin/true | jq '.rows[0].count'
}
stream_n() {
	"$TPCTL" stream raw_syscalls:sys_enter --json -- /bin/true | jq -c 'select(.type == "event")' |
		wc -l
}
record_n() {
	"$TPCTL" record -o "$TMP/r.dat" raw_syscalls:sys_enter -- /bin/true > /dev/null &&
		"$TPCTL" report --json "$TMP/r.dat" | jq -c 'select(.type == "event")' | wc -l
}
hist_n() {
	"$TPCTL" hist raw_syscalls:sys_enter --field id --json -- /bin/true | jq '.groups[0].count'
}
same_every_run "count raw_syscalls:sys_enter -- /bin/true: strace's count less the execve" count_n
same_every_run "stream: the same number of events" stream_n
same_every_run "record: the same number of events in the file" record_n
same_every_run "hist: the same count" hist_n

# the syscalls of latency syscall's rows are among /bin/true's own
if [ -z "$want" ]; then
	skip "latency syscall: no strace"
else
	bad=
	for i in $(seq "$RUNS"); do
		"$TPCTL" latency syscall --json -- /bin/true > "$TMP/lat" 2>> "$TMP/err"
		jq -r '.groups[] | "\(.key.syscall) \(.count)"' "$TMP/lat" | sort > "$TMP/got"
		# exit_group never returns: no row
		grep -v '^exit_group$' "$TMP/want-names" | uniq -c | awk '{print $2, $1}' | sort > "$TMP/want"
		cmp -s "$TMP/want" "$TMP/got" || bad="$bad $(diff "$TMP/want" "$TMP/got" | grep '^[<>]' | tr '\n' ' ')"
	done
	ok "$([ -z "$bad" ]; echo $?)" "latency syscall -- /bin/true: the rows are strace's syscalls, counts and all, in $RUNS runs${bad:+:$bad}"
fi

# count --by syscall: strace's syscalls by name, with their counts
if [ -z "$want" ]; then
	skip "count --by syscall: no strace"
else
	"$TPCTL" count raw_syscalls:sys_enter --by syscall --json -- /bin/true 2>> "$TMP/err" |
		jq -r '.rows[] | "\(.key.syscall) \(.count)"' | sort > "$TMP/got"
	uniq -c "$TMP/want-names" | awk '{print $2, $1}' | sort > "$TMP/want"
	test_cmp "count --by syscall -- /bin/true: strace's syscalls and counts" "$TMP/want" "$TMP/got"
fi
"$TPCTL" count sched:sched_switch --by syscall > /dev/null 2> "$TMP/err2"
ok "$([ $? = 2 ] && grep -q "unknown key 'syscall'" "$TMP/err2"; echo $?)" \
	"count --by syscall of an event that is no syscall: exit 2"

# no launcher syscall in a stream, by name, where the kernel names them (syscalls:*)
if [ -d "$TRACEFS/events/syscalls" ]; then
	"$TPCTL" stream --json 'syscalls:sys_enter_*' -- /bin/true > "$TMP/s" 2>> "$TMP/err"
	jq -r 'select(.type == "event") | .event' "$TMP/s" |
		grep -E '^sys_enter_(rt_sigaction|prctl|dup2|getppid|rt_sigprocmask|ptrace|write|execve)$' > "$TMP/launcher"
	ok "$([ ! -s "$TMP/launcher" ] && [ -s "$TMP/s" ]; echo $?)" \
		"stream syscalls:sys_enter_* -- /bin/true: no rt_sigaction, prctl, dup2, write or execve"
	diag "$TMP/launcher"
else
	skip "no syscalls:* events"
fi

# tpctl's exit status is COMMAND's
for c in "count sched:sched_switch" "stream sched:sched_switch" "record -o $TMP/x.dat sched:sched_switch" \
	 "latency syscall" "hist raw_syscalls:sys_enter --field id"; do
	# shellcheck disable=SC2086
	"$TPCTL" $c -- sh -c 'exit 3' > /dev/null 2>&1
	ok "$([ $? = 3 ]; echo $?)" "${c%% *} -- sh -c 'exit 3': exit 3"
done
"$TPCTL" count sched:sched_switch -- sh -c 'kill -USR1 $$' > /dev/null 2>&1
ok "$([ $? = 138 ]; echo $?)" "count -- a command killed by SIGUSR1: exit 128 + 10"
"$TPCTL" stream sched:sched_switch --duration 0.1 -- sleep 10 > /dev/null 2>&1
ok "$([ $? = 0 ]; echo $?)" "stream --duration ending the command: exit 0, tpctl ended it"
"$TPCTL" count sched:sched_switch -- /bin/true > /dev/null 2>&1
ok "$([ $? = 0 ]; echo $?)" "count -- /bin/true: exit 0"
# tpctl's own failure is still 2, whatever the command would have done
"$TPCTL" count no_such:event -- sh -c 'exit 3' > /dev/null 2>&1
ok "$([ $? = 2 ]; echo $?)" "an unknown event with -- sh -c 'exit 3': exit 2"

# count's interval covers the command: it starts before the command's first step and
# ends after its last (wall clock: ts_ns is the interval's end)
"$TPCTL" count raw_syscalls:sys_enter --json -- sh -c 'date +%s%N; /bin/true; date +%s%N' \
	> "$TMP/c.json" 2> "$TMP/dates"
end=$(jq '.ts_ns' "$TMP/c.json")
begin=$(jq '.ts_ns - .interval_ns' "$TMP/c.json")
first=$(head -1 "$TMP/dates")
last=$(tail -1 "$TMP/dates")
ok "$([ "$begin" -le "$first" ] && [ "$last" -le "$end" ]; echo $?)" \
	"count --json: interval [$begin, $end] covers the command's steps [$first, $last]"

# nothing is left: no tpctl-<pid> instance of a pid that is gone (others run meanwhile)
own_instances | grep '^tpctl-' > "$TMP/left"
ok "$([ ! -s "$TMP/left" ]; echo $?)" "no private instance is left"
diag "$TMP/left"
done_testing
