#!/bin/bash
# record --switch-output: a recording cut into FILE.1, FILE.2, ..., each a
# whole trace.dat that trace-cmd reads, with no event lost or written twice
# across a cut (versions 7 and 6); --max-files N leaves the newest N;
# SIGUSR1 cuts on demand; a size cuts too; bad values are usage errors.
# The run: getpid calls paced over 4 s, 1,000,000 by default: this 2-CPU
# host makes about 500,000 traced calls a second, so 4,000,000 take 8 s or
# more and give 9 files (TPCTL_SWITCH_CALLS=4000000 runs the full figure;
# its total then checks, the file count does not hold).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs
need_record_tools
plan 18
before=$(top_digest)
orph=$(orphans)
calls=${TPCTL_SWITCH_CALLS:-1000000}
rate=$((calls / 4))

# count FILE: gen's getpid events in FILE as trace-cmd reads them (exit status kept in $TMP/tc.st)
count() {
	(cd "$(dirname "$1")" && "$TC" report "$(basename "$1")" 2> "$1.tcerr"; echo $? > "$TMP/tc.st") |
		grep -c '^ *gen-[0-9]* .* sys_enter_getpid:'
}
# switch_run VERSION: the 4 s run cut every second; checks the files
switch_run() {
	local v=$1 files total=0 n f allread=0
	rm -f "$TMP"/s.dat*
	"$TPCTL" record --file-version "$v" -o "$TMP/s.dat" --switch-output 1s --buffer-kb 8192 \
		syscalls:sys_enter_getpid -- sh -c "echo | '$GENB' $calls $rate" \
		> /dev/null 2> "$TMP/err"
	ok $? "v$v: --switch-output 1s over a 4 s run exits 0"
	diag "$TMP/err"
	files=$(ls "$TMP"/s.dat.* | grep -c '\.dat\.[0-9]*$')
	[ "$files" -ge 3 ] && [ "$files" -le 7 ]; ok $? "v$v: 3-7 files ($files)"
	for f in $(ls "$TMP"/s.dat.* | grep '\.dat\.[0-9]*$'); do
		n=$(count "$f")
		[ "$(cat "$TMP/tc.st")" = 0 ] || allread=1
		echo "# ${f##*/}: $n"
		total=$((total + n))
	done
	ok $allread "v$v: trace-cmd reads each file"
	# gen's own getpid() that prints its pid, then its calls
	[ "$total" = $((calls + 1)) ]; ok $? "v$v: $((calls + 1)) events in all ($total)"
	ls "$TMP"/s.dat* | grep -q '\.part$'
	[ $? = 1 ]; ok $? "v$v: no FILE.part left"
}
switch_run 7
switch_run 6

rm -f "$TMP"/s.dat*
"$TPCTL" record -o "$TMP/s.dat" --switch-output 1s --max-files 2 syscalls:sys_enter_getpid \
	-- sh -c "echo | '$GENB' $((calls / 4)) $((rate / 4))" > /dev/null 2> "$TMP/err"
ok $? "--max-files 2 exits 0"
left=$(ls "$TMP"/s.dat.* | grep -c '\.dat\.[0-9]*$')
[ "$left" = 2 ]; ok $? "--max-files 2 leaves 2 ($(cd "$TMP" && ls s.dat.* | tr '\n' ' '))"

# SIGUSR1 cuts; a size cuts
rm -f "$TMP"/s.dat*
"$TPCTL" record -o "$TMP/s.dat" --switch-output 1h syscalls:sys_enter_getpid \
	> /dev/null 2> "$TMP/err" &
pid=$!
wait_for "grep -q 1 '$TRACEFS/instances/tpctl-$pid/tracing_on' 2> /dev/null && [ -e '$TMP/s.dat.1.part' ]"
kill -USR1 $pid
wait_for "[ -e '$TMP/s.dat.1' ]"
ok $? "SIGUSR1 cuts: FILE.1 finished"
kill -INT $pid
wait $pid
[ $? = 0 ] && [ -e "$TMP/s.dat.2" ]; ok $? "INT: FILE.2 finished, exit 0"
rm -f "$TMP"/s.dat*
"$TPCTL" record -o "$TMP/s.dat" --switch-output 200K --file-version 6 syscalls:sys_enter_getpid \
	-- sh -c "echo | '$GENB' 200000" > /dev/null 2> "$TMP/err"
files=$(ls "$TMP"/s.dat.* | grep -c '\.dat\.[0-9]*$')
# a size reached wakes the session at once: about 14 files, not the 2 or 3
# of a cut made only at the session's 250 ms look (gen's run is shorter)
[ "$files" -ge 5 ]; ok $? "--switch-output 200K: 200,000 events (3 MiB) cut into $files files"

"$TPCTL" record -o "$TMP/x.dat" --switch-output 10 syscalls:sys_enter_getpid 2> "$TMP/err"
[ $? = 2 ] && grep -q "a unit says which" "$TMP/err"; ok $? "--switch-output 10: exit 2, a unit asked for"
"$TPCTL" record -o "$TMP/x.dat" --max-files 3 syscalls:sys_enter_getpid 2> "$TMP/err"
[ $? = 2 ] && [ ! -e "$TMP/x.dat" ]; ok $? "--max-files without --switch-output: exit 2"
[ "$before" = "$(top_digest)" ] && [ "$orph" = "$(orphans)" ]
ok $? "the top level is as it was, no instance left"
done_testing
