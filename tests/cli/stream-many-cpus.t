#!/bin/bash
# Many busy CPUs on a machine of few: a --tracefs tree of plain files with
# 16 and 40 CPUs (tests/cli/fakecpus.py), whose records interleave one by
# one or tie on every stamp.  One reader's merge (reader.c), the same merge
# on a thread of its own (readq.c, --read-thread yes) and the reader
# threads' writer (stream_cpu.c, --threads 2, 4, 8) must write the same
# lines: every record once, by stamp, the lower CPU first on a tie.  No
# root needed: the tree is the tracefs.
. "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || skip_all "no python3"
plan 24

# order FILE: "ok" when a --json stream's stamps never go back and a tie keeps CPU order
order() {
	python3 -c '
import json, sys
last = None
for l in open(sys.argv[1]):
    o = json.loads(l)
    k = (o["ts_ns"], o["cpu"])
    if last is not None and k <= last:
        print("out of order: " + l.strip()); sys.exit()
    last = k
print("ok")' "$1"
}

for shape in "16 48000" "16 48000 --ties" "40 40000" "40 40000 --ties"; do
	set -- $shape
	name="$1 CPUs${3:+, ties}"
	rm -rf "$TMP/tree"
	python3 "$TOP/tests/cli/fakecpus.py" "$TMP/tree" $shape
	"$TPCTL" --tracefs "$TMP/tree" stream --drain --json --read-thread no > "$TMP/json1" \
		2> "$TMP/err"
	n=$(wc -l < "$TMP/json1")
	ok $([ "$n" = "$2" ] && [ "$(order "$TMP/json1")" = ok ]; echo $?) \
		"$name: one reader writes all $2 records, by stamp, ties in CPU order ($n)"
	[ "$_last" = ok ] || { order "$TMP/json1" | diag; diag "$TMP/err"; }
	"$TPCTL" --tracefs "$TMP/tree" stream --drain --read-thread no > "$TMP/one" 2> /dev/null
	"$TPCTL" --tracefs "$TMP/tree" stream --drain --read-thread yes > "$TMP/rt" 2> "$TMP/err"
	cmp -s "$TMP/one" "$TMP/rt"
	ok $? "$name: --read-thread yes writes the same lines"
	[ "$_last" = ok ] || { diff "$TMP/one" "$TMP/rt" | head -6 | diag; diag "$TMP/err"; }
	"$TPCTL" --tracefs "$TMP/tree" stream --drain --json --read-thread yes > "$TMP/json" \
		2> "$TMP/err"
	cmp -s "$TMP/json1" "$TMP/json"
	ok $? "$name: --json --read-thread yes writes what one reader does"
	for t in 2 8; do
		"$TPCTL" --tracefs "$TMP/tree" stream --drain --threads $t > "$TMP/thr" 2> "$TMP/err"
		cmp -s "$TMP/one" "$TMP/thr" && [ "$(wc -l < "$TMP/thr")" = "$2" ]
		ok $? "$name: --threads $t writes the same lines"
		[ "$_last" = ok ] || { diff "$TMP/one" "$TMP/thr" | head -6 | diag; diag "$TMP/err"; }
	done
	"$TPCTL" --tracefs "$TMP/tree" stream --drain --json --threads 4 > "$TMP/json" 2> "$TMP/err"
	cmp -s "$TMP/json1" "$TMP/json"
	ok $? "$name: --json --threads 4 writes what one reader does"
done
done_testing
