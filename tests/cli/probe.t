#!/bin/bash
# tpctl probe and --probe on the live kernel: uprobes on a function of a test
# program (tests/cli/probe-prog.c) and on libc's getenv, with arguments and
# return values compared with what the program was given (computed here), the
# counts exact; persistent probes; bad input changes nothing; faults (the
# binary deleted or replaced while a stream runs, SIGKILL, two tpctl making
# the same SPEC at once) leave nothing in uprobe_events or dynamic_events; a
# recording with probes reads the same in trace-cmd report and tpctl report.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v jq > /dev/null || skip_all "no jq"
[ -w "$TRACEFS/uprobe_events" ] || skip_all "no uprobe events in this kernel"
${CC:-cc} -O2 -g -o "$TMP/prog" "$TOP/tests/cli/probe-prog.c" || skip_all "cannot build probe-prog.c"
P=$TMP/prog
LIBC=$(ldd "$P" | awk '/libc\.so/ {print $3}')
N=7

# dynamic events that are not another running tpctl's (tpctl_<pid> of a live pid)
probes_now() {
	local l g
	cat "$TRACEFS/dynamic_events" "$TRACEFS/uprobe_events" 2> /dev/null | while read -r l; do
		g=${l#*:}; g=${g%%/*}
		case $g in tpctl_*) [ -d "/proc/${g#tpctl_}" ] && continue ;; esac
		printf '%s\n' "$l"
	done | sort
}
before=$(probes_now; state_digest)
unchanged() { [ "$(probes_now; state_digest)" = "$before" ]; }

# expected values, computed here: arg1=i arg2=3i+1, retval 10i+3i+1
seq 0 $((N - 1)) | awk '{print $1 "\t" 3 * $1 + 1}' > "$TMP/want.args"
seq 0 $((N - 1)) | awk '{print 13 * $1 + 1}' > "$TMP/want.ret"
seq 0 $((N - 1)) | sed 's/^/TPCTL_PROBE_/' > "$TMP/want.env"

# ---- stream: arguments, return values, strings -------------------------------
expect_status "stream --probe u: ur: and getenv -- prog $N" 0 "$TPCTL" stream --json \
	--probe "u:$P:work arg1 arg2" --probe "ur:$P:work retval" \
	--probe "u:$LIBC:getenv name=arg1:string" -- "$P" $N
jq -r 'select(.event == "work") | [.fields.arg1, .fields.arg2] | @tsv' "$TMP/out" > "$TMP/got"
test_cmp "work: exactly $N events with arg1 and arg2" "$TMP/want.args" "$TMP/got"
jq -r 'select(.event == "work__return") | .fields.retval' "$TMP/out" > "$TMP/got"
test_cmp "work__return: $N return values" "$TMP/want.ret" "$TMP/got"
jq -r 'select(.event == "getenv") | .fields.name | select(startswith("TPCTL_PROBE_"))' \
	"$TMP/out" > "$TMP/got"
test_cmp "getenv: the $N names as strings" "$TMP/want.env" "$TMP/got"
jq -r 'select(.type == "event") | .system' "$TMP/out" | sort -u > "$TMP/got"
[ "$(wc -l < "$TMP/got")" -eq 1 ] && grep -qx 'tpctl_[0-9]*' "$TMP/got"
ok $? "the probes of the run are in one group tpctl_<pid>"
unchanged; ok $? "nothing left after the stream"

# ---- count ---------------------------------------------------------------------
expect_status "count --probe --by comm -- prog $N" 0 "$TPCTL" count --json --by comm \
	--engine user --probe "u:$P:work arg1" -- "$P" $N
jq -r '.rows[] | "\(.key.comm) \(.count)"' "$TMP/out" > "$TMP/got"
echo "prog $N" > "$TMP/want"
test_cmp "count --by comm counts $N for prog" "$TMP/want" "$TMP/got"
unchanged; ok $? "nothing left after count"

