#!/bin/bash
# A task's name in JSON is the one it had at the event's time, as the
# records say it (sched_process_exec, the comm fields of sched events):
# the COMMAND's process is "sh" until it execs /bin/true and "true" from
# its exec on, and a record that names its own task (sched_process_exit's
# comm) is not "comm":null.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v jq > /dev/null || skip_all "no jq"
plan 4

"$TPCTL" stream --json sched:sched_process_exec raw_syscalls:sys_exit \
	-- sh -c '/bin/true; exec /bin/true' > "$TMP/s.json" 2> "$TMP/err"
ok $? "stream -- sh -c '/bin/true; exec /bin/true': exit 0"
# the COMMAND's pid is the one of the last record; its names in order, runs squeezed
pid=$(jq -r 'select(.type == "exit") | .pid' "$TMP/s.json")
jq -r --argjson p "$pid" 'select(.type == "event" and .pid == $p) |
	if .event == "sched_process_exec" then "exec \(.comm)" else .comm end' "$TMP/s.json" |
	uniq > "$TMP/got"
printf '%s\n' sh "exec true" true > "$TMP/want"
test_cmp "the command's pid: 'sh' before its exec, 'true' from the exec on" "$TMP/want" "$TMP/got"

"$TPCTL" stream --json sched:sched_process_exit -- sh -c '/bin/true; /bin/true' > "$TMP/x.json" 2>&1
jq -r 'select(.type == "event") | "\(.comm) \(.fields.comm)"' "$TMP/x.json" > "$TMP/names"
ok "$(! grep -q null "$TMP/names" && [ "$(wc -l < "$TMP/names")" = 3 ]; echo $?)" \
	"sched_process_exit: every task named, as its record names it"
awk '$1 != $2' "$TMP/names" > "$TMP/differ"
ok "$([ ! -s "$TMP/differ" ]; echo $?)" "and the name is the record's comm"
diag "$TMP/names"
done_testing
