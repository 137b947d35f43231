#!/bin/bash
# The cost of a uprobe event against a tracepoint event in the same run of
# 'tpctl stream --json': a workload makes N calls of its own function (the
# uprobe) and then N getpid(2) calls (syscalls:sys_enter_getpid).  Printed:
# the time per call in the workload untraced and traced (what the event costs
# the traced process: the uprobe's trap against the tracepoint), the events
# tpctl wrote of each kind, and tpctl's CPU time per event (time(1) counts the
# workload, tpctl's child, in: its own CPU time is taken out).
# Run as root, under flock /tmp/tpctl-bench.lock: bench/probe.sh [N] [TPCTL]
set -e
N=${1:-200000}
TPCTL=${2:-$(dirname "$0")/../tpctl}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cc -O2 -o "$TMP/work" "$(dirname "$0")/probe-work.c"
"$TMP/work" "$N" 2> "$TMP/plain"
/usr/bin/time -f '%U %S' -o "$TMP/cpu" "$TPCTL" stream --json -b 65536 \
	--probe "u:$TMP/work:work" syscalls:sys_enter_getpid -- "$TMP/work" "$N" \
	> "$TMP/out" 2> "$TMP/traced"
read -r _ pw _ pg _ < "$TMP/plain"
read -r _ tw _ tg _ wcpu < <(grep '^work ' "$TMP/traced")
nw=$(grep -c '"event":"work"' "$TMP/out" || true)
ng=$(grep -c '"event":"sys_enter_getpid"' "$TMP/out" || true)
read -r u s < "$TMP/cpu"
lost=$(grep -c '"type":"lost"' "$TMP/out" || true)
awk -v n="$N" -v pw="$pw" -v tw="$tw" -v pg="$pg" -v tg="$tg" -v nw="$nw" -v ng="$ng" \
    -v u="$u" -v s="$s" -v w="$wcpu" -v lost="$lost" 'BEGIN {
	printf "N=%d  uprobe: %.0f ns/call untraced, %.0f traced (+%.0f ns per event), %d events\n",
		n, pw, tw, tw - pw, nw
	printf "       tracepoint: %.0f ns/call untraced, %.0f traced (+%.0f ns per event), %d events\n",
		pg, tg, tg - pg, ng
	printf "       tpctl stream --json: %.2f s CPU (%.2f with the workload) for %d events, %.0f ns per event; lost records: %d\n",
		u + s - w, u + s, nw + ng, (u + s - w) * 1e9 / (nw + ng), lost
}'
