#!/bin/bash
# tpctl record on the live host, three readers, one truth: a twin instance
# traces the same events around the recording, and its `trace` text (the
# kernel's own) is the oracle for every event of the file.  `trace-cmd report`
# must read the file without error and show the same events as `tpctl report`,
# and `tpctl report --json` must parse and agree with the text.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "no python3"
command -v jq > /dev/null || skip_all "no jq"
TC=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
[ -x "$TC" ] || skip_all "no trace-cmd ($TC)"
NORM=$TOP/tests/cli/report-norm.py
plan 14

# Events whose text the kernel, libtraceevent and trace-cmd print alike.
events="sched:sched_switch sched:sched_wakeup sched:sched_waking sched:sched_process_fork
sched:sched_process_exec sched:sched_process_exit task:task_newtask task:task_rename
irq:softirq_entry irq:softirq_exit signal:signal_generate signal:signal_deliver"
# Events that print kernel addresses (%p, %ps, %pS): the file must carry the
# symbols.  trace-cmd prints pointers its own way, so they are compared with
# the kernel's text only.
events_sym="workqueue:workqueue_queue_work workqueue:workqueue_execute_start kmem:kmalloc
timer:hrtimer_expire_entry"
sym_re='^[^ ]* \[[0-9]*\]( [0-9.]*)? (workqueue_queue_work|workqueue_execute_start|kmalloc|hrtimer_expire_entry):'

make_instance
echo 0 > "$IDIR/tracing_on"
echo 8192 > "$IDIR/buffer_size_kb"
echo 0 > "$IDIR/options/hash-ptr"	# real addresses, as the file has them
for e in $events $events_sym; do echo 1 > "$IDIR/events/${e/://}/enable"; done
echo 1 > "$IDIR/tracing_on"
# -a: every process, as the twin sees them; but record never traces itself
# (set_event_notrace_pid), so the twin leaves out the same pid: tpctl starts
# (exec keeps the pid) once the twin knows it.
mkfifo "$TMP/go"
# shellcheck disable=SC2086
sh -c 'read x < "$1"; shift; exec "$@"' _ "$TMP/go" \
	"$TPCTL" record -o "$TMP/rec.dat" --buffer-kb 8192 -a $events $events_sym -- \
	sh -c 'for i in 1 2 3; do ls / > /dev/null; kill -0 $$; sleep 0.02; done; exec true' \
	> "$TMP/out" 2> "$TMP/err" &
rpid=$!
echo $rpid > "$IDIR/set_event_notrace_pid"
echo go > "$TMP/go"
# record's reader threads (one per CPU) hide themselves the same way: their
# task ids as record's instance lists them, for the oracle below to leave out
# what the twin saw of them (not every thread of the process: a sanitizer's
# runtime has one of its own, which nothing hides)
tids=
for _ in $(seq 200); do
	tids=$(grep -vx "$rpid" "$TRACEFS/instances/tpctl-$rpid/set_event_notrace_pid" \
		2> /dev/null | tr '\n' ' ')
	[ -n "$tids" ] && break
	sleep 0.01
done
wait $rpid
st=$?
echo 0 > "$IDIR/tracing_on"
ok $st "record -a -- COMMAND exits 0"
diag "$TMP/err"
ok $([ ! -d "$TRACEFS/instances/tpctl-$rpid" ]; echo $?) "the private instance is gone"
ok $([ ! -s "$TMP/out" ]; echo $?) "record writes nothing on stdout"

# What the kernel's notrace list hides of tpctl's tasks (rpid and its reader
# threads), by the kernel's rules: a switch when both tasks are listed, a
# wake-up when the waker and the woken are, any other event when its task is.
grep -av '^#' "$IDIR/trace" | python3 -c '
import re, sys
own = set(sys.argv[1:])
for line in sys.stdin:
    m = re.match(r"\s*.*?-(\d+)\s+\[", line)
    cur = m.group(1) if m else None
    m = re.search(r" sched_switch: .* prev_pid=(\d+) .* next_pid=(\d+) ", line)
    w = re.search(r" sched_wak(?:eup|eup_new|ing): comm=.* pid=(\d+) prio=", line)
    if m:
        hide = m.group(1) in own and m.group(2) in own
    elif w:
        hide = cur in own and w.group(1) in own
    else:
        hide = cur in own
    if not hide:
        sys.stdout.write(line)
