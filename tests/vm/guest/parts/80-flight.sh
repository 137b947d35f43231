# SPDX-License-Identifier: GPL-2.0-or-later
# record --flight on 6.1, whose kernel has the traceoff and snapshot triggers
# and the snapshot file (sourced by check.sh, see tests/vm/README.md; judged
# by tests/vm/80-flight.t).  aggload sys N (tests/vm/aggload.c) makes N
# getpid calls after one of its own.  The files and what the kernel showed
# go to $OUT/flight; steps are named fl_*.
FL=$OUT/flight
mkdir -p $FL /tmp/fl

# what tpctl may change: the top level, the instances, the triggers it sets
fl_state() {
	cat $T/tracing_on $T/set_event
	ls $T/instances
	grep -v '^#' $T/events/syscalls/sys_enter_exit_group/trigger \
		$T/events/syscalls/sys_enter_getpid/trigger
}

# fl_wait COND: until the shell condition COND holds (10 s at most)
fl_wait() {
	i=0
	while ! eval "$1" && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

# fl_up PID: its instance set up and tracing
fl_up() {
	fl_wait "grep -q 1 $T/instances/tpctl-$1/tracing_on 2>/dev/null &&
		grep -q 1 $T/instances/tpctl-$1/events/syscalls/sys_enter_getpid/enable 2>/dev/null"
}

# fl_load N NAME: aggload sys N run to its end, its pid in $FL/NAME.pid
fl_load() {
	start_load sys $1
	echo $lpid >$FL/$2.pid
	echo go >/tmp/go
	wait $lp
}

# fl_dumped FILE: the recorder said it wrote FILE
fl_dumped() {
	fl_wait "grep -qF \"wrote '$1'\" $FL/usr1.err"
}

# what this kernel offers: an event's triggers (the trigger file's header),
# the snapshot file
sed -n 2p $T/events/syscalls/sys_enter_getpid/trigger >$FL/triggers
[ -e $T/snapshot ] && echo yes >$FL/snapshot_file || echo no >$FL/snapshot_file
fl_state >$FL/state_before

# ---- SIGUSR1: FILE.1 the first load's calls, FILE.2 the second's only
mark fl_usr1
timeout 60 tpctl record --flight -o /tmp/fl/f.dat --buffer-kb 1024 \
	syscalls:sys_enter_getpid >$FL/usr1.out 2>$FL/usr1.err &
p=$!
fl_up $p
cat $T/instances/tpctl-$p/options/overwrite >$FL/usr1_overwrite 2>&1
fl_load 1000 usr1_a
kill -USR1 $p
fl_dumped /tmp/fl/f.dat.1
fl_load 1000 usr1_b
kill -USR1 $p
fl_dumped /tmp/fl/f.dat.2
kill -INT $p
wait $p
echo $? >$FL/usr1.rc
ls /tmp/fl >$FL/usr1.ls
[ -d $T/instances/tpctl-$p ] && echo left >$FL/usr1_instance

# ---- --stop-on: the kernel's traceoff trigger stops the buffers at exit_group(77)
mark fl_stop
timeout 60 tpctl record --flight -o /tmp/fl/s.dat syscalls:sys_enter_getpid \
	syscalls:sys_enter_exit_group \
	--stop-on 'syscalls:sys_enter_exit_group if error_code == 77' \
	>$FL/stop.out 2>$FL/stop.err &
p=$!
fl_up $p
cat $T/instances/tpctl-$p/events/syscalls/sys_enter_exit_group/trigger >$FL/stop_trigger 2>&1
sh -c 'exit 3'
sh -c 'exit 77'
fl_load 100 stop_after
# tpctl ends on its own: nothing is sent to it (timeout's 60 s is the bound)
wait $p
echo $? >$FL/stop.rc
[ -d $T/instances/tpctl-$p ] && echo left >$FL/stop_instance

# ---- SIGKILL, then tpctl reset: the instance and its trigger go
mark fl_kill
timeout 60 tpctl record --flight -o /tmp/fl/k.dat syscalls:sys_enter_getpid \
	--stop-on 'syscalls:sys_enter_getpid if common_pid == 1' >/dev/null 2>&1 &
p=$!
fl_up $p
kill -KILL $p
wait $p
[ -d $T/instances/tpctl-$p ] && echo yes >$FL/kill_left
step fl_status tpctl status
step fl_reset tpctl reset
[ -d $T/instances/tpctl-$p ] && echo left >$FL/kill_instance
ls /tmp/fl >$FL/kill.ls

fl_state >$FL/state_after
cp /tmp/fl/f.dat.1 /tmp/fl/f.dat.2 /tmp/fl/s.dat $FL/ 2>/dev/null
rm -rf /tmp/fl
