#!/bin/sh
# trace.dat writers (src/dat.c, versions 6 and 7) on saved pages: trace-cmd
# must read the file and show exactly the kernel's own `trace` text for those
# pages, also for a file left behind by a killed writer (no dat_finish).
cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd)
bin=tests/unit/bin/dat
fix=tests/unit/dat
norm=tests/cli/report-norm.py
tc=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
if [ ! -x "$tc" ]; then
	echo "1..0 # skip no trace-cmd ($tc)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..16"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }

python3 "$norm" < "$fix/trace.txt" > "$tmp/kernel"
grep '\[000\]' "$tmp/kernel" > "$tmp/kernel0"
for v in 6 7; do
	check "v$v: writer creates the file" "$bin $fix $tmp/full$v.dat --version $v"
	check "v$v: trace-cmd reads it without error" \
		"(cd $tmp && $tc report -N full$v.dat > report 2> err) && ! [ -s $tmp/err ]"
	python3 "$norm" < "$tmp/report" > "$tmp/full"
	check "v$v: same events and text as the kernel's trace file" \
		"[ -s $tmp/kernel ] && diff -u $tmp/kernel $tmp/full >&2"
	check "v$v: per-CPU stats are stored" \
		"(cd $tmp && $tc report --stat full$v.dat) 2>/dev/null | grep -c '^CPU: [0-9]' | grep -qx $(cat $fix/ncpus)"

	# A writer killed after 2 pages (all of CPU 0's fixture pages): readable, CPU 0 only.
	$bin $fix "$tmp/kill2.dat" --version $v --kill 2
	(cd "$tmp" && $tc report -N kill2.dat 2>/dev/null) | python3 "$norm" > "$tmp/kill2"
	check "v$v: killed file holds the committed pages" "diff -u $tmp/kernel0 $tmp/kill2 >&2"
	# Killed after every page but before dat_finish: sparse, but complete.
	$bin $fix "$tmp/kill3.dat" --version $v --kill 3
	(cd "$tmp" && $tc report -N kill3.dat 2>/dev/null) | python3 "$norm" > "$tmp/kill3"
	check "v$v: unfinished file holds every page" "diff -u $tmp/kernel $tmp/kill3 >&2"
	"$TOP"/tpctl report "$tmp/kill3.dat" 2> /dev/null | python3 "$norm" > "$tmp/kill3.tp"
	check "v$v: tpctl report reads the unfinished file the same" \
		"diff -u $tmp/kernel $tmp/kill3.tp >&2"
done
check "v6: finished file is compact" \
	"[ \$(stat -c %s $tmp/full6.dat) -lt \$(( $(stat -c %s $fix/cpu0) + $(stat -c %s $fix/cpu1) + 200000 )) ]"
check "v7: finished file is smaller than its pages" \
	"[ \$(stat -c %s $tmp/full7.dat) -lt \$(( $(stat -c %s $fix/cpu0) + $(stat -c %s $fix/cpu1) )) ]"
