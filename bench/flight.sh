#!/bin/bash
# The cost of a waiting flight recorder (tpctl record --flight): the CPU time
# tpctl spends (utime + stime of /proc/PID/stat, every thread) while
# 3,000,000 getpid events pass through its buffers, three runs.  The aim is
# under 0.05 s a run: nothing is read until a dump.  Run as root, with no other
# tracing on the machine:
#   bench/flight.sh [CALLS]      (bench/gen is built from bench/gen.c)
set -e
TOP=$(cd "$(dirname "$0")/.." && pwd)
calls=${1:-3000000}
[ -x "$TOP/bench/gen" ] || cc -O2 -o "$TOP/bench/gen" "$TOP/bench/gen.c"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tck=$(getconf CLK_TCK)
# cpu PID: utime + stime of the process, all its threads, in clock ticks
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
for run in 1 2 3; do
	"$TOP/tpctl" record --flight -o "$tmp/f.dat" --buffer-kb 4096 \
		syscalls:sys_enter_getpid 2> "$tmp/err" &
	pid=$!
	for _ in $(seq 200); do
		grep -q 1 "/sys/kernel/tracing/instances/tpctl-$pid/tracing_on" 2> /dev/null && break
		sleep 0.05
	done
	sleep 0.3
	c0=$(cpu $pid)
	t0=$(date +%s.%N)
	echo | "$TOP/bench/gen" "$calls" > /dev/null
	t1=$(date +%s.%N)
	c1=$(cpu $pid)
	kill -INT $pid
	wait $pid
	awk -v c="$((c1 - c0))" -v t="$tck" -v n="$calls" -v s="$t0" -v e="$t1" 'BEGIN {
		printf "run %d: %d events in %.2f s, tpctl %.3f s of CPU (%d ticks)\n",
			'"$run"', n, e - s, c / t, c }'
done
