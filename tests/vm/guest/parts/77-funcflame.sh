# SPDX-License-Identifier: GPL-2.0-or-later
# latency --function PATTERN --by stack: function_graph's calls as the time
# per call path (sourced by check.sh; judged by tests/vm/77-funcflame.t).
# funcload (tests/vm/funcload.c) makes exactly N calls of vfs_read.
# Everything goes to $OUT/funcflame; steps are named ff_*.
F=$OUT/funcflame
mkdir -p $F

# what the runs may change: the top level's tracer files, the instances
ff_state() {
	for f in current_tracer set_graph_function max_graph_depth set_ftrace_pid tracing_on; do
		echo "== $f"
		cat $T/$f
	done
	echo "== instances"
	ls $T/instances
}
ff_state >$F/state_before

# steps with more time: function_graph at every depth is slow on an emulated CPU
STEP_TIMEOUT=120

# live: the paths under vfs_* of funcload's 500 one-byte reads of a pipe
step ff_live tpctl latency --function 'vfs_*' --by stack --folded -- funcload pipe 500
step ff_live_one tpctl latency --function vfs_read --by stack --flamegraph $F/live.svg \
	-- funcload pipe 200
# a recording of the same, read three ways: the paths, latency's table (the
# roots' durations) and report's records (the check rebuilds the paths from them)
step ff_record tpctl record -o /tmp/ff.dat --graph 'vfs_*' -- funcload pipe 500
step ff_input tpctl latency --function 'vfs_*' --by stack --folded --input /tmp/ff.dat
step ff_input_svg tpctl latency --function 'vfs_*' --by stack --flamegraph $F/input.svg \
	--input /tmp/ff.dat
step ff_input_json tpctl latency --json --function 'vfs_*' --input /tmp/ff.dat
step ff_report tpctl report --json /tmp/ff.dat
# the host's fixture (tests/cli/fixtures/graph-vfs_read.dat): a small recording
step ff_fixture tpctl record -o $F/graph-vfs_read.dat --graph vfs_read --depth 4 \
	-- funcload pipe 20
ff_state >$F/state_after
unset STEP_TIMEOUT
