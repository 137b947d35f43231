#!/bin/bash
# Text plans against libtraceevent on made-up formats, and the bound of
# what a plan writes (tests/unit/textplan.c).
cd "$(dirname "$0")/../.." || exit 1
bin=tests/unit/bin/textplan
[ -x "$bin" ] || { echo "1..0 # SKIP $bin not built (run make check)"; exit 0; }
exec "$bin"
