#!/bin/bash
# record --flight: the newest events kept in an overwrite-mode instance that
# no one reads; SIGUSR1 writes what it holds to FILE.1, FILE.2, ... (each a
# whole trace.dat trace-cmd reads, none holding what an earlier one held),
# a second signal during a dump is not lost, --stop-on stops the buffers in
# the kernel at the event (a traceoff trigger, removed at the end), the bad
# inputs are usage errors that change nothing, a full disk during a dump
# keeps the files before it and the recorder goes on, and `tpctl reset`
# removes a killed recorder's instance and its trigger.  (What a failed dump
# left in the buffers is dropped: the dump after it holds what came later.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs
need_record_tools
grep -qw traceoff "$TRACEFS/events/syscalls/sys_enter_getpid/trigger" 2> /dev/null ||
	skip_all "no traceoff trigger in this kernel"
plan 37
before=$(top_digest)
orph=$(orphans)

# gen_run N: a generator process of N getpid calls, run to its end; its pid in $gpid
gen_run() {
	start_gen "$1"
	echo go >&"${GEN[1]}"
	wait "$GEN_PID" 2> /dev/null
}
# events FILE PID: the getpid events of PID that trace-cmd reads in FILE: a
# generator's 1000 calls come with 2 more of the same pid (the coproc's bash
# calls getpid once before it execs gen, gen once to print its pid); trace-cmd's
# exit status in FILE.tcst
events() {
	(cd "$(dirname "$1")" && "$TC" report "$(basename "$1")" 2> "$1.tcerr"
		echo $? > "$1.tcst") | grep -c -- "-$2 .* sys_enter_getpid:"
}
# recorder_up PID: its instance traces (tracing_on 1 once set up)
recorder_up() {
	wait_for "grep -q 1 '$TRACEFS/instances/tpctl-$1/events/syscalls/sys_enter_getpid/enable' 2> /dev/null && grep -q 1 '$TRACEFS/instances/tpctl-$1/tracing_on' 2> /dev/null"
}
# wrote FILE: the recorder said it wrote FILE (its dump is done)
wrote() {
	wait_for "grep -qF \"wrote '$1'\" '$TMP/err'"
}

# --- SIGUSR1: FILE.1 holds the first process's calls, FILE.2 the second's only
"$TPCTL" record --flight -o "$TMP/f.dat" --buffer-kb 1024 syscalls:sys_enter_getpid \
	2> "$TMP/err" &
pid=$!
recorder_up $pid
ok $? "--flight: tpctl-$pid is set up"
overwrite=$(cat "$TRACEFS/instances/tpctl-$pid/options/overwrite")
[ "$overwrite" = 1 ]; ok $? "its buffers are in overwrite mode"
gen_run 1000
g1=$gpid
kill -USR1 $pid
wrote "$TMP/f.dat.1"
ok $? "SIGUSR1: FILE.1 written and said on stderr"
gen_run 1000
g2=$gpid
kill -USR1 $pid
wrote "$TMP/f.dat.2"
ok $? "a second SIGUSR1: FILE.2"
# the generator's own getpid() that prints its pid, then its 1000 calls
n=$(events "$TMP/f.dat.1" $g1)
[ "$n" = 1002 ]; ok $? "FILE.1 holds the first process's 1000 calls (and its 2 before them): $n"
diag "$TMP/f.dat.1.tcerr"
n=$(events "$TMP/f.dat.1" $g2)
[ "$n" = 0 ]; ok $? "FILE.1 holds nothing of the process after the signal: $n"
n=$(events "$TMP/f.dat.2" $g2)
[ "$n" = 1002 ]; ok $? "FILE.2 holds the second process's 1000 calls (and its 2): $n"
n=$(events "$TMP/f.dat.2" $g1)
[ "$n" = 0 ]; ok $? "FILE.2 holds none of the first's: $n"
[ "$(cat "$TMP/f.dat.1.tcst")" = 0 ] && [ "$(cat "$TMP/f.dat.2.tcst")" = 0 ]
ok $? "trace-cmd report reads FILE.1 and FILE.2 (exit 0)"
diag "$TMP/f.dat.1.tcerr" "$TMP/f.dat.2.tcerr"
# two signals a moment apart (the kernel merges two sent before the first
# is delivered): the second comes while the first's dump runs and is counted
gen_run 100000
kill -USR1 $pid
sleep 0.01
kill -USR1 $pid
wrote "$TMP/f.dat.4"
ok $? "two signals in a row: FILE.3 and FILE.4, none lost"
ls "$TMP"/f.dat* | grep -q '\.part$'
[ $? = 1 ]; ok $? "no FILE.part left"
kill -INT $pid
wait $pid
st=$?
[ $st = 0 ] && [ -f "$TMP/f.dat" ] && [ ! -d "$TRACEFS/instances/tpctl-$pid" ]
ok $? "INT: exit 0 ($st), FILE written, the instance gone"
"$TPCTL" report "$TMP/f.dat.1" > /dev/null 2> "$TMP/rep.err"
ok $? "tpctl report reads FILE.1"
diag "$TMP/rep.err"
strings "$TMP/f.dat.1" | grep -q 'flight recorder'
ok $? "the file says it is a flight recording (its VERSION option)"

