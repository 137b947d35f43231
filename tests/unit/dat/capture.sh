#!/bin/sh
# Regenerate the trace.dat writer fixture from the live kernel: the metadata
# files, raw ring-buffer pages of a private instance, and the kernel's own
# `trace` text for exactly those pages (read before the pages are consumed).
set -eu
T=${TRACEFS:-/sys/kernel/tracing}
out=$(cd "$(dirname "$0")" && pwd)
inst=tpctl-fixture-$$
I=$T/instances/$inst
cleanup() { rmdir "$I" 2>/dev/null || true; }
trap cleanup EXIT
mkdir "$I"
echo 0 > "$I/tracing_on"
events="sched/sched_switch sched/sched_wakeup sched/sched_process_fork sched/sched_process_exec sched/sched_process_exit"
for e in $events; do echo 1 > "$I/events/$e/enable"; done
echo 1 > "$I/tracing_on"
for i in 1 2 3; do sh -c 'ls / >/dev/null; sleep 0.01'; done
echo 0 > "$I/tracing_on"
for e in $events; do echo 0 > "$I/events/$e/enable"; done
rm -rf "$out/events" "$out"/cpu* "$out/trace.txt"
cat "$T/events/header_page" > "$out/header_page"
cat "$T/events/header_event" > "$out/header_event"
for e in $events ftrace/print ftrace/bprint; do
	mkdir -p "$out/events/$e"
	cat "$T/events/$e/format" > "$out/events/$e/format"
done
cat "$T/saved_cmdlines" > "$out/saved_cmdlines"
grep -v '^#' "$I/trace" > "$out/trace.txt"
n=$(ls -d "$T"/per_cpu/cpu* | wc -l)
echo "$n" > "$out/ncpus"
c=0
while [ $c -lt "$n" ]; do
	dd if="$I/per_cpu/cpu$c/trace_pipe_raw" of="$out/cpu$c" bs=4096 iflag=nonblock status=none 2>/dev/null || true
	c=$((c + 1))
done
