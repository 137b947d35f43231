#!/bin/bash
# Hostile names and filters: exit 2, a clear message, and no file changed anywhere.
. "$(dirname "$0")/lib.sh"
need_tracefs
make_instance

names=('../../tracing_on' 'sched:sched_switch/../../..' 'sched/sched_switch'
	'sched:sched switch' $'sched:sched_switch\n' $'sched\nsched' '..' '.:x' 'sched:..'
	'sched:' ':sched_switch' '' 'a:b:c' 'sched:sched_switch;echo' $'sched:\x01')
plan $(( ${#names[@]} * 4 + 6 ))

for cmd in enable disable format; do
	for n in "${names[@]}"; do
		before=$(state_digest)
		"$TPCTL" "$cmd" "$n" > "$TMP/out" 2> "$TMP/err"
		st=$?
		[ $st -eq 2 ] && [ "$before" = "$(state_digest)" ] && [ ! -s "$TMP/out" ]
		ok $? "$cmd $(printf %q "$n"): exit 2 ($st), nothing changed, nothing on stdout"
	done
done
for n in "${names[@]}"; do
	"$TPCTL" filter "$n" 'x > 1' > /dev/null 2> "$TMP/err"
	[ $? -eq 2 ] && grep -q "^tpctl: filter: \(invalid event name\|no such event\)" "$TMP/err"
	ok $? "filter $(printf %q "$n"): exit 2 with a message naming it"
done

for inst in '../..' 'a/b' '.' 'x y' $'x\ny'; do
	"$TPCTL" -i "$inst" enable sched:sched_switch 2> "$TMP/err"
	[ $? -eq 2 ] && grep -q "invalid instance name" "$TMP/err"
	ok $? "-i $(printf %q "$inst") is refused before any path is built"
done

before=$(state_digest "$IDIR")
"$TPCTL" -i "$INST" filter sched:sched_switch $'prev_pid > 1\necho 1 > /sys/kernel/tracing/tracing_on' 2> "$TMP/err"
[ $? -eq 2 ] && [ "$before" = "$(state_digest "$IDIR")" ] && grep -q 'newline' "$TMP/err"
ok $? "a filter with a newline is refused and changes nothing"
done_testing
