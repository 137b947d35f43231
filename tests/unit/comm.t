#!/bin/sh
# comm.c's tables of saved_cmdlines, tfs_tep.c's walk of its lines.  The
# program prints TAP.
bin=$(dirname "$0")/bin/comm
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
exec "$bin"
