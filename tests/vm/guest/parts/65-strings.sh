# shellcheck shell=sh
# --strings: the paths behind syscall pointer arguments, fetched by the
# kernel at the syscall's exit (a synthetic event, hist triggers and an event
# probe; see src/strings.h).  tests/vm/strload.c opens known paths, a third
# of them from pages it never touched before; strace says what it opened.
# Checked on the host by tests/vm/65-strings.t.
S=$OUT/strings
mkdir -p $S

# what tpctl may leave: instances, synthetic and dynamic events, top-level triggers
str_state() {
	ls $T/instances
	grep tpctl $T/synthetic_events $T/dynamic_events
	cat $T/events/syscalls/sys_enter_openat/trigger $T/events/syscalls/sys_exit_openat/trigger |
		grep -v '^#'
}

# str_wait PID: until the probe of tpctl PID exists and its instance has triggers
str_wait() {
	i=0
	while { ! grep -q "tpctl_$1/" $T/dynamic_events ||
		! grep -q onmatch $T/instances/tpctl-$1/events/syscalls/sys_exit_openat/trigger; } \
		2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 0.2
}

if tpctl stream --help 2>/dev/null | grep -q -- --strings; then
	echo yes >$S/available
	str_state >$S/state_before 2>&1
	N=200
	mark str_strace
	timeout 60 strace -f -e trace=openat -o $S/strace.txt strload $N >$S/strace.out 2>&1
	echo $? >$S/strace.rc
	step str_json tpctl stream --strings --json syscalls:sys_enter_openat -- strload $N
	step str_text tpctl stream --strings syscalls:sys_enter_openat -- strload 20
	step str_count tpctl count syscalls:sys_enter_openat --by filename --strings --json \
		-- strload $N
	step str_count_text tpctl count syscalls:sys_enter_openat --by filename --strings \
		-- strload 20
	step str_hist tpctl hist syscalls:sys_enter_openat --field ret --by filename --strings \
		--json -- strload 20
	step str_filter tpctl stream --strings --json --filter 'filename ~ "*fresh*"' \
		syscalls:sys_enter_openat -- strload 20
	step str_record tpctl record -o $S/strings.dat --strings syscalls:sys_enter_openat \
		-- strload 20
	step str_report tpctl report --json $S/strings.dat
	# the naive way for contrast: an event probe fetching at entry
	step str_naive tpctl stream --json --probe 'e:syscalls:sys_enter_openat filename:string' \
		-- strload $N
	# execve: fetched at entry (after the exec the old pointer is gone)
	step str_exec tpctl stream --strings --json syscalls:sys_enter_execve -- \
		sh -c 'exec strload 1'
	# every syscall event at once (the tables get the kernel's default size)
	step str_all tpctl stream --strings --json syscalls -- strload 5
	str_state >$S/all.after 2>&1
	# INT and TERM while it runs: everything goes
	for sig in INT TERM KILL; do
		mark str_$sig
		tpctl stream --strings --json syscalls:sys_enter_openat >$S/sig_$sig.out \
			2>$S/sig_$sig.err &
		tp=$!
		str_wait $tp
		echo $tp >$S/sig_$sig.pid
		str_state >$S/sig_$sig.during 2>&1
		strload 3 >/dev/null 2>&1
		sleep 0.3
		kill -$sig $tp
		wait $tp
		echo $? >$S/sig_$sig.rc
		[ $sig = KILL ] && step str_reset tpctl reset
		str_state >$S/sig_$sig.after 2>&1
	done
else
	echo no >$S/available
fi
