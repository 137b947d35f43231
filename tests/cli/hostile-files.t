#!/bin/bash
# Files that are not what report and record expect: report of a device, a
# directory, a FIFO (must not wait for a writer), a symlink to a device, a
# /proc file, a missing or empty name; record -o onto a directory, a FIFO, a
# full device, a missing directory.  Each: exit 1, one message naming the
# file, nothing on stdout, no private instance left, nothing changed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs

mkfifo "$TMP/fifo"
ln -s /dev/zero "$TMP/zero-link"
: > "$TMP/empty.dat"
head -c 4096 /dev/urandom > "$TMP/random.dat"
rfiles=(/dev/zero /dev/null "$TMP" "$TMP/fifo" "$TMP/zero-link" /proc/self/status
	"$TMP/none.dat" "" "$TMP/empty.dat" "$TMP/random.dat")
ofiles=("$TMP" "$TMP/fifo" /dev/full "$TMP/no/such/dir/x.dat" "")
plan $(( ${#rfiles[@]} + ${#ofiles[@]} + 1 ))

for f in "${rfiles[@]}"; do
	MSG="^tpctl: report: .*'$f'" run_refused "report '$f': exit 1 naming it" 1 \
		timeout 20 "$TPCTL" report "$f"
done
for f in "${ofiles[@]}"; do
	MSG="^tpctl: record: .*'$f'" run_refused "record -o '$f': exit 1 naming it" 1 \
		timeout 20 "$TPCTL" record -o "$f" --duration 0.2 sched:sched_switch
done
[ -p "$TMP/fifo" ] && [ -d "$TMP" ] && [ ! -e "$TMP/no" ]
ok $? "the FIFO is still a FIFO, no directory was created"
done_testing
