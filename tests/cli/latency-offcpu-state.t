#!/bin/bash
# tpctl latency offcpu --state: only the switches out in the states given.
# sleep sleeps interruptibly (S): its second is there with --state S and
# S,D, gone with --state D (but for a page read at exec).  tests/cli/vfork-prog.c's parent waits 1 s in
# vfork (D) while its child sleeps (S): with --state D the stacks through
# vfork weigh the second and none goes through do_nanosleep, with --state S
# the other way round.  Bad letters, --state beside another recipe and
# --user-stack: exit 2, nothing changed.
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -e "$TRACEFS/events/sched/sched_switch" ] && [ -e "$TRACEFS/events/sched/sched_wakeup" ] ||
	skip_all "no sched_switch or sched_wakeup event"
plan 15

before=$(state_digest)

# usage errors, before tracefs is touched
expect_status "--state Q: no such letter" 2 "$TPCTL" latency offcpu --state Q -- true
grep -q "invalid '--state Q'" "$TMP/err"
ok $? "... the message names the option"
expect_status "--state S,: an empty letter" 2 "$TPCTL" latency offcpu --state S, -- true
expect_status "--state SD: letters are separated by commas" 2 \
	"$TPCTL" latency offcpu --state SD -- true
expect_status "--state on another recipe" 2 "$TPCTL" latency wakeup --state S -- true
grep -q "'--state' is for the recipe 'offcpu'" "$TMP/err"
ok $? "... said so"
expect_status "--user-stack is refused" 2 "$TPCTL" latency offcpu --by stack --user-stack -- true
grep -q "frame pointers" "$TMP/err"
ok $? "... with the reason"
# a letter of older kernels that this one's print fmt lacks: read from the format
if ! grep -q '"K" }' "$TRACEFS/events/sched/sched_switch/format"; then
	expect_status "--state K: a letter this kernel's sched_switch lacks" 2 \
		"$TPCTL" latency offcpu --state S,K -- true
else
	skip "this kernel's sched_switch has a state K"
fi

# sum_of FILE COMM: the nanoseconds of COMM's row
sum_of() { jq "[.groups[] | select(.key.comm == \"$2\") | .sum] | add // 0" "$1"; }

# On a machine fresh from boot, sleep's exec reads /usr/bin/sleep and libc
# from disk, in D: run it once so that its pages are in the page cache, and
# allow --state D a little (under 50 ms) for a page read all the same.
sleep 0

"$TPCTL" latency offcpu --state D --json -- sleep 1 > "$TMP/d.json" 2> "$TMP/d.err"
d=$(sum_of "$TMP/d.json" sleep)
"$TPCTL" latency offcpu --state S --json -- sleep 1 > "$TMP/s.json" 2> "$TMP/s.err"
s=$(sum_of "$TMP/s.json" sleep)
"$TPCTL" latency offcpu --state S,D --json -- sleep 1 > "$TMP/sd.json" 2> "$TMP/sd.err"
sd=$(sum_of "$TMP/sd.json" sleep)
echo "# sleep 1's off-CPU ns: --state D $d, S $s, S,D $sd"
[ "$d" -lt 50000000 ]
ok $? "--state D: no second of sleep, which sleeps in S ($d ns)"
[ "$_last" = fail ] && diag "$TMP/d.json" "$TMP/d.err"
[ "$s" -ge 950000000 ] && [ "$s" -le 1050000000 ]
ok $? "--state S: sleep's row of 1 s +-5 % ($s ns)"
[ "$_last" = fail ] && diag "$TMP/s.json" "$TMP/s.err"
[ "$sd" -ge 950000000 ] && [ "$sd" -le 1050000000 ]
ok $? "--state S,D: sleep's row of 1 s +-5 % ($sd ns)"
[ "$_last" = fail ] && diag "$TMP/sd.json" "$TMP/sd.err"

# the vfork parent's D and its child's S, by stack
if ${CC:-cc} -O2 -o "$TMP/vfork" "$TOP/tests/cli/vfork-prog.c" 2> "$TMP/cc.err"; then
	# through FILE PATTERN: the microseconds of the stacks with a frame matching
	through() { awk -v p="$2" '{ n = split($1, f, ";"); for (i = 1; i <= n; i++)
		if (f[i] ~ p) { s += $NF; break } } END { print s + 0 }' "$1"; }
	"$TPCTL" latency offcpu --state D --by stack --folded -- "$TMP/vfork" > "$TMP/vd" \
		2> "$TMP/vd.err"
	"$TPCTL" latency offcpu --state S --by stack --folded -- "$TMP/vfork" > "$TMP/vs" \
		2> "$TMP/vs.err"
	dv=$(through "$TMP/vd" vfork) dn=$(through "$TMP/vd" '^do_nanosleep$')
	sv=$(through "$TMP/vs" vfork) sn=$(through "$TMP/vs" '^do_nanosleep$')
	echo "# vfork-prog us: --state D vfork $dv nanosleep $dn; S vfork $sv nanosleep $sn"
	[ "$dv" -ge 950000 ] && [ "$dv" -le 1050000 ] && [ "$dn" = 0 ]
	ok $? "--state D: the stacks through vfork weigh 1 s +-5 %, none through do_nanosleep"
	[ "$_last" = fail ] && diag "$TMP/vd" "$TMP/vd.err"
	[ "$sn" -ge 950000 ] && [ "$sn" -le 1050000 ] && [ "$sv" = 0 ]
	ok $? "--state S: the stacks through do_nanosleep weigh 1 s +-5 %, none through vfork"
	[ "$_last" = fail ] && diag "$TMP/vs" "$TMP/vs.err"
else
	diag "$TMP/cc.err"
	skip "cannot build vfork-prog.c"
	skip "cannot build vfork-prog.c"
fi

[ "$(state_digest)" = "$before" ]
ok $? "nothing changed in tracefs"

done_testing
