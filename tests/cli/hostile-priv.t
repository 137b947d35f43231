#!/bin/bash
# Without the rights to trace: as an unprivileged user (setpriv to nobody) and
# on a read-only tracefs (a read-only bind mount in a private mount
# namespace).  Every command fails with exit 1 and one message that says why
# and what to do, and nothing changes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs
make_instance

nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
cmds=("list" "status" "format sched:sched_switch" "enable sched:sched_switch"
	"disable sched:sched_switch" "filter sched:sched_switch prev_pid>1"
	"stream sched:sched_switch --count 1" "stream --drain"
	"record -o /tmp/tpctl-nobody-$$.dat sched:sched_switch -- true" "reset")
rocmds=("enable sched:sched_switch" "-i $INST enable sched:sched_switch"
	"-i $INST filter sched:sched_switch prev_pid>1"
	"-i $INST enable sched:sched_switch --filter prev_pid>1" "stream sched:sched_switch --count 1"
	"record -o $TMP/ro.dat sched:sched_switch -- true")
# with sched_switch enabled in the instance
rocmds2=("-i $INST disable sched:sched_switch" "-i $INST disable --all" "-i $INST reset")
plan $(( ${#cmds[@]} + 1 + ${#rocmds[@]} + ${#rocmds2[@]} + 1 ))

if "${nobody[@]}" true 2> /dev/null && "${nobody[@]}" test -x "$TOP/tpctl"; then
	for c in "${cmds[@]}"; do
		# shellcheck disable=SC2086
		MSG="^tpctl: [a-z]+: .*[Pp]ermission denied.*run as root" \
			run_refused "as nobody: $c: exit 1, says to run as root" 1 \
			"${nobody[@]}" "$TOP/tpctl" $c
	done
	[ ! -e "/tmp/tpctl-nobody-$$.dat" ]; ok $? "as nobody: no trace.dat was written"
	rm -f "/tmp/tpctl-nobody-$$.dat"
else
	for c in "${cmds[@]}" x; do skip "setpriv cannot run $TOP/tpctl as nobody"; done
fi

# rofs DIR CMD...: CMD in a private mount namespace where DIR is tracefs, read-only
rofs() {
	local dir=$1
	shift
	unshare -m --propagation private sh -c '
		mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" || exit 99
		shift 2
		exec "$@"' sh "$TRACEFS" "$dir" "$@"
}
mkdir "$TMP/ro"
if rofs "$TMP/ro" test -r "$TMP/ro/available_events" 2> /dev/null; then
	for c in "${rocmds[@]}"; do
		# shellcheck disable=SC2086
		MSG="^tpctl: [a-z]+: .*Read-only file system" \
			run_refused "read-only tracefs: $c: exit 1" 1 rofs "$TMP/ro" "$TPCTL" --tracefs "$TMP/ro" $c
	done
	echo 1 > "$IDIR/events/sched/sched_switch/enable"
	for c in "${rocmds2[@]}"; do
		# shellcheck disable=SC2086
		MSG="^tpctl: [a-z]+: .*Read-only file system" \
			run_refused "read-only tracefs, an event enabled: $c: exit 1" 1 \
			rofs "$TMP/ro" "$TPCTL" --tracefs "$TMP/ro" $c
	done
	echo 0 > "$IDIR/events/sched/sched_switch/enable"
	[ ! -e "$TMP/ro.dat" ]; ok $? "read-only tracefs: no trace.dat was written"
else
	for c in "${rocmds[@]}" "${rocmds2[@]}" x; do skip "no private mount namespace (unshare -m)"; done
fi
done_testing
