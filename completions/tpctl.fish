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

# Words after the command that are neither options nor their arguments.
function __tpctl_positionals
    set -l words (commandline -opc)
    set -l cmd (__tpctl_command)
    set -l argopts
    switch "$cmd"
        case enable
            set argopts -f --filter
        case stream
            set argopts -f --filter -c --count -d --duration -C --cpu -b --buffer-kb
        case record
            set argopts -o --output -f --filter -d --duration -b --buffer-kb
        case report
            set argopts -c --cpu
    end
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

# global options, before the command
complete -c tpctl -n __tpctl_no_command -s i -l instance -x -a '(__tpctl_instances)' -d 'Act on the tracefs instance NAME'
complete -c tpctl -n __tpctl_no_command -l tracefs -x -a '(__fish_complete_directories)' -d 'Use the tracefs mounted at DIR'
complete -c tpctl -n __tpctl_no_command -s v -l verbose -d 'Say more on stderr'
complete -c tpctl -n __tpctl_no_command -s q -l quiet -d 'No warnings or notes on stderr'
complete -c tpctl -n __tpctl_no_command -s h -l help -d 'Show the help'
complete -c tpctl -n __tpctl_no_command -s V -l version -d 'Show the version'

# commands
complete -c tpctl -n __tpctl_no_command -a list -d 'List events'
complete -c tpctl -n __tpctl_no_command -a format -d 'Show fields and print format of events'
complete -c tpctl -n __tpctl_no_command -a enable -d 'Enable events'
complete -c tpctl -n __tpctl_no_command -a disable -d 'Disable events'
complete -c tpctl -n __tpctl_no_command -a filter -d 'Show, set or clear event filters'
complete -c tpctl -n __tpctl_no_command -a status -d 'Show enabled events, buffers, loss counters'
complete -c tpctl -n __tpctl_no_command -a stream -d 'Decode live events'
complete -c tpctl -n __tpctl_no_command -a record -d 'Record events into a trace.dat file'
complete -c tpctl -n __tpctl_no_command -a report -d 'Decode a trace.dat file'
complete -c tpctl -n __tpctl_no_command -a reset -d 'Disable what tpctl can see enabled'

# list [PATTERN...] [--json] [--fields]
complete -c tpctl -n '__tpctl_using list' -a '(__tpctl_events)'
complete -c tpctl -n '__tpctl_using list' -s j -l json -d 'One JSON document'
complete -c tpctl -n '__tpctl_using list' -s f -l fields -d 'Also show each event\'s fields'
complete -c tpctl -n '__tpctl_using list' -s h -l help -d 'Show the help'

# format EVENT... [--json]
complete -c tpctl -n '__tpctl_using format' -a '(__tpctl_events)'
complete -c tpctl -n '__tpctl_using format' -s j -l json -d 'One JSON document'
complete -c tpctl -n '__tpctl_using format' -s h -l help -d 'Show the help'

# enable EVENT... [--filter EXPR]
complete -c tpctl -n '__tpctl_using enable' -a '(__tpctl_events)'
complete -c tpctl -n '__tpctl_using enable' -s f -l filter -x -d 'Also set this filter'
complete -c tpctl -n '__tpctl_using enable' -s h -l help -d 'Show the help'

# disable EVENT... | --all
complete -c tpctl -n '__tpctl_using disable' -a '(__tpctl_events)'
complete -c tpctl -n '__tpctl_using disable' -s a -l all -d 'Disable every enabled event'
complete -c tpctl -n '__tpctl_using disable' -s h -l help -d 'Show the help'

# filter EVENT [EXPR | --clear]
complete -c tpctl -n __tpctl_filter_wants_event -a '(__tpctl_events)'
complete -c tpctl -n __tpctl_filter_wants_expr -a '(__tpctl_filter_fields)' -d field
complete -c tpctl -n '__tpctl_using filter' -s c -l clear -d 'Remove the filter'
complete -c tpctl -n '__tpctl_using filter' -s h -l help -d 'Show the help'

# status [--json]
complete -c tpctl -n '__tpctl_using status' -s j -l json -d 'One JSON document'
complete -c tpctl -n '__tpctl_using status' -s h -l help -d 'Show the help'

# reset
complete -c tpctl -n '__tpctl_using reset' -s h -l help -d 'Show the help'

# stream [EVENT...] [--json] [--filter EXPR] [--count N] [--duration SEC] [--cpu LIST]
#        [--drain] [--fail-on-loss] [--buffer-kb N]
complete -c tpctl -n '__tpctl_using stream' -a '(__tpctl_events)'
complete -c tpctl -n '__tpctl_using stream' -s j -l json -d 'NDJSON output'
complete -c tpctl -n '__tpctl_using stream' -s f -l filter -x -d 'Filter for the events'
complete -c tpctl -n '__tpctl_using stream' -s c -l count -x -d 'Stop after N events'
complete -c tpctl -n '__tpctl_using stream' -s d -l duration -x -d 'Stop after SEC seconds'
complete -c tpctl -n '__tpctl_using stream' -s C -l cpu -x -d 'Only these CPUs (LIST)'
complete -c tpctl -n '__tpctl_using stream' -s D -l drain -d 'Stop when the buffered data is read'
complete -c tpctl -n '__tpctl_using stream' -s L -l fail-on-loss -d 'Exit 1 if events were lost'
complete -c tpctl -n '__tpctl_using stream' -s b -l buffer-kb -x -d 'Per-CPU buffer size in KiB'
complete -c tpctl -n '__tpctl_using stream' -s h -l help -d 'Show the help'

# record -o FILE [EVENT...] [--filter EXPR] [--duration SEC] [--buffer-kb N] [-- COMMAND...]
complete -c tpctl -n '__tpctl_using record; and not contains -- -- (commandline -opc)' -a '(__tpctl_events)'
complete -c tpctl -n '__tpctl_using record; and contains -- -- (commandline -opc)' -a '(__fish_complete_command)'
complete -c tpctl -n '__tpctl_using record' -s o -l output -r -F -d 'The trace.dat file to write'
complete -c tpctl -n '__tpctl_using record' -s f -l filter -x -d 'Filter for the events'
complete -c tpctl -n '__tpctl_using record' -s d -l duration -x -d 'Stop after SEC seconds'
complete -c tpctl -n '__tpctl_using record' -s b -l buffer-kb -x -d 'Per-CPU buffer size in KiB'
complete -c tpctl -n '__tpctl_using record' -s h -l help -d 'Show the help'

# report FILE [--json] [--cpu LIST] [EVENT...]
function __tpctl_report_wants_file
    __tpctl_using report; and test (count (__tpctl_positionals)) -eq 0
end

function __tpctl_report_wants_event
    __tpctl_using report; and test (count (__tpctl_positionals)) -ge 1
end

complete -c tpctl -n __tpctl_report_wants_file -F
complete -c tpctl -n __tpctl_report_wants_event -a '(__tpctl_events)'
complete -c tpctl -n '__tpctl_using report' -s j -l json -d 'NDJSON output'
complete -c tpctl -n '__tpctl_using report' -s C -l cpu -x -d 'Only these CPUs (LIST)'
complete -c tpctl -n '__tpctl_using report' -s h -l help -d 'Show the help'
