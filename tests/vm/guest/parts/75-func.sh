# SPDX-License-Identifier: GPL-2.0-or-later
# The function and function_graph tracers (sourced by check.sh, see
# tests/vm/README.md; judged by tests/vm/75-func.t).  funcload
# (tests/vm/funcload.c) reads a pipe one byte at a time: N calls of vfs_read.
# Everything goes to $OUT/func; steps are named fn_*.
F=$OUT/func
mkdir -p $F

# what tpctl may change: the top level's tracer files, another tool's instance
fn_state() {
	for f in current_tracer set_ftrace_filter set_ftrace_notrace set_graph_function \
		set_graph_notrace set_ftrace_pid set_ftrace_notrace_pid max_graph_depth \
		tracing_on set_event_pid set_event_notrace_pid buffer_percent; do
		echo "== $f"
		cat $T/$f
	done
	echo "== other"
	cat $T/instances/fnother/current_tracer $T/instances/fnother/set_ftrace_filter
	echo "== instances"
	ls $T/instances
}

# fn_wait FILE TEXT: until FILE holds TEXT (at most 10 s)
fn_wait() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

mkdir $T/instances/fnother
echo vfs_write >$T/instances/fnother/set_ftrace_filter
echo function >$T/instances/fnother/current_tracer
fn_state >$F/state_before

# ---- the kernel's text is the oracle: an instance with the function tracer,
# read by the kernel (trace) and by tpctl (-i, the same records)
I=$T/instances/fnoracle
for round in text json; do
	mkdir $I
	echo 8192 >$I/buffer_size_kb
	for p in 'vfs_*' 'ksys_*' '*fdget*' 'pipe_*' 'anon_pipe*'; do
		echo "$p" >>$I/set_ftrace_filter 2>/dev/null
	done
	echo function >$I/current_tracer
	funcload pipe 2000
	echo 0 >$I/tracing_on
	cat $I/trace >$F/func_kernel_$round.trace
	if [ $round = text ]; then
		step fn_func_text tpctl -i fnoracle stream --drain
	else
		step fn_func_json tpctl -i fnoracle stream --drain --json
	fi
	echo nop >$I/current_tracer
	rmdir $I
done

# ---- function_graph at the top level, read by the kernel and by tpctl
echo vfs_read >$T/set_graph_function
echo 8192 >$T/buffer_size_kb
sh -c "echo \$\$ >$T/set_ftrace_pid; echo function_graph >$T/current_tracer; exec funcload pipe 1000"
echo 0 >$T/tracing_on
cat $T/trace >$F/graph_kernel.trace
step fn_graph_text tpctl stream --drain
echo nop >$T/current_tracer
echo >$T/set_graph_function
echo >$T/set_ftrace_pid
echo 1 >$T/tracing_on
# ---- a module's function in the graph (the kernel's %ps names the module after
# it): our module's tracepoint registration function, called when its event is enabled
if grep -q '^sample_trace_fn_reg ' $T/available_filter_functions; then
	echo sample_trace_fn_reg >$T/set_graph_function
	echo function_graph >$T/current_tracer
	echo 1 >$T/events/sample-trace/foo_bar_with_fn/enable
	echo 0 >$T/events/sample-trace/foo_bar_with_fn/enable
	echo 0 >$T/tracing_on
	cat $T/trace >$F/graph_mod_kernel.trace
	step fn_graph_mod_text tpctl stream --drain
	echo nop >$T/current_tracer
	echo >$T/set_graph_function
	echo 1 >$T/tracing_on
fi
echo 1410 >$T/buffer_size_kb
fn_state >$F/state_before_runs

# ---- tpctl's own runs
step fn_graph tpctl stream --graph vfs_read -- funcload pipe 1000
step fn_graph_json tpctl stream --json --graph vfs_read -- funcload pipe 1000
step fn_graph_depth tpctl stream --json --graph vfs_read --depth 1 -- funcload pipe 100
step fn_func tpctl stream --json --function vfs_read --function ksys_read -- funcload pipe 1000
step fn_func_not tpctl stream --json --function 'vfs_rea*' --function '!vfs_readv' \
	-- funcload pipe 100
step fn_record tpctl record -o /tmp/fn.dat --graph vfs_read -- funcload pipe 200
step fn_report tpctl report /tmp/fn.dat
step fn_report_json tpctl report --json /tmp/fn.dat
# trace-cmd report reads it on the host
cp /tmp/fn.dat $F/fn.dat
step fn_count tpctl count --json --by comm --function vfs_read -- funcload pipe 1000
step fn_count_text tpctl count --function 'vfs_rea*' -- funcload pipe 1000
# --by comm: a shell's short-lived children named as their exec named them
step fn_count_child tpctl count --json --by comm --function vfs_read \
	-- sh -c 'funcload pipe 300; funcload pipe 200'
# a glob: a histogram per function it matches
step fn_lat_glob tpctl latency --json --by comm --function 'vfs_rea*' -- funcload pipe 500
# intervals: two bursts of 300 calls a second apart (three ticks of 0.2 s even
# where the emulated CPU is slow)
step fn_count_interval tpctl count --json --function vfs_read --interval 0.2 \
	-- sh -c 'funcload pipe 300; sleep 1; funcload pipe 300'
step fn_count_interval_text tpctl count --function vfs_read --interval 0.2 \
	-- sh -c 'funcload pipe 300; sleep 1; funcload pipe 300'

step fn_latency tpctl latency --json --engine user --by comm --function vfs_read \
	-- funcload pipe 1000
