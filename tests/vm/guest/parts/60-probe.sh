# SPDX-License-Identifier: GPL-2.0-or-later
# tpctl probe on a kernel that has kprobes, uprobes and event probes (sourced
# by check.sh, see tests/vm/README.md; judged by tests/vm/60-probe.t).
# probeload (tests/vm/probeload.c) makes known read(2) calls: fd 37, counts
# 100, 101, ...  Everything goes to $OUT/probe; steps are named pr_*.
P=$OUT/probe
mkdir -p $P

# what tracefs holds that a probe could leave behind
pr_state() {
	for f in dynamic_events kprobe_events uprobe_events synthetic_events; do
		echo "== $f"
		cat $T/$f
	done
	echo "== instances"
	ls $T/instances
}

# pr_wait_group PID: until the probes of that tpctl's run are there
pr_wait_group() {
	i=0
	while ! grep -q "tpctl_$1/" $T/dynamic_events && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

echo 10 >$PARAM
grep -w -e ksys_read -e vfs_read -e __x64_sys_openat /proc/kallsyms | cut -d' ' -f2- >$P/kallsyms
pr_state >$P/state_before

# ---- one-run probes: k:, kr:, counts
step pr_k tpctl stream --json --probe 'k:ksys_read fd=arg1 n=arg3' -- probeload read 50
step pr_kr tpctl stream --json --probe 'k:ksys_read fd=arg1 n=arg3' \
	--probe 'kr:ksys_read ret=retval' -- probeload read 50
step pr_count_kernel tpctl count --json --by comm --engine kernel \
	--probe 'k:ksys_read fd=arg1' -- probeload read 50
step pr_count_user tpctl count --json --by comm --engine user \
	--probe 'k:ksys_read fd=arg1' -- probeload read 50
# which fetches fault: a kprobe at openat's entry (the kernel has not read the
# path yet) and a uprobe on probeload's open_path, each in a run of its own;
# then the kernel's own text of the kprobe's fetch (comm: probeload only)
PR_FK='k:__x64_sys_openat path=+0(+104(%di)):ustring'
step pr_fault_k tpctl stream --json --probe "$PR_FK" -- probeload open
step pr_fault_k_text tpctl stream --probe "$PR_FK" -- probeload open
step pr_fault_u tpctl stream --json --probe 'u:/usr/bin/probeload:open_path path=arg1:string' \
	-- probeload open
step pr_fault_add tpctl probe add $PR_FK --name pr_fault
I=$T/instances/prfault
mkdir $I
echo 'comm == "probeload"' >$I/events/tpctl/pr_fault/filter
echo 1 >$I/events/tpctl/pr_fault/enable
probeload open
echo 0 >$I/tracing_on
cat $I/trace >$P/fault_kernel.trace
echo 0 >$I/events/tpctl/pr_fault/enable
rmdir $I
step pr_fault_remove tpctl probe remove pr_fault
pr_state >$P/state_after_runs

# ---- an event probe on foo_bar, in the same stream as foo_bar itself
step pr_e tpctl stream --json sample-trace:foo_bar \
	--probe 'e:sample-trace:foo_bar bar=$bar foo=$foo:string str=$str:string' --duration 1.5
step pr_e_short tpctl stream --json sample-trace:foo_bar \
	--probe 'e:sample-trace:foo_bar bar foo:string' --duration 1

# ---- persistent probes of every kind, next to another tool's
step pr_add_k tpctl probe add k:ksys_read fd=arg1 n=arg3 --name pr_k
step pr_add_kr tpctl probe add kr:ksys_read retval --name pr_kr
step pr_add_u tpctl probe add u:/usr/bin/probeload:work arg1 --name pr_u
step pr_add_ur tpctl probe add ur:/usr/bin/probeload:work retval --name pr_ur
step pr_add_e tpctl probe add e:sample-trace:foo_bar 'bar=$bar' --name pr_e
echo 'p:other/pr_other_k vfs_read' >>$T/kprobe_events 2>$P/other_k.err
echo 'pr_other_s u64 x' >>$T/synthetic_events 2>$P/other_s.err
cat $T/dynamic_events >$P/list_dynamic_events
step pr_list tpctl probe list --json
step pr_list_text tpctl probe list
step pr_persist tpctl stream --json tpctl:pr_k tpctl:pr_kr -- probeload read 20
# a removal that fails partway: pr_e is enabled in an instance (EBUSY)
mkdir $T/instances/prbusy
echo 1 >$T/instances/prbusy/events/tpctl/pr_e/enable
step pr_remove_busy tpctl probe remove pr_k pr_kr pr_e pr_u pr_ur
cat $T/dynamic_events >$P/after_remove_busy
echo 0 >$T/instances/prbusy/events/tpctl/pr_e/enable
rmdir $T/instances/prbusy
step pr_remove tpctl probe remove pr_k pr_kr pr_e pr_u pr_ur
echo '-:other/pr_other_k' >>$T/kprobe_events
echo '!pr_other_s u64 x' >>$T/synthetic_events
pr_state >$P/state_after_persist

# ---- bad input: exit 2, one line, nothing changed
for b in sym:'k:no_such_function_xyz' arg:'k:ksys_read bad=+0(%zz):u32' \
	 type:'k:ksys_read x=%di:nosuchtype' efield:'e:sample-trace:foo_bar x=$nosuchfield' \
	 edots:'e:..:x' esys:'e:no_such_sys:foo_bar'; do
	step pr_bad_${b%%:*} tpctl stream --probe "${b#*:}" -- true
done
step pr_bad_slash tpctl probe add k:ksys_read --name a/b
step pr_bad_dots tpctl probe remove ../x
step pr_bad_rdots tpctl probe remove tpctl:..
pr_state >$P/state_after_bad

# ---- two tpctl making probes of the same SPEC at once (-a: the module's
# thread fires foo_bar, probeload the reads)
mark pr_two
for x in a b; do
	timeout 60 tpctl stream --json -a --probe 'k:ksys_read fd=arg1 n=arg3' \
		--probe 'e:sample-trace:foo_bar bar=$bar' -- probeload read 20 slow \
		>$P/two_$x.out 2>$P/two_$x.err &
	eval "two_$x=\$!"
done
wait $two_a
echo $? >$P/two_a.rc
wait $two_b
echo $? >$P/two_b.rc
pr_state >$P/state_after_two

# ---- KILL: the run's probes and instance stay; tpctl reset removes them
mark pr_kill
tpctl stream --probe 'k:ksys_read' --probe 'e:sample-trace:foo_bar bar=$bar' \
	-- probeload read 1000 slow >/dev/null 2>&1 &
tp=$!
pr_wait_group $tp
sleep 0.3
kill -KILL $tp
wait $tp
kill $(pidof probeload) 2>/dev/null
grep -c "tpctl_$tp/" $T/dynamic_events >$P/kill_before
echo $tp >$P/kill_pid
step pr_reset tpctl reset
pr_state >$P/state_after_reset

# ---- the module unloaded while its events are streamed, without and with an
# event probe on them (an event probe holds the module: 6.1 refuses rmmod)
pr_rmmod() {
	name=$1
	mark pr_$name
	shift
	timeout 60 tpctl stream --json sample-trace:foo_bar "$@" >$P/$name.out 2>$P/$name.err &
	tp=$!
	i=0
	while ! [ -d $T/instances/tpctl-$tp ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 0.5
	rmmod sample_trace >$P/$name.rmmod 2>&1
	echo $? >$P/$name.rmmod_rc
	sleep 1
	if kill -0 $tp 2>/dev/null; then
		echo running >$P/$name.alive
		kill -INT $tp
	else
		echo gone >$P/$name.alive
	fi
	wait $tp
	echo $? >$P/$name.rc
	pr_state >$P/$name.state
	# with tpctl gone nothing of it holds the module: it can go, and come back
	if grep -q '^sample_trace ' /proc/modules; then
		rmmod sample_trace >$P/$name.rmmod_after 2>&1
		echo $? >$P/$name.rmmod_after_rc
	fi
	insmod /lib/modules/sample_trace.ko period_ms=20 >$P/$name.insmod 2>&1
	echo $? >$P/$name.insmod_rc
}
pr_rmmod rmmod_plain
pr_rmmod rmmod_eprobe --probe 'e:sample-trace:foo_bar bar=$bar'
echo 10 >$PARAM
