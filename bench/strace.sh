#!/bin/bash
# bench/strace.sh [RUNS]: `dd if=/dev/zero of=/dev/null bs=1 count=200000` alone,
# under `tpctl strace -f -o FILE`, `strace -f -o FILE` and `perf trace -o FILE`:
# seconds (wall) and the read/write lines in FILE (400000 when none is lost).
cd "$(dirname "$0")/.." || exit 1
runs=${1:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
dd_cmd="dd if=/dev/zero of=/dev/null bs=1 count=200000"
timed() {	# label, command...: "label seconds lines"
	local label=$1 secs
	shift
	secs=$(bash -c 't0=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $t0" | bc' \
		_ "$@")
	printf '%-14s %8.2f s %8d read/write lines\n' "$label" "$secs" \
		"$(grep -cE '(^|[ )])(read|write)\(' "$out" 2>/dev/null)"
	: >"$out"
}
for r in $(seq "$runs"); do
	echo "run $r"
	timed "dd alone" $dd_cmd
	timed "tpctl strace" ./tpctl strace -f -o "$out" -- $dd_cmd
	timed "strace" strace -f -o "$out" $dd_cmd
	command -v perf >/dev/null && timed "perf trace" perf trace -o "$out" -- $dd_cmd
done
