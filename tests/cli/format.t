#!/bin/bash
# tpctl format: the kernel's format files are the oracle.
. "$(dirname "$0")/lib.sh"
need_tracefs
plan 10

# name offset size signed, one line per field, straight from a format file
fields_of_format() {
	python3 - "$1" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r'\tfield:(.*);\toffset:(\d+);\tsize:(\d+);\tsigned:(\d+);', line)
    if not m:
        continue
    decl = m.group(1)
    name = re.sub(r'\[.*\]$', '', decl.split()[-1])
    print(name, m.group(2), m.group(3), 'true' if m.group(4) == '1' else 'false')
PY
}

for ev in sched:sched_switch syscalls:sys_enter_openat irq:irq_handler_entry \
	  kmem:kmalloc timer:hrtimer_start sched:sched_process_exec; do
	fields_of_format "$TRACEFS/events/${ev%%:*}/${ev#*:}/format" > "$TMP/expect"
	"$TPCTL" format --json "$ev" |
		jq -r '.events[0].fields[] | "\(.name) \(.offset) \(.size) \(.signed)"' > "$TMP/actual"
	test_cmp "format --json $ev: names, offsets, sizes, signedness" "$TMP/expect" "$TMP/actual"
done

"$TPCTL" format --json sched:sched_switch | jq -r '.events[0].print_fmt' > "$TMP/actual"
sed -n 's/^print fmt: //p' "$TRACEFS/events/sched/sched_switch/format" > "$TMP/expect"
test_cmp "format --json shows the print fmt" "$TMP/expect" "$TMP/actual"

# every event the kernel lists: one document, one entry each
"$TPCTL" format --json '*' > "$TMP/all.json" 2> "$TMP/err"
st=$?
n=$(jq '.events | length' "$TMP/all.json")
[ $st -eq 0 ] && [ "$n" -eq "$(grep -c : "$TRACEFS/available_events")" ]
ok $? "format --json of every event succeeds ($n events)"
echo "# print fmts libtraceevent cannot parse: $(jq '[.events[] | select(.print_fmt_parsed | not)] | length' "$TMP/all.json")"

"$TPCTL" format sched:sched_switch > "$TMP/out"
grep -q '^    prev_pid  *pid_t  *24  *4  signed$' "$TMP/out"
ok $? "text form shows a field line"

expect_status "format without an event is a usage error" 2 "$TPCTL" format
done_testing
