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

# step NAME COMMAND...: run a command with a time limit, keep what it said.
step() {
	name=$1
	shift
	timeout 30 "$@" >$OUT/$name.out 2>$OUT/$name.err
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

uname -r >$OUT/uname
nproc >$OUT/nproc

step insmod insmod /lib/modules/sample_trace.ko period_ms=20
grep '^sample-trace:' $T/available_events >$OUT/available_events

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

step rmmod rmmod sample_trace
grep '^sample-trace:' $T/available_events >$OUT/events_after_rmmod

# Ship /out to the host.
echo "@@TPCTL-VM-BEGIN@@"
(cd $OUT && tar -cf - . | gzip -9 | base64)
echo "@@TPCTL-VM-END@@"
