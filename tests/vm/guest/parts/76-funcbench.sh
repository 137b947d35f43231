# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by check.sh, but a benchmark, not a check: it runs only when the
# kernel command line asks for it (VM_ONLY=funcbench), never in the normal
# check-vm.  The CPU time per function record of two readers of the same
# instance and the same workload (funcload pipe N under the function tracer
# on vfs_*, ksys_*, *fdget*, pipe_*): the kernel formatting its trace_pipe
# (dd) and tpctl stream -i decoding the raw buffers.  Three runs each.
case $ONLY in
*funcbench*)
	B=$OUT/funcbench
	mkdir -p $B
	N=${BENCH_N:-50000}
	I=$T/instances/fb
	# utime + stime in clock ticks (10 ms)
	ticks() {
		awk '{ sub(/^.*\) /, ""); print $12 + $13 }' /proc/$1/stat
	}
	drained() {
		i=0
		while grep -q '^entries: [1-9]' $I/per_cpu/cpu*/stats && [ $i -lt 600 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	}
	overrun() {
		grep '^overrun:' $I/per_cpu/cpu*/stats | awk '{ s += $2 } END { print s }'
	}
	for run in 1 2 3; do
		for reader in trace_pipe tpctl; do
			mark "funcbench_${reader}_$run"
			mkdir $I
			echo 8192 >$I/buffer_size_kb
			for p in 'vfs_*' 'ksys_*' '*fdget*' 'pipe_*'; do
				echo "$p" >>$I/set_ftrace_filter 2>/dev/null
			done
			echo function >$I/current_tracer
			echo 0 >$I/tracing_on
			rm -f /tmp/fb.out
			if [ $reader = trace_pipe ]; then
				# read(2) as any reader does: busybox cat would sendfile(2),
				# which ends at the first page here
				dd if=$I/trace_pipe of=/tmp/fb.out bs=65536 2>/dev/null &
			else
				tpctl -i fb stream >/tmp/fb.out 2>$B/${reader}_$run.err &
			fi
			p=$!
			sleep 0.5
			t0=$(ticks $p)
			echo 1 >$I/tracing_on
			funcload pipe $N
			echo 0 >$I/tracing_on
			drained
			sleep 0.5
			t1=$(ticks $p)
			kill -INT $p
			wait $p
			lines=$(grep -c . /tmp/fb.out)
			echo "$reader run=$run ticks=$((t1 - t0)) lines=$lines overrun=$(overrun)" \
				>>$B/results
			echo nop >$I/current_tracer
			rmdir $I
		done
	done
	;;
esac
