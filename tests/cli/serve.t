#!/bin/bash
# tpctl serve on the live tracefs (user engine on this host): Debian's real
# prometheus scrapes it and its HTTP API gives back exactly the number of
# getpid() calls a generator made; promtool finds nothing wrong with keys
# holding quotes, backslashes and bytes that are not UTF-8; bad config lines
# are refused naming line and column; 200 scrapers and slow clients do not
# hold a normal scrape, a request not whole within 5 s is cut off; clients
# that reset mid-answer, SIGHUP with a bad and a good config, SIGTERM during
# a scrape; basic auth and TLS; tracefs clean.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile.sh"
need_tracefs
for c in curl python3 prometheus promtool openssl; do
	command -v $c > /dev/null || skip_all "$c is not installed (make deps installs it)"
done
need_tgen
plan 43

before=$(state_digest)
N=2345

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
PORT=$(free_port)
URL=http://127.0.0.1:$PORT

# serve_start ARGS...: tpctl serve in the background (SPID), until /healthz answers
serve_start() {
	"$TPCTL" serve --listen "127.0.0.1:$PORT" "$@" > "$TMP/serve.out" 2> "$TMP/serve.err" &
	SPID=$!
	wait_for "curl -sfk -u u:pw -o /dev/null \$HURL/healthz || ! kill -0 $SPID 2>/dev/null" 400 &&
		kill -0 $SPID
}
HURL=$URL
serve_stop() {
	kill -TERM "$SPID"
	wait "$SPID"
	st=$?
}

# ---- bad input: exit 2, the line and column named, nothing changed -----------
printf 'count syscalls:sys_enter_getpid\n# a comment\n\n  hist syscalls:sys_enter_read --bogus\n' \
	> "$TMP/bad.conf"
expect_status "a bad option in the config: exit 2" 2 "$TPCTL" serve --listen "127.0.0.1:$PORT" \
	--config "$TMP/bad.conf"
grep -q "^tpctl: serve: $TMP/bad.conf:4:32: hist: unknown option '--bogus'" "$TMP/err"
ok $? "the error names the file, line 4 and the column of the bad word, 32"
grep -qx "try 'tpctl hist --help'" "$TMP/err"
ok $? "and points at the metric's command's --help"
diag "$TMP/err"
printf "count 'syscalls:sys_enter_getpid\n" > "$TMP/bad2.conf"
expect_status "an unclosed quote: exit 2" 2 "$TPCTL" serve --config "$TMP/bad2.conf"
grep -q "bad2.conf:1:7: no closing quote" "$TMP/err"
ok $? "the column of the quote"
expect_status "a metric that is no command: exit 2" 2 "$TPCTL" serve "stream sched:sched_switch"
expect_status "an unknown event: exit 2" 2 "$TPCTL" serve --listen "127.0.0.1:$PORT" \
	"count nosuch:event"
expect_status "two metrics of the same name: exit 2" 2 "$TPCTL" serve \
	"count syscalls:sys_enter_getpid" "count syscalls:sys_enter_getppid"
expect_status "a metric with --folded: exit 2" 2 "$TPCTL" serve \
	"count syscalls:sys_enter_getpid --by stack --folded"
grep -q "'--folded' cannot be given to a metric" "$TMP/err"
ok $? "the error names --folded"
expect_status "a metric with --flamegraph: exit 2" 2 "$TPCTL" serve \
	"count syscalls:sys_enter_getpid --by stack --flamegraph $TMP/x.svg"
test ! -e "$TMP/x.svg"
ok $? "and writes no SVG"
chmod 666 "$TMP/bad2.conf"
printf 'count syscalls:sys_enter_getpid\n' > "$TMP/bad2.conf"
expect_status "a world-writable config: refused" 1 "$TPCTL" serve --config "$TMP/bad2.conf"
test_cmp "nothing changed by bad input" <(echo "$before") <(state_digest)

