#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Runs inside the test VM (busybox sh).  Every step leaves its stdout, stderr
# and exit status in /out/<step>.{out,err,rc}, next to what the kernel itself
# says (trace text, format files, enable and filter files).  Nothing is
# judged here: /out goes to the host as a base64 tar on the console and
# tests/vm/*.t compare there.
T=/sys/kernel/tracing
OUT=/out
PARAM=/sys/module/sample_trace/parameters/period_ms
mkdir -p $OUT

# mark NAME: where the run is, in the kernel's log (a lockup or an oops
# then shows which step it came in)
mark() {
	echo "tpctl-vm: step $1" >/dev/kmsg
}

# step NAME COMMAND...: run a command with a time limit (STEP_TIMEOUT, 90 s: the emulated CPU of a
# loaded host is slow, and a step ended by TERM is not the step under test), keep what
# it said.
step() {
	name=$1
	shift
	mark "$name"
	timeout ${STEP_TIMEOUT:-90} "$@" >$OUT/$name.out 2>$OUT/$name.err
	echo $? >$OUT/$name.rc
}

# Event names of the module, as the kernel lists them.
events() {
	sed -n 's/^sample-trace://p' $T/available_events
}

# enable_state INSTANCE_DIR: "event value" lines from the enable files.
enable_state() {
	for e in $(events); do
		echo "$e $(cat $1/events/sample-trace/$e/enable)"
	done
}

