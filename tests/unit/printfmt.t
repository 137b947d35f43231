#!/bin/bash
# Print fmt expressions: libtraceevent's values after printfmt.c's rewrites
# against the C compiler's, and the kernel's text for __print_flags, %#x and
# raw tabs (tests/unit/printfmt.c).
cd "$(dirname "$0")/../.." || exit 1
bin=tests/unit/bin/printfmt
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
exec "$bin"
