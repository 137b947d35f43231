#!/bin/bash
# Standard output that cannot be written: closed (>&-), a full device
# (/dev/full), a reader that goes away (| head -1).  Every command reports
# the write error in one line and exits 1 (a reader that went away is a
# normal end: exit 0, no message, for every command), private instances go
# away, and nothing else changes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs

"$TPCTL" record -o "$TMP/s.dat" --duration 0.2 sched:sched_switch > /dev/null 2>&1
cmds=("list" "list --json" "status" "status --json" "format sched:sched_switch"
	"format --json sched:sched_switch" "stream sched:sched_switch --count 20"
	"stream --json sched:sched_switch --count 20" "report $TMP/s.dat" "report --json $TMP/s.dat")
pcmds=("${cmds[@]}" "list --fields" "report --perfetto - $TMP/s.dat" "count sched:sched_switch --duration 0.2"
	"stream sched:sched_switch")
plan $(( ${#cmds[@]} * 2 + ${#pcmds[@]} + 3 ))

# out_fails NAME HOW CMD...: CMD with stdout closed (HOW=closed) or on /dev/full
out_fails() {
	local name=$1 how=$2 st b_top b_orph why= want
	shift 2
	b_top=$(top_digest)
	b_orph=$(orphans)
	if [ "$how" = closed ]; then
		"$@" >&- 2> "$TMP/err"
		st=$?
		want="Bad file descriptor"
	else
		"$@" > /dev/full 2> "$TMP/err"
		st=$?
		want="No space left on device"
	fi
	[ $st = 1 ] || why="$why exit $st;"
	[ "$(wc -l < "$TMP/err")" = 1 ] || why="$why $(wc -l < "$TMP/err") lines on stderr;"
	grep -q "^tpctl: [a-z]*: .*$want" "$TMP/err" || why="$why no '$want' message;"
	[ "$b_top" = "$(top_digest)" ] || why="$why top level changed;"
	[ "$b_orph" = "$(orphans)" ] || why="$why a tpctl-<pid> instance was left;"
	ok "$([ -z "$why" ]; echo $?)" "$name${why:+:$why}"
	[ -z "$why" ] || diag "$TMP/err"
}

for c in "${cmds[@]}"; do
	# shellcheck disable=SC2086
	out_fails "$c >&-: exit 1, one line with the error" closed "$TPCTL" $c
	# shellcheck disable=SC2086
	out_fails "$c > /dev/full: exit 1, one line with the error" full "$TPCTL" $c
done

# closed_pipe CMD...: CMD's stdout is a pipe whose reader is gone before it starts (EPIPE
# on its first write, every time)
closed_pipe() {
	python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
st = subprocess.call(sys.argv[1:], stdout=w)
sys.exit(st if st >= 0 else 128 - st)' "$@"
}
for c in "${pcmds[@]}"; do
	# shellcheck disable=SC2086
	closed_pipe "$TPCTL" $c 2> "$TMP/err"
	st=$?
	ok "$([ $st = 0 ] && [ ! -s "$TMP/err" ]; echo $?)" "$c, its reader gone: exit 0 (got $st), no message"
	diag "$TMP/err"
done

b_orph=$(orphans)
b_top=$(top_digest)
"$TPCTL" stream sched:sched_switch 2> "$TMP/err" | head -1 > /dev/null
st=${PIPESTATUS[0]}
[ "$st" = 0 ] && [ ! -s "$TMP/err" ]
ok $? "stream | head -1: the reader went away: exit $st, no message"
"$TPCTL" stream --json sched:sched_switch 2> "$TMP/err" | head -1 > /dev/null
[ "$b_orph" = "$(orphans)" ] && [ "$b_top" = "$(top_digest)" ]
ok $? "and no private instance is left, nothing else changed"
"$TPCTL" list sched:sched_switch >&- 2>&-
ok "$([ $? = 1 ]; echo $?)" "stdout and stderr both closed: still exit 1"
done_testing
