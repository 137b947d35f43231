#!/bin/bash
# tpctl serve on a host where processes come and go: after 10,000 short-lived
# processes (bench/churn.c: changing names, most ending in exit_group(2),
# every tenth killed inside pause(2), neither syscall ever returning), what
# serve keeps per task is back where it was: tpctl_tasks_tracked and
# tpctl_latency_open_starts within 100 of their values before, the comm
# series still count the processes' syscalls; tracefs clean.  Every wait is
# on a condition (a busy machine only makes it slower).
. "$(dirname "$0")/lib.sh"
need_tracefs
for c in curl python3; do
	command -v $c > /dev/null || skip_all "$c is not installed (make deps installs it)"
done
${CC:-cc} -O2 -o "$TMP/churn" "$TOP/bench/churn.c" 2> /dev/null ||
	skip_all "cannot build bench/churn.c"
plan 9

before=$(state_digest)
N=10000
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT

"$TPCTL" serve --listen "127.0.0.1:$PORT" "count raw_syscalls:sys_enter --by comm" \
	"latency syscall --by comm" > "$TMP/serve.out" 2> "$TMP/serve.err" &
SPID=$!
trap 'kill $SPID 2>/dev/null; wait $SPID 2>/dev/null; _cleanup' EXIT
wait_for "curl -sf -o /dev/null $URL/healthz || ! kill -0 $SPID 2>/dev/null" 400 && kill -0 $SPID
ok $? "serve answers /healthz"
diag "$TMP/serve.err"

# gauges: "TRACKED_COUNT TRACKED_LATENCY OPEN" of the last scrape (none where missing)
scrape() { curl -sf -o "$TMP/m.txt" "$URL/metrics"; }
gauges() {
	sed -n -e 's/^tpctl_tasks_tracked{metric="tpctl_events"} \([0-9]*\)$/a=\1/p' \
		-e 's/^tpctl_tasks_tracked{metric="tpctl_latency_seconds"} \([0-9]*\)$/b=\1/p' \
		-e 's/^tpctl_latency_open_starts{metric="tpctl_latency_seconds"} \([0-9]*\)$/c=\1/p' \
		"$TMP/m.txt" | sort | sed 's/^.=//' | tr '\n' ' '
}
rss() { awk '/^VmRSS/ { print $2 }' /proc/$SPID/status; }
# churn_events: the syscalls counted for the churn processes (their names, or none known)
churn_events() {
	awk '/^tpctl_events_total\{comm="(churn[-0-9]*|<\.\.\.>)"\} / { s += $2 } END { print s + 0 }' \
		"$TMP/m.txt"
}

scrape
grep -q '^# TYPE tpctl_tasks_tracked gauge$' "$TMP/m.txt" &&
	grep -q '^# TYPE tpctl_latency_open_starts gauge$' "$TMP/m.txt" &&
	[ "$(gauges | wc -w)" = 3 ]
ok $? "the gauges are there, with their TYPE"
grep '^tpctl_\(tasks\|latency_open\)' "$TMP/m.txt" | diag

# warm-up: the names' series exist, their first scrape done
"$TMP/churn" 1000 2> /dev/null
wait_for "scrape && [ \$(churn_events) -ge 6000 ]" 600
ok $? "the warm-up's syscalls are counted"
# before: once the warm-up's tasks are forgotten (a look a second), the
# highest of the last scrapes over 2 s that agree within 50; on a machine
# where other processes come and go they never agree: the highest of the
# last ones after 10 s (it holds what the others leave between two looks)
hist=()
settled() {
	local x y z i lo hi
	scrape || return 1
	read -r x y z <<< "$(gauges)"
	hist+=("$x $y $z")
	[ ${#hist[@]} -ge 5 ] || return 1
	hist=("${hist[@]: -5}")
	b1=0 b2=0 b3=0 lo=999999999 hi=0
	for i in "${hist[@]}"; do
		read -r x y z <<< "$i"
		[ "$x" -gt $b1 ] && b1=$x
		[ "$y" -gt $b2 ] && b2=$y
		[ "$z" -gt $b3 ] && b3=$z
		[ "$x" -lt $lo ] && lo=$x
		[ "$x" -gt $hi ] && hi=$x
	done
	[ $((hi - lo)) -le 50 ]
}
WAIT_STEP=0.5 wait_for settled 20 || echo "# the gauges did not settle: ${hist[*]}"
rss0=$(rss)
e0=$(churn_events)
echo "# before: tasks tracked $b1 (count) $b2 (latency), open STARTs $b3, RSS $rss0 kB"

"$TMP/churn" $N 2> "$TMP/churn.err"
ok $? "$N short-lived processes came and went"
# while they ran the gauges grew (the processes were met): tracked then dropped
cond="scrape && read -r x y z <<< \"\$(gauges)\" &&
	[ \$x -le \$((b1 + 100)) ] && [ \$y -le \$((b2 + 100)) ] && [ \$z -le \$((b3 + 100)) ]"
WAIT_STEP=0.2 wait_for "$cond" 300
ok $? "tasks tracked and open STARTs within 100 of before (now: $(gauges))"
grep '^tpctl_\(tasks\|latency_open\)' "$TMP/m.txt" | diag
echo "# after: $(gauges)(count tracked, latency tracked, open STARTs), RSS $(rss) kB"

# their syscalls stay counted under their names once they are gone: at least
# prctl, 4 getppid and the last one of each; every event, unless some were lost
want=$((e0 + N * 6))
lost=$(awk '/^tpctl_lost_events_total\{metric="tpctl_events"\} / { print $2 }' "$TMP/m.txt")
if [ "${lost:-0}" = 0 ]; then
	wait_for "scrape && [ \$(churn_events) -ge $want ]" 300
	ok $? "the churn processes' syscalls are counted: $(churn_events) >= $want"
	n=$(grep -c '^tpctl_events_total{comm="churn-[0-9]*"}' "$TMP/m.txt")
	test_cmp "one series per name: 50" <(echo 50) <(echo "$n")
else
	skip "$lost events lost on this machine: the count cannot be exact"
	skip "$lost events lost on this machine: a name may have lost all its events"
fi

kill -TERM $SPID
wait $SPID
ok $? "serve ends with 0 on TERM"
trap _cleanup EXIT
test_cmp "tracefs as it was" <(echo "$before") <(state_digest)
done_testing