# ---- prometheus scrapes it ---------------------------------------------------
cat > "$TMP/serve.conf" <<EOF
# the generator's getpid() calls, per task
count syscalls:sys_enter_getpid --by pid
latency syscall --by pid   # the syscalls' time, per task
count syscalls:sys_enter_getppid --by comm --name tpctl_getppid_total
EOF
serve_start --config "$TMP/serve.conf"
ok $? "serve answers /healthz"
diag "$TMP/serve.err"
code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/nosuch")
test_cmp "404 for anything else" <(echo 404) <(echo "$code")
curl -s "$URL/" > "$TMP/index.html"
grep -q 'tpctl_events' "$TMP/index.html" && grep -q 'tpctl_latency_seconds' "$TMP/index.html"
ok $? "/ names the metrics"

PPORT=$(free_port)
cat > "$TMP/prom.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: tpctl
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/prom" \
	--web.listen-address="127.0.0.1:$PPORT" > "$TMP/prom.log" 2>&1 &
PROM=$!
trap 'kill $PROM 2>/dev/null; wait $PROM 2>/dev/null; _cleanup' EXIT
wait_for "curl -sf http://127.0.0.1:$PPORT/-/ready > /dev/null" 400
ok $? "prometheus is ready"

# query EXPR: the value of an instant query, empty when there is none
query() {
	curl -s "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")'
}
# a generator that stays until told (its series must exist before its N calls)
mkfifo "$TMP/go"
perl -e '$| = 1; print "$$\n"; <STDIN>; syscall(39) for 1 .. $ARGV[0]; print "done\n"; <STDIN>' \
	$N <> "$TMP/go" > "$TMP/gen.out" &
GJ=$!
wait_for "[ -s '$TMP/gen.out' ]"
GP=$(head -1 "$TMP/gen.out")
SEL="tpctl_events_total{pid=\"$GP\"}"
LSEL="tpctl_latency_seconds_count{pid=\"$GP\"}"
# the series exists once the generator made a syscall: its read of the fifo
wait_for "[ -n \"\$(query '$LSEL')\" ]" 400
ok $? "prometheus has the generator's latency series"
v0=$(query "$SEL")
echo go > "$TMP/go"
wait_for "grep -q done '$TMP/gen.out'" 400
want=$((${v0:-0} + N))
wait_for "[ \"\$(query '$SEL')\" = $want ]" 400
ok $? "prometheus sees $want calls (before: ${v0:-none})"
got=$(query "max_over_time(${SEL}[5m]) - min_over_time(${SEL}[5m])")
if [ -n "$v0" ]; then
	test_cmp "an increase of exactly $N through /api/v1/query" <(echo $N) <(echo "$got")
else
	# no getpid before the go: the series starts at N
	test_cmp "exactly $N through /api/v1/query" <(echo $N) <(query "$SEL")
fi
got=$(query "max_over_time(${LSEL}[5m]) - min_over_time(${LSEL}[5m])")
[ -n "$got" ] && [ "${got%.*}" -ge $N ]
ok $? "latency syscall: _count grew by at least $N (got $got)"
echo > "$TMP/go"
wait $GJ
kill $PROM
wait $PROM 2> /dev/null

# ---- the exposition: promtool, escapes, OpenMetrics --------------------------
# a task whose name holds a quote, a backslash and a byte that is not UTF-8
mkfifo "$TMP/go2"
perl -e '$0 = "q\"b\\s\xffx"; $| = 1; syscall(110) for 1 .. 14; print "x\n"; <STDIN>' \
	<> "$TMP/go2" > "$TMP/gen2.out" &
