#!/bin/bash
# The kernel's BTF (5.5 MB on the 6.18 host, about 9 ms of CPU to load) is
# read only by a command that parses a format naming an enum constant for
# text: never by list, by a stream of events without such names, or by JSON
# (raw values); once by a text stream of timer:hrtimer_start (HRTIMER_MODE_*).
# strace shows which files each run opens.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v strace > /dev/null || skip_all "no strace"
[ -r /sys/kernel/btf/vmlinux ] || skip_all "no BTF at /sys/kernel/btf/vmlinux"
plan 6

# opens CMD...: run CMD under strace, print how often it opened the BTF file
opens() {
	strace -f -qq -e trace=open,openat -o "$TMP/strace" "$@" > "$TMP/out" 2> "$TMP/err"
	grep -c '/sys/kernel/btf/vmlinux' "$TMP/strace"
}

[ "$(opens "$TPCTL" list)" = 0 ]
ok $? "list does not read BTF"
[ "$(opens "$TPCTL" format timer:hrtimer_start)" = 0 ]
ok $? "format does not read BTF (it shows the kernel's print fmt)"
[ "$(opens "$TPCTL" stream --count 2 sched:sched_switch)" = 0 ]
ok $? "stream of an event whose format names no constant does not read BTF"
[ "$(opens "$TPCTL" stream --json --count 2 timer:hrtimer_start)" = 0 ]
ok $? "stream --json does not read BTF (JSON carries the values)"
n=$(opens "$TPCTL" stream --count 2 timer:hrtimer_start)
[ "$n" = 1 ] && grep -qE ' mode=(ABS|REL)' "$TMP/out"
ok $? "a text stream of timer:hrtimer_start reads it once ($n) and prints modes by name"
n=$(opens env TPCTL_BTF=/nonexistent "$TPCTL" stream --count 2 timer:hrtimer_start)
# stderr is looked at without strace (a sanitizer's leak check cannot run under ptrace)
TPCTL_BTF=/nonexistent "$TPCTL" stream --count 2 timer:hrtimer_start > "$TMP/out" 2> "$TMP/err"
[ "$n" = 0 ] && [ ! -s "$TMP/err" ] && grep -qE ' mode=0x' "$TMP/out"
ok $? "with TPCTL_BTF naming no file: numbers, quietly"
diag "$TMP/err"
done_testing
