#!/bin/bash
# The in-place line writers of the output layer against printf and strnlen
# (tests/unit/linewrite.c).
cd "$(dirname "$0")/../.." || exit 1
bin=tests/unit/bin/linewrite
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
exec "$bin"
