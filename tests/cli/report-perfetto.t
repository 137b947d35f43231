#!/bin/bash
# tpctl report FILE --perfetto OUT: a recording with typed events (sched,
# task), generic ones (integers, strings, arrays) and atrace lines written to
# the instance's trace_marker, one with stacks and one with lost events, are
# decoded by a protobuf decoder of our own (perfetto-check.py, names from
# perfetto.proto) and must hold exactly what `tpctl report --json` shows of
# the same file.
# protoc parses the files (--decode_raw) and prints them by our minimal
# perfetto.proto, which names every field tpctl writes.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "no python3"
command -v protoc > /dev/null || skip_all "no protoc (Debian protobuf-compiler)"
GEN=$TOP/bench/gen
if [ ! -x "$GEN" ]; then
	cc -O2 -o "$TMP/gen" "$TOP/bench/gen.c" 2> /dev/null || skip_all "cannot build bench/gen"
	GEN=$TMP/gen
fi
PROTO=$TOP/tests/cli/perfetto.proto
check() { python3 "$TOP/tests/cli/perfetto-check.py" "$PROTO" "$@"; }
plan 23

events="sched:sched_switch sched:sched_waking sched:sched_wakeup sched:sched_wakeup_new
sched:sched_process_fork sched:sched_process_exec sched:sched_process_exit
sched:sched_process_free task:task_newtask task:task_rename irq:softirq_entry
signal:signal_generate sock:inet_sock_set_state"
# the command writes atrace lines into the recording's own instance (its
# parent is tpctl) and makes a TCP connection attempt (arrays of address bytes)
# shellcheck disable=SC2016,SC2086
"$TPCTL" record -o "$TMP/rec.dat" $events -- sh -c '
	m=$1/instances/tpctl-$PPID/trace_marker
	echo "B|$$|tpctl-test-slice" > "$m"
	ls / > /dev/null
	echo "C|$$|tpctl-test-counter|42" > "$m"
	python3 -c "import socket; socket.socket().connect_ex((\"127.0.0.1\", 9))"
	echo "E|$$" > "$m"
	kill -0 $$' sh "$TRACEFS" > /dev/null 2> "$TMP/err"
ok $? "record a file with typed, generic and print events"
diag "$TMP/err"
"$TPCTL" report --json "$TMP/rec.dat" > "$TMP/rec.json"

"$TPCTL" report "$TMP/rec.dat" --perfetto "$TMP/rec.pftrace" > "$TMP/out" 2> "$TMP/err"
[ $? = 0 ] && [ ! -s "$TMP/out" ] && [ ! -s "$TMP/err" ] && [ -s "$TMP/rec.pftrace" ]
ok $? "report --perfetto OUT: exit 0, nothing on stdout or stderr, OUT written"
check "$TMP/rec.pftrace" "$TMP/rec.json" --release "$(uname -r)" \
	--allow-dropped sched_process_exit:group_dead > "$TMP/check" 2>&1
ok $? "our decoder finds every record of report --json, same values: $(head -1 "$TMP/check")"
diag "$TMP/check"
read -r _ _ typed _ generic _ < <(tr -d '(,' < "$TMP/check")
[ "${typed:-0}" -gt 0 ] && [ "${generic:-0}" -gt 0 ]
ok $? "both typed ($typed) and generic ($generic) events are in the file"

protoc --decode_raw < "$TMP/rec.pftrace" > "$TMP/raw" 2> "$TMP/err"
ok $? "protoc --decode_raw parses it"
diag "$TMP/err"
protoc --decode=perfetto.protos.Trace -I "$(dirname "$PROTO")" "$PROTO" \
	< "$TMP/rec.pftrace" > "$TMP/txt" 2> "$TMP/err"
ok $? "protoc --decode prints it with tests/cli/perfetto.proto"
diag "$TMP/err"
! grep -qE '^ *[0-9]+( \{|:)' "$TMP/txt"
ok $? "every field it holds is named in perfetto.proto"
grep -E '^ *[0-9]+( \{|:)' "$TMP/txt" | sort | uniq -c | head -5 | diag
for line in 'B|[0-9]*|tpctl-test-slice\\n' 'C|[0-9]*|tpctl-test-counter|42\\n' 'E|[0-9]*\\n'; do
	[ "$(grep -c "^ *buf: \"$line\"\$" "$TMP/txt")" = 1 ]
	ok $? "the atrace line ${line%%|*}| is a print event"
done
grep -q '^ *str_value: "\[127,0,0,1\]"$' "$TMP/txt"
ok $? "an array field (inet_sock_set_state's daddr) is its JSON text"
grep -A4 '^  system_info {' "$TMP/txt" | grep -qx "      release: \"$(uname -r)\""
ok $? "system_info carries the recording kernel's release"

