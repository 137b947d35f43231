#!/usr/bin/zsh -f
# zcomplete.zsh FPATH_DIR 'command line': print the matches zsh's completion
# system offers at the end of the line, one a line.  Runs an interactive zsh
# in a pty, wraps compadd to print what it is given, and presses TAB.
zmodload zsh/zpty || exit 1
local dir=$1 cmdline=$2 line

zpty z zsh -f -i
zpty -w z "fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z "bindkey '^I' complete-word; zstyle ':completion:*' list-grouped false"
# the markers are glued at run time so that the echo of these lines has none
zpty -w z 'compadd() { local -a __m; if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; builtin compadd -A __m "$@"; (( $#__m )) || return 1; local __x; for __x in $__m; do print -rn -- $'"'"'\n'"'"'"@""@M $__x"$'"'"'\n'"'"' >&2; done; builtin compadd "$@"; }'
zpty -w z 'comppostfuncs=(__done); __done() { print -rn -- $'"'"'\n'"'"'"@""@END"$'"'"'\n'"'"' >&2; exit }'
zpty -w z "exec 2>&1"
zpty -n -w z "$cmdline"$'\t'
while zpty -r -t z line || { sleep 0.05; zpty -r z line; }; do
  line=${line%$'\n'}
  line=${line%$'\r'}
  [[ $line == @@END* ]] && break
  [[ $line == @@M\ * ]] && print -r -- ${line#@@M }
done
zpty -d z 2>/dev/null
