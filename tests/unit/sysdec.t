#!/bin/bash
# The syscall decoder: strace's text of numbers (tests/unit/sysdec.c).
bin=$(dirname "$0")/bin/sysdec
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
exec "$bin"
