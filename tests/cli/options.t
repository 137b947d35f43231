#!/bin/bash
# Every option that `tpctl --help` and `tpctl COMMAND --help` print must be
# documented in the command's man page and offered by the bash, zsh and fish
# completions (asked through each shell's own completion engine), and every
# option a completion offers must exist in --help.  Also: the completions
# parse, event names come from `tpctl list`, and every man page is lint-clean.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
export PATH="$TOP:$PATH"	# the completions run `tpctl` from PATH
export LC_ALL=C		# sort and comm agree
MAN=$TOP/man
COMP=$TOP/completions

have() { command -v "$1" > /dev/null; }

# ---- what the shells offer --------------------------------------------------

# comp_bash LINE: the words bash would offer at the end of LINE
comp_bash() {
	bash -c '
		COMP_WORDBREAKS=${COMP_WORDBREAKS:-$'"'"'"\x27><=;|&(:'"'"'}
		source "$1" || exit 1
		COMP_LINE=$2 COMP_POINT=${#2} COMPREPLY=()
		_tpctl
		printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP/tpctl.bash" "$1"
}

comp_fish() {
	# only our completions: no user config, no installed copy of tpctl.fish
	fish --no-config -c 'set -g fish_complete_path (dirname $argv[1]); source $argv[1]; and complete -C $argv[2]' \
		"$COMP/tpctl.fish" "$1" | cut -f1
}

comp_zsh() {
	timeout 30 zsh -f "$TOP/tests/cli/zcomplete.zsh" "$COMP" "$1"
}

# help_opts FILE: the options a --help text documents, one a line: every long
# option (--name) it mentions, and the short ones of its option lines ("  -j, --json")
help_opts() {
	{
		grep -oE -- '--[a-z][a-z0-9-]*' "$1"
		grep -oE -- '^ +-[a-zA-Z],' "$1" | tr -d ' ,'
	} | LC_ALL=C sort -u
}

# ---- syntax -----------------------------------------------------------------

bash -n "$COMP/tpctl.bash" 2> "$TMP/err"; r=$?; ok $r "bash -n completions/tpctl.bash"
[ $r -eq 0 ] || diag "$TMP/err"
for sh in zsh fish; do
	if ! have $sh; then
		ok 1 "$sh is installed (make deps installs it)"
		continue
	fi
	case $sh in
	zsh) f=$COMP/_tpctl ;;
	fish) f=$COMP/tpctl.fish ;;
	esac
	$sh -n "$f" 2> "$TMP/err"; r=$?; ok $r "$sh -n ${f#"$TOP"/}"
	[ $r -eq 0 ] || diag "$TMP/err"
done

# ---- man pages lint-clean ---------------------------------------------------

for page in "$MAN"/*.1; do
	name=${page#"$TOP"/}
	# style notes (such as a manual referenced but not installed) are not failures
	mandoc -Tlint -W warning "$page" > "$TMP/lint" 2>&1
	grep -E 'WARNING|ERROR|UNSUPP|BADARG' "$TMP/lint" > "$TMP/lintw"
	[ ! -s "$TMP/lintw" ]; r=$?; ok $r "mandoc -Tlint $name"
	[ $r -eq 0 ] || diag "$TMP/lintw"
	if have man; then
		MANWIDTH=80 man --warnings -l "$page" 2>&1 > /dev/null |
			grep -v 'mandoc.db' > "$TMP/manw"
		[ ! -s "$TMP/manw" ]; r=$?; ok $r "man --warnings -l $name is quiet"
		[ $r -eq 0 ] || diag "$TMP/manw"
	fi
done

# ---- options: --help vs man page vs completions -----------------------------

"$TPCTL" --help > "$TMP/help" 2>&1
commands=$(sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' "$TMP/help")
[ -n "$commands" ]; ok $? "tpctl --help lists the commands"
shells="bash"
have zsh && shells="$shells zsh"
have fish && shells="$shells fish"

for cmd in global $commands; do
	if [ $cmd = global ]; then
		cp "$TMP/help" "$TMP/h"
		page=$MAN/tpctl.1
		line="tpctl -"
	else
		"$TPCTL" $cmd --help > "$TMP/h" 2>&1
		page=$MAN/tpctl-$cmd.1
		line="tpctl $cmd -"
	fi
	if grep -q 'not available in this build' "$TMP/h"; then
		skip "$cmd: not available in this build"
		continue
	fi
	help_opts "$TMP/h" > "$TMP/opts"
	[ -s "$TMP/opts" ]; ok $? "$cmd: --help lists options ($(echo $(cat "$TMP/opts")))"

	# the man page, as a reader sees it
	if [ -f "$page" ]; then
		# the entry lines of its OPTIONS section ("     -j, --json"), not
		# a mention in the prose
		mandoc -Tascii "$page" 2>/dev/null | sed 's/.\x08//g' |
			sed -n '/^OPTIONS/,/^[A-Z]/{/^ *-[a-zA-Z-]/p}' > "$TMP/man"
		missing=$(while read -r o; do
			grep -qE -- "(^|[^a-z0-9-])$o([^a-zA-Z0-9-]|\$)" "$TMP/man" || echo "$o"
		done < "$TMP/opts")
		[ -z "$missing" ]
		ok $? "$cmd: every option is in OPTIONS of ${page#"$TOP"/}${missing:+ (missing: $(echo $missing))}"
	else
		ok 1 "$cmd: man page ${page#"$TOP"/} exists"
	fi

	# --list-options (what the completions read) names the options --help names
	if [ $cmd = global ]; then
		"$TPCTL" --list-options > "$TMP/lo" 2>&1
	else
		"$TPCTL" $cmd --list-options > "$TMP/lo" 2>&1
	fi
	cut -f1,2 "$TMP/lo" | tr '\t' '\n' | grep -E '^(--[a-z]|-[a-zA-Z]$)' |
		LC_ALL=C sort -u > "$TMP/listed"
	test_cmp "$cmd: --list-options names the options of --help" "$TMP/opts" "$TMP/listed"

	for sh in $shells; do
		comp_$sh "$line" | grep -E '^(--[a-z]|-[a-zA-Z]$)' | LC_ALL=C sort -u > "$TMP/offered"
		missing=$(comm -23 "$TMP/opts" "$TMP/offered")
		[ -z "$missing" ]
		ok $? "$cmd: $sh completion offers every option${missing:+ (missing: $(echo $missing))}"
		extra=$(comm -13 "$TMP/opts" "$TMP/offered")
		[ -z "$extra" ]
		ok $? "$cmd: $sh completion offers no option --help lacks${extra:+ (extra: $(echo $extra))}"
	done
done

# ---- event names come from tpctl list ---------------------------------------

if "$TPCTL" list 'sched:sched_sw*' > "$TMP/want" 2>/dev/null && [ -s "$TMP/want" ]; then
	sort "$TMP/want" > "$TMP/want.full"
	# bash replaces only the part after the last ':' of the word
	sed 's/^sched://' "$TMP/want.full" > "$TMP/want.bash"
	comp_bash "tpctl enable sched:sched_sw" | sort > "$TMP/got"
	test_cmp "bash completes event names from tpctl list" "$TMP/want.bash" "$TMP/got"
	for sh in $shells; do
		[ $sh = bash ] && continue
		comp_$sh "tpctl enable sched:sched_sw" | sort > "$TMP/got"
		test_cmp "$sh completes event names from tpctl list" "$TMP/want.full" "$TMP/got"
	done
else
	skip "event names: no readable tracefs"
fi

# ---- latency's recipes: --help vs completions --------------------------------

"$TPCTL" latency --help 2>&1 | sed -n 's/.*recipe: \(wakeup.*\)/\1/p' | tr -d ' ' | tr ',' '\n' |
	sort > "$TMP/recipes"
[ -s "$TMP/recipes" ]
ok $? "latency --help lists its recipes"
for sh in $shells; do
	comp_$sh "tpctl latency " | grep -Fx -f "$TMP/recipes" | sort -u > "$TMP/got"
	test_cmp "$sh completion offers every recipe of latency" "$TMP/recipes" "$TMP/got"
done

plan $_n
done_testing
