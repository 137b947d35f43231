#!/bin/bash
# After the whole suite: tracefs must be as clean as tests found it.  No test
# instance or private tpctl instance may be left, and nothing enabled at the top level.
. "$(dirname "$0")/cli/lib.sh"
need_tracefs
plan 3
# Only instances of processes that are gone: another run going on at the same
# time (a second checkout, a user's stream) may own a live one.
left=
for n in $(ls "$TRACEFS/instances" | grep -E '^(tpctl-[0-9]+|tpt-.*-[0-9]+)$'); do
	[ -d "/proc/${n##*-}" ] || left="$left $n"
done
[ -z "$left" ]; ok $? "no tpctl-* or test instance left behind${left:+: $left}"
enabled=$(cat "$TRACEFS/set_event")
[ -z "$enabled" ]; ok $? "no event left enabled at the top level${enabled:+: $enabled}"
[ "$(cat "$TRACEFS/tracing_on")" = 1 ]; ok $? "tracing_on is 1 at the top level"
done_testing
