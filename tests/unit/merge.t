#!/bin/bash
# The reader's merge of many CPUs against the records sorted by stamp and
# CPU (tests/unit/merge.c).
cd "$(dirname "$0")/../.." || exit 1
bin=tests/unit/bin/merge
[ -x "$bin" ] || { echo "1..0 # SKIP $bin not built (run make check)"; exit 0; }
exec "$bin"