# --- TERM: FILE written whole with what came before, exit as record does
"$TPCTL" record --flight -o "$TMP/t.dat" syscalls:sys_enter_getpid 2> "$TMP/err" &
pid=$!
recorder_up $pid
gen_run 500
kill -TERM $pid
wait $pid
st=$?
[ $st = 0 ] && [ ! -d "$TRACEFS/instances/tpctl-$pid" ] && ! ls "$TMP"/t.dat?* 2> /dev/null
ok $? "TERM: exit 0 ($st), the instance gone, no other file (no FILE.part)"
n=$(events "$TMP/t.dat" $gpid)
[ "$n" = 502 ] && [ "$(cat "$TMP/t.dat.tcst")" = 0 ]
ok $? "TERM: FILE holds the process's 500 calls (and its 2): $n"
rm -f "$TMP"/t.dat*

# --- --stop-on: the kernel stops at the event; the newest event in FILE is it
rm -f "$TMP/err"
"$TPCTL" record --flight -o "$TMP/s.dat" syscalls:sys_enter_getpid \
	syscalls:sys_enter_exit_group \
	--stop-on 'syscalls:sys_enter_exit_group if error_code == 77' 2> "$TMP/err" &
pid=$!
recorder_up $pid
trig=$(cat "$TRACEFS/instances/tpctl-$pid/events/syscalls/sys_enter_exit_group/trigger")
case $trig in traceoff*'error_code == 77'*) r=0 ;; *) r=1 ;; esac
ok $r "--stop-on: the traceoff trigger is set ($trig)"
"$TPCTL" status > "$TMP/st" 2>&1
grep -Eq "^  tpctl-$pid  \([0-9]+ KiB per CPU, overwrite, 2 events, 1 trigger armed\)$" "$TMP/st"
ok $? "status shows the recorder's window, its 2 events and its trigger armed"
diag "$TMP/st"
sh -c 'exit 3'
sh -c 'exit 77'
gen_run 100
g3=$gpid
# on its own: no signal unless it is still there after 20 s
self=0
wait_for "! kill -0 $pid 2> /dev/null" 400 || { self=1; kill -INT $pid; }
wait $pid
st=$?
[ $self = 0 ] && [ $st = 0 ] && grep -qF "wrote '$TMP/s.dat'" "$TMP/err"
ok $? "tpctl exits 0 on its own after the event ($st), FILE written"
diag "$TMP/err"
last=$("$TPCTL" report "$TMP/s.dat" | tail -1)
case $last in *sys_exit_group*0x4d*) r=0 ;; *) r=1 ;; esac
ok $r "the newest event in FILE is that exit_group: $last"
n=$(events "$TMP/s.dat" $g3)
[ "$n" = 0 ]; ok $? "nothing of a process started after it: $n"
[ ! -d "$TRACEFS/instances/tpctl-$pid" ]; ok $? "the instance and its trigger are gone"

# --- bad input: usage errors, nothing changed
bad() {
	local want=$1 name=$2
	shift 2
	"$TPCTL" record --flight -o "$TMP/b.dat" syscalls:sys_enter_getpid "$@" > /dev/null \
		2> "$TMP/bad.err"
	local st=$?
	[ $st = 2 ] && grep -q "$want" "$TMP/bad.err" && [ ! -e "$TMP/b.dat" ]
	ok $? "$name: exit 2 ($st) with '$want'"
	diag "$TMP/bad.err"
}
bad "is not recorded" "--stop-on an event not recorded" \
	--stop-on syscalls:sys_enter_exit_group
