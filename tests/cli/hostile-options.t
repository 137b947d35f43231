#!/bin/bash
# Bad options and values: unknown options for every command, junk numbers for
# stream and record, a tracefs that is missing, a file or not a tracefs.
# Each: the exit status docs/DESIGN.md section 1 gives, one message naming what is wrong,
# nothing on stdout, nothing changed, no private instance or file left.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs

cmds=(list format enable disable filter status stream record report reset)
nums=("--count -1" "--count abc" "--count=" "--count 1x" "--count 99999999999999999999999"
	"--duration abc" "--duration -1" "--duration nan" "--duration inf" "--duration 1e999"
	"--duration=" "--buffer-kb 0" "--buffer-kb -4" "--buffer-kb 4k" "--cpu 9999" "--cpu 1-0"
	"--cpu abc" "--cpu=" "--cpu 0," "--cpu ,0" "--cpu +1" "--cpu 0-" "--cpu 0--1")
repcpus=("--cpu abc" "--cpu=" "--cpu 4096" "--cpu 1-0" "--cpu 0," "--cpu 0,,1" "--cpu ' 1'"
	"--cpu 99999999999999999999")
recnums=("--duration abc" "--duration -1" "--duration nan" "--duration=" "--buffer-kb 0"
	"--buffer-kb -4" "--buffer-kb abc")
bad_tracefs=(/nonexistent /etc/passwd / '')
tcmds=("status" "list" "enable sched:sched_switch" "disable sched:sched_switch"
	"filter sched:sched_switch prev_pid>1" "stream sched:sched_switch --count 1"
	"record -o $TMP/t.dat sched:sched_switch -- true" "format sched:sched_switch")
plan $(( ${#cmds[@]} * 3 + 2 + ${#nums[@]} + ${#recnums[@]} + 1 + ${#repcpus[@]} + ${#bad_tracefs[@]} * ${#tcmds[@]} + 1 ))

for c in "${cmds[@]}"; do
	MSG="^tpctl: $c: unknown option '--frobnicate'$" \
		run_refused "$c --frobnicate: exit 2" 2 "$TPCTL" "$c" --frobnicate
	MSG="^tpctl: $c: unknown option '-Z'$" run_refused "$c -Z: exit 2" 2 "$TPCTL" "$c" -Z
	MSG="^tpctl: $c: unknown option '---'$" \
		run_refused "$c ---: exit 2" 2 "$TPCTL" "$c" ---
done
MSG="unknown option '--frobnicate'" run_refused "global --frobnicate: exit 2" 2 \
	"$TPCTL" --frobnicate status
MSG="needs an argument" run_refused "global -i without its argument: exit 2" 2 "$TPCTL" -i

for a in "${nums[@]}"; do
	# shellcheck disable=SC2086
	MSG="^tpctl: stream: invalid [a-zA-Z ]+ '" \
		run_refused "stream $a: exit 2" 2 "$TPCTL" stream sched:sched_switch $a
done
for a in "${recnums[@]}"; do
	# shellcheck disable=SC2086
	MSG="^tpctl: record: invalid [a-zA-Z ]+ '" \
		run_refused "record $a: exit 2" 2 "$TPCTL" record -o "$TMP/r.dat" $a sched:sched_switch -- true
done
[ ! -e "$TMP/r.dat" ]; ok $? "no trace.dat was created by a refused record"
# report refuses a bad CPU list before it opens the file
for a in "${repcpus[@]}"; do
	eval "set -- $a"
	MSG="^tpctl: report: invalid CPU list '.*': CPUs below 4096, as in 0,2-3$" \
		run_refused "report $a: exit 2" 2 "$TPCTL" report "$@" "$TMP/none.dat"
done

for t in "${bad_tracefs[@]}"; do
	for c in "${tcmds[@]}"; do
		# shellcheck disable=SC2086
		MSG="^tpctl: [a-z]+: (no tracefs at '$t'|'$t' is not a tracefs)" \
			run_refused "--tracefs '$t' $c: exit 1" 1 "$TPCTL" --tracefs "$t" $c
	done
done
[ ! -e "$TMP/t.dat" ]; ok $? "no trace.dat was created without a tracefs"
done_testing
