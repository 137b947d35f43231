#!/bin/bash
# README.md's command blocks, run as written: every fenced block with "$ "
# lines (tests/cli/readme-blocks.py reads them) runs in one bash of its own,
# its commands in order, "sudo " dropped, `tpctl` the tree's.  A command
# whose shown output starts with a "tpctl: ..." line must fail with that
# line first on stderr (and the status a following `echo $?` shows); every
# other command must exit 0.  What this kernel cannot do is skipped, saying
# why: a feature is looked for in tracefs, not assumed.  All blocks run in
# one scratch directory that stands for the reader's project: a Makefile
# for `make -j2` to build and tests/ of this tree (perfetto.proto,
# probe-prog.c).  Afterwards the top level of tracefs must be as it was.
. "$(dirname "$0")/lib.sh"
need_tracefs
[ "$TRACEFS" = /sys/kernel/tracing ] ||
	skip_all "README.md's commands act on /sys/kernel/tracing, not $TRACEFS"
command -v jq > /dev/null || skip_all "needs jq"

python3 "$TOP/tests/cli/readme-blocks.py" "$TOP/README.md" > "$TMP/cmds.sh" ||
	skip_all "cannot read the command blocks of README.md"
. "$TMP/cmds.sh"
N=${#C_CMD[@]}
[ "$N" -gt 0 ] || skip_all "no command blocks in README.md"
plan $((N + 2))

# --- what this kernel has -------------------------------------------------
make_instance # where the function tracer is tried, never the top level
has_func=
echo function > "$IDIR/current_tracer" 2> /dev/null && has_func=1
echo nop > "$IDIR/current_tracer" 2> /dev/null
has_graph=
[ -n "$has_func" ] && grep -qw function_graph "$TRACEFS/available_tracers" && has_graph=1
has_hist=
[ -e "$TRACEFS/events/sched/sched_switch/hist" ] && has_hist=1
has_synth=
[ -e "$TRACEFS/synthetic_events" ] && has_synth=1
has_eprobe=
grep -qE ' (eprobe_dyn_event_create|__trace_eprobe_create|eprobe_register)$' /proc/kallsyms &&
	[ -e "$TRACEFS/dynamic_events" ] && has_eprobe=1
has_kprobe=
[ -e "$TRACEFS/kprobe_events" ] && has_kprobe=1
has_uprobe=
[ -e "$TRACEFS/uprobe_events" ] && has_uprobe=1

# why_skip CMD: why this host does not run CMD (nothing: it runs)
why_skip() {
	local c=$1 t
	case $c in
	*instances/demo* | *-i\ demo\ *)
		[ -z "$demo_was" ] ||
			{ echo "an instance 'demo' was there before the test: not the test's to touch"; return; } ;;
	esac
	case $c in
	make | make\ *) echo "not run by the test (make builds or installs)"; return ;;
	esac
	case $c in
	*--strings*)
		[ -n "$has_eprobe" ] && [ -n "$has_synth" ] && [ -n "$has_hist" ] || {
			echo "--strings needs event probes, synthetic events and hist triggers" \
				"(this kernel: eprobes ${has_eprobe:-no}, synthetic_events ${has_synth:-no}," \
				"hist ${has_hist:-no})"
			return
		} ;;
	esac
	case $c in
	*--graph*)
		[ -n "$has_graph" ] || { echo "--graph: this kernel refuses function_graph in an instance"; return; } ;;
	*--function*)
		[ -n "$has_func" ] || { echo "--function: this kernel refuses the function tracer"; return; } ;;
	esac
	case $c in
	*--engine\ kernel* | *--engine=kernel*)
		[ -n "$has_hist" ] || { echo "--engine kernel: no hist triggers in this kernel"; return; } ;;
	esac
	case $c in
	*[\'\ ]k:* | *[\'\ ]kr:*)
		[ -n "$has_kprobe" ] || { echo "kprobes: this kernel has no kprobe_events"; return; } ;;
	esac
	case $c in
	*[\'\ ]e:*)
		[ -n "$has_eprobe" ] || { echo "event probes: this kernel has none (CONFIG_EPROBE_EVENTS)"; return; } ;;
	esac
	case $c in
	*[\'\ ]u:* | *[\'\ ]ur:*)
		[ -n "$has_uprobe" ] || { echo "uprobes: this kernel has no uprobe_events"; return; } ;;
	esac
	case $c in
	*sample-trace*)
		[ -d "$TRACEFS/events/sample-trace" ] ||
			{ echo "sample-trace: the module is not loaded (make vm-demo)"; return; } ;;
	esac
	# a program the command runs that this host lacks
	for t in jq curl protoc trace-cmd pidof; do
		case " $c" in
		*[\ \|\;\&\(]$t\ *) command -v $t > /dev/null || { echo "needs $t"; return; } ;;
		esac
	done
}

# --- the top level before ---------------------------------------------------
# Everything a README command could change there: tracing_on, tracer,
# options, buffer size, event enables, pid lists, filters, triggers,
# dynamic events, instances (lib.sh's own_instances leaves out those of
# other live runs).
top_state() {
	local d=$TRACEFS f
	for f in tracing_on current_tracer trace_options buffer_size_kb set_event \
		set_event_pid set_event_notrace_pid set_ftrace_filter set_ftrace_pid \
		uprobe_events kprobe_events dynamic_events synthetic_events; do
		# (a lockdown makes some of them unreadable to root too)
		[ -r "$d/$f" ] && sed "s|^|$f: |" "$d/$f" 2> /dev/null
	done
	grep -H . "$d"/events/*/*/filter 2> /dev/null | grep -v ':none$'
	grep -H '^[^#]' "$d"/events/*/*/trigger 2> /dev/null
	own_instances | grep -vx "$INST"
}
top_state > "$TMP/before"
demo_was=
[ -e "$TRACEFS/instances/demo" ] && demo_was=1

# --- the reader's project -----------------------------------------------------
W=$TMP/work
mkdir "$W"
ln -s "$TOP/tests" "$W/tests"
cat > "$W/Makefile" << 'EOF'
# a project for README.md's `make -j2`: two objects, built anew each time
.PHONY: all one two
all: one two
one two:
	@echo 'int $@(void) { return 0; }' | cc -c -x c -o /dev/null -
EOF

# put_back: what a block that stopped early may have left (the README's own
# commands undo what they do when they run to the end)
put_back() {
	local l ev
	if [ -z "$demo_was" ] && [ -d "$TRACEFS/instances/demo" ]; then
		echo 0 > "$TRACEFS/instances/demo/events/enable" 2> /dev/null
		rmdir "$TRACEFS/instances/demo" 2> /dev/null
	fi
	for f in uprobe_events kprobe_events dynamic_events; do
		[ -w "$TRACEFS/$f" ] || continue
		grep -vxFf <(grep "^$f: " "$TMP/before" | sed "s/^$f: //") "$TRACEFS/$f" |
			while read -r l; do
				ev=${l%% *}
				ev=${ev#*:}
				echo "-:$ev" >> "$TRACEFS/$f" 2> /dev/null
			done
	done
}
trap 'put_back; _cleanup' EXIT

# --- each block in a bash of its own ------------------------------------------
# run_block B: writes the script of block B's commands (those from $first
# on; a command's status to $TMP/st.I, its output to $TMP/out.I and
# $TMP/err.I, $? kept for the next command) and runs it in $W, bounded.
run_block() {
	local b=$1 i pg
	{
		echo 'cd "$W" || exit 99'
		echo '__keep() { return $1; }'
		for ((i = first; i < N; i++)); do
			[ "${C_BLOCK[i]}" = "$b" ] || continue
			[ -n "${skip[i]}" ] && break
			printf '{ %s\n} > "$TMP/out.%d" 2> "$TMP/err.%d" < /dev/null\n' "${C_CMD[i]}" $i $i
			printf '__rc=$?; echo $__rc > "$TMP/st.%d"; __keep $__rc\n' $i
		done
	} > "$TMP/block.$b.sh"
	TMP=$TMP W=$W PATH="$(dirname "$TPCTL"):$PATH" MAKEFLAGS= MAKELEVEL= MFLAGS= \
		timeout -k 10 -s INT 240 bash "$TMP/block.$b.sh" < /dev/null &
	pg=$!
	wait $pg
	# what the block left running (a command sent to the background): the
	# README ends it; if not, INT, then KILL
	WAIT_TRIES=100 wait_for "! pgrep -g $pg > /dev/null" ||
		{
			echo "# block $b left $(pgrep -g $pg | tr '\n' ' ')running: INT"
			for p in $(pgrep -g $pg); do kill -INT "$p"; done
			WAIT_TRIES=100 wait_for "! pgrep -g $pg > /dev/null" ||
				for p in $(pgrep -g $pg); do kill -KILL "$p"; done
		}
}

# judge I: the TAP line of command I
judge() {
	local i=$1 st what line
	what="README.md:${C_LINE[i]}: $(head -1 <<< "${C_CMD[i]}")"
	if [ -n "${skip[i]}" ]; then
		skip "$what: ${skip[i]}"
		return
	fi
	if [ ! -e "$TMP/st.$i" ]; then
		ok 1 "$what (did not end within the block's time)"
		return
	fi
	st=$(cat "$TMP/st.$i")
	line=$(head -1 "$TMP/err.$i")
	if [ "${C_WANT[i]}" = fail ]; then
		[ "$st" -ne 0 ] && [ "$line" = "${C_ERR[i]}" ]
		ok $? "$what (fails, exit $st, with the README's message)"
	elif [ -n "${C_ERR[i]}" ]; then
		[ "$st" = "${C_WANT[i]}" ] && [ "$line" = "${C_ERR[i]}" ]
		ok $? "$what (exit $st, want ${C_WANT[i]}, with the README's message)"
	elif [ -n "${C_OUT[i]}" ]; then
		[ "$st" = 0 ] && [ "$(head -1 "$TMP/out.$i")" = "${C_OUT[i]}" ]
		ok $? "$what (prints ${C_OUT[i]}: got $(head -1 "$TMP/out.$i"))"
	else
		[ "$st" = "${C_WANT[i]}" ]
		ok $? "$what (exit $st, want ${C_WANT[i]})"
	fi
	if [ "$_last" = fail ]; then
		[ -n "${C_ERR[i]}" ] && echo "wanted on stderr: ${C_ERR[i]}" | diag
		diag "$TMP/err.$i"
	fi
}

declare -a skip
first=0
while [ $first -lt $N ]; do
	b=${C_BLOCK[first]}
	after=
	for ((i = first; i < N; i++)); do
		[ "${C_BLOCK[i]}" = "$b" ] || break
		skip[i]=$(why_skip "${C_CMD[i]}")
		[ -z "${skip[i]}" ] && [ -n "$after" ] && skip[i]="after a skipped command of its block"
		[ -n "${skip[i]}" ] && after=1
	done
	last=$i
	[ -n "${skip[first]}" ] || run_block "$b"
	for ((i = first; i < last; i++)); do judge $i; done
	first=$last
done

# --- nothing left behind --------------------------------------------------------
top_state > "$TMP/after"
test_cmp "the top level of tracefs is as it was (events, filters, triggers, options, probes, instances)" \
	"$TMP/before" "$TMP/after"
left=
[ -z "$demo_was" ] && [ -e "$TRACEFS/instances/demo" ] && left=demo
[ -z "$left" ]
ok $? "the README's instance 'demo' is gone${left:+: left}"
done_testing