# ---- record: the file reads the same in trace-cmd report and tpctl report ---------
TC=${TRACE_CMD:-/work/shared/tools/trace-cmd-here}
if [ -x "$TC" ] && command -v python3 > /dev/null; then
	expect_status "record --probe u: ur: and getenv -- prog $N" 0 "$TPCTL" record \
		-o "$TMP/pr.dat" --probe "u:$P:work arg1 arg2" --probe "ur:$P:work retval" \
		--probe "u:$LIBC:getenv name=arg1:string" -- "$P" $N
	(cd "$TMP" && "$TC" report -N pr.dat 2> /dev/null) |
		python3 "$TOP/tests/cli/report-norm.py" > "$TMP/tc.n"
	"$TPCTL" report "$TMP/pr.dat" | python3 "$TOP/tests/cli/report-norm.py" > "$TMP/tp.n"
	[ "$(grep -c ' work: ' "$TMP/tp.n")" = $N ] &&
		[ "$(grep -c ' work__return: ' "$TMP/tp.n")" = $N ] &&
		[ "$(grep -c ' getenv: .* name="TPCTL_PROBE_' "$TMP/tp.n")" = $N ]
	ok $? "tpctl report: $N events of each probe, getenv's strings"; diag "$TMP/tp.n"
	cmp_tracecmd "trace-cmd report shows the same" "$TMP/tc.n" "$TMP/tp.n"
else
	skip "no trace-cmd"; skip "no trace-cmd"; skip "no trace-cmd"
fi

# ---- text: the head of a probe event as the kernel's trace file writes it ---------
"$TPCTL" stream --probe "u:$P:work" --probe "ur:$P:work retval" -- "$P" 1 > "$TMP/pt" 2> /dev/null
ent=$(sed -n 's/.* work: (\(0x[0-9a-f]*\))$/\1/p' "$TMP/pt" | head -1)
grep -Eq " work__return: \(0x[0-9a-f]+ <- $ent\) retval=0x" "$TMP/pt" && [ -n "$ent" ]
ok $? "stream: 'work: (0xFUNC)' and 'work__return: (0xRET <- 0xFUNC)', as the kernel writes them"
diag "$TMP/pt"

# ---- persistent probes ---------------------------------------------------------
expect_status "probe add" 0 "$TPCTL" probe add "u:$P:work" arg1 --name tpctl_test_work
expect_status "probe list --json" 0 "$TPCTL" probe list --json
jq -r '.probes[] | select(.event == "tpctl_test_work") | "\(.system) \(.kind) \(.tpctl)"' \
	"$TMP/out" > "$TMP/got"
echo "tpctl uprobe true" > "$TMP/want"
test_cmp "list: the probe once, a uprobe of tpctl's" "$TMP/want" "$TMP/got"
expect_status "stream tpctl:tpctl_test_work -- prog $N" 0 "$TPCTL" stream --json \
	tpctl:tpctl_test_work -- "$P" $N
[ "$(jq -r 'select(.type == "event") | .fields.arg1' "$TMP/out" | paste -sd' ')" = \
  "$(seq 0 $((N - 1)) | paste -sd' ')" ]
ok $? "the persistent probe is an ordinary event: $N events"
expect_status "probe add of the same name again: exit 1" 1 "$TPCTL" probe add "u:$P:work" \
	--name tpctl_test_work
expect_status "probe remove" 0 "$TPCTL" probe remove tpctl_test_work
unchanged; ok $? "nothing left after probe remove"

# ---- a removal that fails partway puts back what it removed ----------------------
expect_status "probe add a" 0 "$TPCTL" probe add "u:$P:work" arg1 --name tpctl_test_a
expect_status "probe add b" 0 "$TPCTL" probe add "u:$P:work" arg2 --name tpctl_test_b
defs() { grep -E '^[a-z0-9]+:tpctl/tpctl_test_[ab] ' "$TRACEFS/dynamic_events" | sort; }
defs > "$TMP/defs.before"
BUSY=$TRACEFS/instances/probe-t-busy-$$
mkdir "$BUSY" && echo 1 > "$BUSY/events/tpctl/tpctl_test_b/enable"
expect_status "probe remove a b, b enabled: exit 1" 1 "$TPCTL" probe remove tpctl_test_a \
	tpctl_test_b
[ "$(wc -l < "$TMP/err")" -eq 1 ] &&
	grep -qi "^tpctl: probe: cannot remove probe 'tpctl:tpctl_test_b': .*busy.*; nothing removed$" \
	"$TMP/err"
ok $? "one line: the probe, the kernel's reason, nothing removed"
cat "$TMP/err" | diag
defs > "$TMP/defs.after"
test_cmp "tpctl_test_a is back as it was" "$TMP/defs.before" "$TMP/defs.after"
echo 0 > "$BUSY/events/tpctl/tpctl_test_b/enable" && rmdir "$BUSY"
expect_status "probe remove a b" 0 "$TPCTL" probe remove tpctl_test_a tpctl:tpctl_test_b
unchanged; ok $? "nothing left after the removal"

# ---- bad input: exit 2, one line, nothing changed --------------------------------
bad() {
	local name=$1
	shift
	expect_status "$name: exit 2" 2 "$TPCTL" "$@"
	[ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "^tpctl: [a-z]*: " "$TMP/err"
	ok $? "$name: one line"
	[ -s "$TMP/err" ] && head -1 "$TMP/err" | awk '{ print "# " $0 }'
	unchanged; ok $? "$name: nothing changed"
}
bad "unknown symbol" stream --probe "u:$P:wrok" -- true
grep -q "closest: 'work'" "$TMP/err"; ok $? "unknown symbol: names the closest"
bad "not ELF" probe add u:/etc/passwd:main
bad "name with /" probe add "u:$P:work" --name a/b
bad "name with .." probe remove ../x
bad "event probe target with .." stream --probe "e:..:x" -- true
bad "retval on an entry probe" stream --probe "u:$P:work retval" -- true
bad "no such probe" probe remove tpctl:no_such_probe
bad "an offset past the function's end" probe add "u:$LIBC:getenv+99999"
grep -q "past the end of 'getenv'" "$TMP/err"; ok $? "the offset: says it is past the end"
bad "argN at a return probe" probe add "ur:$LIBC:getenv" arg1
expect_status "an offset inside the function: exit 0" 0 "$TPCTL" probe add "u:$LIBC:getenv+8" \
	--name tpctl_test_off
expect_status "and it goes" 0 "$TPCTL" probe remove tpctl_test_off
if [ -e "$TRACEFS/kprobe_events" ]; then
	skip "this kernel has kprobe events"
	skip "this kernel has kprobe events"
	skip "this kernel has kprobe events"
else
	# a kernel without a feature: exit 1 (tpctl(1))
	expect_status "kprobe without kprobe events: exit 1" 1 "$TPCTL" stream --probe k:vfs_read -- true
	[ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "^tpctl: [a-z]*: " "$TMP/err"
	ok $? "kprobe without kprobe events: one line"
	unchanged; ok $? "kprobe without kprobe events: nothing changed"
fi
expect_status "an argument the kernel refuses: exit 2" 2 "$TPCTL" stream \
	--probe "u:$P:work bad=+0(%zz):u32" -- true
head -1 "$TMP/err" | grep -q "^tpctl: stream: the kernel refused probe" &&
	grep -q '^ *\^$' "$TMP/err" && grep -q 'bad=+0(%zz)' "$TMP/err"
ok $? "the kernel's error_log with its caret"
cat "$TMP/err" | diag
unchanged; ok $? "refused argument: nothing changed"

# ---- faults --------------------------------------------------------------------
# the probed binary deleted, then replaced, while the stream runs
for how in delete replace; do
	cp "$P" "$TMP/p2"
	# emptied here: the background stream's own redirection may come after the
	# wait below has read the last round's file (its events) on a loaded machine
	: > "$TMP/out"
	"$TPCTL" stream --json --probe "u:$TMP/p2:work arg1" -- "$TMP/p2" 20 slow \
		> "$TMP/out" 2> "$TMP/err" &
	pid=$!
	# the first event: the program runs the binary (a loaded machine may take long)
	WAIT_TRIES=1200 wait_for "grep -q '\"event\":\"work\"' '$TMP/out'" ||
		echo "no work event in 60 s" >> "$TMP/err"
	if [ $how = delete ]; then rm -f "$TMP/p2"; else cp /bin/true "$TMP/p3" && mv "$TMP/p3" "$TMP/p2"; fi
	wait $pid
	ok $? "binary ${how}d while streaming: exit 0"
	diag "$TMP/err"
	n=$(jq -r 'select(.event == "work") | .fields.arg1' "$TMP/out" | wc -l)
	[ "$n" -eq 20 ]
	ok $? "binary ${how}d: the 20 events of the running program ($n)"
	[ "$n" -eq 20 ] || { diag "$TMP/err"; jq -c 'select(.type != "event")' "$TMP/out" | diag; }
	unchanged; ok $? "binary ${how}d: nothing left"
done

# SIGKILL: the group of the run stays; reset removes it and the instance
cp "$P" "$TMP/p2"
"$TPCTL" stream --probe "u:$TMP/p2:work" -- "$TMP/p2" 1000 slow > /dev/null 2>&1 &
pid=$!
wait_for "grep -q 'tpctl_$pid/' '$TRACEFS/dynamic_events'"
kill -9 $pid
wait $pid 2> /dev/null
for c in $(pgrep -f "^$TMP/p2 1000"); do kill "$c"; done
grep -q "tpctl_$pid/" "$TRACEFS/dynamic_events"; ok $? "SIGKILL leaves the probe of the run"
expect_status "reset after SIGKILL" 0 "$TPCTL" reset
grep -q "removed orphaned probe 'tpctl_$pid:work'" "$TMP/err"; ok $? "reset names the probe"
unchanged; ok $? "reset: nothing left"

# two tpctl making the same SPEC at once: one-run probes do not meet
"$TPCTL" stream --json --probe "u:$P:work arg1" -- "$P" $N > "$TMP/a" 2>&1 &
a=$!
"$TPCTL" stream --json --probe "u:$P:work arg1" -- "$P" $N > "$TMP/b" 2>&1 &
b=$!
wait $a; ra=$?
wait $b; rb=$?
[ $ra -eq 0 ] && [ $rb -eq 0 ] &&
	[ "$(grep -c '"event":"work"' "$TMP/a")" -eq $N ] &&
	[ "$(grep -c '"event":"work"' "$TMP/b")" -eq $N ]
ok $? "two streams of the same SPEC at once: $N events each"
# and two persistent ones of the same name: one is made, the other told
"$TPCTL" probe add "u:$P:work" > /dev/null 2> "$TMP/a" &
a=$!
"$TPCTL" probe add "u:$P:work" > /dev/null 2> "$TMP/b" &
b=$!
wait $a; ra=$?
wait $b; rb=$?
[ $((ra + rb)) -eq 1 ] && grep -qh "already exists" "$TMP/a" "$TMP/b"
ok $? "two probe add of one name at once: one made, one exit 1 (exits $ra $rb)"
"$TPCTL" probe remove work 2> /dev/null
unchanged; ok $? "nothing left at the end"
plan $_n
done_testing
