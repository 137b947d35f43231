#!/bin/bash
# Hostile event, system and instance names for the commands badnames.t does
# not cover (stream, record, list, filter shown, status) and odd bytes it
# does not try: each is refused with exit 2 and one message, prints nothing,
# changes nothing, leaves no private instance and (record) no file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs
make_instance

long=$(printf 'a%.0s' {1..5000})
# the names of badnames.t, then bytes and shapes it does not try
names=('../../tracing_on' 'sched:sched_switch/../../..' 'sched/sched_switch'
	'sched:sched switch' $'sched:sched_switch\n' $'sched\nsched' '..' '.:x' 'sched:..'
	'sched:' ':sched_switch' 'a:b:c' 'sched:sched_switch;echo' $'sched:\x01')
extra=($'\xff\xfe' "sched:$long" "$long" 'sched:*/../*' '*:../*' '..:..' '/sched:sched_switch'
	'sched:sched_switch:' $'sched:sched_\tswitch' 'sched:sched_switch\' '~root' '$(id)'
	'sched:sched_switch\0' $'sched:\xc0\xaf')
insts=('../..' 'a/b' '.' '..' 'x y' $'x\ny' '' $'\xff' 'tpctl-1/../..' "$long")
plan $(( (${#names[@]} + ${#extra[@]}) * 2 + ${#extra[@]} * 5 + ${#insts[@]} * 5 + 9 ))

q() { printf %q "$1" | cut -c1-40; }

for n in "${names[@]}" "${extra[@]}"; do
	run_refused "stream $(q "$n")" 2 "$TPCTL" stream "$n" --count 1
	rm -f "$TMP/x.dat"
	run_refused "record $(q "$n")" 2 "$TPCTL" record -o "$TMP/x.dat" "$n" -- true
	[ -e "$TMP/x.dat" ] && { ok 1 "record $(q "$n") left a file"; }
done
for n in "${extra[@]}"; do
	for cmd in enable disable format list; do
		run_refused "$cmd $(q "$n")" 2 "$TPCTL" "$cmd" "$n"
	done
	run_refused "-i instance filter $(q "$n") 'x > 1'" 2 \
		"$TPCTL" -i "$INST" filter "$n" 'prev_pid > 1'
done

for i in "${insts[@]}"; do
	run_refused "-i $(q "$i") status" 2 "$TPCTL" -i "$i" status
	run_refused "-i $(q "$i") list" 2 "$TPCTL" -i "$i" list sched:sched_switch
	run_refused "-i $(q "$i") filter (show)" 2 "$TPCTL" -i "$i" filter sched:sched_switch
	run_refused "-i $(q "$i") stream --drain" 2 "$TPCTL" -i "$i" stream --drain
	run_refused "-i $(q "$i") format" 2 "$TPCTL" -i "$i" format sched:sched_switch
done

# -i naming an instance that does not exist: an error, and it is not created
nope=tpt-nope-$$
for args in "enable sched:sched_switch" "disable sched:sched_switch" "status" "stream --drain" \
	"filter sched:sched_switch prev_pid>1" "stream sched:sched_switch --count 1" "reset" \
	"record -o $TMP/n.dat sched:sched_switch -- true"; do
	# shellcheck disable=SC2086
	"$TPCTL" -i "$nope" $args > "$TMP/out" 2> "$TMP/err" < /dev/null
	st=$?
	[ $st -ne 0 ] && grep -q -e "'$nope'" -e "'-i" "$TMP/err" && [ ! -e "$TRACEFS/instances/$nope" ]
	ok $? "-i $nope $args: refused ($st) naming it, instance not created"
	rmdir "$TRACEFS/instances/$nope" 2>/dev/null
done
[ ! -e "$TMP/n.dat" ]; ok $? "record -i on a missing instance wrote no file"
done_testing
