#!/bin/bash
# Hostile filters: newlines and control bytes (in filter, enable --filter,
# stream --filter, record --filter), over-long expressions up to 1 MiB, all in
# a private instance: refused with exit 2 and one message, filter unchanged.
# (A NUL cannot reach tpctl: execve() ends each argument at the first NUL.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs
make_instance

bad=($'prev_pid > 1\necho 1 > /sys/kernel/tracing/tracing_on' $'prev_pid > 1\r' $'\nprev_pid > 1'
	$'prev_pid > 1\n' $'prev_pid > 1\x01' $'prev_pid \x7f> 1' $'prev_pid > 1\x1b[2J')
plan $(( ${#bad[@]} * 4 + 9 ))

for f in "${bad[@]}"; do
	n=$(printf %q "$f" | cut -c1-40)
	MSG="^tpctl: filter: invalid filter" run_refused "filter $n: exit 2" 2 \
		"$TPCTL" -i "$INST" filter sched:sched_switch "$f"
	MSG="^tpctl: enable: invalid filter" run_refused "enable --filter $n: exit 2" 2 \
		"$TPCTL" -i "$INST" enable sched:sched_switch --filter "$f"
	MSG="^tpctl: stream: invalid filter" run_refused "stream --filter $n: exit 2" 2 \
		"$TPCTL" stream sched:sched_switch --filter "$f" --count 1
	MSG="^tpctl: record: invalid filter" run_refused "record --filter $n: exit 2" 2 \
		"$TPCTL" record -o "$TMP/f.dat" --filter "$f" sched:sched_switch -- true
done

# Longer than the kernel takes (a page): refused before anything is written.
f4k=$(python3 -c 'print(" || ".join("prev_pid == %d" % i for i in range(400)))')
MSG="^tpctl: filter: invalid filter .*longer than" run_refused "a ${#f4k}-byte filter: exit 2" 2 \
	"$TPCTL" -i "$INST" filter sched:sched_switch "$f4k"
# The largest single argument execve() passes (128 KiB).
f127k=$(python3 -c 'print("prev_pid == 1 || " * 7700 + "prev_pid == 2")')
MSG="^tpctl: filter: invalid filter .*longer than" run_refused "a ${#f127k}-byte filter: exit 2" 2 \
	"$TPCTL" -i "$INST" filter sched:sched_switch "$f127k"
# 1 MiB in nine words (filter joins the words of EXPR), within execve()'s limits.
words=$(python3 -c 'print(" ".join(["prev_pid==1||" * 8960] * 9) + " prev_pid==2")')
# shellcheck disable=SC2086
MSG="^tpctl: filter: invalid filter .*longer than" run_refused "a 1 MiB filter in words: exit 2" 2 \
	"$TPCTL" -i "$INST" filter sched:sched_switch $words
# shellcheck disable=SC2086
MSG="^tpctl: enable: invalid filter .*longer than" run_refused "enable with a 1 MiB filter: exit 2" 2 \
	"$TPCTL" -i "$INST" enable sched:sched_switch --filter "$f127k"
MSG="^tpctl: stream: invalid filter" run_refused "stream with a 127 KiB filter: exit 2" 2 \
	"$TPCTL" stream sched:sched_switch --filter "$f127k" --count 1
[ ! -e "$TMP/f.dat" ]; ok $? "no trace.dat from a refused record"
[ "$(cat "$IDIR/events/sched/sched_switch/filter")" = none ]; ok $? "the filter is still none"
[ "$(cat "$IDIR/events/sched/sched_switch/enable")" = 0 ]; ok $? "the event is still disabled"

# bytes that are not UTF-8 inside a string constant are the kernel's to judge;
# whatever it says, the status and the filter file agree
"$TPCTL" -i "$INST" filter sched:sched_switch $'prev_comm == "\xff\xfe"' > /dev/null 2> "$TMP/err"
st=$?
cur=$(cat "$IDIR/events/sched/sched_switch/filter")
{ [ $st = 0 ] && [ "$cur" != none ]; } || { [ $st = 2 ] && [ "$cur" = none ]; }
ok $? "a non-UTF-8 string constant: applied (0) or refused (2) consistently ($st)"
echo 0 > "$IDIR/events/sched/sched_switch/filter"
done_testing
