#!/bin/bash
# Every event of the kernel at once, against the kernel itself.  Two private
# instances (options/hash-ptr 0, so the kernel prints real addresses as tpctl
# does) trace all events over a short workload: ls -R, a file written and
# synced (block and writeback events), a trace_marker write.  Then
#  - `tpctl -i A stream --drain` must print the kernel's `trace` text of A line
#    for line (tests/cli/text-oracle.py), except the parts
#    tests/unit/fixtures/known-text-differences lists (what the kernel itself
#    cannot print reproducibly), which are masked on both sides, and task
#    names the kernel's saved_cmdlines cache no longer had when we read it;
#  - `tpctl -i B stream --drain --json` must agree with B's `trace` value by
#    value (tests/cli/json-oracle.py);
#  - the same two again with threads that format the records (--threads,
#    src/output_pool.c), on instances C (text) and D (JSON);
#  - A's text with one thread (--read-thread no), B's JSON and E's text with
#    a thread of its own reading and merging (--read-thread yes, src/readq.c).
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "no python3"
plan 17

known=$TOP/tests/unit/fixtures/known-text-differences

make_instance
A=$INST ADIR=$IDIR
B=$A-json BDIR=$TRACEFS/instances/$B
C=$A-threads CDIR=$TRACEFS/instances/$C
D=$A-json-threads DDIR=$TRACEFS/instances/$D
E=$A-read-thread EDIR=$TRACEFS/instances/$E
OTHERS=("$BDIR" "$CDIR" "$DDIR" "$EDIR")
ALL=("$ADIR" "${OTHERS[@]}")
others_gone() {
	local d
	for d in "${OTHERS[@]}"; do
		echo 0 > "$d/tracing_on" 2>/dev/null
		echo 0 > "$d/events/enable" 2>/dev/null
		rmdir "$d" 2>/dev/null
	done
}
trap 'others_gone; _cleanup' EXIT
for d in "${OTHERS[@]}"; do
	mkdir "$d" || { echo "Bail out! cannot create $d"; exit 1; }
done
for d in "${ALL[@]}"; do
	echo 0 > "$d/tracing_on"
	echo 0 > "$d/options/hash-ptr"
	# ~130,000 records on the 6.18 host: a buffer that holds them several times
	echo 32768 > "$d/buffer_size_kb"
	echo 1 > "$d/events/enable"
done
n=$(cat "$ADIR"/events/*/*/enable | grep -c 1)
ok $([ "$n" -gt 100 ]; echo $?) "every event enabled in $A ($n)"

# a file on a disk, so that writing it back makes block and writeback events
work=$(mktemp -d "$TOP/tests/.oracle-all.XXXXXX")
trap 'others_gone; rm -rf "$work"; _cleanup' EXIT
# A busy machine (other tests, a compiler) can fill even these buffers: then
# the two reads would not see the same records.  Try again, up to 3 times.
for try in 1 2 3; do
	for d in "${ALL[@]}"; do echo > "$d/trace"; done
	for d in "${ALL[@]}"; do echo 1 > "$d/tracing_on"; done
	ls -R /usr/include/linux > /dev/null
	dd if=/dev/zero of="$work/f$try" bs=64k count=1 status=none
	sync "$work/f$try"
	echo "oracle-all marker" | tee "$BDIR/trace_marker" "$CDIR/trace_marker" \
		"$DDIR/trace_marker" "$EDIR/trace_marker" > "$ADIR/trace_marker"
	for d in "${ALL[@]}"; do echo 0 > "$d/tracing_on"; done
	lost=$(for d in "${ALL[@]}"; do cat "$d"/per_cpu/cpu*/stats; done |
		awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }')
	[ "$lost" = 0 ] && break
done
ok $([ "$lost" = 0 ]; echo $?) "nothing was overwritten or dropped (try $try)"

grep -av '^#' "$ADIR/trace" > "$TMP/kernel"
# TPCTL_TEXTPLAN=check: each record's text is also made by libtraceevent, and
# any difference from the text plan's (src/textplan.c) is said on stderr
TPCTL_TEXTPLAN=check "$TPCTL" -i "$A" stream --drain --read-thread no > "$TMP/tpctl" 2> "$TMP/err"
st=$?
[ $st = 0 ] && [ ! -s "$TMP/err" ]
ok $? "stream --drain of every event exits 0, nothing on stderr (text plans as libtraceevent)"
diag "$TMP/err"
python3 "$TOP/tests/cli/text-oracle.py" "$TMP/kernel" "$TMP/tpctl" "$known" > "$TMP/py" 2>&1
st=$?
ok $st "the kernel's text, line for line ($(head -1 "$TMP/py"))"
[ $st = 0 ] || diag "$TMP/py"

