#!/bin/bash
# tpctl stream against the kernel itself: in private instances, >= 15 real events
# of varied field kinds, some activity, tracing_on 0, then the kernel's own `trace`
# text is the oracle: `tpctl -i X stream --drain` must print the same lines, byte
# for byte, and `--json` (on a twin instance that saw the same activity) must parse
# and carry the same values (checked with python3).  Reading must change nothing.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "no python3"
plan 7

# Events whose text the kernel prints from the record alone (see
# tests/unit/fixtures/known-text-differences for those it does not).
events="sched/sched_switch sched/sched_wakeup sched/sched_waking sched/sched_process_exec
sched/sched_process_fork sched/sched_process_exit syscalls/sys_enter_openat
syscalls/sys_exit_openat syscalls/sys_enter_read syscalls/sys_exit_read
syscalls/sys_enter_kill timer/hrtimer_expire_entry timer/hrtimer_cancel
irq/irq_handler_entry irq/softirq_entry irq/softirq_raise workqueue/workqueue_queue_work
workqueue/workqueue_execute_start kmem/kmalloc raw_syscalls/sys_enter signal/signal_generate
task/task_newtask task/task_rename"

make_instance
A=$INST ADIR=$IDIR
B=$A-json BDIR=$TRACEFS/instances/$B
mkdir "$BDIR" || { echo "Bail out! cannot create $B"; exit 1; }
trap 'echo 0 > "$BDIR/events/enable" 2>/dev/null; rmdir "$BDIR" 2>/dev/null; _cleanup' EXIT
n=0
for d in "$ADIR" "$BDIR"; do
	echo 0 > "$d/tracing_on"
	echo 0 > "$d/options/hash-ptr"	# real addresses, as tpctl prints them
	echo 2048 > "$d/buffer_size_kb"
	# only this test's processes (and what interrupts them): other engineers'
	# processes could change their comm between the two reads of saved_cmdlines
	echo 1 > "$d/options/event-fork"
	echo $$ > "$d/set_event_pid"
	for e in $events; do
		[ -e "$d/events/$e/enable" ] || continue
		[ "$e" = raw_syscalls/sys_enter ] && echo 'id < 2' > "$d/events/$e/filter"
		echo 1 > "$d/events/$e/enable" && [ "$d" = "$ADIR" ] && n=$((n + 1))
	done
done
ok $([ "$n" -ge 15 ]; echo $?) "$n events enabled in $A (at least 15)"

echo 1 > "$ADIR/tracing_on"; echo 1 > "$BDIR/tracing_on"
for i in 1 2 3; do
	ls /proc/self/ > /dev/null
	cat /proc/version > /dev/null
	sleep 0.01
	kill -0 $$
	taskset -c $((i % 2)) true 2> /dev/null
	echo "marker $i: \"quoted\" tab	end" > "$ADIR/trace_marker"
	echo "marker $i: \"quoted\" tab	end" > "$BDIR/trace_marker"
done
printf 'utf8 \xc3\xa9 bad \xff\n' | tee "$ADIR/trace_marker" > "$BDIR/trace_marker"
echo 0 > "$ADIR/tracing_on"; echo 0 > "$BDIR/tracing_on"

grep -av '^#' "$ADIR/trace" > "$TMP/expect"
before=$(state_digest "$ADIR")
"$TPCTL" -i "$A" stream --drain > "$TMP/actual" 2> "$TMP/err"
st=$?
ok $st "stream --drain of $A exits 0"
[ -s "$TMP/err" ] && diag "$TMP/err"
test_cmp "text is the kernel's trace, line for line ($(wc -l < "$TMP/expect") lines)" \
	"$TMP/expect" "$TMP/actual"
after=$(state_digest "$ADIR")
ok $([ "$before" = "$after" ]; echo $?) "reading without EVENT changed nothing"

# the kernel's text right before ours: both resolve comms from saved_cmdlines,
# which other processes' pids keep replacing
grep -av '^#' "$BDIR/trace" > "$TMP/expect-b"
"$TPCTL" -i "$B" stream --drain --json > "$TMP/json" 2> "$TMP/err"
ok $? "stream --drain --json of $B exits 0"
python3 - "$TMP/json" "$TMP/expect-b" "$TRACEFS/events" > "$TMP/py" 2>&1 <<'PY'
import json, os, re, sys
conv = {}
def conversions(system, event):
    # name=%conv pairs of the event's print fmt: which text values are decimal
    if (system, event) not in conv:
        txt = open(os.path.join(sys.argv[3], system, event, "format")).read()
        pf = re.search(r'^print fmt: "((?:[^"\\]|\\.)*)"', txt, re.M)
        conv[(system, event)] = dict(re.findall(
            r"([A-Za-z_][A-Za-z0-9_]*)=%[-+ #0]*\d*(?:ll|l|h|hh|z)?([duxs])", pf.group(1)))
    return conv[(system, event)]
