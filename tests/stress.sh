#!/bin/bash
# make check-stress: the CLI tests N times (STRESS_N, default 5) on the
# machine as it is (run it when nothing else runs), then N times beside a CPU
# hog on every CPU, and a summary of which test files failed in which run.
# A test that passes only on a busy machine, or only on an idle one, fails
# here.  Not part of make check (it takes 2 N times the CLI suite's time).
#
#   STRESS_N=3 make check-stress
#   STRESS_TESTS="tests/cli/latency-sched-run.t" make check-stress
#   STRESS_MODES=hog make check-stress
cd "$(dirname "$0")/.." || exit 2
N=${STRESS_N:-5}
MODES=${STRESS_MODES:-idle hog}
# shellcheck disable=SC2206
TESTS=(${STRESS_TESTS:-tests/cli/*.t tests/zz-final.t})
OUT=${STRESS_OUT:-build/stress}
mkdir -p "$OUT"
hogs=()

stop_hogs() {
	[ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2> /dev/null && wait "${hogs[@]}" 2> /dev/null
	hogs=()
}
trap 'stop_hogs; exit 130' INT TERM HUP
trap stop_hogs EXIT

summary=$OUT/summary.txt
: > "$summary"
fails=0
for mode in $MODES; do
	for run in $(seq "$N"); do
		if [ "$mode" = hog ]; then
			for _ in $(seq "$(nproc)"); do
				sh -c 'while :; do :; done' &
				hogs+=($!)
			done
		fi
		log=$OUT/$mode-$run.log
		start=$(date +%s)
		# verbose: a failed check's "not ok" and its diagnostics are in the log
		prove -v "${TESTS[@]}" > "$log" 2>&1
		st=$?
		stop_hogs
		# prove's summary: "tests/cli/x.t (Wstat: ... Tests: N Failed: K)"
		failed=$(sed -n 's/^\(tests\/[^ ]*\.t\) *(Wstat.*/\1/p' "$log" | tr '\n' ' ')
		line="$mode run $run: $( [ $st = 0 ] && echo PASS || echo FAIL) in $(( $(date +%s) - start )) s${failed:+: $failed}"
		echo "$line" | tee -a "$summary"
		[ $st = 0 ] || fails=$((fails + 1))
	done
done
echo "check-stress: $fails of $(( N * $(echo "$MODES" | wc -w) )) runs failed (logs in $OUT)" |
	tee -a "$summary"
[ $fails = 0 ]