GJ=$!
wait_for "[ -s '$TMP/gen2.out' ]"
want=$(python3 -c 'import sys
raw = b"q\"b\\s\xffx"
out = ""
for c in raw:
    if c == 0x5c or c == 0x22:
        out += "\\" + chr(c)
    elif c >= 0x80:
        out += "\\\\x%02x" % c
    else:
        out += chr(c)
print("tpctl_getppid_total{comm=\"%s\"} 14" % out)')
# the reader takes a partly filled page after a while: scraped until the
# 14 calls are there (or 10 s have passed)
for i in $(seq 100); do
	curl -s "$URL/metrics" > "$TMP/m.txt"
	grep -Fxq "$want" "$TMP/m.txt" && break
	sleep 0.1
done
echo > "$TMP/go2"
wait $GJ
promtool check metrics < "$TMP/m.txt" > "$TMP/pc" 2>&1
ok $? "promtool check metrics finds nothing wrong"
diag "$TMP/pc"
grep -Fxq "$want" "$TMP/m.txt"
ok $? "the key escaped as the format says, 14 calls"
echo "$want" | diag
curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' -D "$TMP/h" "$URL/metrics" > "$TMP/om.txt"
grep -qi '^content-type: application/openmetrics-text' "$TMP/h" && [ "$(tail -1 "$TMP/om.txt")" = "# EOF" ] &&
	grep -q '^# TYPE tpctl_events counter$' "$TMP/om.txt"
ok $? "OpenMetrics when asked: its type, families without _total, # EOF"
grep -q '^tpctl_metric_info{metric="tpctl_events",engine="user"} 1$' "$TMP/m.txt"
ok $? "tpctl_metric_info names the engine"

# ---- load and faults ---------------------------------------------------------
python3 "$TOP/tests/cli/serve-load.py" $PORT load > "$TMP/load" 2>&1
read -r took st nok nall < "$TMP/load"
# the slow clients must not hold the server: the scrape is answered, while they are
# connected, long before their requests end (how fast is bench/serve.py's question;
# a sanitizer build takes seconds where the normal one takes a fraction of one)
# (serve-load.py: 200 scrapers, 50 and longer waits in the sanitizer build)
bound=10
[ -n "$ASAN_OPTIONS$TSAN_OPTIONS" ] && bound=30
if [ -n "$ASAN_OPTIONS$TSAN_OPTIONS" ]; then
	# the load runs for the sanitizers' sake; how long it takes is not a question there
	# (the normal build, make check, answers both)
	skip "a normal scrape under load: ${took}s, status $st in the sanitizer build"
	skip "every concurrent scrape answered: $nok of $nall in the sanitizer build"
else
	python3 -c "import sys; sys.exit(0 if $took < $bound and $st == 200 else 1)"
	ok $? "concurrent scrapers and 20 slow clients: a normal scrape answered in ${took}s"
	[ "$nok" = "$nall" ] && [ "$nall" = 600 ]
	ok $? "every one of the $nall concurrent scrapes answered ($nok)"
fi
# a request not whole within 5 s (tpctl-serve(1)) closes the connection, however slowly
# its bytes keep coming; 200 such clients do not hold a normal scrape
python3 "$TOP/tests/cli/serve-load.py" $PORT slow > "$TMP/slow" 2>&1
read -r took st ncut first last < "$TMP/slow"
cutmax=8
[ -n "$ASAN_OPTIONS$TSAN_OPTIONS" ] && cutmax=14
python3 -c "import sys; sys.exit(0 if $ncut == 200 and $first >= 4.8 and $last < $cutmax else 1)"
ok $? "200 clients sending a byte a second: all closed 5 s after they connected ($ncut, ${first}s to ${last}s)"
if [ -n "$ASAN_OPTIONS$TSAN_OPTIONS" ]; then
	skip "a normal scrape with 200 slow clients connected: ${took}s, status $st in the sanitizer build"
else
	python3 -c "import sys; sys.exit(0 if $took < 1 and $st == 200 else 1)"
	ok $? "a normal scrape with 200 slow clients connected: answered in ${took}s (under 1 s)"
fi
python3 "$TOP/tests/cli/serve-load.py" $PORT cut > /dev/null 2>&1
code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/metrics")
kill -0 $SPID && [ "$code" = 200 ]
ok $? "50 clients reset mid-answer: serve goes on"

# ---- SIGHUP: a bad config keeps the old one, a good one is taken -------------
cp "$TMP/serve.conf" "$TMP/serve.conf.good"
echo 'count syscalls:sys_enter_getpid --by nosuchkey --name tpctl_x' >> "$TMP/serve.conf"
kill -HUP $SPID
wait_for "grep -q 'old one goes on' '$TMP/serve.err'" 200 &&
	grep -q "nosuchkey" "$TMP/serve.err" && curl -s "$URL/metrics" > "$TMP/m2.txt" &&
	grep -q '^# TYPE tpctl_events_total counter$' "$TMP/m2.txt" && ! grep -q tpctl_x "$TMP/m2.txt"
ok $? "SIGHUP with a key the event lacks: the old config goes on, and says why"
diag "$TMP/serve.err"
{ cat "$TMP/serve.conf.good"; echo 'hist syscalls:sys_enter_read --field count --name tpctl_read_bytes'; } \
	> "$TMP/serve.conf"
kill -HUP $SPID
wait_for "curl -s '$URL/metrics' | grep -q '^tpctl_read_bytes_count [0-9]'" 200
ok $? "SIGHUP with a good config: its new metric is served"

# ---- SIGTERM during a scrape -------------------------------------------------
python3 "$TOP/tests/cli/serve-load.py" $PORT slowread > /dev/null 2>&1 &
LP=$!
sleep 0.5
serve_stop
wait $LP
test_cmp "SIGTERM during a scrape: exit 0" <(echo 0) <(echo $st)
test_cmp "tracefs as before" <(echo "$before") <(state_digest)

# ---- basic auth and TLS ------------------------------------------------------
hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("pw", crypt.mksalt(crypt.METHOD_BLOWFISH)))')
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
	-keyout "$TMP/key.pem" -out "$TMP/cert.pem" > /dev/null 2>&1
