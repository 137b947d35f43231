#!/bin/bash
# --folded and --flamegraph on the live tracefs: count --by stack of a program
# of N getpid calls weighs N, each line "frames weight" with the root first;
# the SVG passes xmllint, and chromium's DOM of it has the frames, titles and
# widths of the folded lines (tests/cli/flame-check.py); a task named
# '<svg onload=1>' is text in a <title>, never an element; one named 'x;y\nz'
# is one frame 'x:y?z' of its lines; a recording with stacks gives the same
# lines; the errors: no stack key, an unwritable path, a recording without
# stacks (clear message, exit 2 or 1, no file left).
. "$(dirname "$0")/lib.sh"
need_tracefs
[ "$(uname -m)" = x86_64 ] && command -v perl > /dev/null ||
	skip_all "no getpid generator (perl on x86_64)"
plan 18
N=1000
GEN=(perl -e 'syscall(39) for 1 .. $ARGV[0]')
# svg_checks X WHAT DOMWHAT [NAME]: $TMP/X.svg through xmllint, chromium's DOM of it
# against $TMP/X.folded (and NAME the text of a title)
svg_checks() {
	if command -v xmllint > /dev/null; then
		xmllint --noout "$TMP/$1.svg" 2> "$TMP/err"; ok $? "xmllint accepts $2"
		diag "$TMP/err"
	else
		skip "xmllint is not installed (make deps)"
	fi
	if [ -z "$CHROMIUM" ]; then
		skip "chromium is not installed (make deps)"
		return
	fi
	dom "$TMP/$1.svg" > "$TMP/$1.dom"
	python3 "$TOP/tests/cli/flame-check.py" "$TMP/$1.dom" "$TMP/$1.folded" ${4:+"$4"} \
		> "$TMP/err" 2>&1
	ok $? "chromium's DOM: $3"
	diag "$TMP/err"
}

expect_status "count --by stack --folded --flamegraph -- PROG of $N getpid calls" 0 \
	"$TPCTL" count syscalls:sys_enter_getpid --by stack --folded --flamegraph "$TMP/c.svg" \
	-- "${GEN[@]}" $N
cp "$TMP/out" "$TMP/c.folded"
sum=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/c.folded")
[ "$sum" = $N ]; ok $? "the weights sum to $N (got $sum)"
! grep -qvE '^[^ ;][^;]*(;[^;]+)* [0-9]+$' "$TMP/c.folded"
ok $? "every line is 'frames weight'"
cut -d';' -f1 "$TMP/c.folded" | grep -qv '^entry_SYSCALL'
[ $? -ne 0 ] && grep -q 'ftrace_syscall_enter [0-9]*$\|syscall_trace_enter [0-9]*$' "$TMP/c.folded"
ok $? "root first: the syscall entry first, the tracing function last"
diag "$TMP/c.folded"

svg_checks c "the SVG" "frames, titles and widths of the folded lines"

# a program that names itself '<svg onload=1>' (a script: comm is its file's name)
H='<svg onload=1>'
printf '#!/usr/bin/perl\nsyscall(39) for 1 .. 100;\n' > "$TMP/$H"
chmod +x "$TMP/$H"
expect_status "count --by comm,stack --flamegraph of a task named '$H'" 0 \
	"$TPCTL" count syscalls:sys_enter_getpid --by comm,stack --folded --flamegraph "$TMP/h.svg" \
	-- "$TMP/$H"
cp "$TMP/out" "$TMP/h.folded"
grep -q "^$H;" "$TMP/h.folded"; ok $? "folded: the name is the first frame"
svg_checks h "the SVG of '$H'" "one <svg> element, '$H' the text of a <title>" "$H"

# a program whose name holds ';' and a newline: one frame "x:y?z" (as the man page says)
S=$'x;y\nz'
printf '#!/usr/bin/perl\nsyscall(39) for 1 .. 100;\n' > "$TMP/$S"
chmod +x "$TMP/$S"
expect_status "count --by comm,stack --folded of a task named 'x;y\\nz'" 0 \
	"$TPCTL" count syscalls:sys_enter_getpid --by comm,stack --folded -- "$TMP/$S"
! grep -qvE '^[^ ;][^;]*(;[^;]+)* [0-9]+$' "$TMP/out" && grep -q '^x:y?z;' "$TMP/out" &&
	! grep -q '^z;' "$TMP/out"
ok $? "folded: the name is one frame 'x:y?z' on its lines, every line 'frames weight'"
diag "$TMP/out"

# recordings: with stacks the same lines, without them an error
"$TPCTL" record -o "$TMP/s.dat" --stack syscalls:sys_enter_getpid -- "${GEN[@]}" $N \
	> /dev/null 2>&1
expect_status "count --input (recorded with --stack) --by stack --folded" 0 \
	"$TPCTL" count syscalls:sys_enter_getpid --input "$TMP/s.dat" --by stack --folded
sum=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/out")
[ "$sum" = $N ]; ok $? "the recording's weights sum to $N (got $sum)"
"$TPCTL" record -o "$TMP/n.dat" syscalls:sys_enter_getpid -- "${GEN[@]}" 10 > /dev/null 2>&1
"$TPCTL" count syscalls:sys_enter_getpid --input "$TMP/n.dat" --by stack --flamegraph \
	"$TMP/n.svg" > "$TMP/out" 2> "$TMP/err"
st=$?
{ [ $st = 1 ] || [ $st = 2 ]; } && [ -s "$TMP/err" ] && [ ! -e "$TMP/n.svg" ] &&
	! ls -A "$TMP" | grep -q '^\.n\.svg'
ok $? "a recording without stacks: exit 1 or 2 (got $st), a message, no file"
diag "$TMP/err"

expect_status "--folded without a stack key: exit 2" 2 \
	"$TPCTL" count syscalls:sys_enter_getpid --by comm --folded -- true
grep -q "needs a 'stack' key" "$TMP/err"; ok $? "it says that a stack key is needed"
"$TPCTL" count syscalls:sys_enter_getpid --by stack --flamegraph /nonexistent/dir/f.svg \
	-- "${GEN[@]}" 10 > "$TMP/out" 2> "$TMP/err"
st=$?
[ $st = 1 ] && grep -q "cannot write '/nonexistent/dir/f.svg'" "$TMP/err" && [ ! -s "$TMP/out" ]
ok $? "an unwritable SVG path: exit 1 (got $st) before tracing, nothing printed"
diag "$TMP/err"
done_testing
