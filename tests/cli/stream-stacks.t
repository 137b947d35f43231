#!/bin/bash
# Stack traces against the kernel itself.  Two twin instances record kernel and
# user stacks (options/stacktrace, options/userstacktrace) of the same activity;
# the kernel's own `trace` text is the oracle: `tpctl -i X stream --drain` must
# print it byte for byte (every frame, also past the 8 of the format's print
# fmt), and `--json` must carry each stack in the event before it, frame by
# frame the kernel's (tests/cli/stack-oracle.py).  Then tpctl's own --stack
# (the stacktrace trigger, conditioned on --filter) and --user-stack, their
# usage errors, and a signal in the middle: nothing may be left behind.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "no python3"
ORACLE=$TOP/tests/cli/stack-oracle.py
plan 19

events="sched/sched_switch sched/sched_process_fork sched/sched_process_exec
sched/sched_process_exit syscalls/sys_enter_openat syscalls/sys_exit_openat
signal/signal_generate task/task_newtask"

make_instance
A=$INST ADIR=$IDIR
B=$A-json BDIR=$TRACEFS/instances/$B
mkdir "$BDIR" || { echo "Bail out! cannot create $B"; exit 1; }
trap 'echo 0 > "$BDIR/events/enable" 2>/dev/null; rmdir "$BDIR" 2>/dev/null; _cleanup' EXIT
for d in "$ADIR" "$BDIR"; do
	echo 0 > "$d/tracing_on"
	echo 0 > "$d/options/hash-ptr"
	echo 4096 > "$d/buffer_size_kb"
	echo 1 > "$d/options/event-fork"
	echo $$ > "$d/set_event_pid"
	echo 1 > "$d/options/stacktrace"
	echo 1 > "$d/options/userstacktrace"
	for e in $events; do
		echo 1 > "$d/events/$e/enable"
	done
done
echo 1 > "$ADIR/tracing_on"; echo 1 > "$BDIR/tracing_on"
for i in 1 2 3; do
	ls /proc/self/ > /dev/null
	cat /proc/version > /dev/null
	sleep 0.01
	kill -0 $$
	echo "marker $i" > "$ADIR/trace_marker"
	echo "marker $i" > "$BDIR/trace_marker"
done
echo 0 > "$ADIR/tracing_on"; echo 0 > "$BDIR/tracing_on"

# the kernel's text right before ours, as both name tasks from saved_cmdlines,
# which forks of other test suites keep changing (pids are reused quickly here)
before=$(state_digest "$ADIR")
grep -av '^#' "$ADIR/trace" > "$TMP/expect"
"$TPCTL" -i "$A" stream --drain > "$TMP/actual" 2> "$TMP/err"
ok $? "stream --drain of $A (stacks on) exits 0"
[ -s "$TMP/err" ] && diag "$TMP/err"
test_cmp "text is the kernel's trace, stacks included ($(wc -l < "$TMP/expect") lines)" \
	"$TMP/expect" "$TMP/actual"
after=$(state_digest "$ADIR")
ok $([ "$before" = "$after" ]; echo $?) "reading changed nothing"
# the kernel's text must have shown what is tested: stacks of both kinds, one
# longer than the 8 frames the format's print fmt has
awk '/: <stack trace>$/ { k++; n = 0; s = 1; next }
     /: <user stack trace>$/ { u++; s = 2; next }
     /^ => / { if (s == 1 && ++n > max) max = n; if (s == 2) uf++; next }
     { s = 0 }
     END { print k + 0, u + 0, max + 0, uf + 0 }' "$TMP/expect" > "$TMP/counts"
read -r nk nu maxf nuf < "$TMP/counts"
ok $([ "$nk" -ge 10 ] && [ "$nu" -ge 10 ] && [ "$maxf" -gt 8 ] && [ "$nuf" -ge 1 ]; echo $?) \
	"the kernel's text has $nk kernel stacks (longest $maxf frames) and $nu user stacks ($nuf frames)"

grep -av '^#' "$BDIR/trace" > "$TMP/expect-b"
"$TPCTL" -i "$B" stream --drain --json > "$TMP/json" 2> "$TMP/err"
ok $? "stream --drain --json of $B exits 0"
python3 "$ORACLE" --min-stacks 20 "$TMP/expect-b" "$TMP/json" > "$TMP/py" 2>&1
st=$?
ok $st "every stack is in the JSON of its event, frame by frame the kernel's ($(head -1 "$TMP/py"))"
[ $st = 0 ] || diag "$TMP/py"

# tpctl's own stacks.  sched_switch fires all the time; with the filter, a
# trigger without the same condition would add stacks of the events the
# filter drops, which would show up as stacks on their own.  The filter
# keeps the switches out of a shell that waits for a sleep again and again:
# there are such switches on a busy machine and on an idle one (switches out
# of the idle task, pid 0, there are none while every CPU is busy)
sh -c 'while sleep 0.01; do :; done' &
sleeper=$!
"$TPCTL" -v stream sched:sched_switch --filter "prev_pid == $sleeper" --stack --user-stack \
	--json --count 5 > "$TMP/trig" 2> "$TMP/trig.err"
