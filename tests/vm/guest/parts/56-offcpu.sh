# shellcheck shell=sh
# latency offcpu by stack on Debian's 6.1 (sourced by check.sh, see
# tests/vm/README.md; judged by tests/vm/56-offcpu.t): sleep 1's second in
# the stacks through do_nanosleep, all switches out and those in S; none in D
# (prev_state's bits read from this kernel's sched_switch format).
O=$OUT/offcpu
mkdir -p $O
cp $T/events/sched/sched_switch/format $O/sched_switch.format
ls $T/instances >$O/instances_before
step off_folded tpctl latency offcpu --by stack --folded -- sleep 1
step off_state_s tpctl latency offcpu --state S --by stack --folded -- sleep 1
step off_state_d tpctl latency offcpu --state D --by stack --folded -- sleep 1
ls $T/instances >$O/instances_after
