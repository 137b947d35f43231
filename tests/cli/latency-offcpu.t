#!/bin/bash
# tpctl latency offcpu -- COMMAND: the rows are the command's tasks only, never
# tpctl's own (waiting for its child) nor another program's switched with them
# (the kernel's pid filter passes a switch when either side is traced), and a
# switch in the kernel did not record (this host's CPU 1 records no switch out
# of idle) is inferred and said once on stderr.  20 runs of `sleep 1` (about
# 30 s): each one row, sleep, of 1 s +-5 %; 3 more pinned to CPU 1 (taskset,
# whose process then execs sleep), where this host has to infer; one run by
# the stack sleep was switched out in (--by stack --folded).
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v jq > /dev/null || skip_all "jq is not installed (make deps installs it)"
for e in sched/sched_switch sched/sched_wakeup; do
	[ -e "$TRACEFS/events/$e" ] || skip_all "no $e event"
done
RUNS=20
plan 10

before=$(state_digest)
bad=0 other=0 said=0 twice=0 failed=0 figures=
for i in $(seq 1 $RUNS); do
	"$TPCTL" latency offcpu --json -- sleep 1 > "$TMP/out.$i" 2> "$TMP/err.$i" ||
		{ failed=$((failed + 1)); diag "$TMP/err.$i"; }
	row=$(jq -r '[.groups[] | "\(.key.comm):\(.sum)"] | join(" ")' "$TMP/out.$i")
	figures="$figures [$row]"
	case $row in
	sleep:*[!0-9]*|*" "*) bad=$((bad + 1)); other=$((other + 1)); diag "$TMP/out.$i" ;;
	"") bad=$((bad + 1)); diag "$TMP/out.$i" ;;
	sleep:*)
		ns=${row#sleep:}
		[ "$ns" -ge 950000000 ] && [ "$ns" -le 1050000000 ] || { bad=$((bad + 1)); diag "$TMP/out.$i"; } ;;
	*) bad=$((bad + 1)); other=$((other + 1)); diag "$TMP/out.$i" ;;
	esac
	n=$(grep -c 'were inferred' "$TMP/err.$i")
	[ "$n" -gt 0 ] && said=$((said + 1))
	[ "$n" -gt 1 ] && twice=$((twice + 1))
done
echo "# rows (comm:ns) of $RUNS runs:$figures"
[ $other = 0 ]
ok $? "$RUNS runs: no row of another task than the command's ($other had one)"
# a switch in the kernel did not record, and that is not inferred, leaves a run
# without sleep's row or with a short one
[ $bad = 0 ]
ok $? "$RUNS of $RUNS runs: one row, sleep, of 1 s +-5 % ($bad not)"
[ $twice = 0 ]
ok $? "an inferred switch is said once a run ($said runs said it)"
[ $failed = 0 ]
ok $? "no run failed ($failed did)"

# on CPU 1: the sleep's row still 1 s, the rows the command's process's only
pinned=0 pfig=
if [ "$(nproc)" -gt 1 ] && command -v taskset > /dev/null; then
	for i in 1 2 3; do
		"$TPCTL" latency offcpu --json -- taskset -c 1 sleep 1 > "$TMP/out.p$i" \
			2> "$TMP/err.p$i"
		row=$(jq -r '[.groups[] | "\(.key.comm):\(.sum)"] | join(" ")' "$TMP/out.p$i")
		pfig="$pfig [$row]"
		ns=$(jq '[.groups[] | select(.key.comm == "sleep") | .sum] | add // 0' "$TMP/out.p$i")
		others=$(jq '[.groups[] | select(.key.comm != "sleep" and .key.comm != "taskset")] |
			length' "$TMP/out.p$i")
		[ "$ns" -ge 950000000 ] && [ "$ns" -le 1050000000 ] && [ "$others" = 0 ] &&
			[ "$(grep -c 'were inferred' "$TMP/err.p$i")" -le 1 ] ||
			{ pinned=$((pinned + 1)); diag "$TMP/out.p$i" "$TMP/err.p$i"; }
		grep -q 'were inferred' "$TMP/err.p$i" && said=$((said + 1))
	done
	echo "# pinned to CPU 1:$pfig"
	[ $pinned = 0 ]
	ok $? "3 runs on CPU 1: sleep's row of 1 s +-5 %, no row but taskset's and sleep's"
else
	skip "one CPU, or no taskset"
fi

# the wording: what was inferred, on which CPU
if [ $said -gt 0 ]; then
	grep -h 'were inferred' "$TMP"/err.* | head -1 | grep -Eq \
		'^tpctl: latency: warning: [0-9]+ switches in that the kernel did not record were inferred \(CPU [0-9]+: [0-9]+'
	ok $? "... in tpctl's one line, naming the CPU"
else
	skip "this kernel recorded every switch in (nothing to infer)"
fi

# off-CPU time by the stack the task was switched out in: sleep's second is
# in the stacks through do_nanosleep (microseconds, as offcputime -f)
"$TPCTL" latency offcpu --by stack --folded -- sleep 1 > "$TMP/folded" 2> "$TMP/folded.err"
rc=$?
[ $rc = 0 ] && [ -s "$TMP/folded" ] && ! grep -Evq '^[^ ]+ [0-9]+$' "$TMP/folded"
ok $? "--by stack --folded: lines of frames and a weight (exit $rc)"
[ "$_last" = fail ] && diag "$TMP/folded" "$TMP/folded.err"
us=$(awk '/(^|;)do_nanosleep(;| )/ { s += $NF } END { print s + 0 }' "$TMP/folded")
echo "# stacks through do_nanosleep: $us us"
[ "$us" -ge 950000 ] && [ "$us" -le 1050000 ]
ok $? "... the stacks through do_nanosleep weigh 1 s +-5 % ($us us)"
[ "$_last" = fail ] && diag "$TMP/folded" "$TMP/folded.err"

# the picture: in chromium's DOM of the SVG, the frames of do_nanosleep are
# at least 0.8 of the root's width
if [ -n "$CHROMIUM" ]; then
	"$TPCTL" latency offcpu --by stack --flamegraph "$TMP/o.svg" -- sleep 1 2> "$TMP/svg.err"
	dom "$TMP/o.svg" > "$TMP/o.dom"
	share=$(python3 -c '
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
w = {}
for g in d.getElementsByTagName("g"):
    t, r = g.getElementsByTagName("title"), g.getElementsByTagName("rect")
    if t and r:
        name = "".join(n.data for n in t[0].childNodes if n.nodeType == n.TEXT_NODE)
        name = name.rsplit(" (", 1)[0]
        w[name] = w.get(name, 0) + float(r[0].getAttribute("width"))
print("%.3f" % (w.get("do_nanosleep", 0) / w["all"] if w.get("all") else 0))' "$TMP/o.dom")
	python3 -c 'import sys; sys.exit(float(sys.argv[1]) < 0.8)' "${share:-0}"
	ok $? "--flamegraph of sleep 1: do_nanosleep is $share of the width (at least 0.8)"
	[ "$_last" = fail ] && diag "$TMP/svg.err"
else
	skip "chromium is not installed (make deps)"
fi

[ "$(state_digest)" = "$before" ]
ok $? "nothing changed in tracefs"

done_testing
