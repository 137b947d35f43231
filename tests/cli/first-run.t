#!/bin/bash
# The first run on a machine where neither tracefs nor debugfs is mounted yet:
# tpctl must mount tracefs itself, work, and say nothing on stderr.  Tried in a
# private mount namespace (unshare -m --propagation private) where every
# tracefs and debugfs mount is taken away first, so the host keeps its mounts:
# checked before and after.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v unshare > /dev/null || skip_all "no unshare"
unshare -m --propagation private true 2> /dev/null || skip_all "cannot unshare the mount namespace"
plan 9

host_mounts() { awk '$3 == "tracefs" || $3 == "debugfs" { print $2, $3 }' /proc/self/mounts; }
host_mounts > "$TMP/host-before"

# In the namespace: unmount, deepest first (tracefs can sit under debugfs),
# then run a reading and a writing command; each result lands in $TMP.
cat > "$TMP/ns.sh" <<'EOF'
T=$1 TPCTL=$2
awk '$3 == "tracefs" || $3 == "debugfs" { print $2 }' /proc/self/mounts | sort -r |
	while read -r m; do umount "$m" || umount -l "$m"; done
awk '$3 == "tracefs" || $3 == "debugfs"' /proc/self/mounts > "$T/left"
"$TPCTL" list > "$T/list.out" 2> "$T/list.err"
echo $? > "$T/list.st"
awk '$3 == "tracefs" { print $2 }' /proc/self/mounts > "$T/mounted"
# a second run finds the mount made by the first
"$TPCTL" list sched > "$T/list2.out" 2> "$T/list2.err"
echo $? > "$T/list2.st"
# a command that writes: a private instance, an event enabled there, removed again
"$TPCTL" stream --count 3 sched:sched_switch > "$T/stream.out" 2> "$T/stream.err" &
pid=$!
wait $pid
echo $? > "$T/stream.st"
# its instance tpctl-<pid> must be gone
ls /sys/kernel/tracing/instances | grep -x "tpctl-$pid" > "$T/orphans"
EOF
unshare -m --propagation private bash "$TMP/ns.sh" "$TMP" "$TPCTL"

[ -f "$TMP/left" ] && [ ! -s "$TMP/left" ]
ok $? "no tracefs or debugfs is mounted in the namespace before tpctl runs"
[ -s "$TMP/left" ] && diag "$TMP/left"
[ "$(cat "$TMP/list.st" 2> /dev/null)" = 0 ] && [ ! -s "$TMP/list.err" ]
ok $? "list exits 0 and prints nothing on stderr"
diag "$TMP/list.err"
grep ':' "$TRACEFS/available_events" > "$TMP/expect"
test_cmp "list prints every available event" "$TMP/expect" "$TMP/list.out"
grep -qx /sys/kernel/tracing "$TMP/mounted" 2> /dev/null
ok $? "tracefs is mounted at /sys/kernel/tracing in the namespace"
grep '^sched:' "$TRACEFS/available_events" > "$TMP/expect"
[ "$(cat "$TMP/list2.st" 2> /dev/null)" = 0 ] && [ ! -s "$TMP/list2.err" ] &&
	cmp -s "$TMP/expect" "$TMP/list2.out"
ok $? "a second run uses that mount"
[ "$(cat "$TMP/stream.st" 2> /dev/null)" = 0 ] && [ ! -s "$TMP/stream.err" ]
ok $? "stream in a private instance exits 0 and prints nothing on stderr"
diag "$TMP/stream.err"
[ "$(grep -c ' sched_switch: ' "$TMP/stream.out")" = 3 ]
ok $? "stream printed 3 sched_switch lines"
[ -f "$TMP/orphans" ] && [ ! -s "$TMP/orphans" ]
ok $? "its private instance is gone"
host_mounts > "$TMP/host-after"
test_cmp "the host's tracefs and debugfs mounts are untouched" "$TMP/host-before" "$TMP/host-after"
done_testing
