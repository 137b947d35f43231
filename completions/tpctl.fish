# fish completion for tpctl(1)
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Event names come from `tpctl list` itself (with the -i and --tracefs the
# command line already has), instance names from the instances/ directory of
# the tracefs in use.

# The global options typed before the command, to pass on to tpctl.
function __tpctl_global_args
    set -l words (commandline -opc)
    set -e words[1]
    set -l out
    while set -q words[1]
        switch $words[1]
            case -i --instance --tracefs
                set -q words[2]; and set -a out $words[1] $words[2]
                set -e words[1]
            case '--instance=*' '--tracefs=*' '-i?*'
                set -a out $words[1]
            case '-*'
            case '*'
                break
        end
        set -e words[1]
    end
    # not printf: with no words it would still print an empty one
    for o in $out
        echo $o
    end
end

function __tpctl_run
    set -l bin (commandline -opc)[1]
    string match -q '*/*' -- $bin; and test -x $bin; or set bin tpctl
    command $bin (__tpctl_global_args) $argv 2>/dev/null
end

# The command word, or nothing while the global options are being typed.
function __tpctl_command
    set -l words (commandline -opc)
    set -e words[1]
    while set -q words[1]
        switch $words[1]
            case -i --instance --tracefs
                set -e words[1]
            case '-*'
            case '*'
                echo $words[1]
                return 0
        end
        set -e words[1]
    end
    return 1
end

function __tpctl_no_command
    not __tpctl_command >/dev/null
end

function __tpctl_using
    set -l c (__tpctl_command); and test "$c" = $argv[1]
end

# Options come from tpctl itself: `tpctl [COMMAND] --list-options` prints
# "SHORT<TAB>LONG<TAB>ARG<TAB>HELP" lines, from the option table the command
# parses with, and `tpctl --list-commands` "NAME<TAB>SUMMARY" lines.
function __tpctl_optlines
    __tpctl_run $argv --list-options
end

# The options of command $argv[1] (of tpctl itself without one) that take an argument.
function __tpctl_argopts
    for line in (__tpctl_optlines $argv)
        set -l f (string split \t -- $line)
        test -n "$f[3]"; and test "$f[2]" != --; or continue
        test -n "$f[1]"; and echo $f[1]
        echo $f[2]
    end
end

# Candidates for the option word being typed: "-j<TAB>help" and "--json<TAB>help".
function __tpctl_options
    for line in (__tpctl_optlines (__tpctl_command))
        set -l f (string split \t -- $line)
        test -n "$f[1]"; and printf '%s\t%s\n' $f[1] $f[4]
        printf '%s\t%s\n' $f[2] $f[4]
    end
end

# The argument name (FILE, N, ...) of the option just typed, if it takes one.
function __tpctl_prev_arg
    set -l words (commandline -opc)
    set -l prev $words[-1]
    string match -q -- '-*' $prev; or return 1
    for line in (__tpctl_optlines (__tpctl_command))
        set -l f (string split \t -- $line)
        if test -n "$f[3]"; and contains -- $prev $f[1] $f[2]; and test "$f[2]" != --
            echo $f[3]
            return 0
        end
    end
    return 1
end

function __tpctl_typing_option
    string match -q -- '-*' (commandline -ct)
end

# An event, file or field may come here: not an option, nor an option's argument.
function __tpctl_wants_word
    not __tpctl_typing_option; and not __tpctl_prev_arg >/dev/null; and not __tpctl_after_dashdash
end

function __tpctl_after_dashdash
    contains -- -- (commandline -opc)
end

# Words after the command that are neither options nor their arguments.
function __tpctl_positionals
    set -l words (commandline -opc)
    set -l cmd (__tpctl_command)
    set -l argopts (__tpctl_argopts $cmd)
    set -l seen 0
    set -l skip 0
    for w in $words[2..-1]
        if test $seen = 0
            test "$w" = "$cmd"; and set seen 1
            continue
        end
        if test $skip = 1
            set skip 0
            continue
        end
        if contains -- $w $argopts
            set skip 1
        else if not string match -q -- '-*' $w
            echo $w
        end
    end
end

function __tpctl_events
    set -l names (__tpctl_run list)
    for n in $names
        echo $n
    end
    string replace -r ':.*' '' -- $names | sort -u
end

function __tpctl_instances
    set -l dir /sys/kernel/tracing
    set -l g (__tpctl_global_args)
    if set -l i (contains -i -- --tracefs $g)
        set dir $g[(math $i + 1)]
    else if set -l m (string match -r -- '^--tracefs=(.*)' $g)
        set dir $m[2]
    end
    for d in $dir/instances/*/
        basename $d
    end
end

function __tpctl_filter_fields
    set -l pos (__tpctl_positionals)
    set -q pos[1]; or return
    __tpctl_run list --fields -- $pos[1] | string split -n ' ' | tail -n +2
end

function __tpctl_filter_wants_event
    __tpctl_using filter; and test (count (__tpctl_positionals)) -eq 0
end

function __tpctl_filter_wants_expr
    __tpctl_using filter; and test (count (__tpctl_positionals)) -ge 1
end

complete -c tpctl -f

# options, global (before the command) and the command's own
complete -c tpctl -n '__tpctl_typing_option; and not __tpctl_after_dashdash' -a '(__tpctl_options)'
complete -c tpctl -n '__tpctl_no_command; and __tpctl_prev_arg | string match -q NAME' -a '(__tpctl_instances)'
complete -c tpctl -n '__tpctl_prev_arg | string match -qr "^(DIR|PATH)\$"' -a '(__fish_complete_directories)'
complete -c tpctl -n '__tpctl_prev_arg | string match -qr "^(FILE|OUT)\$"' -F
complete -c tpctl -n '__tpctl_prev_arg | string match -q EVENT' -a '(__tpctl_events)'
complete -c tpctl -n '__tpctl_prev_arg | string match -q "PID,..."' -a '(__fish_complete_pids)'
complete -c tpctl -n '__tpctl_prev_arg | string match -q USER' -a '(__fish_complete_users)'
complete -c tpctl -n '__tpctl_prev_arg | string match -q EVENT' -a '(__tpctl_events)'

# commands
complete -c tpctl -n '__tpctl_no_command; and __tpctl_wants_word' -a '(__tpctl_run --list-commands)'

# events for the commands that take them
for c in list format enable disable stream record count hist latency
    complete -c tpctl -n "__tpctl_using $c; and __tpctl_wants_word" -a '(__tpctl_events)'
end
# latency: a recipe instead of START END
complete -c tpctl -n '__tpctl_using latency; and __tpctl_wants_word' \
    -a 'wakeup syscall irq softirq block offcpu sched'


# count and hist: --engine; stream: --read-thread; and the fields of the first event for --field and --by
function __tpctl_first_event_fields
    set -l pos (__tpctl_positionals)
    set -q pos[1]; or return
    __tpctl_run list --fields -- $pos[1] | string split -n ' ' | tail -n +2
end

complete -c tpctl -n '__tpctl_prev_arg | string match -q ENGINE' -a 'kernel user auto'
complete -c tpctl -n '__tpctl_prev_arg | string match -q WHEN' -a 'auto yes no'
complete -c tpctl -n '__tpctl_prev_arg | string match -q "STATE,..."' -a 'S D S,D R' -d state
complete -c tpctl -n '__tpctl_prev_arg | string match -q FIELD' -a '(__tpctl_first_event_fields)' -d field
complete -c tpctl -n '__tpctl_prev_arg | string match -q "KEY,..."' -a 'event comm pid cpu stack' -d key
complete -c tpctl -n '__tpctl_prev_arg | string match -q "KEY,..."' -a '(__tpctl_first_event_fields)' -d field

# probe list | add SPEC [ARG...] | remove NAME...
function __tpctl_probe_wants
    __tpctl_using probe; or return 1
    set -l pos (__tpctl_positionals)
    switch $argv[1]
        case sub
            test (count $pos) -eq 0
        case name
            test "$pos[1]" = remove
        case spec
            test "$pos[1]" = add; and test (count $pos) -eq 1
    end
end

function __tpctl_spec
    set -l cur (commandline -ct)
    if string match -qr '^(u|ur):' -- $cur
        set -l kind (string replace -r ':.*' '' -- $cur)
        for f in (__fish_complete_path (string replace -r '^[a-z]+:' '' -- $cur))
            echo $kind:$f
        end
    else
        printf '%s\n' u: ur: k: kr: e:
    end
end

complete -c tpctl -n '__tpctl_probe_wants sub; and __tpctl_wants_word' -a 'list add remove'
complete -c tpctl -n '__tpctl_probe_wants name; and __tpctl_wants_word' -a '(__tpctl_run probe list | cut -f1)'
complete -c tpctl -n '__tpctl_probe_wants spec; and __tpctl_wants_word' -a '(__tpctl_spec)'
complete -c tpctl -n '__tpctl_prev_arg | string match -q SPEC' -a '(__tpctl_spec)'

# filter EVENT [EXPR | --clear]
complete -c tpctl -n '__tpctl_filter_wants_event; and __tpctl_wants_word' -a '(__tpctl_events)'
complete -c tpctl -n '__tpctl_filter_wants_expr; and __tpctl_wants_word' -a '(__tpctl_filter_fields)' -d field

# ... -- COMMAND ARGS: the command to run
complete -c tpctl -n '__tpctl_after_dashdash' -a '(__fish_complete_command)'

# report FILE [--json] [--cpu LIST] [EVENT...]
function __tpctl_report_wants_file
    __tpctl_using report; and test (count (__tpctl_positionals)) -eq 0
end

function __tpctl_report_wants_event
    __tpctl_using report; and test (count (__tpctl_positionals)) -ge 1
end

complete -c tpctl -n '__tpctl_report_wants_file; and __tpctl_wants_word' -F
complete -c tpctl -n '__tpctl_report_wants_event; and __tpctl_wants_word' -a '(__tpctl_events)'