# one byte a read, on the default buffer: every call counted, nothing lost
# (a static program: a dynamic one's loader reads its libraries too)
step fn_lat_dd tpctl latency --json --function vfs_read -- funcload pipe 500
# the same returns read twice: a recording, by latency and as report's text
step fn_lat_record tpctl record -o /tmp/lat.dat --graph vfs_read --depth 1 -- funcload pipe 1000
step fn_lat_input tpctl latency --json --by comm --function vfs_read --input /tmp/lat.dat
step fn_lat_input_all tpctl latency --json --function vfs_read --input /tmp/lat.dat
# the text: latency's table (its START -> END line, its 52-column bars)
step fn_lat_input_text tpctl latency --function vfs_read --input /tmp/lat.dat
step fn_lat_report tpctl report /tmp/lat.dat
step fn_count_input tpctl count --json --function vfs_read --input /tmp/lat.dat
fn_state >$F/state_after_runs

# ---- latency --function on the kernel engine (this kernel has kprobe events,
# synthetic events and hist triggers): a kprobe and a kretprobe of vfs_read
# paired by a synthetic event; what tpctl makes for it must all go again
fn_kstate() {
	for f in dynamic_events kprobe_events synthetic_events; do
		echo "== $f"
		cat $T/$f
	done
	echo "== triggers"
	grep -l . $T/events/*/*/trigger 2>/dev/null | while read -r f; do
		grep -v '^#' $f | sed "s|^|$f: |"
	done
	echo "== instances"
	ls $T/instances
}
fn_kstate >$F/kstate_before
step fn_lat_k tpctl -v latency --json --function vfs_read -- funcload pipe 500
step fn_lat_u tpctl latency --json --engine user --function vfs_read -- funcload pipe 500
step fn_lat_k_comm tpctl latency --json --engine kernel --by comm --function vfs_read \
	-- funcload pipe 500
step fn_lat_u_comm tpctl latency --json --engine user --by comm --function vfs_read \
	-- funcload pipe 500
step fn_lat_k_pid tpctl latency --json --by pid --function vfs_read -- funcload pipe 300
step fn_lat_k_text tpctl latency --engine kernel --function vfs_read -- funcload pipe 200
fn_kstate >$F/kstate_after_runs
# mistakes: a glob or a recording on the kernel engine, a key it has not
step fn_lat_k_glob tpctl latency --engine kernel --function 'vfs_rea*' -- true
step fn_lat_k_cpu tpctl latency --by cpu --function vfs_read -- true
step fn_lat_k_nosuch tpctl latency --function no_such_function_xyz -- true
fn_kstate >$F/kstate_after_bad
# INT while it counts: the histograms printed, then nothing of it left
tpctl latency --json --function vfs_read -- funcload loop >$F/lat_k_int.out \
	2>$F/lat_k_int.err &
p=$!
fn_wait $T/dynamic_events "tpctl_$p/"
sleep 0.5
kill -INT $p
wait $p
echo $? >$F/lat_k_int.rc
fn_kstate >$F/kstate_after_int

# ---- mistakes: exit 2, one line, nothing changed
step fn_bad tpctl stream --function no_such_function_xyz -- true
step fn_bad_graph tpctl stream --graph vfs_reed -- true
step fn_bad_depth tpctl stream --depth 3 --function vfs_read -- true
fn_state >$F/state_after_bad

# ---- INT and TERM end a run, KILL and reset: everything as it was
for s in INT TERM; do
	for how in graph function; do
		if [ $how = graph ]; then
			tpctl stream --graph vfs_read -- funcload loop >/dev/null 2>$F/sig_${how}_$s.err &
			p=$!
			fn_wait $T/current_tracer function_graph
		else
			tpctl stream --function vfs_read -- funcload loop >/dev/null \
				2>$F/sig_${how}_$s.err &
			p=$!
			fn_wait $T/instances/tpctl-$p/current_tracer function
		fi
		sleep 0.3
		kill -$s $p
		wait $p
		echo $? >$F/sig_${how}_$s.rc
		fn_state >$F/state_after_${how}_$s
	done
done
# TERM; once record has written its file (it puts things back next), TERM
# every 10 ms until it is gone: putting the top level's function_graph back
# (current_tracer nop patches every function) is slow here
tpctl record -o /tmp/storm.dat --graph vfs_read --depth 1 -- funcload loop >/dev/null \
	2>$F/storm.err &
p=$!
fn_wait $T/current_tracer function_graph
sleep 0.3
kill -TERM $p
fn_wait $F/storm.err "wrote '"
n=0
while read -r _ _ pst _ </proc/$p/stat && [ "$pst" != Z ] && [ $n -lt 3000 ]; do
	kill -TERM $p
	n=$((n + 1))
	sleep 0.01
done 2>/dev/null
wait $p
echo $? >$F/storm.rc
echo $n >$F/storm.n
fn_state >$F/state_after_storm
for how in graph function; do
	if [ $how = graph ]; then
		tpctl stream --graph vfs_read -- funcload loop >/dev/null 2>/dev/null &
		p=$!
		fn_wait $T/current_tracer function_graph
		cat $T/current_tracer >$F/kill_${how}_tracer
	else
		tpctl stream --function vfs_read -- funcload loop >/dev/null 2>/dev/null &
		p=$!
		fn_wait $T/instances/tpctl-$p/current_tracer function
		cat $T/instances/tpctl-$p/current_tracer >$F/kill_${how}_tracer
	fi
	sleep 0.3
	kill -KILL $p
	wait $p
	# its COMMAND goes on: end it (its pid is the one traced)
	for q in $(cat $T/set_event_pid $T/instances/tpctl-$p/set_event_pid 2>/dev/null); do
		kill -KILL $q 2>/dev/null
	done
	sleep 0.2
	step fn_reset_$how tpctl reset
	fn_state >$F/state_after_reset_$how
done
echo nop >$T/instances/fnother/current_tracer
rmdir $T/instances/fnother