# the kinds tpctl printed differently before (enum names, strings of
# printk_formats, print fmts libtraceevent misreads) must have been there
for k in hrtimer_start timer_start rcu_utilization; do
	grep -qa ": $k: " "$TMP/kernel" || echo "$k"
done > "$TMP/missing"
ok $([ ! -s "$TMP/missing" ]; echo $?) "hrtimer_start, timer_start and rcu_utilization were traced"
diag "$TMP/missing"
grep -aqE ': hrtimer_(start|setup): .* mode=(ABS|REL)' "$TMP/tpctl" &&
	! grep -aqE ': hrtimer_(start|setup): .* mode=0x' "$TMP/tpctl"
ok $? "hrtimer modes by name (HRTIMER_MODE_* from BTF)"
! grep -aqE ': rcu_utilization: [0-9a-f]{16}$' "$TMP/tpctl"
ok $? "rcu_utilization's strings (printk_formats), not addresses"
if grep -aqE ': block_rq_(issue|complete): ' "$TMP/kernel"; then
	grep -aqE ': block_rq_(issue|complete): .* (none|rt|be|idle),[0-9]+,[0-9]+ ' "$TMP/tpctl"
	ok $? "block requests show the I/O priority class by name (IOPRIO_CLASS_*)"
else
	skip "no block request was traced"
fi

grep -av '^#' "$BDIR/trace" > "$TMP/kernel-b"
"$TPCTL" -i "$B" stream --drain --json --read-thread yes > "$TMP/json" 2> "$TMP/err"
ok $? "stream --drain --json --read-thread yes of every event exits 0"
diag "$TMP/err"
python3 "$TOP/tests/cli/json-oracle.py" "$TMP/json" "$TMP/kernel-b" "$TRACEFS/events" \
	> "$TMP/py" 2>&1
st=$?
ok $st "JSON agrees with the kernel's text value by value ($(head -1 "$TMP/py"))"
[ $st = 0 ] || diag "$TMP/py"

# formatted by threads: the same text and the same JSON
grep -av '^#' "$CDIR/trace" > "$TMP/kernel-c"
TPCTL_TEXTPLAN=check "$TPCTL" -i "$C" stream --drain --threads 3 > "$TMP/tpctl-c" 2> "$TMP/err"
st=$?
[ $st = 0 ] && [ ! -s "$TMP/err" ]
ok $? "stream --drain --threads 3 exits 0, nothing on stderr"
diag "$TMP/err"
python3 "$TOP/tests/cli/text-oracle.py" "$TMP/kernel-c" "$TMP/tpctl-c" "$known" > "$TMP/py" 2>&1
st=$?
ok $st "--threads 3: the kernel's text, line for line ($(head -1 "$TMP/py"))"
[ $st = 0 ] || diag "$TMP/py"
grep -av '^#' "$DDIR/trace" > "$TMP/kernel-d"
"$TPCTL" -i "$D" stream --drain --json --threads 2 > "$TMP/json-d" 2> "$TMP/err"
ok $? "stream --drain --json --threads 2 exits 0"
diag "$TMP/err"
python3 "$TOP/tests/cli/json-oracle.py" "$TMP/json-d" "$TMP/kernel-d" "$TRACEFS/events" \
	> "$TMP/py" 2>&1
st=$?
ok $st "--json --threads 2: agrees with the kernel's text value by value ($(head -1 "$TMP/py"))"
[ $st = 0 ] || diag "$TMP/py"

# read and merged on a thread of its own: the kernel's text again
grep -av '^#' "$EDIR/trace" > "$TMP/kernel-e"
TPCTL_TEXTPLAN=check "$TPCTL" -i "$E" stream --drain --read-thread yes > "$TMP/tpctl-e" \
	2> "$TMP/err"
st=$?
[ $st = 0 ] && [ ! -s "$TMP/err" ]
ok $? "stream --drain --read-thread yes exits 0, nothing on stderr"
diag "$TMP/err"
python3 "$TOP/tests/cli/text-oracle.py" "$TMP/kernel-e" "$TMP/tpctl-e" "$known" > "$TMP/py" 2>&1
st=$?
ok $st "--read-thread yes: the kernel's text, line for line ($(head -1 "$TMP/py"))"
[ $st = 0 ] || diag "$TMP/py"
[ "$(wc -l < "$TMP/tpctl-e")" -gt 1000 ]
ok $? "... of many records ($(wc -l < "$TMP/tpctl-e") lines)"
done_testing