bad "did you mean" "--stop-on an event not there" --stop-on syscalls:sys_enter_getpd
bad "invalid filter" "--stop-on with a filter refused" \
	--stop-on 'syscalls:sys_enter_getpid if common_pid == '
bad "a FILTER after 'if'" "--stop-on with 'if' and no filter" \
	--stop-on 'syscalls:sys_enter_getpid if  '
bad "the event as system:event" "--stop-on an event without its system" --stop-on sys_enter_getpid
"$TPCTL" record -o "$TMP/b.dat" syscalls:sys_enter_getpid --rearm 2> "$TMP/bad.err"
[ $? = 2 ]; ok $? "--rearm without --flight and --stop-on: exit 2"

# --- a full disk during a dump: the files before kept, the error said, it goes on
mkdir -p "$TMP/full"
if unshare -m --propagation private true 2> /dev/null; then
	rm -f "$TMP/err"
	unshare -m --propagation private sh -c '
		mount -t tmpfs -o size=1m tpctl-full "$0" || exit 99
		"$1" record --flight --file-version 6 -o "$0/f.dat" --buffer-kb 4096 \
			syscalls:sys_enter_getpid 2> "$2/err" &
		p=$!
		i=0
		d=/sys/kernel/tracing/instances/tpctl-$p
		until grep -q 1 $d/events/syscalls/sys_enter_getpid/enable 2> /dev/null &&
			grep -q 1 $d/tracing_on 2> /dev/null
		do sleep 0.05; i=$((i + 1)); [ $i -gt 200 ] && break; done
		kill -USR1 $p; sleep 0.5
		echo go | "$3" 200000 > /dev/null
		kill -USR1 $p; sleep 1
		kill -USR1 $p; sleep 1
		ls "$0" > "$2/full.ls"
		kill -INT $p; wait $p; echo $? > "$2/full.st"
		cp "$0/f.dat.1" "$2/full.1"' \
		"$TMP/full" "$TPCTL" "$TMP" "$GENB" > /dev/null
	grep -q "No space left on device" "$TMP/err"
	ok $? "full disk during a dump: the error said"
	diag "$TMP/err"
	grep -qx f.dat.1 "$TMP/full.ls" && grep -qx f.dat.2 "$TMP/full.ls" &&
		! grep -q part "$TMP/full.ls"
	ok $? "FILE.1 kept, the recorder went on (FILE.2 once there was room), no .part left ($(tr '\n' ' ' < "$TMP/full.ls"))"
	(cd "$TMP" && "$TC" report full.1 > /dev/null 2> "$TMP/full.tcerr")
	ok $? "trace-cmd reads the FILE.1 kept"
	diag "$TMP/full.tcerr"
	# the run ends with the failed dump's status, once FILE is written at INT
	[ "$(cat "$TMP/full.st")" = 1 ] && grep -qF "wrote '$TMP/full/f.dat'" "$TMP/err"
	ok $? "INT after it: FILE written, exit 1 for the dump that failed ($(cat "$TMP/full.st"))"
else
	for _ in 1 2 3 4; do skip "cannot mount a tmpfs in a private mount namespace"; done
fi

# --- a killed recorder: tpctl reset removes its instance and its trigger
"$TPCTL" record --flight -o "$TMP/k.dat" syscalls:sys_enter_getpid \
	--stop-on 'syscalls:sys_enter_getpid if common_pid == 1' 2> /dev/null &
pid=$!
recorder_up $pid
kill -KILL $pid
wait $pid 2> /dev/null
[ -d "$TRACEFS/instances/tpctl-$pid" ]; ok $? "SIGKILL leaves tpctl-$pid behind"
"$TPCTL" status > "$TMP/status" 2>&1
grep -q "tpctl-$pid" "$TMP/status"; ok $? "status lists it"
"$TPCTL" reset 2> "$TMP/reset.err"
[ ! -d "$TRACEFS/instances/tpctl-$pid" ]; ok $? "reset removes it, its trigger with it"
diag "$TMP/reset.err"
ls "$TMP"/k.dat* > /dev/null 2>&1
[ $? != 0 ]; ok $? "no file half written under its final name"
[ "$before" = "$(top_digest)" ] && [ "$orph" = "$(orphans)" ]
ok $? "the top level is as it was, no instance left"
done_testing