' "$rpid" $tids > "$TMP/kernel"
(cd "$TMP" && "$TC" report -N rec.dat > tc.txt 2> tc.err)
st=$?
[ $st -eq 0 ] && ! grep -qiv '^cpus=' "$TMP/tc.err"
ok $? "trace-cmd report reads the file without error"
diag "$TMP/tc.err"
"$TPCTL" report "$TMP/rec.dat" > "$TMP/tp.txt" 2> "$TMP/tp.err"
ok $? "tpctl report reads the file"
python3 "$NORM" < "$TMP/tc.txt" | grep -Ev "$sym_re" > "$TMP/tc.n"
python3 "$NORM" < "$TMP/tp.txt" | grep -Ev "$sym_re" > "$TMP/tp.n"
cmp_tracecmd "trace-cmd report and tpctl report show the same events ($(wc -l < "$TMP/tp.n"))" \
	"$TMP/tc.n" "$TMP/tp.n"
[ "$(python3 "$NORM" < "$TMP/tc.txt" | grep -Ec "$sym_re")" = \
	"$(python3 "$NORM" < "$TMP/tp.txt" | grep -Ec "$sym_re")" ] &&
	python3 "$NORM" < "$TMP/tp.txt" | grep -Eq "$sym_re"
ok $? "... and as many events that print addresses ($(python3 "$NORM" < "$TMP/tp.txt" | grep -Ec "$sym_re"))"
grep -q 'sched_process_exec: filename=/usr/bin/ls ' "$TMP/tp.n" &&
	grep -q 'sched_process_exit: comm=ls ' "$TMP/tp.n"
ok $? "the command's own events are in the file"

# The kernel's oracle: the twin instance traced the same events over a longer
# window, so on each CPU the file's events must be exactly a contiguous run
# of the kernel's (same count, same text; task names aside, which the kernel
# resolves when `trace` is read).  Compared as a sliding multiset, since an
# interrupt can nest between the writes of one event to the two buffers.
# An exiting task's last switch: each instance's probe reads the task's exit
# state in turn, and its parent may reap it in between (zombie, then dead):
# the two buffers can say Z and X of the same switch.
python3 "$NORM" --no-ts --no-comm < "$TMP/kernel" |
	sed -E 's/ prev_state=[XZ] / prev_state=X|Z /' > "$TMP/kernel.n"
python3 "$NORM" --no-ts --no-comm < "$TMP/tp.txt" |
	sed -E 's/ prev_state=[XZ] / prev_state=X|Z /' > "$TMP/tp.nc"
python3 - "$TMP/kernel.n" "$TMP/tp.nc" > "$TMP/py" 2>&1 <<'PY'
import collections, re, sys
def per_cpu(path):
    d = collections.defaultdict(list)
    for line in open(path).read().splitlines():
        m = re.search(r"\[(\d+)\]", line)
        d[m.group(1) if m else "?"].append(line)
    return d
k, t = per_cpu(sys.argv[1]), per_cpu(sys.argv[2])
fail = not t
for cpu, tl in sorted(t.items()):
    kl, n = k.get(cpu, []), len(tl)
    want = collections.Counter(tl)
    win = collections.Counter(kl[:n])
    found = win == want
    for i in range(n, len(kl)):
        if found:
            break
        win[kl[i]] += 1
        win[kl[i - n]] -= 1
        if win[kl[i - n]] == 0:
            del win[kl[i - n]]
        found = win == want
    print("cpu %s: %d events in the file, %d in the kernel's trace, run %s" %
          (cpu, n, len(kl), "found" if found else "NOT found"))
    if not found:
        fail = True
        for line in list(want - collections.Counter(kl))[:5]:
            print("  not in the kernel's trace:", line)
            # what the kernel has of the same task on any CPU, to tell why
            m = re.match(r"-(\d+) ", line)
            for c, lines in sorted(k.items()):
                for kline in lines:
                    if m and ("-%s " % m.group(1) in kline or "pid=%s " % m.group(1) in kline):
                        print("    kernel cpu %s: %s" % (c, kline))
