#!/bin/sh
# The wake-up pipe (src/state.c): a signal between a loop's look at
# state_stop and its wait still ends the wait.  The program prints TAP.
bin=$(dirname "$0")/bin/wake
[ -x "$bin" ] || { echo "1..0 # SKIP $bin not built (run make check)"; exit 0; }
exec "$bin"