# The parts in /usr/share/vm-check (tests/vm/guest/parts), sourced in the
# order of their names; tpctl.only=WORD on the kernel command line runs only
# those whose name holds WORD, and nothing else but loading the module.
ONLY=
for arg in $(cat /proc/cmdline); do
	case $arg in
	tpctl.only=*) ONLY=${arg#tpctl.only=} ;;
	esac
done
run_parts() {
	for part in /usr/share/vm-check/*.sh; do
		[ -e "$part" ] || continue
		case $(basename $part) in
		*"$1"*) mark "part $(basename $part)"; . $part ;;
		esac
	done
}

# Unload the module, ship /out to the host and stop.
finish() {
	step rmmod rmmod sample_trace
	grep '^sample-trace:' $T/available_events >$OUT/events_after_rmmod
	mark results
	echo "@@TPCTL-VM-BEGIN@@"
	(cd $OUT && tar -cf - . | gzip -9 | base64)
	echo "@@TPCTL-VM-END@@"
	exit 0
}

# start_load MODE N: aggload waiting for "go" on /tmp/go; sets lp and lpid
# (opened read-write, so that opening it does not wait for a writer)
start_load() {
	rm -f /tmp/go /tmp/lpid
	mkfifo /tmp/go
	timeout 60 aggload $1 $2 <>/tmp/go >/tmp/lpid &
	lp=$!
	i=0
	while [ ! -s /tmp/lpid ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	lpid=$(cat /tmp/lpid)
}

uname -r >$OUT/uname
nproc >$OUT/nproc

step insmod insmod /lib/modules/sample_trace.ko period_ms=20
grep '^sample-trace:' $T/available_events >$OUT/available_events
if [ -n "$ONLY" ]; then
	run_parts "$ONLY"
	finish
fi

# Format files of every event and the page headers, as the kernel has them.
K=$OUT/kernel
mkdir -p $K/events/sample-trace
cp $T/events/header_page $T/events/header_event $K/events/
for e in $(events); do
	mkdir -p $K/events/sample-trace/$e
	cp $T/events/sample-trace/$e/format $K/events/sample-trace/$e/format
done

# Fixtures for the decode unit tests: a short trace of every event, the
# kernel's text for it and the raw pages holding the same records.
fixture() {
	mark fixture
	I=$T/instances/vmfix
	F=$OUT/fixture
	mkdir -p $F/raw
	mkdir $I
	echo 20 >$PARAM
	echo 1 >$I/events/sample-trace/enable
	# About 40 rounds: every string and mask variant, more than a page per CPU.
	sleep 0.8
	echo 0 >$I/tracing_on
	echo 0 >$I/events/sample-trace/enable
	cat $I/trace >$F/trace
	rawdump $I $F/raw >$F/rawdump.out 2>&1
	echo $? >$F/rawdump.rc
	cp $T/saved_cmdlines $F/saved_cmdlines
	rmdir $I
}
fixture

# Control commands on an instance of our own.
step list tpctl list sample-trace --json
step list_text tpctl list sample-trace
step format tpctl format sample-trace:foo_bar --json
step format_all tpctl format sample-trace --json

I=$T/instances/vmctl
mkdir $I
echo 10 >$PARAM
# The filter goes first so that every foo_bar record in the buffer passed it.
step filter tpctl -i vmctl filter sample-trace:foo_bar 'bar > 5'
cat $I/events/sample-trace/foo_bar/filter >$OUT/filter_file
step enable tpctl -i vmctl enable sample-trace
enable_state $I >$OUT/enable_state
step filter_show tpctl -i vmctl filter sample-trace:foo_bar
step filter_bad tpctl -i vmctl filter sample-trace:foo_bar 'nosuchfield > 1'
cat $I/events/sample-trace/foo_bar/filter >$OUT/filter_file_after_bad
step status tpctl -i vmctl status --json
sleep 0.5
# The TRACE_EVENT_FN hooks run a second thread only while enabled.
ps -o pid,comm >$OUT/ps_enabled
echo 0 >$I/tracing_on
cat $I/trace >$OUT/filter_trace
step disable tpctl -i vmctl disable sample-trace
enable_state $I >$OUT/disable_state
sleep 0.2
ps -o pid,comm >$OUT/ps_disabled
echo 0 >$I/events/sample-trace/foo_bar/filter
rmdir $I

# stream: only when this tpctl has it; the host reports the checks as skipped.
if tpctl stream --help >/dev/null 2>&1; then
	echo yes >$OUT/stream_available
	echo 10 >$PARAM
	step stream_count tpctl stream sample-trace --json --count 40
	step stream_filter tpctl stream sample-trace:foo_bar --filter 'bar > 5' --json --count 10

	# The same records through the kernel's text and through tpctl: trace
	# into an instance, stop it, save its `trace`, then drain it with tpctl.
	for run in text json noplug; do
		I=$T/instances/vms$run
		mkdir $I
		echo 1 >$I/events/sample-trace/enable
		sleep 0.4
		echo 0 >$I/tracing_on
		cat $I/trace >$OUT/cmp_$run.trace
		case $run in
		text) step cmp_$run tpctl -i vms$run stream --drain ;;
		json) step cmp_$run tpctl -i vms$run stream --drain --json ;;
		noplug) step cmp_$run env TPCTL_NO_PLUGINS=1 tpctl -i vms$run stream --drain ;;
		esac
		echo 0 >$I/events/sample-trace/enable
		rmdir $I
	done
	ls $T/instances >$OUT/instances_after_stream
else
	echo no >$OUT/stream_available
fi

# count and hist: the kernel engine (hist triggers) and the user engine on
# the same workload (aggload, filtered on its pid), running at the same time,
# each tpctl in its own private instance.
if tpctl count --help >/dev/null 2>&1; then
	echo yes >$OUT/agg_available
	A=$OUT/agg
	mkdir -p $A


	# The kernel's own hist files, for the parser's unit test (tests/unit/agg.c).
	mark hist_files
	I=$T/instances/vmhist
	mkdir $I
	echo 0 >$I/tracing_on
	echo 'hist:keys=common_pid.execname,cpu' >$I/events/syscalls/sys_enter_getpid/trigger
	echo 'hist:keys=common_pid,count' >$I/events/syscalls/sys_enter_read/trigger
	echo 'hist:keys=pid,oldcomm,newcomm' >$I/events/task/task_rename/trigger
	start_load sys 40
	echo go >/tmp/go
	wait $lp
	start_load rename 20
	echo go >/tmp/go
	wait $lp
	for e in syscalls/sys_enter_getpid syscalls/sys_enter_read task/task_rename; do
		n=$(basename $e)
		cat $I/events/$e/hist >$A/raw_$n.hist
		cp $T/events/$e/format $A/raw_$n.format
	done
	# can an instance with hist triggers go at once?
	rmdir $I 2>$A/rmdir_with_triggers.err
	echo $? >$A/rmdir_with_triggers.rc
	if [ -d $I ]; then
		for e in syscalls/sys_enter_getpid syscalls/sys_enter_read task/task_rename; do
			: >$I/events/$e/trigger
		done
		rmdir $I
	fi

	# agg_pair NAME MODE N COMMAND...: COMMAND (tpctl count|hist ...) with each
	# engine, --json and a filter on the workload's pid; stopped with INT.
	agg_pair() {
		name=$1 mode=$2 n=$3
		shift 3
		mark "$name"
		start_load $mode $n
		echo $lpid >$A/$name.loadpid
		for e in kernel user; do
			timeout 120 tpctl -v "$@" --filter "common_pid == $lpid" --engine $e --json \
				>$A/$name.$e.out 2>$A/$name.$e.err &
			eval "tp_$e=\$!"
		done
		for p in $tp_kernel $tp_user; do
			i=0
			# (tracefs files say size 0: read them)
			while [ -z "$(cat $T/instances/tpctl-$p/set_event 2>/dev/null)" ] &&
			      [ $i -lt 200 ]; do
				sleep 0.05
				i=$((i + 1))
			done
		done
		sleep 0.3
		echo go >/tmp/go
		wait $lp
		sleep 0.5
		kill -INT $tp_kernel $tp_user
		wait $tp_kernel
		echo $? >$A/$name.kernel.rc
		wait $tp_user
		echo $? >$A/$name.user.rc
	}
	agg_pair count_sys sys 1000 count syscalls:sys_enter_read syscalls:sys_enter_getpid \
		--by event,comm,pid,cpu
	agg_pair count_field sys 1000 count syscalls:sys_enter_read --by fd,count --top 50
	agg_pair hist_log2 sys 1000 hist syscalls:sys_enter_read --field count --by comm
	agg_pair hist_linear sys 1000 hist syscalls:sys_enter_read --field count --linear 100 \
		--by pid
	agg_pair count_str rename 300 count task:task_rename --by newcomm,oldcomm
	agg_pair hist_str rename 300 hist task:task_rename --field pid --by newcomm

	# the default is the kernel engine here
	step agg_default tpctl -v count syscalls:sys_enter_getpid --duration 0.3
	# what the kernel cannot aggregate: an error with --engine kernel
	step agg_kernel_stack tpctl count syscalls:sys_enter_getpid --by stack --engine kernel
	step agg_kernel_keys tpctl count syscalls:sys_enter_read --by comm,cpu,fd,count \
		--engine kernel
	step agg_auto_keys tpctl -v count syscalls:sys_enter_read --by comm,cpu,fd,count \
		--duration 0.3
	# intervals from the kernel engine
	step agg_interval tpctl count syscalls:sys_enter_getpid --engine kernel --interval 0.4 \
		--duration 1.8 --json
	# TARGET: tpctl starts the workload; both engines count only it
	echo go >/tmp/goline
	for e in kernel user; do
		step agg_target_$e tpctl count syscalls:sys_enter_getpid --by comm --engine $e \
			--json -- aggload sys 500 </tmp/goline
	done
	# -- COMMAND from its exec on, on both engines: the same count of its syscalls
	for e in kernel user; do
		step agg_true_$e tpctl count raw_syscalls:sys_enter --engine $e --json -- /bin/true
	done
	# a stack key: the user engine counts it, whatever the default
	step agg_stack tpctl -v count syscalls:sys_enter_getpid --stack --json \
		-- aggload sys 100 </tmp/goline
	# latency: the kernel engine (a synthetic event and hist triggers) and the
	# user engine at the same time on the same workload
	if tpctl latency --help >/dev/null 2>&1; then
		echo yes >$A/latency_available
		# another tool's synthetic event, which no tpctl may remove
		echo 'other_tool_lat u64 x' >>$T/synthetic_events
		agg_pair lat_syscall sys 1000 latency syscall
		agg_pair lat_custom sys 1000 latency raw_syscalls:sys_enter raw_syscalls:sys_exit \
			--match common_pid --by start.id
		agg_pair lat_sleep sleep 200 latency syscall
		# what the kernel cannot pair: an error with --engine kernel, the user engine by default
		step lat_kernel_wakeup tpctl latency wakeup --engine kernel --duration 0.2
		step lat_auto_wakeup tpctl -v latency wakeup --duration 0.3 --json
		# TERM while the kernel engine pairs: the synthetic event goes too
		mark lat_term
		tpctl latency syscall --engine kernel --json >$A/lat_term.out 2>$A/lat_term.err &
		lt=$!
		i=0
		while ! grep -q tpctl_lat $T/synthetic_events 2>/dev/null && [ $i -lt 200 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		grep -c tpctl_lat $T/synthetic_events >$A/lat_term.during
		kill -TERM $lt
		wait $lt
		echo $? >$A/lat_term.rc
		# KILL: the instance and the synthetic event stay; tpctl reset removes both
		mark lat_kill
		tpctl latency syscall --engine kernel --json >/dev/null 2>&1 &
		lt=$!
		i=0
		while ! grep -q "tpctl_lat_$lt" $T/synthetic_events 2>/dev/null && [ $i -lt 200 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		kill -KILL $lt
		wait $lt
		grep -c "tpctl_lat_$lt" $T/synthetic_events >$A/lat_kill.before
		step lat_reset tpctl reset
		cat $T/synthetic_events >$A/lat_synth_after
		echo '!other_tool_lat' >>$T/synthetic_events
	fi
	ls $T/instances >$A/instances_after
	cat $T/events/syscalls/sys_enter_read/trigger >$A/toplevel_trigger_after
else
	echo no >$OUT/agg_available
fi

# Stacks: options/stacktrace and options/userstacktrace in an instance (the
# module's thread gives kernel stacks through module functions, the forks
# and execs of cat give user stacks), the kernel's text against tpctl's text
# and JSON; then tpctl's own --stack (a stacktrace trigger on this kernel)
# and --user-stack.  The pause after tracing_on 0 lets a record that was
# being written then reach the buffer before `trace` is read.
if tpctl stream --help 2>/dev/null | grep -q -- --stack; then
	echo yes >$OUT/stacks_available
	echo 10 >$PARAM
	for run in text json; do
		mark "stk_kernel_$run"
		I=$T/instances/vmstk$run
		mkdir $I
		echo 1 >$I/options/stacktrace
		echo 1 >$I/options/userstacktrace
		echo 1 >$I/events/sample-trace/foo_bar/enable
		echo 1 >$I/events/sched/sched_process_fork/enable
		echo 1 >$I/events/sched/sched_process_exec/enable
		for i in 1 2 3 4 5 6; do
			cat /proc/version >/dev/null
			sleep 0.05
		done
		echo 0 >$I/tracing_on
		sleep 0.1
		cat $I/trace >$OUT/stk_$run.trace
		case $run in
		text) step stk_text tpctl -i vmstk$run stream --drain ;;
		json) step stk_json tpctl -i vmstk$run stream --drain --json ;;
		esac
		echo 0 >$I/events/sample-trace/foo_bar/enable
		echo 0 >$I/events/sched/sched_process_fork/enable
		echo 0 >$I/events/sched/sched_process_exec/enable
		echo 0 >$I/options/stacktrace
		echo 0 >$I/options/userstacktrace
		rmdir $I
	done
	cat $T/events/sample-trace/foo_bar/trigger >$OUT/stk_trigger_before
	step stk_trig_json tpctl -v stream sample-trace:foo_bar --filter 'bar > 5' --stack \
		--user-stack --json --count 5
	step stk_trig_text tpctl stream sample-trace:foo_bar --stack --count 3
	cat $T/events/sample-trace/foo_bar/trigger >$OUT/stk_trigger_after
	grep -c 'stack trace' $T/trace >$OUT/stk_top_level
	ls $T/instances >$OUT/instances_after_stacks
else
	echo no >$OUT/stacks_available
fi

# TARGET: a command and what it starts, nothing else: the module's kernel
# thread fires foo_bar all along, and must not show; with -a it must.
if tpctl stream --help 2>/dev/null | grep -q -- --pid; then
	echo yes >$OUT/target_available
	echo 10 >$PARAM
	step tgt_cmd tpctl stream --json sample-trace:foo_bar sched:sched_process_exec -- \
		sh -c 'sleep 0.3; exec cat /proc/version'
	step tgt_all tpctl stream --json -a sample-trace:foo_bar -- sleep 0.3
	ls $T/instances >$OUT/instances_after_target
	cat $T/set_event_pid $T/set_event_notrace_pid $T/options/event-fork >$OUT/target_top_level
else
	echo no >$OUT/target_available
fi

run_parts ''
finish
