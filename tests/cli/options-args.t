#!/bin/bash
# Every option of every command that takes an argument, driven from the
# commands' own option tables (`tpctl CMD --list-options`), so that an option
# added later is covered without a new line here:
#   - given last on the line without its argument, in its long and its short
#     form, and (for a command that runs one) just before "--": exit 2 and
#     "option '--NAME' needs an argument" ('-X' for the short form);
#   - a numeric argument that is not a number ("abc") or is negative ("-1"):
#     exit 2 and an "invalid ... 'VALUE' for --NAME" line;
#   - an unknown long and short option.
# Each refusal: one "tpctl: CMD: " line of printable ASCII (the hint aside),
# nothing on stdout, nothing changed (hostile.sh's run_refused).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs

# numeric arguments, by their name in the table
numeric='^(N|SEC|DURATION|STEP|KB)$'

# cmd|short|long|arg of every option taking an argument; the
# global options under the command name "" (tpctl's own table)
table() {
	local c
	"$TPCTL" --list-options | awk -F'\t' '$3 != "" { print "|" $1 "|" $2 "|" $3 }'
	for c in $("$TPCTL" --list-commands | cut -f1); do
		"$TPCTL" "$c" --list-options |
			awk -F'\t' -v c="$c" '$3 != "" && $2 != "--" { print c "|" $1 "|" $2 "|" $3 }'
	done
}
table > "$TMP/table"
cmds=$("$TPCTL" --list-commands | cut -f1)

n=0
while IFS="|" read -r c s l a; do
	n=$((n + 1))
	[ -n "$s" ] && n=$((n + 1))
	if [ -n "$c" ] && "$TPCTL" "$c" --list-options | grep -q $'^\t--\t'; then
		n=$((n + 1))
	fi
	[[ $a =~ $numeric ]] && n=$((n + 2))
done < "$TMP/table"
ncmds=$(echo "$cmds" | wc -w)
plan $((2 + n + ncmds * 2))

# a table too short would test nothing: the commands have dozens of such options
[ "$(wc -l < "$TMP/table")" -ge 40 ]
ok $? "the option tables list $(wc -l < "$TMP/table") options with an argument"

# the exit 2 that says what is missing for "tpctl [CMD] WORDS..."
while IFS="|" read -r c s l a; do
	pre=${c:+"$c: "}
	args=()
	[ -n "$c" ] && args=("$c")
	MSG="^tpctl: ${pre}option '$l' needs an argument$" \
		run_refused "${c:-tpctl} $l without its $a" 2 "$TPCTL" "${args[@]}" "$l"
	if [ -n "$s" ]; then
		MSG="^tpctl: ${pre}option '$s' needs an argument$" \
			run_refused "${c:-tpctl} $s without its $a" 2 "$TPCTL" "${args[@]}" "$s"
	fi
	if [ -n "$c" ] && "$TPCTL" "$c" --list-options | grep -q $'^\t--\t'; then
		MSG="^tpctl: ${pre}option '$l' needs an argument$" \
			run_refused "$c $l without its $a before --" 2 \
			"$TPCTL" "$c" "$l" -- touch "$TMP/ran"
	fi
	if [[ $a =~ $numeric ]]; then
		for v in abc -1; do
			MSG="^tpctl: ${pre}invalid [a-z ]+'$v' for '?$l'?" \
				run_refused "${c:-tpctl} $l $v" 2 "$TPCTL" "${args[@]}" "$l" "$v"
		done
	fi
done < "$TMP/table"

for c in $cmds; do
	MSG="^tpctl: $c: unknown option '--no-such-option'$" \
		run_refused "$c --no-such-option" 2 "$TPCTL" "$c" --no-such-option
	MSG="^tpctl: $c: unknown option '-Y'$" run_refused "$c -Y" 2 "$TPCTL" "$c" -Y
done
[ ! -e "$TMP/ran" ]
ok $? "no refused command ran its COMMAND"
done_testing
