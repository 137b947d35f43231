#!/bin/bash
# Text plans against libtraceevent on made-up formats, and the bound of
# what a plan writes (tests/unit/textplan.c).
cd "$(dirname "$0")/../.." || exit 1
bin=tests/unit/bin/textplan
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
exec "$bin"
