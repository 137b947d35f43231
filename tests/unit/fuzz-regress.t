#!/bin/bash
# Every input a fuzz target ever crashed on (tests/fuzz/regress/<target>/) runs
# again through the same target code; each must pass its target's own checks
# (NDJSON output parses, report exits 0 or 1) without crashing.  A file named
# todo-* is a crash not fixed yet (see tests/fuzz/RESULTS.md): a TAP TODO.
cd "$(dirname "$0")/../.." || exit 1
bin=tests/unit/bin/fuzz-regress
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
files=()
for t in page format dat json flame sysdec traceset stopon; do
	for f in tests/fuzz/regress/$t/*; do
		[ -f "$f" ] && files+=("$t:$f")
	done
done
echo "1..${#files[@]}"
n=0
for tf in "${files[@]}"; do
	t=${tf%%:*}
	f=${tf#*:}
	n=$((n + 1))
	out=$("$bin" "$PWD" "$t" "$f" 2>&1)
	st=$?
	todo=
	case ${f##*/} in todo-*) todo=" # TODO not fixed yet, see tests/fuzz/RESULTS.md" ;; esac
	if [ $st -eq 0 ] && [ "$out" = "ok - $t ${f##*/}" ]; then
		echo "ok $n - $t ${f##*/}$todo"
	else
		echo "not ok $n - $t ${f##*/} (exit $st)$todo"
		printf '%s\n' "$out" | tail -20 | sed 's/^/# /'
	fi
done
