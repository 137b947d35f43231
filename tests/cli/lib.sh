# shellcheck shell=bash
# TAP helpers for the CLI tests.  Source it, call plan N (or need_tracefs first),
# then use ok / test_cmp / expect_status.  Tests against the live tracefs work only
# in a private instance made with make_instance, removed on exit whatever happens.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TPCTL=$TOP/tpctl
TRACEFS=${TPCTL_TEST_TRACEFS:-/sys/kernel/tracing}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tpctl-test.XXXXXX")
# TPCTL_WRAPPER: a command every tpctl of the tests runs under, e.g. valgrind
# (make check-valgrind).  exec keeps tpctl's pid, so tpctl-<pid> names hold.
# It must run for the non-root tests too: $TMP is made traversable for it.
if [ -n "$TPCTL_WRAPPER" ]; then
	mkdir "$TMP/wrap"
	printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$TPCTL_WRAPPER" "$TOP/tpctl" > "$TMP/wrap/tpctl"
	chmod 711 "$TMP"
	chmod 755 "$TMP/wrap" "$TMP/wrap/tpctl"
	TPCTL=$TMP/wrap/tpctl
fi
INST=
_n=0
_fail=0

_cleanup() {
	if [ -n "$INST" ] && [ -d "$TRACEFS/instances/$INST" ]; then
		# disable what the test enabled so rmdir cannot be refused
		echo 0 > "$TRACEFS/instances/$INST/events/enable" 2>/dev/null
		rmdir "$TRACEFS/instances/$INST" 2>/dev/null ||
			echo "# could not remove instance $INST" >&2
	fi
	rm -rf "$TMP"
}
trap _cleanup EXIT
trap 'exit 130' INT TERM HUP

plan() { echo "1..$1"; }

skip_all() { echo "1..0 # SKIP $*"; exit 0; }

ok() {
	_n=$((_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_n - $2"
		_last=ok
	else
		echo "not ok $_n - $2"
		_fail=1
		_last=fail
	fi
}

skip() { _n=$((_n + 1)); echo "ok $_n # SKIP $*"; }

# todo STATUS DESCRIPTION WHY: a check known to fail yet (TAP TODO): said, not counted
todo() {
	_n=$((_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_n - $2 # TODO $3"
	else
		echo "not ok $_n - $2 # TODO $3"
	fi
	_last=ok
}

# diag after a failed test also goes to stderr, where prove shows it (CI logs).
diag() {
	if [ "$_last" = fail ]; then
		# not tee /dev/stderr: opening it anew truncates a log file that stderr is
		local _d
		_d=$(awk '{ print "# " $0 }' "$@")
		printf '%s\n' "$_d"
		printf '%s\n' "$_d" >&2
	else
		# awk, not sed: a file whose last line has no newline (a message
		# cut by a signal) must not glue the next "ok" line onto it
		awk '{ print "# " $0 }' "$@"
	fi
}

# test_cmp NAME EXPECT ACTUAL: pass when the files are identical, else show the diff.
test_cmp() {
	if diff -u "$2" "$3" > "$TMP/diff"; then
		ok 0 "$1"
	else
		ok 1 "$1"
		# both sides of the first difference (a long hunk would show one only)
		{
			head -3 "$TMP/diff"
			grep -m 15 '^-[^-]' "$TMP/diff"
			grep -m 15 '^+[^+]' "$TMP/diff"
		} | diag
	fi
}

# expect_status NAME STATUS CMD...: run CMD, stdout to $TMP/out, stderr to $TMP/err.
expect_status() {
	local name=$1 want=$2 got
	shift 2
	"$@" > "$TMP/out" 2> "$TMP/err"
	got=$?
	if [ "$got" -eq "$want" ]; then
		ok 0 "$name"
	else
		ok 1 "$name (exit $got, want $want)"
		diag "$TMP/err"
	fi
}

# Skip the whole test unless the live tracefs is there and writable.
need_tracefs() {
	[ "$(id -u)" = 0 ] || skip_all "needs root for the live tracefs"
	if [ ! -r "$TRACEFS/available_events" ]; then
		mount -t tracefs nodev "$TRACEFS" 2>/dev/null
		[ -r "$TRACEFS/available_events" ] || skip_all "no tracefs at $TRACEFS"
	fi
	[ -w "$TRACEFS/instances" ] || skip_all "tracefs instances not writable"
}

# make_instance: a private instance for this test, in $INST.
make_instance() {
	INST=tpt-$(basename "$0" .t)-$$
	mkdir "$TRACEFS/instances/$INST" || { echo "Bail out! cannot create instance $INST"; exit 1; }
	IDIR=$TRACEFS/instances/$INST
}

# The instances a "changed nothing" check must see: all of them but those
# other runs own while they run: a live process's private tpctl-<pid> and
# another test's tpt-<test>-<pid>.  What a command of this test left behind
# (a dead pid's tpctl-<pid>, an instance of any other name) stays in.
own_instances() {
	local n pid
	for n in $(ls "$TRACEFS/instances"); do
		case $n in
		tpctl-*)
			pid=${n#tpctl-}
			case $pid in *[!0-9]* | '') ;; *) [ -d "/proc/$pid" ] && continue ;; esac ;;
		tpt-*-$$) ;;
		tpt-*) continue ;;
		esac
		printf '%s\n' "$n"
	done
}

