#!/bin/bash
# The reader's merge of many CPUs against the records sorted by stamp and
# CPU (tests/unit/merge.c).
cd "$(dirname "$0")/../.." || exit 1
bin=tests/unit/bin/merge
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
exec "$bin"