chmod 600 "$TMP/key.pem"
cat > "$TMP/web.yml" <<EOF
# as Prometheus's exporter-toolkit reads it
tls_server_config:
  cert_file: $TMP/cert.pem
  key_file: "$TMP/key.pem"
basic_auth_users:
  u: '${hash/\$2b\$/\$2y\$}'
EOF
HURL=https://127.0.0.1:$PORT
serve_start --web-config "$TMP/web.yml" "count syscalls:sys_enter_getpid"
code=$(curl -sk -u u:pw -o /dev/null -w '%{http_code}' "$HURL/metrics")
test_cmp "TLS and the right password (a \$2y\$ bcrypt hash): 200" <(echo 200) <(echo "$code")
for i in 1 2 3; do
	curl -sk -u u:wrong -o /dev/null -w '%{http_code}\n' "$HURL/metrics"
done > "$TMP/codes"
test_cmp "a wrong password: 401, three times" <(printf '401\n401\n401\n') "$TMP/codes"
curl -s -o /dev/null --max-time 3 "http://127.0.0.1:$PORT/metrics"
[ $? -ne 0 ]
ok $? "plain HTTP where TLS is on: refused"
n=$(grep -c 'wrong user or password' "$TMP/serve.err")
test_cmp "the refusals logged once" <(echo 1) <(echo "$n")
diag "$TMP/serve.err"
serve_stop
chmod 666 "$TMP/web.yml"
expect_status "a world-writable web config: refused" 2 "$TPCTL" serve --web-config "$TMP/web.yml" \
	"count syscalls:sys_enter_getpid"

# ---- --max-series: new keys beyond it are dropped and counted ----------------
HURL=$URL
serve_start --max-series 3 "count syscalls:sys_enter_getpid --by pid"
for i in 1 2 3 4 5 6; do perl -e 'syscall(39) for 1 .. 10'; done
# a scrape shows what the reader has taken from the ring buffers so far: wait for the last
# events (at least 3 x 10 dropped), within 10 s
dropped_ge_30() {
	curl -s "$URL/metrics" > "$TMP/m3.txt"
	d=$(sed -n 's/^tpctl_dropped_series_events_total{metric="tpctl_events"} //p' "$TMP/m3.txt")
	[ -n "$d" ] && [ "$d" -ge 30 ]
}
WAIT_STEP=0.25 wait_for dropped_ge_30 40
test_cmp "--max-series 3: three series" <(echo 3) <(grep -c '^tpctl_events_total{' "$TMP/m3.txt")
d=$(sed -n 's/^tpctl_dropped_series_events_total{metric="tpctl_events"} //p' "$TMP/m3.txt")
[ -n "$d" ] && [ "$d" -ge 30 ]
ok $? "the events of the other keys counted as dropped (at least 3 x 10: $d)"
serve_stop
test_cmp "tracefs as before at the end" <(echo "$before") <(state_digest)
done_testing
