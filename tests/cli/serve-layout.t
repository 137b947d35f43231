#!/bin/bash
# tpctl serve: every histogram series has the same fixed buckets from the
# first scrape on (latency: 1us to 67.1 s by powers of two; hist: 2^k - 1),
# cumulative, and serve's own threads (HTTP workers, readers) are never
# traced: no syscall of theirs is counted.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v curl > /dev/null || skip_all "no curl"
command -v python3 > /dev/null || skip_all "no python3"
plan 6

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT
"$TPCTL" serve --listen "127.0.0.1:$PORT" "latency syscall --by syscall" \
	"hist raw_syscalls:sys_enter --field id --by comm" "count raw_syscalls:sys_enter --by pid" \
	> /dev/null 2> "$TMP/serve.err" &
SPID=$!
trap 'kill $SPID 2> /dev/null; _cleanup' EXIT
WAIT_TRIES=400 wait_for "curl -sf -o /dev/null $URL/metrics || ! kill -0 $SPID 2> /dev/null"
ok $? "serve answers"
# a read of our own, so that a read series is there on an idle machine too
# (the rows are read from the buffers about once a second)
head -c 1 /dev/zero > /dev/null
WAIT_TRIES=400 wait_for "curl -sf $URL/metrics | grep -q 'syscall=\"read\"'"
curl -sf "$URL/metrics" > "$TMP/m1"
# the first scrape: every latency series has the 27 buckets and +Inf
python3 - "$TMP/m1" > "$TMP/check" <<'PY'
import re, sys
series = {}
for line in open(sys.argv[1]):
    m = re.match(r'^(tpctl_\w+)_bucket\{(.*?),?le="([^"]+)"\} (\d+)$', line)
    if m:
        series.setdefault((m.group(1), m.group(2)), []).append((m.group(3), int(m.group(4))))
errs = []
layouts = {}
for (fam, key), b in series.items():
    layouts.setdefault(fam, set()).add(tuple(le for le, _ in b))
    counts = [c for _, c in b]
    if counts != sorted(counts):
        errs.append("%s{%s}: not cumulative" % (fam, key))
lat = layouts.get("tpctl_latency_seconds", set())
if len(lat) != 1 or len(next(iter(lat))) != 28 or next(iter(lat))[0] != "0.000001" or \
        next(iter(lat))[-2] != "67.108864":
    errs.append("latency layouts %r" % [l[:3] + l[-2:] for l in lat])
hist = layouts.get("tpctl_id", set())
if len(hist) != 1 or len(next(iter(hist))) != 34:
    errs.append("hist layouts %r" % [len(l) for l in hist])
print("%d series" % len(series))
for e in errs:
    print(e)
sys.exit(1 if errs or not series else 0)
PY
ok $? "the first scrape: one layout per family, all its buckets, cumulative"
diag "$TMP/check"
# later scrapes: the same layout whatever came meanwhile
sleep 0.5
curl -sf "$URL/metrics" > "$TMP/m2"
grep -o 'tpctl_latency_seconds_bucket{syscall="read",le="[^"]*"}' "$TMP/m1" > "$TMP/l1"
grep -o 'tpctl_latency_seconds_bucket{syscall="read",le="[^"]*"}' "$TMP/m2" > "$TMP/l2"
[ -s "$TMP/l1" ]
ok $? "a read series is there"
test_cmp "and keeps its buckets" "$TMP/l1" "$TMP/l2"
# serve's own threads: no count of theirs (sys_enter is recorded for the current task only)
for i in 1 2 3 4 5; do curl -sf -o /dev/null "$URL/metrics"; done
curl -sf "$URL/metrics" > "$TMP/m3"
: > "$TMP/self"
for t in $(ls /proc/$SPID/task); do grep "^tpctl_events_total{pid=\"$t\"}" "$TMP/m3" >> "$TMP/self"; done
ok "$([ ! -s "$TMP/self" ] && [ "$(ls /proc/$SPID/task | wc -l)" -gt 1 ]; echo $?)" \
	"none of serve's $(ls /proc/$SPID/task | wc -l) threads is counted"
diag "$TMP/self"
kill -TERM $SPID
wait $SPID
ok $? "serve ends with 0 on SIGTERM"
done_testing
