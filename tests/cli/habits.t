#!/bin/bash
# What users of strace, perf and trace-cmd expect: errno names beside a syscall's
# return value (tables and JSON), integer fields in JSON as their declared type
# (an int dfd stored in 8 bytes is -100), -e EVENT, record's summary line, the
# closest names where a word named nothing, the hint of quotes for a string
# filter, and the small ones: serve's bind error, status with no events, a
# pointer key said to be addresses.
. "$(dirname "$0")/lib.sh"
need_tracefs
make_instance
command -v jq > /dev/null || skip_all "needs jq"
T() { "$TPCTL" -i "$INST" "$@"; }
# cat of a file that is not there: openat returns -2 (ENOENT); errno-base.h's name
NOFILE=$TMP/no-such-file
ENOENT=$(printf '#include <errno.h>\nENOENT\n' | cc -E -x c - 2>/dev/null | tail -1)
[ "$ENOENT" = 2 ] || skip_all "cannot read ENOENT from errno.h"

# ---- errno names and declared types --------------------------------------------
expect_status "stream --json of openat -- cat a missing file" 1 \
	"$TPCTL" stream --json syscalls:sys_enter_openat syscalls:sys_exit_openat -- cat "$NOFILE"
cp "$TMP/out" "$TMP/stream.json"
jq -e -s '[.[] | select(.event == "sys_exit_openat" and .fields.ret == -2)] |
	length >= 1 and all(.fields.errno == "ENOENT")' "$TMP/stream.json" > /dev/null
ok $? "a sys_exit event's ret -2 has \"errno\":\"ENOENT\" beside it"
jq -e -s '[.[] | select(.event == "sys_exit_openat" and .fields.ret >= 0)] |
	all(has("fields") and (.fields | has("errno")) and .fields.errno == null)' \
	"$TMP/stream.json" > /dev/null
ok $? "a return value that is no error has \"errno\":null"
grep -m1 '"event":"sys_exit_openat"' "$TMP/stream.json" | grep -q '"ret":[-0-9]*,"errno":'
ok $? "errno comes right after ret"
jq -e -s '[.[] | select(.event == "sys_enter_openat")] | length >= 1 and
	any(.fields.dfd == -100)' "$TMP/stream.json" > /dev/null
ok $? "int dfd (stored in 8 bytes) is -100 (AT_FDCWD) in JSON"
expect_status "stream text of the same" 1 \
	"$TPCTL" stream syscalls:sys_enter_openat syscalls:sys_exit_openat -- cat "$NOFILE"
grep -q 'sys_openat(dfd: 0xffffff9c' "$TMP/out" && grep -q 'sys_openat -> 0xfffffffffffffffe' "$TMP/out"
ok $? "the text stays the kernel's: dfd 0xffffff9c, ret 0xfffffffffffffffe"
expect_status "record of the same" 1 "$TPCTL" record -o "$TMP/o.dat" \
	syscalls:sys_enter_openat syscalls:sys_exit_openat -- cat "$NOFILE"
"$TPCTL" report --json "$TMP/o.dat" > "$TMP/report.json"
jq -e -s 'any(.fields.errno == "ENOENT") and any(.fields.dfd == -100)' "$TMP/report.json" \
	> /dev/null
ok $? "report --json: errno and dfd -100 too"
expect_status "count --by ret" 1 "$TPCTL" count syscalls:sys_exit_openat --by ret -- cat "$NOFILE"
grep -Eq '^ *-2 ENOENT +[0-9]+$' "$TMP/out"
ok $? "count --by ret names the errno: -2 ENOENT"
diag "$TMP/out"
expect_status "count --by ret --json" 1 "$TPCTL" count syscalls:sys_exit_openat --by ret --json \
	-- cat "$NOFILE"
jq -e 'any(.rows[]; .key == {"ret": -2, "errno": "ENOENT"}) and
	all(.rows[]; .key.ret < 0 or .key.errno == null)' "$TMP/out" > /dev/null
ok $? "count --json: the key has \"errno\" beside ret"

# ---- -e EVENT and record's summary ---------------------------------------------
expect_status "record -e sched:sched_switch -e sched:sched_wakeup" 0 \
	"$TPCTL" record -o "$TMP/e.dat" -e sched:sched_switch -e sched:sched_wakeup -- sleep 0.2