recs = [json.loads(l) for l in open(sys.argv[1], "rb")]
text = open(sys.argv[2], "rb").read().decode("utf-8", "replace").split("\n")[:-1]
errs = []
if len(recs) != len(text):
    errs.append("%d JSON records, %d kernel lines" % (len(recs), len(text)))
hdr = re.compile(r"^ *(.{1,16}?)-(\d+) +\[(\d{3})\] (\S{5}) +(\d+)\.(\d{6}): (.*)$")
checks = 0
# a task's name as the records so far give it (the name at the event's time,
# which JSON says where the kernel's text has the name saved_cmdlines has now)
names = {}
PAIRS = (("comm", "pid"), ("prev_comm", "prev_pid"), ("next_comm", "next_pid"),
         ("parent_comm", "parent_pid"), ("newcomm", "pid"))
for r, line in zip(recs, text):
    m = hdr.match(line)
    comm, pid, cpu, flags, sec, usec, rest = m.groups()
    f = r.get("fields") or {}
    for c, p in PAIRS:
        if isinstance(f.get(c), str):
            names[f.get(p, r["pid"])] = f[c][:15]
    if r.get("event") == "sched_process_exec" and isinstance(f.get("filename"), str):
        names[r["pid"]] = f["filename"].rsplit("/", 1)[-1][:15]
    us = (r["ts_ns"] + 500) // 1000
    jcomm = comm if r["comm"] == names.get(r["pid"]) else r["comm"]
    got = (jcomm, r["pid"], r["cpu"], r["flags"], us // 1000000, us % 1000000)
    want = (comm, int(pid), int(cpu), flags, int(sec), int(usec))
    checks += 1
    if got != want:
        errs.append("header %r != %r" % (got, want))
    f = r["fields"]
    if rest.startswith(r["event"] + ": "):
        # decimal name=value pairs of the text equal the JSON integers
        cv = conversions(r["system"], r["event"])
        for k, v in re.findall(r"(?:^| )([a-z_]+)=(-?\d+)(?= |$)", rest):
            if k in f and isinstance(f[k], int) and cv.get(k) in ("d", "u"):
                checks += 1
                if int(v) != f[k] and (int(v) - f[k]) % (1 << 32):
                    errs.append("%s: %s=%s, json %r" % (r["event"], k, v, f[k]))
        for k in ("comm", "prev_comm", "next_comm", "filename", "name"):
            if k in f and (" %s=%s " % (k, f[k])) not in " %s " % rest.split(": ", 1)[1]:
                if not re.search(r"\s", f[k]):
                    errs.append("%s: %s=%r not in %r" % (r["event"], k, f[k], rest))
            elif k in f:
                checks += 1
    elif r["system"] == "syscalls" and "(" in rest:
        for k, v in re.findall(r"([a-z_]+): (0x[0-9a-f]+|\d+)", rest):
            checks += 1
            # the text is the 8 bytes stored, JSON the declared type's
            # (an int dfd of 0xffffff9c is -100, a u32 the low half of 8 bytes): a
            # value of 32 bits agrees in the text's low 32 bits
            tv = int(v, 0)
            if not isinstance(f.get(k), int) or (tv - f[k]) % (1 << (32 if -(1 << 31) <= f[k] < 1 << 32 else 64)):
                errs.append("%s: %s=%s json %r" % (r["event"], k, v, f.get(k)))
    elif r["system"] == "syscalls":
        checks += 1
        if int(rest.split(" -> ")[1], 16) != f["ret"] % (1 << 64):
            errs.append("ret %s json %r" % (rest, f["ret"]))
    elif r["system"] == "ftrace":
        checks += 1
        if not rest.endswith(f["buf"].rstrip("\n")):
            errs.append("print %r vs %r" % (f["buf"], rest))
print("checks %d" % checks)
for e in errs[:20]:
    print(e)
sys.exit(1 if errs or checks < len(recs) else 0)
PY
st=$?
ok $st "every JSON line parses and equals the kernel's text ($(head -1 "$TMP/py"))"
[ $st = 0 ] || diag "$TMP/py"
grep -q '"event":"print".*"buf":"utf8 \\u00e9\|"buf":"utf8 é bad \\ufffd\|"buf":"utf8 é bad �' "$TMP/json"
ok $? "a marker with an invalid byte is valid JSON with U+FFFD"
done_testing
