# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by check.sh, but a benchmark, not a check: it runs only when the
# kernel command line asks for it (VM_ONLY=servebench, bench/serve-vm.sh),
# never in the normal check-vm.  The CPU time of tpctl serve with 10,000
# series under a producer reading as fast as it can: between scrapes and
# over K scrapes, for the kernel engine and the user engine in turn.
case $ONLY in
*servebench*)
	B=$OUT/servebench
	mkdir -p $B
	ifconfig lo 127.0.0.1 up
	BPORT=9465
	IDLE_S=${BENCH_IDLE_S:-5}
	K=${BENCH_K:-10}
	# utime + stime in clock ticks (10 ms), and the uptime in seconds
	ticks() {
		awk '{ sub(/^.*\) /, ""); print $12 + $13 }' /proc/$1/stat
	}
	# stime alone: the kernel's part (a hist file is made by the kernel as it is read)
	sticks() {
		awk '{ sub(/^.*\) /, ""); print $13 }' /proc/$1/stat
	}
	up() {
		cut -d' ' -f1 /proc/uptime
	}
	for e in kernel user; do
		mark "servebench_$e"
		# the producer, without start_load's time limit (the kernel engine's
		# scrapes take seconds each under TCG); it waits for "go" on /tmp/bgo
		rm -f /tmp/bgo /tmp/bpid
		mkfifo /tmp/bgo
		aggload spread 1000000000 <>/tmp/bgo >/tmp/bpid &
		lp=$!
		i=0
		while [ ! -s /tmp/bpid ] && [ $i -lt 200 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		lpid=$(cat /tmp/bpid)
		tpctl serve --listen 127.0.0.1:$BPORT \
			"count syscalls:sys_enter_read --by count --engine $e --filter 'common_pid == $lpid'" \
			>/dev/null 2>$B/$e.err &
		bp=$!
		i=0
		while ! wget -q -O /dev/null http://127.0.0.1:$BPORT/healthz 2>/dev/null &&
		      kill -0 $bp 2>/dev/null && [ $i -lt 300 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		echo go >/tmp/bgo
		# every key is there before anything is measured
		sleep 3
		wget -q -O $B/$e.first http://127.0.0.1:$BPORT/metrics
		c0=$(ticks $bp) u0=$(up) p0=$(ticks $lpid) s0=$(sticks $bp)
		sleep $IDLE_S
		c1=$(ticks $bp) u1=$(up) p1=$(ticks $lpid) s1=$(sticks $bp)
		n=0
		while [ $n -lt $K ]; do
			# past the quarter second in which serve gives the last text again
			sleep 0.3
			wget -q -O $B/$e.last http://127.0.0.1:$BPORT/metrics
			n=$((n + 1))
		done
		c2=$(ticks $bp) u2=$(up) p2=$(ticks $lpid) s2=$(sticks $bp)
		echo "$c0 $c1 $c2 $u0 $u1 $u2 $p0 $p1 $p2 $K $s0 $s1 $s2" >$B/$e.times
		kill -TERM $bp
		wait $bp
		echo $? >$B/$e.rc
		kill $lpid
		wait $lp
	done
	ls $T/instances >$B/instances_after
	;;
esac
