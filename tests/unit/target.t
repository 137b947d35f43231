#!/bin/sh
# The TARGET options (src/target.c) without a tracefs: pid lists, usage errors,
# COMMAND looked up in PATH, users.  The program prints TAP itself.
bin=$(dirname "$0")/bin/target
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
# the errors the refused cases print are not the test's output
exec "$bin" 2> /dev/null
