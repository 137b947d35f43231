#!/bin/bash
# Task names in JSON and in the aggregation keys (src/comm.c): the kernel
# saves a name in saved_cmdlines only when the task is switched out, and a
# pid's slot may still hold an older task's name, so a short command is
# "<...>" (or someone else) there while tpctl reads its events.  JSON must
# carry the name wherever something knows it (the COMMAND tpctl ran, a live
# task's /proc/PID/comm) and null where nothing does, never the string
# "<...>".  The oracle is the kernel's own word: sched_process_exit carries
# the name of the exiting task in its comm field.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v jq > /dev/null || skip_all "no jq"
EV=(sched:sched_process_exit syscalls:sys_enter_close)
[ -e "$TRACEFS/events/syscalls/sys_enter_close" ] || skip_all "no syscalls:sys_enter_close"
plan 9

# names_agree FILE [BEFORE]: every event's comm is null, the name its pid
# exits with (sched_process_exit's comm field), BEFORE, the name a forked
# child has until it execs (its parent's), or a name saved_cmdlines held for
# the pid before or after a run ($TMP/cmdlines: an older task of a reused
# pid, whose name the kernel's own text gives the task too; tpctl reads
# saved_cmdlines again while a pid is unknown, and nothing tells it otherwise
# before the task's exit);
# prints the offenders
names_agree() {
	jq -r -s --arg before "${2-}" --rawfile saved "$TMP/cmdlines" '
		($saved | split("\n") | map(select(length > 0) | capture("^(?<p>[0-9]+) (?<c>.*)$"))
			| group_by(.p) | map({key: .[0].p, value: map(.c)}) | from_entries) as $old
		| (map(select(.event == "sched_process_exit") | {key: (.pid | tostring),
			value: .fields.comm}) | from_entries) as $exit
		| .[] | select(.type == "event")
		| select(.comm != null and .comm != $exit[.pid | tostring] and .comm != $before
			 and (.comm as $c | ($old[.pid | tostring] // []) | any(. == $c) | not))
		| "\(.pid) \(.comm) exits as \($exit[.pid | tostring])"' "$1"
}
: > "$TMP/cmdlines"

# a short command run by a shell: the shell is tpctl's, the cats are not
for i in 1 2 3; do
	cat "$TRACEFS/saved_cmdlines" >> "$TMP/cmdlines"
	"$TPCTL" stream --json "${EV[@]}" -- sh -c 'cat /etc/hostname; cat /etc/hostname' \
		> "$TMP/sh.$i" 2> /dev/null || echo "exit $? in run $i" >> "$TMP/runs"
	cat "$TRACEFS/saved_cmdlines" >> "$TMP/cmdlines"
done
[ ! -s "$TMP/runs" ]
ok $? "stream --json -- sh -c 'cat; cat': three runs"
cat "$TMP"/sh.? | jq -c 'select(.comm == "<...>")' > "$TMP/dots"
[ ! -s "$TMP/dots" ]
ok $? "no event says \"comm\":\"<...>\""
head -3 "$TMP/dots" | diag
for i in 1 2 3; do names_agree "$TMP/sh.$i" sh; done > "$TMP/bad"
[ ! -s "$TMP/bad" ]
ok $? "every name given is the one the kernel's sched_process_exit gives (or sh before exec)"
head -5 "$TMP/bad" | diag
for i in 1 2 3; do
	pid=$(jq -r 'select(.type == "exit") | .pid' "$TMP/sh.$i")
	jq -r --argjson p "${pid:-0}" 'select(.type == "event" and .pid == $p) | .comm' \
		"$TMP/sh.$i"
done | sort | uniq -c | awk '{print $2}' > "$TMP/cmdnames"
echo sh > "$TMP/want"
test_cmp "every event of the command itself is named (sh), none null" "$TMP/want" "$TMP/cmdnames"

# a command whose name is longer than the kernel keeps: 15 bytes of the basename
ln -s "$(command -v cat)" "$TMP/a-command-with-a-long-name"
"$TPCTL" stream --json "${EV[@]}" -- "$TMP/a-command-with-a-long-name" /etc/hostname \
	> "$TMP/long" 2> /dev/null
ok $? "stream --json -- a-command-with-a-long-name"
jq -r 'select(.type == "event") | .comm' "$TMP/long" | sort -u > "$TMP/longnames"
echo a-command-with- > "$TMP/want"
test_cmp "its events are named as the kernel names it (15 bytes)" "$TMP/want" "$TMP/longnames"
names_agree "$TMP/long" > "$TMP/bad"
[ ! -s "$TMP/bad" ] && grep -q '"fields":{"comm":"a-command-with-"' "$TMP/long"
ok $? "and as its sched_process_exit says"

# count --by comm of the same short commands: the keys are names or null
cat "$TRACEFS/saved_cmdlines" > "$TMP/cmdlines"
"$TPCTL" count --json --by comm sched:sched_process_exit -- \
	sh -c 'cat /etc/hostname; cat /etc/hostname' > "$TMP/count" 2> /dev/null
ok $? "count --json --by comm -- sh -c 'cat; cat'"
jq -c '[.rows[] | {(.key.comm // "null"): .count}] | add' "$TMP/count" > "$TMP/rows"
# sh exits once, each cat once; a cat gone before anything knew its name is null,
# or named as saved_cmdlines named an older task of its pid when the run began
old=$(awk '{print $2}' "$TMP/cmdlines" | sort -u | jq -R . | jq -s -c .)
jq -e --argjson old "$old" '.sh == 1 and ([to_entries[] | select(.key != "sh") | .value] | add) == 2
	and (keys - ["sh", "cat", "null"] - $old) == []' "$TMP/rows" > /dev/null
ok $? "the keys: sh 1, cat (or null, or a reused pid's old name) 2, never \"<...>\""
diag "$TMP/rows"
done_testing
