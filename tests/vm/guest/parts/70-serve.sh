# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by check.sh: tpctl serve on the kernel engine (hist triggers and a
# synthetic event), read with busybox wget before and after known loads;
# then TERM during scrapes.  tests/vm/70-serve.t judges what is in $OUT/serve.
S=$OUT/serve
SPORT=9464
SURL=http://127.0.0.1:$SPORT
mkdir -p $S
if ! tpctl serve --help >/dev/null 2>&1; then
	echo no >$S/available
else
	echo yes >$S/available
	ifconfig lo 127.0.0.1 up 2>$S/ifconfig.err

	# scrape NAME [HEADER]: /metrics into $S/NAME.prom, wget's status in NAME.rc
	scrape() {
		mark "serve_$1"
		if [ -n "$2" ]; then
			timeout 20 wget -q -O $S/$1.prom --header "$2" $SURL/metrics 2>$S/$1.err
		else
			timeout 20 wget -q -O $S/$1.prom $SURL/metrics 2>$S/$1.err
		fi
		echo $? >$S/$1.rc
	}
	# cpu_ticks PID: utime + stime of the process, in clock ticks
	cpu_ticks() {
		awk '{ sub(/^.*\) /, ""); print $12 + $13 }' /proc/$1/stat
	}
	# serve_up: wait until /healthz answers (or serve is gone)
	serve_up() {
		i=0
		while ! wget -q -O /dev/null $SURL/healthz 2>/dev/null && kill -0 $sp 2>/dev/null &&
		      [ $i -lt 300 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	}

	mark serve_start
	NSYS=3000
	NODD=400
	echo "$NSYS $NODD" >$S/n
	tpctl -v serve --listen 127.0.0.1:$SPORT \
		'count syscalls:sys_enter_getpid --by comm' \
		'latency syscall --by comm' \
		'hist syscalls:sys_enter_read --field count --name tpctl_read_bytes' \
		'count task:task_rename --by newcomm --name tpctl_renames' \
		>$S/serve.out 2>$S/serve.err &
	sp=$!
	serve_up
	ls -l /proc/$sp/fd >$S/fds 2>&1
	ls $T/instances >$S/instances_during
	cat $T/synthetic_events >$S/synth_during

	# the generator waits (its own startup made its own calls): exactly NSYS
	# getpid() and NSYS read(2) after "go"
	start_load sys $NSYS
	echo $lpid >$S/sys.pid
	scrape before
	scrape before_om 'Accept: application/openmetrics-text; version=1.0.0'
	c0=$(cpu_ticks $sp)
	t0=$(cut -d' ' -f1 /proc/uptime)
	echo go >/tmp/go
	wait $lp
	echo $? >$S/sys.rc
	c1=$(cpu_ticks $sp)
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo "$c0 $c1 $t0 $t1" >$S/cpu
	# past the 0.25 s in which serve answers a scrape with the last one's text
	sleep 0.3
	scrape after
	scrape after_om 'Accept: application/openmetrics-text; version=1.0.0'
	# NODD renames, in turn to four odd names
	start_load oddname $NODD
	scrape odd_before
	echo go >/tmp/go
	wait $lp
	echo $? >$S/oddname.rc
	sleep 0.3
	scrape odd_after
	scrape odd_after_om 'Accept: application/openmetrics-text; version=1.0.0'
	# a second read of the same hist files: the counters must not move back
	sleep 0.3
	scrape again

	# TERM while scrapes are under way
	mark serve_term
	for i in 1 2 3 4 5 6 7 8; do
		timeout 20 wget -q -O /dev/null $SURL/metrics 2>/dev/null &
	done
	kill -TERM $sp
	wait $sp
	echo $? >$S/term.rc
	wait
	sleep 0.2
	ps -o pid,comm | grep -c tpctl >$S/tpctl_left

	# two metrics on one event: the second is the user engine's (one hist
	# file would hold both tables); each counts the same renames
	mark serve_shared
	tpctl -v serve --listen 127.0.0.1:$SPORT 'count task:task_rename --by newcomm' \
		'hist task:task_rename --field pid --by newcomm --name tpctl_rename_pid' \
		>/dev/null 2>$S/shared.err &
	sp=$!
	serve_up
	start_load oddname $NODD
	scrape shared_before
	echo go >/tmp/go
	wait $lp
	sleep 0.3
	scrape shared_after
	kill -TERM $sp
	wait $sp
	echo $? >$S/shared.rc

	ls $T/instances >$S/instances_after
	cat $T/synthetic_events >$S/synth_after
	for e in syscalls/sys_enter_getpid syscalls/sys_enter_read raw_syscalls/sys_enter \
		 raw_syscalls/sys_exit task/task_rename; do
		echo "== $e"
		grep -v '^#' $T/events/$e/trigger
	done >$S/triggers_after
fi
