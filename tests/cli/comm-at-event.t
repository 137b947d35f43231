#!/bin/bash
# Aggregation keys name a task as it was when it traced the event: a chain
# tgen (2 getpid) -> fork -> its child execs "mid" (3 getpid) -> mid execs
# "gen" in the same pid (5 getpid).  count --by comm (one reader, and a
# reader per CPU), latency syscall --by comm and serve give each name
# exactly its own calls: what a pid did before its exec keeps its old name
# (the session enables sched_process_fork/exec and task_rename for that,
# and does not count them).  A rename (prctl) splits a task's calls too.
. "$(dirname "$0")/lib.sh"
need_tracefs
need_tgen
command -v jq > /dev/null || skip_all "no jq"
command -v curl > /dev/null || skip_all "no curl"
command -v python3 > /dev/null || skip_all "no python3"
command -v taskset > /dev/null || skip_all "no taskset"
plan 12

before=$(state_digest)
cp "$G" "$TMP/mid"
cp "$G" "$TMP/gen"
chain=("$G" 2 -- "$TMP/mid" -e 3 -- "$TMP/gen" 5)

# by_name FILE: "NAME COUNT" lines of a count --json's rows, sorted
by_name() {
	jq -r 'select(.type == "count") | .rows[] | "\(.key.comm) \(.count)"' "$1" | sort
}
printf '%s\n' "gen 5" "mid 3" "tgen 2" > "$TMP/want"

"$TPCTL" count syscalls:sys_enter_getpid --by comm --json -- "${chain[@]}" \
	> "$TMP/c.json" 2> "$TMP/err"
ok $? "count --by comm -- tgen 2 -- mid -e 3 -- gen 5: exit 0"
by_name "$TMP/c.json" > "$TMP/got"
test_cmp "each name its own getpid calls (tgen 2, mid 3, gen 5)" "$TMP/want" "$TMP/got"

"$TPCTL" count syscalls:sys_enter_getpid --by comm --json --threads 2 -- "${chain[@]}" \
	> "$TMP/t.json" 2> "$TMP/err"
ok $? "the same with a reader per CPU (--threads 2): exit 0"
# a reader learns names from its own CPU's records: a child's first calls
# on another CPU than its fork may take a later name, never lose a count
got=$(jq -s '[.[] | select(.type == "count") | .rows[].count] | add' "$TMP/t.json")
ok "$([ "$got" = 10 ]; echo $?)" "--threads: all 10 calls counted (got $got)"
jq -r 'select(.type == "count") | .rows[] | .key.comm' "$TMP/t.json" | sort > "$TMP/tn"
printf '%s\n' gen mid tgen > "$TMP/tw"
test_cmp "--threads: under the three names" "$TMP/tw" "$TMP/tn"

# the sched events the session adds for names are not counted
"$TPCTL" count syscalls:sys_enter_getpid sched:sched_process_exec --by event,comm --json \
	-- "${chain[@]}" > "$TMP/e.json" 2> "$TMP/err"
jq -r 'select(.type == "count") | .rows[] | "\(.key.event) \(.key.comm) \(.count)"' \
	"$TMP/e.json" | sort > "$TMP/got"
# (tgen's own exec is before tracing starts: tpctl holds a COMMAND at its exec)
printf '%s\n' "sched:sched_process_exec gen 1" "sched:sched_process_exec mid 1" \
	"syscalls:sys_enter_getpid gen 5" \
	"syscalls:sys_enter_getpid mid 3" "syscalls:sys_enter_getpid tgen 2" > "$TMP/want2"
test_cmp "an exec named as an EVENT is counted once, under the new name; fork unseen" \
	"$TMP/want2" "$TMP/got"

"$TPCTL" latency syscall --by syscall,comm --json -- "${chain[@]}" > "$TMP/l.json" 2> "$TMP/err"
ok $? "latency syscall --by syscall,comm: exit 0"
# getpid's rows per name (the latency keys: syscall, comm)
jq -r 'select(.type == "latency") | .groups[] | select(.key.syscall == "getpid") |
	"\(.key.comm) \(.count)"' "$TMP/l.json" | sort > "$TMP/got"
printf '%s\n' "gen 5" "mid 3" "tgen 2" > "$TMP/want"
test_cmp "latency: each name its own getpid calls" "$TMP/want" "$TMP/got"
diag "$TMP/err"

# a rename: python3 names itself with prctl(PR_SET_NAME) between its calls;
# on one CPU: python3 runs long enough to move between CPUs, and the readers
# merge only what they have read by timestamp (a rename read after a later
# call of the task on another CPU comes too late for it: tpctl-count(1))
"$TPCTL" count syscalls:sys_enter_getpid --by comm --json -- taskset -c 0 python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for i in range(4): os.getpid()
libc.prctl(15, b"renamed", 0, 0, 0)
for i in range(6): os.getpid()
' > "$TMP/r.json" 2> "$TMP/err"
by_name "$TMP/r.json" | grep -E '^(renamed|python3) ' > "$TMP/got"
# python3's own start-up may call getpid too: at least the 4, exactly the 6
awk '$1 == "renamed" && $2 == 6 { r = 1 } $1 == "python3" && $2 >= 4 { p = 1 }
	END { exit !(r && p) }' "$TMP/got"
ok $? "prctl(PR_SET_NAME): 6 calls under the new name, the 4 before under python3"
diag "$TMP/got"

# serve: the same chain between two scrapes
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$TPCTL" serve --listen "127.0.0.1:$PORT" "count syscalls:sys_enter_getpid --by comm" \
	> "$TMP/serve.out" 2> "$TMP/serve.err" &
SPID=$!
wait_for "curl -sf -o /dev/null http://127.0.0.1:$PORT/healthz || ! kill -0 $SPID 2>/dev/null" 400
curl -sf "http://127.0.0.1:$PORT/metrics" > "$TMP/m0"
"${chain[@]}" > /dev/null
# the counts are read from the buffers about once a second
sleep 2.5
curl -sf "http://127.0.0.1:$PORT/metrics" > "$TMP/m1"
kill -TERM $SPID
wait $SPID
ok $? "serve: exit 0 on TERM"
# the three names' series: counts of the chain only (no earlier task had these names)
grep -E '^tpctl_[a-z_]*\{comm="(tgen|mid|gen)"\} ' "$TMP/m1" |
	sed -E 's/^[a-z_]*\{comm="([a-z]*)"\} ([0-9]+).*/\1 \2/' | sort > "$TMP/got"
printf '%s\n' "gen 5" "mid 3" "tgen 2" > "$TMP/want"
test_cmp "serve: each name its own getpid calls" "$TMP/want" "$TMP/got"
diag "$TMP/m1"

ok "$([ "$(state_digest)" = "$before" ]; echo $?)" "tracefs as it was"
done_testing
