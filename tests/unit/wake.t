#!/bin/sh
# The wake-up pipe (src/state.c): a signal between a loop's look at
# state_stop and its wait still ends the wait.  The program prints TAP.
bin=$(dirname "$0")/bin/wake
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
exec "$bin"