# A digest of every enable and filter file of a tracefs dir: "changed nothing" checks.
state_digest() {
	local d=${1:-$TRACEFS}
	{
		cat "$d/tracing_on" "$d/set_event" 2>/dev/null
		grep -H . "$d"/events/*/*/filter 2>/dev/null | grep -v ':none$'
		own_instances
	} | md5sum
}

done_testing() { exit $_fail; }

# wait_for COND [TRIES]: until the shell condition COND holds, at most TRIES looks
# (default $WAIT_TRIES, else 200) $WAIT_STEP seconds apart (default 0.05); 1 if it never did.
wait_for() {
	local i
	for ((i = 0; i < ${2:-${WAIT_TRIES:-200}}; i++)); do
		eval "$1" && return 0
		sleep "${WAIT_STEP:-0.05}"
	done
	return 1
}

# stream_own_tasks N ARGS...: `tpctl stream raw_syscalls:sys_enter --json ARGS`
# (after need_tgen) until it has N tasks or more and has written, while tgen
# makes 2000 syscalls, then stopped with SIGINT.  Left: $pid, $TMP/self (its
# output), $TMP/tids (its tasks), $notrace and $TMP/hidden (its instance's
# set_event_notrace_pid, on a line and one a line)
stream_own_tasks() {
	local n=$1
	shift
	rm -f "$TMP/self"
	"$TPCTL" stream raw_syscalls:sys_enter --json "$@" > "$TMP/self" 2> "$TMP/err" &
	pid=$!
	wait_for "[ -s '$TMP/self' ] && [ \$(ls /proc/$pid/task 2> /dev/null | wc -l) -ge $n ]"
	ls "/proc/$pid/task" > "$TMP/tids"
	notrace=$(cat "$TRACEFS/instances/tpctl-$pid/set_event_notrace_pid" 2> /dev/null |
		sort -n | tr '\n' ' ')
	"$G" 2000 > /dev/null
	sleep 0.2
	kill -INT $pid
	wait $pid
	echo $notrace | tr ' ' '\n' > "$TMP/hidden"
}

# stream_two_cpus ARGS...: `tpctl stream EV sched:sched_switch --json ARGS`
# (after need_tgen) of two generators busy at once on CPUs 0 and 1, 40,000
# getpid calls each, a large buffer: it exits 0, and every record is there
# in time order, none lost, each task named (stream-check.py two-cpus).
# Two tests; its output is left in $TMP/two.
stream_two_cpus() {
	local st label="stream --json $*"
	"$TPCTL" stream "$EV" sched:sched_switch --json "$@" --buffer-kb 16384 \
		-- sh -c "taskset -c 0 $G 40000 & taskset -c 1 $G 40000; wait" > "$TMP/two" 2> "$TMP/err"
	ok $? "two busy CPUs: $label exits 0"
	diag "$TMP/err"
	python3 "$TOP/tests/cli/stream-check.py" two-cpus "$TMP/two" 80000 > "$TMP/py" 2>&1
	st=$?
	ok $st "both CPUs' records merged in time order, every getpid there, named ($(head -1 "$TMP/py"))"
	[ $st = 0 ] || diag "$TMP/py"
}

