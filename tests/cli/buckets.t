#!/bin/bash
# --buckets: a histogram's buckets end at the values given, a value in the
# first one whose end it does not pass (Prometheus' le): hist of dd's read
# sizes (3 reads of 100 bytes, 5 of 1000) against --buckets 100,999,1000;
# latency's durations; serve writes exactly those le, the same set for every
# series, cumulative; bad lists are refused with exit 2 and nothing changed.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v jq > /dev/null || skip_all "no jq"
command -v curl > /dev/null || skip_all "no curl"
command -v python3 > /dev/null || skip_all "no python3"
plan 19

before=$(state_digest)
DD="dd if=/dev/zero of=/dev/null bs=100 count=3 status=none; dd if=/dev/zero of=/dev/null bs=1000 count=5 status=none"

"$TPCTL" hist syscalls:sys_enter_read --field count --filter 'fd == 0' \
	--buckets 100,999,1000 --json -- sh -c "$DD" > "$TMP/h.json" 2> "$TMP/err"
ok $? "hist --buckets 100,999,1000 -- two dd: exit 0"
jq -c 'select(.type == "hist") | .groups[0].buckets' "$TMP/h.json" > "$TMP/got"
echo '[{"min":0,"max":101,"count":3},{"min":101,"max":1000,"count":0},{"min":1000,"max":1001,"count":5}]' \
	> "$TMP/want"
# the empty middle bucket is not in JSON (only buckets with values are)
jq -c 'map(select(.count > 0))' "$TMP/want" > "$TMP/want2"
test_cmp "JSON: [0, 100] holds the 3 reads of 100, (999, 1000] the 5 of 1000" "$TMP/want2" "$TMP/got"
diag "$TMP/err"

"$TPCTL" hist syscalls:sys_enter_read --field count --filter 'fd == 0' \
	--buckets 100,999,1000 -- sh -c "$DD" > "$TMP/h.txt" 2> "$TMP/err"
grep -E '^\[0, 100\] +3 \|@+ *\|$' "$TMP/h.txt" > /dev/null &&
	grep -E '^\(100, 999\] +0 \| +\|$' "$TMP/h.txt" > /dev/null &&
	grep -E '^\(999, 1000\] +5 \|@+\|$' "$TMP/h.txt" > /dev/null
ok $? "text: every bucket from the first to the last that hold values, named by its bounds"
diag "$TMP/h.txt"

"$TPCTL" latency syscall --buckets 1ns,1h --by syscall --json -- sh -c "$DD" \
	> "$TMP/l.json" 2> "$TMP/err"
ok $? "latency syscall --buckets 1ns,1h: exit 0"
# every pair lasts more than 1ns and less than an hour: all in (1ns, 1h]
jq -r 'select(.type == "latency") | .groups[].buckets[] | "\(.min) \(.max)"' "$TMP/l.json" |
	sort -u > "$TMP/got"
echo "2 3600000000001" > "$TMP/want"
test_cmp "latency: every pair in (1ns, 1h], as [2ns, 1h + 1ns) in JSON" "$TMP/want" "$TMP/got"
"$TPCTL" latency syscall --buckets 1ns,1h -- sh -c "$DD" > "$TMP/l.txt" 2> "$TMP/err"
grep -qE '^\(1ns, 3600s\] +[0-9]+ \|@+\|$' "$TMP/l.txt"
ok $? "latency text: '(1ns, 3600s]'"
diag "$TMP/l.txt"

# ---- serve: le exactly the bounds ---------------------------------------------
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$TPCTL" serve --listen "127.0.0.1:$PORT" \
	"hist syscalls:sys_enter_read --field count --filter 'fd == 0' --buckets 100,999,1000 --by comm --name reads" \
	"latency syscall --buckets 10us,1ms,100ms --by comm --name lat" \
	> "$TMP/serve.out" 2> "$TMP/serve.err" &
SPID=$!
wait_for "curl -sf -o /dev/null http://127.0.0.1:$PORT/healthz || ! kill -0 $SPID 2>/dev/null" 400
sh -c "$DD"
sleep 2.5
curl -sf "http://127.0.0.1:$PORT/metrics" > "$TMP/m"
kill -TERM $SPID
wait $SPID
ok $? "serve with two --buckets metrics: exit 0 on TERM"
grep -E '^reads_bucket\{comm="dd",le=' "$TMP/m" | sed -E 's/.*le="([^"]*)"\} /\1 /' > "$TMP/got"
printf '%s\n' "100 3" "999 3" "1000 8" "+Inf 8" > "$TMP/want"
test_cmp "serve hist: le 100, 999, 1000, +Inf, cumulative (3, 3, 8, 8)" "$TMP/want" "$TMP/got"
diag "$TMP/serve.err"
# every latency series has the same le, exactly the bounds in seconds
grep -E '^lat_bucket\{' "$TMP/m" | sed -E 's/^lat_bucket\{(.*),le="([^"]*)"\} .*/\1 \2/' > "$TMP/lb"
n=$(cut -d' ' -f1 "$TMP/lb" | sort -u | wc -l)
bad=$(awk '{ le[$1] = le[$1] " " $2 } END { for (k in le) if (le[k] != " 0.00001 0.001 0.1 +Inf") print k le[k] }' "$TMP/lb")
ok "$([ "$n" -ge 2 ] && [ -z "$bad" ]; echo $?)" \
	"serve latency: $n series, each with le 0.00001 0.001 0.1 +Inf"
diag "$TMP/lb"
# cumulative: never falls with le
bad=$(grep -E '^lat_bucket\{' "$TMP/m" | sed -E 's/^lat_bucket\{(.*),le="[^"]*"\} ([0-9]+)$/\1 \2/' |
	awk '$1 == k && $2 < v { print } { k = $1; v = $2 }')
ok "$([ -z "$bad" ]; echo $?)" "serve latency: every series' counts rise with le"
if command -v promtool > /dev/null; then
	promtool check metrics < "$TMP/m" > "$TMP/pc" 2>&1
	ok $? "promtool check metrics finds nothing wrong"
	diag "$TMP/pc"
else
	skip "no promtool"
fi

# ---- bad lists: exit 2, nothing changed ----------------------------------------
expect_status "bounds that do not ascend: exit 2" 2 "$TPCTL" hist syscalls:sys_enter_read \
	--field count --buckets 10,5
grep -q "tpctl: hist: bucket bounds in '--buckets' must ascend: '5' after '10'" "$TMP/err"
ok $? "the error says which bound"
expect_status "a bound that is no integer: exit 2" 2 "$TPCTL" hist syscalls:sys_enter_read \
	--field count --buckets 10,x
expect_status "a bound that is no duration: exit 2" 2 "$TPCTL" latency syscall --buckets 1ms,2parsecs
grep -q "invalid bucket bound '2parsecs' in '--buckets': a duration" "$TMP/err"
ok $? "the error names the bad bound"
expect_status "--buckets with --linear: exit 2" 2 "$TPCTL" latency syscall --buckets 1ms --linear 1ms
expect_status "--buckets with the recipe sched: exit 2" 2 "$TPCTL" latency sched --buckets 1ms

ok "$([ "$(state_digest)" = "$before" ]; echo $?)" "tracefs as it was"
done_testing