"$TPCTL" report "$TMP/rec.dat" --perfetto - > "$TMP/stdout.pftrace"
cmp -s "$TMP/rec.pftrace" "$TMP/stdout.pftrace"
ok $? "--perfetto - writes the same to standard output"

# the selection of report applies: only sched_switch of CPU 0
"$TPCTL" report --json --cpu 0 "$TMP/rec.dat" sched:sched_switch > "$TMP/sel.json"
"$TPCTL" report --cpu 0 "$TMP/rec.dat" sched:sched_switch --perfetto "$TMP/sel.pftrace"
check "$TMP/sel.pftrace" "$TMP/sel.json" > "$TMP/check" 2>&1 &&
	[ "$(wc -l < "$TMP/sel.json")" -gt 0 ]
ok $? "--cpu and EVENT select the same records: $(head -1 "$TMP/check")"
diag "$TMP/check"

# stacks: report --json puts them inside their event, the Perfetto file has
# them as kernel_stack/user_stack events with their frames
"$TPCTL" record -o "$TMP/stack.dat" --stack --user-stack sched:sched_switch -- \
	sh -c 'ls / > /dev/null; sleep 0.05' > /dev/null 2> "$TMP/err"
"$TPCTL" report --json "$TMP/stack.dat" > "$TMP/stack.json"
"$TPCTL" report "$TMP/stack.dat" --perfetto "$TMP/stack.pftrace"
check "$TMP/stack.pftrace" "$TMP/stack.json" > "$TMP/check" 2>&1 &&
	grep -q '"stack":\[{' "$TMP/stack.json"
ok $? "kernel and user stacks are events with the same frames: $(head -1 "$TMP/check")"
diag "$TMP/check"

# lost events: the recorder stopped while a generator fills a tiny buffer
python3 - "$TPCTL" "$GEN" "$TMP/loss.dat" "$TRACEFS" > "$TMP/py" 2>&1 <<'PY'
import os, signal, subprocess, sys, time
tpctl, gen_path, out, tracefs = sys.argv[1:5]
gen = subprocess.Popen([gen_path, "100000"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       text=True)
pid = int(gen.stdout.readline())
rec = subprocess.Popen([tpctl, "record", "-o", out, "--buffer-kb", "16",
                        "--filter", "common_pid == %d" % pid, "syscalls:sys_enter_getpid"],
                       stderr=subprocess.DEVNULL)
# tracing_on is switched on once the event is enabled: wait for both
inst = os.path.join(tracefs, "instances", "tpctl-%d" % rec.pid)
on = os.path.join(inst, "tracing_on")
enable = os.path.join(inst, "events", "syscalls", "sys_enter_getpid", "enable")
end = time.time() + 60
while time.time() < end:
    try:
        if open(enable).read().strip() == "1" and open(on).read().strip() == "1":
            break
    except OSError:
        pass
    time.sleep(0.02)
os.kill(rec.pid, signal.SIGSTOP)
gen.stdin.write("go\n")
gen.stdin.flush()
gen.stdout.readline()
gen.wait()
os.kill(rec.pid, signal.SIGCONT)
time.sleep(0.2)
os.kill(rec.pid, signal.SIGINT)
sys.exit(rec.wait())
PY
ok $? "record a file with lost events"
diag "$TMP/py"
"$TPCTL" report --json "$TMP/loss.dat" > "$TMP/loss.json"
"$TPCTL" report "$TMP/loss.dat" --perfetto "$TMP/loss.pftrace"
check "$TMP/loss.pftrace" "$TMP/loss.json" > "$TMP/check" 2>&1 &&
	grep -q '^{"type":"lost"' "$TMP/loss.json"
ok $? "lost events are marked on the bundle that follows them: $(head -1 "$TMP/check")"
diag "$TMP/check"

expect_status "--json with --perfetto: usage error" 2 \
	"$TPCTL" report --json "$TMP/rec.dat" --perfetto "$TMP/x.pftrace"
[ "$(wc -l < "$TMP/err")" = 1 ] && grep -q "^tpctl: report: '--json' and '--perfetto'" "$TMP/err"
ok $? "... with one line saying so"
expect_status "--perfetto to a full device: exit 1" 1 \
	"$TPCTL" report "$TMP/rec.dat" --perfetto /dev/full
[ "$(wc -l < "$TMP/err")" = 1 ] &&
	grep -q "^tpctl: report: cannot write '/dev/full': No space left on device" "$TMP/err"
ok $? "... with one line saying why"
sum=$(md5sum < "$TMP/rec.dat")
expect_status "OUT is the file being read: exit 1" 1 \
	"$TPCTL" report "$TMP/rec.dat" --perfetto "$TMP/../${TMP##*/}/rec.dat"
[ "$(md5sum < "$TMP/rec.dat")" = "$sum" ]
ok $? "... and the file is left as it was"
done_testing