# stream_overrun ARGS...: `tpctl stream EV --json ARGS` of 200,000 getpid calls
# into a 4 KiB buffer with --fail-on-loss (after need_tgen): exit 1, at least
# one lost marker and no more than the pages the account on stderr says were
# marked lost.  One test.
stream_overrun() {
	local st nl np

	"$TPCTL" stream "$EV" --json "$@" --buffer-kb 4 --fail-on-loss -- "$G" 200000 \
		> "$TMP/lost" 2> "$TMP/err"
	st=$?
	nl=$(grep -c '"type":"lost"' "$TMP/lost")
	np=$(sed -n 's/.*, \([0-9]*\) of [0-9]* pages marked lost[;.]*.*$/\1/p' "$TMP/err")
	ok $([ $st = 1 ] && [ "$nl" -ge 1 ] && [ -n "$np" ] && [ "$nl" -le "$np" ]; echo $?) \
		"overrun: exit 1 with --fail-on-loss (got $st), $nl marker(s), $np page(s) said lost"
	diag "$TMP/err"
}

# need_tgen: builds tests/cli/tgen.c (a workload making getpid calls) into $G
# and sets EV to the event those calls make; skips the file without a compiler.
need_tgen() {
	${CC:-cc} -O2 -o "$TMP/tgen" "$TOP/tests/cli/tgen.c" || skip_all "cannot build tests/cli/tgen.c"
	G=$TMP/tgen
	EV=syscalls:sys_enter_getpid
}

# need_record_tools: what the record tests compare with and drive: trace-cmd
# in $TC (run through trace-cmd-here, or $TRACE_CMD) and bench/gen (bench/gen.c:
# N getpid calls after a line on stdin) in $GENB, built into $TMP when the
# tree has none; skips the file without either.
need_record_tools() {
	TC=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
	[ -x "$TC" ] || skip_all "no trace-cmd ($TC)"
	GENB=$TOP/bench/gen
	[ -x "$GENB" ] && return 0
	GENB=$TMP/gen
	${CC:-cc} -O2 -o "$GENB" "$TOP/bench/gen.c" 2> /dev/null || skip_all "cannot build bench/gen.c"
}

# top_pid_lists: what a TARGET run must leave at the top level as it was:
# tracing_on, set_event, the pid lists and options/event-fork
top_pid_lists() {
	cat "$TRACEFS/tracing_on" "$TRACEFS/set_event" "$TRACEFS/set_event_pid" \
		"$TRACEFS/options/event-fork"
	cat "$TRACEFS/set_event_notrace_pid" 2> /dev/null
}

# cmp_tracecmd NAME TC TP: trace-cmd report's and tpctl's normalised text of
# the same records are the same (tests/cli/cmp-tracecmd.py: a task trace-cmd
# leaves unnamed may be named in tpctl's)
cmp_tracecmd() {
	python3 "$TOP/tests/cli/cmp-tracecmd.py" "$2" "$3" > "$TMP/cmp-tracecmd" 2>&1
	ok $? "$1"
	diag "$TMP/cmp-tracecmd"
}

# tracecmd_named TPCTL_TEXT < TRACE_CMD_TEXT: trace-cmd report's text with a
# task it leaves unnamed ("<...>-PID") named as tpctl's text of the same file
# names that pid (see tests/cli/cmp-tracecmd.py for why trace-cmd cannot)
tracecmd_named() {
	python3 -c '
import re, sys
names = {}
for l in open(sys.argv[1], errors="replace"):
    m = re.match(r"^\s*(.*?)-(\d+)\s+\[", l)
    if m and m.group(1) != "<...>":
        names[m.group(2)] = m.group(1)
for l in sys.stdin:
    m = re.match(r"^(\s*)<\.\.\.>-(\d+)(\s)", l)
    if m and m.group(2) in names:
        l = m.group(1) + names[m.group(2)] + "-" + m.group(2) + l[m.end() - 1:]
    sys.stdout.write(l)
' "$1"
}

# A real browser for what tpctl draws: $CHROMIUM (empty where none is
# installed) and `dom FILE`, the DOM chromium headless makes of FILE.
CHROMIUM=$(command -v chromium || command -v chromium-browser)
dom() { timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --dump-dom "file://$1" 2>/dev/null; }
