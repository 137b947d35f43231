# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by check.sh, but a benchmark, not a check: it runs only when the
# kernel command line asks for it (VM_ONLY=funcbench), never in the normal
# check-vm.  The CPU time per function record of two readers of the same
# instance and the same workload (funcload pipe N under the function tracer
# on vfs_*, ksys_*, *fdget*, pipe_*): the kernel formatting its trace_pipe
# (read by dd, 64 KiB a read) and tpctl stream -i decoding the raw buffers.
# The readers' own calls are not traced (set_ftrace_notrace_pid, with
# function-fork), so each reads exactly the workload's records; its CPU time
# is the cutime + cstime of the shell that waited for it.  Three runs each.
case $ONLY in
*funcbench*)
	B=$OUT/funcbench
	mkdir -p $B
	N=50000
	I=$T/instances/fb
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
	# CHILD_TICKS: the waited-for children's CPU time of the calling shell
	CHILD_TICKS="awk '{ sub(/^.*\\) /, \"\"); print \$14 + \$15 }' /proc/\$\$/stat"
	for run in 1 2 3; do
		for reader in trace_pipe tpctl; do
			mark "funcbench_${reader}_$run"
			mkdir $I
			echo 0 >$I/tracing_on
			echo 8192 >$I/buffer_size_kb
			echo 1 >$I/options/function-fork
			for p in 'vfs_*' 'ksys_*' '*fdget*' 'pipe_*'; do
				echo "$p" >>$I/set_ftrace_filter 2>/dev/null
			done
			echo function >$I/current_tracer
			rm -f /tmp/fb.out /tmp/fb.ticks /tmp/fb.tpid
			if [ $reader = trace_pipe ]; then
				# EOF once tracing is off and everything was read
				sh -c "echo \$\$ >>$I/set_ftrace_notrace_pid
					dd if=$I/trace_pipe of=/tmp/fb.out bs=65536 2>/dev/null
					$CHILD_TICKS >/tmp/fb.ticks" &
			else
				sh -c "echo \$\$ >>$I/set_ftrace_notrace_pid
					tpctl -i fb stream >/tmp/fb.out 2>$B/tpctl_$run.err &
					echo \$! >/tmp/fb.tpid
					wait
					$CHILD_TICKS >/tmp/fb.ticks" &
			fi
			p=$!
			sleep 1
			echo 1 >$I/tracing_on
			funcload pipe $N
			echo 0 >$I/tracing_on
			drained
			# a background job of a script ignores INT: TERM ends tpctl the same way
			[ -s /tmp/fb.tpid ] && kill -TERM $(cat /tmp/fb.tpid)
			wait $p
			lines=$(grep -c . /tmp/fb.out)
			echo "$reader run=$run ticks=$(cat /tmp/fb.ticks) lines=$lines overrun=$(overrun)" \
				>>$B/results
			echo nop >$I/current_tracer
			rmdir $I
		done
	done
	;;
esac
