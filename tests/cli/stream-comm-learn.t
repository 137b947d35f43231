#!/bin/bash
# JSON names a task as it was called at the time of its events, learned
# from the records that name it (sched_switch's prev_comm and next_comm):
# a task renamed twice (perl's $0 is a prctl) that sleeps after each
# rename has its later events under each new name in turn, and the name
# kept for its events' columns is made again when a record teaches a new
# one.  One reader, and reader threads (--threads 2).
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v perl > /dev/null || skip_all "no perl"
command -v jq > /dev/null || skip_all "no jq"
plan 4

make_instance
D=$TRACEFS/instances/$INST
echo 1 > "$D/events/sched/sched_switch/enable"
echo 1 > "$D/events/syscalls/sys_enter_getpid/enable"
echo 0 > "$D/tracing_on"

# names FILE: the comm of the task's getpid records in a stream --json, in order
names() {
	jq -r --argjson p "$pid" 'select(.event == "sys_enter_getpid" and .pid == $p) | .comm' "$1" |
		tr '\n' ' '
}
for how in "" "--threads 2"; do
	echo 1 > "$D/tracing_on"
	pid=$(perl -e '$0 = "first-nm"; syscall(39) for 1 .. 3; select(undef, undef, undef, 0.05);
		syscall(39) for 1 .. 3; $0 = "second-nm"; select(undef, undef, undef, 0.05);
		syscall(39) for 1 .. 3; print "$$\n"')
	echo 0 > "$D/tracing_on"
	"$TPCTL" -i "$INST" stream --drain --json $how > "$TMP/out" 2> "$TMP/err"
	ok $? "stream --drain --json $how: exit 0"
	got=$(names "$TMP/out")
	# (the calls before the first sleep have the name learned before, or
	# saved_cmdlines' where none was: the shell's, the last; perl's own
	# getpid at its end has the second name)
	[[ "$got" =~ ^([a-z-]+\ )*(first-nm\ ){3}(second-nm\ ){3,}$ ]]
	ok $? "${how:-one reader}: after each sleep the task's calls have its new name"
	[ "$_last" = ok ] || { echo "got: $got" | diag; head -c 600 "$TMP/err" | diag; }
done
done_testing
