#!/bin/bash
# The in-place line writers of the output layer against printf and strnlen
# (tests/unit/linewrite.c).
cd "$(dirname "$0")/../.." || exit 1
bin=tests/unit/bin/linewrite
[ -x "$bin" ] || { echo "1..0 # SKIP $bin not built (run make check)"; exit 0; }
exec "$bin"
