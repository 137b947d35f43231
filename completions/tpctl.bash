# bash completion for tpctl(1)                     -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Event names come from `tpctl list` itself (with the -i and --tracefs the
# command line already has), instance names from the instances/ directory of
# the tracefs in use.  Works with and without the bash-completion package:
# the words are taken from COMP_LINE, so "sched:sched_switch" is one word
# whatever COMP_WORDBREAKS says.

# Run tpctl with the global options that choose what it looks at.
_tpctl_run()
{
	local bin=${_tpctl_words[0]}

	# a path the user typed (./tpctl), else whatever tpctl is on PATH
	[[ $bin == */* && -x $bin ]] || bin=tpctl
	"$bin" ${_tpctl_tracefs:+--tracefs "$_tpctl_tracefs"} \
		${_tpctl_instance:+-i "$_tpctl_instance"} "$@" 2>/dev/null
}

# Commands and options come from tpctl itself (`tpctl --list-commands`,
# `tpctl [COMMAND] --list-options`: "SHORT<TAB>LONG<TAB>ARG<TAB>HELP" lines),
# so they are the ones its option tables declare.
_tpctl_commands()
{
	_tpctl_run --list-commands | cut -f1
}

# _tpctl_options [COMMAND]: every option; with "arg", those that take an argument
_tpctl_options()
{
	local want=$2
	# tabs to \x1f first: read merges adjacent tabs (IFS white space), losing an empty SHORT
	_tpctl_run $1 --list-options | tr '\t' '\037' |
		while IFS=$'\037' read -r s l a h; do
			[[ $want == arg && -z $a ]] && continue
			[[ $want == arg && $l == -- ]] && continue
			[[ -n $s ]] && printf '%s\n' "$s"
			printf '%s\n' "$l"
		done
}

# The argument name (FILE, N, ...) the option $2 of command $1 takes.
_tpctl_option_arg()
{
	_tpctl_run $1 --list-options | tr '\t' '\037' |
		while IFS=$'\037' read -r s l a h; do
			if [[ -n $a && ( $2 == "$s" || $2 == "$l" ) ]]; then
				printf '%s\n' "$a"
				break
			fi
		done
}

# Every system:event, and every system on its own.
_tpctl_events()
{
	local names
	names=$(_tpctl_run list)
	printf '%s\n' "$names"
	printf '%s\n' "$names" | sed -n 's/:.*//p' | sort -u
}

_tpctl_instances()
{
	local dir=${_tpctl_tracefs:-/sys/kernel/tracing} d

	[[ -d $dir/instances || -n $_tpctl_tracefs ]] || dir=/sys/kernel/debug/tracing
	for d in "$dir"/instances/*/; do
		[[ -d $d ]] || continue
		d=${d%/}
		printf '%s\n' "${d##*/}"
	done
}

# Fields of one event, for filter expressions.
_tpctl_fields()
{
	_tpctl_run list --fields -- "$1" | sed -n '1s/^[^ ]*//p' | tr ' ' '\n' | sed '/^$/d'
}

# COMPREPLY from a newline-separated word list, matched against cur; with
# ':' in COMP_WORDBREAKS bash replaces only the part after the last colon.
_tpctl_reply()
{
	local IFS=$'\n' w prefix=
	local -a all
	all=($1)
	COMPREPLY=()
	for w in "${all[@]}"; do
		[[ $w == "$_tpctl_cur"* ]] && COMPREPLY+=("$w")
	done
	if [[ $_tpctl_cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
		prefix=${_tpctl_cur%"${_tpctl_cur##*:}"}
		COMPREPLY=("${COMPREPLY[@]#"$prefix"}")
	fi
}

# Probe names as 'tpctl probe list' shows them (SYSTEM:EVENT).
_tpctl_probes()
{
	_tpctl_run probe list | cut -f1
}

# A probe SPEC: its kinds, and after u: or ur: the ELF file's path.
_tpctl_spec()
{
	local kind=${_tpctl_cur%%:*} path IFS=$'\n'
	case $_tpctl_cur in
	u:* | ur:*)
		path=${_tpctl_cur#*:}
		COMPREPLY=($(compgen -f -- "$path"))
		COMPREPLY=("${COMPREPLY[@]/#/$kind:}")
		type compopt &>/dev/null && compopt -o nospace 2>/dev/null
		;;
	*) _tpctl_reply $'u:\nur:\nk:\nkr:\ne:' ;;
	esac
}

# Running processes, for the last entry of a comma-separated pid list.
_tpctl_pids()
{
	local prefix= p
	[[ $_tpctl_cur == *,* ]] && prefix=${_tpctl_cur%,*},
	COMPREPLY=()
	for p in $(ps -eo pid= 2>/dev/null); do
		[[ $prefix$p == "$_tpctl_cur"* ]] && COMPREPLY+=("$prefix$p")
	done
}

_tpctl_files()
{
	local IFS=$'\n'
	type compopt &>/dev/null && compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen "$1" -- "$_tpctl_cur"))
}

