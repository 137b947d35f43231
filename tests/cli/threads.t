#!/bin/bash
# The reader threads of record and count/hist --engine user (src/percpu.c):
# every event of a known workload arrives whatever the number of threads
# (one per CPU, one for all, more than there are CPUs), for record versions
# 6 and 7 and for count with intervals; the instance wakes them at
# buffer_percent 10; and the threads hide themselves from the trace
# (set_event_notrace_pid holds the main thread and each reader).
. "$(dirname "$0")/lib.sh"
need_tracefs
need_tgen
command -v jq > /dev/null || skip_all "no jq"
plan 13

N=20000
for th in "" "--threads 1" "--threads 64"; do
	for v in 6 7; do
		# shellcheck disable=SC2086
		"$TPCTL" record -o "$TMP/t.dat" --file-version $v $th $EV -- "$G" $N \
			> /dev/null 2> "$TMP/err"
		n=$("$TPCTL" count --input "$TMP/t.dat" --json $EV 2> /dev/null | jq '.rows[0].count')
		[ "$n" = "$N" ]
		ok $? "record --file-version $v ${th:-(a thread per CPU)}: $N events ($n)"
		diag "$TMP/err"
	done
done
for th in "" "--threads 1"; do
	# shellcheck disable=SC2086
	"$TPCTL" count --engine user --interval 0.05 --json $th $EV -- "$G" $N \
		> "$TMP/out" 2> "$TMP/err"
	n=$(jq -s '[.[] | .rows[0].count // 0] | add' "$TMP/out")
	[ "$n" = "$N" ]
	ok $? "count --engine user --interval ${th:-(a thread per CPU)}: the intervals add up to $N ($n)"
	diag "$TMP/err"
done

# while a count runs: the instance as the threads set it
mkfifo "$TMP/go"
"$TPCTL" count --engine user $EV -- sh -c 'read x < "$1"' _ "$TMP/go" > /dev/null 2>&1 &
cpid=$!
d=$TRACEFS/instances/tpctl-$cpid
for _ in $(seq 100); do
	[ -d "$d" ] && [ "$(wc -w < "$d/set_event_notrace_pid" 2> /dev/null)" -gt 1 ] && break
	sleep 0.05
done
cat "$d/buffer_percent" > "$TMP/bp" 2> /dev/null
tr ' ' '\n' < "$d/set_event_notrace_pid" 2> /dev/null | sort -n > "$TMP/notrace"
ls "/proc/$cpid/task" | sort -n > "$TMP/tasks"
echo go > "$TMP/go"
wait $cpid
ok $? "count exits 0"
[ "$(cat "$TMP/bp")" = 10 ]
ok $? "the private instance wakes the readers at buffer_percent 10 ($(cat "$TMP/bp"))"
comm -23 "$TMP/tasks" "$TMP/notrace" > "$TMP/shown"
[ -s "$TMP/tasks" ] && [ "$(wc -l < "$TMP/tasks")" -gt 1 ] && [ ! -s "$TMP/shown" ]
ok $? "every thread of tpctl ($(wc -l < "$TMP/tasks")) is in set_event_notrace_pid"

# a long count with reader threads forgets the tasks that are gone: 300
# short-lived ones, then a pause of looks (about one a second)
"$TPCTL" -v count --threads 2 --by comm raw_syscalls:sys_enter --json \
	-- sh -c 'for i in $(seq 300); do /bin/true; done; sleep 2.5' > "$TMP/r.json" 2> "$TMP/r.err"
ok $? "count --threads 2 -- 300 tasks, then a pause: exit 0"
last=$(sed -n 's/.*tasks tracked after a look for those gone: \([0-9]*\).*/\1/p' "$TMP/r.err" | tail -1)
ok "$([ -n "$last" ] && [ "$last" -lt 100 ]; echo $?)" \
	"the readers' names of the tasks gone are forgotten (last look: ${last:-none} tracked)"
[ -z "$last" ] || [ "$last" -lt 100 ] || grep 'tasks tracked' "$TMP/r.err" | awk '{ print "# " $0 }'
done_testing