ok $? "stream sched:sched_switch --filter 'prev_pid == PID' --stack --user-stack --json --count 5"
kill $sleeper
wait $sleeper 2> /dev/null
python3 - "$TMP/trig" "$sleeper" > "$TMP/py" 2>&1 <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
# the kernel may record a stack whose event it dropped while tracing_on went
# from 0 to 1 (the kernel's own `trace` shows the same): only before the first event
while objs and objs[0].get("event") == "kernel_stack":
    objs.pop(0)
errs = []
if len(objs) != 5:
    errs.append("%d objects, want 5" % len(objs))
for o in objs:
    if o.get("event") != "sched_switch" or o["fields"].get("prev_pid") != int(sys.argv[2]):
        errs.append("not a filtered sched_switch: %s" % str(o)[:200])
    elif not o.get("stack") or not all(isinstance(f["addr"], int) and f["sym"] for f in o["stack"]):
        errs.append("no kernel stack: %s" % str(o)[:300])
    elif "__schedule" not in [f["sym"] for f in o["stack"]]:
        errs.append("__schedule not in the stack of a switch: %s" % o["stack"])
    elif not o.get("user_stack") or not all(isinstance(f["addr"], int) for f in o["user_stack"]):
        errs.append("the shell waiting in wait4 has no user stack: %s" % o.get("user_stack"))
print("\n".join(errs))
sys.exit(1 if errs else 0)
PY
st=$?
ok $st "each of the 5 events has its kernel stack through __schedule and its user stack, no stack stands alone"
[ $st = 0 ] || diag "$TMP/py"
grep -q "kernel stacks by trigger" "$TMP/trig.err"
ok $? "the kernel's stacktrace trigger is used ($(grep -o 'by [a-z/]*' "$TMP/trig.err"))"

# Text: the last of --count's events still gets its stack.
"$TPCTL" stream sched:sched_switch --stack --count 3 > "$TMP/trig.txt" 2> "$TMP/err"
ok $? "stream sched:sched_switch --stack --count 3"
python3 - "$TMP/trig.txt" > "$TMP/py" 2>&1 <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")[:-1]
percpu = {}	# the CPUs' records interleave in time; a stack follows its event on its CPU
for l in lines:
    if l.startswith(" => "):
        last[1].append(l[4:])
        continue
    m = re.match(r"^.*?\[(\d+)\] \S{5} +\d+\.\d+: (.*)$", l)
    body = m.group(2)
    last = (body if body.startswith("<") else body.split(":")[0], [])
    percpu.setdefault(m.group(1), []).append(last)
ok = True
events = 0
for cpu, recs in percpu.items():
    while recs and recs[0][0] == "<stack trace>":	# see above: only before the first event
        recs.pop(0)
    kinds = [r[0] for r in recs]
    events += kinds.count("sched_switch")
    ok = ok and kinds == ["sched_switch", "<stack trace>"] * (len(kinds) // 2) and \
        all("__schedule" in r[1] for r in recs[1::2])
    print("cpu %s: %s" % (cpu, kinds))
sys.exit(0 if ok and events == 3 else 1)
PY
st=$?
ok $st "three events, each followed by its whole stack"
[ $st = 0 ] || { diag "$TMP/py"; diag "$TMP/trig.txt"; }

# Usage errors change nothing.
before=$(state_digest)
expect_status "--stack without EVENT is a usage error" 2 "$TPCTL" stream --stack --count 1
grep -qx "tpctl: stream: '--stack' needs EVENT arguments (without them nothing is changed)" \
	"$TMP/err"
ok $? "one error line says why"
expect_status "--user-stack with -i is a usage error" 2 "$TPCTL" -i "$A" stream --user-stack
expect_status "record --stack without EVENT is a usage error" 2 "$TPCTL" record -o "$TMP/x.dat" \
	--stack
after=$(state_digest)
ok $([ "$before" = "$after" ]; echo $?) "the usage errors changed nothing"

# A signal while stacks are on: the trigger, the option and the instance go.
"$TPCTL" stream sched:sched_switch --stack --user-stack > /dev/null 2> "$TMP/err" &
pid=$!
for i in $(seq 50); do
	[ -e "$TRACEFS/instances/tpctl-$pid/events/sched/sched_switch/trigger" ] &&
		grep -q '^stacktrace' "$TRACEFS/instances/tpctl-$pid/events/sched/sched_switch/trigger" &&
		break
	sleep 0.1
done
grep -q '^stacktrace' "$TRACEFS/instances/tpctl-$pid/events/sched/sched_switch/trigger" \
	2> /dev/null
ok $? "the private instance tpctl-$pid has the stacktrace trigger while streaming"
kill -TERM $pid
wait $pid
st=$?
ok $([ ! -e "$TRACEFS/instances/tpctl-$pid" ]; echo $?) \
	"after SIGTERM (exit $st) the instance is gone"
after=$(state_digest)
ok $([ "$before" = "$after" ]; echo $?) "and nothing else changed"
done_testing