grep -Eqx "tpctl: record: wrote '$TMP/e.dat': [0-9]+ events, [0-9]+ lost, [0-9.]+ (bytes|KiB|MiB)" \
	"$TMP/err"
ok $? "record says what it wrote in one line"
diag "$TMP/err"
n=$(sed -n 's/.*: \([0-9]*\) events,.*/\1/p' "$TMP/err")
[ "$("$TPCTL" report "$TMP/e.dat" | wc -l)" = "$n" ]
ok $? "its events are the file's records ($n)"
expect_status "record -q" 0 "$TPCTL" -q record -o "$TMP/q.dat" -e sched -- true
[ ! -s "$TMP/err" ]
ok $? "-q silences the summary"
expect_status "stream -e EVENT EVENT" 0 "$TPCTL" stream --json -e syscalls:sys_enter_openat \
	syscalls:sys_exit_openat -- cat /dev/null
jq -e -s 'any(.event == "sys_enter_openat") and any(.event == "sys_exit_openat")' \
	"$TMP/out" > /dev/null
ok $? "stream: -e and an argument are both traced"
for c in stream record count hist latency; do
	"$TPCTL" "$c" --list-options | grep -q $'^-e\t--event\tEVENT\t'
	ok $? "$c --list-options has -e, --event EVENT"
done

# ---- suggestions -------------------------------------------------------------------
expect_status "tpctl stat" 2 "$TPCTL" stat
grep -qx "tpctl: unknown command 'stat' (did you mean 'status'?); try 'tpctl --help'" "$TMP/err"
ok $? "stat: did you mean 'status'"
expect_status "count --by bogus" 2 "$TPCTL" count sched:sched_switch --by prev_com
grep -q "unknown key 'prev_com' in 'sched:sched_switch' (did you mean 'prev_comm'? the keys: event, comm, pid, cpu, stack, prev_comm," "$TMP/err"
ok $? "--by: the closest key and the keys there are"
diag "$TMP/err"
expect_status "a glob that matches nothing" 2 "$TPCTL" stream 'sched:*wakup*' --count 1
grep -q "no event matches 'sched:\*wakup\*'; closest: .*'sched:sched_wakeup'" "$TMP/err"
ok $? "a glob that matches nothing: the nearest events"
diag "$TMP/err"
expect_status "a string filter without quotes" 2 T filter sched:sched_switch 'prev_comm == bash'
grep -qx '  did you forget quotes? prev_comm == "bash"' "$TMP/err"
ok $? "a string compared with a bare word: did you forget quotes?"
diag "$TMP/err"

# ---- small ones -------------------------------------------------------------------------
expect_status "status with no event enabled" 0 T status
grep -qx 'enabled events: none' "$TMP/out"
ok $? "status says none"
expect_status "count --by filename" 0 "$TPCTL" count syscalls:sys_enter_openat --by filename \
	-- cat /dev/null
[ "$(grep -c "key 'filename' of 'syscalls:sys_enter_openat' is a pointer (const char \*): its values are the addresses" "$TMP/err")" = 1 ]
ok $? "a pointer key: said once that its values are addresses"
diag "$TMP/err"
if command -v python3 > /dev/null; then
	python3 - "$TPCTL" "$TMP" > "$TMP/serve" 2>&1 <<'PY'
import socket, subprocess, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
port = s.getsockname()[1]
r = subprocess.run([sys.argv[1], "serve", "--listen", "127.0.0.1:%d" % port,
                    "count sched:sched_switch"], capture_output=True, text=True, timeout=20)
print(r.returncode)
print(r.stderr, end="")
print("want tpctl: serve: cannot listen on '127.0.0.1:%d': address already in use" % port)
PY
	[ "$(sed -n 1p "$TMP/serve")" = 1 ] &&
		[ "$(sed -n 2p "$TMP/serve")" = "$(sed -n 3p "$TMP/serve" | sed 's/^want //')" ]
	ok $? "serve on a port in use names the address and why"
	diag "$TMP/serve"
else
	skip "serve on a port in use: needs python3"
fi
plan $_n
done_testing
