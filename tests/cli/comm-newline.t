#!/bin/bash
# A task whose name holds a newline (prctl and perl's $0 allow one) puts a
# line that is no "PID NAME" into saved_cmdlines.  libtraceevent's parser
# stops there, and every task named after it was printed as <...>; tpctl
# skips that line.  The kernel's own `trace` text of the same records is the
# oracle of the names (stream --drain of the instance, and report of a
# recording).  grep -a: another task's name may hold any byte.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v perl > /dev/null || skip_all "no perl"
plan 5

make_instance
D=$TRACEFS/instances/$INST
echo 1 > "$D/events/syscalls/sys_enter_getpid/enable"
bad=$(perl -e '$0 = "bad\nname"; syscall(39) for 1 .. 3; print "$$\n"')
perl -e '$0 = "after-nl"; syscall(39) for 1 .. 3'
echo 0 > "$D/tracing_on"
# (the task with the newline itself: the kernel's text breaks its line there)
grep -av '^#' "$D/trace" | grep -ao '^ *[^ ]*-[0-9]* ' | grep -a -- '-[0-9]' | grep -av -- "-$bad \$" \
	> "$TMP/kernel"
grep -q 'after-nl-' "$TMP/kernel"
ok $? "the kernel names the task after the one with a newline ($(grep -c after-nl "$TMP/kernel") records)"
"$TPCTL" -i "$INST" stream --drain > "$TMP/out" 2> "$TMP/err"
grep -ao '^ *[^ ]*-[0-9]* ' "$TMP/out" | grep -av -- "-$bad \$" > "$TMP/mine"
test_cmp "stream --drain: every other record's task named as the kernel names it" "$TMP/kernel" "$TMP/mine"

# a recording holds saved_cmdlines as it was: report reads past the line too
echo 1 > "$D/tracing_on"
"$TPCTL" record -o "$TMP/r.dat" syscalls:sys_enter_getpid -- \
	perl -e '$0 = "after-nl2"; syscall(39) for 1 .. 3' > /dev/null 2>&1
"$TPCTL" report "$TMP/r.dat" > "$TMP/rep" 2> "$TMP/err"
ok $? "report reads the recording"
[ "$(grep -c ' after-nl2-[0-9]' "$TMP/rep")" -ge 3 ]
ok $? "report names the recorded task ($(grep -c 'after-nl2-' "$TMP/rep") records)"
# and so does trace-cmd: in the file every command line is "PID NAME", the
# name's newline written as '?' (its reader stops at the first that is not)
TC=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
if [ -x "$TC" ]; then
	"$TC" dump --cmd-lines "$TMP/r.dat" 2> /dev/null | grep -av '^[[:space:]]*\[' | grep -a . > "$TMP/cl"
	! grep -qavE '^[0-9]+ ' "$TMP/cl" && grep -qax "$bad bad?name" "$TMP/cl"
	ok $? "the recording's command lines are each 'PID NAME', the newline as '?'"
	grep -avE '^[0-9]+ ' "$TMP/cl" | head -3 | diag
else
	skip "no trace-cmd ($TC)"
fi
done_testing