_tpctl()
{
	local line=${COMP_LINE:0:COMP_POINT}
	local -a _tpctl_words
	local _tpctl_cur _tpctl_tracefs= _tpctl_instance= cmd= prev w
	local i n cmd_at=0 dashdash=0 npos=0 first_pos=

	read -ra _tpctl_words <<<"$line"
	[[ $line == *[[:space:]] || ${#_tpctl_words[@]} -eq 0 ]] && _tpctl_words+=("")
	n=${#_tpctl_words[@]}
	_tpctl_cur=${_tpctl_words[n - 1]}
	_tpctl_cur=${_tpctl_cur#[\'\"]}
	prev=${_tpctl_words[n - 2]}
	COMPREPLY=()

	# global options up to the command
	for ((i = 1; i < n - 1; i++)); do
		w=${_tpctl_words[i]}
		case $w in
		-i | --instance) _tpctl_instance=${_tpctl_words[i + 1]}; ((i++)) ;;
		--instance=*) _tpctl_instance=${w#*=} ;;
		-i?*) _tpctl_instance=${w#-i} ;;
		--tracefs) _tpctl_tracefs=${_tpctl_words[i + 1]}; ((i++)) ;;
		--tracefs=*) _tpctl_tracefs=${w#*=} ;;
		-*) ;;
		*) cmd=$w; cmd_at=$i; break ;;
		esac
	done
	_tpctl_tracefs=${_tpctl_tracefs/#\~/$HOME}

	if [[ -z $cmd ]]; then
		case $prev in
		-i | --instance) _tpctl_reply "$(_tpctl_instances)"; return ;;
		--tracefs) _tpctl_files -d; return ;;
		esac
		if [[ $_tpctl_cur == -* ]]; then
			_tpctl_reply "$(_tpctl_options)"
		else
			_tpctl_reply "$(_tpctl_commands)"
		fi
		return
	fi

	local argopts
	argopts=" $(_tpctl_options "$cmd" arg | tr '\n' ' ') "

	# the command's own words: count positionals, find "--" (a command to run)
	for ((i = cmd_at + 1; i < n - 1; i++)); do
		w=${_tpctl_words[i]}
		if ((dashdash)); then
			continue
		elif [[ $w == -- ]]; then
			dashdash=$i
		elif [[ $argopts == *" $w "* ]]; then
			((i++))
		elif [[ $w != -* ]]; then
			((npos++))
			[[ -n $first_pos ]] || first_pos=$w
		fi
	done

	if ((dashdash)); then
		# ... -- COMMAND ARGS: a command, then its files
		if ((n - 1 == dashdash + 1)); then
			local IFS=$'\n'
			COMPREPLY=($(compgen -c -- "$_tpctl_cur"))
		else
			_tpctl_files -f
		fi
		return
	fi

	if [[ $argopts == *" $prev "* ]]; then
		case $(_tpctl_option_arg "$cmd" "$prev") in
		FILE | OUT) _tpctl_files -f ;;
		DIR | PATH) _tpctl_files -d ;;
		PID,...) _tpctl_pids ;;
		USER)
			local IFS=$'\n'
			COMPREPLY=($(compgen -u -- "$_tpctl_cur"))
			;;
		ENGINE) _tpctl_reply $'kernel\nuser\nauto' ;;
		WHEN) _tpctl_reply $'auto\nyes\nno' ;;
		# latency --state: sched_switch's prev_state letters (the common ones)
		STATE,...) _tpctl_reply $'S\nD\nS,D\nR' ;;
		SPEC) _tpctl_spec ;;
		# record --stop-on
		EVENT) _tpctl_reply "$(_tpctl_events)" ;;
		# count and hist: the fields of the first event (after the keys of every event)
		FIELD) [[ $first_pos == *:* ]] && _tpctl_reply "$(_tpctl_fields "$first_pos")" ;;
		KEY,...)
			_tpctl_reply "$(printf '%s\n' event comm pid cpu stack
				[[ $first_pos == *:* ]] && _tpctl_fields "$first_pos")"
			;;
		esac
		return
	fi

	if [[ $_tpctl_cur == -* ]]; then
		_tpctl_reply "$(_tpctl_options "$cmd")"
		return
	fi

	case $cmd in
	list | format | enable | disable | stream | record | count | hist)
		_tpctl_reply "$(_tpctl_events)"
		;;
	latency)
		# a recipe, or the START and END events
		_tpctl_reply "$(printf '%s\n' wakeup syscall irq softirq block offcpu sched; _tpctl_events)"
		;;
	probe)
		# list | add SPEC [ARG...] | remove NAME...
		if ((npos == 0)); then
			_tpctl_reply $'list\nadd\nremove'
		elif [[ $first_pos == remove ]]; then
			_tpctl_reply "$(_tpctl_probes)"
		elif [[ $first_pos == add ]] && ((npos == 1)); then
			_tpctl_spec
		fi
		;;
	filter)
		if ((npos == 0)); then
			_tpctl_reply "$(_tpctl_events)"
		elif [[ $first_pos == *:* ]]; then
			_tpctl_reply "$(_tpctl_fields "$first_pos")"
		fi
		;;
	report)
		# FILE, then events to select from it
		if ((npos == 0)); then
			_tpctl_files -f
		else
			_tpctl_reply "$(_tpctl_events)"
		fi
		;;
	esac
}

complete -F _tpctl tpctl
