#!/bin/bash
# --strings on this host: what it needs (event probes, synthetic events) is
# not in every kernel, and where it is missing every command says so in one
# line, exit 2, with nothing changed: no instance, probe, synthetic event,
# trigger or enabled event left.  Where the kernel has them (Debian's 6.1),
# tests/vm/65-strings.t checks what --strings prints.
. "$(dirname "$0")/lib.sh"
need_tracefs

# the kernel has event probes when it has their code (as tpctl decides)
has_eprobes() {
	grep -qE ' (eprobe_dyn_event_create|__trace_eprobe_create|eprobe_register)$' /proc/kallsyms
}
dyn_state() {
	cat "$TRACEFS/dynamic_events" "$TRACEFS/synthetic_events" 2> /dev/null
	cat "$TRACEFS/events/syscalls/sys_enter_openat/trigger" \
		"$TRACEFS/events/syscalls/sys_exit_openat/trigger" 2> /dev/null | grep -v '^#'
}
before=$(dyn_state; state_digest)
unchanged() { [ "$(dyn_state; state_digest)" = "$before" ]; }

# usage errors whatever the kernel has
expect_status "stream --strings without EVENT: exit 2" 2 "$TPCTL" stream --strings
echo "tpctl: stream: '--strings' needs EVENT arguments (without them nothing is changed)" \
	> "$TMP/want"
test_cmp "stream --strings without EVENT: one line" "$TMP/want" "$TMP/err"
expect_status "count --strings --engine kernel: exit 2" 2 "$TPCTL" count --strings \
	--engine kernel syscalls:sys_enter_openat --by filename
echo "tpctl: count: '--strings' events are read from the ring buffer: the user engine does" \
	"('--engine user')" > "$TMP/want"
test_cmp "count --strings --engine kernel: one line" "$TMP/want" "$TMP/err"
# (without event probes that is said first: a kernel without a feature, exit 1)
want=2
has_eprobes || want=1
expect_status "--strings with an unknown event: exit $want" $want "$TPCTL" stream --strings \
	syscalls:sys_enter_no_such_call
[ "$(wc -l < "$TMP/err")" -eq 1 ] && [ ! -s "$TMP/out" ]
ok $? "--strings with an unknown event: one line, nothing on stdout"
unchanged; ok $? "nothing changed by the usage errors"

if has_eprobes; then
	for c in stream record count hist; do
		skip "$c --strings: this kernel has event probes (tests/vm/65-strings.t)"
		skip "$c --strings: one line"
		skip "$c --strings: nothing on stdout"
	done
else
	for c in stream record count hist; do
		case $c in
		stream) args=(stream --json syscalls:sys_enter_openat) ;;
		record) args=(record -o "$TMP/s.dat" syscalls:sys_enter_openat) ;;
		count) args=(count syscalls:sys_enter_openat --by filename) ;;
		hist) args=(hist syscalls:sys_enter_openat --field ret --by filename) ;;
		esac
		expect_status "$c --strings without event probes: exit 1" 1 "$TPCTL" "${args[@]}" \
			--strings -- true
		echo "tpctl: $c: '--strings' needs event probes, which this kernel does not have" \
			"(CONFIG_EPROBE_EVENTS is off)" > "$TMP/want"
		test_cmp "$c --strings: one line that says why" "$TMP/want" "$TMP/err"
		[ ! -s "$TMP/out" ] && [ ! -e "$TMP/s.dat" ]
		ok $? "$c --strings: nothing on stdout, no file"
	done
fi
unchanged; ok $? "nothing changed: no instance, probe, synthetic event, trigger or event left"
plan $_n
done_testing
