# shellcheck shell=bash
# Helpers for the hostile-*.t and fault-*.t tests, on top of lib.sh.
#
# "Nothing changed" is checked on what a refused command could have touched:
# the top level's tracing_on, set_event and filters (top_digest), a private
# instance's as well (top_digest DIR), and that no private
# tpctl-<pid> instance of a process that is gone appeared (orphans).  The
# list of all instances is not compared: other tests create theirs meanwhile.

# tracing_on, enabled events, filters and buffer size of a tracefs dir
# (default: the top level).
top_digest() {
	local d=${1:-$TRACEFS}
	{
		cat "$d/tracing_on" "$d/set_event" "$d/buffer_size_kb" 2>/dev/null
		grep -H . "$d"/events/*/*/filter 2>/dev/null | grep -v ':none$'
	} | md5sum
}

# tpctl-<pid> instances whose process is gone, one per line.
orphans() {
	local d p
	for d in "$TRACEFS"/instances/tpctl-*; do
		[ -d "$d" ] || continue
		p=${d##*/tpctl-}
		kill -0 "$p" 2>/dev/null || echo "${d##*/}"
	done
}

# run_refused NAME WANT CMD...: run CMD (stdout $TMP/out, stderr $TMP/err) and
# check its exit status is WANT, stderr is one "tpctl: " line, stdout is empty,
# (and, when $MSG is set, that the line matches the extended regex $MSG),
# and neither the top level, $IDIR (when set) nor the orphan list changed.
run_refused() {
	local name=$1 want=$2 st b_top b_inst b_orph why=
	shift 2
	b_top=$(top_digest)
	b_inst=${IDIR:+$(top_digest "$IDIR")}
	b_orph=$(orphans)
	"$@" > "$TMP/out" 2> "$TMP/err" < /dev/null
	st=$?
	[ "$st" -eq "$want" ] || why="$why exit $st, want $want;"
	# (an option error adds the usual "try 'tpctl CMD --help'" hint, a filter
	# error the expression and its caret, indented)
	[ "$(grep -v -c -e "^try 'tpctl" -e '^  ' "$TMP/err")" -eq 1 ] &&
		grep -q '^tpctl: ' "$TMP/err" || why="$why stderr not one 'tpctl: ' line;"
	LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$TMP/err" &&
		why="$why a raw control byte on stderr;"
	[ -s "$TMP/out" ] && why="$why output on stdout;"
	[ -z "$MSG" ] || grep -q -E -- "$MSG" "$TMP/err" || why="$why message not /$MSG/;"
	[ "$b_top" = "$(top_digest)" ] || why="$why top level changed;"
	[ -z "$IDIR" ] || [ "$b_inst" = "$(top_digest "$IDIR")" ] ||
		why="$why instance $INST changed;"
	[ "$b_orph" = "$(orphans)" ] || why="$why a tpctl-<pid> instance was left;"
	if [ -z "$why" ]; then
		ok 0 "$name"
	else
		ok 1 "$name:$why"
		head -3 "$TMP/err" | cut -c1-200 | diag
	fi
}

# start_gen N: a process that prints its pid and, after a line on its stdin,
# makes N getpid() calls (one syscalls:sys_enter_getpid event each) and exits:
# bench/gen when built ($GENB where need_record_tools ran), else perl's
# syscall() (x86_64's number).  Sets gpid
# and the GEN coprocess; false when neither is available.
start_gen() {
	local g=${GENB:-$TOP/bench/gen}
	if [ -x "$g" ]; then
		coproc GEN { exec "$g" "$1"; }
	elif [ "$(uname -m)" = x86_64 ] && command -v perl > /dev/null; then
		coproc GEN { exec perl -e '$| = 1; print "$$\n"; <STDIN>; syscall(39) for 1 .. '"$1"; }
	else
		return 1
	fi
	read -r gpid <&"${GEN[0]}"
}