sys.exit(1 if fail else 0)
PY
ok $? "each CPU's events are a run of the kernel's own trace, text for text"
diag "$TMP/py"

"$TPCTL" report --cpu 1 "$TMP/rec.dat" > "$TMP/cpu1.txt"
grep -a '^.\{16\}-[0-9]* *\[001\]' "$TMP/tp.txt" > "$TMP/cpu1.expect"
test_cmp "--cpu 1 shows exactly CPU 1's events" "$TMP/cpu1.expect" "$TMP/cpu1.txt"
"$TPCTL" report "$TMP/rec.dat" 'sched:sched_wak*' irq > "$TMP/sel.txt"
grep -aE ' (sched_waking|sched_wakeup|softirq_entry|softirq_exit): ' "$TMP/tp.txt" > "$TMP/sel.expect"
test_cmp "EVENT patterns select exactly those events" "$TMP/sel.expect" "$TMP/sel.txt"

"$TPCTL" report --json "$TMP/rec.dat" > "$TMP/tp.json" 2> "$TMP/err"
ok $? "report --json exits 0"
jq -c . "$TMP/tp.json" > /dev/null 2>&1 &&
	[ "$(jq -s 'length' "$TMP/tp.json")" = "$(wc -l < "$TMP/tp.txt")" ]
ok $? "every JSON line parses, one per text line"
# Timestamp, CPU, pid, event name and every decimal name=%d of the print fmt.
python3 - "$TMP/tp.json" "$TMP/tp.txt" "$TRACEFS/events" > "$TMP/py" 2>&1 <<'PY'
import json, os, re, sys
conv = {}
def split_args(a):
    out, depth, cur = [], 0, ""
    for ch in a:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out
def decimal_fields(system, event):
    # label -> field for "label=%d" whose argument is plainly REC->field
    if (system, event) not in conv:
        txt = open(os.path.join(sys.argv[3], system, event, "format")).read()
        m = re.search(r'^print fmt: "((?:[^"\\]|\\.)*)"(.*)$', txt, re.M)
        fmt, args = m.group(1), split_args(m.group(2).lstrip(", "))
        convs = re.findall(r"(?:([A-Za-z_]\w*)=)?%[-+ #0]*\d*(?:ll|l|h|hh|z)?([a-zA-Z])",
                           fmt.replace("%%", ""))
        d = {}
        for (label, c), arg in zip(convs, args):
            a = re.fullmatch(r"REC->(\w+)", arg)
            if label and c in "dui" and a:
                d[label] = a.group(1)
        conv[(system, event)] = d
    return conv[(system, event)]
js = [json.loads(l) for l in open(sys.argv[1])]
tx = open(sys.argv[2]).read().splitlines()
line_re = re.compile(r"^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d{6}):\s+([^:\s]+):\s?(.*)$")
bad = 0
for j, t in zip(js, tx):
    m = line_re.match(t)
    if j.get("type") != "event" or not m:
        bad += 1
        print("unparsed:", t)
        continue
    us = int(m.group(4)) * 1000000 + int(m.group(5))
    # the kernel rounds nanoseconds to the nearest microsecond
    if (j["pid"], j["cpu"], (j["ts_ns"] + 500) // 1000, j["event"]) != \
       (int(m.group(2)), int(m.group(3)), us, m.group(6)):
        bad += 1
        print("differs:", t, json.dumps(j))
        continue
    dec = decimal_fields(j["system"], j["event"])
    for k, v in re.findall(r"(\w+)=(-?\d+)(?=\s|$)", m.group(7)):
        f = j["fields"].get(dec.get(k))
        if k in dec and f != int(v):
            bad += 1
            print("field %s: text %s json %s" % (k, v, f))
if bad:
    print(bad, "mismatches")
sys.exit(1 if bad or not js else 0)
PY
ok $? "JSON agrees with the text (time, cpu, pid, event, numeric fields)"
diag "$TMP/py"
done_testing
